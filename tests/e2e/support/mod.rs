//! Helpers shared by the end-to-end tests, one concern per module.

pub(crate) mod bench;
pub(crate) mod browser;
pub(crate) mod fake_api;
pub(crate) mod guests;
pub(crate) mod http_server;
pub(crate) mod moto;
pub(crate) mod nats;
pub(crate) mod platform;
pub(crate) mod proxy;
pub(crate) mod results;

use std::path::{Path, PathBuf};

/// The repository root.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_owned()
}
