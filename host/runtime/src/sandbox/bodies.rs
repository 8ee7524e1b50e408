//! Host side of the WIT `bodies` interface: the rest of a guest's input stream (a response
//! body) read in the host and handed over as one list, so a guest that wants the whole body
//! gets it in one copy instead of a copy per chunk and a join; with its CRC-32 when asked,
//! computed chunk by chunk as the body arrives, so a guest that checks it need not hand the
//! body back.
//!
//! What the host buffers counts against the sandbox's memory ([`crate::sandbox::memory`]):
//! the length the guest expects is reserved before anything is read (as far as the sandbox
//! has room: a `HEAD` response announces a length it does not carry), and every byte past
//! it as it arrives; a body that does not fit stops the task with `memory_limit`, as a growth
//! of its linear memory would. The reservation ends when the call returns.

use crate::sandbox::memory::{Reservation, SandboxMemory};
use bench_contract::bench::task::bodies::{ChecksummedBody, Host, ReadError};
use crc32fast::Hasher as Crc32;
use std::sync::Arc;
use std::time::Duration;
use wasmtime::component::{HasData, Resource, ResourceTable};
use wasmtime_wasi::p2::{DynInputStream, InputStream, StreamError};

/// The most one read of the stream asks for (a file stream allocates what it is asked).
const READ_BYTES: usize = 4 << 20;

/// The most reserved (and allocated) before anything arrives; a longer body grows the buffer
/// as it comes.
const MAX_UPFRONT_BYTES: usize = 256 << 20;

/// What the buffer is named when it does not fit the sandbox's memory.
const BUFFER: &str = "a body read whole";

/// What the `bodies` interface reaches: the streams in the table wasi's resources share, and
/// the sandbox's memory.
pub struct BodiesView<'a> {
    /// The sandbox's resource table (the guest's input streams).
    pub(crate) table: &'a mut ResourceTable,
    /// The sandbox's memory, which the buffered body counts against.
    pub(crate) memory: &'a Arc<SandboxMemory>,
}

/// The `bodies` interface in the linker.
pub struct BodiesHost;

impl HasData for BodiesHost {
    type Data<'a> = BodiesView<'a>;
}

impl Host for BodiesView<'_> {
    async fn read_whole(
        &mut self,
        body: Resource<DynInputStream>,
        expected: u64,
        timeout_ms: Option<u32>,
    ) -> wasmtime::Result<Result<Vec<u8>, ReadError>> {
        self.read(body, expected, timeout_ms, None).await
    }

    async fn read_whole_crc32(
        &mut self,
        body: Resource<DynInputStream>,
        expected: u64,
        timeout_ms: Option<u32>,
    ) -> wasmtime::Result<Result<ChecksummedBody, ReadError>> {
        let mut crc = Crc32::new();
        let read = self
            .read(body, expected, timeout_ms, Some(&mut crc))
            .await?;
        Ok(read.map(|data| ChecksummedBody {
            data,
            crc32: crc.finalize(),
        }))
    }
}

impl BodiesView<'_> {
    /// Reads the guest's stream `body` whole ([`read_whole`]).
    async fn read(
        &mut self,
        body: Resource<DynInputStream>,
        expected: u64,
        timeout_ms: Option<u32>,
        crc: Option<&mut Crc32>,
    ) -> wasmtime::Result<Result<Vec<u8>, ReadError>> {
        let stream = self
            .table
            .get_mut(&body)
            .map_err(|error| wasmtime::Error::msg(format!("bodies: {error}")))?;
        let timeout = timeout_ms.map(|ms| Duration::from_millis(u64::from(ms)));
        read_whole(stream.as_mut(), self.memory, expected, timeout, crc).await
    }
}

/// Reads `stream` until it closes, counting the buffer against `memory` (`expected` bytes up
/// front, at most the room the sandbox has and [`MAX_UPFRONT_BYTES`]) and feeding every
/// chunk to `crc` when given; waits at most `timeout` for each chunk. A bound crossed is the
/// error (a trap that stops the task with `memory_limit`); a stream that fails or times out
/// is the guest's [`ReadError`].
pub(crate) async fn read_whole(
    stream: &mut dyn InputStream,
    memory: &Arc<SandboxMemory>,
    expected: u64,
    timeout: Option<Duration>,
    mut crc: Option<&mut Crc32>,
) -> wasmtime::Result<Result<Vec<u8>, ReadError>> {
    let expected = usize::try_from(expected)
        .unwrap_or(usize::MAX)
        .min(memory.room())
        .min(MAX_UPFRONT_BYTES);
    let mut reserved = memory
        .reserve(expected, BUFFER)
        .map_err(wasmtime::Error::new)?;
    let mut counted = expected;
    let mut body = Vec::with_capacity(expected);
    loop {
        let chunk = match stream.read(READ_BYTES) {
            Ok(chunk) => chunk,
            Err(StreamError::Closed) => return Ok(Ok(body)),
            Err(StreamError::LastOperationFailed(error)) => {
                return Ok(Err(ReadError::Failed(format!("{error:#}"))))
            }
            Err(StreamError::Trap(error)) => return Err(error),
        };
        if chunk.is_empty() {
            if !ready_within(stream, timeout).await {
                return Ok(Err(ReadError::Timeout));
            }
            continue;
        }
        count(&mut reserved, &mut counted, body.len() + chunk.len())?;
        if let Some(crc) = crc.as_deref_mut() {
            crc.update(&chunk);
        }
        body.extend_from_slice(&chunk);
    }
}

/// Grows the reservation to `needed` bytes when it holds fewer.
fn count(reserved: &mut Reservation, counted: &mut usize, needed: usize) -> wasmtime::Result<()> {
    if needed > *counted {
        reserved
            .grow(needed - *counted, BUFFER)
            .map_err(wasmtime::Error::new)?;
        *counted = needed;
    }
    Ok(())
}

/// Waits until the stream has data or has ended: false when `timeout` passed first.
async fn ready_within(stream: &mut dyn InputStream, timeout: Option<Duration>) -> bool {
    match timeout {
        Some(timeout) => tokio::time::timeout(timeout, stream.ready()).await.is_ok(),
        None => {
            stream.ready().await;
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::limits::{BoundExceeded, StopCode};
    use crate::sandbox::memory::HostMemory;
    use bytes::Bytes;
    use std::collections::VecDeque;
    use wasmtime_wasi::p2::{Pollable, StreamResult};

    /// A stream that hands out `steps` in turn: a chunk, nothing ready yet (`None`: the next
    /// `ready` waits `pause`), or an error; closed after the last.
    struct Scripted {
        steps: VecDeque<Option<StreamResult<Bytes>>>,
        pause: Duration,
    }

    impl Scripted {
        fn new(steps: impl IntoIterator<Item = Option<StreamResult<Bytes>>>) -> Self {
            Self {
                steps: steps.into_iter().collect(),
                pause: Duration::ZERO,
            }
        }
    }

    #[async_trait::async_trait]
    impl Pollable for Scripted {
        async fn ready(&mut self) {
            tokio::time::sleep(self.pause).await;
        }
    }

    impl InputStream for Scripted {
        fn read(&mut self, size: usize) -> StreamResult<Bytes> {
            match self.steps.pop_front() {
                None => Err(StreamError::Closed),
                Some(None) => Ok(Bytes::new()),
                Some(Some(Ok(mut chunk))) => {
                    if chunk.len() > size {
                        self.steps.push_front(Some(Ok(chunk.split_off(size))));
                    }
                    Ok(chunk)
                }
                Some(Some(Err(error))) => Err(error),
            }
        }
    }

    fn chunk(text: &'static str) -> Option<StreamResult<Bytes>> {
        Some(Ok(Bytes::from_static(text.as_bytes())))
    }

    #[tokio::test]
    async fn the_chunks_come_back_as_one_body_and_the_buffer_is_given_back() {
        let host = HostMemory::new(Some(1000), "--max-host-memory");
        let memory = SandboxMemory::new(1000, host.clone());
        let mut stream = Scripted::new([chunk("hello, "), None, chunk("whole "), chunk("body")]);
        let body = read_whole(&mut stream, &memory, 10, None, None)
            .await
            .unwrap();
        assert_eq!(body.unwrap(), b"hello, whole body");
        assert_eq!(host.used(), 0, "the reservation ends with the call");
        assert!(
            matches!(stream.read(1), Err(StreamError::Closed)),
            "the stream is read to its end"
        );
    }

    #[tokio::test]
    async fn the_crc32_is_of_every_chunk_of_the_body_in_order() {
        let memory = SandboxMemory::unlimited();
        let mut stream = Scripted::new([chunk("1234"), None, chunk("5"), chunk("6789")]);
        let mut crc = Crc32::new();
        let body = read_whole(&mut stream, &memory, 9, None, Some(&mut crc)).await;
        assert_eq!(body.unwrap().unwrap(), b"123456789");
        assert_eq!(crc.finalize(), 0xCBF4_3926, "zlib.crc32(b'123456789')");
        let mut empty = Scripted::new([]);
        let mut crc = Crc32::new();
        let body = read_whole(&mut empty, &memory, 0, None, Some(&mut crc)).await;
        assert_eq!(body.unwrap().unwrap(), b"");
        assert_eq!(crc.finalize(), 0);
    }

    #[tokio::test]
    async fn only_a_body_past_the_memory_limit_stops_the_task_with_memory_limit() {
        let host = HostMemory::new(None, "");
        let memory = SandboxMemory::new(16, host.clone());
        let over = |error: wasmtime::Error| {
            let bound = error.downcast_ref::<BoundExceeded>().unwrap();
            assert_eq!(bound.code, StopCode::MemoryLimit);
            assert!(
                bound.message.contains("growing a body read whole by"),
                "{}",
                bound.message
            );
        };
        let mut announced = Scripted::new([chunk("small")]);
        let body = read_whole(&mut announced, &memory, 1 << 40, None, None).await;
        assert_eq!(
            body.unwrap().unwrap(),
            b"small",
            "a length past the room is not reserved"
        );
        let mut longer = Scripted::new([chunk("0123456789"), chunk("0123456789")]);
        over(
            read_whole(&mut longer, &memory, 4, None, None)
                .await
                .unwrap_err(),
        );
        assert_eq!(host.used(), 0);
    }

    #[tokio::test]
    async fn a_failed_stream_and_a_wait_past_the_timeout_are_the_guests_errors() {
        let memory = SandboxMemory::unlimited();
        let failed = StreamError::LastOperationFailed(wasmtime::Error::msg("connection reset"));
        let mut cut = Scripted::new([chunk("part"), Some(Err(failed))]);
        assert_eq!(
            read_whole(&mut cut, &memory, 8, None, None).await.unwrap(),
            Err(ReadError::Failed("connection reset".into()))
        );
        let mut slow = Scripted::new([chunk("part"), None]);
        slow.pause = Duration::from_secs(60);
        let timeout = Some(Duration::from_millis(10));
        assert_eq!(
            read_whole(&mut slow, &memory, 8, timeout, None)
                .await
                .unwrap(),
            Err(ReadError::Timeout)
        );
        let mut trapping = Scripted::new([Some(Err(StreamError::Trap(wasmtime::Error::msg(
            "host bug",
        ))))]);
        assert_eq!(
            read_whole(&mut trapping, &memory, 0, None, None)
                .await
                .unwrap_err()
                .to_string(),
            "host bug"
        );
    }
}
