//! bench's distributed runs on NATS JetStream: the coordinator (`bench run --dispatch`)
//! publishes a run's work units to a work-queue stream and reads the workers' record
//! batches back; workers (`bench worker`) pull units through durable pull consumers with
//! explicit acks, fetch the task component from the object store by its sha256 and publish
//! their records before they ack. Runs and units are signed by the coordinator's key and
//! served only by workers that trust it; notes and records are signed by the worker's key.
//! What a unit is and how it runs lives in `bench_model::dispatch`; this crate is only
//! the transport.

mod access;
mod coordinator;
mod descriptor;
mod names;
mod signing;
mod worker;

pub use access::{check_url, redact_url, AccessFiles, NatsAccess};
pub use coordinator::{check_worker_name, Coordinator, CoordinatorSetup, Incoming, WorkerNote};
pub use descriptor::RunDescriptor;
pub use signing::{PublicKey, SigningKey};
pub use worker::{Announcement, Pulled, RunTrust, UnitDelivery, WorkSource, WorkerLink};
