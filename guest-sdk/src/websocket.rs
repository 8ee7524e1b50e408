//! WebSocket client connections through the host (the `bench:task/websocket` interface),
//! under the participant's outbound rules (the allowlist judges `ws://` as `http://` and
//! `wss://` as `https://`; private addresses only through a rule naming them).
//!
//! ```ignore
//! use bench_guest::websocket::{Message, WebSocket};
//!
//! let socket = WebSocket::connect("ws://127.0.0.1:9000/echo")?;
//! socket.send_text("hello")?;
//! assert_eq!(socket.receive()?, Message::Text("hello".into()));
//! socket.close(1000, "done")?;
//! ```
//!
//! Bounds (the host's): a message is at most 16 MiB either way, at most 16 MiB of received
//! messages wait (the host stops reading from the server until the task takes some) and
//! 16 MiB of sent ones, at most 64 connections per sandbox. A connection still open when the
//! task ends is closed by the host (code 1001). A [`WebSocketError`] converts into a
//! `TaskError` with `?`.

use crate::bindings::bench::task::websocket as wit;
use std::fmt;

/// A message received, or how the connection closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// A text message.
    Text(String),
    /// A binary message.
    Binary(Vec<u8>),
    /// The close frame: its code (1005 when the server sent none, 1006 when the connection
    /// ended without one) and reason. Nothing follows it.
    Closed(u16, String),
}

/// Why a WebSocket call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebSocketError {
    kind: WebSocketErrorKind,
    message: String,
}

/// The kind of a [`WebSocketError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebSocketErrorKind {
    /// Not a ws:// or wss:// URL, a header or subprotocol the handshake cannot carry, a close
    /// code or reason WebSocket does not allow.
    InvalidArgument,
    /// The outbound rules refused the destination.
    Denied,
    /// Resolution, connection, TLS or the handshake failed.
    ConnectFailed,
    /// A message, a queue or the number of connections past the host's bound.
    Limit,
    /// The open connection failed (a server message past the bound, a protocol error).
    Failed,
    /// The connection is closed.
    Closed,
}

impl WebSocketError {
    /// What kind of failure it is.
    pub fn kind(&self) -> WebSocketErrorKind {
        self.kind
    }

    /// The host's description.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<wit::WebsocketError> for WebSocketError {
    fn from(error: wit::WebsocketError) -> Self {
        use wit::WebsocketError as E;
        let (kind, message) = match error {
            E::InvalidArgument(message) => (WebSocketErrorKind::InvalidArgument, message),
            E::Denied(message) => (WebSocketErrorKind::Denied, message),
            E::ConnectFailed(message) => (WebSocketErrorKind::ConnectFailed, message),
            E::Limit(message) => (WebSocketErrorKind::Limit, message),
            E::Failed(message) => (WebSocketErrorKind::Failed, message),
            E::Closed(message) => (WebSocketErrorKind::Closed, message),
        };
        Self { kind, message }
    }
}

impl fmt::Display for WebSocketError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "websocket: {}", self.message)
    }
}

impl std::error::Error for WebSocketError {}

/// One open connection.
#[derive(Debug)]
pub struct WebSocket {
    connection: wit::Connection,
    protocol: String,
}

impl WebSocket {
    /// Opens a connection to `url`, waiting for the handshake.
    pub fn connect(url: &str) -> Result<Self, WebSocketError> {
        Self::connect_with(url, &[], &[])
    }

    /// Opens a connection offering `protocols` with extra request `headers`, waiting for
    /// the handshake; [`protocol`](Self::protocol) is the one the server chose.
    pub fn connect_with(
        url: &str,
        protocols: &[&str],
        headers: &[(&str, &str)],
    ) -> Result<Self, WebSocketError> {
        let protocols: Vec<String> = protocols.iter().map(|p| (*p).to_owned()).collect();
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        let connection = wit::Connection::connect(url, &protocols, &headers)?;
        match next_event(&connection)? {
            wit::Event::Open(protocol) => Ok(Self {
                connection,
                protocol,
            }),
            other => Err(WebSocketError {
                kind: WebSocketErrorKind::ConnectFailed,
                message: format!("the connection did not open: {other:?}"),
            }),
        }
    }

    /// The subprotocol the server chose ("" for none).
    pub fn protocol(&self) -> &str {
        &self.protocol
    }

    /// Sends a text message.
    pub fn send_text(&self, text: &str) -> Result<(), WebSocketError> {
        Ok(self.connection.send_text(text)?)
    }

    /// Sends a binary message.
    pub fn send_binary(&self, data: &[u8]) -> Result<(), WebSocketError> {
        Ok(self.connection.send_binary(data)?)
    }

    /// Waits for the next message (on the host's pollable: no spinning).
    pub fn receive(&self) -> Result<Message, WebSocketError> {
        loop {
            if let Some(message) = self.try_receive()? {
                return Ok(message);
            }
            self.connection.subscribe().block();
        }
    }

    /// The next message if one has arrived, without waiting.
    pub fn try_receive(&self) -> Result<Option<Message>, WebSocketError> {
        // The open event comes once, first, and `connect_with` took it.
        while let Some(event) = self.connection.receive()? {
            return Ok(Some(match event {
                wit::Event::Text(text) => Message::Text(text),
                wit::Event::Binary(data) => Message::Binary(data),
                wit::Event::Closed(frame) => Message::Closed(frame.code, frame.reason),
                wit::Event::Open(_) => continue,
            }));
        }
        Ok(None)
    }

    /// Bytes sent but not yet written to the connection.
    pub fn buffered_amount(&self) -> u64 {
        self.connection.buffered_amount()
    }

    /// Starts the closing handshake (`code` 1000 or 3000-4999, `reason` at most 123 bytes);
    /// [`receive`](Self::receive) then returns [`Message::Closed`].
    pub fn close(&self, code: u16, reason: &str) -> Result<(), WebSocketError> {
        Ok(self.connection.close(Some(code), reason)?)
    }
}

fn next_event(connection: &wit::Connection) -> Result<wit::Event, WebSocketError> {
    loop {
        if let Some(event) = connection.receive()? {
            return Ok(event);
        }
        connection.subscribe().block();
    }
}
