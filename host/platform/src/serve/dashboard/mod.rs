//! The dashboard of `bench serve`: read-only HTML pages on the API's port — the benchmarks
//! of an organization, a benchmark (its runs over time and latest leaderboard) and a run
//! (the `View at` URL the reporter prints, with the content of the HTML report), and two
//! runs of a benchmark compared as `bench compare` compares them. Reading needs a session:
//! the login page takes an API key and sets an `HttpOnly`, `SameSite=Strict` cookie holding
//! a session token (never the key; the session is stored, and ends at logout or when its
//! key is revoked); with `--public-read` every page opens without one. No page changes
//! anything. Every page runs only the two scripts of this server — the chart library
//! embedded in the binary ([`CHARTS_PATH`]) and the page script ([`PAGE_PATH`]) — under
//! [`PAGE_POLICY`]: the pages work offline. The pages that read every record of a run take
//! turns ([`heavy`]) and read their records a slice at a time, so no organization holds up
//! another's pages or anyone's authentication.

mod compare;
mod heavy;
mod pages;
mod session;

pub(crate) use heavy::Heavy;

use super::db::Database;
use super::headers::PAGE_POLICY;
use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::routing::get;
use axum::Router;
use std::sync::Arc;

/// Where the pages load the chart library from.
const CHARTS_PATH: &str = "/assets/echarts.min.js";

/// Where the pages load the page script from.
const PAGE_PATH: &str = "/assets/page.js";

/// Largest body the dashboard reads (the login form).
const MAX_FORM_BYTES: usize = 4 * 1024;

/// What the dashboard's pages work with.
#[derive(Clone)]
pub(crate) struct Dashboard {
    /// The platform's database.
    database: Database,
    /// Pages open without a session (`--public-read`).
    public_read: bool,
    /// Session cookies are marked `Secure` (the public URL is https).
    secure_cookies: bool,
    /// The origin of the public URL, which the login and logout forms come from.
    origin: Arc<str>,
    /// The turns of the heavy pages.
    heavy: Heavy,
}

impl Dashboard {
    /// The dashboard of `database`, reached at `public_url`.
    pub(crate) fn new(
        database: Database,
        public_url: &str,
        public_read: bool,
        heavy: Heavy,
    ) -> Self {
        Self {
            database,
            public_read,
            secure_cookies: public_url.starts_with("https://"),
            origin: Arc::from(origin_of(public_url)),
            heavy,
        }
    }
}

/// The origin (`scheme://host[:port]`) of a URL.
fn origin_of(url: &str) -> &str {
    let authority = url.find("://").map_or(0, |at| at + 3);
    match url[authority..].find('/') {
        Some(path) => &url[..authority + path],
        None => url,
    }
}

/// The headers of a page: its policy, and no caching.
fn page_headers() -> [(header::HeaderName, &'static str); 2] {
    [
        (header::CONTENT_SECURITY_POLICY, PAGE_POLICY),
        (header::CACHE_CONTROL, "no-store"),
    ]
}

/// The dashboard's routes, to merge with the API's.
pub(crate) fn routes(dashboard: Dashboard) -> Router {
    Router::new()
        .route("/", get(session::home))
        .route("/login", get(session::login_page).post(session::log_in))
        .route("/logout", get(session::logout_page).post(session::log_out))
        .route(CHARTS_PATH, get(pages::charts))
        .route(PAGE_PATH, get(pages::page_script))
        .route("/{org}/benchmarks", get(pages::benchmarks))
        .route("/{org}/benchmarks/{slug}", get(pages::benchmark))
        .route("/{org}/benchmarks/{slug}/runs/{run_id}", get(pages::run))
        .route(
            "/{org}/benchmarks/{slug}/compare",
            get(compare::compare_page),
        )
        .layer(DefaultBodyLimit::max(MAX_FORM_BYTES))
        .with_state(dashboard)
}

#[cfg(test)]
mod tests {
    use super::super::db::Store;
    use super::*;
    use crate::api::types::UpsertBenchmark;
    use axum::body::Body;
    use axum::http::{header, Request, StatusCode};
    use axum::response::Response;
    use tower::ServiceExt;

    /// The dashboard of a fresh database with one API key of `local` and benchmark `s`.
    fn dashboard(public_read: bool) -> (tempfile::TempDir, Router, String) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("bench.db")).unwrap();
        let key = store.create_key("local", false).unwrap();
        let body = UpsertBenchmark {
            name: "S".into(),
            config: None,
        };
        store.upsert_benchmark("s", &body).unwrap();
        let database = Database::new(store);
        let dashboard = Dashboard::new(database, "http://bench.test", public_read, Heavy::new(2));
        (dir, routes(dashboard), key)
    }

    async fn get(router: &Router, path: &str, cookie: Option<&str>) -> Response {
        let mut request = Request::builder().uri(path);
        if let Some(cookie) = cookie {
            request = request.header(header::COOKIE, cookie);
        }
        let request = request.body(Body::empty()).unwrap();
        router.clone().oneshot(request).await.unwrap()
    }

    async fn post(router: &Router, path: &str, form: &str, headers: &[(&str, &str)]) -> Response {
        let mut request = Request::builder()
            .method("POST")
            .uri(path)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Body::from(form.to_owned())).unwrap();
        router.clone().oneshot(request).await.unwrap()
    }

    async fn log_in(router: &Router, form: &str) -> Response {
        post(router, "/login", form, &[("sec-fetch-site", "same-origin")]).await
    }

    fn header_text(response: &Response, name: header::HeaderName) -> &str {
        response.headers()[name].to_str().unwrap()
    }

    #[test]
    fn the_origin_of_a_public_url_is_its_scheme_and_authority() {
        assert_eq!(
            origin_of("https://bench.example.com"),
            "https://bench.example.com"
        );
        assert_eq!(
            origin_of("https://bench.example.com/x/y"),
            "https://bench.example.com"
        );
        assert_eq!(origin_of("http://127.0.0.1:8787"), "http://127.0.0.1:8787");
    }

    #[tokio::test]
    async fn pages_need_a_session_made_from_a_valid_key() {
        let (_dir, router, key) = dashboard(false);
        let page = get(&router, "/local/benchmarks/s", None).await;
        assert_eq!(page.status(), StatusCode::SEE_OTHER);
        assert_eq!(
            header_text(&page, header::LOCATION),
            "/login?next=%2Flocal%2Fbenchmarks%2Fs"
        );

        let refused = log_in(&router, "key=bp_wrong&next=%2Flocal%2Fbenchmarks%2Fs").await;
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
        assert!(refused.headers().get(header::SET_COOKIE).is_none());

        let form = format!("key={key}&next=%2Flocal%2Fbenchmarks%2Fs");
        let logged_in = log_in(&router, &form).await;
        assert_eq!(logged_in.status(), StatusCode::SEE_OTHER);
        assert_eq!(
            header_text(&logged_in, header::LOCATION),
            "/local/benchmarks/s"
        );
        let cookie = header_text(&logged_in, header::SET_COOKIE);
        assert!(cookie.contains("; HttpOnly; SameSite=Strict;"), "{cookie}");
        assert!(!cookie.contains(&key), "the cookie holds the key: {cookie}");
        let session = cookie.split(';').next().unwrap();

        let page = get(&router, "/local/benchmarks/s", Some(session)).await;
        assert_eq!(page.status(), StatusCode::OK);
        let body = axum::body::to_bytes(page.into_body(), usize::MAX)
            .await
            .unwrap();
        assert!(String::from_utf8_lossy(&body).contains("\"page\":\"benchmark\""));
        // A session of `local` does not open another organization's pages.
        let other = get(&router, "/acme/benchmarks", Some(session)).await;
        assert_eq!(other.status(), StatusCode::NOT_FOUND);
        let forged = get(&router, "/local/benchmarks", Some("bench_session=bs_00")).await;
        assert_eq!(forged.status(), StatusCode::SEE_OTHER);

        // Logging out ends the session, from this server's page only.
        let elsewhere = [("origin", "https://evil.example")];
        let refused = post(&router, "/logout", "", &[("cookie", session), elsewhere[0]]).await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        let still = get(&router, "/local/benchmarks/s", Some(session)).await;
        assert_eq!(still.status(), StatusCode::OK);
        let out = post(&router, "/logout", "", &[("cookie", session)]).await;
        assert_eq!(out.status(), StatusCode::SEE_OTHER);
        assert!(header_text(&out, header::SET_COOKIE).contains("Max-Age=0"));
        let ended = get(&router, "/local/benchmarks/s", Some(session)).await;
        assert_eq!(ended.status(), StatusCode::SEE_OTHER);
    }

    #[tokio::test]
    async fn a_login_sent_from_another_site_opens_no_session() {
        let (_dir, router, key) = dashboard(false);
        let form = format!("key={key}");
        for from in [
            [("sec-fetch-site", "cross-site")],
            [("origin", "https://evil.example")],
        ] {
            let refused = post(&router, "/login", &form, &from).await;
            assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{from:?}");
            assert!(refused.headers().get(header::SET_COOKIE).is_none());
        }
        let same = post(&router, "/login", &form, &[("origin", "http://bench.test")]).await;
        assert_eq!(same.status(), StatusCode::SEE_OTHER);
    }

    #[tokio::test]
    async fn public_read_opens_the_pages_and_unknown_runs_are_404() {
        let (_dir, router, _key) = dashboard(true);
        assert_eq!(
            get(&router, "/local/benchmarks", None).await.status(),
            StatusCode::OK
        );
        let missing = get(&router, "/local/benchmarks/s/runs/run_missing", None).await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        let charts = get(&router, CHARTS_PATH, None).await;
        assert_eq!(charts.status(), StatusCode::OK);
        assert!(header_text(&charts, header::CONTENT_TYPE).starts_with("text/javascript"));
        let script = get(&router, PAGE_PATH, None).await;
        assert!(header_text(&script, header::CONTENT_TYPE).starts_with("text/javascript"));
    }

    #[tokio::test]
    async fn login_goes_only_to_paths_of_this_server() {
        let (_dir, router, key) = dashboard(false);
        let form = format!("key={key}&next=https%3A%2F%2Fevil.example%2F");
        let logged_in = log_in(&router, &form).await;
        assert_eq!(
            header_text(&logged_in, header::LOCATION),
            "/local/benchmarks"
        );
    }
}
