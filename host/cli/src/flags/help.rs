//! What `bench run --help` (and `check`/`inspect`) says about every run flag, grouped, and
//! the usage text; both are made from the flag table.

use super::table::{FlagSpec, Group, Reader, Value, FLAGS};

/// Where the usage text wraps.
const USAGE_WIDTH: usize = 100;

/// A flag as the help shows it: `-q, --quiet`, `--iterations N`, `--shuffle[=SEED]`.
fn shown(spec: &FlagSpec, names_joined_by: &str) -> String {
    let names = match spec.short {
        Some(short) => format!("-{short}{names_joined_by}{}", spec.name),
        None => spec.name.to_owned(),
    };
    match spec.value {
        Value::Switch => names,
        Value::Required(value) => format!("{names} {value}"),
        Value::Optional(value) => format!("{names}[={value}]"),
    }
}

/// The flags section of the help: every group, one aligned line per flag, then the task's
/// own flags.
pub(crate) fn flags_help() -> String {
    let width = FLAGS
        .iter()
        .map(|spec| shown(spec, ", ").len())
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for group in Group::ALL {
        text.push_str(&format!("{}:\n", group.title()));
        for spec in FLAGS.iter().filter(|spec| spec.group == group) {
            let flag = shown(spec, ", ");
            text.push_str(&format!("  {flag:width$}  {}\n", spec.help));
        }
        text.push('\n');
    }
    text.push_str(
        "The task's own flags (its config's customCliFlags) go after the task; flags may \
         come before or after it.",
    );
    text
}

/// The usage of `bench run`: every flag, then how a dispatched run is taken up again.
pub(crate) fn run_usage() -> String {
    let mut text = String::from("Usage:\n");
    wrap_usage(
        &mut text,
        "  bench run <task.wasm | task-dir | task-file>",
        FLAGS.iter(),
    );
    text.push('\n');
    wrap_usage(
        &mut text,
        "  bench run --resume <results-dir>",
        FLAGS.iter().filter(|spec| spec.reader == Reader::Resumable),
    );
    text
}

/// Appends `head` and `[flag]` for each of `flags`, wrapped and indented.
fn wrap_usage<'a>(text: &mut String, head: &str, flags: impl Iterator<Item = &'a FlagSpec>) {
    let mut line = head.to_owned();
    for spec in flags {
        let word = format!("[{}]", shown(spec, " | "));
        if line.len() + 1 + word.len() > USAGE_WIDTH {
            text.push_str(&line);
            text.push('\n');
            line = format!("      {word}");
        } else {
            line.push(' ');
            line.push_str(&word);
        }
    }
    text.push_str(&line);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flag names the help lists, in order (`-q, --quiet` counts as both).
    fn listed_names() -> Vec<String> {
        flags_help()
            .lines()
            .filter(|line| line.starts_with("  -"))
            .flat_map(|line| {
                let flag = line.trim_start().split("  ").next().unwrap_or_default();
                flag.split(", ")
                    .map(|name| name.split([' ', '[']).next().unwrap_or(name).to_owned())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn the_help_lists_every_run_flag_exactly_once() {
        let mut listed = listed_names();
        let mut known: Vec<String> = FLAGS
            .iter()
            .flat_map(|spec| {
                spec.short
                    .map(|short| format!("-{short}"))
                    .into_iter()
                    .chain([spec.name.to_owned()])
            })
            .collect();
        listed.sort_unstable();
        known.sort_unstable();
        assert_eq!(listed, known);
        let mut unique = listed.clone();
        unique.dedup();
        assert_eq!(unique, listed, "a flag listed twice");
    }

    #[test]
    fn every_flag_has_a_help_line_in_a_titled_group() {
        for spec in FLAGS {
            assert!(!spec.help.trim().is_empty(), "{} has no help", spec.name);
            assert!(!spec.help.contains('\n'), "{}: one line", spec.name);
        }
        for group in Group::ALL {
            assert!(
                FLAGS.iter().any(|spec| spec.group == group),
                "{} has no flag",
                group.title()
            );
        }
    }

    #[test]
    fn every_flag_s_help_starts_in_one_column() {
        let help = flags_help();
        assert!(help.starts_with("Benchmark identity (upstream):\n  --shape NAME "));
        let lines: Vec<&[u8]> = help
            .lines()
            .filter(|line| line.starts_with("  -"))
            .map(str::as_bytes)
            .collect();
        assert_eq!(lines.len(), FLAGS.len(), "one line per flag");
        // The longest flag, `--max-participant-log-bytes SIZE`, is 32 characters.
        for line in lines {
            assert_eq!((line[35], line[34]), (b' ', b' '));
            assert_ne!(line[36], b' ', "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn the_usage_names_every_flag_and_what_resume_takes() {
        let usage = run_usage();
        assert!(usage
            .starts_with("Usage:\n  bench run <task.wasm | task-dir | task-file> [--shape NAME]"));
        let (run, resume) = usage
            .split_once("\n  bench run --resume <results-dir> ")
            .unwrap();
        for spec in FLAGS {
            let word = format!("[{}]", shown(spec, " | "));
            assert!(run.contains(&word), "{word}: {usage}");
            assert_eq!(
                resume.contains(&word),
                spec.reader == Reader::Resumable,
                "{word}: {usage}"
            );
        }
        assert!(run.contains("[-q | --quiet]") && run.contains("[--shuffle[=SEED]]"));
        for line in usage.lines() {
            assert!(line.len() <= USAGE_WIDTH, "{line}");
        }
    }
}
