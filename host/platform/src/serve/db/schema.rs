//! The database's tables. [`apply`] creates those that are missing, so a new file and an
//! existing one open the same way.

use rusqlite::Connection;

const TABLES: &str = "
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

/// Sets the journal mode and creates the missing tables.
pub(super) fn apply(db: &Connection) -> rusqlite::Result<()> {
    db.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")?;
    db.execute_batch(TABLES)
}
