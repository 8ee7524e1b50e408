//! The on-disk cache of compiled components, authenticated: a cached artifact is native code
//! that wasmtime maps and runs, so it is loaded only when an HMAC-SHA256 under a per-user key
//! (kept outside the cache, readable by its owner only) proves that this user's bench wrote
//! it for these component bytes, this wasmtime and these engine settings. The tag is checked
//! on the bytes read into memory, before wasmtime sees them; an entry that fails is never
//! deserialised: the component is compiled again and the entry rewritten.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::fs::File;
use std::io::{Read as _, Write as _};
use std::os::unix::fs::{
    DirBuilderExt as _, MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _,
};
use std::path::{Path, PathBuf};

/// The first bytes of an entry (a format version: another one is simply recompiled).
const MAGIC: &[u8; 8] = b"benchcw1";
/// Length of the key and of a tag (HMAC-SHA256).
const KEY_BYTES: usize = 32;
const TAG_BYTES: usize = 32;

/// The environment variable naming the key file (default `<config dir>/bench/cache.key`).
pub(crate) const CACHE_KEY_ENV: &str = "BENCH_CACHE_KEY";

type HmacSha256 = Hmac<Sha256>;

/// What an engine's artifacts are bound to besides the component's bytes: the wasmtime
/// version and a hash of the engine's compilation settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EngineBinding {
    /// The wasmtime version.
    pub wasmtime: &'static str,
    /// A hash of the settings that change compiled code.
    pub settings: u64,
}

/// The authenticated cache in one folder.
#[derive(Clone)]
pub(crate) struct CompiledCache {
    dir: PathBuf,
    key: [u8; KEY_BYTES],
}

/// What a lookup found.
#[derive(Debug)]
pub(crate) enum Lookup {
    /// An entry written by this user's bench for these bytes and settings: its artifact.
    Verified(Vec<u8>),
    /// No entry.
    Missing,
    /// An entry that failed its check (another component's, changed, or not bench's).
    Rejected(PathBuf),
}

impl std::fmt::Debug for CompiledCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledCache")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl CompiledCache {
    /// The cache in `dir`, authenticated with the key in `key_file` (created, 0600, when
    /// missing); `Err` says why the key cannot be used.
    pub(crate) fn open(dir: PathBuf, key_file: &Path) -> Result<Self, String> {
        Ok(Self {
            dir,
            key: load_or_create_key(key_file)?,
        })
    }

    /// Where the entry of the component whose sha256 is `digest` lives (`.acwasm`: the
    /// unauthenticated `.cwasm` entries of earlier bench versions are never read).
    pub(crate) fn entry_path(&self, digest: &str, engine: &EngineBinding) -> PathBuf {
        self.dir.join(format!(
            "{digest}-wasmtime{}-{:016x}.acwasm",
            engine.wasmtime, engine.settings
        ))
    }

    /// The verified artifact of `digest` for `engine`, if the cache holds one.
    pub(crate) fn load(&self, digest: &str, engine: &EngineBinding) -> Lookup {
        let path = self.entry_path(digest, engine);
        let Ok(bytes) = read_no_follow(&path) else {
            return if path.symlink_metadata().is_ok() {
                Lookup::Rejected(path)
            } else {
                Lookup::Missing
            };
        };
        match self.verified_artifact(digest, engine, bytes) {
            Some(artifact) => Lookup::Verified(artifact),
            None => Lookup::Rejected(path),
        }
    }

    /// Writes `artifact` as the entry of `digest` for `engine` (atomically; a cache that
    /// cannot be written only costs the next run a compile).
    pub(crate) fn store(&self, digest: &str, engine: &EngineBinding, artifact: &[u8]) {
        let tag = self.tag(digest, engine, artifact);
        let mut entry = Vec::with_capacity(MAGIC.len() + TAG_BYTES + artifact.len());
        entry.extend_from_slice(MAGIC);
        entry.extend_from_slice(&tag);
        entry.extend_from_slice(artifact);
        let _ = write_replacing(&self.entry_path(digest, engine), &entry);
    }

    /// The artifact of an entry whose tag is right, else `None`.
    fn verified_artifact(
        &self,
        digest: &str,
        engine: &EngineBinding,
        mut entry: Vec<u8>,
    ) -> Option<Vec<u8>> {
        let header = MAGIC.len() + TAG_BYTES;
        if entry.len() < header || &entry[..MAGIC.len()] != MAGIC {
            return None;
        }
        let (tag, artifact) = entry[MAGIC.len()..].split_at(TAG_BYTES);
        self.mac(digest, engine, artifact).verify_slice(tag).ok()?;
        entry.drain(..header);
        Some(entry)
    }

    fn tag(&self, digest: &str, engine: &EngineBinding, artifact: &[u8]) -> [u8; TAG_BYTES] {
        self.mac(digest, engine, artifact)
            .finalize()
            .into_bytes()
            .into()
    }

    /// The MAC of an artifact bound to the component's digest and the engine.
    fn mac(&self, digest: &str, engine: &EngineBinding, artifact: &[u8]) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("HMAC takes any key length");
        for part in [
            b"bench compiled component\0".as_slice(),
            digest.as_bytes(),
            b"\0",
            engine.wasmtime.as_bytes(),
            b"\0",
            &engine.settings.to_le_bytes(),
            &(artifact.len() as u64).to_le_bytes(),
        ] {
            mac.update(part);
        }
        mac.update(artifact);
        mac
    }
}

/// The key file: `BENCH_CACHE_KEY`, else `<user config dir>/bench/cache.key` (outside the
/// cache folder, so a cache copied from elsewhere never brings its key).
pub(crate) fn default_key_file() -> Option<PathBuf> {
    match std::env::var_os(CACHE_KEY_ENV) {
        Some(file) if !file.is_empty() => Some(PathBuf::from(file)),
        _ => dirs::config_dir().map(|dir| dir.join("bench").join("cache.key")),
    }
}

/// Reads the key, or creates it (random, 0600, in a 0700 folder) when there is none. A key
/// file that is a symlink, not this user's, readable by others or of the wrong size is
/// refused.
fn load_or_create_key(file: &Path) -> Result<[u8; KEY_BYTES], String> {
    let shown = file.display();
    match read_key(file) {
        Ok(key) => return Ok(key),
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("cannot read the cache key {shown}: {error}"))
        }
        Err(_) => {}
    }
    if let Some(parent) = file.parent() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)
            .map_err(|error| format!("cannot create {}: {error}", parent.display()))?;
    }
    let mut key = [0u8; KEY_BYTES];
    getrandom::fill(&mut key).map_err(|error| format!("no random source: {error}"))?;
    // Written in full beside the key file (0600), then linked into place only if no key is
    // there: a bench starting at the same time never reads a key half written.
    let created = file
        .parent()
        .map_or_else(
            || tempfile::NamedTempFile::new_in("."),
            tempfile::NamedTempFile::new_in,
        )
        .and_then(|mut staged| {
            staged.write_all(&key)?;
            staged.persist_noclobber(file).map_err(|error| error.error)
        });
    match created {
        Ok(_) => Ok(key),
        // Another bench created it first: use that one.
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            read_key(file).map_err(|error| format!("cannot read the cache key {shown}: {error}"))
        }
        Err(error) => Err(format!("cannot create the cache key {shown}: {error}")),
    }
}

fn read_key(file: &Path) -> std::io::Result<[u8; KEY_BYTES]> {
    let mut opened = File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(file)?;
    let metadata = opened.metadata()?;
    let refuse = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidData, why);
    if !metadata.is_file() {
        return Err(refuse("it is not a file".into()));
    }
    if metadata.uid() != current_uid() {
        return Err(refuse("it belongs to another user".into()));
    }
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(refuse(format!(
            "others may read or write it (mode {mode:o}); make it 0600"
        )));
    }
    let mut key = [0u8; KEY_BYTES];
    let mut extra = [0u8; 1];
    opened.read_exact(&mut key)?;
    if opened.read(&mut extra)? != 0 {
        return Err(refuse(format!("it is not {KEY_BYTES} bytes long")));
    }
    Ok(key)
}

fn current_uid() -> u32 {
    std::fs::metadata("/proc/self").map_or(u32::MAX, |metadata| metadata.uid())
}

/// Reads a file that is not a symlink.
fn read_no_follow(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut file = File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Writes `bytes` to a temporary file beside `path` and renames it over `path` (a symlink
/// there is replaced, never followed).
fn write_replacing(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut staged = tempfile::Builder::new()
        .prefix(".entry-")
        .tempfile_in(dir)?;
    staged.write_all(bytes)?;
    staged.persist(path).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENGINE: EngineBinding = EngineBinding {
        wasmtime: "48.0.8",
        settings: 7,
    };

    fn cache(dir: &Path) -> CompiledCache {
        CompiledCache::open(dir.join("components"), &dir.join("config/cache.key")).unwrap()
    }

    fn verified(lookup: Lookup) -> Vec<u8> {
        match lookup {
            Lookup::Verified(artifact) => artifact,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_entry_is_read_back_only_for_its_component_and_engine() {
        let dir = tempfile::TempDir::new().unwrap();
        let cache = cache(dir.path());
        assert!(matches!(cache.load("aa", &ENGINE), Lookup::Missing));
        cache.store("aa", &ENGINE, b"machine code of aa");
        assert_eq!(verified(cache.load("aa", &ENGINE)), b"machine code of aa");
        let other = EngineBinding {
            settings: 8,
            ..ENGINE
        };
        assert!(matches!(cache.load("aa", &other), Lookup::Missing));
    }

    #[test]
    fn a_swapped_or_changed_entry_is_rejected() {
        let dir = tempfile::TempDir::new().unwrap();
        let cache = cache(dir.path());
        cache.store("aa", &ENGINE, b"machine code of aa");
        cache.store("bb", &ENGINE, b"machine code of bb");
        let (aa, bb) = (
            cache.entry_path("aa", &ENGINE),
            cache.entry_path("bb", &ENGINE),
        );
        std::fs::copy(&aa, &bb).unwrap();
        assert!(matches!(cache.load("bb", &ENGINE), Lookup::Rejected(path) if path == bb));
        let mut changed = std::fs::read(&aa).unwrap();
        *changed.last_mut().unwrap() ^= 1;
        std::fs::write(&aa, changed).unwrap();
        assert!(matches!(cache.load("aa", &ENGINE), Lookup::Rejected(_)));
        std::fs::write(&aa, b"short").unwrap();
        assert!(matches!(cache.load("aa", &ENGINE), Lookup::Rejected(_)));
    }

    #[test]
    fn an_entry_from_another_key_is_rejected() {
        let dir = tempfile::TempDir::new().unwrap();
        let cache = cache(dir.path());
        let elsewhere = CompiledCache::open(
            dir.path().join("components"),
            &dir.path().join("other/cache.key"),
        )
        .unwrap();
        elsewhere.store("aa", &ENGINE, b"foreign code");
        assert!(matches!(cache.load("aa", &ENGINE), Lookup::Rejected(_)));
    }

    #[test]
    fn a_symlinked_entry_is_rejected_and_replaced_not_followed() {
        let dir = tempfile::TempDir::new().unwrap();
        let cache = cache(dir.path());
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep me").unwrap();
        let entry = cache.entry_path("aa", &ENGINE);
        std::fs::create_dir_all(entry.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&victim, &entry).unwrap();
        assert!(matches!(cache.load("aa", &ENGINE), Lookup::Rejected(_)));
        cache.store("aa", &ENGINE, b"code");
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
        assert_eq!(verified(cache.load("aa", &ENGINE)), b"code");
    }

    #[test]
    fn the_key_is_created_private_and_reused() {
        let dir = tempfile::TempDir::new().unwrap();
        let file = dir.path().join("config/bench/cache.key");
        let key = load_or_create_key(&file).unwrap();
        let metadata = std::fs::metadata(&file).unwrap();
        assert_eq!(metadata.permissions().mode() & 0o777, 0o600);
        assert_eq!(metadata.len(), KEY_BYTES as u64);
        assert_eq!(load_or_create_key(&file).unwrap(), key);
    }

    #[test]
    fn bench_processes_starting_together_share_one_whole_key() {
        for _ in 0..20 {
            let dir = tempfile::TempDir::new().unwrap();
            let file = dir.path().join("cache.key");
            let keys: Vec<_> = std::thread::scope(|scope| {
                let starts: Vec<_> = (0..8)
                    .map(|_| scope.spawn(|| load_or_create_key(&file)))
                    .collect();
                starts
                    .into_iter()
                    .map(|start| start.join().unwrap())
                    .collect()
            });
            let first = keys[0].clone().unwrap();
            assert!(
                keys.iter().all(|key| key.as_ref() == Ok(&first)),
                "{keys:?}"
            );
            assert_eq!(
                std::fs::read_dir(dir.path()).unwrap().count(),
                1,
                "no leftovers"
            );
        }
    }

    #[test]
    fn a_key_others_may_read_is_refused() {
        let dir = tempfile::TempDir::new().unwrap();
        let file = dir.path().join("cache.key");
        load_or_create_key(&file).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error = load_or_create_key(&file).unwrap_err();
        assert!(
            error.contains("others may read or write it (mode 644)"),
            "{error}"
        );
        let link = dir.path().join("link.key");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let error = load_or_create_key(&link).unwrap_err();
        assert!(error.starts_with("cannot read the cache key"), "{error}");
    }
}
