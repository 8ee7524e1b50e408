//! What runs produce: batches of task records (each batch stored once, each task once: a
//! batch that repeats a task or holds another worker's is refused), run summaries, and the
//! results read back from them.

use super::{bounds, json_column, now, random_id, typed_column, Refusal, Store};
use crate::api::bounds::MAX_BATCH_RECORDS;
use crate::api::types::Worker;
use crate::api::types::{
    Acknowledged, BenchmarkResult, CursorPage, Items, Page, RunResults, RunSummary, TaskCounts,
    TaskResults, TaskResultsAnswer,
};
use rusqlite::{params, OptionalExtension};
use std::collections::HashSet;

/// Task records per page when the query names no `limit`.
const DEFAULT_RECORDS_PAGE: u32 = 1_000;

/// Most task records per page.
const MAX_RECORDS_PAGE: u32 = 5_000;
use serde_json::{Map, Value};

impl Store {
    /// `POST .../workers/{w}/events`: a batch of task records of the current attempt,
    /// stored once per `(attemptId, sequenceNumber)`; a repeat is acknowledged as a
    /// duplicate.
    pub(crate) fn task_results(
        &self,
        slug: &str,
        run_id: &str,
        worker_id: &str,
        body: &TaskResults,
    ) -> Result<TaskResultsAnswer, Refusal> {
        self.run(slug, run_id)?;
        let worker = self.attempt(run_id, worker_id, &body.attempt_id)?;
        if body.records.len() > MAX_BATCH_RECORDS {
            return Err(Refusal::bad_request(format!(
                "Benchmark task result batches are limited to {MAX_BATCH_RECORDS} records."
            )));
        }
        let existing: Option<String> = self
            .db
            .query_row(
                "SELECT id FROM event_batches WHERE worker_id = ?1 AND attempt_id = ?2 AND sequence_number = ?3",
                params![worker_id, body.attempt_id, body.sequence_number],
                |row| row.get(0),
            )
            .optional()?;
        if let Some(id) = existing {
            return Ok(TaskResultsAnswer {
                accepted: 0,
                event_batch_id: id,
                queued: false,
                duplicate: true,
            });
        }
        self.refuse_unplanned(run_id, &worker, &body.records)?;
        let id = random_id("evb")?;
        self.db.execute(
            "INSERT INTO event_batches (id, worker_id, attempt_id, sequence_number, is_final, record_count, received_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                id,
                worker_id,
                body.attempt_id,
                body.sequence_number,
                body.is_final,
                body.records.len(),
                now()
            ],
        )?;
        let mut insert = self.db.prepare(
            "INSERT INTO task_results (run_id, participant, worker_id, batch_id, task_index, status, record)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for record in &body.records {
            insert.execute(params![
                run_id,
                worker.participant,
                worker_id,
                id,
                record["taskIndex"].as_i64(),
                record["status"].as_str(),
                record.to_string()
            ])?;
        }
        self.db.execute(
            "UPDATE workers SET recorded = recorded + ?1 WHERE id = ?2",
            params![body.records.len(), worker_id],
        )?;
        Ok(TaskResultsAnswer {
            accepted: body.records.len(),
            event_batch_id: id,
            queued: false,
            duplicate: false,
        })
    }

    /// Refuses a batch unless each of its records is a new task of the worker: it has a
    /// `taskIndex`, not before the worker's range, not one the worker (or the batch) has
    /// already, not in the range of another worker of the participant. Past the end of the
    /// range is allowed (a run with a load model records as many tasks as its time allowed);
    /// the run's status counts no more than the range.
    fn refuse_unplanned(
        &self,
        run_id: &str,
        worker: &Worker,
        records: &[Value],
    ) -> Result<(), Refusal> {
        let mut recorded = self.db.prepare_cached(
            "SELECT 1 FROM task_results WHERE worker_id = ?1 AND task_index = ?2 LIMIT 1",
        )?;
        let mut elsewhere = self.db.prepare_cached(
            "SELECT id FROM workers WHERE run_id = ?1 AND participant = ?2 AND id != ?3
               AND ?4 >= range_start AND ?4 < range_start + range_count LIMIT 1",
        )?;
        let range = worker.task_range;
        let mut seen = HashSet::new();
        for (position, record) in records.iter().enumerate() {
            let refuse = |why: String| {
                Err(Refusal::bad_request(format!(
                    "Record {position} of the batch {why}; each task of a run is recorded once, by its worker."
                )))
            };
            let Some(index) = record["taskIndex"].as_u64() else {
                return refuse("has no taskIndex".into());
            };
            if index < range.start {
                return refuse(format!(
                    "is task {index}, before the range of worker {} (from {})",
                    worker.id, range.start
                ));
            }
            let repeated =
                !seen.insert(index) || recorded.exists(params![worker.id, index as i64])?;
            if repeated {
                return refuse(format!(
                    "repeats task {index}, already recorded for worker {}",
                    worker.id
                ));
            }
            if index >= range.end {
                let other: Option<String> = elsewhere
                    .query_row(
                        params![run_id, worker.participant, worker.id, index as i64],
                        |row| row.get(0),
                    )
                    .optional()?;
                if let Some(other) = other {
                    return refuse(format!("is task {index} of worker {other}"));
                }
            }
        }
        Ok(())
    }

    /// `GET .../runs/{runId}/iterations?type=tasks[&participant=p]`: a page of the stored
    /// task records, each with its participant first, per participant in arrival order,
    /// from `cursor` (`<position>.<seq>` of the last record before), at most `limit`.
    pub(crate) fn task_records(
        &self,
        slug: &str,
        run_id: &str,
        participant: Option<&str>,
        cursor: Option<&str>,
        limit: Option<u32>,
    ) -> Result<CursorPage<Value>, Refusal> {
        let limit = limit.unwrap_or(DEFAULT_RECORDS_PAGE);
        if !(1..=MAX_RECORDS_PAGE).contains(&limit) {
            return Err(Refusal::bad_request(format!(
                "limit must be between 1 and {MAX_RECORDS_PAGE} (got {limit})"
            )));
        }
        let (after_position, after_seq) = match cursor {
            None => (-1, -1),
            Some(cursor) => cursor
                .split_once('.')
                .and_then(|(position, seq)| Some((position.parse().ok()?, seq.parse().ok()?)))
                .ok_or_else(|| {
                    Refusal::bad_request(format!("cursor is not one of ours: {cursor:?}"))
                })?,
        };
        self.run(slug, run_id)?;
        let mut rows: Vec<(i64, i64, Value)> = self.rows(
            "SELECT COALESCE(p.position, -1), t.seq, t.participant, t.record FROM task_results t
             LEFT JOIN participants p ON p.run_id = t.run_id AND p.name = t.participant
             WHERE t.run_id = ?1 AND (?2 IS NULL OR t.participant = ?2)
               AND (COALESCE(p.position, -1), t.seq) > (?3, ?4)
             ORDER BY COALESCE(p.position, -1), t.seq
             LIMIT ?5",
            params![run_id, participant, after_position, after_seq, limit + 1],
            |row| {
                let mut item = Map::new();
                item.insert("participant".into(), Value::String(row.get(2)?));
                if let Value::Object(fields) = json_column(row.get(3)?) {
                    item.extend(fields);
                }
                Ok((row.get(0)?, row.get(1)?, Value::Object(item)))
            },
        )?;
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        let next_cursor = more
            .then(|| {
                rows.last()
                    .map(|(position, seq, _)| format!("{position}.{seq}"))
            })
            .flatten();
        Ok(CursorPage {
            items: rows.into_iter().map(|(_, _, item)| item).collect(),
            next_cursor,
        })
    }

    /// Where a run's stored task records end now: the arrival number of its last one (0
    /// without any).
    pub(crate) fn last_task_record(&self, run_id: &str) -> Result<i64, Refusal> {
        Ok(self.db.query_row(
            "SELECT COALESCE(MAX(seq), 0) FROM task_results WHERE run_id = ?1",
            [run_id],
            |row| row.get(0),
        )?)
    }

    /// At most `limit` stored task records of a run that arrived after `after` and no later
    /// than `last`, in arrival order: each one's arrival number, participant and JSON text.
    /// The caller checked that the run is the caller's.
    pub(crate) fn task_record_slice(
        &self,
        run_id: &str,
        after: i64,
        last: i64,
        limit: usize,
    ) -> Result<Vec<(i64, String, String)>, Refusal> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.rows(
            "SELECT seq, participant, record FROM task_results
             WHERE run_id = ?1 AND seq > ?2 AND seq <= ?3 ORDER BY seq LIMIT ?4",
            params![run_id, after, last, limit],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
    }

    /// `POST .../runs/{runId}/summary`: stores (replaces) the run summary.
    pub(crate) fn submit_summary(
        &self,
        slug: &str,
        run_id: &str,
        body: &RunSummary,
    ) -> Result<Acknowledged, Refusal> {
        self.run(slug, run_id)?;
        let text = serde_json::to_string(body)
            .map_err(|error| Refusal::bad_request(format!("summary: {error}")))?;
        self.db.execute(
            "INSERT OR REPLACE INTO summaries (run_id, body, submitted_at) VALUES (?1, ?2, ?3)",
            params![run_id, text, now()],
        )?;
        Ok(Acknowledged { ok: true })
    }

    fn summary(&self, run_id: &str) -> Result<Option<RunSummary>, Refusal> {
        let text = self
            .db
            .query_row(
                "SELECT body FROM summaries WHERE run_id = ?1",
                [run_id],
                |row| row.get(0),
            )
            .optional()?;
        Ok(typed_column(text))
    }

    /// `GET .../runs/{runId}/results`: the run, its submitted summary and task counts.
    pub(crate) fn run_results(&self, slug: &str, run_id: &str) -> Result<RunResults, Refusal> {
        let run = self.run(slug, run_id)?;
        let summary = self.summary(run_id)?;
        let tasks = self.rows(
            "SELECT participant, COUNT(*), COALESCE(SUM(status = 'success'), 0) FROM task_results
             WHERE run_id = ?1 GROUP BY participant",
            [run_id],
            |row| {
                Ok(TaskCounts {
                    participant: row.get(0)?,
                    tasks: row.get(1)?,
                    succeeded: row.get(2)?,
                })
            },
        )?;
        let (summary, results, scoring) = match summary {
            Some(summary) => (
                summary.run,
                summary.results,
                summary.scoring.unwrap_or_default(),
            ),
            None => (Value::Null, Vec::new(), Value::Null),
        };
        Ok(RunResults {
            run,
            summary,
            results,
            scoring,
            tasks,
        })
    }

    /// `GET /benchmarks/{slug}/results`: the summary rows of each scored run, newest first.
    pub(crate) fn benchmark_results(
        &self,
        slug: &str,
        page: Page,
    ) -> Result<Items<BenchmarkResult>, Refusal> {
        self.get_benchmark(slug)?;
        let (limit, offset) = bounds(page);
        let items = self.rows(
            "SELECT r.id, r.name, s.body FROM summaries s JOIN runs r ON r.id = s.run_id
             WHERE r.benchmark_slug = ?1 AND r.org = ?4
             ORDER BY r.created_at DESC, r.rowid DESC LIMIT ?2 OFFSET ?3",
            params![slug, limit, offset, self.org()],
            |row| {
                let summary: Option<RunSummary> = typed_column(row.get(2)?);
                Ok(BenchmarkResult {
                    run_id: row.get(0)?,
                    run_name: row.get(1)?,
                    results: summary.map_or(Value::Null, |summary| summary.results.into()),
                })
            },
        )?;
        Ok(Items { items })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{claimed, store};
    use super::*;
    use crate::api::types::{ClaimWorker, CreateRun, EventKind, PlanWorkers};
    use serde_json::json;

    #[test]
    fn task_records_are_read_page_by_page_from_a_cursor() {
        let (_dir, store) = store();
        let (run_id, worker_id, attempt_id) = claimed(&store);
        let batch = TaskResults {
            kind: EventKind::TaskResults,
            attempt_id,
            sequence_number: 0,
            is_final: true,
            records: (0..5).map(|index| json!({"taskIndex": index})).collect(),
        };
        store
            .task_results("s", &run_id, &worker_id, &batch)
            .unwrap();
        let mut cursor = None;
        let mut seen = Vec::new();
        let mut pages = 0;
        loop {
            let page = store
                .task_records("s", &run_id, None, cursor.as_deref(), Some(2))
                .unwrap();
            pages += 1;
            seen.extend(page.items.iter().map(|item| item["taskIndex"].clone()));
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(pages, 3);
        assert_eq!(seen, (0..5).map(|index| json!(index)).collect::<Vec<_>>());
        let last = store.last_task_record(&run_id).unwrap();
        let first = store.task_record_slice(&run_id, 0, last, 3).unwrap();
        let rest = store
            .task_record_slice(&run_id, first[2].0, last, 3)
            .unwrap();
        let texts: Vec<String> = first
            .iter()
            .chain(&rest)
            .map(|(_, participant, text)| format!("{participant} {text}"))
            .collect();
        let expected: Vec<String> = (0..5)
            .map(|index| format!("e2b {}", json!({"taskIndex": index})))
            .collect();
        assert_eq!(texts, expected);
        assert!(store
            .task_record_slice(&run_id, last, last, 3)
            .unwrap()
            .is_empty());
        assert_eq!(
            store
                .task_records("s", &run_id, None, Some("x"), None)
                .unwrap_err(),
            Refusal::bad_request("cursor is not one of ours: \"x\"")
        );
        assert_eq!(
            store
                .task_records("s", &run_id, None, None, Some(5001))
                .unwrap_err(),
            Refusal::bad_request("limit must be between 1 and 5000 (got 5001)")
        );
    }

    #[test]
    fn a_batch_is_stored_once_and_read_back_with_its_participant() {
        let (_dir, store) = store();
        let (run_id, worker_id, attempt_id) = claimed(&store);
        let batch = TaskResults {
            kind: EventKind::TaskResults,
            attempt_id,
            sequence_number: 0,
            is_final: true,
            records: vec![json!({"taskIndex": 0, "status": "success"})],
        };
        let first = store
            .task_results("s", &run_id, &worker_id, &batch)
            .unwrap();
        assert_eq!((first.accepted, first.duplicate), (1, false));
        let repeat = store
            .task_results("s", &run_id, &worker_id, &batch)
            .unwrap();
        assert_eq!((repeat.accepted, repeat.duplicate), (0, true));
        assert_eq!(repeat.event_batch_id, first.event_batch_id);
        let records = store.task_records("s", &run_id, None, None, None).unwrap();
        assert_eq!(
            serde_json::to_string(&records.items).unwrap(),
            r#"[{"participant":"e2b","taskIndex":0,"status":"success"}]"#
        );
        let results = store.run_results("s", &run_id).unwrap();
        assert_eq!(
            results.tasks,
            [TaskCounts {
                participant: "e2b".into(),
                tasks: 1,
                succeeded: 1
            }]
        );
    }

    #[test]
    fn a_batch_that_repeats_a_task_or_holds_another_workers_is_refused() {
        let (_dir, store) = store();
        let (run_id, worker_id, attempt_id) = claimed(&store);
        let batch = |sequence_number, records: Vec<Value>| TaskResults {
            kind: EventKind::TaskResults,
            attempt_id: attempt_id.clone(),
            sequence_number,
            is_final: false,
            records,
        };
        store
            .task_results(
                "s",
                &run_id,
                &worker_id,
                &batch(0, vec![json!({"taskIndex": 0})]),
            )
            .unwrap();
        for (records, says) in [
            (
                vec![json!({"taskIndex": 0})],
                "Record 0 of the batch repeats task 0, already recorded for worker",
            ),
            (
                vec![json!({"taskIndex": 1}), json!({"taskIndex": 1})],
                "Record 1 of the batch repeats task 1",
            ),
            (
                vec![json!({"status": "success"})],
                "Record 0 of the batch has no taskIndex",
            ),
        ] {
            let refused = store
                .task_results("s", &run_id, &worker_id, &batch(1, records))
                .unwrap_err();
            assert!(refused.message.starts_with(says), "{}", refused.message);
        }
        // Past the range (a run with a load model) is kept; the run counts its plan.
        let past = vec![json!({"taskIndex": 1}), json!({"taskIndex": 2})];
        store
            .task_results("s", &run_id, &worker_id, &batch(1, past))
            .unwrap();
        assert_eq!(store.get_run("s", &run_id).unwrap().run.recorded_tasks, 2);

        let own = CreateRun::own(4, vec!["p".into()], json!({}));
        let split = store.create_run("s", &own).unwrap().run.id;
        let two = PlanWorkers {
            worker_count: Some(2),
            target_concurrency: None,
        };
        store.plan_workers("s", &split, "p", &two).unwrap();
        let first = store
            .claim_worker("s", &split, "p", &ClaimWorker::default())
            .unwrap()
            .assignment
            .unwrap();
        let body = TaskResults {
            attempt_id: first.attempt_id.clone().unwrap(),
            ..batch(0, vec![json!({"taskIndex": 3})])
        };
        let refused = store
            .task_results("s", &split, first.worker_id.as_deref().unwrap(), &body)
            .unwrap_err();
        assert!(
            refused
                .message
                .starts_with("Record 0 of the batch is task 3 of worker wk_"),
            "{}",
            refused.message
        );
    }

    #[test]
    fn an_oversized_batch_is_refused() {
        let (_dir, store) = store();
        let (run_id, worker_id, attempt_id) = claimed(&store);
        let batch = TaskResults {
            kind: EventKind::TaskResults,
            attempt_id,
            sequence_number: 0,
            is_final: false,
            records: vec![json!({}); MAX_BATCH_RECORDS + 1],
        };
        let refused = store
            .task_results("s", &run_id, &worker_id, &batch)
            .unwrap_err();
        assert_eq!(
            refused,
            Refusal::bad_request("Benchmark task result batches are limited to 5000 records.")
        );
    }

    #[test]
    fn a_submitted_summary_is_the_run_result() {
        let (_dir, store) = store();
        let (run_id, _, _) = claimed(&store);
        let empty = store.run_results("s", &run_id).unwrap();
        assert_eq!((empty.summary, empty.results.len()), (Value::Null, 0));
        let summary = RunSummary {
            run: json!({"triggeredBy": "manual"}),
            results: vec![json!({"provider": "e2b"})],
            scoring: None,
            load: None,
        };
        store.submit_summary("s", &run_id, &summary).unwrap();
        let results = store.run_results("s", &run_id).unwrap();
        assert_eq!(results.summary, summary.run);
        assert_eq!(results.results, summary.results);
        assert_eq!(results.scoring, Value::Null);
        let listed = store.benchmark_results("s", Page::default()).unwrap();
        assert_eq!(listed.items[0].run_id, run_id);
        assert_eq!(listed.items[0].results, json!([{"provider": "e2b"}]));
    }
}
