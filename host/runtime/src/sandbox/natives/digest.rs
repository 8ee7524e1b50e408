//! Hashes and HMACs of the `natives` interface: one [`Hasher`] over RustCrypto's digests
//! (SHA-1, SHA-2, MD5), keyed or not, fed incrementally and finished once.

use super::{invalid_argument, NativeError, NativeResult};
use bench_contract::bench::task::natives::HashAlgorithm;
use hmac::digest::{FixedOutput, KeyInit, Update};
use hmac::Hmac;
use md5::Md5;
use sha1::Sha1;
use sha2::{Sha256, Sha384, Sha512};

/// An incremental hash (or HMAC); spent once finished.
pub(crate) struct Hasher {
    state: Option<Box<dyn Running>>,
}

impl Hasher {
    /// A hash of `algorithm`, or an HMAC of it under `hmac_key` (any length: a key longer
    /// than the hash's block is hashed first, as RFC 2104 says).
    pub(crate) fn new(algorithm: HashAlgorithm, hmac_key: Option<&[u8]>) -> NativeResult<Self> {
        Ok(Self {
            state: Some(running(algorithm, hmac_key)?),
        })
    }

    /// Feeds `data`.
    pub(crate) fn update(&mut self, data: &[u8]) -> NativeResult<()> {
        match &mut self.state {
            Some(state) => {
                state.update(data);
                Ok(())
            }
            None => Err(finished()),
        }
    }

    /// A hasher in this one's state.
    pub(crate) fn copy(&self) -> NativeResult<Self> {
        let state = self.state.as_ref().ok_or_else(finished)?;
        Ok(Self {
            state: Some(state.copy()),
        })
    }

    /// The digest; the hasher takes nothing more.
    pub(crate) fn finish(&mut self) -> NativeResult<Vec<u8>> {
        let state = self.state.take().ok_or_else(finished)?;
        Ok(state.finish())
    }
}

/// The digest of `data` in one go.
pub(crate) fn digest(
    algorithm: HashAlgorithm,
    hmac_key: Option<&[u8]>,
    data: &[u8],
) -> NativeResult<Vec<u8>> {
    let mut state = running(algorithm, hmac_key)?;
    state.update(data);
    Ok(state.finish())
}

fn finished() -> NativeError {
    invalid_argument("the hasher was already finished (its digest is taken once)")
}

/// A running digest of any algorithm, keyed or not.
trait Running: Send {
    fn update(&mut self, data: &[u8]);
    fn copy(&self) -> Box<dyn Running>;
    fn finish(self: Box<Self>) -> Vec<u8>;
}

impl<D> Running for D
where
    D: Update + FixedOutput + Clone + Send + 'static,
{
    fn update(&mut self, data: &[u8]) {
        Update::update(self, data);
    }

    fn copy(&self) -> Box<dyn Running> {
        Box::new(self.clone())
    }

    fn finish(self: Box<Self>) -> Vec<u8> {
        (*self).finalize_fixed().to_vec()
    }
}

/// A fresh digest of `algorithm`, keyed with `hmac_key` when there is one.
fn running(algorithm: HashAlgorithm, hmac_key: Option<&[u8]>) -> NativeResult<Box<dyn Running>> {
    match hmac_key {
        None => Ok(plain(algorithm)),
        Some(key) => keyed(algorithm, key),
    }
}

fn plain(algorithm: HashAlgorithm) -> Box<dyn Running> {
    match algorithm {
        HashAlgorithm::Md5 => Box::new(Md5::default()),
        HashAlgorithm::Sha1 => Box::new(Sha1::default()),
        HashAlgorithm::Sha256 => Box::new(Sha256::default()),
        HashAlgorithm::Sha384 => Box::new(Sha384::default()),
        HashAlgorithm::Sha512 => Box::new(Sha512::default()),
    }
}

fn keyed(algorithm: HashAlgorithm, key: &[u8]) -> NativeResult<Box<dyn Running>> {
    // HMAC takes a key of any length (a longer one is hashed first); the error is
    // RustCrypto's signature, never met.
    macro_rules! hmac {
        ($hash:ty) => {
            Box::new(
                <Hmac<$hash> as KeyInit>::new_from_slice(key)
                    .map_err(|_| invalid_argument("the HMAC key is not usable"))?,
            )
        };
    }
    Ok(match algorithm {
        HashAlgorithm::Md5 => hmac!(Md5),
        HashAlgorithm::Sha1 => hmac!(Sha1),
        HashAlgorithm::Sha256 => hmac!(Sha256),
        HashAlgorithm::Sha384 => hmac!(Sha384),
        HashAlgorithm::Sha512 => hmac!(Sha512),
    })
}
