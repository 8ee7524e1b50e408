//! `bench`: a benchmark runner whose tasks are WebAssembly components.
//!
//! Data flows one way: component → config → validated plan → executor (one sandbox per
//! participant slot) → task records → console, local results and scoring.

pub mod config;
pub mod flags;
pub mod js;
pub mod plan;
pub mod record;
pub mod scoring;
