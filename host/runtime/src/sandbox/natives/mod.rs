//! Host side of the WIT `natives` interface: hashes, HMACs, CRCs, base64/hex, random bytes,
//! compression and AES computed by the host at native speed, so a task's libraries measure
//! the service and not the guest's interpreter.
//!
//! One [`Natives`] per sandbox holds its live hashers and (de)compression streams. Every
//! call is bounded: each input at most [`MAX_INPUT_BYTES`], each produced output that can
//! outgrow its input (decompressed data, random bytes) at most [`MAX_OUTPUT_BYTES`], and at
//! most [`MAX_LIVE_HASHERS`] hashers and [`MAX_LIVE_STREAMS`] streams alive at once. A call
//! past a bound returns `native-error.limit` for the guest to throw. A sandbox whose guest
//! reached the live-object bound is [`Natives::exhausted`]: its slot replaces the instance
//! after the task, so objects a guest leaked (a JavaScript hash never digested) cannot fail
//! every later task.
//!
//! What the host holds for the guest counts against the sandbox's memory
//! ([`crate::sandbox::memory`]): a call's arguments and output while it runs, each live
//! object's state while it lives; an output that can outgrow its input is bounded by the
//! room the sandbox has left. A call or object that does not fit traps the task with
//! `memory_limit`, as a growth of its linear memory would.
//! Every call is synchronous and CPU-bound, and the input bound keeps each one short
//! (a 64 MiB SHA-256 takes tens of milliseconds).

mod aes;
mod codec;
mod compression;
mod digest;

use crate::sandbox::memory::{Reservation, SandboxMemory};
use aes::Direction;
pub use bench_contract::bench::task::natives::NativeError;
use bench_contract::bench::task::natives::{
    AesMode, AesOptions, CompressionFormat, HashAlgorithm, Host, HostCompressor, HostDecompressor,
    HostHasher,
};
use compression::{Compressor, Decompressor};
use digest::Hasher;
use std::sync::Arc;
use wasmtime::component::{Resource, ResourceTable};

/// Largest input of one call (each argument), in bytes.
pub const MAX_INPUT_BYTES: usize = 64 << 20;

/// Largest output of one call that can outgrow its input (decompression, random bytes).
pub const MAX_OUTPUT_BYTES: usize = 64 << 20;

/// Most hashers one sandbox holds at once.
pub const MAX_LIVE_HASHERS: usize = 1024;

/// Most compression and decompression streams one sandbox holds at once.
pub const MAX_LIVE_STREAMS: usize = 32;

/// Host bytes counted for a live hasher (an HMAC's inner and outer states at most).
const HASHER_BYTES: usize = 512;

/// Host bytes counted for a live compressor: miniz_oxide's dictionary, hash chains and
/// symbol buffer, and flate2's output buffer.
const COMPRESSOR_BYTES: usize = 352 << 10;

/// Host bytes counted for a live decompressor: the 32 KiB window, the decoding tables and
/// flate2's buffer.
const DECOMPRESSOR_BYTES: usize = 96 << 10;

/// What a call's buffers are named when they do not fit the sandbox's memory.
const CALL_BUFFERS: &str = "the buffers of a natives call";

/// What a call's output is named when it does not fit the sandbox's memory.
const CALL_OUTPUT: &str = "the output of a natives call";

/// What a native call returns to the guest.
pub(crate) type NativeResult<T> = Result<T, NativeError>;

/// The guest-side placeholder types of the interface's resources.
type GuestHasher = bench_contract::bench::task::natives::Hasher;
type GuestCompressor = bench_contract::bench::task::natives::Compressor;
type GuestDecompressor = bench_contract::bench::task::natives::Decompressor;

/// The natives of one sandbox: its live hashers and streams.
pub struct Natives {
    table: ResourceTable,
    memory: Arc<SandboxMemory>,
    live_hashers: usize,
    live_streams: usize,
    exhausted: bool,
}

impl std::fmt::Debug for Natives {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Natives")
            .field("live_hashers", &self.live_hashers)
            .field("live_streams", &self.live_streams)
            .field("exhausted", &self.exhausted)
            .finish_non_exhaustive()
    }
}

/// A live object of the table and the host memory counted for it.
struct Held<T> {
    object: T,
    _counted: Reservation,
}

pub(crate) fn invalid_argument(message: impl Into<String>) -> NativeError {
    NativeError::InvalidArgument(message.into())
}

pub(crate) fn invalid_data(message: impl Into<String>) -> NativeError {
    NativeError::InvalidData(message.into())
}

pub(crate) fn limit(message: impl Into<String>) -> NativeError {
    NativeError::Limit(message.into())
}

/// Refuses an input past [`MAX_INPUT_BYTES`], naming it.
fn bounded_input(what: &str, len: usize) -> NativeResult<()> {
    if len > MAX_INPUT_BYTES {
        return Err(limit(format!(
            "the {what} is {len} bytes; a native call takes at most {MAX_INPUT_BYTES}"
        )));
    }
    Ok(())
}

/// A trap for a resource handle the table does not hold (wasmtime checks the guest's handles,
/// so this is a host bug, never the guest's doing).
fn lost(error: wasmtime::component::ResourceTableError) -> wasmtime::Error {
    wasmtime::Error::msg(format!("natives: {error}"))
}

/// Runs `body` on the host object behind a guest handle.
fn with_object<T: 'static, G: 'static, R>(
    table: &mut ResourceTable,
    handle: &Resource<G>,
    body: impl FnOnce(&mut T) -> R,
) -> wasmtime::Result<R> {
    let held = table
        .get_mut(&Resource::<Held<T>>::new_borrow(handle.rep()))
        .map_err(lost)?;
    Ok(body(&mut held.object))
}

impl Natives {
    /// The natives of a sandbox whose memory is `memory`.
    pub(crate) fn new(memory: Arc<SandboxMemory>) -> Self {
        Self {
            table: ResourceTable::new(),
            memory,
            live_hashers: 0,
            live_streams: 0,
            exhausted: false,
        }
    }

    /// Whether the guest was refused an object for holding as many as a sandbox may.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// Counts `bytes` the host holds for the guest (`what`); past the sandbox's memory the
    /// task traps with `memory_limit`.
    fn hold(&self, bytes: usize, what: &str) -> wasmtime::Result<Reservation> {
        self.memory
            .reserve(bytes, what)
            .map_err(wasmtime::Error::new)
    }

    /// Runs `body` on the host object behind a guest handle and `data`, once `data` is within
    /// the input bound and counted while the call runs.
    fn feed<T: 'static, G: 'static, R>(
        &mut self,
        handle: &Resource<G>,
        data: &[u8],
        body: impl FnOnce(&mut T, &[u8]) -> NativeResult<R>,
    ) -> wasmtime::Result<NativeResult<R>> {
        if let Err(error) = bounded_input("data", data.len()) {
            return Ok(Err(error));
        }
        let _input = self.hold(data.len(), CALL_BUFFERS)?;
        with_object(&mut self.table, handle, |object| body(object, data))
    }

    /// Runs a call holding `input` bytes of arguments whose output may outgrow them:
    /// `body` gets the bound of its output, its own `max` or the room the sandbox has left
    /// when that is less. An output past the room traps the task with `memory_limit`.
    fn produce(
        &mut self,
        input: usize,
        max: usize,
        body: impl FnOnce(&mut ResourceTable, usize) -> wasmtime::Result<NativeResult<Vec<u8>>>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        let _input = self.hold(input, CALL_BUFFERS)?;
        let room = self.memory.room();
        match body(&mut self.table, room.min(max))? {
            // Bounded by the room: the output does not fit the sandbox's memory (unless
            // the room grew since, when the guest gets the limit error as it is).
            Err(NativeError::Limit(message)) if room < max => {
                match self.hold(room.saturating_add(1), CALL_OUTPUT) {
                    Err(trap) => Err(trap),
                    Ok(_) => Ok(Err(NativeError::Limit(message))),
                }
            }
            produced => Ok(produced),
        }
    }

    /// Runs a stream's step on the stream behind a guest handle (`input` bytes of
    /// arguments), its output bounded by [`MAX_OUTPUT_BYTES`] and the sandbox's room.
    fn step<T: 'static, G: 'static>(
        &mut self,
        handle: &Resource<G>,
        input: usize,
        step: impl FnOnce(&mut T, usize) -> NativeResult<Vec<u8>>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        self.produce(input, MAX_OUTPUT_BYTES, |table, bound| {
            with_object(table, handle, |stream| step(stream, bound))
        })
    }

    /// Puts `object` in the table as a handle of guest type `G`, within `live` < `max`,
    /// counting `bytes` of host memory for it while it lives.
    fn adopt<T: Send + 'static, G: 'static>(
        &mut self,
        (object, bytes): (T, usize),
        count: fn(&mut Self) -> &mut usize,
        max: usize,
        what: &str,
    ) -> wasmtime::Result<NativeResult<Resource<G>>> {
        if *count(self) >= max {
            self.exhausted = true;
            return Ok(Err(limit(format!(
                "the sandbox already holds {max} live {what}s (the most it may): finish or \
                 drop some first"
            ))));
        }
        let counted = self.hold(bytes, &format!("a live {what}"))?;
        let handle = self
            .table
            .push(Held {
                object,
                _counted: counted,
            })
            .map_err(lost)?;
        *count(self) += 1;
        Ok(Ok(Resource::new_own(handle.rep())))
    }

    /// Drops the host object behind a guest handle.
    fn release<T: 'static, G: 'static>(
        &mut self,
        handle: Resource<G>,
        count: fn(&mut Self) -> &mut usize,
    ) -> wasmtime::Result<()> {
        self.table
            .delete(Resource::<Held<T>>::new_own(handle.rep()))
            .map_err(lost)?;
        *count(self) -= 1;
        Ok(())
    }

    fn hashers(&mut self) -> &mut usize {
        &mut self.live_hashers
    }

    fn streams(&mut self) -> &mut usize {
        &mut self.live_streams
    }
}

impl HostHasher for Natives {
    fn create(
        &mut self,
        algorithm: HashAlgorithm,
        hmac_key: Option<Vec<u8>>,
    ) -> wasmtime::Result<NativeResult<Resource<GuestHasher>>> {
        let key_len = hmac_key.as_ref().map_or(0, Vec::len);
        if let Err(error) = bounded_input("HMAC key", key_len) {
            return Ok(Err(error));
        }
        let _key = self.hold(key_len, CALL_BUFFERS)?;
        match Hasher::new(algorithm, hmac_key.as_deref()) {
            Ok(hasher) => self.adopt(
                (hasher, HASHER_BYTES),
                Self::hashers,
                MAX_LIVE_HASHERS,
                "hasher",
            ),
            Err(error) => Ok(Err(error)),
        }
    }

    fn update(
        &mut self,
        handle: Resource<GuestHasher>,
        data: Vec<u8>,
    ) -> wasmtime::Result<NativeResult<()>> {
        self.feed(&handle, &data, Hasher::update)
    }

    fn copy(
        &mut self,
        handle: Resource<GuestHasher>,
    ) -> wasmtime::Result<NativeResult<Resource<GuestHasher>>> {
        let copied = with_object(&mut self.table, &handle, |hasher: &mut Hasher| {
            hasher.copy()
        })?;
        match copied {
            Ok(copy) => self.adopt(
                (copy, HASHER_BYTES),
                Self::hashers,
                MAX_LIVE_HASHERS,
                "hasher",
            ),
            Err(error) => Ok(Err(error)),
        }
    }

    fn finish(&mut self, handle: Resource<GuestHasher>) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        with_object(&mut self.table, &handle, Hasher::finish)
    }

    fn drop(&mut self, handle: Resource<GuestHasher>) -> wasmtime::Result<()> {
        self.release::<Hasher, _>(handle, Self::hashers)
    }
}

impl HostCompressor for Natives {
    fn create(
        &mut self,
        format: CompressionFormat,
        level: Option<u8>,
    ) -> wasmtime::Result<NativeResult<Resource<GuestCompressor>>> {
        match Compressor::new(format, level, MAX_OUTPUT_BYTES) {
            Ok(stream) => self.adopt(
                (stream, COMPRESSOR_BYTES),
                Self::streams,
                MAX_LIVE_STREAMS,
                "compression stream",
            ),
            Err(error) => Ok(Err(error)),
        }
    }

    fn push(
        &mut self,
        handle: Resource<GuestCompressor>,
        data: Vec<u8>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        if let Err(error) = bounded_input("data", data.len()) {
            return Ok(Err(error));
        }
        self.step(&handle, data.len(), |stream: &mut Compressor, bound| {
            stream.bound_output(bound);
            stream.push(&data)
        })
    }

    fn flush(
        &mut self,
        handle: Resource<GuestCompressor>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        self.step(&handle, 0, |stream: &mut Compressor, bound| {
            stream.bound_output(bound);
            stream.flush()
        })
    }

    fn finish(
        &mut self,
        handle: Resource<GuestCompressor>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        self.step(&handle, 0, |stream: &mut Compressor, bound| {
            stream.bound_output(bound);
            stream.finish()
        })
    }

    fn drop(&mut self, handle: Resource<GuestCompressor>) -> wasmtime::Result<()> {
        self.release::<Compressor, _>(handle, Self::streams)
    }
}

impl HostDecompressor for Natives {
    fn create(
        &mut self,
        format: CompressionFormat,
    ) -> wasmtime::Result<NativeResult<Resource<GuestDecompressor>>> {
        let stream = Decompressor::new(format, MAX_OUTPUT_BYTES);
        self.adopt(
            (stream, DECOMPRESSOR_BYTES),
            Self::streams,
            MAX_LIVE_STREAMS,
            "compression stream",
        )
    }

    fn push(
        &mut self,
        handle: Resource<GuestDecompressor>,
        data: Vec<u8>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        if let Err(error) = bounded_input("data", data.len()) {
            return Ok(Err(error));
        }
        self.step(&handle, data.len(), |stream: &mut Decompressor, bound| {
            stream.bound_output(bound);
            stream.push(&data)
        })
    }

    fn finish(
        &mut self,
        handle: Resource<GuestDecompressor>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        self.step(&handle, 0, |stream: &mut Decompressor, bound| {
            stream.bound_output(bound);
            stream.finish()
        })
    }

    fn drop(&mut self, handle: Resource<GuestDecompressor>) -> wasmtime::Result<()> {
        self.release::<Decompressor, _>(handle, Self::streams)
    }
}

impl Natives {
    /// Runs a one-shot call of `input` bytes of arguments (each within the input bound)
    /// whose output is at most `output` bytes, both counted while it runs.
    fn call<R>(
        &self,
        inputs: &[(&str, usize)],
        output: usize,
        body: impl FnOnce() -> NativeResult<R>,
    ) -> wasmtime::Result<NativeResult<R>> {
        for (what, len) in inputs {
            if let Err(error) = bounded_input(what, *len) {
                return Ok(Err(error));
            }
        }
        let input: usize = inputs.iter().map(|(_, len)| len).sum();
        let _buffers = self.hold(input.saturating_add(output), CALL_BUFFERS)?;
        Ok(body())
    }
}

impl Host for Natives {
    fn digest(
        &mut self,
        algorithm: HashAlgorithm,
        hmac_key: Option<Vec<u8>>,
        data: Vec<u8>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        let key_len = hmac_key.as_ref().map_or(0, Vec::len);
        self.call(&[("HMAC key", key_len), ("data", data.len())], 64, || {
            digest::digest(algorithm, hmac_key.as_deref(), &data)
        })
    }

    fn crc32(&mut self, data: Vec<u8>, previous: u32) -> wasmtime::Result<NativeResult<u32>> {
        self.call(&[("data", data.len())], 0, || {
            Ok(codec::crc32(&data, previous))
        })
    }

    fn crc32c(&mut self, data: Vec<u8>, previous: u32) -> wasmtime::Result<NativeResult<u32>> {
        self.call(&[("data", data.len())], 0, || {
            Ok(codec::crc32c(&data, previous))
        })
    }

    fn base64_encode(
        &mut self,
        data: Vec<u8>,
        url_safe: bool,
    ) -> wasmtime::Result<NativeResult<String>> {
        let encoded = data.len().div_ceil(3).saturating_mul(4);
        self.call(&[("data", data.len())], encoded, || {
            Ok(codec::base64_encode(&data, url_safe))
        })
    }

    fn base64_decode(&mut self, text: String) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        self.call(&[("text", text.len())], text.len(), || {
            codec::base64_decode(&text)
        })
    }

    fn hex_encode(&mut self, data: Vec<u8>) -> wasmtime::Result<NativeResult<String>> {
        self.call(&[("data", data.len())], data.len() * 2, || {
            Ok(codec::hex_encode(&data))
        })
    }

    fn hex_decode(&mut self, text: String) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        self.call(&[("text", text.len())], text.len() / 2, || {
            codec::hex_decode(&text)
        })
    }

    fn random_bytes(&mut self, length: u32) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        let length = length as usize;
        if length > MAX_OUTPUT_BYTES {
            return Ok(Err(limit(format!(
                "{length} random bytes were asked for; a native call returns at most \
                 {MAX_OUTPUT_BYTES}"
            ))));
        }
        let _output = self.hold(length, CALL_OUTPUT)?;
        random_bytes(length)
    }

    fn compress(
        &mut self,
        format: CompressionFormat,
        data: Vec<u8>,
        level: Option<u8>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        if let Err(error) = bounded_input("data", data.len()) {
            return Ok(Err(error));
        }
        self.produce(data.len(), usize::MAX, |_, bound| {
            Ok(compression::compress(format, &data, level, bound))
        })
    }

    fn decompress(
        &mut self,
        format: CompressionFormat,
        data: Vec<u8>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        if let Err(error) = bounded_input("data", data.len()) {
            return Ok(Err(error));
        }
        self.produce(data.len(), MAX_OUTPUT_BYTES, |_, bound| {
            Ok(compression::decompress(format, &data, bound))
        })
    }

    fn aes_encrypt(
        &mut self,
        mode: AesMode,
        key: Vec<u8>,
        iv: Vec<u8>,
        data: Vec<u8>,
        options: AesOptions,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        self.aes_call(Direction::Encrypt, mode, (&key, &iv, &data), &options)
    }

    fn aes_decrypt(
        &mut self,
        mode: AesMode,
        key: Vec<u8>,
        iv: Vec<u8>,
        data: Vec<u8>,
        options: AesOptions,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        self.aes_call(Direction::Decrypt, mode, (&key, &iv, &data), &options)
    }
}

/// Bytes an AES output may have beyond its input (a GCM tag, a CBC block of padding).
const AES_EXPANSION: usize = 16;

impl Natives {
    fn aes_call(
        &self,
        direction: Direction,
        mode: AesMode,
        (key, iv, data): (&[u8], &[u8], &[u8]),
        options: &AesOptions,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        let additional = options.additional_data.as_ref().map_or(0, Vec::len);
        let inputs = [
            ("key", key.len()),
            ("IV", iv.len()),
            ("data", data.len()),
            ("additional data", additional),
        ];
        self.call(&inputs, data.len() + AES_EXPANSION, || {
            aes::apply(direction, mode, key, iv, data, options)
        })
    }
}

/// `length` bytes from the host's secure source; a host without one ends the task.
fn random_bytes(length: usize) -> wasmtime::Result<NativeResult<Vec<u8>>> {
    let mut bytes = vec![0; length];
    getrandom::fill(&mut bytes)
        .map_err(|error| wasmtime::Error::msg(format!("the host has no random bytes: {error}")))?;
    Ok(Ok(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex_of(result: wasmtime::Result<NativeResult<Vec<u8>>>) -> String {
        hex::encode(result.unwrap().unwrap())
    }

    fn borrow<G: 'static>(handle: &Resource<G>) -> Resource<G> {
        Resource::new_borrow(handle.rep())
    }

    fn new_hasher(
        natives: &mut Natives,
        algorithm: HashAlgorithm,
        key: Option<&[u8]>,
    ) -> NativeResult<Resource<GuestHasher>> {
        HostHasher::create(natives, algorithm, key.map(<[u8]>::to_vec)).unwrap()
    }

    #[test]
    fn digests_and_hmacs_match_their_published_vectors() {
        let mut natives = Natives::new(SandboxMemory::unlimited());
        assert!(!natives.exhausted());
        let cases = [
            (HashAlgorithm::Md5, None, "900150983cd24fb0d6963f7d28e17f72"),
            (
                HashAlgorithm::Sha1,
                None,
                "a9993e364706816aba3e25717850c26c9cd0d89d",
            ),
            (
                HashAlgorithm::Sha256,
                None,
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            ),
            (
                HashAlgorithm::Sha384,
                None,
                "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed\
                 8086072ba1e7cc2358baeca134c825a7",
            ),
            (
                HashAlgorithm::Sha512,
                None,
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
                 2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            ),
            // RFC 2104 / 2202 / 4231: key "Jefe", "what do ya want for nothing?".
            (
                HashAlgorithm::Md5,
                Some("Jefe"),
                "750c783e6ab0b503eaa86e310a5db738",
            ),
            (
                HashAlgorithm::Sha1,
                Some("Jefe"),
                "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79",
            ),
            (
                HashAlgorithm::Sha256,
                Some("Jefe"),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
        ];
        for (algorithm, key, expected) in cases {
            let data: &[u8] = match key {
                None => b"abc",
                Some(_) => b"what do ya want for nothing?",
            };
            let key = key.map(|key| key.as_bytes().to_vec());
            let whole = natives.digest(algorithm, key.clone(), data.to_vec());
            assert_eq!(hex_of(whole), expected, "{algorithm:?}");
            let hasher = new_hasher(&mut natives, algorithm, key.as_deref()).unwrap();
            for byte in data {
                natives
                    .update(borrow(&hasher), vec![*byte])
                    .unwrap()
                    .unwrap();
            }
            assert_eq!(
                hex_of(HostHasher::finish(&mut natives, borrow(&hasher))),
                expected
            );
            HostHasher::drop(&mut natives, hasher).unwrap();
        }
        assert_eq!(natives.live_hashers, 0);
    }

    #[test]
    fn a_copy_goes_on_alone_and_a_finished_hasher_takes_nothing() {
        let mut natives = Natives::new(SandboxMemory::unlimited());
        let hasher = new_hasher(&mut natives, HashAlgorithm::Sha256, None).unwrap();
        natives
            .update(borrow(&hasher), b"ab".to_vec())
            .unwrap()
            .unwrap();
        let copy = natives.copy(borrow(&hasher)).unwrap().unwrap();
        natives
            .update(borrow(&copy), b"c".to_vec())
            .unwrap()
            .unwrap();
        let abc = natives.digest(HashAlgorithm::Sha256, None, b"abc".to_vec());
        let ab = natives.digest(HashAlgorithm::Sha256, None, b"ab".to_vec());
        assert_eq!(
            hex_of(HostHasher::finish(&mut natives, borrow(&copy))),
            hex_of(abc)
        );
        assert_eq!(
            hex_of(HostHasher::finish(&mut natives, borrow(&hasher))),
            hex_of(ab)
        );
        let again = HostHasher::finish(&mut natives, borrow(&hasher)).unwrap();
        assert!(
            matches!(again, Err(NativeError::InvalidArgument(_))),
            "{again:?}"
        );
        let late = natives.update(borrow(&hasher), b"x".to_vec()).unwrap();
        assert!(
            matches!(late, Err(NativeError::InvalidArgument(_))),
            "{late:?}"
        );
        assert!(natives.copy(borrow(&hasher)).unwrap().is_err());
        assert_eq!(natives.live_hashers, 2);
    }

    #[test]
    fn hashers_past_the_sandbox_bound_are_refused_until_one_is_dropped() {
        let mut natives = Natives::new(SandboxMemory::unlimited());
        let mut live: Vec<_> = (0..MAX_LIVE_HASHERS)
            .map(|_| new_hasher(&mut natives, HashAlgorithm::Md5, Some(b"k")).unwrap())
            .collect();
        let refused = new_hasher(&mut natives, HashAlgorithm::Md5, None).unwrap_err();
        assert_eq!(
            refused,
            limit(
                "the sandbox already holds 1024 live hashers (the most it may): finish or drop \
                 some first"
            )
        );
        let copied = natives.copy(borrow(&live[0])).unwrap();
        assert!(matches!(copied, Err(NativeError::Limit(_))));
        HostHasher::drop(&mut natives, live.pop().unwrap()).unwrap();
        assert!(new_hasher(&mut natives, HashAlgorithm::Md5, None).is_ok());
        assert!(natives.exhausted());
    }

    #[test]
    fn streams_past_the_sandbox_bound_are_refused_until_one_is_dropped() {
        let mut natives = Natives::new(SandboxMemory::unlimited());
        let mut live = Vec::new();
        for index in 0..MAX_LIVE_STREAMS {
            if index % 2 == 0 {
                let stream = HostCompressor::create(&mut natives, CompressionFormat::Gzip, None);
                live.push(Ok(stream.unwrap().unwrap()));
            } else {
                let stream = HostDecompressor::create(&mut natives, CompressionFormat::Gzip);
                live.push(Err(stream.unwrap().unwrap()));
            }
        }
        let refused = HostDecompressor::create(&mut natives, CompressionFormat::Deflate).unwrap();
        assert!(matches!(refused, Err(NativeError::Limit(_))), "{refused:?}");
        let refused = HostCompressor::create(&mut natives, CompressionFormat::Deflate, None);
        assert!(matches!(refused.unwrap(), Err(NativeError::Limit(_))));
        match live.pop().unwrap() {
            Ok(compressor) => HostCompressor::drop(&mut natives, compressor).unwrap(),
            Err(decompressor) => HostDecompressor::drop(&mut natives, decompressor).unwrap(),
        }
        let again = HostCompressor::create(&mut natives, CompressionFormat::Deflate, Some(1));
        assert!(again.unwrap().is_ok());
        assert_eq!(natives.live_streams, MAX_LIVE_STREAMS);
    }

    #[test]
    fn inputs_past_the_input_bound_are_refused_naming_the_bound() {
        let mut natives = Natives::new(SandboxMemory::unlimited());
        let huge = vec![0u8; MAX_INPUT_BYTES + 1];
        let expected = limit(format!(
            "the data is {} bytes; a native call takes at most {MAX_INPUT_BYTES}",
            MAX_INPUT_BYTES + 1
        ));
        assert_eq!(
            natives.crc32(huge.clone(), 0).unwrap(),
            Err(expected.clone())
        );
        assert_eq!(
            natives
                .digest(HashAlgorithm::Sha1, None, huge.clone())
                .unwrap(),
            Err(expected.clone())
        );
        let hasher = new_hasher(&mut natives, HashAlgorithm::Sha1, None).unwrap();
        assert_eq!(
            natives.update(borrow(&hasher), huge.clone()).unwrap(),
            Err(expected)
        );
        let key = natives.digest(HashAlgorithm::Sha1, Some(huge.clone()), Vec::new());
        assert!(matches!(key.unwrap(), Err(NativeError::Limit(_))));
        let text =
            natives.base64_decode(String::from_utf8(vec![b'A'; MAX_INPUT_BYTES + 4]).unwrap());
        assert!(matches!(text.unwrap(), Err(NativeError::Limit(_))));
        let sealed = natives.aes_encrypt(
            AesMode::Ctr,
            vec![0; 16],
            vec![0; 16],
            huge,
            AesOptions {
                additional_data: None,
                tag_length: None,
                counter_length: None,
            },
        );
        assert!(matches!(sealed.unwrap(), Err(NativeError::Limit(_))));
    }

    #[test]
    fn random_bytes_are_fresh_and_bounded() {
        let mut natives = Natives::new(SandboxMemory::unlimited());
        let one = natives.random_bytes(32).unwrap().unwrap();
        let two = natives.random_bytes(32).unwrap().unwrap();
        assert_eq!(one.len(), 32);
        assert_ne!(one, two);
        assert_eq!(natives.random_bytes(0).unwrap().unwrap(), b"");
        let refused = natives.random_bytes(u32::MAX).unwrap().unwrap_err();
        assert_eq!(
            refused,
            limit("4294967295 random bytes were asked for; a native call returns at most 67108864")
        );
    }

    #[test]
    fn a_decompression_bomb_is_a_limit_error_of_the_call() {
        let mut natives = Natives::new(SandboxMemory::unlimited());
        let bomb = compression::compress(
            CompressionFormat::Gzip,
            &vec![0; MAX_OUTPUT_BYTES + 1],
            Some(9),
            usize::MAX,
        )
        .unwrap();
        assert!(bomb.len() < 256 << 10, "{}", bomb.len());
        let refused = natives.decompress(CompressionFormat::Gzip, bomb).unwrap();
        assert_eq!(
            refused,
            Err(limit(
                "the decompressed output is larger than 67108864 bytes"
            ))
        );
    }

    /// The `memory_limit` message of a trap.
    fn memory_trap<T: std::fmt::Debug>(result: wasmtime::Result<T>) -> String {
        let trap = result.unwrap_err();
        let bound = trap
            .downcast_ref::<crate::sandbox::limits::BoundExceeded>()
            .expect("a memory_limit trap");
        assert_eq!(bound.code, crate::sandbox::limits::StopCode::MemoryLimit);
        bound.message.clone()
    }

    #[test]
    fn call_buffers_and_live_objects_count_against_the_sandbox_memory() {
        let host = crate::sandbox::memory::HostMemory::new(None, "");
        let memory = SandboxMemory::new(1 << 20, host.clone());
        let mut natives = Natives::new(memory);
        let message = memory_trap(natives.digest(HashAlgorithm::Sha256, None, vec![0; 1 << 20]));
        assert!(
            message.starts_with(
                "task exceeded its memory limit: growing the buffers of a natives call by \
                 1048640 bytes would pass the sandbox's memory limit of 1048576 bytes"
            ),
            "{message}"
        );
        assert!(natives.crc32(vec![0; 512 << 10], 0).unwrap().is_ok());
        assert_eq!(host.used(), 0, "a call's buffers count only while it runs");

        let mut compressors = Vec::new();
        for _ in 0..2 {
            let compressor = HostCompressor::create(&mut natives, CompressionFormat::Gzip, None);
            compressors.push(compressor.unwrap().unwrap());
        }
        assert_eq!(host.used(), 2 * COMPRESSOR_BYTES as u64);
        let hashers: Vec<_> = (0..4)
            .map(|_| new_hasher(&mut natives, HashAlgorithm::Md5, None).unwrap())
            .collect();
        assert_eq!(
            host.used(),
            (2 * COMPRESSOR_BYTES + 4 * HASHER_BYTES) as u64
        );
        let message = memory_trap(HostCompressor::create(
            &mut natives,
            CompressionFormat::Gzip,
            None,
        ));
        assert!(
            message.contains("growing a live compression stream by 360448 bytes"),
            "{message}"
        );
        for compressor in compressors {
            HostCompressor::drop(&mut natives, compressor).unwrap();
        }
        for hasher in hashers {
            HostHasher::drop(&mut natives, hasher).unwrap();
        }
        assert_eq!(host.used(), 0, "a dropped object gives its memory back");
        let _ = HostHasher::create(&mut natives, HashAlgorithm::Sha1, None).unwrap();
        drop(natives);
        assert_eq!(
            host.used(),
            0,
            "the sandbox's end gives its live objects back"
        );
    }

    #[test]
    fn a_decompression_past_the_room_left_traps_at_the_memory_limit() {
        let bomb = compression::compress(
            CompressionFormat::Gzip,
            &vec![0; 4 << 20],
            Some(9),
            usize::MAX,
        )
        .unwrap();
        let memory = SandboxMemory::new(2 << 20, Arc::default());
        let mut natives = Natives::new(memory.clone());
        let message = memory_trap(natives.decompress(CompressionFormat::Gzip, bomb.clone()));
        let room = (2 << 20) - bomb.len();
        assert!(
            message.starts_with(&format!(
                "task exceeded its memory limit: growing the output of a natives call by {} \
                 bytes would pass the sandbox's memory limit of 2097152 bytes",
                room + 1
            )),
            "{message}"
        );
        let stream = HostDecompressor::create(&mut natives, CompressionFormat::Gzip);
        let stream = stream.unwrap().unwrap();
        let message = memory_trap(HostDecompressor::push(&mut natives, borrow(&stream), bomb));
        assert!(
            message.contains("growing the output of a natives call"),
            "{message}"
        );
        assert_eq!(memory.room(), (2 << 20) - DECOMPRESSOR_BYTES);
    }
}
