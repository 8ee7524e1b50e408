//! How bench reaches a NATS server, as NATS clients do: a `nats://` or `tls://` URL that may
//! carry `user:password@` or `token@`, an nkey seed file, a `.creds` file (user JWT and
//! seed), and TLS with a CA and a client certificate. Credentials are never shown: the
//! server is always named by its URL without them ([`NatsAccess::server`]).

use anyhow::{bail, Context as _, Result};
use async_nats::{Client, ConnectOptions, Event};
use std::path::PathBuf;
use tokio::sync::watch;
use url::Url;

/// Files that prove who bench is to the NATS server or whom it trusts; each `None` when
/// not given (`--nats-creds`, `--nats-nkey`, `--nats-ca`, `--nats-cert`, `--nats-key`, or
/// `NATS_CREDS`, `NATS_NKEY`, `NATS_CA`, `NATS_CERT`, `NATS_KEY`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessFiles {
    /// A `.creds` file: a user JWT and its nkey seed.
    pub creds: Option<PathBuf>,
    /// A file holding an nkey seed (`SU…`).
    pub nkey: Option<PathBuf>,
    /// The CA (PEM) the server's certificate must chain to; implies TLS.
    pub ca: Option<PathBuf>,
    /// bench's client certificate (PEM), with `key`.
    pub cert: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    pub key: Option<PathBuf>,
}

impl AccessFiles {
    /// The environment variable that gives each file when its flag is not given.
    pub const ENV: [&'static str; 5] = [
        "NATS_CREDS",
        "NATS_NKEY",
        "NATS_CA",
        "NATS_CERT",
        "NATS_KEY",
    ];

    /// Fills each file not given from its environment variable (`lookup` reads one).
    pub fn or_from_env(mut self, lookup: impl Fn(&str) -> Option<String>) -> Self {
        let [creds, nkey, ca, cert, key] = Self::ENV.map(|name| {
            lookup(name)
                .filter(|value| !value.trim().is_empty())
                .map(PathBuf::from)
        });
        self.creds = self.creds.or(creds);
        self.nkey = self.nkey.or(nkey);
        self.ca = self.ca.or(ca);
        self.cert = self.cert.or(cert);
        self.key = self.key.or(key);
        self
    }
}

/// A NATS server and the credentials to reach it.
#[derive(Clone)]
pub struct NatsAccess {
    /// The URL without credentials.
    server: String,
    user_password: Option<(String, String)>,
    token: Option<String>,
    files: AccessFiles,
}

impl std::fmt::Debug for NatsAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NatsAccess")
            .field("server", &self.server)
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

/// Why a NATS URL was refused; never quotes its credentials.
pub fn check_url(text: &str) -> Result<(), String> {
    parse_url(text).map(drop)
}

/// `text` with any `user:password@` or `token@` replaced by `***@`, for messages.
pub fn redact_url(text: &str) -> String {
    match text.split_once("://") {
        Some((scheme, rest)) => {
            let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            match rest[..authority_end].rfind('@') {
                Some(at) => format!("{scheme}://***{}", &rest[at..]),
                None => text.to_owned(),
            }
        }
        None if text.contains('@') => "***".to_owned(),
        None => text.to_owned(),
    }
}

/// The URL checked: `nats://` or `tls://`, a host, no path.
fn parse_url(text: &str) -> Result<Url, String> {
    let shown = redact_url(text);
    let refused = || {
        format!(
            "expects a NATS server address like nats://127.0.0.1:4222 or tls://nats.example:4222 (got \"{shown}\")"
        )
    };
    let url = Url::parse(text).map_err(|_| refused())?;
    if !matches!(url.scheme(), "nats" | "tls") || url.host_str().is_none_or(str::is_empty) {
        return Err(refused());
    }
    if !matches!(url.path(), "" | "/") || url.query().is_some() || url.fragment().is_some() {
        return Err(refused());
    }
    Ok(url)
}

/// A percent-encoded part of the URL's userinfo, decoded.
fn decoded(text: &str) -> Result<String> {
    percent_encoding::percent_decode_str(text)
        .decode_utf8()
        .map(|text| text.into_owned())
        .map_err(|_| anyhow::anyhow!("the NATS URL's credentials are not UTF-8"))
}

impl NatsAccess {
    /// The server at `url` (`nats://[user:password@|token@]HOST[:PORT]`, or `tls://…`),
    /// with `files`.
    pub fn new(url: &str, files: AccessFiles) -> Result<Self> {
        let mut parsed = parse_url(url).map_err(|why| anyhow::anyhow!("the NATS server {why}"))?;
        let (user_password, token) = match (parsed.username(), parsed.password()) {
            ("", None) => (None, None),
            ("", Some(_)) => bail!(
                "the NATS URL {} has a password but no user",
                redact_url(url)
            ),
            (user, Some(password)) => (Some((decoded(user)?, decoded(password)?)), None),
            (token, None) => (None, Some(decoded(token)?)),
        };
        // Neither can fail on a URL with a host.
        let _ = parsed.set_username("");
        let _ = parsed.set_password(None);
        if user_password.is_some() as u8
            + token.is_some() as u8
            + files.creds.is_some() as u8
            + files.nkey.is_some() as u8
            > 1
        {
            bail!(
                "give one way to authenticate to NATS: user:password@ or token@ in the URL, --nats-creds or --nats-nkey"
            );
        }
        if files.cert.is_some() != files.key.is_some() {
            bail!("--nats-cert and --nats-key go together: the client certificate and its private key");
        }
        let server = parsed.as_str().trim_end_matches('/').to_owned();
        Ok(Self {
            server,
            user_password,
            token,
            files,
        })
    }

    /// The server's URL without credentials (`nats://host:port`).
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The credential and TLS files.
    pub fn files(&self) -> &AccessFiles {
        &self.files
    }

    /// Connects as `name`; the receiver counts the connections made (1 once connected, one
    /// more after each reconnect), so followers can start again.
    pub(crate) async fn connect(&self, name: &str) -> Result<(Client, watch::Receiver<u64>)> {
        let (connected, connections) = watch::channel(0u64);
        let mut options = ConnectOptions::new()
            .name(name)
            .event_callback(move |event| {
                let connected = connected.clone();
                async move {
                    if matches!(event, Event::Connected) {
                        connected.send_modify(|count| *count += 1);
                    }
                }
            });
        if let Some((user, password)) = &self.user_password {
            options = options.user_and_password(user.clone(), password.clone());
        }
        if let Some(token) = &self.token {
            options = options.token(token.clone());
        }
        if let Some(path) = &self.files.creds {
            options = options.credentials_file(path).await.with_context(|| {
                format!("cannot read the NATS credentials file {}", path.display())
            })?;
        }
        if let Some(path) = &self.files.nkey {
            options = options.nkey(read_seed(path)?);
        }
        for path in [&self.files.ca, &self.files.cert, &self.files.key]
            .into_iter()
            .flatten()
        {
            std::fs::metadata(path)
                .with_context(|| format!("cannot read the TLS file {}", path.display()))?;
        }
        if let Some(ca) = &self.files.ca {
            options = options.add_root_certificates(ca.clone()).require_tls(true);
        }
        if let (Some(cert), Some(key)) = (&self.files.cert, &self.files.key) {
            options = options
                .add_client_certificate(cert.clone(), key.clone())
                .require_tls(true);
        }
        let client = options
            .connect(&self.server)
            .await
            .with_context(|| format!("cannot connect to NATS at {}", self.server))?;
        Ok((client, connections))
    }
}

/// The nkey seed in `path`: its first line that is a user seed (`SU…`).
fn read_seed(path: &std::path::Path) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the nkey seed file {}", path.display()))?;
    text.lines()
        .map(str::trim)
        .find(|line| line.starts_with("SU"))
        .map(str::to_owned)
        .with_context(|| {
            format!(
                "{} holds no nkey user seed (a line starting with SU)",
                path.display()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_leave_the_url_and_are_never_shown() {
        let access = NatsAccess::new(
            "nats://bench:s%40cret@127.0.0.1:4222",
            AccessFiles::default(),
        )
        .unwrap();
        assert_eq!(access.server(), "nats://127.0.0.1:4222");
        assert_eq!(
            access.user_password,
            Some(("bench".to_owned(), "s@cret".to_owned()))
        );
        let access = NatsAccess::new("tls://t0ken@nats.example", AccessFiles::default()).unwrap();
        assert_eq!(access.server(), "tls://nats.example");
        assert_eq!(access.token.as_deref(), Some("t0ken"));
        assert!(!format!("{access:?}").contains("t0ken"));

        assert_eq!(redact_url("nats://u:p@h:1"), "nats://***@h:1");
        assert_eq!(redact_url("nats://h:1"), "nats://h:1");
        assert_eq!(redact_url("u:p@h"), "***");
        for bad in [
            "http://u:hunter2@h",
            "nats://u:hunter2@",
            "nats://u:hunter2@h/path",
            "h:4222",
        ] {
            let why = check_url(bad).unwrap_err();
            assert!(!why.contains("hunter2"), "{why}");
            assert!(why.starts_with("expects a NATS server address"), "{why}");
        }
        let error = NatsAccess::new("nats://:hunter2@h", AccessFiles::default()).unwrap_err();
        assert!(!error.to_string().contains("hunter2"), "{error}");
    }

    #[test]
    fn one_way_to_authenticate_and_a_certificate_with_its_key() {
        let creds = AccessFiles {
            creds: Some("a.creds".into()),
            ..AccessFiles::default()
        };
        let error = NatsAccess::new("nats://u:p@h", creds).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("give one way to authenticate"),
            "{error}"
        );
        let cert = AccessFiles {
            cert: Some("c.pem".into()),
            ..AccessFiles::default()
        };
        let error = NatsAccess::new("tls://h", cert).unwrap_err();
        assert!(error
            .to_string()
            .contains("--nats-cert and --nats-key go together"));
        let files = AccessFiles::default()
            .or_from_env(|name| (name == "NATS_CREDS").then(|| "/x.creds".into()));
        assert_eq!(files.creds, Some("/x.creds".into()));
        assert_eq!(files.nkey, None);
    }

    #[test]
    fn a_seed_file_gives_its_user_seed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seed");
        std::fs::write(&path, "# comment\n  SUAEXAMPLE\n").unwrap();
        assert_eq!(read_seed(&path).unwrap(), "SUAEXAMPLE");
        std::fs::write(&path, "nothing here").unwrap();
        assert!(read_seed(&path)
            .unwrap_err()
            .to_string()
            .contains("holds no nkey user seed"));
    }
}
