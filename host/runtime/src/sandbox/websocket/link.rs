//! What a connection's I/O task and the guest's handle share: the events received and not yet
//! taken (bounded in bytes: the task stops reading past the bound), the bytes sent and not
//! yet written, the error that ended the connection, and the notifications each side waits
//! on.

use bytes::Bytes;
use std::collections::VecDeque;
use std::pin::pin;
use std::sync::{Mutex, MutexGuard, PoisonError};
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
}

#[derive(Debug, Default)]
struct State {
    incoming: VecDeque<Incoming>,
    queued_incoming: usize,
    buffered_outgoing: u64,
    failure: Option<Failure>,
    /// The I/O task has ended: after what is queued, nothing more comes.
    ended: bool,
}

/// The shared half of one connection.
#[derive(Debug, Default)]
pub(crate) struct Link {
    state: Mutex<State>,
    /// Told when there is something new for the guest.
    readable: Notify,
    /// Told when the guest took messages (the task may read again).
    room: Notify,
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
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues an event for the guest.
    pub(crate) fn push(&self, event: Incoming) {
        let mut state = self.state();
        state.queued_incoming += event.size();
        state.incoming.push_back(event);
        drop(state);
        self.readable.notify_waiters();
    }

    /// Ends the connection with `failure` (reported after the events queued before it).
    pub(crate) fn fail(&self, failure: Failure) {
        let mut state = self.state();
        state.failure.get_or_insert(failure);
        state.ended = true;
        drop(state);
        self.readable.notify_waiters();
    }

    /// Marks the I/O task as ended.
    pub(crate) fn end(&self) {
        self.state().ended = true;
        self.readable.notify_waiters();
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
        if let Some(event) = state.incoming.pop_front() {
            state.queued_incoming -= event.size();
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
        loop {
            let mut notified = pin!(self.readable.notified());
            notified.as_mut().enable();
            if self.is_ready() {
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

    #[test]
    fn events_come_before_the_failure_and_then_nothing_more() {
        let link = Link::default();
        assert_eq!(link.take(), Received::Nothing);
        assert!(!link.is_ready());
        link.push(Incoming::Text("a".into()));
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
        let link = Link::default();
        link.push(Incoming::Binary(Bytes::from(vec![
            0;
            MAX_QUEUED_INCOMING - 1
        ])));
        assert!(link.has_room());
        link.push(Incoming::Binary(Bytes::from_static(b"xy")));
        assert!(!link.has_room());
        assert!(matches!(link.take(), Received::Event(_)));
        assert!(link.has_room());
    }
}
