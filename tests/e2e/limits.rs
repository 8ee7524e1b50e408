//! End-to-end: one rule for limits. The operator's flags, environment and bench config file
//! set the ceilings; a task's config asking for more of any limit is refused before the run,
//! naming the field, the ceiling, who set it and the flag that raises it; `bench check` and
//! `bench inspect` show each effective value and who set it.

use crate::support::bench::{bench, run_command};
use crate::support::guests::test_guest;
use crate::support::results::records_of;
use tempfile::TempDir;

/// The flags that raise every ceiling `greedy-limits` asks past (to twice what it asks,
/// so its own values lower them).
const RAISED: [&str; 18] = [
    "--max-memory",
    "8GiB",
    "--task-timeout",
    "2m",
    "--max-steps",
    "200000",
    "--max-step-name-bytes",
    "128KiB",
    "--max-log-message-bytes",
    "32MiB",
    "--max-task-log-bytes",
    "1GiB",
    "--max-data-bytes",
    "64MiB",
    "--max-participant-log-bytes",
    "1024GiB",
    "--max-sandboxes",
    "2000000",
];

#[test]
fn every_config_limit_above_its_ceiling_is_refused_before_the_run() {
    let greedy = test_guest("greedy-limits");
    let dir = TempDir::new().unwrap();
    let run = run_command(
        bench(dir.path())
            .args(["run", greedy.to_str().unwrap(), "--out", "results"])
            .env("BENCH_TASK_TIMEOUT", "10s"),
    );
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    let refused = [
        "limits.memoryMb is 4096, above the ceiling of 512 MiB (bench's default): raise it with --max-memory 4GiB",
        "limits.taskTimeoutMs is 60000, above the ceiling of 10000 ms (BENCH_TASK_TIMEOUT): raise it with --task-timeout 60000ms",
        "limits.maxSteps is 100000, above the ceiling of 10000 (bench's default): raise it with --max-steps 100000",
        "limits.maxStepNameBytes is 65536, above the ceiling of 1 KiB (bench's default): raise it with --max-step-name-bytes 64KiB",
        "limits.maxLogMessageBytes is 16777216, above the ceiling of 1 MiB (bench's default): raise it with --max-log-message-bytes 16MiB",
        "limits.maxTaskLogBytes is 1073741824, above the ceiling of 16 MiB (bench's default): raise it with --max-task-log-bytes 1GiB",
        "limits.maxDataBytes is 67108864, above the ceiling of 1 MiB (bench's default): raise it with --max-data-bytes 64MiB",
        "limits.maxParticipantLogBytes is 1099511627776, above the ceiling of 256 MiB (bench's default): raise it with --max-participant-log-bytes 1024GiB",
        "limits.maxSandboxes is 1000000, above the ceiling of 10000 (bench's default): raise it with --max-sandboxes 1000000",
    ];
    assert!(
        run.stderr.starts_with(
            "Benchmark failed: the task's config asks for more than this run allows (a task's \
             limits may only lower the operator's):\n"
        ),
        "{}",
        run.stderr
    );
    for line in refused {
        assert!(
            run.stderr.contains(&format!("\n  {line}\n")),
            "{line}\n{}",
            run.stderr
        );
    }
    assert!(run.stdout.is_empty(), "nothing ran: {}", run.stdout);
    assert!(!dir.path().join("results").exists(), "no results directory");
}

#[test]
fn raised_ceilings_let_the_config_lower_them_and_inspect_says_who_set_each() {
    let greedy = test_guest("greedy-limits");
    let dir = TempDir::new().unwrap();
    let config_file = dir.path().join("bench.toml");
    std::fs::write(&config_file, "disk-budget = \"2GiB\"\nmax-steps = 50000\n").unwrap();
    let command = |name: &str| {
        let mut command = bench(dir.path());
        command
            .arg(name)
            .arg(greedy.to_str().unwrap())
            .args(RAISED)
            .env("BENCH_CONFIG", &config_file)
            .env("BENCH_MAX_COMPONENT_SIZE", "64MiB");
        command
    };
    let inspect = run_command(&mut command("inspect"));
    assert_eq!(inspect.code, Some(0), "{}", inspect.stderr);
    let shown = &inspect.stdout;
    for line in [
        "  memoryMb 4 GiB (the task's config)\n",
        "  maxSteps 100000 (the task's config)\n",
        "  maxSandboxes 1000000 (the task's config)\n",
        "  componentBytes 64 MiB (BENCH_MAX_COMPONENT_SIZE)\n",
        "  functionBytes 2 MiB (bench's default)\n",
    ] {
        assert!(shown.contains(line), "{line}\n{shown}");
    }
    assert!(
        shown.contains(&format!("  diskBudget 2 GiB ({})\n", config_file.display())),
        "{shown}"
    );
    let check = run_command(&mut command("check"));
    assert_eq!(check.code, Some(0), "{}", check.stderr);
    assert!(
        check
            .stdout
            .contains("Limits: memoryMb 4 GiB (the task's config), taskTimeoutMs 60000 ms (the task's config),"),
        "{}",
        check.stdout
    );

    let run = run_command(command("run").args(["--out", "results"]));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let records = records_of(&dir.path().join("results"), "greedy");
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|record| record["status"] == "success"));
}

#[test]
fn a_flag_below_the_config_refuses_it_and_a_bad_setting_is_explained() {
    let greedy = test_guest("greedy-limits");
    let dir = TempDir::new().unwrap();
    let mut raised = RAISED.to_vec();
    raised[1] = "1GiB";
    let run = run_command(
        bench(dir.path())
            .arg("check")
            .arg(greedy.to_str().unwrap())
            .args(&raised),
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "  limits.memoryMb is 4096, above the ceiling of 1 GiB (--max-memory): raise it \
             with --max-memory 4GiB"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("\n  limits.").count(),
        1,
        "only memory is refused: {}",
        run.stderr
    );

    let config_file = dir.path().join("bench.toml");
    std::fs::write(&config_file, "max-sandbox = 5\n").unwrap();
    let run = run_command(
        bench(dir.path())
            .args(["check", greedy.to_str().unwrap()])
            .env("BENCH_CONFIG", &config_file),
    );
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr
            .contains("has an unknown setting `max-sandbox` (known: max-memory,"),
        "{}",
        run.stderr
    );
}
