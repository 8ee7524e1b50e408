//! `bench run` flags: upstream's `parseCliArgs` (spec §5.2) plus bench's own run flags.
//!
//! Every known flag is one row of the flag table (`table::FLAGS`): its name, its value, its
//! help, who reads it and how the value is checked and stored. Here the words are parsed
//! with it; the value checks its rows call live here too.

mod complete;
mod early;
mod help;
mod table;

pub(crate) use complete::completion_args;
pub(crate) use early::{color_choice, reject_typos, split_task_words};
pub(crate) use help::{flags_help, run_usage};

use bench_dispatch::AccessFiles;
use bench_model::ceilings::{Ceilings, LimitField, LimitSpec, SetBy, Unit, LIMITS};
use bench_model::config::{self, is_lowercase_slug, BareNumber, GroupBy};
use bench_model::js;
use bench_model::plan::Overrides;
use bench_model::plan::Shard;
use bench_report::export::ExportPaths;
use bench_report::failures::FailureGates;
use bench_runtime::sandbox::grants::SandboxOverrides;
use table::Reader;

/// The flags of one `bench run` invocation; `None` when not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RunFlags {
    /// Upstream's identity and knob overrides (`--shape`, `--benchmark`, `--iterations`…).
    pub plan: Overrides,
    /// `--run-key`: join a shared, participant-sized run.
    pub run_key: Option<String>,
    /// `--no-ingest`/`--dry-run`, or `BENCHSDK_NO_INGEST`.
    pub no_ingest: bool,
    /// Declared custom flags as given, in order, with their value (`""` when none).
    pub custom: Vec<(String, String)>,
    /// `--out DIR`: where bench writes local results.
    pub out: Option<String>,
    /// `--fresh-instance`: a new task instance for every task instead of one per
    /// participant slot.
    pub fresh_instance: bool,
    /// `--require-upload`: fail the run (exit 1) when the platform did not acknowledge
    /// everything.
    pub require_upload: bool,
    /// `--export-json`, `--export-csv`, `--export-markdown`, `--export-junit`,
    /// `--export-html` files.
    pub exports: ExportPaths,
    /// `--fail-under SCORE`: exit 99 when a participant's overall composite score is below.
    pub fail_under: Option<f64>,
    /// `--max-failure-rate FRACTION` and `--allow-all-failed`: exit 2 when more tasks failed.
    pub failure_gates: FailureGates,
    /// `--quiet`/`-q`: print only errors and the final summary.
    pub quiet: bool,
    /// `--per-task-lines`: upstream's line per task even on a terminal (no progress bar).
    pub per_task_lines: bool,
    /// `--stop-grace DURATION`: how long running tasks may go on after Ctrl-C before they
    /// are interrupted, in milliseconds.
    pub stop_grace_ms: Option<u64>,
    /// `--shard i/N`: run only this static shard of the run (merged later by `bench merge`).
    pub shard: Option<Shard>,
    /// `--dispatch nats://HOST:PORT`: coordinate the run; `bench worker`s run its tasks.
    pub dispatch: Option<String>,
    /// `--worker-wait DURATION`: how long a dispatched run waits for a worker able to run
    /// a participant, in milliseconds.
    pub worker_wait_ms: Option<u64>,
    /// `--ack-wait DURATION`: how long a worker may go silent on a unit before the unit goes
    /// to another worker, in milliseconds.
    pub ack_wait_ms: Option<u64>,
    /// `--nats-creds`, `--nats-nkey`, `--nats-ca`, `--nats-cert`, `--nats-key`: how a
    /// dispatched run authenticates to NATS and checks its TLS (`NATS_CREDS`… otherwise).
    pub nats: AccessFiles,
    /// `--sign FILE`: the private key a dispatched run's announcements and units are
    /// signed with.
    pub sign: Option<String>,
    /// `--trust-worker FILE.pub` (repeatable): the only worker keys whose records count.
    pub trust_workers: Vec<String>,
    /// Sandbox grants and the ceilings of the limits (`--allow-host`, `--allow-dir`,
    /// `--max-memory`, `--task-timeout`, `--max-sandboxes`, `--max-steps`…,
    /// `--http-keep-alive`).
    pub sandbox: SandboxOverrides,
}

/// Why the flags were rejected; `Display` is upstream's exact message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FlagError {
    /// A known flag got an unusable value (reported at once, in argument order).
    #[error("{0}")]
    InvalidValue(String),
    /// Flags that are neither known nor declared in `customCliFlags`.
    #[error("Unknown flag(s): {}", .0.join(", "))]
    Unknown(Vec<String>),
}

/// The flags `bench run --resume DIR` takes again (how to reach the server, sign and
/// trust), in the table's order.
pub(crate) fn resume_flags() -> impl Iterator<Item = &'static str> {
    table::FLAGS
        .iter()
        .filter(|spec| spec.reader == Reader::Resumable)
        .map(|spec| spec.name)
}

/// Whether only the coordinator of a dispatched run reads the flag `name` (its workers are
/// not given it).
pub(crate) fn coordinator_only(name: &str) -> bool {
    table::find(name).is_some_and(|spec| spec.reader != Reader::All)
}

/// Parses the flags after `bench run <task>`. `custom_flags` is the config's
/// `customCliFlags`; `no_ingest_env` is the value of `BENCHSDK_NO_INGEST`, if set.
pub(crate) fn parse_run_flags(
    argv: &[String],
    custom_flags: &[String],
    no_ingest_env: Option<&str>,
) -> Result<RunFlags, FlagError> {
    let mut flags = RunFlags::default();
    let mut unknown = Vec::new();
    let mut next = 0;
    while let Some(token) = argv.get(next) {
        next += 1;
        let (name, inline_value) = match token.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (token.as_str(), None),
        };
        if let Some(spec) = table::find(name) {
            let value = match inline_value {
                _ if !spec.takes_value() => inline_value.unwrap_or_default(),
                Some(value) => value,
                // The next token is the value even when it looks like a flag.
                None => take_next(argv, &mut next, |_| true),
            };
            (spec.apply)(&mut flags, name, value)?;
            continue;
        }
        let value = match inline_value {
            Some(value) => value,
            None => take_next(argv, &mut next, |value| !value.starts_with('-')),
        };
        if custom_flags.iter().any(|custom| custom == name) {
            flags.custom.push((name.to_owned(), value.to_owned()));
        } else {
            unknown.push(name.to_owned());
        }
    }
    if !unknown.is_empty() {
        return Err(FlagError::Unknown(unknown));
    }
    if no_ingest_env.is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true")) {
        flags.no_ingest = true;
    }
    Ok(flags)
}

/// The ceilings the command line sets, read before the task is built (the compile budget
/// applies to the component the build makes); the full parse reads the same values.
pub(crate) fn ceilings_of(argv: &[String]) -> Result<Ceilings, FlagError> {
    let mut flags = RunFlags::default();
    let mut words = argv.iter();
    while let Some(word) = words.next() {
        let (name, inline) = match word.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (word.as_str(), None),
        };
        let Some(spec) = LIMITS.iter().find(|spec| spec.flag == name) else {
            continue;
        };
        let value = inline.or_else(|| words.next().map(String::as_str));
        ceiling(&mut flags, spec.field, value.unwrap_or_default())?;
    }
    Ok(flags.sandbox.ceilings)
}

/// Sets the operator's ceiling of `field` from its flag.
fn ceiling(flags: &mut RunFlags, field: LimitField, value: &str) -> Result<(), FlagError> {
    let spec = field.spec();
    let value = limit_value(spec, spec.flag, value).map_err(invalid)?;
    flags
        .sandbox
        .ceilings
        .set(field, value, SetBy::Flag(spec.flag));
    Ok(())
}

/// A value of a limit as its flag, environment variable or bench config file key `name`
/// gives it: a size, a duration or a whole number, at most the limit's most.
pub(crate) fn limit_value(spec: &LimitSpec, name: &str, value: &str) -> Result<u64, String> {
    let parsed = match spec.unit {
        Unit::Bytes => byte_size(name, value),
        Unit::Millis => duration_ms(name, value),
        Unit::Count => count(name, value).map(u64::from),
    }
    .map_err(|error| error.to_string())?;
    if parsed > spec.most {
        return Err(format!(
            "{name} expects at most {} (got \"{value}\")",
            spec.flag_value(spec.most)
        ));
    }
    Ok(parsed)
}

/// Consumes `argv[*next]` as a value when it exists and `accept`s it; `""` otherwise.
fn take_next<'a>(argv: &'a [String], next: &mut usize, accept: fn(&str) -> bool) -> &'a str {
    match argv.get(*next).filter(|value| accept(value)) {
        Some(value) => {
            *next += 1;
            value
        }
        None => "",
    }
}

fn invalid(message: String) -> FlagError {
    FlagError::InvalidValue(message)
}

/// A lowercase benchmark slug.
fn slug(flag: &str, value: &str) -> Result<String, FlagError> {
    if !is_lowercase_slug(value) {
        return Err(invalid(format!(
            "{flag} expects a lowercase benchmark slug (got \"{value}\")"
        )));
    }
    Ok(value.to_owned())
}

/// Any non-blank text, kept as given.
fn text(flag: &str, value: &str) -> Result<String, FlagError> {
    if js::trim(value).is_empty() {
        return Err(invalid(format!("{flag} expects a value")));
    }
    Ok(value.to_owned())
}

/// An integer `>= 1` in JavaScript `Number()` syntax that fits a `u32`.
fn count(flag: &str, value: &str) -> Result<u32, FlagError> {
    text(flag, value)?;
    let x = js::number_from_text(value);
    if x.fract() != 0.0 || x < 1.0 {
        return Err(invalid(format!(
            "{flag} expects an integer >= 1 (got \"{value}\")"
        )));
    }
    if x > f64::from(u32::MAX) {
        return Err(invalid(format!(
            "{flag} expects an integer between 1 and {} (got \"{value}\")",
            u32::MAX
        )));
    }
    Ok(x as u32)
}

/// A finite number `>= 0` in JavaScript `Number()` syntax.
fn delay(flag: &str, value: &str) -> Result<f64, FlagError> {
    text(flag, value)?;
    let x = js::number_from_text(value);
    if !x.is_finite() || x < 0.0 {
        return Err(invalid(format!(
            "{flag} expects a number >= 0 (got \"{value}\")"
        )));
    }
    // `-0` prints as `0` in JavaScript; store it that way.
    Ok(x + 0.0)
}

/// The `--fail-under` bar: a finite number in JavaScript `Number()` syntax.
pub(crate) fn fail_under(value: &str) -> Result<f64, FlagError> {
    text("--fail-under", value)?;
    let x = js::number_from_text(value);
    if !x.is_finite() {
        return Err(invalid(format!(
            "--fail-under expects a number (got \"{value}\")"
        )));
    }
    Ok(x + 0.0)
}

/// A share from 0 to 1 (`0.05`).
fn fraction(flag: &str, value: &str) -> Result<f64, FlagError> {
    text(flag, value)?;
    let x = js::number_from_text(value);
    if !(0.0..=1.0).contains(&x) {
        return Err(invalid(format!(
            "{flag} expects a fraction from 0 to 1, like 0.05 (got \"{value}\")"
        )));
    }
    Ok(x + 0.0)
}

/// A byte size: a whole number with an optional unit (`512MiB`, `256M`, `1G`, `65536`).
fn byte_size(flag: &str, value: &str) -> Result<u64, FlagError> {
    let text = js::trim(value);
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &text[digits.len()..];
    let scale: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => 0,
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|bytes| *bytes > 0)
        .ok_or_else(|| {
            invalid(format!(
                "{flag} expects a size like 512MiB (got \"{value}\")"
            ))
        })
}

/// A NATS server address: `nats://` or `tls://`, with credentials or not (never shown).
fn nats_url(flag: &str, value: &str) -> Result<String, FlagError> {
    bench_dispatch::check_url(value).map_err(|why| invalid(format!("{flag} {why}")))?;
    Ok(value.to_owned())
}

/// A duration in whole milliseconds (a fraction of one is dropped) in bench's one duration
/// grammar, a bare number being milliseconds: `250`, `500ms`, `1.5s`, `2m`, `1h`.
pub(crate) fn duration_ms(flag: &str, value: &str) -> Result<u64, FlagError> {
    config::read_duration(value, BareNumber::Millis)
        .and_then(|duration| u64::try_from(duration.as_millis()).ok())
        .filter(|ms| *ms > 0)
        .ok_or_else(|| {
            invalid(format!(
                "{flag} expects a duration like 30s, 1.5s, 500ms or 1h (got \"{value}\")"
            ))
        })
}

/// A load value (`--duration 60s`, `--rate 200/s`, `--stages 30s:10/s,…`) read by the
/// config's own parser; its message follows the flag's name.
fn load_value<T>(
    flag: &str,
    value: &str,
    parse: fn(&str) -> Result<T, String>,
) -> Result<T, FlagError> {
    text(flag, value)?;
    parse(value).map_err(|message| invalid(format!("{flag} {message}")))
}

/// A switch's value: on when bare or `=true`, off with `=false`.
fn boolean(flag: &str, value: &str) -> Result<bool, FlagError> {
    match value {
        "" | "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(invalid(format!(
            "{flag} expects true or false (got \"{value}\")"
        ))),
    }
}

fn group_by(flag: &str, value: &str) -> Result<GroupBy, FlagError> {
    GroupBy::parse(value).ok_or_else(|| {
        invalid(format!(
            "{flag} expects 'participant' or 'round' (got \"{value}\")"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &[&str]) -> Vec<String> {
        text.iter().map(|s| s.to_string()).collect()
    }

    fn parse(argv: &[&str]) -> Result<RunFlags, FlagError> {
        parse_run_flags(&args(argv), &[], None)
    }

    fn error(argv: &[&str]) -> String {
        parse(argv).unwrap_err().to_string()
    }

    #[test]
    fn pa1_pa2_knobs() {
        let flags = parse(&[
            "--iterations",
            "10",
            "--concurrency",
            "4",
            "--stagger-delay-ms",
            "250",
        ])
        .unwrap();
        assert_eq!(
            flags,
            RunFlags {
                plan: Overrides {
                    iterations: Some(10),
                    concurrency: Some(4),
                    stagger_delay_ms: Some(250.0),
                    ..Overrides::default()
                },
                ..RunFlags::default()
            }
        );
        let flags = parse(&["--iterations=7", "--concurrency=2"]).unwrap();
        assert_eq!(
            flags,
            RunFlags {
                plan: Overrides {
                    iterations: Some(7),
                    concurrency: Some(2),
                    ..Overrides::default()
                },
                ..RunFlags::default()
            }
        );
    }

    #[test]
    fn pa3_pa28_pa29_providers_append() {
        let flags = parse(&["--provider", "e2b,modal", "--provider", "daytona"]).unwrap();
        assert_eq!(
            flags.plan.providers,
            Some(args(&["e2b", "modal", "daytona"]))
        );
        let flags = parse(&["--provider", " a , ,b "]).unwrap();
        assert_eq!(flags.plan.providers, Some(args(&["a", "b"])));
        assert_eq!(
            parse(&["--provider="]).unwrap().plan.providers,
            Some(vec![])
        );
        assert_eq!(parse(&["--provider"]).unwrap().plan.providers, Some(vec![]));
        assert_eq!(parse(&[]).unwrap().plan.providers, None);
    }

    #[test]
    fn pa4_group_by() {
        assert_eq!(
            parse(&["--group-by", "round"]).unwrap().plan.group_by,
            Some(GroupBy::Round)
        );
        assert_eq!(
            parse(&["--group-by=participant"]).unwrap().plan.group_by,
            Some(GroupBy::Participant)
        );
    }

    #[test]
    fn pa5_benchmark_slug() {
        for argv in [
            &["--benchmark", "sandbox-burst-local"][..],
            &["--slug", "sandbox-burst-local"],
        ] {
            assert_eq!(
                parse(argv).unwrap().plan.benchmark.as_deref(),
                Some("sandbox-burst-local")
            );
        }
        assert_eq!(
            parse(&["--benchmark=sandbox-tti-local"])
                .unwrap()
                .plan
                .benchmark
                .as_deref(),
            Some("sandbox-tti-local")
        );
    }

    #[test]
    fn pa6_pa7_text_flags() {
        assert_eq!(
            parse(&["--name", "Sandbox burst TTI"])
                .unwrap()
                .plan
                .name
                .as_deref(),
            Some("Sandbox burst TTI")
        );
        assert_eq!(error(&["--name", " "]), "--name expects a value");
        assert_eq!(
            parse(&["--shape", "burst"]).unwrap().plan.shape.as_deref(),
            Some("burst")
        );
        assert_eq!(
            parse(&["--run-key=ci-123"]).unwrap().run_key.as_deref(),
            Some("ci-123")
        );
        assert_eq!(error(&["--shape", ""]), "--shape expects a value");
        assert_eq!(error(&["--run-key", ""]), "--run-key expects a value");
    }

    #[test]
    fn pa8_to_pa10_bad_values() {
        assert_eq!(
            error(&["--benchmark", "Sandbox TTI"]),
            r#"--benchmark expects a lowercase benchmark slug (got "Sandbox TTI")"#
        );
        assert_eq!(
            error(&["--slug", ""]),
            r#"--slug expects a lowercase benchmark slug (got "")"#
        );
        assert_eq!(
            error(&["--group-by", "nope"]),
            r#"--group-by expects 'participant' or 'round' (got "nope")"#
        );
    }

    #[test]
    fn pa11_pa13_pa26_unknown_flags() {
        assert_eq!(
            error(&["--unknown", "x", "--iterations", "3"]),
            "Unknown flag(s): --unknown"
        );
        assert_eq!(
            error(&["--file-size", "10MB"]),
            "Unknown flag(s): --file-size"
        );
        assert_eq!(
            error(&["--a", "1", "--b=2", "--c"]),
            "Unknown flag(s): --a, --b, --c"
        );
        assert_eq!(
            parse(&["--a", "1", "positional"]).unwrap_err(),
            FlagError::Unknown(args(&["--a", "positional"]))
        );
    }

    #[test]
    fn invalid_values_fail_before_unknown_flags() {
        assert_eq!(
            error(&["--unknown", "--iterations", "0"]),
            r#"--iterations expects an integer >= 1 (got "0")"#
        );
    }

    #[test]
    fn pa12_custom_flags_pass_through() {
        let custom = args(&["--file-size"]);
        for argv in [
            &["--file-size", "10MB", "--iterations", "3"][..],
            &["--file-size=10MB", "--iterations", "3"],
        ] {
            let flags = parse_run_flags(&args(argv), &custom, None).unwrap();
            assert_eq!(flags.plan.iterations, Some(3));
            assert_eq!(
                flags.custom,
                [("--file-size".to_string(), "10MB".to_string())]
            );
        }
        let flags = parse_run_flags(&args(&["--file-size"]), &custom, None).unwrap();
        assert_eq!(flags.custom, [("--file-size".to_string(), String::new())]);
    }

    #[test]
    fn values_starting_with_a_dash_are_not_skipped_for_custom_flags() {
        let custom = args(&["--offset"]);
        let result = parse_run_flags(&args(&["--offset", "-5"]), &custom, None);
        assert_eq!(result, Err(FlagError::Unknown(args(&["-5"]))));
    }

    #[test]
    fn known_flags_take_the_next_token_even_if_it_is_a_flag() {
        let flags = parse(&["--name", "--no-ingest"]).unwrap();
        assert_eq!(flags.plan.name.as_deref(), Some("--no-ingest"));
        assert!(!flags.no_ingest);
    }

    #[test]
    fn pa14_pa15_pa16_pa24_number_errors() {
        let cases: [(&[&str], &str); 8] = [
            (
                &["--iterations", "abc"],
                r#"--iterations expects an integer >= 1 (got "abc")"#,
            ),
            (&["--iterations", ""], "--iterations expects a value"),
            (
                &["--iterations", "-3"],
                r#"--iterations expects an integer >= 1 (got "-3")"#,
            ),
            (
                &["--iterations", "1.5"],
                r#"--iterations expects an integer >= 1 (got "1.5")"#,
            ),
            (
                &["--concurrency", "0"],
                r#"--concurrency expects an integer >= 1 (got "0")"#,
            ),
            (
                &["--stagger-delay-ms", "-1"],
                r#"--stagger-delay-ms expects a number >= 0 (got "-1")"#,
            ),
            (&["--iterations"], "--iterations expects a value"),
            (
                &["--stagger-delay-ms="],
                "--stagger-delay-ms expects a value",
            ),
        ];
        for (argv, expected) in cases {
            assert_eq!(error(argv), expected, "{argv:?}");
        }
        assert_eq!(
            error(&["--iterations", "1e10"]),
            r#"--iterations expects an integer between 1 and 4294967295 (got "1e10")"#
        );
        assert_eq!(
            error(&["--stagger-delay-ms", "Infinity"]),
            r#"--stagger-delay-ms expects a number >= 0 (got "Infinity")"#
        );
    }

    #[test]
    fn integers_use_javascript_number_syntax() {
        for (raw, expected) in [
            ("0x10", 16),
            ("1e2", 100),
            (" 5 ", 5),
            ("1.0", 1),
            ("+7", 7),
            ("0b11", 3),
            ("0o17", 15),
            ("5.", 5),
        ] {
            assert_eq!(
                parse(&["--iterations", raw]).unwrap().plan.iterations,
                Some(expected),
                "{raw}"
            );
        }
        for raw in ["1_000", "-0x10", "0x", "Infinity", "1e", "five", "."] {
            assert!(parse(&["--iterations", raw]).is_err(), "{raw}");
        }
    }

    #[test]
    fn pa22_fractional_stagger() {
        assert_eq!(
            parse(&["--stagger-delay-ms", "2.5"])
                .unwrap()
                .plan
                .stagger_delay_ms,
            Some(2.5)
        );
        assert_eq!(
            parse(&["--stagger-delay-ms", ".5"])
                .unwrap()
                .plan
                .stagger_delay_ms,
            Some(0.5)
        );
        let zero = parse(&["--stagger-delay-ms", "-0"])
            .unwrap()
            .plan
            .stagger_delay_ms
            .unwrap();
        assert!(zero == 0.0 && zero.is_sign_positive());
    }

    #[test]
    fn pa17_pa18_switches() {
        assert_eq!(parse(&[]).unwrap(), RunFlags::default());
        assert!(parse(&["--no-ingest"]).unwrap().no_ingest);
        assert!(parse(&["--dry-run"]).unwrap().no_ingest);
        // A switch ignores `=value` and never takes the next token.
        let flags = parse(&["--dry-run=false", "--iterations", "2"]).unwrap();
        assert!(flags.no_ingest);
        assert_eq!(flags.plan.iterations, Some(2));
    }

    #[test]
    fn pa19_pa31_no_ingest_from_the_environment() {
        let env =
            |value: &str, argv: &[&str]| parse_run_flags(&args(argv), &[], Some(value)).unwrap();
        assert!(env("1", &[]).no_ingest);
        let flags = env("1", &["--iterations", "5"]);
        assert!(flags.no_ingest);
        assert_eq!(flags.plan.iterations, Some(5));
        assert!(env("TRUE", &[]).no_ingest);
        assert!(env("True", &[]).no_ingest);
        assert_eq!(env("yes", &[]), RunFlags::default());
        assert_eq!(env("0", &[]), RunFlags::default());
    }

    #[test]
    fn bench_flags() {
        let flags = parse(&[
            "--out",
            "results",
            "--fresh-instance",
            "--require-upload",
            "--max-sandboxes",
            "20000",
            "--stop-grace",
            "2s",
            "--max-failure-rate",
            "0.05",
            "--allow-all-failed",
            "-q",
            "--shard",
            "1/3",
        ])
        .unwrap();
        assert!(flags.quiet);
        assert_eq!(
            flags.shard.map(|shard| shard.to_string()).as_deref(),
            Some("1/3")
        );
        let dispatched = parse(&[
            "--dispatch",
            "nats://127.0.0.1:4222",
            "--worker-wait",
            "5s",
            "--ack-wait",
            "2s",
        ])
        .unwrap();
        assert_eq!(
            dispatched.dispatch.as_deref(),
            Some("nats://127.0.0.1:4222")
        );
        assert_eq!(
            (dispatched.worker_wait_ms, dispatched.ack_wait_ms),
            (Some(5000), Some(2000))
        );
        assert_eq!(
            error(&["--dispatch", "localhost:4222"]),
            r#"--dispatch expects a NATS server address like nats://127.0.0.1:4222 or tls://nats.example:4222 (got "localhost:4222")"#
        );
        assert_eq!(
            error(&["--dispatch", "http://bench:hunter2@nats:4222"]),
            r#"--dispatch expects a NATS server address like nats://127.0.0.1:4222 or tls://nats.example:4222 (got "http://***@nats:4222")"#
        );
        let secured = parse(&[
            "--dispatch",
            "tls://bench:pw@nats:4222",
            "--sign",
            "run.key",
            "--trust-worker",
            "w1.pub",
            "--trust-worker=w2.pub",
            "--nats-creds",
            "c.creds",
            "--nats-nkey=seed",
            "--nats-ca",
            "ca.pem",
            "--nats-cert",
            "cert.pem",
            "--nats-key",
            "key.pem",
        ])
        .unwrap();
        assert_eq!(secured.sign.as_deref(), Some("run.key"));
        assert_eq!(secured.trust_workers, ["w1.pub", "w2.pub"]);
        assert_eq!(
            secured.nats,
            AccessFiles {
                creds: Some("c.creds".into()),
                nkey: Some("seed".into()),
                ca: Some("ca.pem".into()),
                cert: Some("cert.pem".into()),
                key: Some("key.pem".into()),
            }
        );
        assert_eq!(
            error(&["--shard", "3/3"]),
            r#"--shard expects i/N with 0 <= i < N <= 100000 (got "3/3")"#
        );
        assert!(parse(&["--quiet"]).unwrap().quiet);
        assert_eq!(flags.failure_gates.max_failure_rate, Some(0.05));
        assert!(flags.failure_gates.allow_all_failed);
        assert_eq!(
            error(&["--max-failure-rate", "5%"]),
            r#"--max-failure-rate expects a fraction from 0 to 1, like 0.05 (got "5%")"#
        );
        assert_eq!(
            error(&["--max-failure-rate", "1.5"]),
            r#"--max-failure-rate expects a fraction from 0 to 1, like 0.05 (got "1.5")"#
        );
        assert_eq!(flags.out.as_deref(), Some("results"));
        assert_eq!(flags.stop_grace_ms, Some(2000));
        assert!(flags.fresh_instance);
        assert!(flags.require_upload);
        assert_eq!(
            flags.sandbox.ceilings.value(LimitField::Sandboxes),
            Some(20_000)
        );
        assert_eq!(
            error(&["--max-sandboxes", "0"]),
            r#"--max-sandboxes expects an integer >= 1 (got "0")"#
        );
        assert_eq!(error(&["--out", " "]), "--out expects a value");
        assert_eq!(error(&["--out"]), "--out expects a value");
    }

    #[test]
    fn sandbox_flags() {
        let flags = parse(&[
            "--allow-host",
            "http://127.0.0.1:*",
            "--allow-host=https://api.example.com",
            "--allow-dir",
            "/data:/data:rw",
            "--max-memory",
            "64MiB",
            "--task-timeout",
            "2s",
            "--max-sandboxes=20000",
        ])
        .unwrap();
        assert_eq!(
            flags.sandbox.allow_hosts,
            ["http://127.0.0.1:*", "https://api.example.com"]
        );
        assert_eq!(flags.sandbox.allow_dirs, ["/data:/data:rw"]);
        let ceilings = &flags.sandbox.ceilings;
        assert_eq!(ceilings.value(LimitField::Memory), Some(64 << 20));
        assert_eq!(ceilings.value(LimitField::TaskTimeout), Some(2000));
        assert_eq!(ceilings.value(LimitField::Sandboxes), Some(20_000));
        assert_eq!(
            ceilings.get(LimitField::Memory).set_by,
            SetBy::Flag("--max-memory")
        );
        assert_eq!(
            parse(&["--task-timeout", "250"])
                .unwrap()
                .sandbox
                .ceilings
                .value(LimitField::TaskTimeout),
            Some(250)
        );
        assert_eq!(
            error(&["--max-memory", "lots"]),
            r#"--max-memory expects a size like 512MiB (got "lots")"#
        );
        assert_eq!(
            error(&["--task-timeout", "0"]),
            r#"--task-timeout expects a duration like 30s, 1.5s, 500ms or 1h (got "0")"#
        );
    }

    #[test]
    fn the_table_says_who_reads_each_flag_of_a_dispatched_run() {
        assert_eq!(
            resume_flags().collect::<Vec<_>>(),
            [
                "--dispatch",
                "--sign",
                "--trust-worker",
                "--nats-creds",
                "--nats-nkey",
                "--nats-ca",
                "--nats-cert",
                "--nats-key"
            ]
        );
        for flag in ["--out", "--worker-wait", "--dispatch", "--nats-key"] {
            assert!(coordinator_only(flag), "{flag}");
        }
        for flag in ["--iterations", "--ack-wait", "-q", "--quiet", "--region"] {
            assert!(!coordinator_only(flag), "{flag}");
        }
    }

    #[test]
    fn every_duration_flag_reads_one_grammar() {
        let timeout = |value: &str| {
            parse(&["--task-timeout", value])
                .unwrap()
                .sandbox
                .ceilings
                .value(LimitField::TaskTimeout)
        };
        assert_eq!(timeout("1h"), Some(3_600_000));
        assert_eq!(timeout("1.5s"), Some(1500));
        assert_eq!(timeout("250"), Some(250), "a bare number is milliseconds");
        let flags = parse(&[
            "--stop-grace",
            "1.5s",
            "--worker-wait=2m",
            "--ack-wait",
            "0.25h",
            "--compile-timeout",
            "1h",
            "--duration",
            "1h",
        ])
        .unwrap();
        assert_eq!(flags.stop_grace_ms, Some(1500));
        assert_eq!(flags.worker_wait_ms, Some(120_000));
        assert_eq!(flags.ack_wait_ms, Some(900_000));
        assert_eq!(
            flags.sandbox.ceilings.value(LimitField::CompileTime),
            Some(3_600_000)
        );
        assert_eq!(
            flags.plan.load.duration,
            Some(std::time::Duration::from_secs(3600))
        );
        assert_eq!(
            parse(&["--duration", "1.5s"]).unwrap().plan.load.duration,
            Some(std::time::Duration::from_millis(1500))
        );
        for (argv, expected) in [
            (
                ["--task-timeout", "1d"],
                r#"--task-timeout expects a duration like 30s, 1.5s, 500ms or 1h (got "1d")"#,
            ),
            (
                ["--stop-grace", "soon"],
                r#"--stop-grace expects a duration like 30s, 1.5s, 500ms or 1h (got "soon")"#,
            ),
            (
                ["--worker-wait", "0.1ms"],
                r#"--worker-wait expects a duration like 30s, 1.5s, 500ms or 1h (got "0.1ms")"#,
            ),
            (
                ["--compile-timeout", "-5s"],
                r#"--compile-timeout expects a duration like 30s, 1.5s, 500ms or 1h (got "-5s")"#,
            ),
            (
                ["--duration", "200h"],
                r#"--duration expects a duration like 60s, 500ms or 2m, at most 7 days (got "200h")"#,
            ),
        ] {
            assert_eq!(error(&argv), expected, "{argv:?}");
        }
    }

    #[test]
    fn the_ceilings_are_read_before_the_other_flags() {
        let ceilings = ceilings_of(&args(&[
            "--iterations",
            "3",
            "--max-function-size",
            "4MiB",
            "--custom",
            "x",
            "--compile-timeout=2m",
        ]))
        .unwrap();
        assert_eq!(ceilings.value(LimitField::FunctionBytes), Some(4 << 20));
        assert_eq!(ceilings.value(LimitField::CompileTime), Some(120_000));
        assert_eq!(ceilings.value(LimitField::Memory), Some(512 << 20));
        assert!(ceilings_of(&args(&["--max-memory", "lots"])).is_err());
    }

    #[test]
    fn every_limit_and_budget_has_a_flag_that_sets_its_ceiling() {
        for spec in &bench_model::ceilings::LIMITS {
            let value = spec.flag_value(spec.most.min(1 << 20));
            let flags = parse(&[spec.flag, &value]).unwrap();
            let setting = flags.sandbox.ceilings.get(spec.field);
            assert_eq!(setting.value, Some(spec.most.min(1 << 20)), "{}", spec.flag);
            assert_eq!(setting.set_by, SetBy::Flag(spec.flag));
        }
        assert_eq!(
            error(&["--max-steps", "2000000"]),
            r#"--max-steps expects at most 1000000 (got "2000000")"#
        );
        assert_eq!(
            error(&["--max-data-bytes", "1GiB"]),
            r#"--max-data-bytes expects at most 64MiB (got "1GiB")"#
        );
    }

    #[test]
    fn load_flags() {
        let flags = parse(&[
            "--rate",
            "200/s",
            "--duration=1m",
            "--pre-allocated",
            "5",
            "--max-sandboxes",
            "50",
        ])
        .unwrap();
        let load = &flags.plan.load;
        assert_eq!(load.rate, Some(200.0));
        assert_eq!(load.duration, Some(std::time::Duration::from_secs(60)));
        assert_eq!(load.pre_allocated, Some(5));
        assert_eq!(load.max_sandboxes, Some(50));
        assert_eq!(
            flags.sandbox.ceilings.value(LimitField::Sandboxes),
            Some(50)
        );
        let stages = parse(&["--stages", "30s:10/s,2m:200/s,30s:0/s"]).unwrap();
        assert_eq!(stages.plan.load.stages.unwrap().len(), 3);
        assert_eq!(
            error(&["--rate", "fast"]),
            r#"--rate expects a rate like 200/s or 30/m, at most 100000/s (got "fast")"#
        );
        assert_eq!(
            error(&["--duration", "60"]),
            r#"--duration expects a duration like 60s, 500ms or 2m, at most 7 days (got "60")"#
        );
        assert_eq!(
            error(&["--stages", "30s"]),
            r#"--stages expects stages like 30s:10/s,2m:200/s (got "30s")"#
        );
        assert_eq!(error(&["--duration"]), "--duration expects a value");
        let warm = parse(&["--warmup", "3", "--shuffle"]).unwrap();
        assert_eq!(
            (warm.plan.warmup, warm.plan.shuffle, warm.plan.shuffle_seed),
            (Some(3), true, None)
        );
        let seeded = parse(&["--shuffle=42", "--iterations", "2"]).unwrap();
        assert_eq!(
            (seeded.plan.shuffle_seed, seeded.plan.iterations),
            (Some(42), Some(2))
        );
        assert_eq!(
            error(&["--shuffle=x"]),
            r#"--shuffle expects a seed from 0 to 18446744073709551615 (got "x")"#
        );
        assert_eq!(
            error(&["--pre-allocated", "0"]),
            r#"--pre-allocated expects an integer >= 1 (got "0")"#
        );
    }

    #[test]
    fn http_keep_alive_is_a_switch_with_an_optional_value() {
        let keep_alive = |argv: &[&str]| parse(argv).unwrap().sandbox.http_keep_alive;
        assert_eq!(keep_alive(&[]), None);
        assert_eq!(keep_alive(&["--http-keep-alive=false"]), Some(false));
        assert_eq!(keep_alive(&["--http-keep-alive"]), Some(true));
        assert_eq!(keep_alive(&["--http-keep-alive=true"]), Some(true));
        // Never the next token.
        let flags = parse(&["--http-keep-alive", "--iterations", "2"]).unwrap();
        assert_eq!(flags.sandbox.http_keep_alive, Some(true));
        assert_eq!(flags.plan.iterations, Some(2));
        assert_eq!(
            error(&["--http-keep-alive=off"]),
            r#"--http-keep-alive expects true or false (got "off")"#
        );
    }

    #[test]
    fn export_and_gate_flags() {
        let flags = parse(&[
            "--export-json",
            "s.json",
            "--export-csv=s.csv",
            "--export-markdown",
            "s.md",
            "--export-junit",
            "s.xml",
            "--export-html=s.html",
            "--fail-under",
            "62.5",
        ])
        .unwrap();
        assert_eq!(
            flags.exports,
            ExportPaths {
                json: Some("s.json".into()),
                csv: Some("s.csv".into()),
                markdown: Some("s.md".into()),
                junit: Some("s.xml".into()),
                html: Some("s.html".into()),
            }
        );
        assert_eq!(flags.fail_under, Some(62.5));
        assert_eq!(
            parse(&["--fail-under", "0x10"]).unwrap().fail_under,
            Some(16.0)
        );
        assert_eq!(error(&["--export-csv"]), "--export-csv expects a value");
        assert_eq!(
            error(&["--fail-under", " "]),
            "--fail-under expects a value"
        );
        assert_eq!(
            error(&["--fail-under", "high"]),
            r#"--fail-under expects a number (got "high")"#
        );
        assert_eq!(
            error(&["--fail-under", "Infinity"]),
            r#"--fail-under expects a number (got "Infinity")"#
        );
    }
}
