//! `bench inspect`: what a task is and what each participant's sandbox will get — env var
//! names (never values), allowed hosts, directories and limits — without running it.

use super::task::prepare;
use anyhow::Result;
use bench_model::js;
use bench_model::plan;
use bench_model::text::escape_control;
use bench_runtime::sandbox::limits::Limits;
use std::path::Path;

/// Prints the inspection report of a task with these run flags.
pub(super) async fn inspect(task_path: &Path, argv: &[String]) -> Result<()> {
    let prepared = prepare(task_path, argv).await?;
    let task = &prepared.task;
    let resolved = &prepared.resolved;
    println!("Component: {}", task.path.display());
    println!("  size: {} bytes, sha256 {}", task.size_bytes, task.sha256);
    println!("  exports: {}", escape_control(&task.exports().join(", ")));
    println!("  imports:");
    for import in task.imports() {
        println!("    {}", escape_control(&import));
    }
    println!(
        "Benchmark: {} ({})",
        escape_control(&resolved.benchmark_name),
        escape_control(&resolved.benchmark_slug)
    );
    println!(
        "Knobs: iterations={}, concurrency={}, staggerDelayMs={}, groupBy={}",
        plan::Schedule::for_run(&prepared.config, resolved).len(),
        resolved.concurrency,
        js::number_to_string(resolved.stagger_delay_ms),
        resolved.group_by.as_str()
    );
    if !prepared.config.custom_cli_flags.is_empty() {
        println!(
            "Custom flags: {}",
            escape_control(&prepared.config.custom_cli_flags.join(", "))
        );
    }
    println!("Participants:");
    for participant in &prepared.available {
        let grants = prepared
            .grants
            .for_participant(&prepared.config, participant, |name| {
                std::env::var(name).ok()
            })?;
        println!("  {}", escape_control(&participant.name));
        let env: Vec<&str> = grants.env.iter().map(|(name, _)| name.as_str()).collect();
        println!("    env: {}", list_or_none(&env));
        let hosts: Vec<&str> = grants
            .http
            .allowed()
            .iter()
            .map(|host| host.pattern())
            .collect();
        println!("    allowed hosts: {}", list_or_none(&hosts));
        let dirs: Vec<String> = grants
            .dirs
            .iter()
            .map(|dir| {
                let mode = if dir.writable {
                    "read-write"
                } else {
                    "read-only"
                };
                format!("{} as {} ({mode})", dir.host.display(), dir.guest)
            })
            .collect();
        let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
        println!("    directories: {}", list_or_none(&dirs));
        println!("    limits: {}", describe_limits(&grants.limits));
    }
    for skipped in &prepared.skipped {
        println!("  {}", skipped.line());
    }
    println!("Limits and budgets (a task's config may only lower the operator's limits):");
    for line in prepared.grants.effective_limits().lines() {
        println!("  {line}");
    }
    Ok(())
}

/// The items, comma-separated (control characters escaped), or `none`.
fn list_or_none(items: &[&str]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        escape_control(&items.join(", ")).into_owned()
    }
}

fn describe_limits(limits: &Limits) -> String {
    let timeout = limits
        .task_timeout
        .map_or_else(|| "none".to_owned(), |t| format!("{}ms", t.as_millis()));
    let task = &limits.task;
    format!(
        "memory {} MiB, task timeout {timeout}, steps {}, step name {} B, log message {} B, \
         task log {} B, data {} B",
        js::number_to_string(limits.max_memory_bytes as f64 / (1024.0 * 1024.0)),
        task.max_steps,
        task.max_step_name_bytes,
        task.max_log_message_bytes,
        task.max_task_log_bytes,
        task.max_data_bytes
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_name_every_bound_of_a_task() {
        assert_eq!(
            describe_limits(&Limits::default()),
            "memory 512 MiB, task timeout none, steps 10000, step name 1024 B, log message \
             1048576 B, task log 16777216 B, data 1048576 B"
        );
    }
}
