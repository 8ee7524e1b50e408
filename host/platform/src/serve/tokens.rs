//! The tokens of artifact transfer URLs: `<artifact id>.<expiry>.<signature>`, signed with
//! HMAC-SHA256 under a secret kept in the database. An upload token and a download token
//! of one artifact differ (the signature covers the direction), so a download link cannot
//! write; each lives [`TOKEN_LIFETIME`].

use super::refusal::Refusal;
use ring::hmac;
use std::time::{Duration, SystemTime};

/// How long a transfer token is good for.
pub(crate) const TOKEN_LIFETIME: Duration = Duration::from_secs(15 * 60);

/// The direction a token allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transfer {
    /// `PUT /uploads/{token}`.
    Upload,
    /// `GET /downloads/{token}`.
    Download,
}

impl Transfer {
    fn name(self) -> &'static str {
        match self {
            Transfer::Upload => "upload",
            Transfer::Download => "download",
        }
    }
}

/// Issues and checks transfer tokens under one secret.
#[derive(Clone)]
pub(crate) struct Tokens {
    key: hmac::Key,
}

/// What a token's signature covers.
fn signed(transfer: Transfer, artifact_id: &str, expires: u64) -> String {
    format!("{}:{artifact_id}:{expires}", transfer.name())
}

impl Tokens {
    /// Tokens signed with `secret`.
    pub(crate) fn new(secret: &[u8]) -> Self {
        Self {
            key: hmac::Key::new(hmac::HMAC_SHA256, secret),
        }
    }

    /// A token for `transfer` of an artifact, good for [`TOKEN_LIFETIME`] from `now`.
    pub(crate) fn issue(&self, transfer: Transfer, artifact_id: &str, now: SystemTime) -> String {
        let expires = seconds(now + TOKEN_LIFETIME);
        let signature = hmac::sign(&self.key, signed(transfer, artifact_id, expires).as_bytes());
        format!(
            "{artifact_id}.{expires}.{}",
            hex::encode(signature.as_ref())
        )
    }

    /// The artifact a token allows `transfer` of at `now`; 404 for a token that is not one
    /// of ours for this direction, 403 for an expired one.
    pub(crate) fn check(
        &self,
        transfer: Transfer,
        token: &str,
        now: SystemTime,
    ) -> Result<String, Refusal> {
        let not_ours = || {
            Refusal::not_found(if transfer == Transfer::Upload {
                "Upload"
            } else {
                "Download"
            })
        };
        let mut parts = token.split('.');
        let (Some(id), Some(expires), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(not_ours());
        };
        let expires: u64 = expires.parse().map_err(|_| not_ours())?;
        let signature = hex::decode(signature).map_err(|_| not_ours())?;
        hmac::verify(
            &self.key,
            signed(transfer, id, expires).as_bytes(),
            &signature,
        )
        .map_err(|_| not_ours())?;
        if seconds(now) > expires {
            return Err(Refusal::forbidden(
                "This link has expired; ask for a new one.",
            ));
        }
        Ok(id.to_owned())
    }
}

fn seconds(at: SystemTime) -> u64 {
    at.duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_allows_one_direction_of_one_artifact_until_it_expires() {
        let tokens = Tokens::new(b"secret");
        let now = SystemTime::now();
        let upload = tokens.issue(Transfer::Upload, "art_1", now);
        assert_eq!(
            tokens.check(Transfer::Upload, &upload, now).unwrap(),
            "art_1"
        );
        assert_eq!(
            tokens.check(Transfer::Download, &upload, now),
            Err(Refusal::not_found("Download"))
        );
        let download = tokens.issue(Transfer::Download, "art_1", now);
        assert_eq!(
            tokens.check(Transfer::Upload, &download, now),
            Err(Refusal::not_found("Upload"))
        );
        let forged = upload.replace("art_1", "art_2");
        assert_eq!(
            tokens.check(Transfer::Upload, &forged, now),
            Err(Refusal::not_found("Upload"))
        );
        let other_secret = Tokens::new(b"other");
        assert!(other_secret.check(Transfer::Upload, &upload, now).is_err());
        let later = now + TOKEN_LIFETIME + Duration::from_secs(2);
        assert_eq!(
            tokens
                .check(Transfer::Upload, &upload, later)
                .unwrap_err()
                .status,
            axum::http::StatusCode::FORBIDDEN
        );
    }
}
