//! Capture of a guest's stdout and stderr: complete lines are kept (up to a cap) for the
//! participant log and never reach the console.

use bytes::Bytes;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamError};

/// Most bytes of unread output kept per stream; the rest is dropped (and counted).
const CAPACITY: usize = 1 << 20;

/// One captured output stream (stdout or stderr) of one sandbox.
#[derive(Debug, Clone, Default)]
pub struct CapturedOutput {
    buffer: Arc<Mutex<Captured>>,
}

#[derive(Debug, Default)]
struct Captured {
    bytes: Vec<u8>,
    dropped: usize,
}

impl CapturedOutput {
    /// Takes the complete lines written since the last call (and, with `flush_partial`, an
    /// unterminated last line too), plus how many bytes were dropped over the cap.
    pub(crate) fn take_lines(&self, flush_partial: bool) -> (Vec<String>, usize) {
        let mut captured = self.lock();
        let end = if flush_partial {
            captured.bytes.len()
        } else {
            captured
                .bytes
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1)
        };
        let taken: Vec<u8> = captured.bytes.drain(..end).collect();
        let dropped = std::mem::take(&mut captured.dropped);
        let lines = String::from_utf8_lossy(&taken)
            .lines()
            .map(|line| line.trim_end().to_owned())
            .filter(|line| !line.is_empty())
            .collect();
        (lines, dropped)
    }

    /// The last non-blank line written (e.g. a panic message), without taking it.
    pub(crate) fn last_line(&self) -> Option<String> {
        let captured = self.lock();
        String::from_utf8_lossy(&captured.bytes)
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .map(|line| line.trim().to_owned())
    }

    fn append(&self, bytes: &[u8]) {
        let mut captured = self.lock();
        let room = CAPACITY.saturating_sub(captured.bytes.len());
        let kept = bytes.len().min(room);
        captured.bytes.extend_from_slice(&bytes[..kept]);
        captured.dropped += bytes.len() - kept;
    }

    fn lock(&self) -> MutexGuard<'_, Captured> {
        self.buffer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[wasmtime_wasi::async_trait]
impl OutputStream for CapturedOutput {
    fn write(&mut self, bytes: Bytes) -> Result<(), StreamError> {
        self.append(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StreamError> {
        Ok(())
    }

    fn check_write(&mut self) -> Result<usize, StreamError> {
        Ok(64 * 1024)
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for CapturedOutput {
    async fn ready(&mut self) {}
}

impl AsyncWrite for CapturedOutput {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.append(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl IsTerminal for CapturedOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for CapturedOutput {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_lines_are_taken_and_partial_lines_wait() {
        let out = CapturedOutput::default();
        out.append(b"one\ntwo\nthr");
        assert_eq!(out.take_lines(false).0, vec!["one", "two"]);
        out.append(b"ee\n");
        assert_eq!(out.take_lines(false).0, vec!["three"]);
        out.append(b"tail");
        assert_eq!(out.take_lines(true).0, vec!["tail"]);
    }

    #[test]
    fn output_over_the_cap_is_dropped_and_counted() {
        let out = CapturedOutput::default();
        out.append(&vec![b'x'; CAPACITY + 10]);
        let (_, dropped) = out.take_lines(true);
        assert_eq!(dropped, 10);
    }
}
