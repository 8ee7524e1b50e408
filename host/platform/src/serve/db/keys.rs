//! API keys, of which only a hash is stored, each of one organisation and maybe read-only,
//! and idempotency keys, under which the first answer to a create is remembered.
//! Organizations and keys as an operator manages them are in `admin`, dashboard sessions
//! in `sessions`.

use super::{now, random_hex, typed_column, Refusal, Store};
use crate::api::types::{Me, Organization, User};
use rusqlite::{params, OptionalExtension};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The organization of keys made without `--org`.
pub(crate) const ORG_SLUG: &str = "local";

/// Longest organization slug.
const MAX_ORG_SLUG: usize = 64;

/// Characters of a key kept in clear to name it (`bp_` and 6 hex digits).
pub(super) const PREFIX_LEN: usize = 9;

/// Who sends a request: the holder of a valid API key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caller {
    /// The start of the key, which names it.
    pub(crate) key_prefix: String,
    /// The organization it acts in.
    pub(crate) org: String,
    /// It may only read.
    pub(crate) read_only: bool,
}

impl Caller {
    /// `GET /me`.
    pub(crate) fn me(&self) -> Me {
        let org = Organization {
            id: format!("org_{}", self.org),
            slug: self.org.clone(),
            name: self.org.clone(),
        };
        Me {
            user: User {
                id: format!("key_{}", self.key_prefix),
                name: format!("API key {}…", self.key_prefix),
            },
            active_organization: org.clone(),
            organizations: vec![org],
        }
    }
}

/// The stored hash of a secret (an API key, a session token).
pub(super) fn hash_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// Refuses a slug that is not 1 to [`MAX_ORG_SLUG`] of `a-z`, `0-9` and `-`.
pub(super) fn check_org_slug(org: &str) -> Result<(), Refusal> {
    let slug_ok = !org.is_empty()
        && org.len() <= MAX_ORG_SLUG
        && org
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-');
    if slug_ok {
        Ok(())
    } else {
        Err(Refusal::bad_request(format!(
            "an organization slug is 1 to {MAX_ORG_SLUG} of a-z, 0-9 and - (got {org:?})"
        )))
    }
}

impl Store {
    /// Creates an API key of organization `org` (created too when it does not exist) and
    /// returns it (only its hash is stored).
    pub(crate) fn create_key(&self, org: &str, read_only: bool) -> Result<String, Refusal> {
        check_org_slug(org)?;
        self.db.execute(
            "INSERT OR IGNORE INTO organizations (slug, created_at) VALUES (?1, ?2)",
            params![org, now()],
        )?;
        let key = format!("bp_{}", random_hex(24)?);
        self.db.execute(
            "INSERT INTO api_keys (hash, prefix, created_at, org, read_only) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![hash_key(&key), &key[..PREFIX_LEN], now(), org, read_only],
        )?;
        Ok(key)
    }

    /// The caller holding `key`, when it is a valid API key.
    pub(crate) fn caller(&self, key: &str) -> Result<Option<Caller>, Refusal> {
        let caller = self
            .db
            .query_row(
                "SELECT prefix, org, read_only FROM api_keys WHERE hash = ?1",
                [hash_key(key)],
                |row| {
                    Ok(Caller {
                        key_prefix: row.get(0)?,
                        org: row.get(1)?,
                        read_only: row.get(2)?,
                    })
                },
            )
            .optional()?;
        Ok(caller)
    }

    /// The answer remembered under an idempotency key.
    pub(super) fn replay<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, Refusal> {
        let body = self
            .db
            .query_row(
                "SELECT body FROM idempotency WHERE key = ?1",
                [key],
                |row| row.get(0),
            )
            .optional()?;
        Ok(typed_column(body))
    }

    /// Remembers the answer given under an idempotency key.
    pub(super) fn remember<T: Serialize>(&self, key: &str, answer: &T) -> Result<(), Refusal> {
        let body = serde_json::to_string(answer)
            .map_err(|error| Refusal::internal(format!("cannot store the answer: {error}")))?;
        self.db.execute(
            "INSERT OR REPLACE INTO idempotency (key, status, body) VALUES (?1, 200, ?2)",
            params![key, body],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::store;

    #[test]
    fn keys_are_checked_by_hash() {
        let (_dir, store) = store();
        let key = store.create_key("local", false).unwrap();
        assert!(key.starts_with("bp_"));
        assert_eq!(key.len(), 3 + 48);
        let caller = store.caller(&key).unwrap().unwrap();
        assert_eq!(caller.key_prefix, key[..9]);
        assert_eq!((caller.org.as_str(), caller.read_only), ("local", false));
        assert_eq!(store.caller("bp_nope").unwrap(), None);
        assert_ne!(store.create_key("local", false).unwrap(), key);
        let reader = store.create_key("acme", true).unwrap();
        let caller = store.caller(&reader).unwrap().unwrap();
        assert_eq!((caller.org.as_str(), caller.read_only), ("acme", true));
        assert_eq!(
            store.create_key("Acme Corp", false).unwrap_err().message,
            "an organization slug is 1 to 64 of a-z, 0-9 and - (got \"Acme Corp\")"
        );
    }
}
