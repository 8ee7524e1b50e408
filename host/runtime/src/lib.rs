//! `bench-runtime`: the engine and what runs in it: the compiled-component cache and its
//! budget (`engine`, `compiled_cache`, `compile_budget`), component checks (`component`),
//! one sandbox per participant slot with its capabilities and limits (`sandbox`), and the
//! executors that run tasks in them (`exec`). The only crate that knows wasmtime; what a run
//! is and what it leaves behind are `bench-model` and `bench-report`.

pub mod compile_budget;
mod compiled_cache;
pub mod component;
pub mod engine;
pub mod exec;
pub mod sandbox;
