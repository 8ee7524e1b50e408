//! `bench`: a benchmark runner whose tasks are WebAssembly components.
//!
//! Data flows one way: component → config → validated plan → executor (one sandbox per
//! participant slot) → task records → console, local results and scoring.

pub mod bindings;
pub mod cli;
pub mod component;
pub mod config;
pub mod context;
pub mod engine;
pub mod exec;
pub mod flags;
pub mod grants;
pub mod inspect;
pub mod js;
pub mod metrics;
pub mod plan;
pub mod platform;
pub mod project;
pub mod record;
pub mod report;
pub mod runner;
pub mod sandbox;
pub mod scaffold;
pub mod scoring;
pub mod serve;
