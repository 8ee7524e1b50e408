//! A response body under wasi:http's between-bytes timeout: each frame must arrive within the
//! timeout of the one before (or of the response head).

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, Sleep};
use wasmtime_wasi_http::Error;

/// An incoming body whose frames time out.
pub(crate) struct TimedBody {
    incoming: Incoming,
    between_bytes: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl TimedBody {
    pub(crate) fn new(incoming: Incoming, between_bytes: Duration) -> Self {
        Self {
            incoming,
            between_bytes,
            deadline: Box::pin(tokio::time::sleep(between_bytes)),
        }
    }
}

impl Body for TimedBody {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.incoming).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                let next = Instant::now() + this.between_bytes;
                this.deadline.as_mut().reset(next);
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(error))) if error.is_timeout() => {
                Poll::Ready(Some(Err(Error::HttpResponseTimeout)))
            }
            Poll::Ready(Some(Err(error))) => Poll::Ready(Some(Err(Error::Hyper(error)))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => {
                ready!(this.deadline.as_mut().poll(cx));
                Poll::Ready(Some(Err(Error::ConnectionReadTimeout)))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.incoming.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.incoming.size_hint()
    }
}
