//! Outbound HTTP over wasi:http (feature `http`). The host decides which destinations a
//! participant may reach; a denied request fails with errorCode `http_request_denied`.
//!
//! Sending returns as soon as the response head arrives, so a step around [`get`] times the
//! first byte and a step around [`Response::bytes`] the download:
//!
//! ```ignore
//! let response = ctx.step("ttfb", || bench_guest::http::get(url))?;
//! let body = ctx.step("download", || response.bytes())?;
//! ```

use crate::bindings::bench::task::bodies::{read_whole, ReadError};
use crate::bindings::wasi::io::streams::InputStream as ContractStream;
use crate::TaskError;
use wasip2::http::outgoing_handler;
use wasip2::http::types::{
    ErrorCode, Fields, IncomingBody, IncomingResponse, OutgoingRequest, Scheme,
};
use wasip2::io::streams::InputStream;

/// The request method (wasi:http's).
pub use wasip2::http::types::Method;

/// A response whose head has arrived; the body is read by [`Response::bytes`].
pub struct Response {
    status: u16,
    incoming: IncomingResponse,
}

impl Response {
    /// The HTTP status code.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The values of a response header (lowercase name).
    pub fn header(&self, name: &str) -> Vec<String> {
        self.incoming
            .headers()
            .get(name)
            .into_iter()
            .map(|value| String::from_utf8_lossy(&value).into_owned())
            .collect()
    }

    /// Reads the whole body: the host reads it to its end and hands it over in one copy
    /// (`bodies.read-whole`), its `Content-Length` reserved up front.
    pub fn bytes(self) -> Result<Vec<u8>, TaskError> {
        let expected = self
            .header("content-length")
            .first()
            .and_then(|length| length.trim().parse().ok())
            .unwrap_or(0);
        let body = self
            .incoming
            .consume()
            .map_err(|()| http_error("the body was already taken"))?;
        let stream = body
            .stream()
            .map_err(|()| http_error("the body has no stream"))?;
        let read = read_whole(&contract_stream(stream), expected, None);
        IncomingBody::finish(body);
        read.map_err(|error| match error {
            ReadError::Failed(reason) => http_error(&format!("reading the body failed: {reason}")),
            ReadError::Timeout => http_error("reading the body timed out"),
        })
    }
}

/// The body's stream as the contract's bindings name it: both are bindings of the same
/// `wasi:io/streams` input-stream, so the handle moves from one owner to the other.
fn contract_stream(stream: InputStream) -> ContractStream {
    // SAFETY: `take_handle` gives up `stream`'s ownership of a live input-stream handle,
    // which the contract's binding of the same resource type takes over (and drops).
    unsafe { ContractStream::from_handle(stream.take_handle()) }
}

/// Sends a GET request and waits for the response head.
pub fn get(url: &str) -> Result<Response, TaskError> {
    send(Method::Get, url, &[])
}

/// Sends a body-less request with headers and waits for the response head.
pub fn send(method: Method, url: &str, headers: &[(&str, &str)]) -> Result<Response, TaskError> {
    let (scheme, authority, path) = split_url(url)?;
    let fields = Fields::new();
    for (name, value) in headers {
        fields
            .append(name, value.as_bytes())
            .map_err(|error| http_error(&format!("header {name}: {error:?}")))?;
    }
    let request = OutgoingRequest::new(fields);
    let invalid = |part: &str| http_error(&format!("invalid {part} in {url}"));
    request
        .set_method(&method)
        .map_err(|()| invalid("method"))?;
    request
        .set_scheme(Some(&scheme))
        .map_err(|()| invalid("scheme"))?;
    request
        .set_authority(Some(authority))
        .map_err(|()| invalid("authority"))?;
    request
        .set_path_with_query(Some(path))
        .map_err(|()| invalid("path"))?;
    let pending = outgoing_handler::handle(request, None).map_err(|code| failure(code, url))?;
    pending.subscribe().block();
    let incoming = match pending.get() {
        Some(Ok(Ok(response))) => response,
        Some(Ok(Err(code))) => return Err(failure(code, url)),
        _ => return Err(http_error("the response was lost")),
    };
    Ok(Response {
        status: incoming.status(),
        incoming,
    })
}

fn split_url(url: &str) -> Result<(Scheme, &str, &str), TaskError> {
    let (scheme, rest) = if let Some(rest) = url.strip_prefix("https://") {
        (Scheme::Https, rest)
    } else if let Some(rest) = url.strip_prefix("http://") {
        (Scheme::Http, rest)
    } else {
        return Err(http_error(&format!("{url} is not an http(s) URL")));
    };
    let split = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(split);
    Ok((scheme, authority, if path.is_empty() { "/" } else { path }))
}

fn failure(code: ErrorCode, url: &str) -> TaskError {
    match code {
        ErrorCode::HttpRequestDenied => {
            TaskError::new(format!("request to {url} was denied")).code("http_request_denied")
        }
        other => http_error(&format!("request to {url} failed: {other:?}")),
    }
}

fn http_error(message: &str) -> TaskError {
    TaskError::new(message).code("http_error")
}
