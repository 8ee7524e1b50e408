//! Command-line interface: clap dispatches the subcommands; `run`, `check` and `inspect`
//! flags follow upstream's own parser (spec §5.2) because the task's config declares extra
//! flags, and reach the completion scripts as clap arguments made from the same flag table.

use crate::color::{self, ColorChoice};
use crate::{flags, scaffold};
use compare::CompareArgs;
use merge::MergeArgs;
use report::ReportArgs;
use serve::ServeArgs;
use worker::WorkerArgs;
mod build;
mod check;
mod compare;
mod coordinate;
mod dispatched;
mod inspect;
mod interrupt;
mod merge;
mod new;
mod platform;
mod report;
mod run;
mod serve;
mod session;
mod task;
mod worker;

use bench_model::text::escape_control;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::OnceLock;

/// bench: run benchmark tasks compiled to WebAssembly components, each participant in its
/// own sandbox.
#[derive(Debug, Parser)]
#[command(name = "bench", version = version_text(), about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour the summary's success column and errors: auto (on a terminal, unless NO_COLOR
    /// is set), always or never.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t)]
    color: ColorChoice,
}

/// `bench --version`: bench's version, then the wasmtime it links and the task contract it
/// provides, one per line.
fn version_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        format!(
            "{}\nwasmtime {}\ncontract {}",
            env!("CARGO_PKG_VERSION"),
            bench_runtime::engine::wasmtime_version(),
            bench_contract::CONTRACT_PACKAGE
        )
    })
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a benchmark task (a .wasm component, a task project directory or one task file).
    #[command(
        disable_help_flag = true,
        override_usage = "bench run <task.wasm | task-dir | task-file> [flags]"
    )]
    Run(TaskArgs),
    /// Validate a task's config, participants and environment without running it.
    #[command(
        disable_help_flag = true,
        override_usage = "bench check <task.wasm | task-dir | task-file> [flags]"
    )]
    Check(TaskArgs),
    /// Show a task's exports and imports and what each participant's sandbox will get.
    #[command(
        disable_help_flag = true,
        override_usage = "bench inspect <task.wasm | task-dir | task-file> [flags]"
    )]
    Inspect(TaskArgs),
    /// Build a task project (or one task file) into a component and print its path.
    Build {
        /// The task project directory, or one JavaScript/TypeScript/Python task file.
        task: PathBuf,
        /// Let the project's npm dependencies (and the project) run their install scripts
        /// (`preinstall`, `postinstall`…), natively on this machine; off by default.
        #[arg(long)]
        allow_build_scripts: bool,
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
    /// Compare saved runs: per participant and metric, each run's median against the first
    /// run's, with a bootstrap confidence interval of the ratio, a p-value and a verdict.
    Compare(CompareArgs),
    /// Run the tasks of dispatched runs (`bench run --dispatch`) announced on a NATS server
    /// and signed by a key this worker trusts.
    Worker(WorkerArgs),
    /// Make a key pair for signed distributed runs: the private key in FILE (mode 0600),
    /// the public key in FILE.pub (`bench run --dispatch URL --sign FILE`, `bench worker
    /// URL --trust FILE.pub`).
    Keygen {
        /// Where the private key goes (it must not exist yet).
        file: PathBuf,
    },
    /// Join the results directories of a run's shards (`bench run --shard i/N`) into one
    /// and summarize the whole run.
    Merge(MergeArgs),
    /// Print a shell completion script.
    ///
    /// For example: `bench completions bash > ~/.local/share/bash-completion/completions/bench`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Args)]
struct TaskArgs {
    /// The task (a .wasm component, a task project directory or one .js/.ts/.py task file)
    /// and the flags below; bench's flags may come before or after the task, the task's own
    /// flags after it.
    #[arg(
        value_name = "TASK AND FLAGS",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        num_args = 0..
    )]
    args: Vec<String>,
}

impl Cli {
    /// Runs the command and returns the process exit code.
    pub(crate) fn execute(self) -> ExitCode {
        color::set(self.color);
        match self.command {
            Command::Run(args) => match resume_words(&args.args) {
                Some((dir, overrides)) => block_on_run_thread(async move {
                    run::resume(&dir, &overrides)
                        .await
                        .unwrap_or_else(|error| fail(&error))
                }),
                None => task_command("run", args, |task, flags| async move {
                    run::run(&task, &flags).await
                }),
            },
            Command::Check(args) => task_command("check", args, |task, flags| async move {
                let ok = check::check(&task, &flags).await?;
                Ok(if ok {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                })
            }),
            Command::Inspect(args) => task_command("inspect", args, |task, flags| async move {
                inspect::inspect(&task, &flags).await?;
                Ok(ExitCode::SUCCESS)
            }),
            Command::Report(args) => args.execute(),
            Command::Compare(args) => args.execute(),
            Command::Merge(args) => args.execute(),
            Command::Worker(args) => args.execute(),
            Command::Serve(args) => block_on(args.execute()),
            Command::Platform(command) => block_on(command.execute()),
            Command::Build {
                task,
                allow_build_scripts,
            } => build::build(&task, allow_build_scripts),
            Command::New { dir, lang } => new::new(&dir, lang),
            Command::Keygen { file } => keygen(&file),
            Command::Completions { shell } => completions(shell),
        }
    }
}

/// The results directory of `bench run --resume DIR [flags]` (the first words then) and the
/// flags after it.
fn resume_words(words: &[String]) -> Option<(PathBuf, Vec<String>)> {
    match words {
        [flag, dir, rest @ ..] if flag == "--resume" => Some((PathBuf::from(dir), rest.to_vec())),
        [word, rest @ ..] => word
            .strip_prefix("--resume=")
            .map(|dir| (PathBuf::from(dir), rest.to_vec())),
        [] => None,
    }
}

/// `bench keygen FILE`: a new signing key in FILE and its public key in FILE.pub.
fn keygen(file: &std::path::Path) -> ExitCode {
    let key = bench_dispatch::SigningKey::generate();
    match key.write_new(file) {
        Ok(public) => {
            println!(
                "Private key: {} (keep it secret: bench run --dispatch URL --sign {})",
                file.display(),
                file.display()
            );
            println!(
                "Public key:  {} ({}; give it to workers: bench worker URL --trust {})",
                public.display(),
                key.public(),
                public.display()
            );
            ExitCode::SUCCESS
        }
        Err(error) => error_exit(&error),
    }
}

/// `bench run|check|inspect`: help, the task path and typos of bench's flags are dealt with
/// before the task is built; the rest of the flags after its config call.
fn task_command<F, Fut>(name: &str, args: TaskArgs, command: F) -> ExitCode
where
    F: FnOnce(PathBuf, Vec<String>) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<ExitCode>>,
{
    let words = flags::split_task_words(args.args);
    if let Some(choice) = flags::color_choice(&words.flags) {
        color::set(choice);
    }
    if words.help {
        print_task_help(name);
        return ExitCode::SUCCESS;
    }
    let Some(task) = words.task else {
        return fail(&anyhow::anyhow!("{}", flags::run_usage()));
    };
    if let Err(error) = flags::reject_typos(&words.flags) {
        return fail(&error.into());
    }
    let task = PathBuf::from(task);
    block_on_run_thread(async move {
        match command(task, words.flags).await {
            Ok(code) => code,
            Err(error) => fail(&error),
        }
    })
}

/// The help of `bench <name>`: clap's about and usage, then every run flag.
fn print_task_help(name: &str) {
    let mut cli = <Cli as clap::CommandFactory>::command();
    if let Some(command) = cli.find_subcommand_mut(name) {
        let mut command = command.clone().bin_name(format!("bench {name}"));
        println!("{}", command.render_long_help());
    }
    println!("{}", flags::flags_help());
}

/// Prints the completion script of `shell` (a closed pipe, as with `| head`, is no error).
fn completions(shell: clap_complete::Shell) -> ExitCode {
    match std::io::Write::write_all(&mut std::io::stdout(), &completion_script(shell)) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => error_exit(&error.into()),
        _ => ExitCode::SUCCESS,
    }
}

/// The commands that take a task and the run flags.
const TASK_COMMANDS: [&str; 3] = ["run", "check", "inspect"];

/// The completion script of `shell`: clap's commands, with the run flags (which `run`,
/// `check` and `inspect` take raw) as arguments of those three.
fn completion_script(shell: clap_complete::Shell) -> Vec<u8> {
    let mut cli = <Cli as clap::CommandFactory>::command();
    for name in TASK_COMMANDS {
        cli = cli.mut_subcommand(name, |command| {
            command
                .mut_arg("args", |task| task.value_hint(clap::ValueHint::AnyPath))
                .args(flags::completion_args())
        });
    }
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cli, "bench", &mut script);
    script
}

/// Runs a command on a multi-threaded tokio runtime.
fn block_on(command: impl std::future::Future<Output = ExitCode>) -> ExitCode {
    run_on(
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
        command,
    )
}

/// Runs a command that runs tasks here (run, resume, check, inspect) on a current-thread
/// runtime: a participant's single slot runs its tasks inline in the executor, so the
/// executor, the task and the I/O the task causes (its HTTP requests and their connections)
/// share one thread, with no hand-off between threads per request. Concurrent slots run on
/// the slot threads of `bench_runtime::exec`.
fn block_on_run_thread(command: impl std::future::Future<Output = ExitCode>) -> ExitCode {
    run_on(
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        command,
    )
}

fn run_on(
    runtime: std::io::Result<tokio::runtime::Runtime>,
    command: impl std::future::Future<Output = ExitCode>,
) -> ExitCode {
    match runtime {
        Ok(runtime) => runtime.block_on(command),
        Err(error) => error_exit(&error.into()),
    }
}

/// Prints `Benchmark failed: <message>` on stderr (upstream's wording for a run, check or
/// inspect that cannot go on) and returns exit 1.
pub(crate) fn fail(error: &anyhow::Error) -> ExitCode {
    print_error("Benchmark failed", error)
}

/// Prints `error: <message>` on stderr (any other command) and returns exit 1.
pub(crate) fn error_exit(error: &anyhow::Error) -> ExitCode {
    print_error("error", error)
}

/// A message may quote a task's text: control characters other than line breaks are shown
/// escaped.
fn print_error(prefix: &str, error: &anyhow::Error) -> ExitCode {
    let message = format!("{error:#}");
    let lines: Vec<_> = message.split('\n').map(escape_control).collect();
    let style = if color::choice().stderr() {
        anstyle::Style::new()
            .bold()
            .fg_color(Some(anstyle::AnsiColor::Red.into()))
    } else {
        anstyle::Style::new()
    };
    eprintln!("{style}{prefix}:{style:#} {}", lines.join("\n"));
    ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap_complete::Shell;

    /// What `shell`'s script says of the subcommand `command`.
    fn section(script: &str, shell: Shell, command: &str) -> String {
        let after = |start: &str, end: &str| {
            let from = script.find(start).expect(start) + start.len();
            let to = script[from..]
                .find(end)
                .map_or(script.len(), |to| from + to);
            script[from..to].to_owned()
        };
        match shell {
            Shell::Bash => after(&format!("        bench__subcmd__{command})\n"), "\n"),
            Shell::Zsh => after(&format!("\n({command})\n_arguments"), "\n;;\n"),
            _ => script
                .lines()
                .filter(|line| line.contains(&format!("__fish_bench_using_subcommand {command}\"")))
                .map(|line| format!("{line} \n"))
                .collect(),
        }
    }

    /// How many times `shell`'s section offers the flag `--long`.
    fn times_offered(section: &str, shell: Shell, long: &str) -> usize {
        match shell {
            Shell::Bash => section
                .split([' ', '"'])
                .filter(|word| *word == format!("--{long}"))
                .count(),
            Shell::Zsh => {
                section.matches(&format!("--{long}=[")).count()
                    + section.matches(&format!("'--{long}[")).count()
            }
            _ => section.matches(&format!(" -l {long} ")).count(),
        }
    }

    /// Whether `shell`'s section offers the flag `--long` (and `-short`).
    fn offers(section: &str, shell: Shell, long: &str, short: Option<char>) -> bool {
        let short_offered = short.is_none_or(|short| match shell {
            Shell::Bash => section
                .split([' ', '"'])
                .any(|word| word == format!("-{short}")),
            Shell::Zsh => section.contains(&format!("'-{short}[")),
            _ => section.contains(&format!(" -s {short} ")),
        });
        times_offered(section, shell, long) > 0 && short_offered
    }

    #[test]
    fn completions_offer_every_run_flag_to_run_check_and_inspect() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let script = String::from_utf8(completion_script(shell)).unwrap();
            for command in TASK_COMMANDS {
                let section = section(&script, shell, command);
                for arg in flags::completion_args() {
                    let long = arg.get_long().unwrap();
                    assert!(
                        offers(&section, shell, long, arg.get_short()),
                        "{shell} {command} --{long}: {section}"
                    );
                }
                // The global --color is the run flag's, once.
                assert_eq!(
                    times_offered(&section, shell, "color"),
                    1,
                    "{shell} {command}"
                );
            }
            let report = section(&script, shell, "report");
            assert!(!offers(&report, shell, "iterations", None), "{shell}");
        }
    }

    #[test]
    fn completions_complete_values_where_they_are_known() {
        let zsh = String::from_utf8(completion_script(Shell::Zsh)).unwrap();
        let run = section(&zsh, Shell::Zsh, "run");
        for expected in [
            ":(participant round)'",
            ":WHEN:(auto always never)'",
            "--out=[results directory (default bench-results/<slug>/<run-id>)]:DIR:_files -/'",
            ":FILE:_files'",
            "_urls'",
            ":_files' \\\n&& ret=0",
        ] {
            assert!(run.contains(expected), "{expected}: {run}");
        }
        let bash = String::from_utf8(completion_script(Shell::Bash)).unwrap();
        assert!(bash.contains(r#"COMPREPLY=($(compgen -W "participant round" -- "${cur}"))"#));
    }
}
