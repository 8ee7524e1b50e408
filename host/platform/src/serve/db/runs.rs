//! Benchmarks, their runs and the runs' participants.

use super::{at_most, bounds, json_column, now, random_id, Refusal, Store};
use crate::api::bounds::{check_run, MAX_TASKS};
use crate::api::types::{
    Benchmark, BenchmarkAnswer, CreateRun, CreateRunAnswer, Items, Page, Participant,
    ParticipantAnswer, Run, RunAnswer, RunStatus, UpsertBenchmark, UpsertParticipant,
};
use rusqlite::{params, OptionalExtension, Row};

const BENCHMARK_COLUMNS: &str = "slug, name, config, created_at, updated_at";

fn benchmark_row(row: &Row<'_>) -> rusqlite::Result<Benchmark> {
    Ok(Benchmark {
        slug: row.get(0)?,
        name: row.get(1)?,
        config: json_column(row.get(2)?),
        created_at: row.get(3)?,
        updated_at: row.get(4)?,
    })
}

fn participant_row(row: &Row<'_>) -> rusqlite::Result<Participant> {
    Ok(Participant {
        name: row.get(0)?,
        total_tasks: row.get(1)?,
        created_at: row.get(2)?,
    })
}

/// A run's workers and tasks, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct RunTally {
    workers: u64,
    pending: u64,
    running: u64,
    failed: u64,
    /// Workers that failed as `Interrupted`.
    interrupted: u64,
    /// Participants without a planned worker.
    unplanned: u64,
    planned: u64,
    recorded: u64,
}

impl RunTally {
    /// `pending` until a worker is claimed, `running` while a worker (or a participant's
    /// plan) is outstanding; then `completed` when every planned task is recorded and every
    /// worker completed, `failed` when all are recorded and a worker failed, `interrupted`
    /// or `partial` when tasks are missing.
    fn status(&self) -> RunStatus {
        if self.pending == self.workers {
            RunStatus::Pending
        } else if self.pending + self.running + self.unplanned > 0 {
            RunStatus::Running
        } else if self.recorded < self.planned {
            if self.interrupted > 0 {
                RunStatus::Interrupted
            } else {
                RunStatus::Partial
            }
        } else if self.failed > 0 {
            RunStatus::Failed
        } else {
            RunStatus::Completed
        }
    }
}

impl Store {
    fn benchmark(&self, slug: &str) -> Result<Benchmark, Refusal> {
        let sql =
            format!("SELECT {BENCHMARK_COLUMNS} FROM benchmarks WHERE slug = ?1 AND org = ?2");
        self.db
            .query_row(&sql, [slug, &self.org()], benchmark_row)
            .optional()?
            .ok_or_else(|| Refusal::not_found("Benchmark"))
    }

    /// `GET /benchmarks/{slug}`.
    pub(crate) fn get_benchmark(&self, slug: &str) -> Result<BenchmarkAnswer, Refusal> {
        Ok(BenchmarkAnswer {
            benchmark: self.benchmark(slug)?,
        })
    }

    /// `GET /benchmarks`, by slug.
    pub(crate) fn list_benchmarks(&self, page: Page) -> Result<Items<Benchmark>, Refusal> {
        let (limit, offset) = bounds(page);
        let sql =
            format!("SELECT {BENCHMARK_COLUMNS} FROM benchmarks WHERE org = ?3 ORDER BY slug LIMIT ?1 OFFSET ?2");
        let items = self.rows(&sql, params![limit, offset, self.org()], benchmark_row)?;
        Ok(Items { items })
    }

    /// `PUT /benchmarks/{slug}`: creates or renames the benchmark; a body without `config`
    /// keeps the stored one.
    pub(crate) fn upsert_benchmark(
        &self,
        slug: &str,
        body: &UpsertBenchmark,
    ) -> Result<BenchmarkAnswer, Refusal> {
        if body.name.trim().is_empty() {
            return Err(Refusal::bad_request("name is required"));
        }
        let config = body
            .config
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(|error| Refusal::bad_request(format!("config: {error}")))?;
        self.db.execute(
            "INSERT INTO benchmarks (slug, name, config, created_at, updated_at, org) VALUES (?1, ?2, ?3, ?4, ?4, ?5)
             ON CONFLICT (org, slug) DO UPDATE SET name = ?2, config = COALESCE(?3, config), updated_at = ?4",
            params![slug, body.name, config, now(), self.org()],
        )?;
        self.get_benchmark(slug)
    }

    /// A run of a benchmark, with its status.
    pub(super) fn run(&self, slug: &str, run_id: &str) -> Result<Run, Refusal> {
        self.benchmark(slug)?;
        let mut run = self
            .db
            .query_row(
                "SELECT id, name, run_key, total_tasks, worker_count, config, created_at
                 FROM runs WHERE id = ?1 AND benchmark_slug = ?2 AND org = ?3",
                [run_id, slug, &self.org()],
                |row| {
                    Ok(Run {
                        id: row.get(0)?,
                        benchmark_slug: slug.to_owned(),
                        name: row.get(1)?,
                        run_key: row.get(2)?,
                        total_tasks: row.get(3)?,
                        worker_count: row.get(4)?,
                        config: json_column(row.get(5)?),
                        created_at: row.get(6)?,
                        status: RunStatus::Pending,
                        planned_tasks: 0,
                        recorded_tasks: 0,
                    })
                },
            )
            .optional()?
            .ok_or_else(|| Refusal::not_found("Run"))?;
        let tally = self.run_tally(run_id)?;
        run.status = tally.status();
        run.planned_tasks = tally.planned;
        run.recorded_tasks = tally.recorded;
        Ok(run)
    }

    /// The counts a run's status is derived from.
    fn run_tally(&self, run_id: &str) -> Result<RunTally, Refusal> {
        let mut tally = self.db.query_row(
            "SELECT COUNT(*), COALESCE(SUM(status = 'pending'), 0), COALESCE(SUM(status = 'running'), 0),
               COALESCE(SUM(status = 'failed'), 0), COALESCE(SUM(error_code = 'Interrupted'), 0),
               COALESCE(SUM(MIN(recorded, range_count)), 0)
             FROM workers WHERE run_id = ?1",
            [run_id],
            |row| {
                Ok(RunTally {
                    workers: row.get(0)?,
                    pending: row.get(1)?,
                    running: row.get(2)?,
                    failed: row.get(3)?,
                    interrupted: row.get(4)?,
                    recorded: row.get(5)?,
                    ..RunTally::default()
                })
            },
        )?;
        (tally.planned, tally.unplanned) = self.db.query_row(
            "SELECT COALESCE(SUM(total_tasks), 0), COALESCE(SUM(NOT EXISTS
               (SELECT 1 FROM workers w WHERE w.run_id = p.run_id AND w.participant = p.name)), 0)
             FROM participants p WHERE run_id = ?1",
            [run_id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
        Ok(tally)
    }

    /// `GET /benchmarks/{slug}/runs/{runId}`.
    pub(crate) fn get_run(&self, slug: &str, run_id: &str) -> Result<RunAnswer, Refusal> {
        Ok(RunAnswer {
            run: self.run(slug, run_id)?,
        })
    }

    /// `GET /benchmarks/{slug}/runs`, newest first.
    pub(crate) fn list_runs(&self, slug: &str, page: Page) -> Result<Items<Run>, Refusal> {
        self.benchmark(slug)?;
        let (limit, offset) = bounds(page);
        let ids: Vec<String> = self.rows(
            "SELECT id FROM runs WHERE benchmark_slug = ?1 AND org = ?4
             ORDER BY created_at DESC, rowid DESC LIMIT ?2 OFFSET ?3",
            params![slug, limit, offset, self.org()],
            |row| row.get(0),
        )?;
        let items = ids
            .iter()
            .map(|id| self.run(slug, id))
            .collect::<Result<_, _>>()?;
        Ok(Items { items })
    }

    /// `POST /benchmarks/{slug}/runs`: a run of its own, or the run of a `runKey` (the same
    /// key returns the same run).
    pub(crate) fn create_run(
        &self,
        slug: &str,
        body: &CreateRun,
    ) -> Result<CreateRunAnswer, Refusal> {
        check_run(body).map_err(Refusal::bad_request)?;
        let benchmark = self.benchmark(slug)?;
        let existing: Option<String> = match &body.run_key {
            Some(key) => self
                .db
                .query_row(
                    "SELECT id FROM runs WHERE benchmark_slug = ?1 AND run_key = ?2 AND org = ?3",
                    [slug, key, &self.org()],
                    |row| row.get(0),
                )
                .optional()?,
            None => None,
        };
        let run_id = match existing {
            Some(id) => id,
            None => {
                let count: i64 = self.db.query_row(
                    "SELECT COUNT(*) FROM runs WHERE benchmark_slug = ?1 AND org = ?2",
                    [slug, &self.org()],
                    |row| row.get(0),
                )?;
                let id = random_id("run")?;
                let name = format!("{} #{}", benchmark.name, count + 1);
                let config = (!body.config.is_null()).then(|| body.config.to_string());
                self.db.execute(
                    "INSERT INTO runs (id, benchmark_slug, name, run_key, total_tasks, worker_count, config, created_at, org)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![
                        id,
                        slug,
                        name,
                        body.run_key,
                        body.total_tasks,
                        body.worker_count,
                        config,
                        now(),
                        self.org()
                    ],
                )?;
                for name in body.participants.iter().flatten() {
                    self.put_participant(&id, name, body.total_tasks.unwrap_or(0))?;
                }
                id
            }
        };
        Ok(CreateRunAnswer {
            run: self.run(slug, &run_id)?,
            participants: self.participants(&run_id)?,
            organization_slug: Some(self.org()),
        })
    }

    fn put_participant(&self, run_id: &str, name: &str, total: u64) -> Result<(), Refusal> {
        self.db.execute(
            "INSERT INTO participants (run_id, name, total_tasks, position, created_at)
             VALUES (?1, ?2, ?3, (SELECT COUNT(*) FROM participants WHERE run_id = ?1), ?4)
             ON CONFLICT (run_id, name) DO UPDATE SET total_tasks = ?3",
            params![run_id, name, total, now()],
        )?;
        Ok(())
    }

    fn participants(&self, run_id: &str) -> Result<Vec<Participant>, Refusal> {
        self.rows(
            "SELECT name, total_tasks, created_at FROM participants WHERE run_id = ?1 ORDER BY position",
            [run_id],
            participant_row,
        )
    }

    /// A participant of a run.
    pub(super) fn participant(&self, run_id: &str, name: &str) -> Result<Participant, Refusal> {
        self.db
            .query_row(
                "SELECT name, total_tasks, created_at FROM participants WHERE run_id = ?1 AND name = ?2",
                [run_id, name],
                participant_row,
            )
            .optional()?
            .ok_or_else(|| Refusal::not_found("Participant"))
    }

    /// `GET .../runs/{runId}/participants`.
    pub(crate) fn list_participants(
        &self,
        slug: &str,
        run_id: &str,
    ) -> Result<Items<Participant>, Refusal> {
        self.run(slug, run_id)?;
        Ok(Items {
            items: self.participants(run_id)?,
        })
    }

    /// `PUT .../participants/{p}`: registers a participant of a shared run, or changes its
    /// schedule length.
    pub(crate) fn upsert_participant(
        &self,
        slug: &str,
        run_id: &str,
        name: &str,
        body: &UpsertParticipant,
    ) -> Result<ParticipantAnswer, Refusal> {
        at_most("totalTasks", Some(body.total_tasks), MAX_TASKS)?;
        self.run(slug, run_id)?;
        self.put_participant(run_id, name, body.total_tasks)?;
        Ok(ParticipantAnswer {
            participant: self.participant(run_id, name)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::store;
    use super::*;
    use serde_json::json;

    fn upsert(name: &str) -> UpsertBenchmark {
        UpsertBenchmark {
            name: name.into(),
            config: None,
        }
    }

    #[test]
    fn the_largest_run_bench_run_plans_is_stored() {
        let manifest: bench_model::plan::RunManifest = serde_json::from_value(json!({
            "benchmarkSlug": "s", "benchmarkName": "S", "iterations": u32::MAX,
            "concurrency": 1, "staggerDelayMs": 0, "groupBy": "participant",
            "participants": ["a", "b"], "runId": "r", "startedAt": "x",
            "component": {"path": "task.wasm", "sha256": "00", "sizeBytes": 1},
            "host": {"benchVersion": "0", "wasmtimeVersion": "0", "os": "linux", "arch": "x86_64"},
        }))
        .unwrap();
        let ledger = crate::new_ledger(&manifest, "http://h/api/v1", true, None).unwrap();
        let (_dir, store) = store();
        store
            .upsert_benchmark("s", ledger.upsert.as_ref().unwrap())
            .unwrap();
        let created = store.create_run("s", &ledger.create_run).unwrap();
        assert_eq!(created.run.planned_tasks, 2 * u64::from(u32::MAX));
    }

    #[test]
    fn a_run_needs_its_benchmark() {
        let (_dir, store) = store();
        let refused = store
            .create_run("missing", &CreateRun::shared("k", json!({})))
            .unwrap_err();
        assert_eq!(refused, Refusal::not_found("Benchmark"));
        assert_eq!(refused.message, "Benchmark not found.");
    }

    #[test]
    fn a_run_key_returns_the_same_run_and_runs_are_numbered() {
        let (_dir, store) = store();
        store.upsert_benchmark("s", &upsert("S")).unwrap();
        let shared = CreateRun::shared("ci-1", json!({"concurrency": 1}));
        let first = store.create_run("s", &shared).unwrap();
        let second = store.create_run("s", &shared).unwrap();
        assert_eq!(first.run.id, second.run.id);
        assert_eq!(first.run.name.as_deref(), Some("S #1"));
        assert_eq!(first.run.run_key.as_deref(), Some("ci-1"));
        assert_eq!(first.run.config, json!({"concurrency": 1}));
        assert_eq!(first.organization_slug.as_deref(), Some("local"));
        let own = CreateRun::own(3, vec!["b".into(), "a".into()], json!({}));
        let own = store.create_run("s", &own).unwrap();
        assert_eq!(own.run.name.as_deref(), Some("S #2"));
        let names: Vec<&str> = own.participants.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["b", "a"], "in the order given");
        assert_eq!(own.participants[0].total_tasks, 3);
        let listed = store.list_runs("s", Page::default()).unwrap();
        assert_eq!(listed.items.len(), 2);
        assert_eq!(listed.items[0].id, own.run.id, "newest first");
    }

    #[test]
    fn a_run_is_complete_only_when_every_planned_task_is_recorded() {
        let tally = |pending, running, failed, interrupted, unplanned, recorded| RunTally {
            workers: 2,
            pending,
            running,
            failed,
            interrupted,
            unplanned,
            planned: 10,
            recorded,
        };
        assert_eq!(tally(2, 0, 0, 0, 0, 0).status(), RunStatus::Pending);
        assert_eq!(tally(1, 1, 0, 0, 0, 3).status(), RunStatus::Running);
        assert_eq!(
            tally(0, 0, 0, 0, 1, 5).status(),
            RunStatus::Running,
            "a participant without a worker yet"
        );
        assert_eq!(tally(0, 0, 0, 0, 0, 10).status(), RunStatus::Completed);
        assert_eq!(tally(0, 0, 1, 0, 0, 10).status(), RunStatus::Failed);
        assert_eq!(tally(0, 0, 1, 0, 0, 9).status(), RunStatus::Partial);
        assert_eq!(tally(0, 0, 2, 1, 0, 4).status(), RunStatus::Interrupted);
    }

    #[test]
    fn an_upsert_keeps_the_config_when_the_body_has_none() {
        let (_dir, store) = store();
        let with_config = UpsertBenchmark {
            name: "S".into(),
            config: Some(crate::api::types::BenchmarkConfig {
                scoring: None,
                display: Some(json!({"metrics": []})),
            }),
        };
        store.upsert_benchmark("s", &with_config).unwrap();
        let renamed = store.upsert_benchmark("s", &upsert("Renamed")).unwrap();
        assert_eq!(renamed.benchmark.name, "Renamed");
        assert_eq!(
            renamed.benchmark.config,
            json!({"display": {"metrics": []}})
        );
        let blank = store.upsert_benchmark("s", &upsert(" ")).unwrap_err();
        assert_eq!(blank, Refusal::bad_request("name is required"));
    }
}
