//! The operator's settings besides the command line: the ceilings of the limits and the
//! budgets, and whether builds may run install scripts, from environment variables
//! (`BENCH_MAX_MEMORY=1GiB`…, `BENCH_ALLOW_BUILD_SCRIPTS=1`) and from the optional bench
//! config file (`BENCH_CONFIG`, else `<user config dir>/bench/config.toml`), whose keys are
//! the flags' names (`max-memory = "1GiB"`, `max-sandboxes = 20000`,
//! `allow-build-scripts = true`). A flag wins over the environment, which wins over the
//! file.

use crate::flags::limit_value;
use crate::project::BuildScripts;
use anyhow::{bail, Context as _, Result};
use bench_model::ceilings::{Ceilings, SetBy, LIMITS};
use std::path::{Path, PathBuf};

/// The environment variable naming the bench config file.
const CONFIG_ENV: &str = "BENCH_CONFIG";

/// The environment variable (and, lowercase, file key) that lets builds run install
/// scripts, as `--allow-build-scripts` does.
const ALLOW_SCRIPTS_ENV: &str = "BENCH_ALLOW_BUILD_SCRIPTS";
const ALLOW_SCRIPTS_KEY: &str = "allow-build-scripts";

/// Adds the environment's and the bench config file's ceilings to `ceilings` (a flag set
/// there already wins).
pub(crate) fn apply(ceilings: &mut Ceilings) -> Result<()> {
    if let Some(file) = config_file() {
        apply_file(ceilings, &file)?;
    }
    apply_env(ceilings, |name| std::env::var(name).ok())
}

/// Whether builds may run install scripts: the flag, else `BENCH_ALLOW_BUILD_SCRIPTS`
/// (`1` or `true`), else the bench config file's `allow-build-scripts`.
pub(crate) fn build_scripts(flag: bool) -> Result<BuildScripts> {
    let from_env = std::env::var(ALLOW_SCRIPTS_ENV)
        .ok()
        .filter(|value| !value.is_empty())
        .map(|value| match value.as_str() {
            "1" | "true" => Ok(true),
            "0" | "false" => Ok(false),
            _ => bail!("{ALLOW_SCRIPTS_ENV} expects 1, true, 0 or false (got \"{value}\")"),
        })
        .transpose()?;
    let from_file = match config_file() {
        Some(file) => read_table(&file)?
            .get(ALLOW_SCRIPTS_KEY)
            .and_then(toml::Value::as_bool),
        None => None,
    };
    let allowed = flag || from_env.or(from_file).unwrap_or(false);
    Ok(if allowed {
        BuildScripts::Allowed
    } else {
        BuildScripts::Ignored
    })
}

/// The bench config file: `BENCH_CONFIG` (which must exist), else the user's when it does.
fn config_file() -> Option<PathBuf> {
    match std::env::var_os(CONFIG_ENV).filter(|file| !file.is_empty()) {
        Some(file) => Some(PathBuf::from(file)),
        None => dirs::config_dir()
            .map(|dir| dir.join("bench").join("config.toml"))
            .filter(|file| file.is_file()),
    }
}

/// The bench config file's table.
fn read_table(file: &Path) -> Result<toml::Table> {
    let shown = file.display();
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("cannot read the bench config file {shown} ({CONFIG_ENV})"))?;
    text.parse()
        .with_context(|| format!("the bench config file {shown} is not valid TOML"))
}

/// The ceilings of the variables `lookup` finds set.
fn apply_env(ceilings: &mut Ceilings, lookup: impl Fn(&str) -> Option<String>) -> Result<()> {
    for spec in &LIMITS {
        let Some(value) = lookup(spec.env).filter(|value| !value.is_empty()) else {
            continue;
        };
        let parsed = limit_value(spec, spec.env, &value).map_err(anyhow::Error::msg)?;
        ceilings.set(spec.field, parsed, SetBy::Env(spec.env));
    }
    Ok(())
}

/// The ceilings of the bench config file `file` (a TOML table of flag names and values).
fn apply_file(ceilings: &mut Ceilings, file: &Path) -> Result<()> {
    let shown = file.display();
    for (key, value) in &read_table(file)? {
        if key == ALLOW_SCRIPTS_KEY {
            if !value.is_bool() {
                bail!("{key} in the bench config file {shown} must be true or false");
            }
            continue;
        }
        let Some(spec) = LIMITS.iter().find(|spec| spec.file_key() == key) else {
            let known: Vec<&str> = LIMITS
                .iter()
                .map(|spec| spec.file_key())
                .chain([ALLOW_SCRIPTS_KEY])
                .collect();
            bail!(
                "the bench config file {shown} has an unknown setting `{key}` (known: {})",
                known.join(", ")
            );
        };
        let text = match value {
            toml::Value::String(text) => text.clone(),
            toml::Value::Integer(number) => number.to_string(),
            other => bail!(
                "{key} in the bench config file {shown} must be a string or a whole number (got \
                 {})",
                other.type_str()
            ),
        };
        let name = format!("{key} in {shown}");
        let parsed = limit_value(spec, &name, &text).map_err(anyhow::Error::msg)?;
        ceilings.set(spec.field, parsed, SetBy::File(file.to_owned()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::ceilings::LimitField;

    #[test]
    fn the_file_sets_ceilings_and_the_environment_wins_over_it() {
        let dir = tempfile::TempDir::new().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(
            &file,
            "max-memory = \"1GiB\"\nmax-sandboxes = 20000\ndisk-budget = \"2GiB\"\n",
        )
        .unwrap();
        let mut ceilings = Ceilings::default();
        apply_file(&mut ceilings, &file).unwrap();
        apply_env(&mut ceilings, |name| {
            (name == "BENCH_MAX_SANDBOXES").then(|| "30000".to_owned())
        })
        .unwrap();
        assert_eq!(ceilings.value(LimitField::Memory), Some(1 << 30));
        assert_eq!(
            ceilings.get(LimitField::Memory).set_by,
            SetBy::File(file.clone())
        );
        assert_eq!(ceilings.value(LimitField::Sandboxes), Some(30_000));
        assert_eq!(
            ceilings.get(LimitField::Sandboxes).set_by,
            SetBy::Env("BENCH_MAX_SANDBOXES")
        );
        assert_eq!(ceilings.value(LimitField::DiskBytes), Some(2 << 30));
    }

    #[test]
    fn durations_read_as_the_flags_read_them() {
        let dir = tempfile::TempDir::new().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "compile-timeout = \"1h\"\ntask-timeout = 250\n").unwrap();
        let mut ceilings = Ceilings::default();
        apply_file(&mut ceilings, &file).unwrap();
        assert_eq!(ceilings.value(LimitField::CompileTime), Some(3_600_000));
        assert_eq!(ceilings.value(LimitField::TaskTimeout), Some(250));
        apply_env(&mut ceilings, |name| {
            (name == "BENCH_TASK_TIMEOUT").then(|| "1.5s".to_owned())
        })
        .unwrap();
        assert_eq!(ceilings.value(LimitField::TaskTimeout), Some(1500));
        let env_error = apply_env(&mut Ceilings::default(), |name| {
            (name == "BENCH_COMPILE_TIMEOUT").then(|| "5 min".to_owned())
        })
        .unwrap_err();
        assert_eq!(
            env_error.to_string(),
            r#"BENCH_COMPILE_TIMEOUT expects a duration like 30s, 1.5s, 500ms or 1h (got "5 min")"#
        );
    }

    #[test]
    fn a_bad_file_or_variable_is_explained() {
        let dir = tempfile::TempDir::new().unwrap();
        let file = dir.path().join("config.toml");
        let error = |text: &str| {
            std::fs::write(&file, text).unwrap();
            format!(
                "{:#}",
                apply_file(&mut Ceilings::default(), &file).unwrap_err()
            )
        };
        assert!(
            error("max-memroy = 1").contains("unknown setting `max-memroy` (known: max-memory, ")
        );
        assert!(error("max-memory = \"lots\"").contains(&format!(
            "max-memory in {} expects a size like 512MiB (got \"lots\")",
            file.display()
        )));
        assert!(error("max-steps = [1]").contains("must be a string or a whole number"));
        assert!(error("max-steps = ").contains("is not valid TOML"));
        let env_error = apply_env(&mut Ceilings::default(), |name| {
            (name == "BENCH_MAX_STEPS").then(|| "0".to_owned())
        })
        .unwrap_err();
        assert_eq!(
            env_error.to_string(),
            r#"BENCH_MAX_STEPS expects an integer >= 1 (got "0")"#
        );
    }
}
