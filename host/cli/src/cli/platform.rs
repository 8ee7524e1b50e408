//! The platform subcommands of `bench` (`upload`, `benchmarks`, `runs`, `results`,
//! `artifacts`, `export`, `auth`), flattened into the main command line.

use bench_platform::auth::{AuthError, Overrides};
use bench_platform::commands::{self, Format, Query};
use bench_platform::upload;
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// The platform subcommands.
#[derive(Debug, Subcommand)]
pub(super) enum PlatformCommand {
    /// Deliver to the platform what a run has not delivered yet (exactly once), or a run
    /// that was kept local.
    Upload {
        /// The run's results directory.
        dir: PathBuf,
        #[command(flatten)]
        platform: PlatformArgs,
    },
    /// Benchmarks on the platform.
    #[command(subcommand)]
    Benchmarks(BenchmarksCommand),
    /// Runs of a benchmark on the platform.
    #[command(subcommand)]
    Runs(RunsCommand),
    /// Artifacts (participant logs, system metrics) of a run on the platform.
    #[command(subcommand)]
    Artifacts(ArtifactsCommand),
    /// Summary rows of a benchmark's runs, or of one run (`--run`).
    Results {
        /// Benchmark slug.
        slug: String,
        /// A run id.
        #[arg(long)]
        run: Option<String>,
        #[command(flatten)]
        platform: PlatformArgs,
    },
    /// Write a benchmark (or one run, `--run`) from the platform to a JSON file.
    Export {
        /// Benchmark slug.
        slug: String,
        /// A run id.
        #[arg(long)]
        run: Option<String>,
        /// The directory to write to (default: the current one).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        #[command(flatten)]
        platform: PlatformArgs,
    },
    /// Platform credentials.
    #[command(subcommand)]
    Auth(AuthCommand),
}

/// `bench benchmarks …`.
#[derive(Debug, Subcommand)]
pub(super) enum BenchmarksCommand {
    /// List the benchmarks.
    List {
        /// Page size.
        #[arg(long)]
        limit: Option<u32>,
        /// Page start.
        #[arg(long)]
        offset: Option<u32>,
        #[command(flatten)]
        platform: PlatformArgs,
    },
}

/// `bench artifacts …`.
#[derive(Debug, Subcommand)]
pub(super) enum ArtifactsCommand {
    /// List a run's artifacts (or one worker's, `--worker`).
    List {
        /// Benchmark slug.
        slug: String,
        /// Run id.
        run_id: String,
        /// A worker id.
        #[arg(long)]
        worker: Option<String>,
        #[command(flatten)]
        platform: PlatformArgs,
    },
}

/// `bench runs …`.
#[derive(Debug, Subcommand)]
pub(super) enum RunsCommand {
    /// List a benchmark's runs, newest first.
    List {
        /// Benchmark slug.
        slug: String,
        /// Page size.
        #[arg(long)]
        limit: Option<u32>,
        /// Page start.
        #[arg(long)]
        offset: Option<u32>,
        #[command(flatten)]
        platform: PlatformArgs,
    },
    /// Show one run.
    Show {
        /// Benchmark slug.
        slug: String,
        /// Run id.
        run_id: String,
        #[command(flatten)]
        platform: PlatformArgs,
    },
}

/// `bench auth …`.
#[derive(Debug, Subcommand)]
pub(super) enum AuthCommand {
    /// Show the user and organizations the credentials belong to.
    Status {
        #[command(flatten)]
        platform: PlatformArgs,
    },
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum FormatArg {
    /// Aligned columns.
    Table,
    /// Pretty JSON.
    Json,
}

/// Options every platform command takes.
#[derive(Debug, Args)]
pub(super) struct PlatformArgs {
    /// Platform root URL (beats BENCHMARKS_PLATFORM_URL and saved settings).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Organization API key (beats the environment and saved credentials).
    #[arg(long, value_name = "KEY")]
    api_key: Option<String>,
    /// Organization slug.
    #[arg(long, value_name = "SLUG")]
    org: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,
    /// Same as `--format json`.
    #[arg(long)]
    json: bool,
}

impl PlatformArgs {
    fn overrides(&self) -> Overrides {
        Overrides {
            base_url: self.base_url.clone(),
            api_key: self.api_key.clone(),
            org: self.org.clone(),
        }
    }

    fn format(&self) -> Format {
        if self.json || self.format == FormatArg::Json {
            Format::Json
        } else {
            Format::Table
        }
    }
}

impl PlatformCommand {
    /// Runs the command and returns the exit code.
    pub(super) async fn execute(self) -> ExitCode {
        let (query, platform) = match self {
            PlatformCommand::Upload { dir, platform } => {
                return match upload::upload(&dir, &platform.overrides()).await {
                    Ok(true) => ExitCode::SUCCESS,
                    Ok(false) => ExitCode::FAILURE,
                    Err(error) if error.is::<AuthError>() => {
                        eprintln!("{error}");
                        ExitCode::from(2)
                    }
                    Err(error) => {
                        eprintln!("Upload failed: {error:#}");
                        ExitCode::FAILURE
                    }
                };
            }
            PlatformCommand::Benchmarks(BenchmarksCommand::List {
                limit,
                offset,
                platform,
            }) => (Query::Benchmarks { limit, offset }, platform),
            PlatformCommand::Artifacts(ArtifactsCommand::List {
                slug,
                run_id,
                worker,
                platform,
            }) => (
                Query::Artifacts {
                    slug,
                    run_id,
                    worker_id: worker,
                },
                platform,
            ),
            PlatformCommand::Runs(RunsCommand::List {
                slug,
                limit,
                offset,
                platform,
            }) => (
                Query::Runs {
                    slug,
                    limit,
                    offset,
                },
                platform,
            ),
            PlatformCommand::Runs(RunsCommand::Show {
                slug,
                run_id,
                platform,
            }) => (Query::Run { slug, run_id }, platform),
            PlatformCommand::Results {
                slug,
                run,
                platform,
            } => (Query::Results { slug, run_id: run }, platform),
            PlatformCommand::Export {
                slug,
                run,
                out,
                platform,
            } => (
                Query::Export {
                    slug,
                    run_id: run,
                    out,
                },
                platform,
            ),
            PlatformCommand::Auth(AuthCommand::Status { platform }) => {
                (Query::AuthStatus, platform)
            }
        };
        commands::run(&query, &platform.overrides(), platform.format()).await
    }
}
