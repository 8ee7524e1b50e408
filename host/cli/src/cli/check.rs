//! `bench check`: validate a task's config, flags, participants and environment without
//! running it.

use super::task::{prepare, Prepared};
use anyhow::Result;
use bench_model::text::escape_control;
use bench_model::{js, plan};
use std::path::Path;

/// Validates a task without running it and prints what a run would do.
pub(super) async fn check(task_path: &Path, argv: &[String]) -> Result<bool> {
    let prepared = prepare(task_path, argv).await?;
    let Prepared {
        task,
        config,
        resolved,
        available,
        skipped,
        grants,
        ..
    } = &prepared;
    let schedule = plan::Schedule::for_run(config, resolved);
    println!(
        "Component: {} ({} bytes, sha256 {})",
        task.path.display(),
        task.size_bytes,
        task.sha256
    );
    println!(
        "Benchmark: {} ({})",
        escape_control(&resolved.benchmark_name),
        escape_control(&resolved.benchmark_slug)
    );
    println!(
        "Knobs: iterations={}, concurrency={}, staggerDelayMs={}, groupBy={}",
        schedule.len(),
        resolved.concurrency,
        js::number_to_string(resolved.stagger_delay_ms),
        resolved.group_by.as_str()
    );
    if let Some(load) = resolved.load.describe(resolved.concurrency) {
        println!("Load: {load}");
    }
    println!("Limits: {}", grants.effective_limits().lines().join(", "));
    for participant in available {
        println!("Participant {}: ready", escape_control(&participant.name));
    }
    for skipped in skipped {
        println!("{}", skipped.line());
    }
    if available.is_empty() {
        println!("{}", plan::no_participants_message(skipped));
        return Ok(false);
    }
    println!("Config OK.");
    Ok(true)
}
