//! WebSocket connections of a sandbox (`bench:task/websocket`): a `ws://` or `wss://` URL
//! is opened through the sandbox's outbound HTTP rules (`OutboundHttp::open`: allowlist,
//! address checks, TLS name), then one I/O task per connection (`io`) moves messages between
//! the server and what the guest's handle shares with it (`link`). Bounds: the message size
//! both ways, the queued bytes both ways (the I/O task stops reading when the guest does not
//! take), the connections per sandbox; and the bytes read and not yet taken, and sent and
//! not yet written, count against the sandbox's memory (past it, a read fails the
//! connection and a send is refused, both with `limit`). Every connection still open when a
//! task ends is closed, and the task's slot waits (at most the close grace of 1 s) for the
//! closing handshake of every connection the task opened (`end_task`), so a run that ends
//! with the task does not cut it off; dropping the sandbox drops every handle, which closes
//! the rest.

mod io;
mod link;

use crate::sandbox::http::{OpenError, OutboundHttp};
use crate::sandbox::memory::SandboxMemory;
use bench_contract::bench::task::websocket::{
    CloseFrame, Connection as GuestConnection, Event, Host, HostConnection, WebsocketError,
};
use link::{Failure, Incoming, Link, Received};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;
use wasmtime::component::{HasData, Resource, ResourceTable};
use wasmtime_wasi::p2::{DynPollable, Pollable};

/// The largest message a task sends or receives.
pub(crate) const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// Bytes of sent messages that may wait to be written.
const MAX_BUFFERED_OUTGOING: u64 = 16 << 20;

/// Connections one sandbox holds at a time.
const MAX_CONNECTIONS: usize = 64;

/// How long resolution, connection, TLS and the opening handshake may take.
const OPEN_TIMEOUT: Duration = Duration::from_secs(30);

/// Extra request headers a connection may carry, and their total size.
const MAX_HEADERS: usize = 64;
const MAX_HEADER_BYTES: usize = 16 << 10;

/// The connections of one sandbox's current task.
#[derive(Debug)]
pub struct WebSockets {
    open: Vec<Registered>,
    /// Connections the guest dropped whose closing handshake may not be done yet.
    dropped: Vec<Arc<Link>>,
    next_id: u64,
    memory: Arc<SandboxMemory>,
}

#[derive(Debug)]
struct Registered {
    id: u64,
    commands: mpsc::UnboundedSender<io::Command>,
    link: Arc<Link>,
}

impl WebSockets {
    /// The connections of a sandbox whose memory is `memory`.
    pub(crate) fn new(memory: Arc<SandboxMemory>) -> Self {
        Self {
            open: Vec::new(),
            dropped: Vec::new(),
            next_id: 0,
            memory,
        }
    }

    /// Closes every connection the task still has open (code 1001): the next task of a
    /// reused instance starts with none. The closing handshakes of these and of the
    /// connections the guest dropped are awaited with [`Closing::done`].
    pub fn end_task(&mut self) -> Closing {
        let mut links = std::mem::take(&mut self.dropped);
        for connection in self.open.drain(..) {
            let _ = connection
                .commands
                .send(io::Command::Close(1001, "the task ended".into()));
            links.push(connection.link);
        }
        Closing(links)
    }

    /// Connections counted against the sandbox's bound.
    pub fn open_count(&self) -> usize {
        self.open.len()
    }
}

/// The connections of an ended task, closing.
#[derive(Debug)]
#[must_use = "the connections close in the background; await them before the run may end"]
pub struct Closing(Vec<Arc<Link>>);

impl Closing {
    /// Resolves once every connection has ended (its closing handshake done), or after the
    /// grace a closing handshake has.
    pub async fn done(self) {
        if self.0.is_empty() {
            return;
        }
        let all = futures_util::future::join_all(self.0.iter().map(|link| link.finished()));
        let _ = tokio::time::timeout(io::CLOSE_GRACE, all).await;
    }
}

/// A connection as the sandbox's table holds it.
pub struct Connection {
    id: u64,
    link: Arc<Link>,
    commands: mpsc::UnboundedSender<io::Command>,
    /// The guest called `close`: it sends nothing more.
    closing: bool,
}

#[async_trait::async_trait]
impl Pollable for Connection {
    async fn ready(&mut self) {
        self.link.ready().await;
    }
}

/// What the `websocket` interface reaches in a sandbox.
pub struct WebSocketView<'a> {
    /// The sandbox's resource table (connections and their pollables live with wasi's).
    pub table: &'a mut ResourceTable,
    /// The sandbox's connections.
    pub sockets: &'a mut WebSockets,
    /// The sandbox's outbound rules.
    pub http: &'a mut OutboundHttp,
}

/// The `HasData` of the `websocket` interface.
pub struct WebSocketHost;

impl HasData for WebSocketHost {
    type Data<'a> = WebSocketView<'a>;
}

type WsResult<T> = Result<T, WebsocketError>;

fn lost(error: wasmtime::component::ResourceTableError) -> wasmtime::Error {
    wasmtime::Error::msg(format!("websocket connection handle: {error}"))
}

impl WebSocketView<'_> {
    fn connection(
        &mut self,
        handle: &Resource<GuestConnection>,
    ) -> wasmtime::Result<&mut Connection> {
        self.table
            .get_mut(&Resource::<Connection>::new_borrow(handle.rep()))
            .map_err(lost)
    }

    fn send(
        &mut self,
        handle: &Resource<GuestConnection>,
        message: Message,
    ) -> wasmtime::Result<WsResult<()>> {
        let connection = self.connection(handle)?;
        let bytes = message.len();
        if connection.closing {
            return Ok(Err(WebsocketError::Closed(
                "the connection is closing".into(),
            )));
        }
        if bytes > MAX_MESSAGE_BYTES {
            return Ok(Err(WebsocketError::Limit(format!(
                "a message of {bytes} bytes is past the {} MiB bound",
                MAX_MESSAGE_BYTES >> 20
            ))));
        }
        if connection.link.buffered() + bytes as u64 > MAX_BUFFERED_OUTGOING {
            return Ok(Err(WebsocketError::Limit(format!(
                "{} MiB of sent messages are still waiting to be written",
                MAX_BUFFERED_OUTGOING >> 20
            ))));
        }
        let counted = match self
            .sockets
            .memory
            .reserve(bytes, "its WebSocket messages waiting to be sent")
        {
            Ok(counted) => counted,
            Err(bound) => return Ok(Err(WebsocketError::Limit(bound.message))),
        };
        let connection = self.connection(handle)?;
        let bytes = bytes as u64;
        connection.link.add_buffered(bytes);
        if connection
            .commands
            .send(io::Command::Send(message, bytes, counted))
            .is_err()
        {
            connection.link.written(bytes);
            return Ok(Err(WebsocketError::Closed(
                "the connection is closed".into(),
            )));
        }
        Ok(Ok(()))
    }
}

impl HostConnection for WebSocketView<'_> {
    fn connect(
        &mut self,
        url: String,
        protocols: Vec<String>,
        headers: Vec<(String, String)>,
    ) -> wasmtime::Result<WsResult<Resource<GuestConnection>>> {
        if self.sockets.open.len() >= MAX_CONNECTIONS {
            return Ok(Err(WebsocketError::Limit(format!(
                "a sandbox holds at most {MAX_CONNECTIONS} WebSocket connections"
            ))));
        }
        let (request, uri) = match handshake_request(&url, &protocols, &headers) {
            Ok(request) => request,
            Err(message) => return Ok(Err(WebsocketError::InvalidArgument(message))),
        };
        let stream = self.http.open(&uri, OPEN_TIMEOUT);
        let shown = url.clone();
        let stream = async move {
            stream.await.map_err(|error| match error {
                OpenError::Invalid => Failure::Invalid(format!("{shown} has no host")),
                OpenError::Denied(notice) => Failure::Denied(notice),
                OpenError::Failed(message) => Failure::Connect(message),
            })
        };
        let link = Arc::new(Link::new(&self.sockets.memory));
        let (commands, receiver) = mpsc::unbounded_channel();
        tokio::spawn(io::run(
            link.clone(),
            stream,
            request,
            OPEN_TIMEOUT,
            receiver,
        ));
        let id = self.sockets.next_id;
        self.sockets.next_id += 1;
        self.sockets.open.push(Registered {
            id,
            commands: commands.clone(),
            link: link.clone(),
        });
        let handle = self
            .table
            .push(Connection {
                id,
                link,
                commands,
                closing: false,
            })
            .map_err(lost)?;
        Ok(Ok(Resource::new_own(handle.rep())))
    }

    fn subscribe(
        &mut self,
        handle: Resource<GuestConnection>,
    ) -> wasmtime::Result<Resource<DynPollable>> {
        wasmtime_wasi::p2::subscribe(self.table, Resource::<Connection>::new_borrow(handle.rep()))
    }

    fn receive(
        &mut self,
        handle: Resource<GuestConnection>,
    ) -> wasmtime::Result<WsResult<Option<Event>>> {
        let connection = self.connection(&handle)?;
        Ok(match connection.link.take() {
            Received::Event(event) => Ok(Some(match event {
                Incoming::Open(protocol) => Event::Open(protocol),
                Incoming::Text(text) => Event::Text(text),
                Incoming::Binary(data) => Event::Binary(data.into()),
                Incoming::Closed(code, reason) => Event::Closed(CloseFrame { code, reason }),
            })),
            Received::Nothing => Ok(None),
            Received::Failure(failure) => Err(match failure {
                Failure::Denied(message) => WebsocketError::Denied(message),
                Failure::Invalid(message) => WebsocketError::InvalidArgument(message),
                Failure::Connect(message) => WebsocketError::ConnectFailed(message),
                Failure::Failed(message) => WebsocketError::Failed(message),
                Failure::Limit(message) => WebsocketError::Limit(message),
            }),
            Received::Ended => Err(WebsocketError::Closed("the connection is closed".into())),
        })
    }

    fn send_text(
        &mut self,
        handle: Resource<GuestConnection>,
        text: String,
    ) -> wasmtime::Result<WsResult<()>> {
        self.send(&handle, Message::text(text))
    }

    fn send_binary(
        &mut self,
        handle: Resource<GuestConnection>,
        data: Vec<u8>,
    ) -> wasmtime::Result<WsResult<()>> {
        self.send(&handle, Message::binary(data))
    }

    fn buffered_amount(&mut self, handle: Resource<GuestConnection>) -> wasmtime::Result<u64> {
        Ok(self.connection(&handle)?.link.buffered())
    }

    fn close(
        &mut self,
        handle: Resource<GuestConnection>,
        code: Option<u16>,
        reason: String,
    ) -> wasmtime::Result<WsResult<()>> {
        let code = code.unwrap_or(1000);
        if code != 1000 && !(3000..=4999).contains(&code) {
            return Ok(Err(WebsocketError::InvalidArgument(format!(
                "close code {code} is neither 1000 nor in 3000-4999"
            ))));
        }
        if reason.len() > 123 {
            return Ok(Err(WebsocketError::InvalidArgument(format!(
                "a close reason is at most 123 bytes, this one has {}",
                reason.len()
            ))));
        }
        let connection = self.connection(&handle)?;
        if !connection.closing {
            connection.closing = true;
            let _ = connection.commands.send(io::Command::Close(code, reason));
        }
        Ok(Ok(()))
    }

    fn drop(&mut self, handle: Resource<GuestConnection>) -> wasmtime::Result<()> {
        let connection = self
            .table
            .delete(Resource::<Connection>::new_own(handle.rep()))
            .map_err(lost)?;
        let sockets = &mut *self.sockets;
        sockets.open.retain(|open| open.id != connection.id);
        sockets.dropped.retain(|link| !link.is_finished());
        if !connection.link.is_finished() {
            sockets.dropped.push(connection.link);
        }
        Ok(())
    }
}

impl Host for WebSocketView<'_> {
    async fn wait(
        &mut self,
        connections: Vec<Resource<GuestConnection>>,
        timeout_ms: u32,
    ) -> wasmtime::Result<Vec<u32>> {
        // No error in `wait`'s signature: a list no sandbox can hold (only a hostile guest
        // passes one) traps the task, as a handle the sandbox does not hold does.
        if connections.len() > MAX_CONNECTIONS {
            return Err(wasmtime::Error::msg(format!(
                "websocket wait: {} connections passed, more than the {MAX_CONNECTIONS} a \
                 sandbox holds",
                connections.len()
            )));
        }
        let mut links = Vec::with_capacity(connections.len());
        for handle in &connections {
            links.push(self.connection(handle)?.link.clone());
        }
        let ready = |links: &[Arc<Link>]| -> Vec<u32> {
            (0u32..)
                .zip(links)
                .filter(|(_, link)| link.is_ready())
                .map(|(index, _)| index)
                .collect()
        };
        let found = ready(&links);
        if !found.is_empty() || links.is_empty() {
            return Ok(found);
        }
        let any = futures_util::future::select_all(links.iter().map(|link| Box::pin(link.ready())));
        let _ = tokio::time::timeout(Duration::from_millis(timeout_ms.into()), any).await;
        Ok(ready(&links))
    }
}

/// The handshake request for `url` and the `http`/`https` URI its destination is judged
/// by; an error message for what the handshake cannot carry.
fn handshake_request(
    url: &str,
    protocols: &[String],
    headers: &[(String, String)],
) -> Result<(io::HandshakeRequest, http::Uri), String> {
    let uri: http::Uri = url.parse().map_err(|_| format!("{url:?} is not a URL"))?;
    let http_scheme = match uri.scheme_str().map(str::to_ascii_lowercase).as_deref() {
        Some("ws") => "http",
        Some("wss") => "https",
        _ => return Err(format!("{url} is not a ws:// or wss:// URL")),
    };
    let authority = uri
        .authority()
        .filter(|authority| !authority.host().is_empty())
        .ok_or_else(|| format!("{url} has no host"))?;
    let judged = http::Uri::builder()
        .scheme(http_scheme)
        .authority(authority.as_str())
        .path_and_query("/")
        .build()
        .map_err(|error| format!("{url} is not a URL: {error}"))?;
    let mut request = url
        .into_client_request()
        .map_err(|error| format!("{url} cannot be opened: {error}"))?;
    if headers.len() > MAX_HEADERS
        || headers
            .iter()
            .map(|(name, value)| name.len() + value.len())
            .sum::<usize>()
            > MAX_HEADER_BYTES
    {
        return Err(format!(
            "at most {MAX_HEADERS} extra headers of {} KiB in all",
            MAX_HEADER_BYTES >> 10
        ));
    }
    for (name, value) in headers {
        let lower = name.to_ascii_lowercase();
        if [
            "host",
            "connection",
            "upgrade",
            "content-length",
            "transfer-encoding",
        ]
        .contains(&lower.as_str())
            || lower.starts_with("sec-websocket-")
        {
            return Err(format!("the {name} header is the handshake's own"));
        }
        let name = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("{name:?} is not a header name"))?;
        let value = HeaderValue::from_str(value)
            .map_err(|_| format!("the value of {name} is not a header value"))?;
        request.headers_mut().append(name, value);
    }
    if !protocols.is_empty() {
        for protocol in protocols {
            let token = !protocol.is_empty()
                && protocol
                    .bytes()
                    .all(|byte| byte.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?={}".contains(&byte));
            if !token {
                return Err(format!("{protocol:?} is not a subprotocol name"));
            }
        }
        let value = HeaderValue::from_str(&protocols.join(", "))
            .map_err(|_| "the subprotocols are not a header value".to_owned())?;
        request
            .headers_mut()
            .insert("sec-websocket-protocol", value);
    }
    Ok((request, judged))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::http::{AllowedHost, HttpPolicy};
    use crate::sandbox::memory::HostMemory;
    use futures_util::{SinkExt, StreamExt};
    use tokio::net::TcpListener;

    /// A server on 127.0.0.1 that echoes every message, and first sends `greeting` bytes
    /// as one binary message when there are some.
    async fn echo_server(greeting: usize) -> u16 {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut socket = tokio_tungstenite::accept_async(stream).await.unwrap();
                    if greeting > 0 {
                        let _ = socket.send(Message::binary(vec![7; greeting])).await;
                    }
                    while let Some(Ok(message)) = socket.next().await {
                        if message.is_text() || message.is_binary() {
                            let _ = socket.send(message).await;
                        }
                    }
                });
            }
        });
        port
    }

    struct Sandbox {
        table: ResourceTable,
        sockets: WebSockets,
        http: OutboundHttp,
    }

    impl Sandbox {
        fn new(rules: &[&str]) -> Self {
            Self::within(rules, SandboxMemory::unlimited())
        }

        /// A sandbox of `memory` allowed to reach what `rules` name.
        fn within(rules: &[&str], memory: Arc<SandboxMemory>) -> Self {
            let allowed = rules
                .iter()
                .map(|rule| AllowedHost::parse(rule).unwrap())
                .collect();
            Self {
                table: ResourceTable::new(),
                sockets: WebSockets::new(memory),
                http: OutboundHttp::new(HttpPolicy::new(allowed, true, Arc::default())),
            }
        }

        fn view(&mut self) -> WebSocketView<'_> {
            WebSocketView {
                table: &mut self.table,
                sockets: &mut self.sockets,
                http: &mut self.http,
            }
        }

        fn connect(&mut self, url: &str) -> WsResult<Resource<GuestConnection>> {
            self.view()
                .connect(url.into(), Vec::new(), Vec::new())
                .unwrap()
        }

        /// The next event or error, waiting for it.
        async fn next(&mut self, handle: &Resource<GuestConnection>) -> WsResult<Event> {
            let borrowed = Resource::<GuestConnection>::new_borrow(handle.rep());
            self.view().wait(vec![borrowed], 10_000).await.unwrap();
            let borrowed = Resource::new_borrow(handle.rep());
            self.view()
                .receive(borrowed)
                .unwrap()
                .map(|event| event.expect("ready"))
        }
    }

    fn borrow(handle: &Resource<GuestConnection>) -> Resource<GuestConnection> {
        Resource::new_borrow(handle.rep())
    }

    #[tokio::test]
    async fn a_connection_opens_echoes_both_kinds_and_closes() {
        let port = echo_server(0).await;
        let mut sandbox = Sandbox::new(&["http://127.0.0.1:*"]);
        let handle = sandbox
            .connect(&format!("ws://127.0.0.1:{port}/echo"))
            .unwrap();
        assert_eq!(sandbox.next(&handle).await, Ok(Event::Open(String::new())));
        sandbox
            .view()
            .send_text(borrow(&handle), "hi".into())
            .unwrap()
            .unwrap();
        sandbox
            .view()
            .send_binary(borrow(&handle), vec![1, 2])
            .unwrap()
            .unwrap();
        assert_eq!(sandbox.next(&handle).await, Ok(Event::Text("hi".into())));
        assert_eq!(sandbox.next(&handle).await, Ok(Event::Binary(vec![1, 2])));
        sandbox
            .view()
            .close(borrow(&handle), None, "done".into())
            .unwrap()
            .unwrap();
        assert_eq!(
            sandbox.next(&handle).await,
            Ok(Event::Closed(CloseFrame {
                code: 1000,
                reason: "done".into()
            }))
        );
        assert!(matches!(
            sandbox.next(&handle).await,
            Err(WebsocketError::Closed(_))
        ));
        assert!(matches!(
            sandbox
                .view()
                .send_text(borrow(&handle), "late".into())
                .unwrap(),
            Err(WebsocketError::Closed(_))
        ));
        sandbox.view().drop(handle).unwrap();
        assert_eq!(sandbox.sockets.open_count(), 0);
    }

    #[tokio::test]
    async fn denied_destinations_fail_with_the_rule_that_would_allow_them() {
        let port = echo_server(0).await;
        let mut sandbox = Sandbox::new(&["*"]);
        let handle = sandbox.connect(&format!("ws://127.0.0.1:{port}/")).unwrap();
        let Err(WebsocketError::Denied(message)) = sandbox.next(&handle).await else {
            panic!("loopback through a wildcard must be denied");
        };
        assert!(
            message.contains("127.0.0.1 is a loopback address"),
            "{message}"
        );
        let mut none = Sandbox::new(&[]);
        let denied = none.connect("ws://10.0.0.1:81/").unwrap();
        assert_eq!(
            none.next(&denied).await,
            Err(WebsocketError::Denied(
                "denied request to http://10.0.0.1:81 (allow it with --allow-host \
                 http://10.0.0.1:81)"
                    .into()
            ))
        );
        assert_eq!(none.http.take_denied(), ["http://10.0.0.1:81"]);
        assert!(matches!(
            sandbox.connect("http://127.0.0.1/"),
            Err(WebsocketError::InvalidArgument(_))
        ));
    }

    #[tokio::test]
    async fn a_server_message_past_the_bound_fails_the_connection_with_a_clear_error() {
        let port = echo_server(MAX_MESSAGE_BYTES + 1).await;
        let mut sandbox = Sandbox::new(&["http://127.0.0.1:*"]);
        let handle = sandbox.connect(&format!("ws://127.0.0.1:{port}/")).unwrap();
        assert_eq!(sandbox.next(&handle).await, Ok(Event::Open(String::new())));
        let Err(WebsocketError::Failed(message)) = sandbox.next(&handle).await else {
            panic!("an oversized message must fail the connection");
        };
        assert!(message.contains("past the 16 MiB bound"), "{message}");
    }

    #[tokio::test]
    async fn a_guest_past_the_send_connection_and_close_bounds_gets_errors() {
        let port = echo_server(0).await;
        let mut sandbox = Sandbox::new(&["http://127.0.0.1:*"]);
        let url = format!("ws://127.0.0.1:{port}/");
        let handle = sandbox.connect(&url).unwrap();
        let too_big = vec![0; MAX_MESSAGE_BYTES + 1];
        assert!(matches!(
            sandbox
                .view()
                .send_binary(borrow(&handle), too_big)
                .unwrap(),
            Err(WebsocketError::Limit(_))
        ));
        // Still connecting: what is sent waits, within its bound.
        let mut refused = None;
        for _ in 0..=MAX_BUFFERED_OUTGOING / (4 << 20) {
            let sent = sandbox
                .view()
                .send_binary(borrow(&handle), vec![0; 4 << 20])
                .unwrap();
            if let Err(error) = sent {
                refused = Some(error);
                break;
            }
        }
        assert!(
            matches!(refused, Some(WebsocketError::Limit(_))),
            "{refused:?}"
        );
        assert!(sandbox.view().buffered_amount(borrow(&handle)).unwrap() <= MAX_BUFFERED_OUTGOING);
        assert!(matches!(
            sandbox
                .view()
                .close(borrow(&handle), Some(1006), String::new())
                .unwrap(),
            Err(WebsocketError::InvalidArgument(_))
        ));
        let mut handles = vec![handle];
        while handles.len() < MAX_CONNECTIONS {
            handles.push(sandbox.connect(&url).unwrap());
        }
        let Err(WebsocketError::Limit(message)) = sandbox.connect(&url) else {
            panic!("the 65th connection must be refused");
        };
        assert_eq!(message, "a sandbox holds at most 64 WebSocket connections");
        // The task ends: its connections close and no longer count.
        sandbox.sockets.end_task().done().await;
        assert!(sandbox.connect(&url).is_ok());
        let first = &handles[1];
        loop {
            match sandbox.next(first).await {
                Ok(Event::Closed(frame)) => break assert_eq!(frame.code, 1001),
                Ok(_) => continue,
                Err(error) => panic!("{error:?}"),
            }
        }
    }

    #[tokio::test]
    async fn messages_past_the_sandbox_memory_fail_the_connection_and_are_given_back() {
        let port = echo_server(2 << 20).await;
        let host = HostMemory::new(Some(1 << 20), "--max-host-memory");
        let memory = SandboxMemory::new(usize::MAX, host.clone());
        let mut sandbox = Sandbox::within(&["http://127.0.0.1:*"], memory);
        let handle = sandbox.connect(&format!("ws://127.0.0.1:{port}/")).unwrap();
        assert_eq!(sandbox.next(&handle).await, Ok(Event::Open(String::new())));
        let Err(WebsocketError::Limit(message)) = sandbox.next(&handle).await else {
            panic!("a message past the sandbox's memory must fail the connection");
        };
        assert!(
            message.starts_with(
                "task exceeded its memory limit: growing its received WebSocket messages (held \
                 in the host) by "
            ) && message.contains("would pass the run's host memory budget of 1048576 bytes"),
            "{message}"
        );
        assert!(host.used() <= 1 << 20);
        let sent = sandbox
            .view()
            .send_binary(borrow(&handle), vec![0; 2 << 20])
            .unwrap();
        let Err(WebsocketError::Limit(message)) = sent else {
            panic!("{sent:?}");
        };
        assert!(message.contains("host memory budget"), "{message}");
        sandbox.view().drop(handle).unwrap();
        sandbox.sockets.end_task().done().await;
        assert_eq!(
            host.used(),
            0,
            "a dropped connection gives its buffers back"
        );
    }

    #[tokio::test]
    async fn a_send_past_the_sandbox_memory_is_refused_naming_the_limit() {
        let port = echo_server(0).await;
        let memory = SandboxMemory::new(1 << 20, Arc::default());
        let mut sandbox = Sandbox::within(&["http://127.0.0.1:*"], memory.clone());
        let handle = sandbox.connect(&format!("ws://127.0.0.1:{port}/")).unwrap();
        let refused = sandbox
            .view()
            .send_binary(borrow(&handle), vec![0; (1 << 20) + 1])
            .unwrap();
        let Err(WebsocketError::Limit(message)) = refused else {
            panic!("{refused:?}");
        };
        assert!(
            message.starts_with(
                "task exceeded its memory limit: growing its WebSocket messages waiting to be \
                 sent by 1048577 bytes would pass the sandbox's memory limit of 1048576 bytes"
            ),
            "{message}"
        );
        assert!(
            memory.reserve(1 << 20, "a check").is_ok(),
            "a refused send holds nothing"
        );
    }

    #[tokio::test]
    async fn the_end_of_a_task_waits_for_the_close_of_what_it_left_open_or_dropped() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (closes, mut closed) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let closes = closes.clone();
                tokio::spawn(async move {
                    let mut socket = tokio_tungstenite::accept_async(stream).await.unwrap();
                    while let Some(Ok(message)) = socket.next().await {
                        if let Message::Close(frame) = message {
                            let _ = closes.send(frame.map(|frame| u16::from(frame.code)));
                        }
                    }
                });
            }
        });
        let mut sandbox = Sandbox::new(&["http://127.0.0.1:*"]);
        let url = format!("ws://127.0.0.1:{port}/");
        let left = sandbox.connect(&url).unwrap();
        let dropped = sandbox.connect(&url).unwrap();
        for handle in [&left, &dropped] {
            assert_eq!(sandbox.next(handle).await, Ok(Event::Open(String::new())));
        }
        sandbox.view().drop(dropped).unwrap();
        sandbox.sockets.end_task().done().await;
        // Both closes reached the server before the task's end resolved: nothing is awaited.
        assert_eq!(closed.try_recv(), Ok(Some(1001)));
        assert_eq!(closed.try_recv(), Ok(Some(1001)));
        assert_eq!(sandbox.sockets.open_count(), 0);
        sandbox.view().drop(left).unwrap();
    }

    #[tokio::test]
    async fn a_wait_on_more_connections_than_a_sandbox_holds_traps_naming_the_bound() {
        let port = echo_server(0).await;
        let mut sandbox = Sandbox::new(&["http://127.0.0.1:*"]);
        let handle = sandbox.connect(&format!("ws://127.0.0.1:{port}/")).unwrap();
        let many = |count| (0..count).map(|_| borrow(&handle)).collect::<Vec<_>>();
        assert!(sandbox.view().wait(many(MAX_CONNECTIONS), 0).await.is_ok());
        let error = sandbox
            .view()
            .wait(many(MAX_CONNECTIONS + 1), 0)
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "websocket wait: 65 connections passed, more than the 64 a sandbox holds"
        );
    }

    fn request(url: &str) -> Result<String, String> {
        handshake_request(url, &[], &[]).map(|(_, judged)| judged.to_string())
    }

    #[test]
    fn ws_urls_are_judged_as_http_and_others_refused() {
        assert_eq!(request("ws://a.test:81/x?y").unwrap(), "http://a.test:81/");
        assert_eq!(request("WSS://a.test/").unwrap(), "https://a.test/");
        assert_eq!(
            request("http://a.test/").unwrap_err(),
            "http://a.test/ is not a ws:// or wss:// URL"
        );
        assert!(request("ws:///x").is_err());
        assert!(request("not a url").is_err());
    }

    #[test]
    fn handshake_headers_and_bad_protocols_are_refused() {
        let header = |name: &str| {
            handshake_request("ws://a.test/", &[], &[(name.into(), "v".into())]).map(drop)
        };
        assert!(header("x-token").is_ok());
        assert!(header("Sec-WebSocket-Key").is_err());
        assert!(header("Host").is_err());
        assert!(header("bad name").is_err());
        let protocols = |list: &[&str]| {
            let list: Vec<String> = list.iter().map(|p| (*p).to_owned()).collect();
            handshake_request("ws://a.test/", &list, &[]).map(drop)
        };
        assert!(protocols(&["chat", "v2.json"]).is_ok());
        assert!(protocols(&["a b"]).is_err());
        assert!(protocols(&[""]).is_err());
        let many: Vec<(String, String)> = (0..=MAX_HEADERS)
            .map(|i| (format!("x-{i}"), "v".into()))
            .collect();
        assert!(handshake_request("ws://a.test/", &[], &many).is_err());
    }
}
