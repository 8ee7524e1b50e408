//! The security headers of every answer of `bench serve`, page, API answer, asset or
//! artifact alike: a Content-Security-Policy that no page may be framed under
//! (`frame-ancestors 'none'`, with `X-Frame-Options: DENY` for older browsers),
//! `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`. A dashboard page
//! runs only the scripts of this server ([`PAGE_POLICY`]); anything else — JSON, errors,
//! artifact downloads — is sandboxed and may load nothing ([`DEFAULT_POLICY`]).

use axum::extract::Request;
use axum::http::header::{
    CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

/// The policy of the dashboard's HTML pages: scripts and forms of this origin only, inline
/// styles (the pages' own), images from `data:` (chart exports), never in a frame.
pub(crate) const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// The policy of every other answer: nothing loads, and a browser that renders it anyway
/// renders it sandboxed (no script, an origin of its own).
pub(crate) const DEFAULT_POLICY: &str =
    "default-src 'none'; sandbox; base-uri 'none'; frame-ancestors 'none'";

/// Adds the security headers to an answer; a page's own policy ([`PAGE_POLICY`]) is kept.
pub(crate) async fn secure(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers
        .entry(CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(DEFAULT_POLICY));
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_policy_allows_inline_scripts_or_framing() {
        for policy in [PAGE_POLICY, DEFAULT_POLICY] {
            assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
            let scripts = policy
                .split(';')
                .find(|directive| directive.trim().starts_with("script-src"))
                .unwrap_or("");
            assert!(!scripts.contains("unsafe-inline"), "{policy}");
        }
        assert!(DEFAULT_POLICY.contains("sandbox"));
    }
}
