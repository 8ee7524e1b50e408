//! `bench-model`: what a run is, without the engine that runs it.
//!
//! Upstream's config rules and messages (`config`), the plan a config and the flags make
//! (`plan`: participants, schedule, load model, shards, `run.json`), task records
//! (`record`), what observers see (`events`), the limits a task's config may only lower
//! (`ceilings`) and the environment a sandbox is granted (`env`), the run's stop switch
//! (`stop`), distributed runs' data (`dispatch`), JavaScript's value rules (`js`), timing
//! (`clock`), text escaping (`text`), bench's own metric names (`metric`) and this machine's memory (`machine`). Nothing here
//! knows wasmtime, a network client or a server.

pub mod ceilings;
pub mod clock;
pub mod config;
pub mod dispatch;
pub mod env;
pub mod events;
pub mod js;
pub mod machine;
pub mod metric;
pub mod plan;
pub mod record;
pub mod stop;
pub mod text;
