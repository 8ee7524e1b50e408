//! JavaScript and TypeScript task projects: a package whose `main` is the task module
//! (exports `config` and `task`, as a `*.bench.ts` does). esbuild bundles it with the
//! `@bench/task` SDK (TypeScript is transpiled on the way) and componentize-js turns the
//! bundle into a component, compiled ahead of time with weval when it is installed
//! ([`super::weval`]). Both tools are bench's own ([`super::js_toolchain`]) and run
//! contained ([`super::contain`]): esbuild reads only the project (or the task file's
//! folder), the `node_modules` its packages resolve from and the SDK, and every file it
//! bundled is checked to be one of those; a project's dependencies are installed without
//! their install scripts unless the operator allows them.

use super::contain::Containment;
use super::fingerprint::Fingerprint;
use super::js_toolchain::JsToolchain;
use super::progress::BuildProgress;
use super::starlingmonkey::{self, Engine};
use super::weval::JsCompilation;
use super::{build_if_changed, sdk, tool, wit, BuildScripts, Built};
use anyhow::{bail, Context as _, Result};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The componentize-js version task projects use (`--aot` only with a weval binary bench
/// found: componentize-js would download one otherwise).
pub(crate) const COMPONENTIZE_JS_VERSION: &str = "0.23.0";
/// The preview2-shim version task projects list: componentize-js 0.23 imports it when it runs
/// but does not declare it as a dependency, so `npm ci` would leave it out.
pub(crate) const PREVIEW2_SHIM_VERSION: &str = "0.25.0";
/// The esbuild version task projects use.
pub(crate) const ESBUILD_VERSION: &str = "0.25.12";
/// The SDK package's name.
pub(super) const SDK_PACKAGE: &str = "@bench/task";
/// The upstream runner's package: a task module importing it gets the SDK, so a
/// `*.bench.ts` written for upstream bundles unchanged.
const UPSTREAM_PACKAGE: &str = "@benchsdk/runner";

const COMPONENTIZE_JS: &str = "componentize-js";
/// The build step of componentize-js with AOT compilation.
const COMPONENTIZE_JS_AOT: &str = "componentize-js --aot (weval)";
const ESBUILD: &str = "esbuild";
/// The SDK's folder of Node built-in modules (one `.cjs` file each).
const NODE_MODULES_DIR: &str = "src/node";
/// The module of Node globals esbuild injects into a task bundle.
const NODE_GLOBALS: &str = "src/node/globals.js";
/// What the npm `ws` package resolves to: its client over the `WebSocket` global.
const WS_MODULE: &str = "src/web/ws.cjs";

/// Builds a JavaScript/TypeScript task project (installing its npm dependencies first when
/// they are missing) and returns the component's path.
pub(super) fn build(dir: &Path, progress: BuildProgress, scripts: BuildScripts) -> Result<PathBuf> {
    let dir =
        &std::fs::canonicalize(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    let manifest = Manifest::read(dir)?;
    sdk::restore_for(&dir.join("package.json"))?;
    let compilation = JsCompilation::choose(manifest.aot)?;
    if tool::node_package(dir, SDK_PACKAGE).is_none() {
        install_dependencies(dir, progress, scripts)?;
    }
    let sdk = tool::node_package(dir, SDK_PACKAGE).with_context(|| {
        format!(
            "{SDK_PACKAGE} is not installed: add it to the devDependencies of {}/package.json",
            dir.display()
        )
    })?;
    let toolchain = JsToolchain::ensure(progress)?;

    let compilation_key = compilation.build_key();
    let mut inputs: Vec<&str> = wit::contents().collect();
    inputs.push(JsToolchain::build_key());
    inputs.push(&compilation_key);
    inputs.push(starlingmonkey::JANITOR);
    let sources = Fingerprint::of(&[dir, &sdk], inputs)?;
    // The files the last bundle read besides these (modules outside the project, packages).
    let read_before = Fingerprint::files_read_for(&super::component_path(dir));
    let fingerprint = sources.clone().and_files(read_before);
    build_if_changed(dir, &fingerprint, |staging| {
        let bundle = bundle(dir, &manifest.entry, &sdk, staging, &toolchain, progress)?;
        Ok(Built {
            component: componentize_bundle(&bundle, staging, &toolchain, &compilation, progress)?,
            // Read again now: a change during the build shows at the next one.
            fingerprint: sources.and_files(bundle.read),
        })
    })
}

/// An esbuild bundle of the task module and the files it was made from.
struct Bundle {
    file: PathBuf,
    /// Every file esbuild read (the staging entry module left out).
    read: Vec<PathBuf>,
}

/// Bundles the task module with esbuild. Its imports resolve from where it is, packages
/// also from the `node_modules` the project has the SDK in (so a task module outside the
/// project still finds the SDK); `@benchsdk/runner` is the SDK. esbuild may read only
/// [`readable_roots`], and a bundle of anything else is refused.
fn bundle(
    dir: &Path,
    entry: &Path,
    sdk: &Path,
    staging: &Path,
    toolchain: &JsToolchain,
    progress: BuildProgress,
) -> Result<Bundle> {
    let shim = staging.join("entry.js");
    std::fs::write(&shim, entry_shim(entry))?;
    let file = staging.join("bundle.js");
    let metafile = staging.join("meta.json");
    let esbuild = toolchain.esbuild()?;
    let roots = readable_roots(dir, entry, sdk);
    let mut containment = Containment::writing_in(staging);
    for root in roots.iter().map(PathBuf::as_path).chain(esbuild.parent()) {
        containment = containment.reading(root);
    }
    let mut bundler = containment.command(&esbuild, dir)?;
    bundler.args(esbuild_arguments(&shim, sdk, &file, &metafile)?);
    if let Some(modules) = tool::node_modules_with(dir, SDK_PACKAGE) {
        bundler.env("NODE_PATH", modules);
    }
    tool::run(bundler, dir, ESBUILD, "npm install", progress).context(
        "a build reads only the task's project (or the task file's folder), the node_modules \
         its packages resolve from and bench's SDK",
    )?;
    let read: Vec<PathBuf> = files_in_metafile(dir, &metafile)?
        .into_iter()
        .filter(|file| !file.starts_with(staging))
        .collect();
    if let Some(outside) = read
        .iter()
        .find(|file| !roots.iter().any(|root| file.starts_with(root)))
    {
        bail!(
            "the task imports {}, which a build may not read: bench bundles only the task's \
             project ({}) or the task file's folder, the node_modules its packages resolve \
             from and bench's SDK (copy the file into the project)",
            outside.display(),
            dir.display()
        );
    }
    Ok(Bundle { file, read })
}

/// esbuild's arguments for bundling `shim` (the entry module) into `outfile`: one ES module
/// for componentize-js with the host's interfaces left as imports; packages resolved as Node
/// resolves them (the `node` export condition, `main` before `module`), so SDKs take their
/// Node code paths; Node's built-in modules, bare and `node:`, from the SDK's `src/node/`
/// for the task and every package it imports (and the npm `ws` package from `src/web/ws.cjs`:
/// its Node code needs sockets); the Node globals (`Buffer`, `process`,
/// `setImmediate`…) injected into the modules that name them; the module's own location
/// (`import.meta.url`, `__dirname`) is `/task.js`, as the engine has none to give.
fn esbuild_arguments(
    shim: &Path,
    sdk: &Path,
    outfile: &Path,
    metafile: &Path,
) -> Result<Vec<OsString>> {
    let mut arguments: Vec<OsString> = [
        "--bundle",
        "--format=esm",
        "--platform=neutral",
        "--conditions=node",
        "--main-fields=main,module",
        "--target=es2022",
        "--external:bench:*",
        "--external:wasi:*",
        "--define:global=globalThis",
        "--define:import.meta.url=\"file:///task.js\"",
        "--define:import.meta.filename=\"/task.js\"",
        "--define:import.meta.dirname=\"/\"",
        "--define:__filename=\"/task.js\"",
        "--define:__dirname=\"/\"",
        "--log-level=warning",
    ]
    .map(OsString::from)
    .into();
    arguments.insert(0, shim.into());
    let mut flag = |name: &str, value: &OsStr| {
        let mut flag = OsString::from(name);
        flag.push(value);
        arguments.push(flag);
    };
    flag("--outfile=", outfile.as_os_str());
    flag("--metafile=", metafile.as_os_str());
    flag(
        &format!("--alias:{UPSTREAM_PACKAGE}="),
        SDK_PACKAGE.as_ref(),
    );
    for (name, file) in node_modules_of(sdk)? {
        flag(&format!("--alias:{name}="), file.as_os_str());
        flag(&format!("--alias:node:{name}="), file.as_os_str());
    }
    flag("--alias:ws=", sdk.join(WS_MODULE).as_os_str());
    flag("--inject:", sdk.join(NODE_GLOBALS).as_os_str());
    Ok(arguments)
}

/// The SDK's Node built-in modules: each `src/node/<name>.cjs` (`fs/promises` from
/// `src/node/fs/promises.cjs`; `internal/` holds what they share) and its file.
fn node_modules_of(sdk: &Path) -> Result<Vec<(String, PathBuf)>> {
    let root = sdk.join(NODE_MODULES_DIR);
    let mut modules = Vec::new();
    let mut folders = vec![root.clone()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder).with_context(|| {
            format!("cannot read the SDK's Node modules in {}", folder.display())
        })?;
        for entry in entries {
            let path = entry?.path();
            let relative = path.strip_prefix(&root)?;
            if path.is_dir() && relative != Path::new("internal") {
                folders.push(path);
            } else if path.extension() == Some("cjs".as_ref()) {
                let name = relative.with_extension("");
                let name = name
                    .components()
                    .map(|part| part.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>();
                modules.push((name.join("/"), path));
            }
        }
    }
    modules.sort();
    Ok(modules)
}

/// What esbuild may read for a task module `entry` of the project `dir`: the project, the
/// module's folder, every `node_modules` above either (and the packages they link to, as
/// workspaces do) and the SDK; canonical.
fn readable_roots(dir: &Path, entry: &Path, sdk: &Path) -> Vec<PathBuf> {
    let mut roots = vec![dir.to_owned()];
    roots.extend(entry.parent().map(Path::to_owned));
    for base in roots.clone() {
        for modules in base
            .ancestors()
            .map(|ancestor| ancestor.join("node_modules"))
        {
            if modules.is_dir() {
                roots.extend(linked_packages(&modules));
                roots.push(modules);
            }
        }
    }
    roots.push(sdk.to_owned());
    let mut roots: Vec<PathBuf> = roots
        .into_iter()
        .filter_map(|root| std::fs::canonicalize(root).ok())
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

/// The targets of the packages of `modules` that are symlinks (workspace and `file:`
/// packages), scoped ones included.
fn linked_packages(modules: &Path) -> Vec<PathBuf> {
    let entries = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .collect()
    };
    let mut linked = Vec::new();
    for entry in entries(modules) {
        let scoped = entry
            .file_name()
            .is_some_and(|name| name.to_string_lossy().starts_with('@'));
        let packages = if scoped { entries(&entry) } else { vec![entry] };
        linked.extend(
            packages
                .into_iter()
                .filter(|package| package.is_symlink())
                .filter_map(|package| std::fs::canonicalize(package).ok()),
        );
    }
    linked
}

/// The input files an esbuild metafile lists (its paths are relative to `dir`, where esbuild
/// ran), canonical.
fn files_in_metafile(dir: &Path, metafile: &Path) -> Result<Vec<PathBuf>> {
    let text = std::fs::read_to_string(metafile)
        .with_context(|| format!("esbuild wrote no {}", metafile.display()))?;
    let meta: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not valid JSON", metafile.display()))?;
    let mut files: Vec<PathBuf> = meta["inputs"]
        .as_object()
        .into_iter()
        .flat_map(|inputs| inputs.keys())
        .filter_map(|input| std::fs::canonicalize(dir.join(input)).ok())
        .filter(|file| file.is_file())
        .collect();
    files.sort();
    files.dedup();
    Ok(files)
}

/// Turns the bundle into the task component with componentize-js, run from the staging
/// folder (which its pre-initialisation sees as `/`), contained to writing there.
fn componentize_bundle(
    bundle: &Bundle,
    staging: &Path,
    toolchain: &JsToolchain,
    compilation: &JsCompilation,
    progress: BuildProgress,
) -> Result<PathBuf> {
    let wit_dir = staging.join("wit");
    wit::write(&wit_dir)?;
    let component = staging.join("task.wasm");
    make_wizer_cache_dir();
    let mut componentizer = Containment::writing_in(staging)
        .reading("/")
        .command("node", staging)?;
    componentizer
        .arg(toolchain.componentize_js())
        .arg(&bundle.file)
        .arg("--wit")
        .arg(&wit_dir)
        .args(["--world-name", wit::JS_WORLD, "-o"])
        .arg(&component);
    let aot = matches!(compilation, JsCompilation::Aot(_));
    match starlingmonkey::engine(&toolchain.componentize_js_package(), aot, staging)? {
        Engine::Fixed(engine) => {
            componentizer.arg("--engine").arg(engine);
        }
        Engine::AsShipped(note) => progress.note(&note),
    }
    let step = match compilation {
        JsCompilation::Aot(weval) => {
            componentizer.arg("--aot").arg("--weval-bin").arg(weval);
            COMPONENTIZE_JS_AOT
        }
        JsCompilation::Interpreted(_) => COMPONENTIZE_JS,
    };
    if let Some(note) = compilation.note() {
        progress.note(&note);
    }
    tool::run(componentizer, staging, step, "install Node.js", progress)?;
    Ok(component)
}

/// componentize-js starts wizer with an empty environment, so wizer's wasmtime opens its
/// cache in the home directory (`~/.cache/wasmtime`), and fails when the directory is
/// missing, since a contained tool may create nothing there. bench makes it (empty)
/// beforehand; the tool still may not write in it, so wasmtime just does not cache. A
/// failure shows as wizer's own error.
fn make_wizer_cache_dir() {
    if let Some(home) = dirs::home_dir() {
        let _ = std::fs::create_dir_all(home.join(".cache").join("wasmtime"));
    }
}

/// The module esbuild starts from: it imports the task module and exports the world's
/// `config` and `run` made by the SDK. The SDK's module comes first, so what it installs
/// (its `fetch`) is in place before any module of the task runs.
fn entry_shim(entry: &Path) -> String {
    let entry = serde_json::to_string(&entry.to_string_lossy()).expect("a string serializes");
    format!(
        "import {{ exportTask }} from \"{SDK_PACKAGE}/component\";\n\
         import * as task from {entry};\n\
         const exported = exportTask(task);\n\
         export function config() {{ return exported.config(); }}\n\
         export function run(input) {{ return exported.run(input); }}\n"
    )
}

/// What bench reads from a project's package.json.
#[derive(Debug)]
struct Manifest {
    /// The task module: `main`.
    entry: PathBuf,
    /// Whether the task may be compiled ahead of time: `"bench": { "aot": false }` turns
    /// it off (default on).
    aot: bool,
}

impl Manifest {
    fn read(dir: &Path) -> Result<Self> {
        let manifest = dir.join("package.json");
        let text = std::fs::read_to_string(&manifest)
            .with_context(|| format!("cannot read {}", manifest.display()))?;
        let package: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not valid JSON", manifest.display()))?;
        let Some(main) = package["main"].as_str() else {
            bail!(
                "{} has no \"main\": set it to the task module (e.g. \"task.bench.ts\")",
                manifest.display()
            );
        };
        let entry = dir.join(main);
        if !entry.is_file() {
            bail!(
                "the task module {} (\"main\" of package.json) does not exist",
                entry.display()
            );
        }
        let aot = match &package["bench"]["aot"] {
            serde_json::Value::Null => true,
            serde_json::Value::Bool(aot) => *aot,
            other => bail!(
                "\"bench\": {{ \"aot\": {other} }} in {} must be true or false",
                manifest.display()
            ),
        };
        Ok(Self { entry, aot })
    }
}

/// `npm ci` when the project has a lockfile, else `npm install`; the packages' install
/// scripts (and the project's own) run only when the operator allows them.
fn install_dependencies(dir: &Path, progress: BuildProgress, scripts: BuildScripts) -> Result<()> {
    let subcommand = if dir.join("package-lock.json").is_file() {
        "ci"
    } else {
        "install"
    };
    let mut npm = Command::new("npm");
    npm.args([subcommand, "--no-audit", "--no-fund"]);
    if scripts == BuildScripts::Ignored {
        npm.arg("--ignore-scripts");
    }
    tool::run(
        npm,
        dir,
        &format!("npm {subcommand}"),
        "install Node.js and npm",
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_shim_exports_config_and_run() {
        let shim = entry_shim(Path::new("/p/task \"a\".bench.ts"));
        assert!(shim.starts_with("import { exportTask } from \"@bench/task/component\";\n"));
        assert!(shim.contains("import * as task from \"/p/task \\\"a\\\".bench.ts\";\n"));
        assert!(shim.contains("export function config()"));
        assert!(shim.contains("export function run(input)"));
    }

    #[test]
    fn the_examples_use_the_toolchain_versions_of_new_projects() {
        for example in [
            "js-hello",
            "ts-hello",
            "js-http",
            "../tests/guests-js/errors",
            "../tests/guests-js/aot",
            "../tests/guests-js/fetch",
            "../tests/guests-js/node",
            "../tests/guests-js/sdks",
        ] {
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../examples")
                .join(example)
                .join("package.json");
            let package: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(manifest).unwrap()).unwrap();
            let dependencies = &package["devDependencies"];
            assert_eq!(
                dependencies["@bytecodealliance/componentize-js"], COMPONENTIZE_JS_VERSION,
                "{example}"
            );
            assert_eq!(dependencies[ESBUILD], ESBUILD_VERSION, "{example}");
            assert_eq!(
                dependencies["@bytecodealliance/preview2-shim"], PREVIEW2_SHIM_VERSION,
                "{example}"
            );
        }
    }

    #[test]
    fn node_s_built_in_modules_resolve_to_the_sdk_s_for_every_package() {
        let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../guest-sdk/js");
        let arguments = esbuild_arguments(
            Path::new("/s/entry.js"),
            &sdk,
            Path::new("/s/bundle.js"),
            Path::new("/s/meta.json"),
        )
        .unwrap();
        let arguments: Vec<String> = arguments
            .iter()
            .map(|argument| argument.to_string_lossy().into_owned())
            .collect();
        let node = sdk.join(NODE_MODULES_DIR);
        for name in ["fs", "fs/promises", "stream/web", "http", "crypto", "zlib"] {
            let file = node.join(format!("{name}.cjs"));
            for alias in [name.to_owned(), format!("node:{name}")] {
                let expected = format!("--alias:{alias}={}", file.display());
                assert!(arguments.contains(&expected), "{expected} in {arguments:?}");
            }
        }
        assert!(
            !arguments
                .iter()
                .any(|argument| argument.contains("internal")),
            "{arguments:?}"
        );
        assert!(arguments.contains(&"--conditions=node".to_owned()));
        let globals = format!("--inject:{}", sdk.join(NODE_GLOBALS).display());
        assert!(arguments.contains(&globals), "{arguments:?}");
        let ws = format!("--alias:ws={}", sdk.join(WS_MODULE).display());
        assert!(arguments.contains(&ws), "{arguments:?}");
        assert_eq!(arguments[0], "/s/entry.js");
    }

    #[test]
    fn a_package_without_main_is_explained() {
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(dir.path().join("package.json"), "{}").unwrap();
        let error = Manifest::read(dir.path()).unwrap_err().to_string();
        assert!(error.contains("has no \"main\""), "{error}");
    }

    #[test]
    fn the_aot_option_is_on_unless_the_package_turns_it_off() {
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(dir.path().join("t.js"), "").unwrap();
        let read = |package: &str| {
            std::fs::write(dir.path().join("package.json"), package).unwrap();
            Manifest::read(dir.path())
        };
        assert!(read(r#"{"main": "t.js"}"#).unwrap().aot);
        assert!(
            read(r#"{"main": "t.js", "bench": {"aot": true}}"#)
                .unwrap()
                .aot
        );
        assert!(
            !read(r#"{"main": "t.js", "bench": {"aot": false}}"#)
                .unwrap()
                .aot
        );
        let error = read(r#"{"main": "t.js", "bench": {"aot": "no"}}"#)
            .unwrap_err()
            .to_string();
        assert!(error.contains("must be true or false"), "{error}");
        assert!(error.contains(r#""aot": "no""#), "{error}");
    }
}
