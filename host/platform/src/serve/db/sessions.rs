//! Dashboard sessions, stored: the cookie holds a random token, the database its hash, the
//! organization it reads and the key that opened it. A session ends when it expires, when
//! its reader logs out, or when its key is revoked (a session is found only with its key).

use super::keys::hash_key;
use super::{random_hex, Refusal, Store};
use rusqlite::{params, OptionalExtension};
use std::time::{Duration, SystemTime};

/// Seconds since the epoch, now.
pub(super) fn now_seconds() -> i64 {
    let since = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
}

impl Store {
    /// Opens a session of the holder of API key `key` for `lifetime`: the session's token
    /// and organization; `None` when the key is not valid. Expired sessions are removed.
    pub(crate) fn open_session(
        &self,
        key: &str,
        lifetime: Duration,
    ) -> Result<Option<(String, String)>, Refusal> {
        let Some(caller) = self.caller(key)? else {
            return Ok(None);
        };
        let now = now_seconds();
        self.db
            .execute("DELETE FROM sessions WHERE expires_at <= ?1", [now])?;
        let token = format!("bs_{}", random_hex(32)?);
        let lifetime = i64::try_from(lifetime.as_secs()).unwrap_or(i64::MAX);
        self.db.execute(
            "INSERT INTO sessions (hash, key_hash, org, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                hash_key(&token),
                hash_key(key),
                caller.org,
                super::now(),
                now.saturating_add(lifetime)
            ],
        )?;
        Ok(Some((token, caller.org)))
    }

    /// The organization of the session `token`, while it lasts and its key exists.
    pub(crate) fn session(&self, token: &str) -> Result<Option<String>, Refusal> {
        let org = self
            .db
            .query_row(
                "SELECT s.org FROM sessions s JOIN api_keys k ON k.hash = s.key_hash
                 WHERE s.hash = ?1 AND s.expires_at > ?2",
                params![hash_key(token), now_seconds()],
                |row| row.get(0),
            )
            .optional()?;
        Ok(org)
    }

    /// Ends the session `token` (nothing when there is none).
    pub(crate) fn close_session(&self, token: &str) -> Result<(), Refusal> {
        self.db
            .execute("DELETE FROM sessions WHERE hash = ?1", [hash_key(token)])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::store;
    use super::*;

    #[test]
    fn a_session_lasts_until_it_expires_is_closed_or_its_key_is_revoked() {
        let (_dir, store) = store();
        let hour = Duration::from_secs(3600);
        assert_eq!(store.open_session("bp_nope", hour).unwrap(), None);
        let key = store.create_key("acme", false).unwrap();
        let (token, org) = store.open_session(&key, hour).unwrap().unwrap();
        assert_eq!(org, "acme");
        assert!(!token.contains(&key));
        assert_eq!(store.session(&token).unwrap().as_deref(), Some("acme"));
        assert_eq!(store.session("bs_forged").unwrap(), None);
        store.close_session(&token).unwrap();
        assert_eq!(store.session(&token).unwrap(), None);

        let (expired, _) = store.open_session(&key, Duration::ZERO).unwrap().unwrap();
        assert_eq!(store.session(&expired).unwrap(), None);
        let (token, _) = store.open_session(&key, hour).unwrap().unwrap();
        assert_eq!(store.keys().unwrap()[0].sessions, 1);
        store.revoke_key(&key).unwrap();
        assert_eq!(store.session(&token).unwrap(), None);
    }
}
