//! An answer other than 2xx: a status, a machine-readable code and a message, sent as
//! `{ "error": { "code", "message" } }`.

use crate::api::types::{ErrorAnswer, ErrorDetail};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// A refused request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// HTTP status.
    pub(crate) status: StatusCode,
    /// Machine-readable code.
    pub(crate) code: &'static str,
    /// Human-readable message.
    pub(crate) message: String,
}

impl Refusal {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }

    /// 404 for a path no route serves.
    pub(crate) fn no_route() -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", "Not found.")
    }

    /// 404 for a missing thing (`Run`, `Worker`…).
    pub(crate) fn not_found(what: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("{what} not found."),
        )
    }

    /// 400 for a malformed request.
    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// 401 without a valid API key.
    pub(crate) fn unauthorized() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "Invalid or missing API key. Create one with `bench serve keys create`.",
        )
    }

    /// 403 for a credential that is valid but does not allow the request.
    pub(crate) fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    /// 409 for a request that contradicts the stored state.
    pub(crate) fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "conflict", message)
    }

    /// 413 for a body over the limit.
    pub(crate) fn too_large(message: impl Into<String>) -> Self {
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, "too_large", message)
    }

    /// The refusal of a request an extractor could not read, by the status it chose.
    pub(crate) fn unreadable(status: StatusCode, message: String) -> Self {
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            Self::too_large(message)
        } else if status.is_server_error() {
            Self::internal(message)
        } else {
            Self::bad_request(message)
        }
    }

    /// 500 for a failure of the server itself.
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }
}

impl From<rusqlite::Error> for Refusal {
    fn from(error: rusqlite::Error) -> Self {
        Self::internal(format!("database error: {error}"))
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let body = ErrorAnswer {
            error: ErrorDetail {
                code: self.code.to_owned(),
                message: self.message,
            },
        };
        (self.status, Json(body)).into_response()
    }
}
