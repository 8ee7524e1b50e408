//! The database's tables, built by a list of migrations: [`apply`] runs those a file has
//! not had yet (counted in `PRAGMA user_version`), each in one transaction, so a new file
//! and an old one end up the same.

use rusqlite::Connection;

/// The migrations, oldest first; a file that had the first `n` has `user_version = n`.
const MIGRATIONS: &[&str] = &[
    // 1: the first schema.
    "
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
",
    // 2: how many task records each worker delivered (a run's status compares them with
    // its plan), and the indexes a run's reads need.
    "
ALTER TABLE workers ADD COLUMN recorded INTEGER NOT NULL DEFAULT 0;
UPDATE workers SET recorded = (SELECT COUNT(*) FROM task_results t WHERE t.worker_id = workers.id);
CREATE INDEX IF NOT EXISTS workers_by_run ON workers (run_id, participant, range_start);
CREATE INDEX IF NOT EXISTS task_results_by_run ON task_results (run_id, seq);
CREATE INDEX IF NOT EXISTS artifacts_by_run ON artifacts (run_id, worker_id);
",
    // 3: the server's secrets (the key that signs artifact transfer tokens); an artifact's
    // `token` column holds its id since tokens are signed rather than stored.
    "
CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
UPDATE artifacts SET token = id;
",
    // 4: organisations: each API key belongs to one (and may only read), each benchmark
    // too; what was there belongs to `local`.
    "
ALTER TABLE api_keys ADD COLUMN org TEXT NOT NULL DEFAULT 'local';
ALTER TABLE api_keys ADD COLUMN read_only INTEGER NOT NULL DEFAULT 0;
ALTER TABLE benchmarks ADD COLUMN org TEXT NOT NULL DEFAULT 'local';
",
    // 5: organizations of their own (each key's and benchmark's, and `local`); benchmark
    // slugs unique per organization, not across them (the runs name their organization);
    // dashboard sessions stored by hash, each of the key that opened it; an index to find
    // a worker's task by its index.
    "
CREATE TABLE organizations (slug TEXT PRIMARY KEY, created_at TEXT NOT NULL);
INSERT OR IGNORE INTO organizations (slug, created_at)
  SELECT org, MIN(created_at) FROM api_keys GROUP BY org;
INSERT OR IGNORE INTO organizations (slug, created_at)
  SELECT org, MIN(created_at) FROM benchmarks GROUP BY org;
INSERT OR IGNORE INTO organizations (slug, created_at)
  VALUES ('local', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
CREATE TABLE benchmarks_by_org (org TEXT NOT NULL, slug TEXT NOT NULL, name TEXT NOT NULL, config TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (org, slug));
INSERT INTO benchmarks_by_org (org, slug, name, config, created_at, updated_at)
  SELECT org, slug, name, config, created_at, updated_at FROM benchmarks ORDER BY rowid;
CREATE TABLE runs_by_org (id TEXT PRIMARY KEY, org TEXT NOT NULL, benchmark_slug TEXT NOT NULL,
  name TEXT NOT NULL, run_key TEXT, total_tasks INTEGER, worker_count INTEGER, config TEXT,
  created_at TEXT NOT NULL, UNIQUE (org, benchmark_slug, run_key));
INSERT INTO runs_by_org (id, org, benchmark_slug, name, run_key, total_tasks, worker_count, config, created_at)
  SELECT r.id, COALESCE(b.org, 'local'), r.benchmark_slug, r.name, r.run_key, r.total_tasks,
    r.worker_count, r.config, r.created_at
  FROM runs r LEFT JOIN benchmarks b ON b.slug = r.benchmark_slug ORDER BY r.rowid;
DROP TABLE runs;
DROP TABLE benchmarks;
ALTER TABLE benchmarks_by_org RENAME TO benchmarks;
ALTER TABLE runs_by_org RENAME TO runs;
CREATE INDEX runs_by_benchmark ON runs (org, benchmark_slug, created_at);
CREATE TABLE sessions (hash TEXT PRIMARY KEY, key_hash TEXT NOT NULL, org TEXT NOT NULL,
  created_at TEXT NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX sessions_by_key ON sessions (key_hash);
CREATE INDEX task_results_by_task ON task_results (worker_id, task_index);
",
];

/// Sets the journal mode (and how long to wait for another process's write, such as
/// `bench serve keys`) and runs the migrations the file has not had.
pub(super) fn apply(db: &mut Connection) -> rusqlite::Result<()> {
    db.busy_timeout(std::time::Duration::from_secs(5))?;
    db.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")?;
    let done: usize = db.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    for (index, migration) in MIGRATIONS.iter().enumerate().skip(done) {
        let transaction = db.transaction()?;
        transaction.execute_batch(migration)?;
        transaction.pragma_update(None, "user_version", index + 1)?;
        transaction.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_the_first_schema_is_migrated_with_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        let old = Connection::open(&path).unwrap();
        old.execute_batch(MIGRATIONS[0]).unwrap();
        old.execute_batch(
            "INSERT INTO workers (id, run_id, participant, range_start, range_count, status, created_at, updated_at)
               VALUES ('wk_1', 'run_1', 'a', 0, 2, 'completed', 't', 't');
             INSERT INTO task_results (run_id, participant, worker_id, batch_id, record)
               VALUES ('run_1', 'a', 'wk_1', 'evb_1', '{}'), ('run_1', 'a', 'wk_1', 'evb_1', '{}');",
        )
        .unwrap();
        drop(old);
        let mut db = Connection::open(&path).unwrap();
        apply(&mut db).unwrap();
        apply(&mut db).unwrap();
        let version: usize = db
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len());
        let recorded: i64 = db
            .query_row(
                "SELECT recorded FROM workers WHERE id = 'wk_1'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(recorded, 2);
    }

    #[test]
    fn a_file_of_global_slugs_keeps_its_benchmarks_and_runs_under_their_organization() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        let mut old = Connection::open(&path).unwrap();
        for migration in &MIGRATIONS[..4] {
            old.execute_batch(migration).unwrap();
        }
        old.pragma_update(None, "user_version", 4).unwrap();
        old.execute_batch(
            "INSERT INTO api_keys (hash, prefix, created_at, org) VALUES ('h', 'bp_1', 't', 'acme');
             INSERT INTO benchmarks (slug, name, created_at, updated_at, org) VALUES ('s', 'S', 't', 't', 'acme');
             INSERT INTO runs (id, benchmark_slug, name, created_at) VALUES ('run_1', 's', 'S #1', 't');",
        )
        .unwrap();
        apply(&mut old).unwrap();
        let run_org: String = old
            .query_row("SELECT org FROM runs WHERE id = 'run_1'", [], |row| {
                row.get(0)
            })
            .unwrap();
        assert_eq!(run_org, "acme");
        let orgs: Vec<String> = old
            .prepare("SELECT slug FROM organizations ORDER BY slug")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(orgs, ["acme", "local"]);
        // The same slug in another organization.
        old.execute(
            "INSERT INTO benchmarks (org, slug, name, created_at, updated_at) VALUES ('local', 's', 'Mine', 't', 't')",
            [],
        )
        .unwrap();
    }
}
