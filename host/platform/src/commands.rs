//! The read commands of the platform CLI (spec §5.5): `benchmarks list`, `runs list`,
//! `runs show`, `results`, `artifacts list`, `export` and `auth status`, against the benchmarks platform or `bench serve`. Output is
//! a table, or pretty JSON with `--json`/`--format json`. Exit codes: 0, 1 for API errors
//! (`API error: <message>` then the response body), 2 for auth errors.

use super::api::paths;
use super::api::types::{BenchmarkAnswer, Items, Me, RunAnswer};
use super::auth::{self, AuthError, Overrides};
use super::client::{ApiError, Client, HttpPlatform, Platform, Retry};
use super::files::{write_atomically, Access};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A read command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// `benchmarks list`.
    Benchmarks {
        /// `--limit`.
        limit: Option<u32>,
        /// `--offset`.
        offset: Option<u32>,
    },
    /// `artifacts list <slug> <runId> [--worker <id>]`.
    Artifacts {
        /// Benchmark slug.
        slug: String,
        /// Run id.
        run_id: String,
        /// `--worker`.
        worker_id: Option<String>,
    },
    /// `runs list <slug>`.
    Runs {
        /// Benchmark slug.
        slug: String,
        /// `--limit`.
        limit: Option<u32>,
        /// `--offset`.
        offset: Option<u32>,
    },
    /// `runs show <slug> <runId>`.
    Run {
        /// Benchmark slug.
        slug: String,
        /// Run id.
        run_id: String,
    },
    /// `results <slug> [--run <id>]`.
    Results {
        /// Benchmark slug.
        slug: String,
        /// `--run`.
        run_id: Option<String>,
    },
    /// `export <slug> [--run <id>] [--out <dir>]`.
    Export {
        /// Benchmark slug.
        slug: String,
        /// `--run`.
        run_id: Option<String>,
        /// `--out` (default: the current directory).
        out: Option<PathBuf>,
    },
    /// `auth status`.
    AuthStatus,
}

/// How to print answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns.
    Table,
    /// Pretty JSON (2 spaces).
    Json,
}

enum Failure {
    Auth(AuthError),
    Api(ApiError),
    Io(std::io::Error),
}

/// Runs a read command and returns the exit code.
pub async fn run(query: &Query, overrides: &Overrides, format: Format) -> ExitCode {
    match execute(query, overrides, format).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Auth(error)) => {
            eprintln!("{error}");
            ExitCode::from(2)
        }
        Err(Failure::Api(error)) => {
            eprintln!("API error: {error}");
            if let ApiError::Status { body, .. } = &error {
                if !body.is_empty() {
                    eprintln!("{body}");
                }
            }
            ExitCode::FAILURE
        }
        Err(Failure::Io(error)) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

async fn execute(query: &Query, overrides: &Overrides, format: Format) -> Result<(), Failure> {
    let auth = auth::resolve(overrides).await.map_err(Failure::Auth)?;
    let client = Client::new(&auth, Retry::default()).map_err(Failure::Api)?;
    let reader = Reader { client: &client };
    let page = |limit: &Option<u32>, offset: &Option<u32>| {
        let mut query = Vec::new();
        if let Some(limit) = limit {
            query.push(("limit", limit.to_string()));
        }
        if let Some(offset) = offset {
            query.push(("offset", offset.to_string()));
        }
        query
    };
    match query {
        Query::AuthStatus => {
            let me: Me<Value, Value> = reader.get(paths::ME, &[], &[]).await?;
            let status = json!({
                "user": me.user,
                "activeOrganization": me.active_organization,
                "organizations": me.organizations,
            });
            print(&status, format, &[]);
        }
        Query::Benchmarks { limit, offset } => {
            let answer: Items<Value> = reader
                .get(paths::BENCHMARKS, &[], &page(limit, offset))
                .await?;
            print_items(answer, format, &["slug", "name", "updatedAt"]);
        }
        Query::Artifacts {
            slug,
            run_id,
            worker_id,
        } => {
            let answer: Items<Value> = match worker_id {
                Some(worker) => {
                    let segments = [slug.as_str(), run_id, worker];
                    reader.get(paths::WORKER_ARTIFACTS, &segments, &[]).await?
                }
                None => {
                    reader
                        .get(paths::RUN_ARTIFACTS, &[slug, run_id], &[])
                        .await?
                }
            };
            let columns = ["id", "workerId", "kind", "name", "contentType", "sizeBytes"];
            print_items(answer, format, &columns);
        }
        Query::Runs {
            slug,
            limit,
            offset,
        } => {
            let answer: Items<Value> = reader
                .get(paths::RUNS, &[slug], &page(limit, offset))
                .await?;
            print_items(
                answer,
                format,
                &["id", "name", "status", "totalTasks", "createdAt"],
            );
        }
        Query::Run { slug, run_id } => {
            let answer: RunAnswer<Value> = reader.get(paths::RUN, &[slug, run_id], &[]).await?;
            print(&answer.run, format, &[]);
        }
        Query::Results {
            slug,
            run_id: Some(run_id),
        } => {
            // Printed as it came: the hosted platform's results have more than this crate's.
            let answer: Value = reader.get(paths::RUN_RESULTS, &[slug, run_id], &[]).await?;
            match format {
                Format::Json => print(&answer, format, &[]),
                Format::Table => print(&rows(&answer["results"]), format, &[]),
            }
        }
        Query::Results { slug, run_id: None } => {
            let answer: Items<Value> = reader.get(paths::BENCHMARK_RESULTS, &[slug], &[]).await?;
            print_items(answer, format, &["runId", "runName"]);
        }
        Query::Export { slug, run_id, out } => {
            let out = out.clone().unwrap_or_else(|| PathBuf::from("."));
            let (path, document) = match run_id {
                Some(run_id) => (
                    out.join(format!("{slug}-{run_id}.json")),
                    reader.run_export(slug, run_id).await?,
                ),
                None => (
                    out.join(format!("{slug}.json")),
                    reader.benchmark_export(slug).await?,
                ),
            };
            write_json(&path, &document).map_err(Failure::Io)?;
            println!("Exported to {}", path.display());
        }
    }
    Ok(())
}

/// The reads of the commands, each answer read as the type its endpoint answers.
struct Reader<'a, P = HttpPlatform> {
    client: &'a Client<P>,
}

impl<P: Platform> Reader<'_, P> {
    async fn get<A: DeserializeOwned>(
        &self,
        template: &'static str,
        segments: &[&str],
        query: &[(&str, String)],
    ) -> Result<A, Failure> {
        let answer = self.client.get(template, segments, query).await;
        answer.map_err(Failure::Api)
    }

    /// `export <slug> --run <id>`: `{ benchmarkSlug, runId, run, results }`.
    async fn run_export(&self, slug: &str, run_id: &str) -> Result<Value, Failure> {
        let run: RunAnswer<Value> = self.get(paths::RUN, &[slug, run_id], &[]).await?;
        let results: Value = self.get(paths::RUN_RESULTS, &[slug, run_id], &[]).await?;
        Ok(json!({
            "benchmarkSlug": slug,
            "runId": run_id,
            "run": run.run,
            "results": results,
        }))
    }

    /// `export <slug>`: `{ benchmarkSlug, benchmark, runs, results }`.
    async fn benchmark_export(&self, slug: &str) -> Result<Value, Failure> {
        let benchmark: BenchmarkAnswer<Value> = self.get(paths::BENCHMARK, &[slug], &[]).await?;
        let runs: Items<Value> = self.get(paths::RUNS, &[slug], &[]).await?;
        let results: Items<Value> = self.get(paths::BENCHMARK_RESULTS, &[slug], &[]).await?;
        Ok(json!({
            "benchmarkSlug": slug,
            "benchmark": benchmark.benchmark,
            "runs": runs.items,
            "results": results.items,
        }))
    }
}

/// Prints the items of a list.
fn print_items(answer: Items<Value>, format: Format, columns: &[&str]) {
    print(&Value::Array(answer.items), format, columns);
}

fn write_json(path: &Path, value: &Value) -> std::io::Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    write_atomically(path, text.as_bytes(), Access::Shared)
}

/// Summary rows flattened for a table: provider, compositeScore, successRate, then each
/// metric's median.
fn rows(results: &Value) -> Value {
    let rows: Vec<Value> = results
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|row| {
                    let mut flat = json!({
                        "provider": row["provider"],
                        "compositeScore": row["compositeScore"],
                        "successRate": row["successRate"],
                    });
                    for metric in row["metrics"].as_array().into_iter().flatten() {
                        if let Some(name) = metric["name"].as_str() {
                            flat[format!("{name} (median)")] = metric["median"].clone();
                        }
                    }
                    flat
                })
                .collect()
        })
        .unwrap_or_default();
    Value::Array(rows)
}

/// Prints an answer: pretty JSON, or a table (`No results.` when empty). `columns` picks
/// the columns of a list; an empty slice shows every key.
fn print(value: &Value, format: Format, columns: &[&str]) {
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(value).unwrap_or_default()
        ),
        Format::Table => print!("{}", table(value, columns)),
    }
}

fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A list of objects as aligned columns (`columns` of each, every key when empty), an
/// object as key/value lines, anything else as `No results.`.
pub fn table(value: &Value, columns: &[&str]) -> String {
    let (header, rows): (Vec<String>, Vec<Vec<String>>) = match value {
        Value::Array(items) if !items.is_empty() => {
            let mut keys: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
            if keys.is_empty() {
                for item in items {
                    for key in item.as_object().into_iter().flat_map(|map| map.keys()) {
                        if !keys.contains(key) {
                            keys.push(key.clone());
                        }
                    }
                }
            }
            let rows = items
                .iter()
                .map(|item| keys.iter().map(|key| cell(&item[key.as_str()])).collect())
                .collect();
            (keys, rows)
        }
        Value::Object(map) if !map.is_empty() => (
            vec!["key".into(), "value".into()],
            map.iter()
                .map(|(key, value)| vec![key.clone(), cell(value)])
                .collect(),
        ),
        _ => return "No results.\n".into(),
    };
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|row| row[i].chars().count())
                .chain([header[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:width$}"))
            .collect();
        padded.join("  ").trim_end().to_owned() + "\n"
    };
    let mut out = line(&header);
    for row in &rows {
        out.push_str(&line(row));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::fake::{FakePlatform, Scripted};
    use crate::client::Endpoint;

    /// A client of a platform that answers each read of `answers` once with its body.
    fn answering(answers: &[(&'static str, &str)]) -> Client<FakePlatform> {
        let platform = FakePlatform::default();
        for (template, body) in answers {
            platform.script(Endpoint::Read(template), [Scripted::Body(body.to_string())]);
        }
        Client::over(platform, "http://platform.test/api/v1", Retry::ONCE)
    }

    #[tokio::test]
    async fn an_export_keeps_the_answers_as_they_came() {
        let client = answering(&[
            (
                paths::BENCHMARK,
                r#"{"benchmark":{"slug":"s","zeta":1,"alpha":{"b":2,"a":1}}}"#,
            ),
            (
                paths::RUNS,
                r#"{"items":[{"id":"r1","extra":true}],"total":1}"#,
            ),
            (paths::BENCHMARK_RESULTS, r#"{"items":[]}"#),
        ]);
        let document = Reader { client: &client }.benchmark_export("s").await;
        let Ok(document) = document else {
            panic!("no export");
        };
        assert_eq!(
            document.to_string(),
            r#"{"benchmarkSlug":"s","benchmark":{"slug":"s","zeta":1,"alpha":{"b":2,"a":1}},"runs":[{"id":"r1","extra":true}],"results":[]}"#
        );
    }

    #[tokio::test]
    async fn a_list_that_is_not_a_list_names_the_endpoint_and_the_field() {
        let client = answering(&[
            (paths::RUN, r#"{"run":{"id":"r1"}}"#),
            (paths::RUN_RESULTS, "{}"),
            (paths::BENCHMARK, r#"{"benchmark":{}}"#),
            (paths::RUNS, r#"{"items":{"id":"r1"}}"#),
        ]);
        let reader = Reader { client: &client };
        assert!(reader.run_export("s", "r1").await.is_ok());
        let Err(Failure::Api(error)) = reader.benchmark_export("s").await else {
            panic!("a map of runs is not a list");
        };
        assert_eq!(
            error.to_string(),
            "The platform's answer to GET /benchmarks/{slug}/runs does not fit the API at `items`: invalid type: map, expected a sequence at line 1 column 9"
        );
        let Err(Failure::Api(missing)) = reader.run_export("s", "r2").await else {
            panic!("an answer without its run");
        };
        assert_eq!(
            missing.to_string(),
            "The platform's answer to GET /benchmarks/{slug}/runs/{run_id} does not fit the API: missing field `run` at line 1 column 2"
        );
    }

    #[test]
    fn tables_align_columns_and_say_when_empty() {
        let items =
            json!([{"id": "r1", "name": "Run #1", "extra": 1}, {"id": "run-22", "name": null}]);
        assert_eq!(
            table(&items, &["id", "name"]),
            "id      name\nr1      Run #1\nrun-22\n"
        );
        assert_eq!(table(&json!([]), &["id"]), "No results.\n");
        assert_eq!(table(&Value::Null, &[]), "No results.\n");
        assert_eq!(
            table(&json!({"a": 1, "bb": "x"}), &[]),
            "key  value\na    1\nbb   x\n"
        );
    }

    #[test]
    fn result_rows_flatten_metric_medians() {
        let results = json!([{"provider": "e2b", "compositeScore": 90, "successRate": 1,
            "metrics": [{"name": "ttiMs", "median": 100}]}]);
        assert_eq!(
            rows(&results),
            json!([{"provider": "e2b", "compositeScore": 90, "successRate": 1, "ttiMs (median)": 100}])
        );
    }
}
