//! Primitives the bench host computes at native speed (the `bench:task/natives` interface):
//! hashes and HMACs, CRC-32/CRC-32C, base64 and hex, random bytes, gzip/deflate and AES.
//!
//! ```ignore
//! use bench_guest::natives::{self, HashAlgorithm};
//!
//! let digest = natives::digest(HashAlgorithm::Sha256, b"abc")?;
//! let mut hmac = natives::Hasher::hmac(HashAlgorithm::Sha256, b"key")?;
//! hmac.update(b"message")?;
//! let tag = hmac.finish()?;
//! ```
//!
//! Every call is bounded by the host: each input at most 64 MiB, each output that can grow
//! (decompression, random bytes) at most 64 MiB, at most 1024 live hashers and 32 live
//! streams per sandbox. A [`NativeError`] converts into a `TaskError` with `?`.

use crate::bindings::bench::task::natives as wit;
use std::fmt;

pub use wit::{AesMode, CompressionFormat, HashAlgorithm};

/// Why a native call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeError {
    kind: NativeErrorKind,
    message: String,
}

/// The kind of a [`NativeError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeErrorKind {
    /// An argument the function does not take (a key of the wrong length…).
    InvalidArgument,
    /// Data that is not what it must be (not base64, corrupt, not authentic).
    InvalidData,
    /// An input, an output or the number of live objects past the host's bound.
    Limit,
}

impl NativeError {
    /// What kind of failure it is.
    pub fn kind(&self) -> NativeErrorKind {
        self.kind
    }

    /// The host's description.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<wit::NativeError> for NativeError {
    fn from(error: wit::NativeError) -> Self {
        let (kind, message) = match error {
            wit::NativeError::InvalidArgument(message) => {
                (NativeErrorKind::InvalidArgument, message)
            }
            wit::NativeError::InvalidData(message) => (NativeErrorKind::InvalidData, message),
            wit::NativeError::Limit(message) => (NativeErrorKind::Limit, message),
        };
        Self { kind, message }
    }
}

impl fmt::Display for NativeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NativeError {}

/// What a native call returns.
pub type NativeResult<T> = Result<T, NativeError>;

/// An incremental hash, or an HMAC; dropping it releases the host's state.
pub struct Hasher(wit::Hasher);

impl Hasher {
    /// A hash of `algorithm`.
    pub fn new(algorithm: HashAlgorithm) -> NativeResult<Self> {
        Ok(Self(wit::Hasher::create(algorithm, None)?))
    }

    /// An HMAC of `algorithm` under `key`.
    pub fn hmac(algorithm: HashAlgorithm, key: &[u8]) -> NativeResult<Self> {
        Ok(Self(wit::Hasher::create(algorithm, Some(key))?))
    }

    /// Feeds `data`.
    pub fn update(&mut self, data: &[u8]) -> NativeResult<()> {
        Ok(self.0.update(data)?)
    }

    /// A hasher in this one's state.
    pub fn try_clone(&self) -> NativeResult<Self> {
        Ok(Self(self.0.copy()?))
    }

    /// The digest.
    pub fn finish(self) -> NativeResult<Vec<u8>> {
        Ok(self.0.finish()?)
    }
}

/// The digest of `data`.
pub fn digest(algorithm: HashAlgorithm, data: &[u8]) -> NativeResult<Vec<u8>> {
    Ok(wit::digest(algorithm, None, data)?)
}

/// The HMAC of `data` under `key`.
pub fn hmac(algorithm: HashAlgorithm, key: &[u8], data: &[u8]) -> NativeResult<Vec<u8>> {
    Ok(wit::digest(algorithm, Some(key), data)?)
}

/// CRC-32 (zlib's) of `data`, continuing from `previous` (0 to start).
pub fn crc32(data: &[u8], previous: u32) -> NativeResult<u32> {
    Ok(wit::crc32(data, previous)?)
}

/// CRC-32C (Castagnoli) of `data`, continuing from `previous` (0 to start).
pub fn crc32c(data: &[u8], previous: u32) -> NativeResult<u32> {
    Ok(wit::crc32c(data, previous)?)
}

/// Base64 of `data`: standard with padding, or URL-safe without.
pub fn base64_encode(data: &[u8], url_safe: bool) -> NativeResult<String> {
    Ok(wit::base64_encode(data, url_safe)?)
}

/// The bytes of base64 text in either alphabet, padded or not, whitespace ignored.
pub fn base64_decode(text: &str) -> NativeResult<Vec<u8>> {
    Ok(wit::base64_decode(text)?)
}

/// Lowercase hex of `data`.
pub fn hex_encode(data: &[u8]) -> NativeResult<String> {
    Ok(wit::hex_encode(data)?)
}

/// The bytes of hex text.
pub fn hex_decode(text: &str) -> NativeResult<Vec<u8>> {
    Ok(wit::hex_decode(text)?)
}

/// `length` cryptographically secure random bytes.
pub fn random_bytes(length: u32) -> NativeResult<Vec<u8>> {
    Ok(wit::random_bytes(length)?)
}

/// `data` compressed in `format` at `level` 0–9 (6 when `None`).
pub fn compress(
    format: CompressionFormat,
    data: &[u8],
    level: Option<u8>,
) -> NativeResult<Vec<u8>> {
    Ok(wit::compress(format, data, level)?)
}

/// `data` decompressed from `format` (at most 64 MiB of output).
pub fn decompress(format: CompressionFormat, data: &[u8]) -> NativeResult<Vec<u8>> {
    Ok(wit::decompress(format, data)?)
}

/// An incremental compression stream.
pub struct Compressor(wit::Compressor);

impl Compressor {
    /// A stream compressing to `format` at `level` (as [`compress`]).
    pub fn new(format: CompressionFormat, level: Option<u8>) -> NativeResult<Self> {
        Ok(Self(wit::Compressor::create(format, level)?))
    }

    /// Compresses `data`; returns the output ready so far.
    pub fn push(&mut self, data: &[u8]) -> NativeResult<Vec<u8>> {
        Ok(self.0.push(data)?)
    }

    /// Returns all output so far, ending on a byte boundary.
    pub fn flush(&mut self) -> NativeResult<Vec<u8>> {
        Ok(self.0.flush()?)
    }

    /// Ends the stream; returns the rest of the output.
    pub fn finish(self) -> NativeResult<Vec<u8>> {
        Ok(self.0.finish()?)
    }
}

/// An incremental decompression stream.
pub struct Decompressor(wit::Decompressor);

impl Decompressor {
    /// A stream decompressing `format`.
    pub fn new(format: CompressionFormat) -> NativeResult<Self> {
        Ok(Self(wit::Decompressor::create(format)?))
    }

    /// Decompresses `data`; returns the output ready so far (at most 64 MiB per call).
    pub fn push(&mut self, data: &[u8]) -> NativeResult<Vec<u8>> {
        Ok(self.0.push(data)?)
    }

    /// Ends the stream (an error when truncated); returns the rest of the output.
    pub fn finish(self) -> NativeResult<Vec<u8>> {
        Ok(self.0.finish()?)
    }
}

/// What some AES modes take besides key, IV and data.
#[derive(Debug, Clone, Default)]
pub struct AesOptions<'a> {
    /// AES-GCM: data authenticated but not encrypted.
    pub additional_data: Option<&'a [u8]>,
    /// AES-GCM: the tag length in bits (96–128 in steps of 8; 128 when `None`).
    pub tag_length: Option<u32>,
    /// AES-CTR: how many rightmost bits of the counter block count (1–128; 128 when `None`).
    pub counter_length: Option<u32>,
}

impl AesOptions<'_> {
    fn to_wit(&self) -> wit::AesOptions {
        wit::AesOptions {
            additional_data: self.additional_data.map(<[u8]>::to_vec),
            tag_length: self.tag_length,
            counter_length: self.counter_length,
        }
    }
}

/// `data` encrypted with AES in `mode` under `key` (16, 24 or 32 bytes) and `iv` (GCM: 12 or
/// 16 bytes, the tag appended to the ciphertext; CBC: 16 bytes, PKCS#7 padding; CTR: the
/// 16-byte counter block).
pub fn aes_encrypt(
    mode: AesMode,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    options: &AesOptions<'_>,
) -> NativeResult<Vec<u8>> {
    Ok(wit::aes_encrypt(mode, key, iv, data, &options.to_wit())?)
}

/// `data` decrypted as [`aes_encrypt`] made it (a GCM tag that does not verify is
/// [`NativeErrorKind::InvalidData`]).
pub fn aes_decrypt(
    mode: AesMode,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    options: &AesOptions<'_>,
) -> NativeResult<Vec<u8>> {
    Ok(wit::aes_decrypt(mode, key, iv, data, &options.to_wit())?)
}
