//! Dashboard sessions: the login and logout pages, the session cookie and the check every
//! page makes before it reads anything. A session is stored (`db::sessions`): the cookie
//! holds a random token, never the key, and the session ends at logout, at expiry or when
//! its key is revoked. The login and logout forms are refused unless they come from a page
//! of this server (`Sec-Fetch-Site`, else `Origin`), so another site cannot log a reader in
//! as someone else.

use super::Dashboard;
use axum::extract::{Form, Query, State};
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Redirect, Response};
use bench_report::page::{escape_html, STYLES};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde::Deserialize;
use std::time::Duration;

/// The session cookie's name.
const COOKIE: &str = "bench_session";

/// How long a dashboard session lasts.
const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 60 * 60);

/// Longest API key the login form accepts.
const MAX_KEY_CHARS: usize = 256;

/// Longest session token a cookie may hold.
const MAX_TOKEN_CHARS: usize = 128;

/// The login page's query: where to go once logged in.
#[derive(Debug, Deserialize)]
pub(super) struct LoginQuery {
    #[serde(default)]
    next: String,
}

/// The login form.
#[derive(Debug, Deserialize)]
pub(super) struct LoginForm {
    key: String,
    #[serde(default)]
    next: String,
}

/// Who reads a page of an organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reader {
    /// A session of the organization (its pages offer to log out).
    Session,
    /// Anyone, without a session (`--public-read`).
    Public,
}

impl Dashboard {
    /// The reader of organization `org`'s page, or what to answer instead: the login page
    /// (by a redirect back to `uri`) without a session, 404 with a session of another
    /// organization (its pages do not exist for this reader).
    pub(super) async fn reader(
        &self,
        headers: &HeaderMap,
        org: &str,
        uri: &Uri,
    ) -> Result<Reader, Response> {
        match self.session(headers).await {
            Some(session) if session == org => Ok(Reader::Session),
            Some(_) => Err(message_page(StatusCode::NOT_FOUND, "Not found.")),
            None if self.public_read => Ok(Reader::Public),
            None => {
                let next = uri.path_and_query().map_or("/", |p| p.as_str());
                let next = utf8_percent_encode(next, NON_ALPHANUMERIC);
                Err(Redirect::to(&format!("/login?next={next}")).into_response())
            }
        }
    }

    /// The organization of the request's session, while it lasts and its key exists.
    async fn session(&self, headers: &HeaderMap) -> Option<String> {
        let token = session_token(headers)?;
        self.database
            .authenticate(move |store| store.session(&token))
            .await
            .ok()
            .flatten()
    }

    /// The `Set-Cookie` of a session token (an empty one, expired, ends it).
    fn cookie(&self, token: &str, lifetime: Duration) -> String {
        let secure = if self.secure_cookies { "; Secure" } else { "" };
        format!(
            "{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
            lifetime.as_secs()
        )
    }
}

/// The session token of the request's cookie.
fn session_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, token)| {
            *name == COOKIE && !token.is_empty() && token.len() <= MAX_TOKEN_CHARS
        })
        .map(|(_, token)| token.to_owned())
}

/// Whether a form comes from a page of this server. A browser says where a request comes
/// from: `Sec-Fetch-Site` must be `same-origin` (or `none`, a request the reader made
/// themselves); without it, `Origin` must be `origin` (the public URL's) or the origin the
/// request's `Host` names. A request with neither header is not a browser's and passes.
fn same_origin(headers: &HeaderMap, origin: &str) -> bool {
    let text = |name| headers.get(name).and_then(|value| value.to_str().ok());
    if let Some(site) = text(header::HeaderName::from_static("sec-fetch-site")) {
        return site == "same-origin" || site == "none";
    }
    let Some(sender) = text(header::ORIGIN) else {
        return true;
    };
    let named_by_host = text(header::HOST).is_some_and(|host| {
        sender
            .split_once("://")
            .is_some_and(|(_, authority)| authority.eq_ignore_ascii_case(host))
    });
    sender.eq_ignore_ascii_case(origin) || named_by_host
}

/// The page that refuses a form sent from another site.
fn cross_site() -> Response {
    message_page(
        StatusCode::FORBIDDEN,
        "This form was sent from another site. Log in from this server's login page.",
    )
}

/// `GET /`: the organization's benchmarks with a session, else the login page.
pub(super) async fn home(State(dashboard): State<Dashboard>, headers: HeaderMap) -> Response {
    match dashboard.session(&headers).await {
        Some(org) => Redirect::to(&format!("/{org}/benchmarks")).into_response(),
        None => Redirect::to("/login").into_response(),
    }
}

/// `GET /login`.
pub(super) async fn login_page(Query(query): Query<LoginQuery>) -> Response {
    login_form(StatusCode::OK, &query.next, None)
}

/// `POST /login`: a valid API key sent from this server's login page opens a session of
/// its organization and goes on to `next` (a path of this server), or to the
/// organization's benchmarks.
pub(super) async fn log_in(
    State(dashboard): State<Dashboard>,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> Response {
    if !same_origin(&headers, &dashboard.origin) {
        return cross_site();
    }
    let key = form.key.trim().to_owned();
    if key.is_empty() || key.chars().count() > MAX_KEY_CHARS {
        return login_form(
            StatusCode::UNAUTHORIZED,
            &form.next,
            Some("This is not an API key."),
        );
    }
    let opened = dashboard
        .database
        .run(move |store| store.open_session(&key, SESSION_LIFETIME))
        .await;
    let (token, org) = match opened {
        Ok(Some(session)) => session,
        Ok(None) => {
            return login_form(
                StatusCode::UNAUTHORIZED,
                &form.next,
                Some("This API key is not valid."),
            )
        }
        Err(refusal) => return message_page(refusal.status, &refusal.message),
    };
    let next = local_path(&form.next)
        .map(str::to_owned)
        .unwrap_or_else(|| format!("/{org}/benchmarks"));
    let cookie = dashboard.cookie(&token, SESSION_LIFETIME);
    ([(header::SET_COOKIE, cookie)], Redirect::to(&next)).into_response()
}

/// `GET /logout`: the button that logs out.
pub(super) async fn logout_page() -> Response {
    let body = "<form class=\"login\" method=\"post\" action=\"/logout\">\n<h1>bench</h1>\n\
                <button type=\"submit\">Log out</button>\n</form>";
    (StatusCode::OK, plain_page("Log out · bench", body)).into_response()
}

/// `POST /logout`: ends the request's session (from a page of this server) and goes to
/// the login page.
pub(super) async fn log_out(State(dashboard): State<Dashboard>, headers: HeaderMap) -> Response {
    if !same_origin(&headers, &dashboard.origin) {
        return cross_site();
    }
    if let Some(token) = session_token(&headers) {
        let closed = dashboard
            .database
            .run(move |store| store.close_session(&token))
            .await;
        if let Err(refusal) = closed {
            return message_page(refusal.status, &refusal.message);
        }
    }
    let cookie = dashboard.cookie("", Duration::ZERO);
    ([(header::SET_COOKIE, cookie)], Redirect::to("/login")).into_response()
}

/// `next` when it is a path of this server (not `//host…`, no backslash or control
/// character).
fn local_path(next: &str) -> Option<&str> {
    let local = next.starts_with('/')
        && !next.starts_with("//")
        && !next.contains('\\')
        && !next.chars().any(char::is_control);
    local.then_some(next)
}

/// The login page, with an error above the form.
fn login_form(status: StatusCode, next: &str, error: Option<&str>) -> Response {
    let error = error.map_or(String::new(), |error| {
        format!("<p class=\"error\">{}</p>", escape_html(error))
    });
    let body = format!(
        "<form class=\"login\" method=\"post\" action=\"/login\">\n<h1>bench</h1>\n{error}\
         <label>API key<input type=\"password\" name=\"key\" autocomplete=\"off\" autofocus required></label>\n\
         <input type=\"hidden\" name=\"next\" value=\"{}\">\n\
         <button type=\"submit\">Log in</button>\n\
         <p class=\"note\">Create a key with <code>bench serve keys create</code>.</p>\n</form>",
        escape_html(next)
    );
    (status, plain_page("Log in · bench", &body)).into_response()
}

/// A page with a message only.
pub(super) fn message_page(status: StatusCode, message: &str) -> Response {
    let body = format!(
        "<main><p class=\"error\">{}</p></main>",
        escape_html(message)
    );
    (status, plain_page("bench", &body)).into_response()
}

/// An HTML page without scripts, under the pages' policy.
fn plain_page(title: &str, body: &str) -> impl IntoResponse {
    let html = Html(format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<style>{STYLES}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n",
        escape_html(title)
    ));
    (super::page_headers(), html)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn only_paths_of_this_server_are_followed_after_login() {
        assert_eq!(
            local_path("/local/benchmarks/s/runs/r?x=1"),
            Some("/local/benchmarks/s/runs/r?x=1")
        );
        for elsewhere in [
            "",
            "https://evil.example",
            "//evil.example",
            "/\\evil",
            "/a\nb",
        ] {
            assert_eq!(local_path(elsewhere), None, "{elsewhere:?}");
        }
    }

    #[test]
    fn a_form_from_another_site_is_refused() {
        let origin = "https://bench.example.com";
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut headers = HeaderMap::new();
            for (name, value) in pairs {
                headers.insert(*name, HeaderValue::from_static(value));
            }
            headers
        };
        assert!(same_origin(&headers(&[]), origin), "not a browser");
        for allowed in [
            &[("sec-fetch-site", "same-origin")][..],
            &[("sec-fetch-site", "none")],
            &[("origin", "https://bench.example.com")],
            &[
                ("origin", "http://127.0.0.1:8787"),
                ("host", "127.0.0.1:8787"),
            ],
        ] {
            assert!(same_origin(&headers(allowed), origin), "{allowed:?}");
        }
        for refused in [
            &[
                ("sec-fetch-site", "cross-site"),
                ("origin", "https://bench.example.com"),
            ][..],
            &[("sec-fetch-site", "same-site")],
            &[
                ("origin", "https://evil.example"),
                ("host", "bench.example.com"),
            ],
            &[("origin", "null")],
        ] {
            assert!(!same_origin(&headers(refused), origin), "{refused:?}");
        }
    }
}
