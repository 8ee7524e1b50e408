//! Where a run came from (spec §4.8): the git commit and ref, what triggered it, and the
//! host that ran it. Collected once when the run starts and kept in `run.json` as
//! `origin`, so `summary.json`'s `run` object can be rebuilt from a saved run.

use super::git_head::{self, GitHead};
use crate::summary_document::SummaryRun;
use bench_model::plan::{Origin, RunManifest};
use std::path::Path;
use std::process::{Command, Stdio};

/// The `origin` of `run.json`, as upstream builds its run metadata:
/// `gitSha = $GITHUB_SHA ?? git rev-parse HEAD`, `gitRef = $GITHUB_REF_NAME ?? $GITHUB_REF ??
/// git rev-parse --abbrev-ref HEAD` (each omitted when git fails), and
/// `triggeredBy = $GITHUB_EVENT_NAME ?? "manual"`. A variable that is set wins even when
/// empty, as JavaScript's `??` does; the repository is read only when a variable is missing.
pub(crate) fn collect(
    env: impl Fn(&str) -> Option<String>,
    git: impl FnOnce() -> GitHead,
) -> Origin {
    let git_sha = env("GITHUB_SHA");
    let git_ref = env("GITHUB_REF_NAME").or_else(|| env("GITHUB_REF"));
    let head = if git_sha.is_none() || git_ref.is_none() {
        git()
    } else {
        GitHead::default()
    };
    Origin {
        git_sha: git_sha.or(head.sha),
        git_ref: git_ref.or(head.abbrev_ref),
        triggered_by: env("GITHUB_EVENT_NAME").unwrap_or_else(|| "manual".into()),
    }
}

/// [`collect`] from this process's environment and the git repository of the current
/// directory (`GIT_DIR` honoured), read from its files; git itself runs only for a
/// repository whose refs this reader does not know (reftable).
pub fn collect_here() -> Origin {
    collect(
        |name| std::env::var(name).ok(),
        || {
            let here = std::env::current_dir().unwrap_or_default();
            let git_dir = std::env::var_os("GIT_DIR").filter(|dir| !dir.is_empty());
            git_head::read(&here, git_dir.as_deref().map(Path::new)).unwrap_or_else(|| GitHead {
                sha: run_git(&["rev-parse", "HEAD"]),
                abbrev_ref: run_git(&["rev-parse", "--abbrev-ref", "HEAD"]),
            })
        },
    )
}

/// The trimmed stdout of a successful `git <args>`; `None` when git is missing or fails.
fn run_git(args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The `run` object of `summary.json`, from `run.json`: upstream's `gitSha`, `gitRef` and
/// `triggeredBy`, then bench's stand-ins for `nodeVersion` (`benchVersion`,
/// `wasmtimeVersion`), and `platform`/`arch` spelled as Node.js spells them (`linux`,
/// `darwin`, `win32`; `x64`, `arm64`).
pub(crate) fn summary_run(manifest: &RunManifest) -> SummaryRun {
    let host = &manifest.host;
    SummaryRun {
        origin: manifest.origin.clone(),
        bench_version: host.bench_version.clone(),
        wasmtime_version: host.wasmtime_version.clone(),
        platform: node_platform(&host.os).to_owned(),
        arch: node_arch(&host.arch).to_owned(),
        interrupted: manifest.interrupted,
    }
}

/// Node.js's `process.platform` for a Rust `std::env::consts::OS`.
fn node_platform(os: &str) -> &str {
    match os {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    }
}

/// Node.js's `process.arch` for a Rust `std::env::consts::ARCH`.
fn node_arch(arch: &str) -> &str {
    match arch {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "x86" => "ia32",
        "powerpc64" => "ppc64",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::plan::test_manifest;
    use serde_json::json;
    use std::collections::HashMap;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.get(name).cloned()
    }

    fn git_at(sha: &'static str, branch: &'static str) -> impl FnOnce() -> GitHead {
        move || GitHead {
            sha: Some(sha.into()),
            abbrev_ref: Some(branch.into()),
        }
    }

    #[test]
    fn github_variables_win_over_git() {
        let origin = collect(
            env(&[
                ("GITHUB_SHA", "abc"),
                ("GITHUB_REF_NAME", "main"),
                ("GITHUB_REF", "refs/heads/main"),
                ("GITHUB_EVENT_NAME", "push"),
            ]),
            git_at("def", "topic"),
        );
        assert_eq!(
            serde_json::to_string(&origin).unwrap(),
            r#"{"gitSha":"abc","gitRef":"main","triggeredBy":"push"}"#
        );
        let origin = collect(
            env(&[("GITHUB_REF", "refs/pull/7/merge")]),
            git_at("d", "t"),
        );
        assert_eq!(origin.git_ref.as_deref(), Some("refs/pull/7/merge"));
    }

    #[test]
    fn the_repository_is_not_read_when_the_variables_say_it_all() {
        let origin = collect(
            env(&[("GITHUB_SHA", "abc"), ("GITHUB_REF", "refs/heads/x")]),
            || panic!("git read although GITHUB_SHA and GITHUB_REF are set"),
        );
        assert_eq!(origin.git_ref.as_deref(), Some("refs/heads/x"));
    }

    #[test]
    fn git_fills_in_and_an_empty_variable_still_wins() {
        let origin = collect(env(&[("GITHUB_SHA", "")]), git_at("def", "topic"));
        assert_eq!(
            origin,
            Origin {
                git_sha: Some(String::new()),
                git_ref: Some("topic".into()),
                triggered_by: "manual".into(),
            }
        );
    }

    #[test]
    fn without_git_the_commit_and_ref_are_omitted() {
        let origin = collect(env(&[]), GitHead::default);
        assert_eq!(
            serde_json::to_string(&origin).unwrap(),
            r#"{"triggeredBy":"manual"}"#
        );
    }

    #[test]
    fn summary_run_adds_the_host_in_node_spelling() {
        let manifest = test_manifest(json!({
            "origin": {"gitSha": "abc", "triggeredBy": "push"},
            "host": {"benchVersion": "0.1.0", "wasmtimeVersion": "48.0.8", "os": "macos", "arch": "aarch64"}
        }));
        assert_eq!(
            serde_json::to_string(&summary_run(&manifest)).unwrap(),
            r#"{"gitSha":"abc","triggeredBy":"push","benchVersion":"0.1.0","wasmtimeVersion":"48.0.8","platform":"darwin","arch":"arm64"}"#
        );
    }

    #[test]
    fn an_interrupted_run_says_so_in_its_summary_run() {
        let manifest = test_manifest(json!({
            "host": {"benchVersion": "0.1.0", "wasmtimeVersion": "48.0.8", "os": "linux", "arch": "x86_64"},
            "interrupted": true
        }));
        assert_eq!(
            serde_json::to_string(&summary_run(&manifest)).unwrap(),
            r#"{"triggeredBy":"manual","benchVersion":"0.1.0","wasmtimeVersion":"48.0.8","platform":"linux","arch":"x64","interrupted":true}"#
        );
    }

    #[test]
    fn a_run_without_origin_was_triggered_manually() {
        let manifest = test_manifest(json!({
            "host": {"benchVersion": "0.1.0", "wasmtimeVersion": "48.0.8", "os": "linux", "arch": "x86_64"}
        }));
        assert_eq!(
            serde_json::to_string(&summary_run(&manifest)).unwrap(),
            r#"{"triggeredBy":"manual","benchVersion":"0.1.0","wasmtimeVersion":"48.0.8","platform":"linux","arch":"x64"}"#
        );
    }
}
