//! Outbound HTTP (wasi:http): deny by default. Every request is judged in one place, the
//! send hook, by its real destination.

use std::future::Future;
use wasmtime_wasi_http::{Error, RequestOptions, Result, WasiBody, WasiHttpHooks};

/// The outbound-HTTP policy of one sandbox.
#[derive(Debug, Default)]
pub struct OutboundHttp;

impl WasiHttpHooks for OutboundHttp {
    fn send_request(
        &mut self,
        _request: http::Request<WasiBody>,
        _options: Option<RequestOptions>,
        _fut: Box<dyn Future<Output = Result<()>> + Send>,
    ) -> Box<
        dyn Future<
                Output = Result<(
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = Result<()>> + Send>,
                )>,
            > + Send,
    > {
        Box::new(async { Err(Error::HttpRequestDenied) })
    }
}
