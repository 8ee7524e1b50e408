//! bench's distributed runs on NATS JetStream: the coordinator (`bench run --dispatch`)
//! publishes a run's work units to a work-queue stream and reads the workers' record
//! batches back; workers (`bench worker`) pull units through durable pull consumers with
//! explicit acks, fetch the task component from the object store by its sha256 and publish
//! their records before they ack. What a unit is and how it runs lives in
//! `bench_runtime::dispatch`; this crate is only the transport.

mod coordinator;
mod descriptor;
mod names;
mod worker;

pub use coordinator::{Coordinator, Incoming, WorkerNote};
pub use descriptor::RunDescriptor;
pub use worker::{UnitDelivery, WorkSource, WorkerLink};

use anyhow::{Context as _, Result};

/// Connects to the NATS server at `url` (`nats://HOST:PORT`) and opens JetStream.
async fn jetstream(url: &str) -> Result<async_nats::jetstream::Context> {
    let client = async_nats::connect(url)
        .await
        .with_context(|| format!("cannot connect to NATS at {url}"))?;
    Ok(async_nats::jetstream::new(client))
}
