//! The one table of `bench run`'s flags. Each row is everything known of one flag: its
//! name, the value it reads, its help line and group, who reads it in a dispatched run, and
//! how its value is checked and stored. Parsing, `--help`, the usage text, shell completions
//! and `bench run --resume` are all made from it.

use super::{
    boolean, ceiling, count, delay, duration_ms, fail_under, fraction, group_by, invalid,
    load_value, nats_url, slug, text, FlagError, RunFlags,
};
use crate::color::ColorChoice;
use bench_model::ceilings::LimitField;
use bench_model::config;
use bench_model::js;

/// The group of a flag: the help lists the flags group by group, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Group {
    Identity,
    Schedule,
    Load,
    Results,
    Gates,
    Sandbox,
    Limits,
    Budgets,
    Control,
    Distributed,
}

impl Group {
    /// Every group, in the help's order.
    pub(super) const ALL: [Self; 10] = [
        Self::Identity,
        Self::Schedule,
        Self::Load,
        Self::Results,
        Self::Gates,
        Self::Sandbox,
        Self::Limits,
        Self::Budgets,
        Self::Control,
        Self::Distributed,
    ];

    /// The group's title in the help.
    pub(super) fn title(self) -> &'static str {
        match self {
            Self::Identity => "Benchmark identity (upstream)",
            Self::Schedule => "Schedule (upstream)",
            Self::Load => "Load model (see docs/load-models.md)",
            Self::Results => "Results and reporting",
            Self::Gates => "Gates",
            Self::Sandbox => "Sandbox",
            Self::Limits => {
                "Limits: the ceilings a task's config (limits.*) may only lower (see docs/security.md)"
            }
            Self::Budgets => "Budgets of the whole run (the operator's only)",
            Self::Control => "Run control and output",
            Self::Distributed => "Distributed runs (see docs/distributed.md)",
        }
    }
}

/// Stores a checked value: `(flags, flag name as given, raw value)`.
type Apply = fn(&mut RunFlags, &str, &str) -> Result<(), FlagError>;

/// The value a flag reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Value {
    /// None: a switch (an `=value` is ignored).
    Switch,
    /// One, as `--flag NAME` or `--flag=NAME` (the next token even when it looks like a flag).
    Required(&'static str),
    /// A switch that may be given one as `--flag=NAME`, never the next token.
    Optional(&'static str),
}

/// What a shell may complete a flag's value with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Hint {
    /// Nothing: a number, a size, a name.
    Text,
    /// A file path.
    File,
    /// A directory path.
    Dir,
    /// A URL.
    Url,
    /// One of these words.
    Choices(&'static [&'static str]),
}

/// Who reads a flag of a dispatched run (`--dispatch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reader {
    /// The coordinator and every worker.
    All,
    /// The coordinator only; `bench run --resume DIR` takes it again (how to reach the
    /// server, sign and trust), in place of the stored one.
    Resumable,
    /// The coordinator only, and never again on resume.
    Coordinator,
}

/// One known flag.
pub(super) struct FlagSpec {
    /// Its name (`--quiet`).
    pub(super) name: &'static str,
    /// Its one-letter alias (`q` of `-q`), if any.
    pub(super) short: Option<char>,
    /// The value it reads.
    pub(super) value: Value,
    /// What a shell may complete its value with.
    pub(super) hint: Hint,
    /// Its group in the help.
    pub(super) group: Group,
    /// Its line in the help.
    pub(super) help: &'static str,
    /// Who reads it in a dispatched run.
    pub(super) reader: Reader,
    /// How its value is checked and stored.
    pub(super) apply: Apply,
}

impl FlagSpec {
    /// Whether the flag reads the next token as its value when not given `=value`.
    pub(super) fn takes_value(&self) -> bool {
        matches!(self.value, Value::Required(_))
    }

    /// Whether `word` (without any `=value`) names this flag.
    fn is(&self, word: &str) -> bool {
        self.name == word
            || self.short.is_some_and(|short| {
                word.strip_prefix('-')
                    .is_some_and(|rest| rest.chars().eq([short]))
            })
    }

    const fn short(self, short: char) -> Self {
        Self {
            short: Some(short),
            ..self
        }
    }

    const fn hint(self, hint: Hint) -> Self {
        Self { hint, ..self }
    }

    const fn reader(self, reader: Reader) -> Self {
        Self { reader, ..self }
    }
}

/// A flag that reads a value shown as `value` in the help.
const fn valued(
    name: &'static str,
    value: &'static str,
    group: Group,
    help: &'static str,
    apply: Apply,
) -> FlagSpec {
    FlagSpec {
        name,
        short: None,
        value: Value::Required(value),
        hint: Hint::Text,
        group,
        help,
        reader: Reader::All,
        apply,
    }
}

/// A switch.
const fn switch(name: &'static str, group: Group, help: &'static str, apply: Apply) -> FlagSpec {
    FlagSpec {
        name,
        short: None,
        value: Value::Switch,
        hint: Hint::Text,
        group,
        help,
        reader: Reader::All,
        apply,
    }
}

/// A switch that may be given `=value`, shown as `[=value]` in the help.
const fn optional(
    name: &'static str,
    value: &'static str,
    group: Group,
    help: &'static str,
    apply: Apply,
) -> FlagSpec {
    FlagSpec {
        value: Value::Optional(value),
        ..switch(name, group, help, apply)
    }
}

/// The flag `word` (without any `=value`) names, if it is one of bench's.
pub(super) fn find(word: &str) -> Option<&'static FlagSpec> {
    FLAGS.iter().find(|spec| spec.is(word))
}

/// Every run flag, grouped as the help lists them.
pub(super) const FLAGS: &[FlagSpec] = &[
    valued(
        "--shape",
        "NAME",
        Group::Identity,
        "use the config's shape NAME: its slug, name and staggerDelayMs",
        |f, flag, v| {
            f.plan.shape = Some(text(flag, v)?);
            Ok(())
        },
    ),
    valued(
        "--benchmark",
        "SLUG",
        Group::Identity,
        "run under another benchmark slug (lowercase, digits, -)",
        |f, flag, v| {
            f.plan.benchmark = Some(slug(flag, v)?);
            Ok(())
        },
    ),
    valued(
        "--slug",
        "SLUG",
        Group::Identity,
        "same as --benchmark",
        |f, flag, v| {
            f.plan.benchmark = Some(slug(flag, v)?);
            Ok(())
        },
    ),
    valued(
        "--name",
        "\"My benchmark\"",
        Group::Identity,
        "the benchmark's display name",
        |f, flag, v| {
            f.plan.name = Some(text(flag, v)?);
            Ok(())
        },
    ),
    valued(
        "--run-key",
        "KEY",
        Group::Identity,
        "join a shared, participant-sized run on the platform",
        |f, flag, v| {
            f.run_key = Some(text(flag, v)?);
            Ok(())
        },
    ),
    valued(
        "--provider",
        "A,B",
        Group::Schedule,
        "run only these participants (repeatable)",
        |f, _, v| {
            let names = v.split(',').map(js::trim).filter(|n| !n.is_empty());
            f.plan
                .providers
                .get_or_insert_with(Vec::new)
                .extend(names.map(String::from));
            Ok(())
        },
    ),
    valued(
        "--iterations",
        "N",
        Group::Schedule,
        "tasks per participant",
        |f, flag, v| {
            f.plan.iterations = Some(count(flag, v)?);
            Ok(())
        },
    ),
    valued(
        "--concurrency",
        "N",
        Group::Schedule,
        "tasks in flight per participant (or per round)",
        |f, flag, v| {
            f.plan.concurrency = Some(count(flag, v)?);
            Ok(())
        },
    ),
    valued(
        "--stagger-delay-ms",
        "N",
        Group::Schedule,
        "ramp between task starts (gap between rounds in round mode)",
        |f, flag, v| {
            f.plan.stagger_delay_ms = Some(delay(flag, v)?);
            Ok(())
        },
    ),
    valued(
        "--group-by",
        "participant|round",
        Group::Schedule,
        "participants one after another, or interleaved rounds",
        |f, flag, v| {
            f.plan.group_by = Some(group_by(flag, v)?);
            Ok(())
        },
    )
    .hint(Hint::Choices(&["participant", "round"])),
    valued(
        "--duration",
        "DURATION",
        Group::Load,
        "run each participant for DURATION (60s, 2m) instead of N iterations",
        |f, flag, v| {
            f.plan.load.duration = Some(load_value(flag, v, config::parse_duration)?);
            Ok(())
        },
    ),
    valued(
        "--rate",
        "N/s",
        Group::Load,
        "open model: start N tasks per second for --duration, late or not",
        |f, flag, v| {
            f.plan.load.rate = Some(load_value(flag, v, config::parse_rate)?);
            Ok(())
        },
    ),
    valued(
        "--stages",
        "30s:10/s,2m:200/s",
        Group::Load,
        "open model: ramp the arrival rate linearly through these targets",
        |f, flag, v| {
            f.plan.load.stages = Some(load_value(flag, v, config::parse_stages)?);
            Ok(())
        },
    ),
    valued(
        "--pre-allocated",
        "N",
        Group::Load,
        "sandboxes ready before the first arrival (default: --concurrency)",
        |f, flag, v| {
            f.plan.load.pre_allocated = Some(count(flag, v)?);
            Ok(())
        },
    ),
    valued(
        "--warmup",
        "N",
        Group::Load,
        "N warm-up tasks per slot first: recorded (phase warmup), not summarized",
        |f, flag, v| {
            f.plan.warmup = Some(count(flag, v)?);
            Ok(())
        },
    ),
    optional(
        "--shuffle",
        "SEED",
        Group::Load,
        "round mode: a new participant order every round (seed printed, in run.json)",
        |f, flag, v| {
            f.plan.shuffle = true;
            if !v.is_empty() {
                let seed = v.parse::<u64>().map_err(|_| {
                    invalid(format!(
                        "{flag} expects a seed from 0 to {} (got \"{v}\")",
                        u64::MAX
                    ))
                })?;
                f.plan.shuffle_seed = Some(seed);
            }
            Ok(())
        },
    ),
    switch(
        "--no-ingest",
        Group::Results,
        "keep the run local: nothing is sent to the platform",
        |f, _, _| {
            f.no_ingest = true;
            Ok(())
        },
    ),
    switch(
        "--dry-run",
        Group::Results,
        "same as --no-ingest",
        |f, _, _| {
            f.no_ingest = true;
            Ok(())
        },
    ),
    valued(
        "--out",
        "DIR",
        Group::Results,
        "results directory (default bench-results/<slug>/<run-id>)",
        |f, flag, v| {
            f.out = Some(text(flag, v)?);
            Ok(())
        },
    )
    .hint(Hint::Dir)
    .reader(Reader::Coordinator),
    valued(
        "--export-json",
        "FILE",
        Group::Results,
        "also write the summary as JSON",
        |f, flag, v| {
            f.exports.json = Some(text(flag, v)?.into());
            Ok(())
        },
    )
    .hint(Hint::File),
    valued(
        "--export-csv",
        "FILE",
        Group::Results,
        "also write the summary as CSV",
        |f, flag, v| {
            f.exports.csv = Some(text(flag, v)?.into());
            Ok(())
        },
    )
    .hint(Hint::File),
    valued(
        "--export-markdown",
        "FILE",
        Group::Results,
        "also write the summary as Markdown",
        |f, flag, v| {
            f.exports.markdown = Some(text(flag, v)?.into());
            Ok(())
        },
    )
    .hint(Hint::File),
    valued(
        "--export-junit",
        "FILE",
        Group::Results,
        "also write the summary as JUnit XML",
        |f, flag, v| {
            f.exports.junit = Some(text(flag, v)?.into());
            Ok(())
        },
    )
    .hint(Hint::File),
    valued(
        "--export-html",
        "FILE",
        Group::Results,
        "also write the run page as one self-contained HTML file",
        |f, flag, v| {
            f.exports.html = Some(text(flag, v)?.into());
            Ok(())
        },
    )
    .hint(Hint::File),
    switch(
        "--require-upload",
        Group::Results,
        "exit 1 when the platform did not acknowledge everything",
        |f, _, _| {
            f.require_upload = true;
            Ok(())
        },
    ),
    valued(
        "--fail-under",
        "SCORE",
        Group::Gates,
        "exit 99 when a participant's composite score is below SCORE",
        |f, _, v| {
            f.fail_under = Some(fail_under(v)?);
            Ok(())
        },
    ),
    valued(
        "--max-failure-rate",
        "FRACTION",
        Group::Gates,
        "exit 2 when more than FRACTION (0 to 1) of the tasks failed",
        |f, flag, v| {
            f.failure_gates.max_failure_rate = Some(fraction(flag, v)?);
            Ok(())
        },
    ),
    switch(
        "--allow-all-failed",
        Group::Gates,
        "exit 0 even when every task failed (upstream's behaviour)",
        |f, _, _| {
            f.failure_gates.allow_all_failed = true;
            Ok(())
        },
    ),
    valued(
        "--allow-host",
        "URL",
        Group::Sandbox,
        "let tasks reach this origin (repeatable; * wildcards)",
        |f, flag, v| {
            f.sandbox.allow_hosts.push(text(flag, v)?);
            Ok(())
        },
    )
    .hint(Hint::Url),
    valued(
        "--allow-dir",
        "HOST[:GUEST][:rw]",
        Group::Sandbox,
        "mount a host directory into every sandbox",
        |f, flag, v| {
            f.sandbox.allow_dirs.push(text(flag, v)?);
            Ok(())
        },
    )
    .hint(Hint::Dir),
    optional(
        "--http-keep-alive",
        "false",
        Group::Sandbox,
        "=false: a new connection for every outbound request (default: kept alive)",
        |f, flag, v| {
            f.sandbox.http_keep_alive = Some(boolean(flag, v)?);
            Ok(())
        },
    )
    .hint(Hint::Choices(&["true", "false"])),
    switch(
        "--fresh-instance",
        Group::Sandbox,
        "a new task instance for every task",
        |f, _, _| {
            f.fresh_instance = true;
            Ok(())
        },
    ),
    // Read before the task is built (`cli::task`); known here so it is not a typo.
    switch(
        "--allow-build-scripts",
        Group::Sandbox,
        "let a JS project's npm install scripts run (natively; off by default)",
        |_, _, _| Ok(()),
    ),
    valued(
        "--max-memory",
        "SIZE",
        Group::Limits,
        "memory of each sandbox (default 512MiB; limits.memoryMb)",
        |f, _, v| ceiling(f, LimitField::Memory, v),
    ),
    valued(
        "--task-timeout",
        "DURATION",
        Group::Limits,
        "stop a task running longer (default none; limits.taskTimeoutMs)",
        |f, _, v| ceiling(f, LimitField::TaskTimeout, v),
    ),
    valued(
        "--max-sandboxes",
        "N",
        Group::Limits,
        "most sandboxes alive at once (default 10000); arrival-rate runs grow up to it",
        |f, _, v| {
            ceiling(f, LimitField::Sandboxes, v)?;
            f.plan.load.max_sandboxes = f.sandbox.ceilings.value(LimitField::Sandboxes);
            Ok(())
        },
    ),
    valued(
        "--max-steps",
        "N",
        Group::Limits,
        "steps of one task (default 10000)",
        |f, _, v| ceiling(f, LimitField::Steps, v),
    ),
    valued(
        "--max-step-name-bytes",
        "SIZE",
        Group::Limits,
        "longer step names and error codes are cut (default 1KiB)",
        |f, _, v| ceiling(f, LimitField::StepNameBytes, v),
    ),
    valued(
        "--max-log-message-bytes",
        "SIZE",
        Group::Limits,
        "one log message of a task (default 1MiB)",
        |f, _, v| ceiling(f, LimitField::LogMessageBytes, v),
    ),
    valued(
        "--max-task-log-bytes",
        "SIZE",
        Group::Limits,
        "log bytes of one task (default 16MiB)",
        |f, _, v| ceiling(f, LimitField::TaskLogBytes, v),
    ),
    valued(
        "--max-data-bytes",
        "SIZE",
        Group::Limits,
        "measured and returned data of one task (default 1MiB)",
        |f, _, v| ceiling(f, LimitField::DataBytes, v),
    ),
    valued(
        "--max-participant-log-bytes",
        "SIZE",
        Group::Limits,
        "one participant log (default 256MiB)",
        |f, _, v| ceiling(f, LimitField::ParticipantLogBytes, v),
    ),
    valued(
        "--max-host-memory",
        "SIZE",
        Group::Budgets,
        "memory of all sandboxes together (default 3/4 of the machine's)",
        |f, _, v| ceiling(f, LimitField::HostMemory, v),
    ),
    valued(
        "--disk-budget",
        "SIZE",
        Group::Budgets,
        "records, logs and metrics; the run stops cleanly when reached (default 10GiB)",
        |f, _, v| ceiling(f, LimitField::DiskBytes, v),
    ),
    valued(
        "--max-component-size",
        "SIZE",
        Group::Budgets,
        "largest component bench compiles (default 256MiB)",
        |f, _, v| ceiling(f, LimitField::ComponentBytes, v),
    ),
    valued(
        "--max-function-size",
        "SIZE",
        Group::Budgets,
        "largest function of a component bench compiles (default 2MiB)",
        |f, _, v| ceiling(f, LimitField::FunctionBytes, v),
    ),
    valued(
        "--compile-timeout",
        "DURATION",
        Group::Budgets,
        "longest compilation of a component (default 5m)",
        |f, _, v| ceiling(f, LimitField::CompileTime, v),
    ),
    valued(
        "--max-compile-memory",
        "SIZE",
        Group::Budgets,
        "most memory compiling a component may take (default 4GiB)",
        |f, _, v| ceiling(f, LimitField::CompileMemory, v),
    ),
    valued(
        "--stop-grace",
        "DURATION",
        Group::Control,
        "time running tasks get after Ctrl-C before they are interrupted (default 5s)",
        |f, flag, v| {
            f.stop_grace_ms = Some(duration_ms(flag, v)?);
            Ok(())
        },
    ),
    switch(
        "--quiet",
        Group::Control,
        "print only errors and the final summary",
        |f, _, _| {
            f.quiet = true;
            Ok(())
        },
    )
    .short('q'),
    valued(
        "--dispatch",
        "nats://HOST:PORT",
        Group::Control,
        "coordinate the run: bench workers on that NATS server run its tasks \
         (tls://, user:password@ or token@ as NATS takes them)",
        |f, flag, v| {
            f.dispatch = Some(nats_url(flag, v)?);
            Ok(())
        },
    )
    .hint(Hint::Url)
    .reader(Reader::Resumable),
    valued(
        "--worker-wait",
        "DURATION",
        Group::Control,
        "with --dispatch: wait for a worker able to run each participant (default 30s)",
        |f, flag, v| {
            f.worker_wait_ms = Some(duration_ms(flag, v)?);
            Ok(())
        },
    )
    .reader(Reader::Coordinator),
    valued(
        "--ack-wait",
        "DURATION",
        Group::Control,
        "with --dispatch: a unit goes to another worker after this silence (default 30s)",
        |f, flag, v| {
            f.ack_wait_ms = Some(duration_ms(flag, v)?);
            Ok(())
        },
    ),
    valued(
        "--shard",
        "i/N",
        Group::Control,
        "run only static shard i of N (0-based; join them with bench merge)",
        |f, _, v| {
            f.shard = Some(v.parse().map_err(invalid)?);
            Ok(())
        },
    ),
    switch(
        "--per-task-lines",
        Group::Control,
        "a line per task even on a terminal (instead of a progress bar)",
        |f, _, _| {
            f.per_task_lines = true;
            Ok(())
        },
    ),
    // Read before the build (`early::color_choice`); checked here.
    valued(
        "--color",
        "WHEN",
        Group::Control,
        "colour the summary's success column and errors: auto (on a terminal unless \
         NO_COLOR is set), always or never",
        |_, flag, v| match ColorChoice::parse(v) {
            Some(_) => Ok(()),
            None => Err(invalid(format!(
                "{flag} expects auto, always or never (got \"{v}\")"
            ))),
        },
    )
    .hint(Hint::Choices(&["auto", "always", "never"])),
    // Answered before anything else (`early::split_task_words`).
    switch(
        "--help",
        Group::Control,
        "print this help",
        |_, _, _| Ok(()),
    )
    .short('h'),
    valued(
        "--sign",
        "FILE",
        Group::Distributed,
        "with --dispatch: sign the run with this key (bench keygen FILE makes one)",
        |f, flag, v| {
            f.sign = Some(text(flag, v)?);
            Ok(())
        },
    )
    .hint(Hint::File)
    .reader(Reader::Resumable),
    valued(
        "--trust-worker",
        "FILE.pub",
        Group::Distributed,
        "with --dispatch: count only records of workers signing with these keys",
        |f, flag, v| {
            f.trust_workers.push(text(flag, v)?);
            Ok(())
        },
    )
    .hint(Hint::File)
    .reader(Reader::Resumable),
    valued(
        "--nats-creds",
        "FILE",
        Group::Distributed,
        "a NATS .creds file: user JWT and nkey seed (default: NATS_CREDS)",
        |f, flag, v| {
            f.nats.creds = Some(text(flag, v)?.into());
            Ok(())
        },
    )
    .hint(Hint::File)
    .reader(Reader::Resumable),
    valued(
        "--nats-nkey",
        "FILE",
        Group::Distributed,
        "a file holding a NATS nkey seed (default: NATS_NKEY)",
        |f, flag, v| {
            f.nats.nkey = Some(text(flag, v)?.into());
            Ok(())
        },
    )
    .hint(Hint::File)
    .reader(Reader::Resumable),
    valued(
        "--nats-ca",
        "FILE",
        Group::Distributed,
        "the CA the NATS server's certificate must chain to (default: NATS_CA)",
        |f, flag, v| {
            f.nats.ca = Some(text(flag, v)?.into());
            Ok(())
        },
    )
    .hint(Hint::File)
    .reader(Reader::Resumable),
    valued(
        "--nats-cert",
        "FILE",
        Group::Distributed,
        "a client certificate for NATS over TLS (default: NATS_CERT)",
        |f, flag, v| {
            f.nats.cert = Some(text(flag, v)?.into());
            Ok(())
        },
    )
    .hint(Hint::File)
    .reader(Reader::Resumable),
    valued(
        "--nats-key",
        "FILE",
        Group::Distributed,
        "the client certificate's private key (default: NATS_KEY)",
        |f, flag, v| {
            f.nats.key = Some(text(flag, v)?.into());
            Ok(())
        },
    )
    .hint(Hint::File)
    .reader(Reader::Resumable),
];
