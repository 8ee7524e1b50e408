//! Host side of the WIT `natives` interface: hashes, HMACs, CRCs, base64/hex, random bytes,
//! compression and AES computed by the host at native speed, so a task's libraries measure
//! the service and not the guest's interpreter.
//!
//! One [`Natives`] per sandbox holds its live hashers and (de)compression streams. Every
//! call is bounded: each input at most [`MAX_INPUT_BYTES`], each produced output that can
//! outgrow its input (decompressed data, random bytes) at most [`MAX_OUTPUT_BYTES`], and at
//! most [`MAX_LIVE_HASHERS`] hashers and [`MAX_LIVE_STREAMS`] streams alive at once. A call
//! past a bound returns `native-error.limit` for the guest to throw; nothing here traps. A
//! sandbox whose guest reached the live-object bound is [`Natives::exhausted`]: its slot
//! replaces the instance after the task, so objects a guest leaked (a JavaScript hash never
//! digested) cannot fail every later task.
//! Every call is synchronous and CPU-bound, and the input bound keeps each one short
//! (a 64 MiB SHA-256 takes tens of milliseconds).

mod aes;
mod codec;
mod compression;
mod digest;

use aes::Direction;
pub use bench_contract::bench::task::natives::NativeError;
use bench_contract::bench::task::natives::{
    AesMode, AesOptions, CompressionFormat, HashAlgorithm, Host, HostCompressor, HostDecompressor,
    HostHasher,
};
use compression::{Compressor, Decompressor};
use digest::Hasher;
use wasmtime::component::{Resource, ResourceTable};

/// Largest input of one call (each argument), in bytes.
pub const MAX_INPUT_BYTES: usize = 64 << 20;

/// Largest output of one call that can outgrow its input (decompression, random bytes).
pub const MAX_OUTPUT_BYTES: usize = 64 << 20;

/// Most hashers one sandbox holds at once.
pub const MAX_LIVE_HASHERS: usize = 1024;

/// Most compression and decompression streams one sandbox holds at once (a compressor's
/// state is about 300 KiB).
pub const MAX_LIVE_STREAMS: usize = 32;

/// What a native call returns to the guest.
pub(crate) type NativeResult<T> = Result<T, NativeError>;

/// The guest-side placeholder types of the interface's resources.
type GuestHasher = bench_contract::bench::task::natives::Hasher;
type GuestCompressor = bench_contract::bench::task::natives::Compressor;
type GuestDecompressor = bench_contract::bench::task::natives::Decompressor;

/// The natives of one sandbox: its live hashers and streams.
#[derive(Default)]
pub struct Natives {
    table: ResourceTable,
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

/// Runs `body` on the host object behind a guest handle and `data`, once `data` is within the
/// input bound.
fn feed<T: 'static, G: 'static, R>(
    table: &mut ResourceTable,
    handle: &Resource<G>,
    data: &[u8],
    body: impl FnOnce(&mut T, &[u8]) -> NativeResult<R>,
) -> wasmtime::Result<NativeResult<R>> {
    if let Err(error) = bounded_input("data", data.len()) {
        return Ok(Err(error));
    }
    with_object(table, handle, |object| body(object, data))
}

/// Runs `body` on the host object behind a guest handle.
fn with_object<T: 'static, G: 'static, R>(
    table: &mut ResourceTable,
    handle: &Resource<G>,
    body: impl FnOnce(&mut T) -> R,
) -> wasmtime::Result<R> {
    let object = table
        .get_mut(&Resource::<T>::new_borrow(handle.rep()))
        .map_err(lost)?;
    Ok(body(object))
}

impl Natives {
    /// Whether the guest was refused an object for holding as many as a sandbox may.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// Puts `object` in the table as a handle of guest type `G`, within `live` < `max`.
    fn adopt<T: Send + 'static, G: 'static>(
        &mut self,
        object: T,
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
        let handle = self.table.push(object).map_err(lost)?;
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
            .delete(Resource::<T>::new_own(handle.rep()))
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
        if let Err(error) = bounded_input("HMAC key", hmac_key.as_ref().map_or(0, Vec::len)) {
            return Ok(Err(error));
        }
        match Hasher::new(algorithm, hmac_key.as_deref()) {
            Ok(hasher) => self.adopt(hasher, Self::hashers, MAX_LIVE_HASHERS, "hasher"),
            Err(error) => Ok(Err(error)),
        }
    }

    fn update(
        &mut self,
        handle: Resource<GuestHasher>,
        data: Vec<u8>,
    ) -> wasmtime::Result<NativeResult<()>> {
        feed(&mut self.table, &handle, &data, Hasher::update)
    }

    fn copy(
        &mut self,
        handle: Resource<GuestHasher>,
    ) -> wasmtime::Result<NativeResult<Resource<GuestHasher>>> {
        let copied = with_object(&mut self.table, &handle, |hasher: &mut Hasher| {
            hasher.copy()
        })?;
        match copied {
            Ok(copy) => self.adopt(copy, Self::hashers, MAX_LIVE_HASHERS, "hasher"),
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
                stream,
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
        feed(&mut self.table, &handle, &data, Compressor::push)
    }

    fn flush(
        &mut self,
        handle: Resource<GuestCompressor>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        with_object(&mut self.table, &handle, Compressor::flush)
    }

    fn finish(
        &mut self,
        handle: Resource<GuestCompressor>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        with_object(&mut self.table, &handle, Compressor::finish)
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
            stream,
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
        feed(&mut self.table, &handle, &data, Decompressor::push)
    }

    fn finish(
        &mut self,
        handle: Resource<GuestDecompressor>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        with_object(&mut self.table, &handle, Decompressor::finish)
    }

    fn drop(&mut self, handle: Resource<GuestDecompressor>) -> wasmtime::Result<()> {
        self.release::<Decompressor, _>(handle, Self::streams)
    }
}

impl Host for Natives {
    fn digest(
        &mut self,
        algorithm: HashAlgorithm,
        hmac_key: Option<Vec<u8>>,
        data: Vec<u8>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        Ok((|| {
            bounded_input("HMAC key", hmac_key.as_ref().map_or(0, Vec::len))?;
            bounded_input("data", data.len())?;
            digest::digest(algorithm, hmac_key.as_deref(), &data)
        })())
    }

    fn crc32(&mut self, data: Vec<u8>, previous: u32) -> wasmtime::Result<NativeResult<u32>> {
        Ok(bounded_input("data", data.len()).map(|()| codec::crc32(&data, previous)))
    }

    fn crc32c(&mut self, data: Vec<u8>, previous: u32) -> wasmtime::Result<NativeResult<u32>> {
        Ok(bounded_input("data", data.len()).map(|()| codec::crc32c(&data, previous)))
    }

    fn base64_encode(
        &mut self,
        data: Vec<u8>,
        url_safe: bool,
    ) -> wasmtime::Result<NativeResult<String>> {
        Ok(bounded_input("data", data.len()).map(|()| codec::base64_encode(&data, url_safe)))
    }

    fn base64_decode(&mut self, text: String) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        Ok(bounded_input("text", text.len()).and_then(|()| codec::base64_decode(&text)))
    }

    fn hex_encode(&mut self, data: Vec<u8>) -> wasmtime::Result<NativeResult<String>> {
        Ok(bounded_input("data", data.len()).map(|()| codec::hex_encode(&data)))
    }

    fn hex_decode(&mut self, text: String) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        Ok(bounded_input("text", text.len()).and_then(|()| codec::hex_decode(&text)))
    }

    fn random_bytes(&mut self, length: u32) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        random_bytes(length)
    }

    fn compress(
        &mut self,
        format: CompressionFormat,
        data: Vec<u8>,
        level: Option<u8>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        Ok(bounded_input("data", data.len())
            .and_then(|()| compression::compress(format, &data, level, usize::MAX)))
    }

    fn decompress(
        &mut self,
        format: CompressionFormat,
        data: Vec<u8>,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        Ok(bounded_input("data", data.len())
            .and_then(|()| compression::decompress(format, &data, MAX_OUTPUT_BYTES)))
    }

    fn aes_encrypt(
        &mut self,
        mode: AesMode,
        key: Vec<u8>,
        iv: Vec<u8>,
        data: Vec<u8>,
        options: AesOptions,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        Ok(aes_call(
            Direction::Encrypt,
            mode,
            &key,
            &iv,
            &data,
            &options,
        ))
    }

    fn aes_decrypt(
        &mut self,
        mode: AesMode,
        key: Vec<u8>,
        iv: Vec<u8>,
        data: Vec<u8>,
        options: AesOptions,
    ) -> wasmtime::Result<NativeResult<Vec<u8>>> {
        Ok(aes_call(
            Direction::Decrypt,
            mode,
            &key,
            &iv,
            &data,
            &options,
        ))
    }
}

/// `length` bytes from the host's secure source; a host without one ends the task.
fn random_bytes(length: u32) -> wasmtime::Result<NativeResult<Vec<u8>>> {
    let length = length as usize;
    if length > MAX_OUTPUT_BYTES {
        return Ok(Err(limit(format!(
            "{length} random bytes were asked for; a native call returns at most \
             {MAX_OUTPUT_BYTES}"
        ))));
    }
    let mut bytes = vec![0; length];
    getrandom::fill(&mut bytes)
        .map_err(|error| wasmtime::Error::msg(format!("the host has no random bytes: {error}")))?;
    Ok(Ok(bytes))
}

fn aes_call(
    direction: Direction,
    mode: AesMode,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    options: &AesOptions,
) -> NativeResult<Vec<u8>> {
    bounded_input("data", data.len())?;
    bounded_input(
        "additional data",
        options.additional_data.as_ref().map_or(0, Vec::len),
    )?;
    aes::apply(direction, mode, key, iv, data, options)
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
        let mut natives = Natives::default();
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
        let mut natives = Natives::default();
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
        let mut natives = Natives::default();
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
        let mut natives = Natives::default();
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
        let mut natives = Natives::default();
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
        let mut natives = Natives::default();
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
        let mut natives = Natives::default();
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
}
