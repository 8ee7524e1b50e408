//! The self-hosted platform's storage: one SQLite database holding API keys, benchmarks,
//! runs, participants, workers, task-result batches, artifacts and run summaries. Every
//! operation returns the JSON the API answers with.

use bench_runtime::js;
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;
use std::time::SystemTime;

/// The organization every API key of a self-hosted platform belongs to.
pub const ORG_SLUG: &str = "local";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS api_keys (hash TEXT PRIMARY KEY, prefix TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS benchmarks (slug TEXT PRIMARY KEY, name TEXT NOT NULL, config TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, benchmark_slug TEXT NOT NULL, name TEXT NOT NULL,
  run_key TEXT, total_tasks INTEGER, worker_count INTEGER, config TEXT, created_at TEXT NOT NULL,
  UNIQUE (benchmark_slug, run_key));
CREATE TABLE IF NOT EXISTS participants (run_id TEXT NOT NULL, name TEXT NOT NULL, total_tasks INTEGER NOT NULL,
  position INTEGER NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (run_id, name));
CREATE TABLE IF NOT EXISTS workers (id TEXT PRIMARY KEY, run_id TEXT NOT NULL, participant TEXT NOT NULL,
  range_start INTEGER NOT NULL, range_count INTEGER NOT NULL, target_concurrency INTEGER,
  status TEXT NOT NULL, attempt_id TEXT, process_kind TEXT, process_key TEXT, progress TEXT,
  error_code TEXT, error_message TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS event_batches (id TEXT PRIMARY KEY, worker_id TEXT NOT NULL, attempt_id TEXT NOT NULL,
  sequence_number INTEGER NOT NULL, is_final INTEGER NOT NULL, record_count INTEGER NOT NULL,
  received_at TEXT NOT NULL, UNIQUE (worker_id, attempt_id, sequence_number));
CREATE TABLE IF NOT EXISTS task_results (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL,
  participant TEXT NOT NULL, worker_id TEXT NOT NULL, batch_id TEXT NOT NULL, task_index INTEGER,
  status TEXT, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS artifacts (id TEXT PRIMARY KEY, run_id TEXT NOT NULL, worker_id TEXT NOT NULL,
  attempt_id TEXT, kind TEXT NOT NULL, name TEXT, content_type TEXT, metadata TEXT,
  token TEXT NOT NULL UNIQUE, body BLOB, size_bytes INTEGER, created_at TEXT NOT NULL, uploaded_at TEXT);
CREATE TABLE IF NOT EXISTS summaries (run_id TEXT PRIMARY KEY, body TEXT NOT NULL, submitted_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS idempotency (key TEXT PRIMARY KEY, status INTEGER NOT NULL, body TEXT NOT NULL);
";

/// An API answer other than 2xx: status, machine code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// HTTP status.
    pub status: u16,
    /// Machine-readable code.
    pub code: &'static str,
    /// Human-readable message.
    pub message: String,
}

impl Refusal {
    /// A refusal with this status, code and message.
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }

    fn not_found(what: &str) -> Self {
        Self::new(404, "not_found", format!("{what} not found."))
    }

    fn conflict(message: impl Into<String>) -> Self {
        Self::new(409, "conflict", message)
    }

    /// A 400 for a malformed request.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "bad_request", message)
    }
}

impl From<rusqlite::Error> for Refusal {
    fn from(error: rusqlite::Error) -> Self {
        Self::new(500, "internal", format!("database error: {error}"))
    }
}

/// The result of an operation: the JSON answer or a refusal.
pub type Answer = Result<Value, Refusal>;

fn now() -> String {
    js::iso_timestamp(SystemTime::now())
}

/// `n` random bytes as hex, from the operating system's generator.
pub fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut random| random.read_exact(&mut bytes))
        .expect("the system random source is readable");
    hex::encode(bytes)
}

fn hash_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

fn parse(text: Option<String>) -> Value {
    text.and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null)
}

/// The database of one self-hosted platform.
pub struct Store {
    db: Connection,
}

impl Store {
    /// Opens (creating if needed) the database file.
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let db = Connection::open(path)?;
        db.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")?;
        db.execute_batch(SCHEMA)?;
        Ok(Self { db })
    }

    /// Every row of a query, mapped.
    fn rows<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        map: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, Refusal> {
        let mut statement = self.db.prepare(sql)?;
        let rows = statement
            .query_map(params, map)?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Creates an API key and returns it (only its hash is stored).
    pub fn create_key(&self) -> anyhow::Result<String> {
        let key = format!("bp_{}", random_hex(24));
        self.db.execute(
            "INSERT INTO api_keys (hash, prefix, created_at) VALUES (?1, ?2, ?3)",
            params![hash_key(&key), &key[..9], now()],
        )?;
        Ok(key)
    }

    /// The prefix of a valid API key.
    pub fn check_key(&self, key: &str) -> Result<Option<String>, Refusal> {
        Ok(self
            .db
            .query_row(
                "SELECT prefix FROM api_keys WHERE hash = ?1",
                [hash_key(key)],
                |row| row.get(0),
            )
            .optional()?)
    }

    /// A stored answer for an idempotency key.
    pub fn replay(&self, key: &str) -> Result<Option<(u16, Value)>, Refusal> {
        let found: Option<(u16, String)> = self
            .db
            .query_row(
                "SELECT status, body FROM idempotency WHERE key = ?1",
                [key],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        Ok(found.map(|(status, body)| (status, parse(Some(body)))))
    }

    /// Remembers the answer given for an idempotency key.
    pub fn remember(&self, key: &str, status: u16, body: &Value) -> Result<(), Refusal> {
        self.db.execute(
            "INSERT OR REPLACE INTO idempotency (key, status, body) VALUES (?1, ?2, ?3)",
            params![key, status, body.to_string()],
        )?;
        Ok(())
    }

    /// `GET /me`.
    pub fn me(&self, prefix: &str) -> Value {
        let org = json!({ "id": "org_local", "slug": ORG_SLUG, "name": "Local" });
        json!({
            "user": { "id": format!("key_{prefix}"), "name": format!("API key {prefix}…") },
            "activeOrganization": org,
            "organizations": [org],
        })
    }

    fn benchmark(&self, slug: &str) -> Result<Option<Value>, Refusal> {
        Ok(self
            .db
            .query_row(
                "SELECT slug, name, config, created_at, updated_at FROM benchmarks WHERE slug = ?1",
                [slug],
                |row| {
                    Ok(json!({
                        "slug": row.get::<_, String>(0)?,
                        "name": row.get::<_, String>(1)?,
                        "config": parse(row.get(2)?),
                        "createdAt": row.get::<_, String>(3)?,
                        "updatedAt": row.get::<_, String>(4)?,
                    }))
                },
            )
            .optional()?)
    }

    /// `GET /benchmarks/{slug}`.
    pub fn get_benchmark(&self, slug: &str) -> Answer {
        let benchmark = self
            .benchmark(slug)?
            .ok_or_else(|| Refusal::not_found("Benchmark"))?;
        Ok(json!({ "benchmark": benchmark }))
    }

    /// `GET /benchmarks`.
    pub fn list_benchmarks(&self, limit: i64, offset: i64) -> Answer {
        let slugs: Vec<String> = self.rows(
            "SELECT slug FROM benchmarks ORDER BY slug LIMIT ?1 OFFSET ?2",
            params![limit, offset],
            |row| row.get(0),
        )?;
        let items: Vec<Value> = slugs
            .iter()
            .filter_map(|slug| self.benchmark(slug).ok().flatten())
            .collect();
        Ok(json!({ "items": items }))
    }

    /// `PUT /benchmarks/{slug}` with `{ name, config? }`.
    pub fn upsert_benchmark(&self, slug: &str, body: &Value) -> Answer {
        let name = body["name"]
            .as_str()
            .filter(|name| !name.trim().is_empty())
            .ok_or_else(|| Refusal::bad_request("name is required"))?;
        let config = body.get("config").map(Value::to_string);
        let at = now();
        self.db.execute(
            "INSERT INTO benchmarks (slug, name, config, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)
             ON CONFLICT (slug) DO UPDATE SET name = ?2, config = COALESCE(?3, config), updated_at = ?4",
            params![slug, name, config, at],
        )?;
        self.get_benchmark(slug)
    }

    fn run(&self, slug: &str, run_id: &str) -> Result<Value, Refusal> {
        let found = self
            .db
            .query_row(
                "SELECT id, name, run_key, total_tasks, worker_count, config, created_at
                 FROM runs WHERE id = ?1 AND benchmark_slug = ?2",
                [run_id, slug],
                |row| {
                    let mut run = Map::new();
                    run.insert("id".into(), json!(row.get::<_, String>(0)?));
                    run.insert("benchmarkSlug".into(), json!(slug));
                    run.insert("name".into(), json!(row.get::<_, String>(1)?));
                    if let Some(key) = row.get::<_, Option<String>>(2)? {
                        run.insert("runKey".into(), json!(key));
                    }
                    run.insert("totalTasks".into(), json!(row.get::<_, Option<i64>>(3)?));
                    run.insert("workerCount".into(), json!(row.get::<_, Option<i64>>(4)?));
                    run.insert("config".into(), parse(row.get(5)?));
                    run.insert("createdAt".into(), json!(row.get::<_, String>(6)?));
                    Ok(run)
                },
            )
            .optional()?
            .ok_or_else(|| Refusal::not_found("Run"))?;
        let mut run = found;
        run.insert("status".into(), json!(self.run_status(run_id)?));
        Ok(Value::Object(run))
    }

    /// `pending` (no worker claimed), `running`, `completed` or `failed`, from the workers.
    fn run_status(&self, run_id: &str) -> Result<&'static str, Refusal> {
        let statuses: Vec<String> = self.rows(
            "SELECT status FROM workers WHERE run_id = ?1",
            [run_id],
            |row| row.get(0),
        )?;
        let all = |s: &str| statuses.iter().all(|status| status == s);
        Ok(if statuses.is_empty() || all("pending") {
            "pending"
        } else if statuses.iter().any(|s| s == "running" || s == "pending") {
            "running"
        } else if all("completed") {
            "completed"
        } else {
            "failed"
        })
    }

    /// `GET /benchmarks/{slug}/runs/{runId}`.
    pub fn get_run(&self, slug: &str, run_id: &str) -> Answer {
        Ok(json!({ "run": self.run(slug, run_id)? }))
    }

    /// `GET /benchmarks/{slug}/runs`, newest first.
    pub fn list_runs(&self, slug: &str, limit: i64, offset: i64) -> Answer {
        let ids: Vec<String> = self.rows(
            "SELECT id FROM runs WHERE benchmark_slug = ?1 ORDER BY created_at DESC, rowid DESC
             LIMIT ?2 OFFSET ?3",
            params![slug, limit, offset],
            |row| row.get(0),
        )?;
        let items = ids
            .iter()
            .map(|id| self.run(slug, id))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(json!({ "items": items }))
    }

    /// `POST /benchmarks/{slug}/runs`: `{ totalTasks, workerCount, participants, config }`,
    /// or `{ runKey, config }` for a shared run (the same key returns the same run).
    pub fn create_run(&self, slug: &str, body: &Value) -> Answer {
        let benchmark = self
            .benchmark(slug)?
            .ok_or_else(|| Refusal::not_found("Benchmark"))?;
        let run_key = body["runKey"].as_str();
        let existing: Option<String> = match run_key {
            Some(key) => self
                .db
                .query_row(
                    "SELECT id FROM runs WHERE benchmark_slug = ?1 AND run_key = ?2",
                    [slug, key],
                    |row| row.get(0),
                )
                .optional()?,
            None => None,
        };
        let run_id = match existing {
            Some(id) => id,
            None => {
                let count: i64 = self.db.query_row(
                    "SELECT COUNT(*) FROM runs WHERE benchmark_slug = ?1",
                    [slug],
                    |row| row.get(0),
                )?;
                let id = format!("run_{}", random_hex(8));
                let name = format!(
                    "{} #{}",
                    benchmark["name"].as_str().unwrap_or(slug),
                    count + 1
                );
                let total = body["totalTasks"].as_i64();
                self.db.execute(
                    "INSERT INTO runs (id, benchmark_slug, name, run_key, total_tasks, worker_count, config, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![
                        id,
                        slug,
                        name,
                        run_key,
                        total,
                        body["workerCount"].as_i64(),
                        body.get("config").map(Value::to_string),
                        now()
                    ],
                )?;
                if let Some(names) = body["participants"].as_array() {
                    for name in names.iter().filter_map(Value::as_str) {
                        self.put_participant(&id, name, total.unwrap_or(0))?;
                    }
                }
                id
            }
        };
        Ok(json!({
            "run": self.run(slug, &run_id)?,
            "participants": self.participants(&run_id)?,
            "organizationSlug": ORG_SLUG,
        }))
    }

    fn put_participant(&self, run_id: &str, name: &str, total: i64) -> Result<(), Refusal> {
        self.db.execute(
            "INSERT INTO participants (run_id, name, total_tasks, position, created_at)
             VALUES (?1, ?2, ?3, (SELECT COUNT(*) FROM participants WHERE run_id = ?1), ?4)
             ON CONFLICT (run_id, name) DO UPDATE SET total_tasks = ?3",
            params![run_id, name, total, now()],
        )?;
        Ok(())
    }

    fn participants(&self, run_id: &str) -> Result<Vec<Value>, Refusal> {
        let rows = self.rows(
"SELECT name, total_tasks, created_at FROM participants WHERE run_id = ?1 ORDER BY position",
[run_id],
|row| {
                Ok(json!({
                    "name": row.get::<_, String>(0)?,
                    "totalTasks": row.get::<_, i64>(1)?,
                    "createdAt": row.get::<_, String>(2)?,
                }))
            },
)?;
        Ok(rows)
    }

    /// `GET .../runs/{runId}/participants`.
    pub fn list_participants(&self, slug: &str, run_id: &str) -> Answer {
        self.run(slug, run_id)?;
        Ok(json!({ "items": self.participants(run_id)? }))
    }

    /// `PUT .../participants/{p}` with `{ totalTasks }`.
    pub fn upsert_participant(&self, slug: &str, run_id: &str, name: &str, body: &Value) -> Answer {
        self.run(slug, run_id)?;
        let total = body["totalTasks"]
            .as_i64()
            .filter(|total| *total >= 0)
            .ok_or_else(|| Refusal::bad_request("totalTasks must be a non-negative integer"))?;
        self.put_participant(run_id, name, total)?;
        let participant = self
            .participants(run_id)?
            .into_iter()
            .find(|p| p["name"] == name);
        Ok(json!({ "participant": participant }))
    }

    fn participant_total(&self, run_id: &str, name: &str) -> Result<i64, Refusal> {
        self.db
            .query_row(
                "SELECT total_tasks FROM participants WHERE run_id = ?1 AND name = ?2",
                [run_id, name],
                |row| row.get(0),
            )
            .optional()?
            .ok_or_else(|| Refusal::not_found("Participant"))
    }

    fn worker_json(row: &rusqlite::Row<'_>) -> rusqlite::Result<Value> {
        let start: i64 = row.get(3)?;
        let count: i64 = row.get(4)?;
        Ok(json!({
            "id": row.get::<_, String>(0)?,
            "runId": row.get::<_, String>(1)?,
            "participant": row.get::<_, String>(2)?,
            "taskRange": { "start": start, "end": start + count, "count": count },
            "targetConcurrency": row.get::<_, Option<i64>>(5)?,
            "status": row.get::<_, String>(6)?,
            "attemptId": row.get::<_, Option<String>>(7)?,
            "progress": parse(row.get(8)?),
            "errorCode": row.get::<_, Option<String>>(9)?,
            "errorMessage": row.get::<_, Option<String>>(10)?,
            "updatedAt": row.get::<_, String>(11)?,
        }))
    }

    const WORKER_COLUMNS: &'static str = "id, run_id, participant, range_start, range_count, target_concurrency, status, attempt_id, progress, error_code, error_message, updated_at";

    fn workers(&self, run_id: &str, participant: &str) -> Result<Vec<Value>, Refusal> {
        let sql = format!(
            "SELECT {} FROM workers WHERE run_id = ?1 AND participant = ?2 ORDER BY range_start",
            Self::WORKER_COLUMNS
        );
        self.rows(&sql, [run_id, participant], Self::worker_json)
    }

    fn worker(&self, run_id: &str, worker_id: &str) -> Result<Value, Refusal> {
        let sql = format!(
            "SELECT {} FROM workers WHERE run_id = ?1 AND id = ?2",
            Self::WORKER_COLUMNS
        );
        self.db
            .query_row(&sql, [run_id, worker_id], Self::worker_json)
            .optional()?
            .ok_or_else(|| Refusal::not_found("Worker"))
    }

    /// `GET .../participants/{p}/workers`.
    pub fn list_workers(&self, slug: &str, run_id: &str, participant: &str) -> Answer {
        self.run(slug, run_id)?;
        Ok(json!({ "items": self.workers(run_id, participant)? }))
    }

    /// `POST .../participants/{p}/workers` with `{ workerCount?, targetConcurrency? }`: splits
    /// the participant's tasks over `workerCount` (default 1) workers, once.
    pub fn plan_workers(
        &self,
        slug: &str,
        run_id: &str,
        participant: &str,
        body: &Value,
    ) -> Answer {
        self.run(slug, run_id)?;
        let total = self.participant_total(run_id, participant)?;
        if self.workers(run_id, participant)?.is_empty() {
            let count = body["workerCount"]
                .as_i64()
                .unwrap_or(1)
                .clamp(1, total.max(1));
            let at = now();
            for index in 0..count {
                let start = total * index / count;
                let end = total * (index + 1) / count;
                self.db.execute(
                    "INSERT INTO workers (id, run_id, participant, range_start, range_count, target_concurrency,
                     status, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7, ?7)",
                    params![
                        format!("wk_{}", random_hex(8)),
                        run_id,
                        participant,
                        start,
                        end - start,
                        body["targetConcurrency"].as_i64(),
                        at
                    ],
                )?;
            }
        }
        Ok(json!({ "items": self.workers(run_id, participant)? }))
    }

    /// `POST .../participants/{p}/workers/claim`: the first pending worker, or
    /// `{ assignment: null }`.
    pub fn claim_worker(
        &self,
        slug: &str,
        run_id: &str,
        participant: &str,
        body: &Value,
    ) -> Answer {
        self.run(slug, run_id)?;
        let pending = self
            .workers(run_id, participant)?
            .into_iter()
            .find(|worker| worker["status"] == "pending");
        let Some(worker) = pending else {
            return Ok(json!({ "assignment": null }));
        };
        let worker_id = worker["id"].as_str().unwrap_or_default();
        let attempt_id = format!("att_{}", random_hex(8));
        self.db.execute(
            "UPDATE workers SET status = 'running', attempt_id = ?1, process_kind = ?2, process_key = ?3,
             updated_at = ?4 WHERE id = ?5",
            params![
                attempt_id,
                body["processKind"].as_str(),
                body["processKey"].as_str(),
                now(),
                worker_id
            ],
        )?;
        Ok(json!({
            "assignment": {
                "workerId": worker_id,
                "attemptId": attempt_id,
                "participant": participant,
                "taskRange": worker["taskRange"],
                "targetConcurrency": worker["targetConcurrency"],
            }
        }))
    }

    /// The worker, if `attemptId` is its current attempt.
    fn attempt(&self, run_id: &str, worker_id: &str, body: &Value) -> Result<Value, Refusal> {
        let worker = self.worker(run_id, worker_id)?;
        let attempt = body["attemptId"]
            .as_str()
            .ok_or_else(|| Refusal::bad_request("attemptId is required"))?;
        if worker["attemptId"] != attempt {
            return Err(Refusal::conflict(format!(
                "Attempt {attempt} is not the current attempt of worker {worker_id}."
            )));
        }
        Ok(worker)
    }

    /// `POST .../workers/{w}/heartbeat`.
    pub fn heartbeat(&self, slug: &str, run_id: &str, worker_id: &str, body: &Value) -> Answer {
        self.run(slug, run_id)?;
        self.attempt(run_id, worker_id, body)?;
        let mut progress = body.clone();
        if let Some(map) = progress.as_object_mut() {
            map.remove("attemptId");
        }
        self.db.execute(
            "UPDATE workers SET progress = ?1, updated_at = ?2 WHERE id = ?3",
            params![progress.to_string(), now(), worker_id],
        )?;
        Ok(json!({ "worker": self.worker(run_id, worker_id)? }))
    }

    /// `POST .../workers/{w}/events`: a `task_results` batch, stored once per
    /// `(attemptId, sequenceNumber)`; a repeat is acknowledged as a duplicate.
    pub fn task_results(&self, slug: &str, run_id: &str, worker_id: &str, body: &Value) -> Answer {
        self.run(slug, run_id)?;
        let worker = self.attempt(run_id, worker_id, body)?;
        if body["type"] != "task_results" {
            return Err(Refusal::bad_request("type must be 'task_results'"));
        }
        let sequence = body["sequenceNumber"]
            .as_i64()
            .filter(|n| *n >= 0)
            .ok_or_else(|| Refusal::bad_request("sequenceNumber must be a non-negative integer"))?;
        let records = body["records"]
            .as_array()
            .ok_or_else(|| Refusal::bad_request("records must be an array"))?;
        if records.len() > 5000 {
            return Err(Refusal::bad_request(
                "Benchmark task result batches are limited to 5000 records.",
            ));
        }
        let attempt = body["attemptId"].as_str().unwrap_or_default();
        let existing: Option<String> = self
            .db
            .query_row(
                "SELECT id FROM event_batches WHERE worker_id = ?1 AND attempt_id = ?2 AND sequence_number = ?3",
                params![worker_id, attempt, sequence],
                |row| row.get(0),
            )
            .optional()?;
        if let Some(id) = existing {
            return Ok(
                json!({ "accepted": 0, "eventBatchId": id, "queued": false, "duplicate": true }),
            );
        }
        let id = format!("evb_{}", random_hex(8));
        let participant = worker["participant"].as_str().unwrap_or_default();
        let transaction = self.db.unchecked_transaction()?;
        transaction.execute(
            "INSERT INTO event_batches (id, worker_id, attempt_id, sequence_number, is_final, record_count, received_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![id, worker_id, attempt, sequence, body["isFinal"] == true, records.len(), now()],
        )?;
        for record in records {
            transaction.execute(
                "INSERT INTO task_results (run_id, participant, worker_id, batch_id, task_index, status, record)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    run_id,
                    participant,
                    worker_id,
                    id,
                    record["taskIndex"].as_i64(),
                    record["status"].as_str(),
                    record.to_string()
                ],
            )?;
        }
        transaction.commit()?;
        Ok(
            json!({ "accepted": records.len(), "eventBatchId": id, "queued": false, "duplicate": false }),
        )
    }

    /// `GET .../runs/{runId}/iterations?type=tasks[&participant=p]`: the stored task records,
    /// each with its participant first, per participant in arrival order.
    pub fn task_records(&self, slug: &str, run_id: &str, participant: Option<&str>) -> Answer {
        self.run(slug, run_id)?;
        let items: Vec<Value> = self.rows(
            "SELECT t.participant, t.record FROM task_results t
             LEFT JOIN participants p ON p.run_id = t.run_id AND p.name = t.participant
             WHERE t.run_id = ?1 AND (?2 IS NULL OR t.participant = ?2)
             ORDER BY p.position, t.seq",
            params![run_id, participant],
            |row| {
                let name: String = row.get(0)?;
                let record = parse(row.get(1)?);
                let mut item = Map::new();
                item.insert("participant".into(), json!(name));
                if let Value::Object(fields) = record {
                    item.extend(fields);
                }
                Ok(Value::Object(item))
            },
        )?;
        Ok(json!({ "items": items }))
    }

    /// `POST .../workers/{w}/complete|fail|release`.
    pub fn finish_worker(
        &self,
        slug: &str,
        run_id: &str,
        worker_id: &str,
        outcome: &str,
        body: &Value,
    ) -> Answer {
        self.run(slug, run_id)?;
        self.attempt(run_id, worker_id, body)?;
        let status = match outcome {
            "complete" => "completed",
            "fail" => "failed",
            _ => "pending",
        };
        self.db.execute(
            "UPDATE workers SET status = ?1, error_code = ?2, error_message = ?3, updated_at = ?4,
             attempt_id = CASE WHEN ?1 = 'pending' THEN NULL ELSE attempt_id END WHERE id = ?5",
            params![
                status,
                body["errorCode"].as_str(),
                body["errorMessage"].as_str(),
                now(),
                worker_id
            ],
        )?;
        let worker = self.worker(run_id, worker_id)?;
        let attempt = json!({ "id": body["attemptId"], "status": status });
        Ok(json!({ "worker": worker, "attempt": attempt }))
    }

    /// `POST .../workers/{w}/artifacts`: a new artifact and the URL token to upload it to.
    pub fn create_artifact(
        &self,
        slug: &str,
        run_id: &str,
        worker_id: &str,
        body: &Value,
    ) -> Result<(Value, String), Refusal> {
        self.run(slug, run_id)?;
        self.worker(run_id, worker_id)?;
        let kind = body["kind"]
            .as_str()
            .ok_or_else(|| Refusal::bad_request("kind is required"))?;
        let id = format!("art_{}", random_hex(8));
        let token = random_hex(16);
        self.db.execute(
            "INSERT INTO artifacts (id, run_id, worker_id, attempt_id, kind, name, content_type, metadata, token, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                id,
                run_id,
                worker_id,
                body["attemptId"].as_str(),
                kind,
                body["name"].as_str(),
                body["contentType"].as_str(),
                body.get("metadata").map(Value::to_string),
                token,
                now()
            ],
        )?;
        Ok((self.artifact(&id)?, token))
    }

    fn artifact(&self, id: &str) -> Result<Value, Refusal> {
        self.db
            .query_row(
                "SELECT id, worker_id, kind, name, content_type, metadata, size_bytes, created_at, uploaded_at
                 FROM artifacts WHERE id = ?1",
                [id],
                |row| {
                    Ok(json!({
                        "id": row.get::<_, String>(0)?,
                        "workerId": row.get::<_, String>(1)?,
                        "kind": row.get::<_, String>(2)?,
                        "name": row.get::<_, Option<String>>(3)?,
                        "contentType": row.get::<_, Option<String>>(4)?,
                        "metadata": parse(row.get(5)?),
                        "sizeBytes": row.get::<_, Option<i64>>(6)?,
                        "createdAt": row.get::<_, String>(7)?,
                        "uploadedAt": row.get::<_, Option<String>>(8)?,
                    }))
                },
            )
            .optional()?
            .ok_or_else(|| Refusal::not_found("Artifact"))
    }

    /// `PUT /uploads/{token}`: stores an artifact's body.
    pub fn upload(&self, token: &str, body: &[u8]) -> Result<(), Refusal> {
        let changed = self.db.execute(
            "UPDATE artifacts SET body = ?1, size_bytes = ?2, uploaded_at = ?3 WHERE token = ?4",
            params![body, body.len(), now(), token],
        )?;
        if changed == 0 {
            return Err(Refusal::not_found("Upload"));
        }
        Ok(())
    }

    /// `GET /downloads/{token}`: an artifact's content type and body.
    pub fn download(&self, token: &str) -> Result<(String, Vec<u8>), Refusal> {
        self.db
            .query_row(
                "SELECT content_type, body FROM artifacts WHERE token = ?1 AND body IS NOT NULL",
                [token],
                |row| {
                    Ok((
                        row.get::<_, Option<String>>(0)?
                            .unwrap_or_else(|| "application/octet-stream".into()),
                        row.get(1)?,
                    ))
                },
            )
            .optional()?
            .ok_or_else(|| Refusal::not_found("Download"))
    }

    /// `GET .../runs/{runId}/artifacts` or `.../workers/{w}/artifacts`.
    pub fn list_artifacts(&self, slug: &str, run_id: &str, worker_id: Option<&str>) -> Answer {
        self.run(slug, run_id)?;
        let ids: Vec<String> = self.rows(
"SELECT id FROM artifacts WHERE run_id = ?1 AND (?2 IS NULL OR worker_id = ?2) ORDER BY rowid",
params![run_id, worker_id],
|row| row.get(0),
)?;
        let items = ids
            .iter()
            .map(|id| self.artifact(id))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(json!({ "items": items }))
    }

    /// `GET .../workers/{w}/artifacts/{a}`: the artifact and its download path token.
    pub fn get_artifact(
        &self,
        slug: &str,
        run_id: &str,
        artifact_id: &str,
    ) -> Result<(Value, String), Refusal> {
        self.run(slug, run_id)?;
        let artifact = self.artifact(artifact_id)?;
        let token: String = self.db.query_row(
            "SELECT token FROM artifacts WHERE id = ?1",
            [artifact_id],
            |row| row.get(0),
        )?;
        Ok((artifact, token))
    }

    /// `POST .../runs/{runId}/summary`: stores (replaces) the run summary.
    pub fn submit_summary(&self, slug: &str, run_id: &str, body: &Value) -> Answer {
        self.run(slug, run_id)?;
        if !body["results"].is_array() {
            return Err(Refusal::bad_request("results must be an array"));
        }
        self.db.execute(
            "INSERT OR REPLACE INTO summaries (run_id, body, submitted_at) VALUES (?1, ?2, ?3)",
            params![run_id, body.to_string(), now()],
        )?;
        Ok(json!({ "ok": true }))
    }

    fn summary(&self, run_id: &str) -> Result<Option<Value>, Refusal> {
        Ok(self
            .db
            .query_row(
                "SELECT body FROM summaries WHERE run_id = ?1",
                [run_id],
                |row| row.get(0),
            )
            .optional()?
            .map(|body| parse(Some(body))))
    }

    /// `GET .../runs/{runId}/results`: the run, its submitted summary and task counts.
    pub fn run_results(&self, slug: &str, run_id: &str) -> Answer {
        let run = self.run(slug, run_id)?;
        let summary = self.summary(run_id)?.unwrap_or(Value::Null);
        let tasks: Vec<Value> = self.rows(
            "SELECT participant, COUNT(*), SUM(status = 'success') FROM task_results
             WHERE run_id = ?1 GROUP BY participant",
            [run_id],
            |row| {
                Ok(json!({
                    "participant": row.get::<_, String>(0)?,
                    "tasks": row.get::<_, i64>(1)?,
                    "succeeded": row.get::<_, i64>(2)?,
                }))
            },
        )?;
        Ok(json!({
            "run": run,
            "summary": summary["run"],
            "results": summary.get("results").cloned().unwrap_or(json!([])),
            "scoring": summary["scoring"],
            "tasks": tasks,
        }))
    }

    /// `GET /benchmarks/{slug}/results`: the latest summary rows of each scored run.
    pub fn benchmark_results(&self, slug: &str, limit: i64, offset: i64) -> Answer {
        self.benchmark(slug)?
            .ok_or_else(|| Refusal::not_found("Benchmark"))?;
        let items: Vec<Value> = self.rows(
"SELECT r.id, r.name, s.body FROM summaries s JOIN runs r ON r.id = s.run_id
             WHERE r.benchmark_slug = ?1 ORDER BY r.created_at DESC, r.rowid DESC LIMIT ?2 OFFSET ?3",
params![slug, limit, offset],
|row| {
                let summary = parse(row.get(2)?);
                Ok(json!({
                    "runId": row.get::<_, String>(0)?,
                    "runName": row.get::<_, String>(1)?,
                    "results": summary["results"],
                }))
            },
)?;
        Ok(json!({ "items": items }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("bench.db")).unwrap();
        (dir, store)
    }

    #[test]
    fn keys_are_checked_by_hash() {
        let (_dir, store) = store();
        let key = store.create_key().unwrap();
        assert!(key.starts_with("bp_"));
        assert_eq!(store.check_key(&key).unwrap().as_deref(), Some(&key[..9]));
        assert_eq!(store.check_key("bp_nope").unwrap(), None);
    }

    #[test]
    fn a_run_key_returns_the_same_run_and_batches_are_idempotent() {
        let (_dir, store) = store();
        store.upsert_benchmark("s", &json!({"name": "S"})).unwrap();
        let body = json!({"runKey": "ci-1", "config": {}});
        let first = store.create_run("s", &body).unwrap();
        let second = store.create_run("s", &body).unwrap();
        let run_id = first["run"]["id"].as_str().unwrap().to_owned();
        assert_eq!(second["run"]["id"], run_id.as_str());
        assert_eq!(first["run"]["name"], "S #1");
        store
            .upsert_participant("s", &run_id, "e2b", &json!({"totalTasks": 2}))
            .unwrap();
        store.plan_workers("s", &run_id, "e2b", &json!({})).unwrap();
        let claim = store.claim_worker("s", &run_id, "e2b", &json!({})).unwrap();
        let worker = claim["assignment"]["workerId"].as_str().unwrap().to_owned();
        let attempt = claim["assignment"]["attemptId"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!(
            claim["assignment"]["taskRange"],
            json!({"start": 0, "end": 2, "count": 2})
        );
        let again = store.claim_worker("s", &run_id, "e2b", &json!({})).unwrap();
        assert_eq!(again, json!({"assignment": null}));
        let batch = json!({"type": "task_results", "attemptId": attempt, "sequenceNumber": 0,
            "isFinal": true, "records": [{"taskIndex": 0, "status": "success"}]});
        let first = store.task_results("s", &run_id, &worker, &batch).unwrap();
        assert_eq!(first["accepted"], 1);
        let repeat = store.task_results("s", &run_id, &worker, &batch).unwrap();
        assert_eq!(repeat["duplicate"], true);
        let records = store.task_records("s", &run_id, None).unwrap();
        assert_eq!(
            records["items"],
            json!([{"participant": "e2b", "taskIndex": 0, "status": "success"}])
        );
        let stale = json!({"attemptId": "att_old"});
        let refused = store.heartbeat("s", &run_id, &worker, &stale).unwrap_err();
        assert_eq!(refused.status, 409);
        store
            .finish_worker(
                "s",
                &run_id,
                &worker,
                "complete",
                &json!({"attemptId": attempt}),
            )
            .unwrap();
        assert_eq!(
            store.get_run("s", &run_id).unwrap()["run"]["status"],
            "completed"
        );
    }

    #[test]
    fn a_run_needs_its_benchmark() {
        let (_dir, store) = store();
        let refused = store.create_run("missing", &json!({})).unwrap_err();
        assert_eq!(
            (refused.status, refused.message.as_str()),
            (404, "Benchmark not found.")
        );
    }
}
