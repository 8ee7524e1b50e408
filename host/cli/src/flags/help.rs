//! What `bench run --help` (and `check`/`inspect`) says about every run flag, grouped.

/// The run flags, by group: (group title, [(flag and value, what it does)]).
const GROUPS: &[(&str, &[(&str, &str)])] = &[
    (
        "Benchmark identity (upstream)",
        &[
            (
                "--shape NAME",
                "use the config's shape NAME: its slug, name and staggerDelayMs",
            ),
            (
                "--benchmark SLUG",
                "run under another benchmark slug (lowercase, digits, -)",
            ),
            ("--slug SLUG", "same as --benchmark"),
            ("--name \"My benchmark\"", "the benchmark's display name"),
            (
                "--run-key KEY",
                "join a shared, participant-sized run on the platform",
            ),
        ],
    ),
    (
        "Schedule (upstream)",
        &[
            ("--provider A,B", "run only these participants (repeatable)"),
            ("--iterations N", "tasks per participant"),
            (
                "--concurrency N",
                "tasks in flight per participant (or per round)",
            ),
            (
                "--stagger-delay-ms N",
                "ramp between task starts (gap between rounds in round mode)",
            ),
            (
                "--group-by participant|round",
                "participants one after another, or interleaved rounds",
            ),
        ],
    ),
    (
        "Load model (see docs/load-models.md)",
        &[
            (
                "--duration DURATION",
                "run each participant for DURATION (60s, 2m) instead of N iterations",
            ),
            (
                "--rate N/s",
                "open model: start N tasks per second for --duration, late or not",
            ),
            (
                "--stages 30s:10/s,2m:200/s",
                "open model: ramp the arrival rate linearly through these targets",
            ),
            (
                "--pre-allocated N",
                "sandboxes ready before the first arrival (default: --concurrency)",
            ),
            (
                "--warmup N",
                "N warm-up tasks per slot first: recorded (phase warmup), not summarized",
            ),
            (
                "--shuffle[=SEED]",
                "round mode: a new participant order every round (seed printed, in run.json)",
            ),
        ],
    ),
    (
        "Results and reporting",
        &[
            (
                "--no-ingest",
                "keep the run local: nothing is sent to the platform",
            ),
            ("--dry-run", "same as --no-ingest"),
            (
                "--out DIR",
                "results directory (default bench-results/<slug>/<run-id>)",
            ),
            ("--export-json FILE", "also write the summary as JSON"),
            ("--export-csv FILE", "also write the summary as CSV"),
            (
                "--export-markdown FILE",
                "also write the summary as Markdown",
            ),
            ("--export-junit FILE", "also write the summary as JUnit XML"),
            (
                "--export-html FILE",
                "also write the run page as one self-contained HTML file",
            ),
            (
                "--require-upload",
                "exit 1 when the platform did not acknowledge everything",
            ),
        ],
    ),
    (
        "Gates",
        &[
            (
                "--fail-under SCORE",
                "exit 99 when a participant's composite score is below SCORE",
            ),
            (
                "--max-failure-rate FRACTION",
                "exit 2 when more than FRACTION (0 to 1) of the tasks failed",
            ),
            (
                "--allow-all-failed",
                "exit 0 even when every task failed (upstream's behaviour)",
            ),
        ],
    ),
    (
        "Sandbox",
        &[
            (
                "--allow-host URL",
                "let tasks reach this origin (repeatable; * wildcards)",
            ),
            (
                "--allow-dir HOST[:GUEST][:rw]",
                "mount a host directory into every sandbox",
            ),
            (
                "--http-keep-alive[=false]",
                "=false: a new connection for every outbound request (default: kept alive)",
            ),
            ("--fresh-instance", "a new task instance for every task"),
            (
                "--allow-build-scripts",
                "let a JS project's npm install scripts run (natively; off by default)",
            ),
        ],
    ),
    (
        "Limits: the ceilings a task's config (limits.*) may only lower (see docs/security.md)",
        &[
            (
                "--max-memory SIZE",
                "memory of each sandbox (default 512MiB; limits.memoryMb)",
            ),
            (
                "--task-timeout DURATION",
                "stop a task running longer (default none; limits.taskTimeoutMs)",
            ),
            (
                "--max-sandboxes N",
                "most sandboxes alive at once (default 10000); arrival-rate runs grow up to it",
            ),
            ("--max-steps N", "steps of one task (default 10000)"),
            (
                "--max-step-name-bytes SIZE",
                "longer step names and error codes are cut (default 1KiB)",
            ),
            (
                "--max-log-message-bytes SIZE",
                "one log message of a task (default 1MiB)",
            ),
            (
                "--max-task-log-bytes SIZE",
                "log bytes of one task (default 16MiB)",
            ),
            (
                "--max-data-bytes SIZE",
                "measured and returned data of one task (default 1MiB)",
            ),
            (
                "--max-participant-log-bytes SIZE",
                "one participant log (default 256MiB)",
            ),
        ],
    ),
    (
        "Budgets of the whole run (the operator's only)",
        &[
            (
                "--max-host-memory SIZE",
                "memory of all sandboxes together (default 3/4 of the machine's)",
            ),
            (
                "--disk-budget SIZE",
                "records, logs and metrics; the run stops cleanly when reached (default 10GiB)",
            ),
            (
                "--max-component-size SIZE",
                "largest component bench compiles (default 256MiB)",
            ),
            (
                "--max-function-size SIZE",
                "largest function of a component bench compiles (default 2MiB)",
            ),
            (
                "--compile-timeout DURATION",
                "longest compilation of a component (default 5m)",
            ),
            (
                "--max-compile-memory SIZE",
                "most memory compiling a component may take (default 4GiB)",
            ),
        ],
    ),
    (
        "Run control and output",
        &[
            (
                "--stop-grace DURATION",
                "time running tasks get after Ctrl-C before they are interrupted (default 5s)",
            ),
            ("-q, --quiet", "print only errors and the final summary"),
            (
                "--dispatch nats://HOST:PORT",
                "coordinate the run: bench workers on that NATS server run its tasks \
                 (tls://, user:password@ or token@ as NATS takes them)",
            ),
            (
                "--worker-wait DURATION",
                "with --dispatch: wait for a worker able to run each participant (default 30s)",
            ),
            (
                "--ack-wait DURATION",
                "with --dispatch: a unit goes to another worker after this silence (default 30s)",
            ),
            (
                "--shard i/N",
                "run only static shard i of N (0-based; join them with bench merge)",
            ),
            (
                "--per-task-lines",
                "a line per task even on a terminal (instead of a progress bar)",
            ),
            (
                "--color WHEN",
                "colour the summary's success column and errors: auto (on a terminal unless \
                 NO_COLOR is set), always or never",
            ),
            ("-h, --help", "print this help"),
        ],
    ),
    (
        "Distributed runs (see docs/distributed.md)",
        &[
            (
                "--sign FILE",
                "with --dispatch: sign the run with this key (bench keygen FILE makes one)",
            ),
            (
                "--trust-worker FILE.pub",
                "with --dispatch: count only records of workers signing with these keys",
            ),
            (
                "--nats-creds FILE",
                "a NATS .creds file: user JWT and nkey seed (default: NATS_CREDS)",
            ),
            (
                "--nats-nkey FILE",
                "a file holding a NATS nkey seed (default: NATS_NKEY)",
            ),
            (
                "--nats-ca FILE",
                "the CA the NATS server's certificate must chain to (default: NATS_CA)",
            ),
            (
                "--nats-cert FILE",
                "a client certificate for NATS over TLS (default: NATS_CERT)",
            ),
            (
                "--nats-key FILE",
                "the client certificate's private key (default: NATS_KEY)",
            ),
        ],
    ),
];

/// The flags section of the help: every group, one aligned line per flag, then the task's
/// own flags.
pub(crate) fn flags_help() -> String {
    let width = GROUPS
        .iter()
        .flat_map(|(_, flags)| flags.iter().map(|(flag, _)| flag.len()))
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for (title, flags) in GROUPS {
        text.push_str(&format!("{title}:\n"));
        for (flag, help) in *flags {
            text.push_str(&format!("  {flag:width$}  {help}\n"));
        }
        text.push('\n');
    }
    text.push_str(
        "The task's own flags (its config's customCliFlags) go after the task; flags may \
         come before or after it.",
    );
    text
}

/// The flag names the help lists (`-q, --quiet` counts as both).
#[cfg(test)]
fn listed_names() -> Vec<&'static str> {
    GROUPS
        .iter()
        .flat_map(|(_, flags)| flags.iter())
        .flat_map(|(flag, _)| flag.split(", "))
        .map(|flag| flag.split([' ', '[']).next().unwrap_or(flag))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_lists_every_run_flag_once() {
        let mut listed = listed_names();
        listed.retain(|name| !matches!(*name, "-h" | "--help"));
        let mut known: Vec<&str> = super::super::FLAGS.iter().map(|spec| spec.name).collect();
        listed.sort_unstable();
        known.sort_unstable();
        assert_eq!(listed, known);
    }

    #[test]
    fn every_flag_s_help_starts_in_one_column() {
        let help = flags_help();
        assert!(help.starts_with("Benchmark identity (upstream):\n  --shape NAME "));
        let lines: Vec<&[u8]> = help
            .lines()
            .filter(|line| line.starts_with("  -"))
            .map(str::as_bytes)
            .collect();
        assert_eq!(
            lines.len(),
            listed_names().len() - 2,
            "-q and -h share lines"
        );
        // The longest flag, `--max-participant-log-bytes SIZE`, is 32 characters.
        for line in lines {
            assert_eq!((line[35], line[34]), (b' ', b' '));
            assert_ne!(line[36], b' ', "{}", String::from_utf8_lossy(line));
        }
    }
}
