//! Filesystem: none by default; `--allow-dir HOST[:GUEST][:rw]` preopens a host directory,
//! read-only unless `:rw`.

use std::path::PathBuf;

/// One directory grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirGrant {
    /// The host directory.
    pub host: PathBuf,
    /// Where the guest sees it.
    pub guest: String,
    /// Whether the guest may write.
    pub writable: bool,
}

impl DirGrant {
    /// Parses `HOST[:GUEST][:ro|:rw]`; the guest path defaults to the host path.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut parts: Vec<&str> = spec.split(':').collect();
        let writable = match parts.last() {
            Some(&"rw") if parts.len() > 1 => {
                parts.pop();
                true
            }
            Some(&"ro") if parts.len() > 1 => {
                parts.pop();
                false
            }
            _ => false,
        };
        let (host, guest) = match parts.as_slice() {
            [host] => (*host, *host),
            [host, guest] => (*host, *guest),
            _ => {
                return Err(format!(
                    "--allow-dir expects HOST[:GUEST][:rw] (got \"{spec}\")"
                ))
            }
        };
        if host.is_empty() || guest.is_empty() {
            return Err(format!(
                "--allow-dir expects HOST[:GUEST][:rw] (got \"{spec}\")"
            ));
        }
        let host = PathBuf::from(host);
        if !host.is_dir() {
            return Err(format!(
                "--allow-dir: {} is not a directory",
                host.display()
            ));
        }
        Ok(Self {
            host,
            guest: guest.to_owned(),
            writable,
        })
    }

    /// Whether this grant (a worker operator's) holds everything `asked` (a run's) grants:
    /// its directory is this one or inside it (symbolic links resolved), writable only if
    /// this one is.
    pub fn covers(&self, asked: &DirGrant) -> bool {
        let (Ok(own), Ok(other)) = (self.host.canonicalize(), asked.host.canonicalize()) else {
            return false;
        };
        other.starts_with(own) && (self.writable || !asked.writable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_are_read_only_unless_rw() {
        let dir = std::env::temp_dir();
        let shown = dir.display().to_string();
        let grant = DirGrant::parse(&shown).unwrap();
        assert_eq!(
            (grant.guest.as_str(), grant.writable),
            (shown.as_str(), false)
        );
        let grant = DirGrant::parse(&format!("{shown}:/data:rw")).unwrap();
        assert_eq!((grant.guest.as_str(), grant.writable), ("/data", true));
        assert!(DirGrant::parse("/definitely/not/here")
            .unwrap_err()
            .contains("is not a directory"));
        let inner = tempfile::tempdir().unwrap();
        let outer = DirGrant::parse(&format!(
            "{}:/x:rw",
            inner.path().parent().unwrap().display()
        ))
        .unwrap();
        let asked = DirGrant::parse(&format!("{}:/data:rw", inner.path().display())).unwrap();
        assert!(
            outer.covers(&asked),
            "inside, writable under a writable grant"
        );
        let read_only = DirGrant {
            writable: false,
            ..outer.clone()
        };
        assert!(!read_only.covers(&asked), "never writable beyond the grant");
        assert!(read_only.covers(&DirGrant {
            writable: false,
            ..asked.clone()
        }));
        assert!(!asked.covers(&outer), "never a parent");
        assert!(DirGrant::parse("a:b:c:d")
            .unwrap_err()
            .starts_with("--allow-dir expects"));
    }
}
