//! Build steps that handle task code run contained. bench starts the tool through itself
//! (`bench __contained --read P --write P -- tool args…`), and that process restricts itself
//! with Landlock before it executes the tool: the tool may write only in the build's
//! staging folder, read only what the step allows, and open no TCP connection. Its
//! environment holds only what the tool needs (`PATH`, `HOME`, the locale, the Python
//! environment that finds its packages, `TMPDIR` in the staging folder): never bench's own
//! variables or a participant's secrets. Where the kernel has no Landlock, the tool runs
//! with that environment only, and a note says the build is not confined.

use anyhow::{bail, Context as _, Result};
use landlock::{
    Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};
use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The hidden command of the contained process.
pub(crate) const CONTAINED: &str = "__contained";

/// The Landlock ABI bench's rules are written for (newer kernels apply them as they are,
/// older ones apply what they know).
const RULES_ABI: ABI = ABI::V6;

/// Variables a build tool keeps from bench's environment.
const KEPT_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "VIRTUAL_ENV",
    "PYENV_ROOT",
    "PYENV_VERSION",
];

/// Files every tool may write (its output goes to the staging folder).
const WRITABLE_DEVICES: &[&str] = &["/dev/null"];

/// What a contained tool may read and write.
#[derive(Debug, Clone, Default)]
pub(super) struct Containment {
    reads: Vec<PathBuf>,
    writes: Vec<PathBuf>,
}

impl Containment {
    /// A tool that writes only in `staging` (its `TMPDIR` is `staging/tmp`).
    pub(super) fn writing_in(staging: &Path) -> Self {
        Self {
            reads: Vec::new(),
            writes: vec![staging.to_owned()],
        }
    }

    /// It may also read (and execute) what is under `path`.
    pub(super) fn reading(mut self, path: impl Into<PathBuf>) -> Self {
        self.reads.push(path.into());
        self
    }

    /// The command that runs `program` contained, in `dir`.
    pub(super) fn command(&self, program: impl AsRef<OsStr>, dir: &Path) -> Result<Command> {
        let staging = self
            .writes
            .first()
            .context("a contained tool writes somewhere")?;
        let tmp = staging.join("tmp");
        std::fs::create_dir_all(&tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        let mut command = Command::new(std::env::current_exe()?);
        command.arg(CONTAINED);
        for read in &self.reads {
            command.arg("--read").arg(read);
        }
        for write in self
            .writes
            .iter()
            .map(PathBuf::as_path)
            .chain(WRITABLE_DEVICES.iter().map(Path::new))
        {
            command.arg("--write").arg(write);
        }
        command.arg("--").arg(program).current_dir(dir).env_clear();
        for name in KEPT_ENV {
            if let Some(value) = std::env::var_os(name) {
                command.env(name, value);
            }
        }
        command.env("TMPDIR", tmp);
        Ok(command)
    }
}

/// The contained process (`bench __contained …`): restricts itself, then becomes the tool.
/// Returns only when that fails.
pub(crate) fn exec_contained(args: &[OsString]) -> ExitCode {
    let error = match Rules::parse(args).and_then(|rules| rules.exec()) {
        Ok(never) => match never {},
        Err(error) => error,
    };
    eprintln!("error: cannot start a contained build tool: {error:#}");
    ExitCode::FAILURE
}

/// The parsed words of the contained process.
#[derive(Debug, Default, PartialEq, Eq)]
struct Rules {
    reads: Vec<PathBuf>,
    writes: Vec<PathBuf>,
    program: Vec<OsString>,
}

impl Rules {
    fn parse(args: &[OsString]) -> Result<Self> {
        let mut rules = Self::default();
        let mut words = args.iter();
        while let Some(word) = words.next() {
            let list = match word.to_str() {
                Some("--read") => &mut rules.reads,
                Some("--write") => &mut rules.writes,
                Some("--") => {
                    rules.program = words.cloned().collect();
                    break;
                }
                _ => bail!("unexpected word {}", word.to_string_lossy()),
            };
            list.push(PathBuf::from(
                words.next().context("a path after --read or --write")?,
            ));
        }
        if rules.program.is_empty() {
            bail!("no tool to run");
        }
        Ok(rules)
    }

    /// Restricts this process and executes the tool.
    fn exec(&self) -> Result<std::convert::Infallible> {
        let status = self.restrict()?;
        if status == RulesetStatus::NotEnforced {
            eprintln!(
                "note: this system has no Landlock, so build tools run unconfined (the task's \
                 build-time code can write outside its build); see docs/security.md"
            );
        }
        let error = Command::new(&self.program[0])
            .args(&self.program[1..])
            .exec();
        Err(error).with_context(|| format!("cannot run {}", self.program[0].to_string_lossy()))
    }

    fn restrict(&self) -> Result<RulesetStatus> {
        let read = AccessFs::from_read(RULES_ABI);
        let all = AccessFs::from_all(RULES_ABI);
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(all)?
            .handle_access(AccessNet::from_all(RULES_ABI))?
            .scope(Scope::from_all(RULES_ABI))?
            .create()?;
        for (paths, access) in [(&self.reads, read), (&self.writes, all)] {
            for path in paths {
                let Ok(fd) = PathFd::new(path) else {
                    continue;
                };
                let access = if path.is_dir() {
                    access
                } else {
                    access & AccessFs::from_file(RULES_ABI)
                };
                ruleset = ruleset.add_rule(PathBeneath::new(fd, access))?;
            }
        }
        Ok(ruleset.restrict_self()?.ruleset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &[&str]) -> Vec<OsString> {
        text.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_contained_process_reads_its_rules_and_the_tool() {
        let rules = Rules::parse(&words(&[
            "--read", "/a", "--write", "/b", "--read", "/c", "--", "tool", "--read", "x",
        ]))
        .unwrap();
        assert_eq!(rules.reads, [PathBuf::from("/a"), PathBuf::from("/c")]);
        assert_eq!(rules.writes, [PathBuf::from("/b")]);
        assert_eq!(rules.program, words(&["tool", "--read", "x"]));
        assert!(Rules::parse(&words(&["--read"])).is_err());
        assert!(Rules::parse(&words(&["--read", "/a", "--"])).is_err());
        assert!(Rules::parse(&words(&["--bogus"])).is_err());
    }

    #[test]
    fn a_contained_command_keeps_only_the_tool_s_environment() {
        let staging = tempfile::TempDir::new().unwrap();
        let command = Containment::writing_in(staging.path())
            .reading("/project")
            .command("esbuild", staging.path())
            .unwrap();
        let args: Vec<&OsStr> = command.get_args().collect();
        assert_eq!(args[0], CONTAINED);
        assert!(args
            .windows(2)
            .any(|pair| pair == [OsStr::new("--read"), OsStr::new("/project")]));
        let tool = args.iter().position(|arg| *arg == "--").unwrap();
        assert_eq!(args[tool + 1], "esbuild");
        let names: Vec<&OsStr> = command
            .get_envs()
            .filter(|(_, v)| v.is_some())
            .map(|(name, _)| name)
            .collect();
        assert!(
            names
                .iter()
                .all(|name| KEPT_ENV.contains(&name.to_str().unwrap()) || *name == "TMPDIR"),
            "{names:?}"
        );
        assert!(staging.path().join("tmp").is_dir());
    }
}
