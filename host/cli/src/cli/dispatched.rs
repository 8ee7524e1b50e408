//! `dispatch.json` in a dispatched run's results directory: what `bench run --resume`
//! needs to take the run up again — the component, the run's flags (a URL's credentials
//! left out) and the workers that joined (their keys, so their records still count).

use crate::flags;
use anyhow::{bail, Context as _, Result};
use bench_dispatch::{AccessFiles, NatsAccess, PublicKey};
use bench_report::files;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A dispatched run as its results directory remembers it.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct DispatchedRun {
    /// The task component.
    pub component: PathBuf,
    /// The run's flags (with `--dispatch`, its URL without credentials).
    pub argv: Vec<String>,
    /// The workers that joined: key (hex) → name.
    #[serde(default)]
    pub workers: BTreeMap<String, String>,
}

impl DispatchedRun {
    const FILE: &str = "dispatch.json";

    /// The run of `component` with `argv`, credentials left out.
    pub(super) fn new(component: PathBuf, argv: &[String]) -> Self {
        Self {
            component,
            argv: without_credentials(argv),
            workers: BTreeMap::new(),
        }
    }

    /// Writes `dispatch.json` into `dir`.
    pub(super) fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(Self::FILE);
        let text = serde_json::to_string_pretty(self)? + "\n";
        // Whole or not at all: a stop mid-write leaves the previous file; never written
        // through a link planted in the results directory.
        let partial = dir.join(format!("{}.partial", Self::FILE));
        files::write(&partial, text.as_bytes())?;
        std::fs::rename(&partial, &path).with_context(|| format!("cannot write {}", path.display()))
    }

    /// Reads `dispatch.json` of `dir`.
    pub(super) fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(Self::FILE);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "cannot read {}: only a dispatched run (bench run --dispatch) can be resumed",
                path.display()
            )
        })?;
        serde_json::from_str(&text).with_context(|| format!("{} is not valid", path.display()))
    }

    /// Keeps `argv` (credentials left out) as the run's flags.
    pub(super) fn replace_argv(&mut self, argv: &[String]) {
        self.argv = without_credentials(argv);
    }

    /// Remembers a worker that joined; whether it is new.
    pub(super) fn add_worker(&mut self, key: PublicKey, name: &str) -> bool {
        self.workers
            .insert(key.to_hex(), name.to_owned())
            .as_deref()
            != Some(name)
    }

    /// The workers that joined, as the coordinator takes them back.
    pub(super) fn known_workers(&self) -> Vec<(PublicKey, String)> {
        self.workers
            .iter()
            .filter_map(|(key, name)| Some((PublicKey::from_hex(key)?, name.clone())))
            .collect()
    }

    /// The stored flags with `overrides` (words after `--resume DIR`) in place of theirs.
    pub(super) fn argv_with(&self, overrides: &[String]) -> Result<Vec<String>> {
        let given = flag_values(overrides);
        let mut unknown = given
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| !flags::resume_flags().any(|flag| flag == *name));
        if let Some(name) = unknown.next() {
            bail!(
                "bench run --resume DIR takes again only {} (got {name})",
                flags::resume_flags().collect::<Vec<_>>().join(", ")
            );
        }
        let replaced: Vec<&str> = given.iter().map(|(name, _)| name.as_str()).collect();
        let mut argv = without(&self.argv, |name| replaced.contains(&name));
        for (name, value) in given {
            argv.extend([name, value]);
        }
        Ok(argv)
    }
}

/// `argv` without the flags only a coordinator reads (what workers get).
pub(super) fn worker_argv(argv: &[String]) -> Vec<String> {
    without(argv, flags::coordinator_only)
}

/// The NATS files of a run's flags, from the environment where not given.
pub(super) fn access(url: &str, files: &AccessFiles) -> Result<NatsAccess> {
    NatsAccess::new(url, files.clone().or_from_env(super::task::host_env))
}

/// `(name, value)` of each `--name value` or `--name=value` in `words`.
fn flag_values(words: &[String]) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut words = words.iter();
    while let Some(word) = words.next() {
        match word.split_once('=') {
            Some((name, value)) => pairs.push((name.to_owned(), value.to_owned())),
            None => pairs.push((word.clone(), words.next().cloned().unwrap_or_default())),
        }
    }
    pairs
}

/// `argv` without the flags `dropped` names (each with its value).
fn without(argv: &[String], dropped: impl Fn(&str) -> bool) -> Vec<String> {
    let mut kept = Vec::with_capacity(argv.len());
    let mut words = argv.iter();
    while let Some(word) = words.next() {
        let name = word.split_once('=').map_or(word.as_str(), |(name, _)| name);
        if !dropped(name) {
            kept.push(word.clone());
        } else if !word.contains('=') {
            words.next();
        }
    }
    kept
}

/// `argv` with `--dispatch`'s URL stripped of its credentials.
fn without_credentials(argv: &[String]) -> Vec<String> {
    let server = |url: &str| {
        NatsAccess::new(url, AccessFiles::default())
            .map(|access| access.server().to_owned())
            .unwrap_or_else(|_| bench_dispatch::redact_url(url))
    };
    let mut kept = Vec::with_capacity(argv.len());
    let mut words = argv.iter();
    while let Some(word) = words.next() {
        if word == "--dispatch" {
            kept.push(word.clone());
            kept.extend(words.next().map(|url| server(url)));
        } else if let Some(url) = word.strip_prefix("--dispatch=") {
            kept.push(format!("--dispatch={}", server(url)));
        } else {
            kept.push(word.clone());
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &[&str]) -> Vec<String> {
        text.iter().map(|word| word.to_string()).collect()
    }

    #[test]
    fn workers_get_the_flags_without_the_coordinator_s() {
        let argv = words(&[
            "--dispatch",
            "nats://a:1",
            "-q",
            "--dispatch=nats://b:2",
            "--sign",
            "run.key",
            "--nats-creds=c.creds",
            "--out",
            "x",
            "--allow-host",
            "h",
        ]);
        assert_eq!(worker_argv(&argv), ["-q", "--allow-host", "h"]);
    }

    #[test]
    fn the_file_keeps_no_credential_and_resume_replaces_connection_flags() {
        let argv = words(&[
            "--dispatch",
            "nats://bench:hunter2@nats:4222",
            "-q",
            "--dispatch=tls://t0ken@h",
        ]);
        let run = DispatchedRun::new("/task.wasm".into(), &argv);
        assert_eq!(
            run.argv,
            ["--dispatch", "nats://nats:4222", "-q", "--dispatch=tls://h"]
        );
        let resumed = run
            .argv_with(&words(&[
                "--dispatch",
                "nats://bench:pw@nats:4222",
                "--sign=k",
            ]))
            .unwrap();
        assert_eq!(
            resumed,
            [
                "-q",
                "--dispatch",
                "nats://bench:pw@nats:4222",
                "--sign",
                "k"
            ]
        );
        let error = run.argv_with(&words(&["--iterations", "5"])).unwrap_err();
        assert!(
            error.to_string().contains("takes again only --dispatch"),
            "{error}"
        );
    }

    #[test]
    fn joined_workers_are_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let mut run = DispatchedRun::new("/task.wasm".into(), &[]);
        let key = bench_dispatch::SigningKey::generate().public();
        assert!(run.add_worker(key, "w1"));
        assert!(!run.add_worker(key, "w1"));
        run.write(dir.path()).unwrap();
        let read = DispatchedRun::read(dir.path()).unwrap();
        assert_eq!(read.known_workers(), [(key, "w1".to_owned())]);
    }
}
