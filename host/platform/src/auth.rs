//! Platform auth resolution (spec §5.4): the environment, `~/.benchsdk/config.json` and
//! `~/.benchsdk/credentials.json`, with upstream's precedence, URLs and messages.

use crate::files::{write_atomically, Access};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The platform root used when nothing names another.
pub(crate) const DEFAULT_ROOT: &str = "https://platform.computesdk.com";

const NO_CREDENTIALS: &str = "No credentials found. Set BENCHMARKS_PLATFORM_API_KEY or BENCHMARKS_PLATFORM_TOKEN (a run can also stay local with --no-ingest). Create an API key at https://platform.computesdk.com in your organization settings (Settings → API keys).";
const SESSION_EXPIRED: &str =
    "Your saved session has expired. Set BENCHMARKS_PLATFORM_API_KEY (a run can also stay local with --no-ingest).";
const REFRESH_FAILED: &str =
    "Failed to refresh your saved session. Set BENCHMARKS_PLATFORM_API_KEY (a run can also stay local with --no-ingest).";

/// Refresh a saved token this long before it expires.
const REFRESH_MARGIN_MS: f64 = 5.0 * 60.0 * 1000.0;

/// Auth could not be resolved; `Display` is upstream's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AuthError(pub String);

/// `~/.benchsdk/config.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ConfigFile {
    /// Platform root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Active organization slug.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub org: Option<String>,
    /// Preferred output format of the platform commands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
}

/// `~/.benchsdk/credentials.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Credentials {
    /// Platform root the credentials belong to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// OAuth access token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Organization API key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// OAuth refresh token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Access-token expiry, ms since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_expires_at: Option<f64>,
    /// Refresh-token expiry, ms since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_expires_at: Option<f64>,
    /// Organization slug.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub org_slug: Option<String>,
    /// Organization id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub org_id: Option<String>,
    /// `oauth` or `api-key`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// The platform variables of the environment (empty values count as unset).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    /// `BENCHMARKS_PLATFORM_API_KEY`.
    pub api_key: Option<String>,
    /// `BENCHMARKS_PLATFORM_TOKEN`.
    pub token: Option<String>,
    /// `BENCHMARKS_PLATFORM_URL`.
    pub url: Option<String>,
}

impl Env {
    /// Reads the process environment.
    pub(crate) fn from_process() -> Self {
        let var = |name| std::env::var(name).ok().filter(|v| !v.is_empty());
        Self {
            api_key: var("BENCHMARKS_PLATFORM_API_KEY"),
            token: var("BENCHMARKS_PLATFORM_TOKEN"),
            url: var("BENCHMARKS_PLATFORM_URL"),
        }
    }
}

/// Explicit choices of the platform commands (`--base-url`, `--api-key`, `--org`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// `--org`.
    pub org: Option<String>,
}

/// Resolved platform auth.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Auth {
    /// Platform root, without a trailing slash or `/api/v1`.
    pub base_url: String,
    /// Root + `/api/v1`.
    pub api_base_url: String,
    /// Root + `/api/auth`.
    pub auth_base_url: String,
    /// Bearer token (beats the API key).
    pub token: Option<String>,
    /// Organization API key.
    pub api_key: Option<String>,
    /// OAuth refresh token of saved credentials.
    pub refresh_token: Option<String>,
    /// Organization slug sent as `X-Org-Slug`.
    pub org_slug: Option<String>,
    /// Organization id sent as `X-Organization-Id` when there is no slug.
    pub org_id: Option<String>,
    /// The saved credentials, when they were used.
    pub saved: Option<Credentials>,
}

impl Auth {
    /// The bearer credential: the token, else the API key.
    pub(crate) fn bearer(&self) -> Option<&str> {
        self.token.as_deref().or(self.api_key.as_deref())
    }
}

/// `~/.benchsdk`.
pub(crate) fn config_dir() -> PathBuf {
    dirs::home_dir().unwrap_or_default().join(".benchsdk")
}

/// Reads a JSON file of `~/.benchsdk`: `None` when missing, an error when unreadable or not
/// JSON.
fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>, AuthError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| AuthError(format!("Cannot parse {}: {error}", path.display()))),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(AuthError(format!(
            "Cannot read {}: {error}",
            path.display()
        ))),
    }
}

/// Whether the saved credentials file exists.
pub(crate) fn has_saved_credentials() -> bool {
    config_dir().join("credentials.json").is_file()
}

/// Resolves auth from the environment and `~/.benchsdk`, refreshing a saved OAuth session
/// that is about to expire.
pub async fn resolve(overrides: &Overrides) -> Result<Auth, AuthError> {
    let dir = config_dir();
    let config: Option<ConfigFile> = read_json(&dir.join("config.json"))?;
    let credentials: Option<Credentials> = read_json(&dir.join("credentials.json"))?;
    let auth = resolve_with(
        &Env::from_process(),
        config.unwrap_or_default(),
        credentials,
        overrides,
    )?;
    refresh_if_needed(auth, now_ms()).await
}

/// The precedence of spec §5.4: override API key, env token, env API key, saved credentials.
pub(crate) fn resolve_with(
    env: &Env,
    config: ConfigFile,
    credentials: Option<Credentials>,
    overrides: &Overrides,
) -> Result<Auth, AuthError> {
    let explicit = overrides
        .api_key
        .clone()
        .map(|key| (None, Some(key)))
        .or_else(|| env.token.clone().map(|token| (Some(token), None)))
        .or_else(|| env.api_key.clone().map(|key| (None, Some(key))));
    if let Some((token, api_key)) = explicit {
        let root = overrides.base_url.clone().or(config.base_url);
        return Ok(build(
            root,
            env,
            token,
            api_key,
            overrides.org.clone().or(config.org),
            None,
            None,
        ));
    }
    let Some(saved) = credentials.filter(|c| c.token.is_some() || c.api_key.is_some()) else {
        return Err(AuthError(NO_CREDENTIALS.into()));
    };
    let root = overrides
        .base_url
        .clone()
        .or(config.base_url)
        .or(saved.base_url.clone());
    let org = overrides
        .org
        .clone()
        .or(config.org)
        .or(saved.org_slug.clone());
    let mut auth = build(
        root,
        env,
        saved.token.clone(),
        saved.api_key.clone(),
        org,
        saved.org_id.clone(),
        Some(saved.clone()),
    );
    auth.refresh_token = saved.refresh_token;
    Ok(auth)
}

fn build(
    root: Option<String>,
    env: &Env,
    token: Option<String>,
    api_key: Option<String>,
    org_slug: Option<String>,
    org_id: Option<String>,
    saved: Option<Credentials>,
) -> Auth {
    let root = root
        .or(env.url.clone())
        .unwrap_or_else(|| DEFAULT_ROOT.to_owned());
    let root = root.trim_end_matches('/');
    let bare = root.strip_suffix("/api/v1").unwrap_or(root);
    Auth {
        base_url: root.to_owned(),
        api_base_url: format!("{bare}/api/v1"),
        auth_base_url: format!("{bare}/api/auth"),
        token,
        api_key,
        refresh_token: None,
        org_slug,
        org_id,
        saved,
    }
}

fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as f64)
        .unwrap_or_default()
}

/// What a saved OAuth session needs now.
#[derive(Debug, PartialEq, Eq)]
enum Freshness {
    Fresh,
    Refresh,
    Expired,
}

fn freshness(saved: &Credentials, now: f64) -> Freshness {
    if saved.token.is_none() || saved.api_key.is_some() {
        return Freshness::Fresh;
    }
    match saved.token_expires_at {
        Some(expires) if now >= expires - REFRESH_MARGIN_MS => {}
        _ => return Freshness::Fresh,
    }
    match (&saved.refresh_token, saved.refresh_expires_at) {
        (None, _) => Freshness::Expired,
        (Some(_), Some(expires)) if now >= expires => Freshness::Expired,
        _ => Freshness::Refresh,
    }
}

/// The answer of `POST <auth>/cli/refresh`: a new access token (`access_token`, else
/// `token`), perhaps a new refresh token (`refresh_token`, else `refreshToken`), and their
/// lifetimes in seconds. Other fields are ignored.
#[derive(Debug, Default, Deserialize)]
struct Refreshed {
    access_token: Option<String>,
    token: Option<String>,
    refresh_token: Option<String>,
    #[serde(rename = "refreshToken")]
    refresh_token_camel: Option<String>,
    expires_in: Option<f64>,
    refresh_expires_in: Option<f64>,
}

impl Refreshed {
    /// `saved` with what the refresh answered at `now` (ms since the epoch); `None`
    /// without a new access token.
    fn applied_to(self, mut saved: Credentials, now: f64) -> Option<Credentials> {
        saved.token = Some(self.access_token.or(self.token)?);
        if let Some(refresh) = self.refresh_token.or(self.refresh_token_camel) {
            saved.refresh_token = Some(refresh);
        }
        if let Some(expires_in) = self.expires_in {
            saved.token_expires_at = Some(now + expires_in * 1000.0);
        }
        if let Some(expires_in) = self.refresh_expires_in {
            saved.refresh_expires_at = Some(now + expires_in * 1000.0);
        }
        Some(saved)
    }
}

/// Refreshes a saved OAuth token close to expiry (`POST <auth>/cli/refresh`) and saves it.
async fn refresh_if_needed(mut auth: Auth, now: f64) -> Result<Auth, AuthError> {
    let Some(saved) = auth.saved.clone() else {
        return Ok(auth);
    };
    match freshness(&saved, now) {
        Freshness::Fresh => return Ok(auth),
        Freshness::Expired => return Err(AuthError(SESSION_EXPIRED.into())),
        Freshness::Refresh => {}
    }
    let failed = || AuthError(REFRESH_FAILED.into());
    let body = serde_json::json!({
        "refresh_token": saved.refresh_token,
        "client_id": "benchsdk-cli",
    });
    let response = reqwest::Client::new()
        .post(format!("{}/cli/refresh", auth.auth_base_url))
        .json(&body)
        .send()
        .await
        .map_err(|_| failed())?;
    if !response.status().is_success() {
        return Err(failed());
    }
    let refreshed: Refreshed = response.json().await.map_err(|_| failed())?;
    let updated = refreshed.applied_to(saved, now).ok_or_else(failed)?;
    save_credentials(&updated).map_err(|_| failed())?;
    auth.token = updated.token.clone();
    auth.refresh_token = updated.refresh_token.clone();
    auth.saved = Some(updated);
    Ok(auth)
}

/// Saves refreshed credentials, readable by their owner only.
fn save_credentials(credentials: &Credentials) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(credentials)? + "\n";
    write_atomically(
        &config_dir().join("credentials.json"),
        text.as_bytes(),
        Access::Private,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved_oauth() -> Credentials {
        Credentials {
            token: Some("saved-token".into()),
            refresh_token: Some("saved-refresh".into()),
            token_expires_at: Some(now_ms() + 1e6),
            refresh_expires_at: Some(now_ms() + 1e6),
            base_url: Some("https://saved.example.com".into()),
            org_slug: Some("saved-org".into()),
            org_id: Some("saved-org-id".into()),
            kind: Some("oauth".into()),
            ..Credentials::default()
        }
    }

    fn env(api_key: Option<&str>, token: Option<&str>) -> Env {
        Env {
            api_key: api_key.map(String::from),
            token: token.map(String::from),
            url: None,
        }
    }

    fn resolve(env: &Env, config: ConfigFile, creds: Option<Credentials>) -> Auth {
        resolve_with(env, config, creds, &Overrides::default()).unwrap()
    }

    #[test]
    fn au1_saved_oauth_credentials() {
        let auth = resolve(&Env::default(), ConfigFile::default(), Some(saved_oauth()));
        assert_eq!(auth.token.as_deref(), Some("saved-token"));
        assert_eq!(auth.refresh_token.as_deref(), Some("saved-refresh"));
        assert_eq!(auth.base_url, "https://saved.example.com");
        assert_eq!(auth.api_base_url, "https://saved.example.com/api/v1");
        assert_eq!(auth.auth_base_url, "https://saved.example.com/api/auth");
        assert_eq!(auth.org_slug.as_deref(), Some("saved-org"));
        assert_eq!(auth.org_id.as_deref(), Some("saved-org-id"));
        assert_eq!(auth.api_key, None);
    }

    #[test]
    fn au2_au3_environment_beats_saved_credentials() {
        let auth = resolve(
            &env(Some("env-api-key"), None),
            ConfigFile::default(),
            Some(saved_oauth()),
        );
        assert_eq!(auth.api_key.as_deref(), Some("env-api-key"));
        assert_eq!((auth.token, auth.refresh_token), (None, None));
        assert_eq!(auth.base_url, DEFAULT_ROOT);
        assert_eq!((auth.org_slug, auth.org_id), (None, None));

        let auth = resolve(
            &env(None, Some("env-token")),
            ConfigFile::default(),
            Some(saved_oauth()),
        );
        assert_eq!(auth.token.as_deref(), Some("env-token"));
        assert_eq!(auth.refresh_token, None);
        assert_eq!(auth.api_base_url, "https://platform.computesdk.com/api/v1");
    }

    #[test]
    fn au4_env_token_beats_env_api_key() {
        let auth = resolve(
            &env(Some("env-api-key"), Some("env-token")),
            ConfigFile::default(),
            None,
        );
        assert_eq!(auth.token.as_deref(), Some("env-token"));
        assert_eq!(auth.api_key, None);
    }

    #[test]
    fn au5_overrides_beat_config_and_saved_values() {
        let config = ConfigFile {
            base_url: Some("https://config.example.com".into()),
            org: Some("config-org".into()),
            format: None,
        };
        let overrides = Overrides {
            base_url: Some("https://override.example.com".into()),
            org: Some("override-org".into()),
            api_key: None,
        };
        let auth = resolve_with(&Env::default(), config, Some(saved_oauth()), &overrides).unwrap();
        assert_eq!(auth.base_url, "https://override.example.com");
        assert_eq!(auth.org_slug.as_deref(), Some("override-org"));
        assert_eq!(auth.org_id.as_deref(), Some("saved-org-id"));
    }

    #[test]
    fn au6_override_api_key_ignores_saved_session() {
        let overrides = Overrides {
            api_key: Some("override-api-key".into()),
            ..Overrides::default()
        };
        let auth = resolve_with(
            &Env::default(),
            ConfigFile::default(),
            Some(saved_oauth()),
            &overrides,
        )
        .unwrap();
        assert_eq!(auth.api_key.as_deref(), Some("override-api-key"));
        assert_eq!(auth.token, None);
        assert_eq!(auth.base_url, DEFAULT_ROOT);
        assert_eq!((auth.org_slug, auth.org_id), (None, None));
    }

    #[test]
    fn au7_nothing_found() {
        let error = resolve_with(
            &Env::default(),
            ConfigFile::default(),
            None,
            &Overrides::default(),
        )
        .unwrap_err();
        assert_eq!(error.to_string(), NO_CREDENTIALS);
        assert!(error.to_string().starts_with("No credentials found"));
    }

    #[test]
    fn au8_saved_api_key() {
        let creds = Credentials {
            api_key: Some("api-key".into()),
            base_url: Some("https://platform.example.com".into()),
            org_slug: Some("my-org".into()),
            org_id: Some("my-org-id".into()),
            kind: Some("api-key".into()),
            ..Credentials::default()
        };
        let auth = resolve(&Env::default(), ConfigFile::default(), Some(creds));
        assert_eq!(auth.api_base_url, "https://platform.example.com/api/v1");
        assert_eq!(auth.bearer(), Some("api-key"));
        assert_eq!(auth.token, None);
        assert_eq!(auth.org_slug.as_deref(), Some("my-org"));
        assert_eq!(auth.org_id.as_deref(), Some("my-org-id"));
    }

    #[test]
    fn platform_url_and_trailing_api_path() {
        let env = Env {
            url: Some("http://127.0.0.1:8080/api/v1/".into()),
            ..env(Some("k"), None)
        };
        let auth = resolve(&env, ConfigFile::default(), None);
        assert_eq!(auth.api_base_url, "http://127.0.0.1:8080/api/v1");
        assert_eq!(auth.auth_base_url, "http://127.0.0.1:8080/api/auth");
        let config = ConfigFile {
            base_url: Some("https://config.example.com/".into()),
            ..ConfigFile::default()
        };
        let auth = resolve(&env, config, None);
        assert_eq!(auth.api_base_url, "https://config.example.com/api/v1");
    }

    #[test]
    fn a_refresh_answer_replaces_the_token_and_what_it_names() {
        let saved = Credentials {
            token: Some("old".into()),
            refresh_token: Some("old-refresh".into()),
            token_expires_at: Some(1.0),
            refresh_expires_at: Some(2.0),
            ..Credentials::default()
        };
        let answer = |json: serde_json::Value| serde_json::from_value::<Refreshed>(json).unwrap();
        let full = answer(serde_json::json!({
            "access_token": "new", "token": "other", "refresh_token": "new-refresh",
            "expires_in": 60, "refresh_expires_in": 3600, "token_type": "Bearer"
        }));
        let updated = full.applied_to(saved.clone(), 1000.0).unwrap();
        assert_eq!(updated.token.as_deref(), Some("new"));
        assert_eq!(updated.refresh_token.as_deref(), Some("new-refresh"));
        assert_eq!(updated.token_expires_at, Some(61_000.0));
        assert_eq!(updated.refresh_expires_at, Some(3_601_000.0));
        let short = answer(serde_json::json!({"token": "new", "refreshToken": "camel"}));
        let updated = short.applied_to(saved.clone(), 1000.0).unwrap();
        assert_eq!(updated.token.as_deref(), Some("new"));
        assert_eq!(updated.refresh_token.as_deref(), Some("camel"));
        assert_eq!(
            (updated.token_expires_at, updated.refresh_expires_at),
            (Some(1.0), Some(2.0))
        );
        let none = answer(serde_json::json!({"access_token": null, "refresh_token": "r"}));
        assert_eq!(none.applied_to(saved, 1000.0), None, "no access token");
    }

    #[test]
    fn saved_sessions_expire_or_refresh() {
        let now = now_ms();
        let mut creds = saved_oauth();
        assert_eq!(freshness(&creds, now), Freshness::Fresh);
        creds.token_expires_at = Some(now + 60_000.0);
        assert_eq!(freshness(&creds, now), Freshness::Refresh);
        creds.refresh_expires_at = Some(now - 1.0);
        assert_eq!(freshness(&creds, now), Freshness::Expired);
        creds.refresh_token = None;
        creds.refresh_expires_at = None;
        assert_eq!(freshness(&creds, now), Freshness::Expired);
    }

    #[tokio::test]
    async fn an_expired_session_is_an_auth_error() {
        let mut creds = saved_oauth();
        creds.token_expires_at = Some(0.0);
        creds.refresh_expires_at = Some(1.0);
        let auth = resolve(&Env::default(), ConfigFile::default(), Some(creds));
        let error = refresh_if_needed(auth, now_ms()).await.unwrap_err();
        assert_eq!(error.to_string(), SESSION_EXPIRED);
    }
}
