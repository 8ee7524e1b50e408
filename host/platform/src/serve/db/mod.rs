//! The self-hosted platform's storage: one SQLite database holding API keys, benchmarks,
//! runs, participants, workers, task-result batches, artifacts and run summaries. Each
//! operation is a method of [`Store`] that returns the API's answer (or a [`Refusal`]);
//! [`Database`] runs them on blocking threads, one transaction per request, never on the
//! async workers: writes one at a time on one connection, reads in parallel on a small pool
//! of read-only connections (the WAL journal lets them read a snapshot while a write goes
//! on), and the lookups of authentication (API keys, sessions) on a read-only connection of
//! their own, which no page's read ever holds.

mod admin;
mod artifacts;
mod keys;
mod results;
mod runs;
mod schema;
mod sessions;
mod workers;

pub use admin::{KeyRow, OrgRow};
pub(crate) use keys::Caller;
use keys::ORG_SLUG;

use super::refusal::Refusal;
use crate::api::bounds;
use crate::api::types::Page;
use bench_model::js;
use rusqlite::Connection;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;
use tokio::sync::Semaphore;

/// Read-only connections that may read at once.
const READERS: usize = 4;

/// Items of a list when the query names no `limit`.
const DEFAULT_LIMIT: u32 = 50;

/// Task records one read of [`Database::fold_task_records`] fetches.
const RECORDS_PER_READ: usize = 2_000;

/// Refuses (400) a number over its bound: `<field> must be at most <max> (got <value>)`.
fn at_most(field: &str, value: Option<u64>, max: u64) -> Result<(), Refusal> {
    bounds::at_most(field, value, max).map_err(Refusal::bad_request)
}

/// One connection to the database of a self-hosted platform.
pub(crate) struct Store {
    db: Connection,
    path: PathBuf,
    /// The organization the current job acts in.
    org: std::cell::RefCell<String>,
}

impl Store {
    /// Opens (creating if needed) the database file.
    pub(crate) fn open(path: &Path) -> rusqlite::Result<Self> {
        let mut db = Connection::open(path)?;
        schema::apply(&mut db)?;
        Ok(Self {
            db,
            path: path.to_owned(),
            org: std::cell::RefCell::new(ORG_SLUG.to_owned()),
        })
    }

    /// The organization the current job acts in.
    fn org(&self) -> String {
        self.org.borrow().clone()
    }

    /// Another connection to the same file, which can only read.
    fn reader(&self) -> rusqlite::Result<Self> {
        open_reader(&self.path)
    }

    /// Runs `job` in one transaction: committed when it succeeds, rolled back when it
    /// refuses.
    pub(crate) fn transact<T>(
        &self,
        job: impl FnOnce(&Store) -> Result<T, Refusal>,
    ) -> Result<T, Refusal> {
        let transaction = self.db.unchecked_transaction()?;
        let answer = job(self)?;
        transaction.commit()?;
        Ok(answer)
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
}

/// A connection to the database file at `path` that can only read.
fn open_reader(path: &Path) -> rusqlite::Result<Store> {
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = Connection::open_with_flags(path, flags)?;
    db.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(Store {
        db,
        path: path.to_owned(),
        org: std::cell::RefCell::new(ORG_SLUG.to_owned()),
    })
}

/// The store, shared by the request handlers: the writer, the idle readers and the reader
/// of authentication.
#[derive(Clone)]
pub(crate) struct Database {
    store: Arc<Mutex<Store>>,
    readers: Arc<Mutex<Vec<Store>>>,
    reading: Arc<Semaphore>,
    /// The database file.
    path: Arc<Path>,
    /// The read-only connection of [`Database::authenticate`], opened when first needed.
    authentication: Arc<Mutex<Option<Store>>>,
    /// The organization its jobs act in.
    org: Arc<str>,
}

impl Database {
    /// Serves requests from `store` (writes) and up to [`READERS`] connections to its file
    /// (reads), opened when first needed.
    pub(crate) fn new(store: Store) -> Self {
        Self {
            path: Arc::from(store.path.as_path()),
            store: Arc::new(Mutex::new(store)),
            readers: Arc::new(Mutex::new(Vec::new())),
            reading: Arc::new(Semaphore::new(READERS)),
            authentication: Arc::new(Mutex::new(None)),
            org: Arc::from(ORG_SLUG),
        }
    }

    /// Runs a lookup of authentication (an API key, a session: one indexed row) on a
    /// blocking thread, on the connection reserved for them: it never waits for a reader.
    pub(crate) async fn authenticate<T, F>(&self, job: F) -> Result<T, Refusal>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> Result<T, Refusal> + Send + 'static,
    {
        let (path, authentication) = (Arc::clone(&self.path), Arc::clone(&self.authentication));
        tokio::task::spawn_blocking(move || {
            let mut reader = authentication
                .lock()
                .map_err(|_| Refusal::internal("The database lock is poisoned."))?;
            if reader.is_none() {
                *reader = Some(open_reader(&path)?);
            }
            match reader.as_ref() {
                Some(reader) => job(reader),
                None => Err(Refusal::internal("The database is closed.")),
            }
        })
        .await
        .map_err(|error| Refusal::internal(format!("The database task failed: {error}")))?
    }

    /// The same database, its jobs acting in organization `org`: they see and make only
    /// its benchmarks (and their runs).
    pub(crate) fn scoped(&self, org: &str) -> Self {
        Self {
            org: Arc::from(org),
            ..self.clone()
        }
    }

    /// Runs a `job` that only reads on a blocking thread, on a read-only connection, in
    /// one transaction (a consistent snapshot); it waits for no write.
    pub(crate) async fn read<T, F>(&self, job: F) -> Result<T, Refusal>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> Result<T, Refusal> + Send + 'static,
    {
        let _slot = self
            .reading
            .acquire()
            .await
            .map_err(|_| Refusal::internal("The database is closed."))?;
        let (store, readers) = (Arc::clone(&self.store), Arc::clone(&self.readers));
        let org = Arc::clone(&self.org);
        tokio::task::spawn_blocking(move || {
            let idle = readers
                .lock()
                .map_err(|_| Refusal::internal("The database lock is poisoned."))?
                .pop();
            let reader = match idle {
                Some(reader) => reader,
                None => store
                    .lock()
                    .map_err(|_| Refusal::internal("The database lock is poisoned."))?
                    .reader()?,
            };
            reader.org.replace(org.to_string());
            let answer = {
                let transaction = reader.db.unchecked_transaction()?;
                let answer = job(&reader);
                transaction.rollback()?;
                answer
            };
            if let Ok(mut idle) = readers.lock() {
                idle.push(reader);
            }
            answer
        })
        .await
        .map_err(|error| Refusal::internal(format!("The database task failed: {error}")))?
    }

    /// Folds every task record a run has stored so far — its participant and the record's
    /// JSON text, in arrival order — into `state`. Records are fetched
    /// [`RECORDS_PER_READ`] at a time, each slice by one short read; `fold` runs on a
    /// blocking thread without a connection, so a large run never holds a reader while it
    /// is computed. The caller checked that the run is the caller's.
    pub(crate) async fn fold_task_records<S, F>(
        &self,
        run_id: &str,
        mut state: S,
        fold: F,
    ) -> Result<S, Refusal>
    where
        S: Send + 'static,
        F: Fn(&mut S, &str, &str) + Send + Sync + 'static,
    {
        let run = run_id.to_owned();
        let last = self.read(move |store| store.last_task_record(&run)).await?;
        let fold = Arc::new(fold);
        let mut after = 0;
        loop {
            let run = run_id.to_owned();
            let slice = self
                .read(move |store| store.task_record_slice(&run, after, last, RECORDS_PER_READ))
                .await?;
            let Some(&(seq, _, _)) = slice.last() else {
                return Ok(state);
            };
            after = seq;
            let fold = Arc::clone(&fold);
            state = tokio::task::spawn_blocking(move || {
                for (_, participant, text) in &slice {
                    fold(&mut state, participant, text);
                }
                state
            })
            .await
            .map_err(|error| Refusal::internal(format!("The page's task failed: {error}")))?;
        }
    }

    /// Runs `job` on a blocking thread, in one transaction: committed when it succeeds,
    /// rolled back when it refuses.
    pub(crate) async fn run<T, F>(&self, job: F) -> Result<T, Refusal>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> Result<T, Refusal> + Send + 'static,
    {
        let store = Arc::clone(&self.store);
        let org = Arc::clone(&self.org);
        tokio::task::spawn_blocking(move || {
            let store = store
                .lock()
                .map_err(|_| Refusal::internal("The database lock is poisoned."))?;
            store.org.replace(org.to_string());
            store.transact(job)
        })
        .await
        .map_err(|error| Refusal::internal(format!("The database task failed: {error}")))?
    }

    /// [`Database::run`], answered once per idempotency key: a repeat gets the first
    /// answer back and `job` does not run again.
    pub(crate) async fn run_once<T, F>(&self, key: Option<String>, job: F) -> Result<T, Refusal>
    where
        T: Serialize + DeserializeOwned + Send + 'static,
        F: FnOnce(&Store) -> Result<T, Refusal> + Send + 'static,
    {
        self.run(move |store| {
            let Some(key) = key else {
                return job(store);
            };
            if let Some(answer) = store.replay(&key)? {
                return Ok(answer);
            }
            let answer = job(store)?;
            store.remember(&key, &answer)?;
            Ok(answer)
        })
        .await
    }
}

/// `LIMIT` and `OFFSET` of a page.
fn bounds(page: Page) -> (u32, u32) {
    (
        page.limit.unwrap_or(DEFAULT_LIMIT),
        page.offset.unwrap_or_default(),
    )
}

/// The current time as the API writes it.
fn now() -> String {
    js::iso_timestamp(SystemTime::now())
}

/// `<prefix>_` and 16 random hex digits.
fn random_id(prefix: &str) -> Result<String, Refusal> {
    Ok(format!("{prefix}_{}", random_hex(8)?))
}

/// `n` random bytes as hex, from the operating system's generator.
fn random_hex(n: usize) -> Result<String, Refusal> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes)
        .map_err(|error| Refusal::internal(format!("no random numbers: {error}")))?;
    Ok(hex::encode(bytes))
}

/// A stored JSON column, or null when absent or unreadable.
fn json_column(text: Option<String>) -> serde_json::Value {
    typed_column(text).unwrap_or_default()
}

/// A stored JSON column as `T`, or `None` when absent or not a `T`.
fn typed_column<T: DeserializeOwned>(text: Option<String>) -> Option<T> {
    text.and_then(|text| serde_json::from_str(&text).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::types::{ClaimWorker, CreateRun, PlanWorkers, UpsertBenchmark};
    use serde_json::json;

    /// A store on a fresh database file.
    pub(super) fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("bench.db")).unwrap();
        (dir, store)
    }

    /// An own run of benchmark `s` with participant `e2b`, claimed: run, worker, attempt.
    pub(super) fn claimed(store: &Store) -> (String, String, String) {
        let benchmark = UpsertBenchmark {
            name: "S".into(),
            config: None,
        };
        store.upsert_benchmark("s", &benchmark).unwrap();
        let own = CreateRun::own(2, vec!["e2b".into()], json!({}));
        let run_id = store.create_run("s", &own).unwrap().run.id;
        store
            .plan_workers("s", &run_id, "e2b", &PlanWorkers::default())
            .unwrap();
        let assignment = store
            .claim_worker("s", &run_id, "e2b", &ClaimWorker::default())
            .unwrap()
            .assignment
            .unwrap();
        (
            run_id,
            assignment.worker_id.unwrap(),
            assignment.attempt_id.unwrap(),
        )
    }

    /// How many summaries the database holds.
    fn summaries(store: &Store) -> Result<i64, Refusal> {
        Ok(store
            .db
            .query_row("SELECT COUNT(*) FROM summaries", [], |row| row.get(0))?)
    }

    #[tokio::test]
    async fn a_refused_job_leaves_nothing_behind() {
        let (_dir, store) = store();
        let database = Database::new(store);
        let refused = database
            .run(|store| {
                store.db.execute(
                    "INSERT INTO summaries (run_id, body, submitted_at) VALUES ('r', '{}', 'now')",
                    [],
                )?;
                Err::<(), _>(Refusal::conflict("no"))
            })
            .await;
        assert_eq!(refused, Err(Refusal::conflict("no")));
        let count = database.run(summaries).await.unwrap();
        assert_eq!(count, 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_long_read_does_not_hold_up_a_write() {
        let (_dir, store) = store();
        let database = Database::new(store);
        let (written, wait) = std::sync::mpsc::channel::<()>();
        let reader = database.clone();
        let reading = tokio::spawn(async move {
            reader
                .read(move |store| {
                    let before = summaries(store)?;
                    wait.recv_timeout(std::time::Duration::from_secs(10))
                        .map_err(|_| Refusal::internal("the write never came"))?;
                    let after = summaries(store)?;
                    Ok((before, after))
                })
                .await
        });
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let write = database.run(|store| {
            store.db.execute(
                "INSERT INTO summaries (run_id, body, submitted_at) VALUES ('r', '{}', 'now')",
                [],
            )?;
            Ok(())
        });
        tokio::time::timeout(std::time::Duration::from_secs(5), write)
            .await
            .expect("the write went on while the read was open")
            .unwrap();
        written.send(()).unwrap();
        // The read saw one snapshot: the write is not in it.
        assert_eq!(reading.await.unwrap().unwrap(), (0, 0));
        let count = database.read(summaries).await.unwrap();
        assert_eq!(count, 1);
    }

    #[tokio::test]
    async fn a_repeated_idempotency_key_gets_the_first_answer() {
        let (_dir, store) = store();
        let database = Database::new(store);
        let key = || Some("bp_1 /path k".to_owned());
        let first: String = database
            .run_once(key(), |_| random_id("run"))
            .await
            .unwrap();
        let second: String = database
            .run_once(key(), |_| random_id("run"))
            .await
            .unwrap();
        assert_eq!(first, second);
        let other: String = database.run_once(None, |_| random_id("run")).await.unwrap();
        assert_ne!(first, other);
    }
}
