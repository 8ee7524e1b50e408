//! `bench merge`: the results directories of one run's static shards (`--shard i/N`)
//! become one results directory, as if the run had not been split: `records.ndjson` (each
//! shard's lines in shard order, every (participant, taskIndex) at most once), each
//! participant's log (its shards' logs one after another), `metrics.jsonl` (each shard's
//! samples in shard order) and `run.json`. The caller then ends it like any run
//! ([`finish`](super::finish::finish)), so `summary.json` is the one a single run writes.

use super::files;
use super::input::ResultsDir;
use super::planned::PlannedRecords;
use super::results::{
    file_name, log_path, read_manifest, renamed_log_files, write_manifest, RecordsFile,
    ResultsWriter, RECORDS_NDJSON,
};
use super::tally::RunTally;
use crate::metrics::METRICS_FILE;
use anyhow::{bail, Context as _, Result};
use bench_model::plan::RunManifest;
use bench_model::plan::Shard;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A merged run: its manifest (already written as `run.json`) and its records' tally.
pub struct MergedRun {
    /// The merged `run.json`.
    pub manifest: RunManifest,
    /// What the summary needs of every merged record.
    pub tally: RunTally,
}

/// Merges the shard results directories `shards` (in any order, one per shard of the
/// run) into the new results directory `out`.
pub fn merge(shards: &[PathBuf], out: &Path) -> Result<MergedRun> {
    let shards = ordered_shards(shards)?;
    ResultsWriter::refuse_earlier_run(out)?;
    files::create_results_dir(out)?;
    let first = &shards[0].1;
    let mut manifest = first.clone();
    let mut tally = RunTally::new(&manifest);
    merge_records(&shards, out, &mut tally)?;
    let sources = shards
        .iter()
        .map(|(dir, _)| ResultsDir::open(dir))
        .collect::<Result<Vec<_>>>()?;
    for name in &first.run_config.participants {
        let log = format!("logs/{}.log", file_name(name));
        concatenate(&sources, &log, &log_path(out, name))?;
    }
    concatenate(&sources, METRICS_FILE, &out.join(METRICS_FILE))?;
    // The logs are where the results writer puts them, whatever the shards' run.json said.
    manifest.log_files =
        renamed_log_files(manifest.run_config.participants.iter().map(String::as_str));
    let manifests = shards.iter().map(|(_, manifest)| manifest);
    manifest.started_at = manifests
        .clone()
        .map(|m| &m.started_at)
        .min()
        .cloned()
        .unwrap_or_default();
    manifest.completed_at = manifests
        .clone()
        .filter_map(|m| m.completed_at.clone())
        .max();
    manifest.tasks = Some(tally.task_counts());
    manifest.interrupted = manifests.clone().any(|m| m.interrupted);
    manifest.shard = None;
    write_manifest(out, &manifest)?;
    Ok(MergedRun { manifest, tally })
}

/// Reads every directory's `run.json` and checks they are the `N` shards of one run, each
/// once; returns them in shard order.
fn ordered_shards(dirs: &[PathBuf]) -> Result<Vec<(PathBuf, RunManifest)>> {
    if dirs.is_empty() {
        bail!("bench merge needs the results directories of a run's shards");
    }
    let mut shards: Vec<(PathBuf, RunManifest, Shard)> = Vec::new();
    for dir in dirs {
        let manifest = read_manifest(dir)?;
        let Some(shard) = manifest.shard else {
            bail!(
                "{} holds no shard of a run (it was not run with --shard i/N)",
                dir.display()
            );
        };
        shards.push((dir.clone(), manifest, shard));
    }
    shards.sort_by_key(|(_, _, shard)| shard.index);
    let (first_dir, first, first_shard) = &shards[0];
    for (dir, manifest, shard) in &shards {
        if shard.count != first_shard.count {
            bail!(
                "{} is shard {shard} but {} is shard {first_shard}: they split the run differently",
                dir.display(),
                first_dir.display()
            );
        }
        if manifest.run_config != first.run_config
            || manifest.component.sha256 != first.component.sha256
        {
            bail!(
                "{} and {} are not shards of the same run (their component or run settings differ)",
                dir.display(),
                first_dir.display()
            );
        }
    }
    for index in 0..first_shard.count {
        let holding: Vec<&PathBuf> = shards
            .iter()
            .filter(|(_, _, shard)| shard.index == index)
            .map(|(dir, _, _)| dir)
            .collect();
        let shard = Shard {
            index,
            count: first_shard.count,
        };
        match holding.as_slice() {
            [] => bail!("shard {shard} is missing: give the results directory of every shard"),
            [_] => {}
            [a, b, ..] => bail!(
                "{} and {} both hold shard {shard}",
                a.display(),
                b.display()
            ),
        }
    }
    Ok(shards
        .into_iter()
        .map(|(dir, manifest, _)| (dir, manifest))
        .collect())
}

/// Copies every shard's record lines (as written) into `out/records.ndjson`, refusing a
/// (participant, taskIndex) twice or a participant the run does not have.
fn merge_records(
    shards: &[(PathBuf, RunManifest)],
    out: &Path,
    tally: &mut RunTally,
) -> Result<()> {
    let path = out.join(RECORDS_NDJSON);
    let file =
        files::create_new(&path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut writer = BufWriter::new(file);
    let mut planned = PlannedRecords::new(&shards[0].1);
    for (dir, _) in shards {
        let path = dir.join(RECORDS_NDJSON);
        let mut records = RecordsFile::open(&path)?;
        while let Some((_, line)) = records.next_record()? {
            let number = records.line_number();
            if let Some(why) = planned.check(&line.participant, &line.record, number) {
                bail!(
                    "{}: {why}: each task of the run must be in one shard, once",
                    path.display()
                );
            }
            tally.add(&line.participant, &line.record);
            let text = records.line();
            writer.write_all(text.as_bytes())?;
            if !text.ends_with('\n') {
                writer.write_all(b"\n")?;
            }
        }
    }
    writer
        .flush()
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Writes the file `relative` of each of `sources` that has it, one after another, into
/// `to` (nothing when none has it).
fn concatenate(sources: &[ResultsDir], relative: &str, to: &Path) -> Result<()> {
    let mut out: Option<BufWriter<File>> = None;
    for source in sources {
        let Some(mut reader) = source.open_file(relative)? else {
            continue;
        };
        let writer = match &mut out {
            Some(writer) => writer,
            None => out.insert(BufWriter::new(files::create(to)?)),
        };
        let part = source.path().join(relative);
        std::io::copy(&mut reader, writer)
            .with_context(|| format!("cannot copy {} to {}", part.display(), to.display()))?;
    }
    if let Some(mut writer) = out {
        writer
            .flush()
            .with_context(|| format!("cannot write {}", to.display()))?;
    }
    Ok(())
}
