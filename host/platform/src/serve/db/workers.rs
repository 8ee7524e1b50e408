//! Workers: each a range of one participant's tasks, planned once, claimed by one attempt
//! at a time, kept alive by heartbeats and ended by `complete`, `fail` or `release`.

use super::{at_most, now, random_id, typed_column, Refusal, Store};
use crate::api::bounds::{MAX_TASKS, MAX_WORKERS};
use crate::api::types::{
    Attempt, ClaimAnswer, ClaimWorker, FinishWorker, FinishWorkerAnswer, Heartbeat, Items,
    PlanWorkers, TaskRange, Worker, WorkerAnswer, WorkerAssignment, WorkerOutcome, WorkerStatus,
};
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSqlOutput, ValueRef};
use rusqlite::{params, OptionalExtension, Row, ToSql};

impl WorkerStatus {
    fn as_str(self) -> &'static str {
        match self {
            WorkerStatus::Pending => "pending",
            WorkerStatus::Running => "running",
            WorkerStatus::Completed => "completed",
            WorkerStatus::Failed => "failed",
        }
    }
}

impl ToSql for WorkerStatus {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for WorkerStatus {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        [
            WorkerStatus::Pending,
            WorkerStatus::Running,
            WorkerStatus::Completed,
            WorkerStatus::Failed,
        ]
        .into_iter()
        .find(|status| value.as_str() == Ok(status.as_str()))
        .ok_or(FromSqlError::InvalidType)
    }
}

const WORKER_COLUMNS: &str =
    "id, run_id, participant, range_start, range_count, target_concurrency, \
    status, attempt_id, progress, error_code, error_message, updated_at";

fn worker_row(row: &Row<'_>) -> rusqlite::Result<Worker> {
    let start: u64 = row.get(3)?;
    let count: u64 = row.get(4)?;
    Ok(Worker {
        id: row.get(0)?,
        run_id: row.get(1)?,
        participant: row.get(2)?,
        task_range: TaskRange {
            start,
            end: start + count,
            count,
        },
        target_concurrency: row.get(5)?,
        status: row.get(6)?,
        attempt_id: row.get(7)?,
        progress: typed_column(row.get(8)?),
        error_code: row.get(9)?,
        error_message: row.get(10)?,
        updated_at: row.get(11)?,
    })
}

/// Where worker `index` of `count` starts in a range of `total` tasks.
fn split_point(total: u64, index: u64, count: u64) -> u64 {
    (u128::from(total) * u128::from(index) / u128::from(count)) as u64
}

impl Store {
    fn workers(&self, run_id: &str, participant: &str) -> Result<Vec<Worker>, Refusal> {
        let sql = format!(
            "SELECT {WORKER_COLUMNS} FROM workers WHERE run_id = ?1 AND participant = ?2 ORDER BY range_start"
        );
        self.rows(&sql, [run_id, participant], worker_row)
    }

    /// A worker of a run.
    pub(super) fn worker(&self, run_id: &str, worker_id: &str) -> Result<Worker, Refusal> {
        let sql = format!("SELECT {WORKER_COLUMNS} FROM workers WHERE run_id = ?1 AND id = ?2");
        self.db
            .query_row(&sql, [run_id, worker_id], worker_row)
            .optional()?
            .ok_or_else(|| Refusal::not_found("Worker"))
    }

    /// The worker, when `attempt_id` is its current attempt; a conflict otherwise.
    pub(super) fn attempt(
        &self,
        run_id: &str,
        worker_id: &str,
        attempt_id: &str,
    ) -> Result<Worker, Refusal> {
        let worker = self.worker(run_id, worker_id)?;
        if worker.attempt_id.as_deref() != Some(attempt_id) {
            return Err(Refusal::conflict(format!(
                "Attempt {attempt_id} is not the current attempt of worker {worker_id}."
            )));
        }
        Ok(worker)
    }

    /// `GET .../participants/{p}/workers`.
    pub(crate) fn list_workers(
        &self,
        slug: &str,
        run_id: &str,
        participant: &str,
    ) -> Result<Items<Worker>, Refusal> {
        self.run(slug, run_id)?;
        Ok(Items {
            items: self.workers(run_id, participant)?,
        })
    }

    /// `POST .../participants/{p}/workers`: splits the participant's tasks over
    /// `workerCount` (default 1, at most one per task) workers, once.
    pub(crate) fn plan_workers(
        &self,
        slug: &str,
        run_id: &str,
        participant: &str,
        body: &PlanWorkers,
    ) -> Result<Items<Worker>, Refusal> {
        at_most("workerCount", body.worker_count, MAX_WORKERS)?;
        at_most("targetConcurrency", body.target_concurrency, MAX_TASKS)?;
        self.run(slug, run_id)?;
        let total = self.participant(run_id, participant)?.total_tasks;
        if self.workers(run_id, participant)?.is_empty() {
            let count = body.worker_count.unwrap_or(1).clamp(1, total.max(1));
            let at = now();
            for index in 0..count {
                let start = split_point(total, index, count);
                let end = split_point(total, index + 1, count);
                self.db.execute(
                    "INSERT INTO workers (id, run_id, participant, range_start, range_count, target_concurrency,
                     status, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
                    params![
                        random_id("wk")?,
                        run_id,
                        participant,
                        start,
                        end - start,
                        body.target_concurrency,
                        WorkerStatus::Pending,
                        at
                    ],
                )?;
            }
        }
        Ok(Items {
            items: self.workers(run_id, participant)?,
        })
    }

    /// `POST .../participants/{p}/workers/claim`: the first pending worker, or no
    /// assignment when every worker is taken.
    pub(crate) fn claim_worker(
        &self,
        slug: &str,
        run_id: &str,
        participant: &str,
        body: &ClaimWorker,
    ) -> Result<ClaimAnswer, Refusal> {
        self.run(slug, run_id)?;
        let pending = self
            .workers(run_id, participant)?
            .into_iter()
            .find(|worker| worker.status == WorkerStatus::Pending);
        let Some(worker) = pending else {
            return Ok(ClaimAnswer { assignment: None });
        };
        let attempt_id = random_id("att")?;
        self.db.execute(
            "UPDATE workers SET status = ?1, attempt_id = ?2, process_kind = ?3, process_key = ?4,
             updated_at = ?5 WHERE id = ?6",
            params![
                WorkerStatus::Running,
                attempt_id,
                body.process_kind,
                body.process_key,
                now(),
                worker.id
            ],
        )?;
        Ok(ClaimAnswer {
            assignment: Some(WorkerAssignment {
                worker_id: Some(worker.id),
                attempt_id: Some(attempt_id),
                worker: None,
                attempt: None,
                participant: participant.to_owned(),
                task_range: worker.task_range,
                target_concurrency: worker.target_concurrency,
            }),
        })
    }

    /// `POST .../workers/{w}/heartbeat`: stores the progress of the current attempt.
    pub(crate) fn heartbeat(
        &self,
        slug: &str,
        run_id: &str,
        worker_id: &str,
        body: &Heartbeat,
    ) -> Result<WorkerAnswer, Refusal> {
        self.run(slug, run_id)?;
        self.attempt(run_id, worker_id, &body.attempt_id)?;
        let progress = serde_json::to_string(&body.progress)
            .map_err(|error| Refusal::bad_request(format!("progress: {error}")))?;
        self.db.execute(
            "UPDATE workers SET progress = ?1, updated_at = ?2 WHERE id = ?3",
            params![progress, now(), worker_id],
        )?;
        Ok(WorkerAnswer {
            worker: self.worker(run_id, worker_id)?,
        })
    }

    /// `POST .../workers/{w}/complete|fail|release`: ends the current attempt; a released
    /// worker is pending again.
    pub(crate) fn finish_worker(
        &self,
        slug: &str,
        run_id: &str,
        worker_id: &str,
        outcome: WorkerOutcome,
        body: &FinishWorker,
    ) -> Result<FinishWorkerAnswer, Refusal> {
        self.run(slug, run_id)?;
        self.attempt(run_id, worker_id, &body.attempt_id)?;
        let status = match outcome {
            WorkerOutcome::Complete => WorkerStatus::Completed,
            WorkerOutcome::Fail => WorkerStatus::Failed,
            WorkerOutcome::Release => WorkerStatus::Pending,
        };
        self.db.execute(
            "UPDATE workers SET status = ?1, error_code = ?2, error_message = ?3, updated_at = ?4,
             attempt_id = CASE WHEN ?1 = 'pending' THEN NULL ELSE attempt_id END WHERE id = ?5",
            params![
                status,
                body.error_code,
                body.error_message,
                now(),
                worker_id
            ],
        )?;
        Ok(FinishWorkerAnswer {
            worker: self.worker(run_id, worker_id)?,
            attempt: Attempt {
                id: body.attempt_id.clone(),
                status,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::store;
    use super::*;
    use crate::api::types::{CreateRun, Progress, RunStatus, UpsertBenchmark, UpsertParticipant};
    use serde_json::json;

    /// A shared run of benchmark `s` with participant `e2b` of `total` tasks.
    fn shared_run(store: &Store, total: u64) -> String {
        let benchmark = UpsertBenchmark {
            name: "S".into(),
            config: None,
        };
        store.upsert_benchmark("s", &benchmark).unwrap();
        let created = store
            .create_run("s", &CreateRun::shared("ci-1", json!({})))
            .unwrap();
        let run_id = created.run.id;
        let participant = UpsertParticipant { total_tasks: total };
        store
            .upsert_participant("s", &run_id, "e2b", &participant)
            .unwrap();
        run_id
    }

    #[test]
    fn planned_workers_split_the_range_once() {
        let (_dir, store) = store();
        let run_id = shared_run(&store, 10);
        let plan = PlanWorkers {
            worker_count: Some(3),
            target_concurrency: Some(2),
        };
        let workers = store.plan_workers("s", &run_id, "e2b", &plan).unwrap();
        let ranges: Vec<(u64, u64)> = workers
            .items
            .iter()
            .map(|worker| (worker.task_range.start, worker.task_range.end))
            .collect();
        assert_eq!(ranges, [(0, 3), (3, 6), (6, 10)]);
        let again = store.plan_workers("s", &run_id, "e2b", &plan).unwrap();
        assert_eq!(again, workers, "planned once");
    }

    #[test]
    fn a_claim_takes_the_next_pending_worker_until_none_is_left() {
        let (_dir, store) = store();
        let run_id = shared_run(&store, 2);
        store
            .plan_workers("s", &run_id, "e2b", &PlanWorkers::default())
            .unwrap();
        let claim = store
            .claim_worker("s", &run_id, "e2b", &ClaimWorker::default())
            .unwrap();
        let assignment = claim.assignment.unwrap();
        assert_eq!(
            assignment.task_range,
            TaskRange {
                start: 0,
                end: 2,
                count: 2
            }
        );
        assert_eq!(
            store.get_run("s", &run_id).unwrap().run.status,
            RunStatus::Running
        );
        let again = store
            .claim_worker("s", &run_id, "e2b", &ClaimWorker::default())
            .unwrap();
        assert_eq!(again.assignment, None);

        let worker_id = assignment.worker_id.unwrap();
        let stale = Heartbeat {
            attempt_id: "att_old".into(),
            progress: Progress::default(),
        };
        let refused = store
            .heartbeat("s", &run_id, &worker_id, &stale)
            .unwrap_err();
        assert_eq!(refused.status, axum::http::StatusCode::CONFLICT);
        let attempt_id = assignment.attempt_id.unwrap();
        let beat = Heartbeat {
            attempt_id: attempt_id.clone(),
            progress: Progress {
                progress_done: 1,
                progress_total: 2,
                ..Progress::default()
            },
        };
        let beaten = store.heartbeat("s", &run_id, &worker_id, &beat).unwrap();
        assert_eq!(beaten.worker.progress, Some(beat.progress));

        let finish = FinishWorker {
            attempt_id,
            error_code: None,
            error_message: None,
        };
        let released = store
            .finish_worker("s", &run_id, &worker_id, WorkerOutcome::Release, &finish)
            .unwrap();
        assert_eq!(released.worker.status, WorkerStatus::Pending);
        assert_eq!(released.worker.attempt_id, None);
        let reclaimed = store
            .claim_worker("s", &run_id, "e2b", &ClaimWorker::default())
            .unwrap()
            .assignment
            .unwrap();
        let finish = FinishWorker {
            attempt_id: reclaimed.attempt_id.unwrap(),
            ..finish
        };
        store
            .finish_worker("s", &run_id, &worker_id, WorkerOutcome::Complete, &finish)
            .unwrap();
        let run = store.get_run("s", &run_id).unwrap().run;
        assert_eq!(
            (run.status, run.recorded_tasks, run.planned_tasks),
            (RunStatus::Partial, 0, 2),
            "completed without its tasks"
        );
    }
}
