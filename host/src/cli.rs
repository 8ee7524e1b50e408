//! Command-line interface: clap dispatches the subcommands; `run` and `check` flags follow
//! upstream's own parser (spec §5.2) because the task's config declares extra flags.

use crate::report::export::ExportPaths;
use crate::report::saved;
use crate::{flags, project, runner, scaffold};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// bench: run benchmark tasks compiled to WebAssembly components, each participant in its
/// own sandbox.
#[derive(Debug, Parser)]
#[command(name = "bench", version, about)]
pub struct Cli {
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
    #[command(flatten)]
    Platform(crate::platform::cli::PlatformCommand),
    /// Re-read a saved run: print its summary, rewrite summary.json and export it again.
    Report(ReportArgs),
}

#[derive(Debug, Args)]
struct ReportArgs {
    /// The run's results directory (holds run.json and records.ndjson).
    dir: PathBuf,
    /// Write the summary as JSON (what summary.json holds) to FILE.
    #[arg(long, value_name = "FILE")]
    export_json: Option<PathBuf>,
    /// Write the summary as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    export_csv: Option<PathBuf>,
    /// Write the summary table as Markdown to FILE.
    #[arg(long, value_name = "FILE")]
    export_markdown: Option<PathBuf>,
    /// Write JUnit XML (a test suite per participant, a test case per task) to FILE.
    #[arg(long, value_name = "FILE")]
    export_junit: Option<PathBuf>,
    /// Exit 99 when any participant's overall composite score is below SCORE.
    #[arg(long, value_name = "SCORE", value_parser = flags::fail_under)]
    fail_under: Option<f64>,
}

#[derive(Debug, Args)]
struct TaskArgs {
    /// The task, then upstream run flags (see `bench run --help`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    args: Vec<String>,
}

impl Cli {
    /// Runs the command and returns the process exit code.
    pub fn execute(self) -> ExitCode {
        match self.command {
            Command::Run(args) => task_command(args, |task, flags| async move {
                runner::run(&task, &flags).await
            }),
            Command::Check(args) => task_command(args, |task, flags| async move {
                let ok = runner::check(&task, &flags).await?;
                Ok(if ok {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                })
            }),
            Command::Inspect(args) => task_command(args, |task, flags| async move {
                crate::inspect::inspect(&task, &flags).await?;
                Ok(ExitCode::SUCCESS)
            }),
            Command::Report(args) => {
                let exports = ExportPaths {
                    json: args.export_json,
                    csv: args.export_csv,
                    markdown: args.export_markdown,
                    junit: args.export_junit,
                };
                saved::report(&args.dir, &exports, args.fail_under).unwrap_or_else(|e| fail(&e))
            }
            Command::Platform(command) => command.execute(),
            Command::Build { dir } => match project::build(&dir) {
                Ok(path) => {
                    println!("{}", path.display());
                    ExitCode::SUCCESS
                }
                Err(error) => fail(&error),
            },
            Command::New { dir, lang } => match scaffold::create(&dir, lang) {
                Ok(files) => {
                    for file in files {
                        println!("created {}", dir.join(file).display());
                    }
                    println!("Next: bench run {}", dir.display());
                    ExitCode::SUCCESS
                }
                Err(error) => fail(&error),
            },
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
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail(&error.into()),
    };
    match runtime.block_on(command(task, flags)) {
        Ok(code) => code,
        Err(error) => fail(&error),
    }
}

/// Prints `Benchmark failed: <message>` on stderr (upstream's wording) and returns exit 1.
fn fail(error: &anyhow::Error) -> ExitCode {
    eprintln!("Benchmark failed: {error:#}");
    ExitCode::FAILURE
}
