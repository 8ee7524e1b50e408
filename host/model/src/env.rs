//! The environment a participant's sandbox sees: its own `requiredEnvVars` and the names the
//! config passes through, with values from the host; nothing else of the host environment,
//! and never bench's own credentials and settings ([`is_reserved`]).

use crate::ceilings::LIMITS;

/// Prefixes of the variables that hold bench's platform credentials and settings.
const RESERVED_PREFIXES: [&str; 2] = ["BENCHMARKS_PLATFORM_", "BENCHSDK_"];

/// Other variables bench reads for itself (besides the ceilings' own, [`LIMITS`]; the
/// `NATS_*` files are a distributed run's credentials and TLS files).
const RESERVED_NAMES: [&str; 12] = [
    "BENCH_CACHE_DIR",
    "BENCH_SDK_DIR",
    "BENCH_WEVAL",
    "BENCHMARK_METRICS_INTERVAL_MS",
    "NATS_CREDS",
    "NATS_NKEY",
    "NATS_CA",
    "NATS_CERT",
    "NATS_KEY",
    "BENCH_CONFIG",
    "BENCH_CACHE_KEY",
    "BENCH_ALLOW_BUILD_SCRIPTS",
];

/// Whether `name` is one of bench's own variables (platform credentials and URL, bench's
/// settings), which no task is ever granted.
pub(crate) fn is_reserved(name: &str) -> bool {
    RESERVED_PREFIXES
        .iter()
        .any(|prefix| name.starts_with(prefix))
        || RESERVED_NAMES.contains(&name)
        || LIMITS.iter().any(|spec| spec.env == name)
}

/// The variables `names` that are set on the host, in order, without duplicates; bench's
/// own variables are left out even if named (the config's validation refuses them first).
pub fn granted_env<'a>(
    names: impl IntoIterator<Item = &'a String>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    let mut granted: Vec<(String, String)> = Vec::new();
    for name in names {
        if is_reserved(name) || granted.iter().any(|(seen, _)| seen == name) {
            continue;
        }
        if let Some(value) = lookup(name) {
            granted.push((name.clone(), value));
        }
    }
    granted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_named_variables_that_are_set_are_granted() {
        let names = ["A".to_owned(), "B".to_owned(), "A".to_owned()];
        let lookup = |name: &str| (name == "A").then(|| "secret".to_owned());
        assert_eq!(
            granted_env(&names, lookup),
            [("A".to_owned(), "secret".to_owned())]
        );
    }

    #[test]
    fn benchs_own_variables_are_reserved_and_never_granted() {
        for name in [
            "BENCHMARKS_PLATFORM_API_KEY",
            "BENCHMARKS_PLATFORM_TOKEN",
            "BENCHMARKS_PLATFORM_URL",
            "BENCHSDK_NO_INGEST",
            "BENCH_CACHE_DIR",
            "BENCH_SDK_DIR",
            "BENCH_WEVAL",
            "BENCHMARK_METRICS_INTERVAL_MS",
            "NATS_CREDS",
            "NATS_KEY",
            "BENCH_CONFIG",
            "BENCH_CACHE_KEY",
            "BENCH_MAX_MEMORY",
            "BENCH_MAX_SANDBOXES",
            "BENCH_DISK_BUDGET",
        ] {
            assert!(is_reserved(name), "{name}");
            assert_eq!(granted_env(&[name.to_owned()], |_| Some("v".into())), []);
        }
        for name in [
            "API_KEY",
            "BENCH_TEST_SECRET",
            "BENCHMARKS_PLATFORM",
            "HOME",
        ] {
            assert!(!is_reserved(name), "{name}");
        }
    }
}
