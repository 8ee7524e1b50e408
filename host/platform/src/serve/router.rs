//! The HTTP side of the self-hosted platform: one route per endpoint of [`paths`], behind
//! API-key auth except for the artifact transfers, which carry a signed token checked before
//! their body is read. Bodies have a limit per route: small for JSON, larger for result
//! batches, [`MAX_ARTIFACT_BYTES`] for artifacts. Each handler reads its
//! request with the extractors of [`super::extract`] and runs its database work through
//! [`Database`]; a POST carrying an `Idempotency-Key` is answered once and replayed
//! afterwards, so a client that retries a create whose answer it lost gets the same run,
//! worker or artifact.

use super::db::{Caller, Database};
use super::extract::{authenticate, ApiJson, ApiPath, ApiQuery, Idempotency, Scoped};
use super::refusal::Refusal;
use super::tokens::{Tokens, Transfer};
use crate::api::bounds::{MAX_ARTIFACT_BYTES, MAX_BATCH_BYTES, MAX_JSON_BYTES};
use crate::api::paths::{self, fill};
use crate::api::types::{
    Acknowledged, Artifact, ArtifactAnswer, Benchmark, BenchmarkAnswer, BenchmarkResult,
    ClaimAnswer, ClaimWorker, CreateArtifact, CreateArtifactAnswer, CreateRun, CreateRunAnswer,
    CursorPage, FinishWorker, FinishWorkerAnswer, Heartbeat, Items, IterationKind, IterationsQuery,
    Me, Page, Participant, ParticipantAnswer, PlanWorkers, Run, RunAnswer, RunResults, RunSummary,
    TaskResults, TaskResultsAnswer, UpsertBenchmark, UpsertParticipant, Worker, WorkerAnswer,
    WorkerOutcome,
};
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{get, post, put};
use axum::{middleware, Extension, Json, Router};
use serde_json::Value;
use std::time::SystemTime;

/// Where the links the server hands out point: uploads under its public URL, downloads
/// under the artifact origin (its public URL unless `--artifact-origin` names another), with
/// transfer tokens signed by [`Tokens`].
#[derive(Clone)]
pub(crate) struct Links {
    api_root: String,
    download_root: String,
    tokens: Tokens,
}

impl Links {
    /// Links under `public_url` (no trailing slash), downloads under `artifact_origin` when
    /// given, signed with `secret`.
    pub(crate) fn new(public_url: &str, artifact_origin: Option<&str>, secret: &[u8]) -> Self {
        let artifact_origin = artifact_origin.unwrap_or(public_url);
        Self {
            api_root: format!("{public_url}{}", paths::API_ROOT),
            download_root: format!("{artifact_origin}{}", paths::API_ROOT),
            tokens: Tokens::new(secret),
        }
    }

    /// A signed upload or download link of an artifact.
    fn transfer(&self, transfer: Transfer, artifact_id: &str) -> String {
        let token = self.tokens.issue(transfer, artifact_id, SystemTime::now());
        let (root, template) = match transfer {
            Transfer::Upload => (&self.api_root, paths::UPLOAD),
            Transfer::Download => (&self.download_root, paths::DOWNLOAD),
        };
        format!("{root}{}", fill(template, &[&token]))
    }
}

/// A handler's answer.
type Answer<T> = Result<Json<T>, Refusal>;

/// The platform's routes on `database`, handing out `links`.
pub(crate) fn router(database: Database, links: Links) -> Router {
    let api = Router::new()
        .route(paths::ME, get(me))
        .route(paths::BENCHMARKS, get(list_benchmarks))
        .route(paths::BENCHMARK, get(get_benchmark).put(upsert_benchmark))
        .route(paths::BENCHMARK_RESULTS, get(benchmark_results))
        .route(paths::RUNS, get(list_runs).post(create_run))
        .route(paths::RUN, get(get_run))
        .route(paths::RUN_RESULTS, get(run_results))
        .route(
            paths::RUN_SUMMARY,
            post(submit_summary).layer(DefaultBodyLimit::max(MAX_BATCH_BYTES)),
        )
        .route(paths::RUN_ITERATIONS, get(iterations))
        .route(paths::RUN_ARTIFACTS, get(run_artifacts))
        .route(paths::PARTICIPANTS, get(list_participants))
        .route(paths::PARTICIPANT, put(upsert_participant))
        .route(
            paths::PARTICIPANT_WORKERS,
            get(list_workers).post(plan_workers),
        )
        .route(paths::WORKER_CLAIM, post(claim_worker))
        .route(paths::WORKER_HEARTBEAT, post(heartbeat))
        .route(
            paths::WORKER_EVENTS,
            post(task_results).layer(DefaultBodyLimit::max(MAX_BATCH_BYTES)),
        )
        .route(
            paths::WORKER_ARTIFACTS,
            get(worker_artifacts).post(create_artifact),
        )
        .route(paths::WORKER_ARTIFACT, get(get_artifact))
        .route(paths::WORKER_COMPLETE, post(complete_worker))
        .route(paths::WORKER_FAIL, post(fail_worker))
        .route(paths::WORKER_RELEASE, post(release_worker))
        .route_layer(middleware::from_fn_with_state(
            database.clone(),
            authenticate,
        ))
        // Transfers carry a signed token instead of a key.
        .route(paths::UPLOAD, put(upload))
        .route(paths::DOWNLOAD, get(download));
    Router::new()
        .nest(paths::API_ROOT, api)
        .fallback(no_route)
        .method_not_allowed_fallback(no_route)
        .layer(DefaultBodyLimit::max(MAX_JSON_BYTES))
        .layer(Extension(links))
        .with_state(database)
}

async fn no_route() -> Refusal {
    Refusal::no_route()
}

async fn me(caller: Caller) -> Json<Me> {
    Json(caller.me())
}

async fn list_benchmarks(
    Scoped(database): Scoped,
    ApiQuery(page): ApiQuery<Page>,
) -> Answer<Items<Benchmark>> {
    database
        .read(move |store| store.list_benchmarks(page))
        .await
        .map(Json)
}

async fn get_benchmark(
    Scoped(database): Scoped,
    ApiPath(slug): ApiPath<String>,
) -> Answer<BenchmarkAnswer> {
    database
        .read(move |store| store.get_benchmark(&slug))
        .await
        .map(Json)
}

async fn upsert_benchmark(
    Scoped(database): Scoped,
    ApiPath(slug): ApiPath<String>,
    ApiJson(body): ApiJson<UpsertBenchmark>,
) -> Answer<BenchmarkAnswer> {
    database
        .run(move |store| store.upsert_benchmark(&slug, &body))
        .await
        .map(Json)
}

async fn benchmark_results(
    Scoped(database): Scoped,
    ApiPath(slug): ApiPath<String>,
    ApiQuery(page): ApiQuery<Page>,
) -> Answer<Items<BenchmarkResult>> {
    database
        .read(move |store| store.benchmark_results(&slug, page))
        .await
        .map(Json)
}

async fn list_runs(
    Scoped(database): Scoped,
    ApiPath(slug): ApiPath<String>,
    ApiQuery(page): ApiQuery<Page>,
) -> Answer<Items<Run>> {
    database
        .read(move |store| store.list_runs(&slug, page))
        .await
        .map(Json)
}

async fn create_run(
    Scoped(database): Scoped,
    ApiPath(slug): ApiPath<String>,
    Idempotency(once): Idempotency,
    ApiJson(body): ApiJson<CreateRun>,
) -> Answer<CreateRunAnswer> {
    database
        .run_once(once, move |store| store.create_run(&slug, &body))
        .await
        .map(Json)
}

async fn get_run(
    Scoped(database): Scoped,
    ApiPath((slug, run_id)): ApiPath<(String, String)>,
) -> Answer<RunAnswer> {
    database
        .read(move |store| store.get_run(&slug, &run_id))
        .await
        .map(Json)
}

async fn run_results(
    Scoped(database): Scoped,
    ApiPath((slug, run_id)): ApiPath<(String, String)>,
) -> Answer<RunResults> {
    database
        .read(move |store| store.run_results(&slug, &run_id))
        .await
        .map(Json)
}

async fn submit_summary(
    Scoped(database): Scoped,
    ApiPath((slug, run_id)): ApiPath<(String, String)>,
    Idempotency(once): Idempotency,
    ApiJson(body): ApiJson<RunSummary>,
) -> Answer<Acknowledged> {
    database
        .run_once(once, move |store| {
            store.submit_summary(&slug, &run_id, &body)
        })
        .await
        .map(Json)
}

async fn iterations(
    Scoped(database): Scoped,
    ApiPath((slug, run_id)): ApiPath<(String, String)>,
    ApiQuery(query): ApiQuery<IterationsQuery>,
) -> Answer<CursorPage<Value>> {
    if query.kind != IterationKind::Tasks {
        return Err(Refusal::bad_request(
            "iterations of type 'steps' are not kept by this platform",
        ));
    }
    database
        .read(move |store| {
            store.task_records(
                &slug,
                &run_id,
                query.participant.as_deref(),
                query.cursor.as_deref(),
                query.limit,
            )
        })
        .await
        .map(Json)
}

async fn run_artifacts(
    Scoped(database): Scoped,
    ApiPath((slug, run_id)): ApiPath<(String, String)>,
) -> Answer<Items<Artifact>> {
    database
        .read(move |store| store.list_artifacts(&slug, &run_id, None))
        .await
        .map(Json)
}

async fn list_participants(
    Scoped(database): Scoped,
    ApiPath((slug, run_id)): ApiPath<(String, String)>,
) -> Answer<Items<Participant>> {
    database
        .read(move |store| store.list_participants(&slug, &run_id))
        .await
        .map(Json)
}

async fn upsert_participant(
    Scoped(database): Scoped,
    ApiPath((slug, run_id, name)): ApiPath<(String, String, String)>,
    ApiJson(body): ApiJson<UpsertParticipant>,
) -> Answer<ParticipantAnswer> {
    database
        .run(move |store| store.upsert_participant(&slug, &run_id, &name, &body))
        .await
        .map(Json)
}

async fn list_workers(
    Scoped(database): Scoped,
    ApiPath((slug, run_id, name)): ApiPath<(String, String, String)>,
) -> Answer<Items<Worker>> {
    database
        .read(move |store| store.list_workers(&slug, &run_id, &name))
        .await
        .map(Json)
}

async fn plan_workers(
    Scoped(database): Scoped,
    ApiPath((slug, run_id, name)): ApiPath<(String, String, String)>,
    Idempotency(once): Idempotency,
    ApiJson(body): ApiJson<PlanWorkers>,
) -> Answer<Items<Worker>> {
    database
        .run_once(once, move |store| {
            store.plan_workers(&slug, &run_id, &name, &body)
        })
        .await
        .map(Json)
}

async fn claim_worker(
    Scoped(database): Scoped,
    ApiPath((slug, run_id, name)): ApiPath<(String, String, String)>,
    Idempotency(once): Idempotency,
    ApiJson(body): ApiJson<ClaimWorker>,
) -> Answer<ClaimAnswer> {
    database
        .run_once(once, move |store| {
            store.claim_worker(&slug, &run_id, &name, &body)
        })
        .await
        .map(Json)
}

async fn heartbeat(
    Scoped(database): Scoped,
    ApiPath((slug, run_id, worker_id)): ApiPath<(String, String, String)>,
    Idempotency(once): Idempotency,
    ApiJson(body): ApiJson<Heartbeat>,
) -> Answer<WorkerAnswer> {
    database
        .run_once(once, move |store| {
            store.heartbeat(&slug, &run_id, &worker_id, &body)
        })
        .await
        .map(Json)
}

async fn task_results(
    Scoped(database): Scoped,
    ApiPath((slug, run_id, worker_id)): ApiPath<(String, String, String)>,
    Idempotency(once): Idempotency,
    ApiJson(body): ApiJson<TaskResults>,
) -> Answer<TaskResultsAnswer> {
    database
        .run_once(once, move |store| {
            store.task_results(&slug, &run_id, &worker_id, &body)
        })
        .await
        .map(Json)
}

async fn worker_artifacts(
    Scoped(database): Scoped,
    ApiPath((slug, run_id, worker_id)): ApiPath<(String, String, String)>,
) -> Answer<Items<Artifact>> {
    database
        .read(move |store| store.list_artifacts(&slug, &run_id, Some(&worker_id)))
        .await
        .map(Json)
}

async fn create_artifact(
    Scoped(database): Scoped,
    ApiPath((slug, run_id, worker_id)): ApiPath<(String, String, String)>,
    Extension(links): Extension<Links>,
    Idempotency(once): Idempotency,
    ApiJson(body): ApiJson<CreateArtifact>,
) -> Answer<CreateArtifactAnswer> {
    database
        .run_once(once, move |store| {
            let artifact = store.create_artifact(&slug, &run_id, &worker_id, &body)?;
            Ok(CreateArtifactAnswer {
                artifact_id: Some(artifact.id.clone()),
                upload_url: Some(links.transfer(Transfer::Upload, &artifact.id)),
                artifact,
            })
        })
        .await
        .map(Json)
}

async fn get_artifact(
    Scoped(database): Scoped,
    ApiPath((slug, run_id, worker_id, artifact_id)): ApiPath<(String, String, String, String)>,
    Extension(links): Extension<Links>,
) -> Answer<ArtifactAnswer> {
    let artifact = database
        .read(move |store| store.get_artifact(&slug, &run_id, &worker_id, &artifact_id))
        .await?;
    Ok(Json(ArtifactAnswer {
        download_url: links.transfer(Transfer::Download, &artifact.id),
        artifact,
    }))
}

/// `complete`, `fail` or `release` of a worker.
async fn finish_worker(
    outcome: WorkerOutcome,
    database: Database,
    (slug, run_id, worker_id): (String, String, String),
    once: Option<String>,
    body: FinishWorker,
) -> Answer<FinishWorkerAnswer> {
    database
        .run_once(once, move |store| {
            store.finish_worker(&slug, &run_id, &worker_id, outcome, &body)
        })
        .await
        .map(Json)
}

async fn complete_worker(
    Scoped(database): Scoped,
    ApiPath(worker): ApiPath<(String, String, String)>,
    Idempotency(once): Idempotency,
    ApiJson(body): ApiJson<FinishWorker>,
) -> Answer<FinishWorkerAnswer> {
    finish_worker(WorkerOutcome::Complete, database, worker, once, body).await
}

async fn fail_worker(
    Scoped(database): Scoped,
    ApiPath(worker): ApiPath<(String, String, String)>,
    Idempotency(once): Idempotency,
    ApiJson(body): ApiJson<FinishWorker>,
) -> Answer<FinishWorkerAnswer> {
    finish_worker(WorkerOutcome::Fail, database, worker, once, body).await
}

async fn release_worker(
    Scoped(database): Scoped,
    ApiPath(worker): ApiPath<(String, String, String)>,
    Idempotency(once): Idempotency,
    ApiJson(body): ApiJson<FinishWorker>,
) -> Answer<FinishWorkerAnswer> {
    finish_worker(WorkerOutcome::Release, database, worker, once, body).await
}

/// `PUT /uploads/{token}`: the token and its artifact are checked before the body is read,
/// up to [`MAX_ARTIFACT_BYTES`].
async fn upload(
    State(database): State<Database>,
    Extension(links): Extension<Links>,
    ApiPath(token): ApiPath<String>,
    body: Body,
) -> Answer<Acknowledged> {
    let id = links
        .tokens
        .check(Transfer::Upload, &token, SystemTime::now())?;
    let known = id.clone();
    if !database
        .read(move |store| store.has_artifact(&known))
        .await?
    {
        return Err(Refusal::not_found("Upload"));
    }
    let limited = http_body_util::Limited::new(body, MAX_ARTIFACT_BYTES);
    let body = match http_body_util::BodyExt::collect(limited).await {
        Ok(collected) => collected.to_bytes(),
        Err(error) if error.is::<http_body_util::LengthLimitError>() => {
            return Err(Refusal::too_large(format!(
                "An artifact holds at most {} MiB.",
                MAX_ARTIFACT_BYTES >> 20
            )))
        }
        Err(error) => {
            return Err(Refusal::bad_request(format!(
                "The body could not be read: {error}"
            )))
        }
    };
    database
        .run(move |store| store.upload(&id, &body))
        .await
        .map(Json)
}

/// `GET /downloads/{token}`: the artifact's body as a file to save, never a page: its
/// served type (one of a list no browser runs), `Content-Disposition:
/// attachment` and the sandboxing policy of every non-page answer.
async fn download(
    State(database): State<Database>,
    Extension(links): Extension<Links>,
    ApiPath(token): ApiPath<String>,
) -> Result<impl IntoResponse, Refusal> {
    let id = links
        .tokens
        .check(Transfer::Download, &token, SystemTime::now())?;
    let download = database.read(move |store| store.download(&id)).await?;
    let disposition = format!(
        "attachment; filename=\"{}\"",
        file_name(download.name.as_deref())
    );
    Ok((
        [
            (header::CONTENT_TYPE, download.content_type.to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
        ],
        download.body,
    ))
}

/// An artifact's name as a download's file name: its letters, digits, `.`, `_` and `-`
/// (others become `_`, at most 100), `artifact` without one.
fn file_name(name: Option<&str>) -> String {
    let name: String = name
        .unwrap_or_default()
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.trim_matches(['.', '_']).is_empty() {
        "artifact".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::super::db::Store;
    use super::*;
    use axum::body::Body;
    use axum::http::{Method, Request, StatusCode};
    use serde_json::json;
    use tower::ServiceExt;

    /// A router on a fresh database with one API key.
    struct Platform {
        _dir: tempfile::TempDir,
        router: Router,
        key: String,
    }

    /// An answer: status, content type, content disposition and body.
    struct Reply {
        status: StatusCode,
        content_type: String,
        disposition: String,
        body: Vec<u8>,
    }

    impl Reply {
        fn json(&self) -> Value {
            serde_json::from_slice(&self.body).unwrap()
        }
    }

    impl Platform {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open(&dir.path().join("bench.db")).unwrap();
            let key = store.create_key("local", false).unwrap();
            let links = Links::new("http://bench.test", None, &store.token_secret().unwrap());
            Self {
                _dir: dir,
                router: router(Database::new(store), links),
                key,
            }
        }

        /// Sends a request with this platform's key.
        async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Reply {
            let request = Request::builder()
                .method(method)
                .uri(path)
                .header("Authorization", format!("Bearer {}", self.key));
            let body = body.map_or(Body::empty(), |body| Body::from(body.to_string()));
            self.send(request.body(body).unwrap()).await
        }

        async fn send(&self, request: Request<Body>) -> Reply {
            let response = self.router.clone().oneshot(request).await.unwrap();
            let text = |name| {
                response
                    .headers()
                    .get(name)
                    .map(|value: &header::HeaderValue| value.to_str().unwrap().to_owned())
                    .unwrap_or_default()
            };
            let content_type = text(header::CONTENT_TYPE);
            let disposition = text(header::CONTENT_DISPOSITION);
            let status = response.status();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap()
                .to_vec();
            Reply {
                status,
                content_type,
                disposition,
                body,
            }
        }

        /// Benchmark `s` with an own run of participant `e2b`, claimed: run, worker, attempt.
        async fn claimed_run(&self) -> (String, String, String) {
            let ok = |reply: Reply| {
                assert_eq!(reply.status, StatusCode::OK, "{}", reply.json());
                reply.json()
            };
            ok(self
                .call(
                    Method::PUT,
                    "/api/v1/benchmarks/s",
                    Some(json!({"name": "S"})),
                )
                .await);
            let body =
                json!({"totalTasks": 1, "workerCount": 1, "participants": ["e2b"], "config": {}});
            let run = ok(self
                .call(Method::POST, "/api/v1/benchmarks/s/runs", Some(body))
                .await);
            let run_id = run["run"]["id"].as_str().unwrap().to_owned();
            let workers = format!("/api/v1/benchmarks/s/runs/{run_id}/participants/e2b/workers");
            ok(self.call(Method::POST, &workers, Some(json!({}))).await);
            let claim = ok(self
                .call(Method::POST, &format!("{workers}/claim"), Some(json!({})))
                .await);
            let assignment = &claim["assignment"];
            let id = |key: &str| assignment[key].as_str().unwrap().to_owned();
            (run_id, id("workerId"), id("attemptId"))
        }
    }

    fn error(status: StatusCode, code: &str, message: &str) -> (StatusCode, Value) {
        (status, json!({"error": {"code": code, "message": message}}))
    }

    #[tokio::test]
    async fn paths_no_route_serves_are_404_in_the_error_shape() {
        let platform = Platform::new();
        let not_found = error(StatusCode::NOT_FOUND, "not_found", "Not found.");
        for (method, path) in [
            (Method::GET, "/"),
            (Method::GET, "/benchmarks"),
            (Method::GET, "/api/v1/nothing/here"),
            (Method::GET, "/api/v1/benchmarks/s/runs/r/workers/w/unknown"),
            (Method::DELETE, "/api/v1/me"),
            (Method::GET, "/api/v1/benchmarks/s/runs/r/summary"),
        ] {
            let reply = platform.call(method.clone(), path, None).await;
            assert_eq!((reply.status, reply.json()), not_found, "{method} {path}");
            assert_eq!(reply.content_type, "application/json");
        }
    }

    #[tokio::test]
    async fn api_routes_need_a_valid_key() {
        let platform = Platform::new();
        let unauthorized = error(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "Invalid or missing API key. Create one with `bench serve keys create`.",
        );
        // No header, an unknown key, and the right key without the `Bearer` scheme.
        for authorization in [None, Some("Bearer bp_wrong"), Some(platform.key.as_str())] {
            let mut request = Request::builder().uri("/api/v1/benchmarks");
            if let Some(value) = authorization {
                request = request.header("Authorization", value);
            }
            let reply = platform.send(request.body(Body::empty()).unwrap()).await;
            assert_eq!((reply.status, reply.json()), unauthorized);
        }
        let me = platform.call(Method::GET, "/api/v1/me", None).await;
        assert_eq!(me.status, StatusCode::OK);
        assert_eq!(me.json()["activeOrganization"]["slug"], "local");
        assert_eq!(
            me.json()["user"]["id"],
            format!("key_{}", &platform.key[..9])
        );
    }

    #[tokio::test]
    async fn segments_are_decoded_and_creates_with_one_idempotency_key_are_answered_once() {
        let platform = Platform::new();
        let path = crate::api::paths::fill(paths::BENCHMARK, &["a b/c"]);
        assert_eq!(path, "/benchmarks/a%20b%2Fc");
        let upserted = platform
            .call(
                Method::PUT,
                &format!("/api/v1{path}"),
                Some(json!({"name": "A"})),
            )
            .await;
        assert_eq!(upserted.status, StatusCode::OK);
        assert_eq!(upserted.json()["benchmark"]["slug"], "a b/c");

        let create = || {
            Request::builder()
                .method(Method::POST)
                .uri(format!("/api/v1{path}/runs"))
                .header("Authorization", format!("Bearer {}", platform.key))
                .header("Idempotency-Key", "bench:local:run")
                .body(Body::from(r#"{"runKey":null,"config":{}}"#))
                .unwrap()
        };
        let first = platform.send(create()).await.json();
        let second = platform.send(create()).await.json();
        assert_eq!(first, second);
        assert_eq!(first["run"]["name"], "A #1");
        assert_eq!(first["organizationSlug"], "local");
        let third = platform
            .call(
                Method::POST,
                &format!("/api/v1{path}/runs"),
                Some(json!({"config": {}})),
            )
            .await;
        assert_eq!(third.json()["run"]["name"], "A #2", "no key: a new run");

        let run_id = first["run"]["id"].as_str().unwrap();
        let shown = platform
            .call(Method::GET, &format!("/api/v1{path}/runs/{run_id}"), None)
            .await;
        assert_eq!(shown.json()["run"]["status"], "pending");
        let listed = platform
            .call(Method::GET, &format!("/api/v1{path}/runs?limit=1"), None)
            .await;
        assert_eq!(listed.json()["items"].as_array().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_key_sees_only_its_organization_and_a_read_only_key_cannot_write() {
        let platform = Platform::new();
        let (run_id, _, _) = platform.claimed_run().await;
        let (acme, reader) = {
            let store = Store::open(&platform._dir.path().join("bench.db")).unwrap();
            (
                store.create_key("acme", false).unwrap(),
                store.create_key("local", true).unwrap(),
            )
        };
        let with = |key: &str, method: Method, path: &str, body: Option<Value>| {
            let request = Request::builder()
                .method(method)
                .uri(path)
                .header("Authorization", format!("Bearer {key}"));
            let body = body.map_or(Body::empty(), |body| Body::from(body.to_string()));
            request.body(body).unwrap()
        };
        // Another organization's key sees nothing of `local`.
        let listed = platform
            .send(with(&acme, Method::GET, "/api/v1/benchmarks", None))
            .await;
        assert_eq!(listed.json(), json!({"items": []}));
        for path in [
            "/api/v1/benchmarks/s".to_owned(),
            "/api/v1/benchmarks/s/runs".to_owned(),
            format!("/api/v1/benchmarks/s/runs/{run_id}"),
            format!("/api/v1/benchmarks/s/runs/{run_id}/iterations?type=tasks"),
        ] {
            let reply = platform.send(with(&acme, Method::GET, &path, None)).await;
            assert_eq!(
                (reply.status, reply.json()),
                error(StatusCode::NOT_FOUND, "not_found", "Benchmark not found."),
                "{path}"
            );
        }
        // The same slug is another benchmark in another organization.
        let mine = platform
            .send(with(
                &acme,
                Method::PUT,
                "/api/v1/benchmarks/s",
                Some(json!({"name": "Mine"})),
            ))
            .await;
        assert_eq!(mine.status, StatusCode::OK);
        let runs = platform
            .send(with(&acme, Method::GET, "/api/v1/benchmarks/s/runs", None))
            .await;
        assert_eq!(
            runs.json(),
            json!({"items": []}),
            "local's runs stay local's"
        );
        let theirs = platform
            .call(Method::GET, "/api/v1/benchmarks/s", None)
            .await;
        assert_eq!(theirs.json()["benchmark"]["name"], "S");
        let me = platform
            .send(with(&acme, Method::GET, "/api/v1/me", None))
            .await;
        assert_eq!(me.json()["activeOrganization"]["slug"], "acme");
        // X-Org-Slug must name the key's organization.
        let mut request = with(&acme, Method::GET, "/api/v1/benchmarks", None);
        request
            .headers_mut()
            .insert("X-Org-Slug", "local".parse().unwrap());
        assert_eq!(platform.send(request).await.status, StatusCode::FORBIDDEN);
        // A read-only key reads and cannot write.
        let read = platform
            .send(with(&reader, Method::GET, "/api/v1/benchmarks/s", None))
            .await;
        assert_eq!(read.status, StatusCode::OK);
        let write = platform
            .send(with(
                &reader,
                Method::PUT,
                "/api/v1/benchmarks/s",
                Some(json!({"name": "X"})),
            ))
            .await;
        assert_eq!(
            (write.status, write.json()),
            error(
                StatusCode::FORBIDDEN,
                "forbidden",
                "This API key may only read."
            )
        );
    }

    #[tokio::test]
    async fn sizes_out_of_bounds_are_400_naming_the_field() {
        let platform = Platform::new();
        let (run_id, _, _) = platform.claimed_run().await;
        let runs = "/api/v1/benchmarks/s/runs";
        let workers = format!("{runs}/{run_id}/participants/e2b/workers");
        for (path, body, message) in [
            (
                runs.to_owned(),
                json!({"totalTasks": 4_294_967_296u64, "participants": ["a"]}),
                "totalTasks must be at most 4294967295 (got 4294967296)",
            ),
            (
                runs.to_owned(),
                json!({"totalTasks": 1, "workerCount": 100_000}),
                "workerCount must be at most 1000 (got 100000)",
            ),
            (
                format!("{runs}/{run_id}/participants/new"),
                json!({"totalTasks": u64::MAX}),
                "totalTasks must be at most 4294967295 (got 18446744073709551615)",
            ),
            (
                workers.clone(),
                json!({"workerCount": 1001}),
                "workerCount must be at most 1000 (got 1001)",
            ),
        ] {
            let method = if path.ends_with("/new") {
                Method::PUT
            } else {
                Method::POST
            };
            let reply = platform.call(method, &path, Some(body)).await;
            assert_eq!(
                (reply.status, reply.json()),
                error(StatusCode::BAD_REQUEST, "bad_request", message),
                "{path}"
            );
        }
        let negative = platform
            .call(Method::POST, runs, Some(json!({"totalTasks": -1})))
            .await;
        assert_eq!(
            (negative.status, negative.json()),
            error(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "invalid request: invalid value: integer `-1`, expected u64 at line 1 column 16"
            )
        );
    }

    #[tokio::test]
    async fn bad_query_values_and_bodies_are_400_and_missing_things_404() {
        let platform = Platform::new();
        let (run_id, _, _) = platform.claimed_run().await;
        let refused = |reply: Reply| {
            let body = reply.json();
            assert_eq!(body["error"]["code"], "bad_request", "{body}");
            assert_eq!(reply.status, StatusCode::BAD_REQUEST);
            body["error"]["message"].as_str().unwrap().to_owned()
        };
        for query in ["limit=x", "limit=-1", "offset=1.5"] {
            let reply = platform
                .call(Method::GET, &format!("/api/v1/benchmarks?{query}"), None)
                .await;
            let message = refused(reply);
            assert!(
                message.contains(query.split('=').next().unwrap()),
                "{message}"
            );
        }
        let iterations = format!("/api/v1/benchmarks/s/runs/{run_id}/iterations");
        let steps = platform
            .call(Method::GET, &format!("{iterations}?type=steps"), None)
            .await;
        assert_eq!(
            refused(steps),
            "iterations of type 'steps' are not kept by this platform"
        );
        let bogus = platform
            .call(Method::GET, &format!("{iterations}?type=bogus"), None)
            .await;
        assert!(refused(bogus).contains("bogus"));
        let tasks = platform
            .call(
                Method::GET,
                &format!("{iterations}?type=tasks&participant=e2b"),
                None,
            )
            .await;
        assert_eq!(tasks.json(), json!({"items": []}));

        let invalid = Request::builder()
            .method(Method::PUT)
            .uri("/api/v1/benchmarks/s")
            .header("Authorization", format!("Bearer {}", platform.key))
            .body(Body::from("{not json"))
            .unwrap();
        assert!(refused(platform.send(invalid).await).starts_with("invalid JSON: "));
        let nameless = platform
            .call(Method::PUT, "/api/v1/benchmarks/s", Some(json!({})))
            .await;
        assert!(refused(nameless).starts_with("invalid request: missing field `name`"));
        let negative = platform
            .call(
                Method::PUT,
                &format!("/api/v1/benchmarks/s/runs/{run_id}/participants/x"),
                Some(json!({"totalTasks": -1})),
            )
            .await;
        assert!(refused(negative).contains("-1"));

        let missing = platform
            .call(Method::GET, "/api/v1/benchmarks/s/runs/run_missing", None)
            .await;
        assert_eq!(
            (missing.status, missing.json()),
            error(StatusCode::NOT_FOUND, "not_found", "Run not found.")
        );
    }

    #[tokio::test]
    async fn a_stale_attempt_is_a_conflict() {
        let platform = Platform::new();
        let (run_id, worker_id, attempt_id) = platform.claimed_run().await;
        let worker = format!("/api/v1/benchmarks/s/runs/{run_id}/workers/{worker_id}");
        let stale = json!({"attemptId": "att_old", "progressDone": 0, "progressInFlight": 0,
            "progressErrors": 0, "progressTotal": 1});
        let reply = platform
            .call(Method::POST, &format!("{worker}/heartbeat"), Some(stale))
            .await;
        assert_eq!(reply.status, StatusCode::CONFLICT);
        assert_eq!(
            reply.json()["error"]["message"],
            format!("Attempt att_old is not the current attempt of worker {worker_id}.")
        );
        let failed = platform
            .call(
                Method::POST,
                &format!("{worker}/fail"),
                Some(json!({"attemptId": attempt_id, "errorCode": "Error", "errorMessage": "no"})),
            )
            .await;
        assert_eq!(failed.status, StatusCode::OK);
        assert_eq!(
            failed.json()["attempt"],
            json!({"id": attempt_id, "status": "failed"})
        );
        assert_eq!(failed.json()["worker"]["errorMessage"], "no");
    }

    #[test]
    fn a_download_is_named_by_a_safe_file_name() {
        assert_eq!(file_name(Some("metrics.jsonl")), "metrics.jsonl");
        assert_eq!(file_name(Some("\"a\r\n b/../x.html")), "_a___b_.._x.html");
        assert_eq!(file_name(Some("..")), "artifact");
        assert_eq!(file_name(None), "artifact");
    }

    #[tokio::test]
    async fn artifact_bodies_travel_by_signed_links_one_direction_each() {
        let platform = Platform::new();
        let (run_id, worker_id, attempt_id) = platform.claimed_run().await;
        let create = Request::builder()
            .method(Method::POST)
            .uri(format!(
                "/api/v1/benchmarks/s/runs/{run_id}/workers/{worker_id}/artifacts"
            ))
            .header("Authorization", format!("Bearer {}", platform.key))
            .header("Host", "platform.test:8787")
            .body(Body::from(
                json!({"attemptId": attempt_id, "kind": "coordinator.log",
                    "contentType": "text/plain", "name": "worker.log",
                    "metadata": {"sizeBytes": 5}})
                .to_string(),
            ))
            .unwrap();
        let created = platform.send(create).await.json();
        let upload_url = created["uploadUrl"].as_str().unwrap();
        // Links come from the public URL, not from the request's Host.
        let upload_path = upload_url
            .strip_prefix("http://bench.test")
            .unwrap_or_else(|| panic!("{upload_url}"));
        assert!(upload_path.starts_with("/api/v1/uploads/"));
        let artifact_id = created["artifactId"].as_str().unwrap();
        assert_eq!(created["artifact"]["id"], artifact_id);

        let upload = Request::builder()
            .method(Method::PUT)
            .uri(upload_path)
            .header("Content-Type", "text/plain")
            .body(Body::from("hello"))
            .unwrap();
        let uploaded = platform.send(upload).await;
        assert_eq!(
            (uploaded.status, uploaded.json()),
            (StatusCode::OK, json!({"ok": true}))
        );

        let shown = platform
            .call(
                Method::GET,
                &format!(
                    "/api/v1/benchmarks/s/runs/{run_id}/workers/{worker_id}/artifacts/{artifact_id}"
                ),
                None,
            )
            .await
            .json();
        assert_eq!(shown["artifact"]["sizeBytes"], 5);
        let download_url = shown["downloadUrl"].as_str().unwrap();
        let download_path = &download_url[download_url.find("/api/v1/").unwrap()..];
        let download = Request::builder()
            .uri(download_path)
            .body(Body::empty())
            .unwrap();
        let downloaded = platform.send(download).await;
        assert_eq!(downloaded.status, StatusCode::OK);
        assert_eq!(downloaded.content_type, "text/plain");
        assert_eq!(
            downloaded.disposition,
            "attachment; filename=\"worker.log\""
        );
        assert_eq!(downloaded.body, b"hello");

        // A download link cannot write, an upload link cannot read.
        let overwrite = Request::builder()
            .method(Method::PUT)
            .uri(download_path.replace("/downloads/", "/uploads/"))
            .body(Body::from("evil"))
            .unwrap();
        let overwrite = platform.send(overwrite).await;
        assert_eq!(
            (overwrite.status, overwrite.json()),
            error(StatusCode::NOT_FOUND, "not_found", "Upload not found.")
        );
        let read = Request::builder()
            .uri(upload_path.replace("/uploads/", "/downloads/"))
            .body(Body::empty())
            .unwrap();
        assert_eq!(platform.send(read).await.status, StatusCode::NOT_FOUND);
        // The artifact is not another worker's, nor another run's.
        for path in [
            format!("/api/v1/benchmarks/s/runs/{run_id}/workers/wk_other/artifacts/{artifact_id}"),
            format!(
                "/api/v1/benchmarks/s/runs/run_other/workers/{worker_id}/artifacts/{artifact_id}"
            ),
        ] {
            let status = platform.call(Method::GET, &path, None).await.status;
            assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        }

        let unknown = Request::builder()
            .uri("/api/v1/downloads/nope")
            .body(Body::empty())
            .unwrap();
        let unknown = platform.send(unknown).await;
        assert_eq!(
            (unknown.status, unknown.json()),
            error(StatusCode::NOT_FOUND, "not_found", "Download not found.")
        );
    }
}
