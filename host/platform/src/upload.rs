//! `bench upload <results-dir>`: delivers what a run's ledger says the platform has not
//! acknowledged (or, for a run that was kept local, the whole run), exactly once. A run
//! with tasks missing — interrupted, or its `records.ndjson` cut short — is delivered as
//! what it is: its workers fail with the counts, and the command says how many are missing.
//! A `records.ndjson` that repeats a task or holds one the run did not plan is refused
//! whole, naming the lines: the platform is sent each task of the run once.

use super::auth::{self, Overrides};
use super::client::{Client, Retry};
use super::delivery::Delivery;
use super::spool::Ledger;
use super::tail::{RecordsTail, RECORDS_FILE};
use super::{new_ledger, summary_body};
use anyhow::{bail, Context as _, Result};
use bench_report::planned::PlannedRecords;
use bench_report::results::read_manifest;
use std::path::Path;
use std::sync::Arc;

/// Delivers the rest of a results directory; returns whether everything is delivered.
pub async fn upload(dir: &Path, overrides: &Overrides) -> Result<bool> {
    let manifest = read_manifest(dir)
        .with_context(|| format!("{} is not a results directory", dir.display()))?;
    let auth = auth::resolve(overrides).await?;
    let ledger = match Ledger::load(dir)? {
        Some(ledger) if ledger.api_base_url != auth.api_base_url => bail!(
            "{} is being delivered to {}; point BENCHMARKS_PLATFORM_URL (or --base-url) there to finish it",
            dir.display(),
            ledger.api_base_url
        ),
        Some(ledger) => ledger,
        None => new_ledger(&manifest, &auth.api_base_url, true, None)?,
    };
    let client = Arc::new(Client::new(&auth, Retry::default())?);
    let created_before = ledger.run.is_some();
    let mut delivery = Delivery::new(client, ledger, dir);
    let mut tail = RecordsTail::new(dir);
    let mut planned = PlannedRecords::new(&manifest);
    let mut untasked = None;
    tail.read_new(|line| {
        match line.task_index {
            Some(index) => {
                planned.check_task(&line.participant, index, line.warmup, line.line);
            }
            None => untasked = untasked.or(Some(line.line)),
        }
        delivery.count(&line);
    })?;
    let records = dir.join(RECORDS_FILE);
    if let Some(line) = untasked {
        bail!(
            "{} line {line} is not a record: it has no taskIndex; nothing was uploaded",
            records.display()
        );
    }
    if let Some(warning) = planned.warning() {
        bail!(
            "{}: {warning}; nothing was uploaded: each task of the run is delivered once",
            records.display()
        );
    }
    if let Some(line) = tail.incomplete_line() {
        eprintln!(
            "[bench] {} line {line} is cut short (it has no end); it is not uploaded.",
            dir.join(RECORDS_FILE).display()
        );
    }
    if manifest.completed_at.is_none() {
        delivery.mark_interrupted();
    } else {
        delivery.plan_what_was_recorded();
    }
    let completeness = delivery.completeness();
    if completeness.missing() > 0 {
        let (why, status) = if manifest.completed_at.is_none() {
            (
                "the run was interrupted (run.json has no end time)",
                "interrupted",
            )
        } else {
            (
                "records.ndjson holds fewer records than the run planned",
                "partial",
            )
        };
        eprintln!(
            "[bench] {} of {} planned task(s) are missing ({} recorded): {why}; it is uploaded as {status}.",
            completeness.missing(),
            completeness.planned(),
            completeness.per_participant()
        );
    }
    if delivery.ledger().summary.is_none() {
        if let Some(summary) = summary_body(dir) {
            delivery.set_summary(summary);
        }
    }
    let before = delivery.outstanding();
    let result = delivery.deliver_all().await;
    let after = delivery.outstanding();
    if let Some(run) = &delivery.ledger().run {
        let verb = if created_before { "Run" } else { "Run created" };
        println!("{verb}: {} ({})", run.name, run.id);
    }
    println!(
        "Delivered {} record(s); {} were already on the platform.",
        before.records - after.records,
        before.deliverable - before.records
    );
    match result {
        Ok(()) => {
            if let Some(run) = &delivery.ledger().run {
                println!("All done. View at: {}", run.dashboard_url);
            }
            Ok(true)
        }
        Err(error) => {
            eprintln!(
                "Upload incomplete: {error}. Not delivered: {} record(s){}. Run `bench upload {}` again.",
                after.records,
                list_items(&after.items),
                dir.display()
            );
            Ok(false)
        }
    }
}

/// `, the run, the completion of alpha` (empty without items).
pub(crate) fn list_items(items: &[String]) -> String {
    items.iter().map(|item| format!(", {item}")).collect()
}
