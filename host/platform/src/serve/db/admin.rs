//! What an operator manages without SQL (`bench serve orgs …`, `bench serve keys …`):
//! organizations, and the API keys of each — listed by the prefix that names them, created,
//! revoked. A revoked key is deleted with every dashboard session it opened, so both stop
//! working at the next request.

use super::keys::{check_org_slug, hash_key, PREFIX_LEN};
use super::{now, Refusal, Store};
use rusqlite::{params, OptionalExtension};

/// An organization as `bench serve orgs list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgRow {
    /// Its slug.
    pub slug: String,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// Its API keys.
    pub keys: u64,
    /// Its benchmarks.
    pub benchmarks: u64,
}

/// An API key as `bench serve keys list` shows it (never the key itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRow {
    /// The start of the key, which names it.
    pub prefix: String,
    /// Its organization.
    pub org: String,
    /// It may only read.
    pub read_only: bool,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// The dashboard sessions it opened that have not expired.
    pub sessions: u64,
}

impl Store {
    /// Creates organization `slug`; an error when it exists.
    pub(crate) fn create_org(&self, slug: &str) -> Result<OrgRow, Refusal> {
        check_org_slug(slug)?;
        let created = self.db.execute(
            "INSERT OR IGNORE INTO organizations (slug, created_at) VALUES (?1, ?2)",
            params![slug, now()],
        )?;
        if created == 0 {
            return Err(Refusal::conflict(format!(
                "the organization {slug:?} exists already"
            )));
        }
        self.orgs()?
            .into_iter()
            .find(|org| org.slug == slug)
            .ok_or_else(|| Refusal::not_found("Organization"))
    }

    /// Whether organization `slug` exists.
    pub(crate) fn has_org(&self, slug: &str) -> Result<bool, Refusal> {
        let found = self
            .db
            .query_row(
                "SELECT 1 FROM organizations WHERE slug = ?1",
                [slug],
                |_| Ok(()),
            )
            .optional()?;
        Ok(found.is_some())
    }

    /// Every organization, by slug.
    pub(crate) fn orgs(&self) -> Result<Vec<OrgRow>, Refusal> {
        self.rows(
            "SELECT o.slug, o.created_at,
               (SELECT COUNT(*) FROM api_keys k WHERE k.org = o.slug),
               (SELECT COUNT(*) FROM benchmarks b WHERE b.org = o.slug)
             FROM organizations o ORDER BY o.slug",
            [],
            |row| {
                Ok(OrgRow {
                    slug: row.get(0)?,
                    created_at: row.get(1)?,
                    keys: row.get(2)?,
                    benchmarks: row.get(3)?,
                })
            },
        )
    }

    /// Every API key, by organization then creation.
    pub(crate) fn keys(&self) -> Result<Vec<KeyRow>, Refusal> {
        let sql =
            format!("SELECT {KEY_COLUMNS} FROM api_keys k ORDER BY k.org, k.created_at, k.prefix");
        self.rows(&sql, [super::sessions::now_seconds()], key_row)
    }

    /// Revokes the API key named by `name` — the key itself, or its prefix (`bp_` and 6 hex
    /// digits) when no other key shares it — with every session it opened.
    pub(crate) fn revoke_key(&self, name: &str) -> Result<KeyRow, Refusal> {
        let (filter, value) = if name.len() > PREFIX_LEN {
            ("k.hash = ?2", hash_key(name))
        } else {
            ("k.prefix = ?2", name.to_owned())
        };
        let sql = format!("SELECT {KEY_COLUMNS}, k.hash FROM api_keys k WHERE {filter}");
        let found = self.rows(
            &sql,
            params![super::sessions::now_seconds(), value],
            |row| Ok((key_row(row)?, row.get::<_, String>(5)?)),
        )?;
        let (key, hash) = match found.as_slice() {
            [one] => one.clone(),
            [] => return Err(Refusal::not_found("API key")),
            _ => {
                return Err(Refusal::conflict(format!(
                    "{} keys start with {name:?}: give the whole key",
                    found.len()
                )))
            }
        };
        self.db
            .execute("DELETE FROM sessions WHERE key_hash = ?1", [&hash])?;
        self.db
            .execute("DELETE FROM api_keys WHERE hash = ?1", [&hash])?;
        Ok(key)
    }
}

/// The columns of a [`KeyRow`] (`?1` is the current time in seconds).
const KEY_COLUMNS: &str = "k.prefix, k.org, k.read_only, k.created_at,
    (SELECT COUNT(*) FROM sessions s WHERE s.key_hash = k.hash AND s.expires_at > ?1)";

fn key_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<KeyRow> {
    Ok(KeyRow {
        prefix: row.get(0)?,
        org: row.get(1)?,
        read_only: row.get(2)?,
        created_at: row.get(3)?,
        sessions: row.get(4)?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::store;

    #[test]
    fn organizations_and_their_keys_are_listed_and_keys_revoked() {
        let (_dir, store) = store();
        assert_eq!(store.orgs().unwrap()[0].slug, "local");
        let acme = store.create_org("acme").unwrap();
        assert_eq!((acme.keys, acme.benchmarks), (0, 0));
        assert_eq!(
            store.create_org("acme").unwrap_err().message,
            "the organization \"acme\" exists already"
        );
        assert!(store.create_org("Acme Corp").is_err());
        assert!(store.has_org("acme").unwrap() && !store.has_org("nope").unwrap());
        let key = store.create_key("acme", true).unwrap();
        let keys = store.keys().unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].prefix, key[..9]);
        assert_eq!((keys[0].org.as_str(), keys[0].read_only), ("acme", true));
        assert_eq!(store.orgs().unwrap()[0].keys, 1);

        let other = store.create_key("acme", false).unwrap();
        let revoked = store.revoke_key(&key[..9]).unwrap();
        assert_eq!(revoked.prefix, key[..9]);
        assert_eq!(store.caller(&key).unwrap(), None);
        assert!(store.caller(&other).unwrap().is_some());
        assert_eq!(
            store.revoke_key(&key).unwrap_err().message,
            "API key not found."
        );
        store.revoke_key(&other).unwrap();
        assert!(store.keys().unwrap().is_empty());
    }
}
