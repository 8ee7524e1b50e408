//! What a connection's I/O task and the guest's handle share: the events received and not yet
//! taken (bounded in bytes: the task stops reading past the bound), the bytes sent and not
//! yet written, the error that ended the connection, and the notifications each side (and
//! the task's end) waits on. The bytes read from the server count against the
//! sandbox's memory from when they are read until the guest takes their message (or the
//! connection ends and its buffers go); a read past the sandbox's memory fails the
//! connection with `limit`.

use crate::sandbox::memory::{Reservation, SandboxMemory};
use bytes::Bytes;
use std::collections::VecDeque;
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::Notify;

/// Bytes of received messages that wait for the guest before the task stops reading.
pub(crate) const MAX_QUEUED_INCOMING: usize = 16 << 20;

/// One thing the guest receives, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Incoming {
    /// The handshake completed with this subprotocol ("" for none).
    Open(String),
    /// A text message.
    Text(String),
    /// A binary message.
    Binary(Bytes),
    /// The connection closed with this code and reason.
    Closed(u16, String),
}

impl Incoming {
    fn size(&self) -> usize {
        match self {
            Self::Open(text) | Self::Text(text) | Self::Closed(_, text) => text.len(),
            Self::Binary(data) => data.len(),
        }
    }
}

/// Why a connection ended other than by a close handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The outbound rules refused the destination.
    Denied(String),
    /// The URL has no host the rules can judge.
    Invalid(String),
    /// Opening (resolution, connection, TLS, handshake) failed.
    Connect(String),
    /// The open connection failed.
    Failed(String),
    /// What the server sent would pass the sandbox's memory.
    Limit(String),
}

/// An event waiting for the guest and the bytes read from the server for it.
#[derive(Debug)]
struct Queued {
    event: Incoming,
    read: usize,
}

#[derive(Debug)]
struct State {
    incoming: VecDeque<Queued>,
    queued_incoming: usize,
    /// Bytes read from the server and not yet taken by the guest, counted in the sandbox's
    /// memory.
    held_incoming: Reservation,
    buffered_outgoing: u64,
    failure: Option<Failure>,
    /// The I/O task has ended: after what is queued, nothing more comes.
    ended: bool,
}

/// The shared half of one connection.
#[derive(Debug)]
pub(crate) struct Link {
    state: Mutex<State>,
    /// Told when there is something new for the guest (the end of the I/O task included).
    readable: Notify,
    /// Told when the guest took messages (the task may read again).
    room: Notify,
}

/// What the host's read buffers are named when they would pass the sandbox's memory.
const READ_BUFFERS: &str = "its received WebSocket messages (held in the host)";

/// Bytes of the header of a server's (unmasked) frame carrying `payload` bytes.
pub(crate) fn frame_header(payload: usize) -> usize {
    match payload {
        0..126 => 2,
        126..65_536 => 4,
        _ => 10,
    }
}

/// What the guest's `receive` finds.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Received {
    Event(Incoming),
    Failure(Failure),
    /// Nothing yet.
    Nothing,
    /// Nothing ever again.
    Ended,
}

impl Link {
    /// A connection of the sandbox whose memory is `memory`.
    pub(crate) fn new(memory: &Arc<SandboxMemory>) -> Self {
        Self {
            state: Mutex::new(State {
                incoming: VecDeque::new(),
                queued_incoming: 0,
                held_incoming: Reservation::empty(memory),
                buffered_outgoing: 0,
                failure: None,
                ended: false,
            }),
            readable: Notify::new(),
            room: Notify::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts `bytes` just read from the server; past the sandbox's memory the connection
    /// fails with `limit` and the error's message is returned.
    pub(crate) fn count_read(&self, bytes: usize) -> Result<(), String> {
        let counted = self.state().held_incoming.grow(bytes, READ_BUFFERS);
        counted.map_err(|bound| {
            self.fail(Failure::Limit(bound.message.clone()));
            bound.message
        })
    }

    /// Queues an event for the guest, made of `read` bytes read from the server.
    pub(crate) fn push(&self, event: Incoming, read: usize) {
        let mut state = self.state();
        state.queued_incoming += event.size();
        state.incoming.push_back(Queued { event, read });
        drop(state);
        self.readable.notify_waiters();
    }

    /// The handshake completed: the bytes it read are given back.
    pub(crate) fn opened(&self, protocol: String) {
        self.state().held_incoming.shrink_to(0);
        self.push(Incoming::Open(protocol), 0);
    }

    /// Ends the connection with `failure` (reported after the events queued before it).
    pub(crate) fn fail(&self, failure: Failure) {
        self.state().failure.get_or_insert(failure);
        self.end();
    }

    /// Marks the I/O task as ended: its read buffers are gone, only the queued events
    /// stay counted.
    pub(crate) fn end(&self) {
        let mut state = self.state();
        state.ended = true;
        let queued = state.incoming.iter().map(|queued| queued.read).sum();
        state.held_incoming.shrink_to(queued);
        drop(state);
        self.readable.notify_waiters();
    }

    /// Resolves once the I/O task has ended (the closing handshake done, or cut off).
    pub(crate) async fn finished(&self) {
        self.until(Self::is_finished).await;
    }

    /// Whether the I/O task has ended.
    pub(crate) fn is_finished(&self) -> bool {
        self.state().ended
    }

    /// Whether the task may read another message.
    pub(crate) fn has_room(&self) -> bool {
        self.state().queued_incoming < MAX_QUEUED_INCOMING
    }

    /// Resolves when the guest has taken messages since the last call (or one was pending).
    pub(crate) async fn room(&self) {
        self.room.notified().await;
    }

    /// The next thing for the guest.
    pub(crate) fn take(&self) -> Received {
        let mut state = self.state();
        if let Some(Queued { event, read }) = state.incoming.pop_front() {
            state.queued_incoming -= event.size();
            state.held_incoming.shrink(read);
            drop(state);
            self.room.notify_one();
            return Received::Event(event);
        }
        match state.failure.take() {
            Some(failure) => Received::Failure(failure),
            None if state.ended => Received::Ended,
            None => Received::Nothing,
        }
    }

    /// Whether `take` would return something other than `Nothing`.
    pub(crate) fn is_ready(&self) -> bool {
        let state = self.state();
        !state.incoming.is_empty() || state.failure.is_some() || state.ended
    }

    /// Resolves once `take` has something to return.
    pub(crate) async fn ready(&self) {
        self.until(Self::is_ready).await;
    }

    /// Resolves once `condition` holds, checking it whenever the guest's side is told of
    /// something new.
    async fn until(&self, condition: fn(&Self) -> bool) {
        loop {
            let mut notified = pin!(self.readable.notified());
            notified.as_mut().enable();
            if condition(self) {
                return;
            }
            notified.await;
        }
    }

    /// Counts `bytes` as sent but not yet written.
    pub(crate) fn add_buffered(&self, bytes: u64) {
        self.state().buffered_outgoing += bytes;
    }

    /// Counts `bytes` as written.
    pub(crate) fn written(&self, bytes: u64) {
        let mut state = self.state();
        state.buffered_outgoing = state.buffered_outgoing.saturating_sub(bytes);
    }

    /// Bytes sent but not yet written.
    pub(crate) fn buffered(&self) -> u64 {
        self.state().buffered_outgoing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::memory::HostMemory;

    #[test]
    fn events_come_before_the_failure_and_then_nothing_more() {
        let link = Link::new(&SandboxMemory::unlimited());
        assert_eq!(link.take(), Received::Nothing);
        assert!(!link.is_ready());
        link.push(Incoming::Text("a".into()), 3);
        link.fail(Failure::Failed("reset".into()));
        assert_eq!(link.take(), Received::Event(Incoming::Text("a".into())));
        assert_eq!(
            link.take(),
            Received::Failure(Failure::Failed("reset".into()))
        );
        assert_eq!(link.take(), Received::Ended);
    }

    #[test]
    fn the_task_stops_reading_past_the_queued_bound_until_the_guest_takes() {
        let link = Link::new(&SandboxMemory::unlimited());
        let almost = MAX_QUEUED_INCOMING - 1;
        link.push(Incoming::Binary(Bytes::from(vec![0; almost])), almost);
        assert!(link.has_room());
        link.push(Incoming::Binary(Bytes::from_static(b"xy")), 2);
        assert!(!link.has_room());
        assert!(matches!(link.take(), Received::Event(_)));
        assert!(link.has_room());
    }

    #[test]
    fn read_bytes_count_until_the_guest_takes_them_and_a_read_past_memory_fails() {
        let host = HostMemory::new(Some(1000), "--max-host-memory");
        let memory = SandboxMemory::new(1000, host.clone());
        let link = Link::new(&memory);
        link.count_read(200).unwrap();
        link.opened(String::new());
        assert_eq!(
            host.used(),
            0,
            "the handshake's bytes are given back once it is done"
        );
        link.count_read(300).unwrap();
        link.push(Incoming::Text("x".repeat(298)), 300);
        link.count_read(100).unwrap();
        assert_eq!(host.used(), 400, "a partly read message counts too");
        assert!(matches!(link.take(), Received::Event(Incoming::Open(_))));
        assert!(matches!(link.take(), Received::Event(Incoming::Text(_))));
        assert_eq!(host.used(), 100);
        let refused = link.count_read(901).unwrap_err();
        assert!(
            refused.starts_with(
                "task exceeded its memory limit: growing its received WebSocket messages (held \
                 in the host) by 901 bytes would pass the sandbox's memory limit of 1000 bytes"
            ),
            "{refused}"
        );
        assert_eq!(link.take(), Received::Failure(Failure::Limit(refused)));
        assert!(link.is_finished());
        assert_eq!(
            host.used(),
            0,
            "an ended connection's read buffers are gone"
        );
    }

    #[test]
    fn queued_events_stay_counted_after_the_connection_ends_until_taken() {
        let host = HostMemory::new(None, "");
        let memory = SandboxMemory::new(usize::MAX, host.clone());
        let link = Arc::new(Link::new(&memory));
        link.count_read(64).unwrap();
        link.push(Incoming::Binary(Bytes::from(vec![1; 60])), 62);
        link.end();
        assert_eq!(host.used(), 62);
        drop(link);
        assert_eq!(host.used(), 0, "a dropped connection gives its events back");
        assert_eq!(frame_header(125), 2);
        assert_eq!(frame_header(126), 4);
        assert_eq!(frame_header(65_536), 10);
    }
}
