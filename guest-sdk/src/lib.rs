//! Write `bench` tasks in Rust.
//!
//! A task implements [`Task`] (its benchmark config and one iteration of the workload) and
//! exports it with [`export_task!`]; `bench build` compiles it to a WebAssembly component.
//!
//! ```ignore
//! use bench_guest::{export_task, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult};
//! use serde_json::json;
//!
//! struct Hello;
//!
//! impl Task for Hello {
//!     fn config() -> BenchmarkConfig {
//!         BenchmarkConfig::new("hello", "Hello").participant(Participant::new("local")).iterations(3)
//!     }
//!
//!     fn run(ctx: &Context) -> TaskResult {
//!         let answer = ctx.step("compute", || Ok(6 * 7))?;
//!         ctx.measure(json!({ "answer": answer }));
//!         Ok(TaskOutput::new())
//!     }
//! }
//!
//! export_task!(Hello);
//! ```

mod config;
mod context;
mod error;
#[cfg(feature = "http")]
pub mod http;
pub mod natives;
mod output;
pub mod websocket;

#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "task",
        pub_export_macro: true,
        export_macro_name: "__export_task_world",
        default_bindings_module: "bench_guest::bindings",
        // The pollables of `websocket` connections, and the streams `bodies` reads (`http`
        // hands it the streams of its wasip2 bindings by handle).
        with: {
            "wasi:io/poll@0.2.12": generate,
            "wasi:io/error@0.2.12": generate,
            "wasi:io/streams@0.2.12": generate,
        },
    });
}

pub use config::{BenchmarkConfig, GroupBy, Participant, Phase, Scoring, ScoringMetric, Shape};
pub use context::{Context, Level, StepOptions, StepOutcome};
pub use error::TaskError;
pub use output::{StepRecord, TaskOutput};
pub use serde_json::{json, Value};

/// What one task iteration returns.
pub type TaskResult = Result<TaskOutput, TaskError>;

/// A benchmark task: its config and one iteration of its workload.
pub trait Task {
    /// The benchmark config (participants, iterations or phases, concurrency, scoring…).
    fn config() -> BenchmarkConfig;

    /// Runs one task iteration. Steps, measurements and logs go through `ctx`.
    fn run(ctx: &Context) -> TaskResult;
}

/// Exports a [`Task`] implementation as the component's `config` and `run`.
#[macro_export]
macro_rules! export_task {
    ($task:ty) => {
        const _: () = {
            struct BenchTaskExport;

            impl $crate::bindings::Guest for BenchTaskExport {
                fn config() -> ::std::string::String {
                    $crate::__private::config_json::<$task>()
                }

                fn run(
                    input: $crate::bindings::TaskInput,
                ) -> ::std::result::Result<$crate::bindings::TaskOutput, $crate::bindings::TaskError>
                {
                    $crate::__private::run::<$task>(input)
                }
            }

            $crate::bindings::__export_task_world!(BenchTaskExport with_types_in $crate::bindings);
        };
    };
}

#[doc(hidden)]
pub mod __private {
    use super::*;

    /// Serializes the task's config for the `config` export.
    pub fn config_json<T: Task>() -> String {
        install_panic_hook();
        serde_json::to_string(&T::config()).expect("a benchmark config always serializes")
    }

    /// Runs the task for the `run` export and converts its result to the WIT types.
    pub fn run<T: Task>(
        input: bindings::TaskInput,
    ) -> Result<bindings::TaskOutput, bindings::TaskError> {
        install_panic_hook();
        let ctx = Context::from_input(input);
        T::run(&ctx)
            .map(TaskOutput::into_wit)
            .map_err(TaskError::into_wit)
    }

    /// Prints a panic as one stderr line, which the host quotes in the failed record.
    fn install_panic_hook() {
        static INSTALL: std::sync::Once = std::sync::Once::new();
        INSTALL.call_once(|| {
            std::panic::set_hook(Box::new(|info| {
                eprintln!("{}", info.to_string().replace('\n', " "));
            }));
        });
    }
}
