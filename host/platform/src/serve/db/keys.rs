//! API keys, of which only a hash is stored, and idempotency keys, under which the first
//! answer to a create is remembered.

use super::{now, random_hex, typed_column, Refusal, Store};
use crate::api::types::{Me, Organization, User};
use rusqlite::{params, OptionalExtension};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The organization every API key of a self-hosted platform belongs to.
pub(crate) const ORG_SLUG: &str = "local";

/// Characters of a key kept in clear to name it (`bp_` and 6 hex digits).
const PREFIX_LEN: usize = 9;

/// Who sends a request: the holder of a valid API key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caller {
    /// The start of the key, which names it.
    pub(crate) key_prefix: String,
}

impl Caller {
    /// `GET /me`.
    pub(crate) fn me(&self) -> Me {
        let org = Organization {
            id: "org_local".into(),
            slug: ORG_SLUG.into(),
            name: "Local".into(),
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

fn hash_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

impl Store {
    /// Creates an API key and returns it (only its hash is stored).
    pub(crate) fn create_key(&self) -> Result<String, Refusal> {
        let key = format!("bp_{}", random_hex(24)?);
        self.db.execute(
            "INSERT INTO api_keys (hash, prefix, created_at) VALUES (?1, ?2, ?3)",
            params![hash_key(&key), &key[..PREFIX_LEN], now()],
        )?;
        Ok(key)
    }

    /// The caller holding `key`, when it is a valid API key.
    pub(crate) fn caller(&self, key: &str) -> Result<Option<Caller>, Refusal> {
        let prefix = self
            .db
            .query_row(
                "SELECT prefix FROM api_keys WHERE hash = ?1",
                [hash_key(key)],
                |row| row.get(0),
            )
            .optional()?;
        Ok(prefix.map(|key_prefix| Caller { key_prefix }))
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
        let key = store.create_key().unwrap();
        assert!(key.starts_with("bp_"));
        assert_eq!(key.len(), 3 + 48);
        let caller = store.caller(&key).unwrap().unwrap();
        assert_eq!(caller.key_prefix, key[..9]);
        assert_eq!(store.caller("bp_nope").unwrap(), None);
        assert_ne!(store.create_key().unwrap(), key);
    }
}
