//! How handlers read a request — path segments, query, bodies, the caller, its idempotency
//! key — each refusing what it cannot read in the API's error shape.

use super::db::{Caller, Database};
use super::refusal::Refusal;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::{header, request::Parts, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::Response;
use serde::de::DeserializeOwned;
use serde_json::error::Category;

/// The path's `{name}` segments, percent-decoded, as `T` (a `String` or a tuple of them).
pub(crate) struct ApiPath<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = Refusal;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Refusal> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(segments)) => Ok(Self(segments)),
            Err(rejection) => Err(Refusal::unreadable(
                rejection.status(),
                rejection.body_text(),
            )),
        }
    }
}

/// The query string, decoded, as `T`.
pub(crate) struct ApiQuery<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = Refusal;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Refusal> {
        match Query::<T>::from_request_parts(parts, state).await {
            Ok(Query(query)) => Ok(Self(query)),
            Err(rejection) => Err(Refusal::unreadable(
                rejection.status(),
                rejection.body_text(),
            )),
        }
    }
}

/// The body as it came.
struct RawBody(Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = Refusal;

    async fn from_request(request: Request, state: &S) -> Result<Self, Refusal> {
        match Bytes::from_request(request, state).await {
            Ok(bytes) => Ok(Self(bytes)),
            Err(rejection) => Err(Refusal::unreadable(
                rejection.status(),
                rejection.body_text(),
            )),
        }
    }
}

/// The JSON body as `T`; an empty body reads as `{}`. Unlike axum's `Json`, any content
/// type is accepted, as the hosted platform does.
pub(crate) struct ApiJson<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = Refusal;

    async fn from_request(request: Request, state: &S) -> Result<Self, Refusal> {
        let RawBody(bytes) = RawBody::from_request(request, state).await?;
        let text: &[u8] = if bytes.is_empty() { b"{}" } else { &bytes };
        serde_json::from_slice(text)
            .map(Self)
            .map_err(|error| match error.classify() {
                Category::Data => Refusal::bad_request(format!("invalid request: {error}")),
                _ => Refusal::bad_request(format!("invalid JSON: {error}")),
            })
    }
}

/// Lets a request through when it carries a valid API key (`Authorization: Bearer <key>`),
/// with its [`Caller`] for the handler; refuses it with 401 otherwise, and with 403 when
/// the key may only read and the request would write, or when `X-Org-Slug` names another
/// organization than the key's.
pub(crate) async fn authenticate(
    State(database): State<Database>,
    mut request: Request,
    next: Next,
) -> Result<Response, Refusal> {
    let key = bearer(request.headers())
        .ok_or_else(Refusal::unauthorized)?
        .to_owned();
    let caller = database
        .authenticate(move |store| store.caller(&key))
        .await?
        .ok_or_else(Refusal::unauthorized)?;
    let reads = matches!(*request.method(), Method::GET | Method::HEAD);
    if caller.read_only && !reads {
        return Err(Refusal::forbidden("This API key may only read."));
    }
    if let Some(slug) = request.headers().get("x-org-slug") {
        if slug.as_bytes() != caller.org.as_bytes() {
            return Err(Refusal::forbidden(format!(
                "This API key belongs to the organization {:?}; X-Org-Slug names another.",
                caller.org
            )));
        }
    }
    request.extensions_mut().insert(caller);
    Ok(next.run(request).await)
}

/// The database, acting in the caller's organization.
pub(crate) struct Scoped(pub(crate) Database);

impl FromRequestParts<Database> for Scoped {
    type Rejection = Refusal;

    async fn from_request_parts(parts: &mut Parts, database: &Database) -> Result<Self, Refusal> {
        let caller = Caller::from_request_parts(parts, database).await?;
        Ok(Self(database.scoped(&caller.org)))
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = Refusal;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Refusal> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(Refusal::unauthorized)
    }
}

/// The scope of an `Idempotency-Key` header: the caller's key, the path and the header's
/// value; `None` without the header.
pub(crate) struct Idempotency(pub(crate) Option<String>);

impl<S: Send + Sync> FromRequestParts<S> for Idempotency {
    type Rejection = Refusal;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Refusal> {
        let Some(value) = parts.headers.get("idempotency-key") else {
            return Ok(Self(None));
        };
        let value = value
            .to_str()
            .map_err(|_| Refusal::bad_request("Idempotency-Key must be visible ASCII"))?
            .to_owned();
        let caller = Caller::from_request_parts(parts, state).await?;
        let path = parts.uri.path();
        Ok(Self(Some(format!("{} {path} {value}", caller.key_prefix))))
    }
}
