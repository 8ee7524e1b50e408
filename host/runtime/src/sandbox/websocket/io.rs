//! The I/O task of one connection: opens it (the sandbox's checked connection, then the
//! WebSocket handshake), then writes what the guest sent and reads what the server sends,
//! reading only while the received queue has room. When the guest's handle and the sandbox
//! let go of the connection (or the task ends), it closes with 1001 within a grace period.
//! What it reads counts against the sandbox's memory as it is read ([`Counted`]).

use super::link::{frame_header, Failure, Incoming, Link};
use super::MAX_MESSAGE_BYTES;
use crate::sandbox::http::CheckedStream;
use crate::sandbox::memory::Reservation;
use futures_util::{SinkExt, StreamExt};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::handshake::client::Request;

/// The opening handshake request of a connection.
pub(crate) type HandshakeRequest = Request;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::WebSocketStream;

/// How long a close handshake the guest did not wait for may take.
pub(crate) const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// What the guest's handle asks of the task.
#[derive(Debug)]
pub(crate) enum Command {
    /// Write a message (its size was counted as buffered, and in the sandbox's memory until
    /// it is written).
    Send(Message, u64, Reservation),
    /// Start the closing handshake.
    Close(u16, String),
}

/// Opens the connection and runs it until it ends; everything it learns goes to `link`.
pub(crate) async fn run(
    link: Arc<Link>,
    stream: impl Future<Output = Result<CheckedStream, Failure>>,
    request: Request,
    handshake_timeout: Duration,
    commands: mpsc::UnboundedReceiver<Command>,
) {
    let opened = tokio::time::timeout(handshake_timeout, open(&link, stream, request)).await;
    match opened {
        Ok(Ok((socket, protocol))) => {
            link.opened(protocol);
            drive(&link, socket, commands).await;
            link.end();
        }
        Ok(Err(failure)) => link.fail(failure),
        Err(_) => link.fail(Failure::Connect(format!(
            "the connection did not open within {} s",
            handshake_timeout.as_secs()
        ))),
    }
}

async fn open(
    link: &Arc<Link>,
    stream: impl Future<Output = Result<CheckedStream, Failure>>,
    request: Request,
) -> Result<(WebSocketStream<Counted>, String), Failure> {
    let stream = Counted {
        stream: stream.await?,
        link: link.clone(),
    };
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_MESSAGE_BYTES));
    let (socket, response) =
        tokio_tungstenite::client_async_with_config(request, stream, Some(config))
            .await
            .map_err(|error| {
                Failure::Connect(format!("the WebSocket handshake failed: {error}"))
            })?;
    let protocol = response
        .headers()
        .get("sec-websocket-protocol")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    Ok((socket, protocol))
}

/// Moves messages both ways until the connection ends.
async fn drive(
    link: &Link,
    mut socket: WebSocketStream<Counted>,
    mut commands: mpsc::UnboundedReceiver<Command>,
) {
    loop {
        let can_read = link.has_room();
        tokio::select! {
            command = commands.recv() => match command {
                Some(Command::Send(message, bytes, counted)) => {
                    let sent = socket.send(message).await;
                    link.written(bytes);
                    drop(counted);
                    if let Err(error) = sent {
                        return fail_unless_closed(link, error);
                    }
                }
                Some(Command::Close(code, reason)) => {
                    let frame = CloseFrame { code: CloseCode::from(code), reason: reason.into() };
                    if let Err(error) = socket.close(Some(frame)).await {
                        return fail_unless_closed(link, error);
                    }
                }
                None => return close_unattended(link, socket).await,
            },
            () = link.room(), if !can_read => {}
            message = socket.next(), if can_read => match message {
                Some(Ok(Message::Text(text))) => {
                    let read = frame_header(text.len()) + text.len();
                    link.push(Incoming::Text(text.as_str().to_owned()), read);
                }
                Some(Ok(Message::Binary(data))) => {
                    let read = frame_header(data.len()) + data.len();
                    link.push(Incoming::Binary(data), read);
                }
                Some(Ok(Message::Close(frame))) => {
                    let (code, reason) = frame.map_or((1005, String::new()), |frame| {
                        (u16::from(frame.code), frame.reason.as_str().to_owned())
                    });
                    let payload = if code == 1005 { 0 } else { 2 + reason.len() };
                    link.push(Incoming::Closed(code, reason), frame_header(payload) + payload);
                    // tungstenite answers the close; the stream ends after it.
                    while let Some(Ok(_)) = socket.next().await {}
                    return;
                }
                Some(Ok(_)) => {}
                Some(Err(error)) => return fail_unless_closed(link, error),
                None => return link.push(Incoming::Closed(1006, String::new()), 0),
            },
        }
    }
}

/// The guest's handle is gone (dropped, or the sandbox with it): close with 1001 and wait
/// for the answer a short while.
async fn close_unattended(link: &Link, mut socket: WebSocketStream<Counted>) {
    let frame = CloseFrame {
        code: CloseCode::Away,
        reason: "the task ended".into(),
    };
    let _ = tokio::time::timeout(CLOSE_GRACE, async {
        if socket.close(Some(frame)).await.is_ok() {
            while let Some(Ok(_)) = socket.next().await {}
        }
    })
    .await;
    link.end();
}

fn fail_unless_closed(link: &Link, error: tungstenite::Error) {
    match error {
        tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed => {
            link.push(Incoming::Closed(1006, String::new()), 0);
        }
        tungstenite::Error::Capacity(error) => link.fail(Failure::Failed(format!(
            "the server sent a message past the {} MiB bound ({error})",
            MAX_MESSAGE_BYTES >> 20
        ))),
        other => link.fail(Failure::Failed(format!("the connection failed: {other}"))),
    }
}

/// The connection's stream, counting every byte it reads in the sandbox's memory (held in
/// tungstenite's buffers, then as a queued message, until the guest takes it): a read past
/// the sandbox's memory fails the connection with `limit`.
pub(crate) struct Counted {
    stream: CheckedStream,
    link: Arc<Link>,
}

impl AsyncRead for Counted {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.stream).poll_read(cx, buf))?;
        let read = buf.filled().len() - before;
        Poll::Ready(this.link.count_read(read).map_err(io::Error::other))
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, data)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
