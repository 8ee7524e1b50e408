//! Artifacts of workers (logs, system metrics), each of one run: created through the API,
//! their body uploaded and downloaded through signed links (`super::super::tokens`), and
//! the secret those links are signed with. An artifact is stored and served as one of the
//! media types of [`SERVED_TYPES`] whatever its uploader declared: none is a page a browser
//! would run.

use super::{json_column, now, random_hex, random_id, Refusal, Store};
use crate::api::types::{Acknowledged, Artifact, CreateArtifact, Items};
use rusqlite::{params, OptionalExtension};
use serde_json::Value;

/// Bytes of the secret that signs transfer links.
const SECRET_BYTES: usize = 32;

/// The media types an artifact is served as; any other is served as the last one.
const SERVED_TYPES: &[&str] = &[
    "text/plain",
    "application/json",
    "application/x-ndjson",
    "application/gzip",
    "application/octet-stream",
];

/// The media type an artifact declared as `declared` is stored and served as: its type
/// (without parameters, in lower case) when it is one of [`SERVED_TYPES`], else
/// `application/octet-stream`.
pub(crate) fn served_type(declared: Option<&str>) -> &'static str {
    let essence = declared
        .and_then(|declared| declared.split(';').next())
        .map(|essence| essence.trim().to_ascii_lowercase())
        .unwrap_or_default();
    SERVED_TYPES
        .iter()
        .find(|served| **served == essence)
        .copied()
        .unwrap_or("application/octet-stream")
}

/// An uploaded artifact's body as a download serves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Download {
    /// One of [`SERVED_TYPES`].
    pub(crate) content_type: &'static str,
    /// Its file name, when it has one.
    pub(crate) name: Option<String>,
    /// Its bytes.
    pub(crate) body: Vec<u8>,
}

impl Store {
    /// The secret that signs transfer links, made on first use.
    pub(crate) fn token_secret(&self) -> Result<Vec<u8>, Refusal> {
        let stored: Option<Vec<u8>> = self
            .db
            .query_row(
                "SELECT value FROM secrets WHERE name = 'artifact-tokens'",
                [],
                |row| row.get(0),
            )
            .optional()?;
        if let Some(secret) = stored {
            return Ok(secret);
        }
        let secret = hex::decode(random_hex(SECRET_BYTES)?)
            .map_err(|error| Refusal::internal(error.to_string()))?;
        self.db.execute(
            "INSERT INTO secrets (name, value) VALUES ('artifact-tokens', ?1)",
            [&secret],
        )?;
        Ok(secret)
    }

    /// `POST .../workers/{w}/artifacts`: a new artifact of the worker's run.
    pub(crate) fn create_artifact(
        &self,
        slug: &str,
        run_id: &str,
        worker_id: &str,
        body: &CreateArtifact,
    ) -> Result<Artifact, Refusal> {
        self.run(slug, run_id)?;
        self.worker(run_id, worker_id)?;
        let id = random_id("art")?;
        let metadata = body
            .metadata
            .as_ref()
            .map(|metadata| Value::Object(metadata.clone()).to_string());
        self.db.execute(
            "INSERT INTO artifacts (id, run_id, worker_id, attempt_id, kind, name, content_type, metadata, token, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                id,
                run_id,
                worker_id,
                body.attempt_id,
                body.kind,
                body.name,
                served_type(body.content_type.as_deref()),
                metadata,
                id,
                now()
            ],
        )?;
        self.artifact(&id)
    }

    fn artifact(&self, id: &str) -> Result<Artifact, Refusal> {
        self.db
            .query_row(
                "SELECT id, worker_id, kind, name, content_type, metadata, size_bytes, created_at, uploaded_at
                 FROM artifacts WHERE id = ?1",
                [id],
                |row| {
                    Ok(Artifact {
                        id: row.get(0)?,
                        worker_id: row.get(1)?,
                        kind: row.get(2)?,
                        name: row.get(3)?,
                        content_type: row.get(4)?,
                        metadata: json_column(row.get(5)?),
                        size_bytes: row.get(6)?,
                        created_at: row.get(7)?,
                        uploaded_at: row.get(8)?,
                        upload_url: None,
                    })
                },
            )
            .optional()?
            .ok_or_else(|| Refusal::not_found("Artifact"))
    }

    /// Whether an artifact exists (an upload link's is checked before its body is read).
    pub(crate) fn has_artifact(&self, id: &str) -> Result<bool, Refusal> {
        let found = self
            .db
            .query_row("SELECT 1 FROM artifacts WHERE id = ?1", [id], |_| Ok(()))
            .optional()?;
        Ok(found.is_some())
    }

    /// `PUT /uploads/{token}`: stores (replaces) an artifact's body.
    pub(crate) fn upload(&self, id: &str, body: &[u8]) -> Result<Acknowledged, Refusal> {
        let changed = self.db.execute(
            "UPDATE artifacts SET body = ?1, size_bytes = ?2, uploaded_at = ?3 WHERE id = ?4",
            params![body, body.len(), now(), id],
        )?;
        if changed == 0 {
            return Err(Refusal::not_found("Upload"));
        }
        Ok(Acknowledged { ok: true })
    }

    /// `GET /downloads/{token}`: an uploaded artifact's body, name and served type (of an
    /// artifact stored before types were checked, too).
    pub(crate) fn download(&self, id: &str) -> Result<Download, Refusal> {
        self.db
            .query_row(
                "SELECT content_type, name, body FROM artifacts WHERE id = ?1 AND body IS NOT NULL",
                [id],
                |row| {
                    let declared: Option<String> = row.get(0)?;
                    Ok(Download {
                        content_type: served_type(declared.as_deref()),
                        name: row.get(1)?,
                        body: row.get(2)?,
                    })
                },
            )
            .optional()?
            .ok_or_else(|| Refusal::not_found("Download"))
    }

    /// The uploaded artifacts of `kind` of a run, the first `limit` in creation order: each
    /// with its worker's participant, at most the last `max_bytes` of its body, and whether
    /// bytes before them were left out.
    pub(crate) fn artifact_ends(
        &self,
        run_id: &str,
        kind: &str,
        max_bytes: u64,
        limit: usize,
    ) -> Result<Vec<(String, Vec<u8>, bool)>, Refusal> {
        let max_bytes = i64::try_from(max_bytes).unwrap_or(i64::MAX);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.rows(
            "SELECT w.participant, substr(a.body, max(1, length(a.body) - ?3 + 1)), length(a.body) > ?3
             FROM artifacts a JOIN workers w ON w.id = a.worker_id
             WHERE a.run_id = ?1 AND a.kind = ?2 AND a.body IS NOT NULL
             ORDER BY a.rowid LIMIT ?4",
            params![run_id, kind, max_bytes, limit],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
    }

    /// `GET .../runs/{runId}/artifacts`, or those of one worker, in creation order.
    pub(crate) fn list_artifacts(
        &self,
        slug: &str,
        run_id: &str,
        worker_id: Option<&str>,
    ) -> Result<Items<Artifact>, Refusal> {
        self.run(slug, run_id)?;
        let ids: Vec<String> = self.rows(
            "SELECT id FROM artifacts WHERE run_id = ?1 AND (?2 IS NULL OR worker_id = ?2) ORDER BY rowid",
            params![run_id, worker_id],
            |row| row.get(0),
        )?;
        let items = ids
            .iter()
            .map(|id| self.artifact(id))
            .collect::<Result<_, _>>()?;
        Ok(Items { items })
    }

    /// `GET .../workers/{w}/artifacts/{a}`: an artifact of that worker of the run.
    pub(crate) fn get_artifact(
        &self,
        slug: &str,
        run_id: &str,
        worker_id: &str,
        artifact_id: &str,
    ) -> Result<Artifact, Refusal> {
        self.run(slug, run_id)?;
        self.db
            .query_row(
                "SELECT 1 FROM artifacts WHERE id = ?1 AND run_id = ?2 AND worker_id = ?3",
                [artifact_id, run_id, worker_id],
                |_| Ok(()),
            )
            .optional()?
            .ok_or_else(|| Refusal::not_found("Artifact"))?;
        self.artifact(artifact_id)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{claimed, store};
    use super::*;
    use serde_json::json;

    #[test]
    fn only_types_no_browser_runs_are_served() {
        assert_eq!(served_type(Some("text/plain; charset=utf-8")), "text/plain");
        assert_eq!(served_type(Some(" Application/JSON")), "application/json");
        assert_eq!(
            served_type(Some("application/x-ndjson")),
            "application/x-ndjson"
        );
        for hostile in [
            "text/html",
            "image/svg+xml",
            "text/xml",
            "application/javascript",
            "",
        ] {
            assert_eq!(
                served_type(Some(hostile)),
                "application/octet-stream",
                "{hostile}"
            );
        }
        assert_eq!(served_type(None), "application/octet-stream");
    }

    #[test]
    fn an_artifact_body_goes_up_and_comes_back_by_token() {
        let (_dir, store) = store();
        let (run_id, worker_id, attempt_id) = claimed(&store);
        let body = CreateArtifact {
            attempt_id,
            kind: "coordinator.log".into(),
            content_type: Some("text/plain".into()),
            name: Some("worker.log".into()),
            metadata: json!({"sizeBytes": 5}).as_object().cloned(),
        };
        let artifact = store
            .create_artifact("s", &run_id, &worker_id, &body)
            .unwrap();
        assert_eq!(artifact.size_bytes, None);
        assert!(store.has_artifact(&artifact.id).unwrap());
        assert!(!store.has_artifact("art_nope").unwrap());
        assert_eq!(
            store.download(&artifact.id).unwrap_err(),
            Refusal::not_found("Download")
        );
        store.upload(&artifact.id, b"hello").unwrap();
        assert_eq!(
            store.download(&artifact.id).unwrap(),
            Download {
                content_type: "text/plain",
                name: Some("worker.log".into()),
                body: b"hello".to_vec()
            }
        );
        let stored = store
            .get_artifact("s", &run_id, &worker_id, &artifact.id)
            .unwrap();
        assert_eq!(stored.size_bytes, Some(5));
        assert_eq!(stored.metadata, json!({"sizeBytes": 5}));
        assert_eq!(
            store
                .get_artifact("s", &run_id, "wk_other", &artifact.id)
                .unwrap_err(),
            Refusal::not_found("Artifact")
        );
        let secret = store.token_secret().unwrap();
        assert_eq!(secret.len(), 32);
        assert_eq!(store.token_secret().unwrap(), secret);
        let listed = store
            .list_artifacts("s", &run_id, Some("wk_other"))
            .unwrap();
        assert!(listed.items.is_empty());
        assert_eq!(
            store.upload("nope", b"x").unwrap_err(),
            Refusal::not_found("Upload")
        );
    }
}
