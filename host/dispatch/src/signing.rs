//! Signed messages: Ed25519 keys in PEM files (`bench keygen FILE` writes the private key,
//! PKCS#8, mode 0600, and `FILE.pub`, SPKI), and the two headers a signed message carries:
//! `Bench-Key` (the signer's public key, hex) and `Bench-Signature` (hex) over the message's
//! subject and payload, so a signed message cannot be replayed on another subject (another
//! run, another participant).

use anyhow::{Context as _, Result};
use async_nats::HeaderMap;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use ed25519_dalek::{Signature, Signer, Verifier as _};
use std::fmt;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

/// The header naming the signer's public key.
const KEY_HEADER: &str = "Bench-Key";
/// The header holding the signature.
const SIGNATURE_HEADER: &str = "Bench-Signature";
/// What every signed text starts with: signatures of anything else never verify here.
const DOMAIN: &[u8] = b"bench-dispatch 1\n";

/// A private key that signs runs (a coordinator) or hellos and records (a worker).
pub struct SigningKey(ed25519_dalek::SigningKey);

/// A public key: whose signature a message carries, or whom a worker trusts.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicKey(ed25519_dalek::VerifyingKey);

impl SigningKey {
    /// A new random key.
    pub fn generate() -> Self {
        Self(ed25519_dalek::SigningKey::generate(&mut rand_core::OsRng))
    }

    /// Writes the key to `path` (created with mode 0600; an existing file is never
    /// replaced) and its public key to `path.pub`; returns the public key's path.
    pub fn write_new(&self, path: &Path) -> Result<PathBuf> {
        let private = self
            .0
            .to_pkcs8_pem(LineEnding::LF)
            .context("cannot encode the private key")?;
        let public = self
            .public()
            .0
            .to_public_key_pem(LineEnding::LF)
            .context("cannot encode the public key")?;
        let public_path = PathBuf::from(format!("{}.pub", path.display()));
        if public_path.exists() {
            anyhow::bail!(
                "{} exists: bench keygen never replaces a key",
                public_path.display()
            );
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .with_context(|| {
                format!(
                    "cannot create {} (bench keygen never replaces a key)",
                    path.display()
                )
            })?;
        file.write_all(private.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        std::fs::write(&public_path, public)
            .with_context(|| format!("cannot write {}", public_path.display()))?;
        Ok(public_path)
    }

    /// The private key in `path` (PKCS#8 PEM, as `bench keygen` writes it).
    pub fn read(path: &Path) -> Result<Self> {
        let key = read_pem(path, "signing key", |text| {
            ed25519_dalek::SigningKey::from_pkcs8_pem(text).ok()
        })?;
        key.map(Self).with_context(|| {
            format!(
                "{} is not an Ed25519 private key in PKCS#8 PEM (bench keygen FILE makes one)",
                path.display()
            )
        })
    }

    /// Its public key.
    pub fn public(&self) -> PublicKey {
        PublicKey(self.0.verifying_key())
    }

    /// Adds the headers that sign `payload` published on `subject`.
    pub fn sign(&self, subject: &str, payload: &[u8], headers: &mut HeaderMap) {
        let signature = self.0.sign(&signed_text(subject, payload));
        headers.insert(KEY_HEADER, self.public().to_hex().as_str());
        headers.insert(SIGNATURE_HEADER, hex::encode(signature.to_bytes()).as_str());
    }
}

impl PublicKey {
    /// The public key in `path` (SPKI PEM, `FILE.pub` of `bench keygen FILE`).
    pub fn read(path: &Path) -> Result<Self> {
        let key = read_pem(path, "public key", |text| {
            ed25519_dalek::VerifyingKey::from_public_key_pem(text).ok()
        })?;
        key.map(Self).with_context(|| {
            format!(
                "{} is not an Ed25519 public key in PEM (the FILE.pub of bench keygen FILE)",
                path.display()
            )
        })
    }

    /// The key as 64 hex digits.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0.as_bytes())
    }

    /// A key written by [`Self::to_hex`].
    pub fn from_hex(text: &str) -> Option<Self> {
        let bytes: [u8; 32] = hex::decode(text).ok()?.try_into().ok()?;
        ed25519_dalek::VerifyingKey::from_bytes(&bytes)
            .ok()
            .map(Self)
    }
}

/// Shows only the public key.
impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SigningKey({})", self.public())
    }
}

/// `ed25519:` and the key's first 16 hex digits: enough to tell keys apart in messages.
impl fmt::Display for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ed25519:{}", &self.to_hex()[..16])
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// What a message's signature says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Signed {
    /// No signature headers.
    Unsigned,
    /// Signed by this key, and the signature verifies.
    By(PublicKey),
    /// Signature headers that do not verify (the reason).
    Forged(String),
}

impl Signed {
    /// The signer, if the message is signed and the signature verifies.
    pub(crate) fn key(&self) -> Option<PublicKey> {
        match self {
            Signed::By(key) => Some(*key),
            _ => None,
        }
    }
}

/// The signature header of a message, if it has one.
pub(crate) fn signature_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SIGNATURE_HEADER)
        .map(|value| value.as_str().to_owned())
}

/// Checks the signature of `payload` published on `subject`.
pub(crate) fn verify(headers: Option<&HeaderMap>, subject: &str, payload: &[u8]) -> Signed {
    let header = |name| {
        headers
            .and_then(|headers| headers.get(name))
            .map(|value| value.as_str().to_owned())
    };
    let (key, signature) = match (header(KEY_HEADER), header(SIGNATURE_HEADER)) {
        (None, None) => return Signed::Unsigned,
        (Some(key), Some(signature)) => (key, signature),
        _ => return Signed::Forged("one of the two signature headers is missing".into()),
    };
    let Some(key) = PublicKey::from_hex(&key) else {
        return Signed::Forged("its key is not an Ed25519 public key".into());
    };
    let signature = match hex::decode(&signature).ok().and_then(|bytes| {
        <[u8; 64]>::try_from(bytes.as_slice())
            .ok()
            .map(|bytes| Signature::from_bytes(&bytes))
    }) {
        Some(signature) => signature,
        None => return Signed::Forged("its signature is not 64 bytes of hex".into()),
    };
    match key.0.verify(&signed_text(subject, payload), &signature) {
        Ok(()) => Signed::By(key),
        Err(_) => Signed::Forged(format!("its signature does not verify with {key}")),
    }
}

/// The key `parse` reads from the PEM file `path` (`None`: not such a key).
fn read_pem<T>(path: &Path, what: &str, parse: impl Fn(&str) -> Option<T>) -> Result<Option<T>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the {what} {}", path.display()))?;
    Ok(parse(&text))
}

fn signed_text(subject: &str, payload: &[u8]) -> Vec<u8> {
    let mut text = Vec::with_capacity(DOMAIN.len() + subject.len() + 1 + payload.len());
    text.extend_from_slice(DOMAIN);
    text.extend_from_slice(subject.as_bytes());
    text.push(b'\n');
    text.extend_from_slice(payload);
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn keygen_writes_a_private_key_only_its_owner_reads_and_never_replaces_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.key");
        let key = SigningKey::generate();
        let public_path = key.write_new(&path).unwrap();
        assert_eq!(public_path, dir.path().join("run.key.pub"));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("-----BEGIN PRIVATE KEY-----"));
        assert_eq!(SigningKey::read(&path).unwrap().public(), key.public());
        assert_eq!(PublicKey::read(&public_path).unwrap(), key.public());
        let error = SigningKey::generate().write_new(&path).unwrap_err();
        assert!(
            format!("{error:#}").contains("never replaces a key"),
            "{error:#}"
        );
        let error = SigningKey::read(&public_path).unwrap_err();
        assert!(
            error.to_string().contains("is not an Ed25519 private key"),
            "{error}"
        );
        let error = PublicKey::read(&path).unwrap_err();
        assert!(
            error.to_string().contains("is not an Ed25519 public key"),
            "{error}"
        );
    }

    #[test]
    fn a_signature_holds_for_its_subject_and_payload_only() {
        let key = SigningKey::generate();
        let mut headers = HeaderMap::new();
        key.sign("bench.runs.r1", b"{}", &mut headers);
        assert_eq!(
            verify(Some(&headers), "bench.runs.r1", b"{}"),
            Signed::By(key.public())
        );
        assert!(matches!(
            verify(Some(&headers), "bench.runs.r2", b"{}"),
            Signed::Forged(_)
        ));
        assert!(matches!(
            verify(Some(&headers), "bench.runs.r1", b"{ }"),
            Signed::Forged(_)
        ));
        assert_eq!(verify(None, "s", b""), Signed::Unsigned);
        let mut other = HeaderMap::new();
        other.insert(
            KEY_HEADER,
            SigningKey::generate().public().to_hex().as_str(),
        );
        other.insert(
            SIGNATURE_HEADER,
            headers.get(SIGNATURE_HEADER).unwrap().as_str(),
        );
        assert!(matches!(
            verify(Some(&other), "bench.runs.r1", b"{}"),
            Signed::Forged(_)
        ));
        let mut garbage = HeaderMap::new();
        garbage.insert(KEY_HEADER, "zz");
        garbage.insert(SIGNATURE_HEADER, "00");
        assert_eq!(
            verify(Some(&garbage), "s", b""),
            Signed::Forged("its key is not an Ed25519 public key".into())
        );
        let shown = key.public().to_string();
        assert!(
            shown.starts_with("ed25519:") && shown.len() == 24,
            "{shown}"
        );
        assert_eq!(
            PublicKey::from_hex(&key.public().to_hex()),
            Some(key.public())
        );
    }
}
