//! `bench-runtime`: everything a run does on one machine, without a network client or a
//! server.
//!
//! Data flows one way: component → config → validated plan → executor (one sandbox per
//! participant slot) → task records → console, local results and scoring.

mod clock;
pub mod compare;
pub mod compile_budget;
mod compiled_cache;
pub mod component;
pub mod config;
pub mod dispatch;
pub mod engine;
pub mod events;
pub mod exec;
pub mod js;
pub mod metrics;
pub mod plan;
pub mod record;
pub mod report;
pub mod sandbox;
pub mod scoring;
