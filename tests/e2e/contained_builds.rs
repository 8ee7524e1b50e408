//! End-to-end: a task's build cannot reach past its own files. esbuild reads only the task's
//! project or file's folder and its packages (a host file imported is refused, never
//! bundled); npm installs a project's dependencies without install scripts unless the
//! operator allows them; bench builds with its own toolchain, never a binary the project
//! ships; a Python task's build-time code cannot write into bench's SDK cache, the
//! site-packages or the project, and the next task built is untouched.

use crate::support::bench::{run_bench, Run};
use crate::support::guests::{ensure_js_toolchain, ensure_python_toolchain};
use crate::support::results::records;
use crate::support::root;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};
use tempfile::TempDir;

/// A JavaScript task module whose config is named `name`; `imports` go on top.
fn js_task(name: &str, imports: &str, data: &str) -> String {
    format!(
        "{imports}\n\
         import {{ defineBenchmarkConfig, defineTask }} from '@bench/task';\n\
         export const config = defineBenchmarkConfig({{\n  \
           benchmarkSlug: 'contained', benchmarkName: '{name}',\n  \
           participants: [{{ name: 'p', requiredEnvVars: [] }}], iterations: 1,\n\
         }});\n\
         export const task = defineTask(async () => ({{ data: {data} }}));\n"
    )
}

/// Runs `bench run <task> --out results` in `dir` and returns the run and its records.
fn run_task(dir: &Path, task: &Path, extra: &[&str]) -> (Run, Vec<serde_json::Value>) {
    let mut args = vec!["run", task.to_str().unwrap(), "--out", "results"];
    args.extend_from_slice(extra);
    let run = run_bench(dir, &args);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let records = records(&dir.join("results"));
    (run, records)
}

#[test]
fn a_host_file_imported_by_a_task_is_refused_and_never_bundled() {
    ensure_js_toolchain();
    let dir = TempDir::new().unwrap();
    let secret_dir = dir.path().join("elsewhere");
    std::fs::create_dir(&secret_dir).unwrap();
    let secret = secret_dir.join("secret.json");
    std::fs::write(&secret, "{\"token\": \"host-secret-4e1f\"}").unwrap();
    let tasks = dir.path().join("tasks");
    std::fs::create_dir(&tasks).unwrap();
    let thief = tasks.join("thief.bench.js");
    let import = format!("import stolen from {:?};", secret.display().to_string());
    std::fs::write(&thief, js_task("Thief", &import, "stolen")).unwrap();
    let run = run_bench(&tasks, &["build", thief.to_str().unwrap()]);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(&secret.display().to_string()),
        "the refusal names the file: {}",
        run.stderr
    );
    assert!(!run.stdout.contains("host-secret") && !run.stderr.contains("host-secret"));

    // A task in the same folder importing a module beside it builds and runs.
    std::fs::write(tasks.join("helper.js"), "export const answer = 42;\n").unwrap();
    let honest = tasks.join("honest.bench.js");
    let import = "import { answer } from './helper.js';";
    std::fs::write(&honest, js_task("Honest", import, "{ answer }")).unwrap();
    let (_, records) = run_task(&tasks, &honest, &[]);
    assert_eq!(records[0]["status"], "success");
    assert_eq!(records[0]["data"]["answer"], 42);
}

/// A JavaScript task project in `dir` whose install scripts touch `marker` (none of its
/// dependencies installed yet).
fn project_with_scripts(dir: &Path, marker: &Path) -> PathBuf {
    let project = dir.join("scripted");
    std::fs::create_dir_all(&project).unwrap();
    let package = serde_json::json!({
        "name": "scripted",
        "private": true,
        "type": "module",
        "main": "task.bench.js",
        "scripts": {
            "preinstall": format!("touch {}", marker.display()),
            "postinstall": format!("touch {}", marker.display()),
        },
        "devDependencies": {
            "@bench/task": format!("file:{}", root().join("guest-sdk/js").display()),
        },
    });
    std::fs::write(project.join("package.json"), format!("{package:#}")).unwrap();
    std::fs::write(project.join("task.bench.js"), js_task("Scripted", "", "{}")).unwrap();
    project
}

#[test]
fn install_scripts_run_only_when_the_operator_allows_them() {
    ensure_js_toolchain();
    let dir = TempDir::new().unwrap();
    let marker = dir.path().join("script-ran");
    let project = project_with_scripts(dir.path(), &marker);
    let (run, records) = run_task(dir.path(), &project, &[]);
    assert_eq!(records[0]["status"], "success", "{}", run.stdout);
    assert!(
        !marker.exists(),
        "a preinstall script ran without the operator's consent"
    );
    assert!(project.join("node_modules/@bench/task").exists());

    std::fs::remove_dir_all(project.join("node_modules")).unwrap();
    let build = run_bench(
        dir.path(),
        &["build", project.to_str().unwrap(), "--allow-build-scripts"],
    );
    assert_eq!(build.code, Some(0), "{}", build.stderr);
    assert!(marker.exists(), "--allow-build-scripts runs them");
}

#[test]
fn bench_never_runs_a_toolchain_binary_the_project_ships() {
    ensure_js_toolchain();
    let dir = TempDir::new().unwrap();
    let marker = dir.path().join("planted-binary-ran");
    let project = project_with_scripts(dir.path(), &dir.path().join("unused"));
    let modules = project.join("node_modules");
    std::fs::create_dir_all(modules.join(".bin")).unwrap();
    std::fs::create_dir_all(modules.join("@bench")).unwrap();
    std::os::unix::fs::symlink(root().join("guest-sdk/js"), modules.join("@bench/task")).unwrap();
    for tool in ["esbuild", "componentize-js", "npm", "node"] {
        let planted = modules.join(".bin").join(tool);
        std::fs::write(
            &planted,
            format!("#!/bin/sh\ntouch {}\nexit 1\n", marker.display()),
        )
        .unwrap();
        std::fs::set_permissions(
            &planted,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
    }
    let (_, records) = run_task(dir.path(), &project, &[]);
    assert_eq!(records[0]["status"], "success");
    assert!(
        !marker.exists(),
        "a binary of the project's node_modules ran"
    );
}

/// The site-packages folders the Python on PATH uses.
fn site_packages() -> Vec<PathBuf> {
    let output = Command::new("python3")
        .args([
            "-c",
            "import site; print('\\n'.join(site.getsitepackages() + [site.getusersitepackages()]))",
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(PathBuf::from)
        .collect()
}

/// A Python task whose top-level code tries to plant a file in every folder of its path and
/// to hook the SDK, and says in its benchmark name what it managed.
const PYTHON_PLANTER: &str = r#"import os, sys
wrote = []
for folder in sys.path:
    for name in ("planted.txt", os.path.join("bench_task", "__init__.py")):
        path = os.path.join(folder, name)
        if name != "planted.txt" and not os.path.exists(path):
            continue
        try:
            with open(path, "a") as f:
                f.write("\nCONFIG_HOOK = 'hooked'\n")
            wrote.append(path)
        except OSError:
            pass
from bench_task import task
@task({"benchmarkSlug": "planter", "benchmarkName": "wrote " + (", ".join(wrote) or "nothing"), "participants": [{"name": "p"}], "iterations": 1})
def run(ctx):
    return {}
"#;

/// Every `bench_task` file of the SDKs unpacked in the tests' cache that was written since
/// `start` (unpacked by this bench, or changed by a build) holds what the repository's SDK
/// does. SDKs unpacked earlier by other bench builds hold their own versions and are not
/// looked at unless something wrote to them.
fn assert_sdk_as_shipped(start: SystemTime) {
    let shipped = root().join("guest-sdk/python/bench_task");
    let unpacked = root().join("target/bench-cache/sdk");
    for version in std::fs::read_dir(unpacked).unwrap() {
        let package = version.unwrap().path().join("guest-sdk/python/bench_task");
        for file in std::fs::read_dir(&package).into_iter().flatten() {
            let file = file.unwrap().path();
            let original = shipped.join(file.file_name().unwrap());
            let written_since_start = std::fs::metadata(&file)
                .and_then(|metadata| metadata.modified())
                .is_ok_and(|modified| modified >= start);
            if written_since_start && file.is_file() && original.is_file() {
                assert_eq!(
                    std::fs::read(&file).unwrap(),
                    std::fs::read(&original).unwrap(),
                    "{} changed",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn python_build_time_code_cannot_write_to_the_sdk_the_site_packages_or_the_project() {
    ensure_python_toolchain();
    // Whole seconds: a file system may keep coarser modification times than the clock.
    let start = SystemTime::now() - Duration::from_secs(1);
    let dir = TempDir::new().unwrap();
    let planter = dir.path().join("planter");
    std::fs::create_dir(&planter).unwrap();
    std::fs::write(planter.join("app.py"), PYTHON_PLANTER).unwrap();
    let check = run_bench(dir.path(), &["check", planter.to_str().unwrap()]);
    assert_eq!(check.code, Some(0), "{}", check.stderr);
    let name = check
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("Benchmark: wrote "))
        .unwrap_or_else(|| panic!("{}", check.stdout));
    // The Python path's own folders are mounted as /0, /1…: the build's shim, the project,
    // the SDK and the site-packages. Only componentize-py's private copies take writes.
    for written in name.trim_end_matches(" (planter)").split(", ") {
        assert!(
            written == "nothing"
                || ["/python/", "/world/", "/bundled/"]
                    .iter()
                    .any(|private| written.starts_with(private)),
            "the task's build-time code wrote {written}: {name}"
        );
    }
    assert!(
        !planter.join("planted.txt").exists(),
        "the project was written"
    );
    for folder in site_packages() {
        assert!(
            !folder.join("planted.txt").exists(),
            "{} was written",
            folder.display()
        );
    }
    assert_sdk_as_shipped(start);

    // The next author's task, built afterwards, gets the SDK as bench shipped it.
    let next = dir.path().join("next");
    std::fs::create_dir(&next).unwrap();
    std::fs::write(
        next.join("app.py"),
        "from bench_task import task\n\
         import bench_task\n\
         @task({\"benchmarkSlug\": \"next\", \"benchmarkName\": \"Next \" + str(hasattr(bench_task, 'CONFIG_HOOK')), \"participants\": [{\"name\": \"p\"}], \"iterations\": 1})\n\
         def run(ctx):\n    return {}\n",
    )
    .unwrap();
    let (run, records) = run_task(dir.path(), &next, &[]);
    assert!(run.stdout.starts_with("Next False"), "{}", run.stdout);
    assert_eq!(records[0]["status"], "success");
    assert_sdk_as_shipped(start);
}
