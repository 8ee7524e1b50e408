//! Command-line interface: clap dispatches the subcommands; `run` and `check` flags follow
//! upstream's own parser (spec §5.2) because the task's config declares extra flags.

use crate::{flags, scaffold};
use report::ReportArgs;
use serve::ServeArgs;
mod build;
mod check;
mod inspect;
mod interrupt;
mod new;
mod platform;
mod report;
mod run;
mod serve;
mod task;

use bench_runtime::report::console::escape;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// bench: run benchmark tasks compiled to WebAssembly components, each participant in its
/// own sandbox.
#[derive(Debug, Parser)]
#[command(name = "bench", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a benchmark task (a .wasm component or a task project directory).
    #[command(
        disable_help_flag = true,
        override_usage = "bench run <task.wasm | task-dir> [flags]"
    )]
    Run(TaskArgs),
    /// Validate a task's config, participants and environment without running it.
    #[command(
        disable_help_flag = true,
        override_usage = "bench check <task.wasm | task-dir> [flags]"
    )]
    Check(TaskArgs),
    /// Show a task's exports and imports and what each participant's sandbox will get.
    #[command(
        disable_help_flag = true,
        override_usage = "bench inspect <task.wasm | task-dir> [flags]"
    )]
    Inspect(TaskArgs),
    /// Build a task project into a component and print its path.
    Build {
        /// The task project directory.
        dir: PathBuf,
    },
    /// Create a task project (with a README) that builds and runs as it is.
    New {
        /// The directory to create; its name becomes the benchmark's name.
        dir: PathBuf,
        /// The task's language.
        #[arg(long, value_enum)]
        lang: scaffold::Lang,
    },
    /// Serve a self-hosted benchmarks platform (the API `bench run` reports to) from a
    /// SQLite file.
    Serve(ServeArgs),
    #[command(flatten)]
    Platform(platform::PlatformCommand),
    /// Re-read a saved run: print its summary, rewrite summary.json and export it again.
    Report(ReportArgs),
}

#[derive(Debug, Args)]
struct TaskArgs {
    /// The task, then upstream run flags (see `bench run --help`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    args: Vec<String>,
}

impl Cli {
    /// Runs the command and returns the process exit code.
    pub(crate) fn execute(self) -> ExitCode {
        match self.command {
            Command::Run(args) => {
                task_command(
                    args,
                    |task, flags| async move { run::run(&task, &flags).await },
                )
            }
            Command::Check(args) => task_command(args, |task, flags| async move {
                let ok = check::check(&task, &flags).await?;
                Ok(if ok {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                })
            }),
            Command::Inspect(args) => task_command(args, |task, flags| async move {
                inspect::inspect(&task, &flags).await?;
                Ok(ExitCode::SUCCESS)
            }),
            Command::Report(args) => args.execute(),
            Command::Serve(args) => block_on(args.execute()),
            Command::Platform(command) => block_on(command.execute()),
            Command::Build { dir } => build::build(&dir),
            Command::New { dir, lang } => new::new(&dir, lang),
        }
    }
}

fn task_command<F, Fut>(args: TaskArgs, command: F) -> ExitCode
where
    F: FnOnce(PathBuf, Vec<String>) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<ExitCode>>,
{
    let mut words = args.args.into_iter();
    let task = match words.next() {
        Some(word) if word == "--help" || word == "-h" => {
            println!("{}", flags::RUN_USAGE);
            return ExitCode::SUCCESS;
        }
        Some(word) if !word.starts_with('-') => PathBuf::from(word),
        _ => return fail(&anyhow::anyhow!("{}", flags::RUN_USAGE)),
    };
    let flags: Vec<String> = words.collect();
    block_on(async move {
        match command(task, flags).await {
            Ok(code) => code,
            Err(error) => fail(&error),
        }
    })
}

/// Runs a command on a multi-threaded tokio runtime.
fn block_on(command: impl std::future::Future<Output = ExitCode>) -> ExitCode {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(command),
        Err(error) => fail(&error.into()),
    }
}

/// Prints `Benchmark failed: <message>` on stderr (upstream's wording) and returns exit 1.
/// A message may quote a task's text: control characters other than line breaks are shown
/// escaped.
pub(crate) fn fail(error: &anyhow::Error) -> ExitCode {
    let message = format!("{error:#}");
    let lines: Vec<_> = message.split('\n').map(escape).collect();
    eprintln!("Benchmark failed: {}", lines.join("\n"));
    ExitCode::FAILURE
}
