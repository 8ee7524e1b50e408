//! Dashboard sessions: the login page, the session cookie and the check every page makes
//! before it reads anything.

use super::super::tokens::SESSION_LIFETIME;
use super::Dashboard;
use axum::extract::{Form, Query, State};
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Redirect, Response};
use bench_runtime::report::page::{escape, STYLES};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde::Deserialize;
use std::time::SystemTime;

/// The session cookie's name.
const COOKIE: &str = "bench_session";

/// Longest API key the login form accepts.
const MAX_KEY_CHARS: usize = 256;

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

impl Dashboard {
    /// What to answer instead of organization `org`'s page, when the request may not read
    /// it: the login page (by a redirect back to `uri`) without a session, 404 with a session
    /// of another organization (its pages do not exist for this reader). `None` with a
    /// session of `org`, or with none under `--public-read`.
    pub(super) fn refusal(&self, headers: &HeaderMap, org: &str, uri: &Uri) -> Option<Response> {
        match self.session(headers) {
            Some(session) if session == org => None,
            Some(_) => Some(message_page(StatusCode::NOT_FOUND, "Not found.")),
            None if self.public_read => None,
            None => {
                let next = uri.path_and_query().map_or("/", |p| p.as_str());
                let next = utf8_percent_encode(next, NON_ALPHANUMERIC);
                Some(Redirect::to(&format!("/login?next={next}")).into_response())
            }
        }
    }

    /// The organization of the request's valid session cookie.
    fn session(&self, headers: &HeaderMap) -> Option<String> {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .filter(|(name, _)| *name == COOKIE)
            .find_map(|(_, token)| self.tokens.check_session(token, SystemTime::now()))
    }
}

/// `GET /`: the organization's benchmarks with a session, else the login page.
pub(super) async fn home(State(dashboard): State<Dashboard>, headers: HeaderMap) -> Response {
    match dashboard.session(&headers) {
        Some(org) => Redirect::to(&format!("/{org}/benchmarks")).into_response(),
        None => Redirect::to("/login").into_response(),
    }
}

/// `GET /login`.
pub(super) async fn login_page(Query(query): Query<LoginQuery>) -> Response {
    login_form(StatusCode::OK, &query.next, None)
}

/// `POST /login`: a valid API key opens a session of its organization and goes on to
/// `next` (a path of this server), or to the organization's benchmarks.
pub(super) async fn log_in(
    State(dashboard): State<Dashboard>,
    Form(form): Form<LoginForm>,
) -> Response {
    let key = form.key.trim().to_owned();
    if key.is_empty() || key.chars().count() > MAX_KEY_CHARS {
        return login_form(
            StatusCode::UNAUTHORIZED,
            &form.next,
            Some("This is not an API key."),
        );
    }
    let caller = match dashboard
        .database
        .read(move |store| store.caller(&key))
        .await
    {
        Ok(caller) => caller,
        Err(refusal) => return message_page(refusal.status, &refusal.message),
    };
    let Some(caller) = caller else {
        return login_form(
            StatusCode::UNAUTHORIZED,
            &form.next,
            Some("This API key is not valid."),
        );
    };
    let token = dashboard
        .tokens
        .issue_session(&caller.org, SystemTime::now());
    let secure = if dashboard.secure_cookies {
        "; Secure"
    } else {
        ""
    };
    let cookie = format!(
        "{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
        SESSION_LIFETIME.as_secs()
    );
    let next = local_path(&form.next)
        .map(str::to_owned)
        .unwrap_or_else(|| format!("/{}/benchmarks", caller.org));
    ([(header::SET_COOKIE, cookie)], Redirect::to(&next)).into_response()
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
        format!("<p class=\"error\">{}</p>", escape(error))
    });
    let body = format!(
        "<form class=\"login\" method=\"post\" action=\"/login\">\n<h1>bench</h1>\n{error}\
         <label>API key<input type=\"password\" name=\"key\" autocomplete=\"off\" autofocus required></label>\n\
         <input type=\"hidden\" name=\"next\" value=\"{}\">\n\
         <button type=\"submit\">Log in</button>\n\
         <p class=\"note\">Create a key with <code>bench serve --create-key</code>.</p>\n</form>",
        escape(next)
    );
    (status, plain_page("Log in · bench", &body)).into_response()
}

/// A page with a message only.
pub(super) fn message_page(status: StatusCode, message: &str) -> Response {
    let body = format!("<main><p class=\"error\">{}</p></main>", escape(message));
    (status, plain_page("bench", &body)).into_response()
}

/// An HTML page without scripts.
fn plain_page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'\">\n\
         <title>{}</title>\n<style>{STYLES}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n",
        escape(title)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
