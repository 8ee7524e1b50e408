//! The transport-independent parts of a distributed run (the NATS transport is the
//! `bench-dispatch` crate): the work a coordinator hands out ([`WorkUnit`]: one slot's run
//! of task indices), what a worker sends back ([`RecordBatch`]: finished tasks with the
//! worker's name), how a worker runs a unit ([`run_unit`]) and how the coordinator keeps
//! every task exactly once ([`TaskLedger`]).

mod envelope;
mod ledger;
mod unit;

pub use envelope::{RecordBatch, TaskEntry, MAX_BATCH_BYTES};
pub use ledger::{Accepted, TaskLedger};
pub use unit::{participant_units, round_units, since_epoch, RunUnits, WorkUnit};
