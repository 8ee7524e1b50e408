//! Path components bench derives from text a task's config controls (the benchmark slug, the
//! participant names): each is one file-name-safe component of bounded length, distinct for
//! distinct texts, so a config cannot write outside the results directory or make two
//! participants share a log.

use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// Where runs are written unless `--out` names a directory.
const DEFAULT_RESULTS_ROOT: &str = "bench-results";

/// Longest text kept as it is; longer texts are shortened and get a hash.
const MAX_PLAIN_BYTES: usize = 64;

/// Longest sanitised prefix before the hash.
const MAX_PREFIX_BYTES: usize = 48;

/// Hex digits of the SHA-256 hash that tells sanitised texts apart (64 bits).
const HASH_HEX_DIGITS: usize = 16;

/// Separates a sanitised prefix from its hash; never part of a text kept as it is, so a
/// hashed component cannot equal a plain one.
const HASH_SEPARATOR: char = '~';

/// The default results directory of a run: `bench-results/<slug component>/<run id>`.
pub fn results_dir(benchmark_slug: &str, run_id: &str) -> PathBuf {
    PathBuf::from(DEFAULT_RESULTS_ROOT)
        .join(safe_component(benchmark_slug))
        .join(safe_component(run_id))
}

/// `text` as one file-name-safe path component. A text of ASCII letters, digits, `.`, `_`
/// and `-` that does not start with `.` and has at most 64 bytes is kept as it is; any other
/// becomes its sanitised prefix (other characters as `_`, leading `.`, `_`, `-` removed, at
/// most 48 bytes), `~` and 16 hex digits of its SHA-256.
pub(crate) fn safe_component(text: &str) -> String {
    let plain = !text.is_empty()
        && text.len() <= MAX_PLAIN_BYTES
        && !text.starts_with('.')
        && text.chars().all(is_plain);
    if plain {
        return text.to_owned();
    }
    let sanitised: String = text
        .chars()
        .map(|c| if is_plain(c) { c } else { '_' })
        .collect();
    let mut prefix = sanitised.trim_start_matches(['.', '_', '-']).to_owned();
    prefix.truncate(MAX_PREFIX_BYTES);
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    format!("{prefix}{HASH_SEPARATOR}{}", &hash[..HASH_HEX_DIGITS])
}

fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Component, Path};

    fn is_one_normal_component(name: &str) -> bool {
        let mut components = Path::new(name).components();
        matches!(components.next(), Some(Component::Normal(_))) && components.next().is_none()
    }

    #[test]
    fn ordinary_names_are_kept_as_they_are() {
        for name in ["alpha", "my-bench_2", "E2B", "v1.2", "a-b.c_d"] {
            assert_eq!(safe_component(name), name);
        }
        assert_eq!(safe_component(&"a".repeat(64)), "a".repeat(64));
    }

    #[test]
    fn separators_dots_and_controls_become_one_hashed_component() {
        let cases = [
            "../../escaped-slug",
            "/elsewhere/abs",
            "..",
            ".",
            ".hidden",
            "a/b",
            "a\\b",
            "",
            "esc\u{1b}]0;title\u{7}",
            "naïve",
        ];
        for text in cases {
            let name = safe_component(text);
            assert!(is_one_normal_component(&name), "{text:?} gave {name:?}");
            assert!(name.chars().all(|c| is_plain(c) || c == HASH_SEPARATOR));
            assert!(!name.starts_with('.'), "{name}");
            assert!(name.len() <= MAX_PREFIX_BYTES + 1 + HASH_HEX_DIGITS);
        }
        let escaped = safe_component("../../escaped-slug");
        assert!(escaped.starts_with("escaped-slug~"), "{escaped}");
        assert_eq!(escaped.len(), "escaped-slug~".len() + HASH_HEX_DIGITS);
        assert!(safe_component("/elsewhere/abs").starts_with("elsewhere_abs~"));
    }

    #[test]
    fn texts_that_sanitise_alike_get_distinct_names() {
        let names = ["a/b", "a_b", "a\\b", "a b", "a_b~0000000000000000"];
        let components: std::collections::HashSet<String> =
            names.iter().map(|name| safe_component(name)).collect();
        assert_eq!(components.len(), names.len(), "{components:?}");
        assert_eq!(safe_component("a_b"), "a_b");
    }

    #[test]
    fn long_names_are_bounded_and_distinct() {
        let long = "n".repeat(300);
        let longer = "n".repeat(301);
        let name = safe_component(&long);
        assert_eq!(name.len(), MAX_PREFIX_BYTES + 1 + HASH_HEX_DIGITS);
        assert_ne!(name, safe_component(&longer));
    }

    #[test]
    fn the_default_results_dir_stays_under_bench_results() {
        let dir = results_dir("../../escaped-slug", "20260101T000000Z-0001");
        let components: Vec<Component> = dir.components().collect();
        assert_eq!(components.len(), 3, "{}", dir.display());
        assert!(components
            .iter()
            .all(|component| matches!(component, Component::Normal(_))));
        assert!(dir.starts_with(DEFAULT_RESULTS_ROOT));
        assert_eq!(
            results_dir("my-bench", "20260101T000000Z-0001"),
            Path::new("bench-results/my-bench/20260101T000000Z-0001")
        );
    }
}
