//! What is known of a task command's words before the task is built: where the task path
//! is (flags may come before or after it), whether help was asked for, and flags that are
//! surely typos of bench's own (the task's `customCliFlags` are only known after its config
//! call, so a flag that is not close to one of bench's is left for then).

use super::table::{self, FLAGS};
use super::FlagError;
use crate::color::ColorChoice;

/// The words of `bench run|check|inspect`, split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TaskWords {
    /// The task path: the first word that is neither a flag nor the value of a bench flag
    /// that takes one.
    pub task: Option<String>,
    /// Every other word, in order.
    pub flags: Vec<String>,
    /// `--help` or `-h` appears as a flag.
    pub help: bool,
}

/// Splits a task command's words into the task path and its flags.
pub(crate) fn split_task_words(words: Vec<String>) -> TaskWords {
    let mut task = None;
    let mut flags = Vec::with_capacity(words.len());
    let mut help = false;
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        if word == "--help" || word == "-h" {
            help = true;
            continue;
        }
        if !word.starts_with('-') && task.is_none() {
            task = Some(word);
            continue;
        }
        let takes_value =
            !word.contains('=') && table::find(&word).is_some_and(|spec| spec.takes_value());
        flags.push(word);
        if takes_value {
            flags.extend(words.next());
        }
    }
    TaskWords { task, flags, help }
}

/// The last valid `--color WHEN` (or `--color=WHEN`) among the flags, if any: known before
/// the build, so its errors are coloured as asked.
pub(crate) fn color_choice(flags: &[String]) -> Option<ColorChoice> {
    let mut choice = None;
    let mut words = flags.iter();
    while let Some(word) = words.next() {
        let value = match word.split_once('=') {
            Some(("--color", value)) => Some(value),
            None if word == "--color" => words.next().map(String::as_str),
            _ => None,
        };
        choice = value.and_then(ColorChoice::parse).or(choice);
    }
    choice
}

/// Rejects flags that are not bench's but within two edits of one of its flags, saying
/// which one was meant: `Unknown flag(s): --iteratons (did you mean --iterations?)`.
pub(crate) fn reject_typos(flags: &[String]) -> Result<(), FlagError> {
    let mut words = flags.iter();
    while let Some(word) = words.next() {
        if !word.starts_with('-') {
            continue;
        }
        let name = word.split_once('=').map_or(word.as_str(), |(name, _)| name);
        match table::find(name) {
            Some(spec) => {
                if spec.takes_value() && !word.contains('=') {
                    words.next();
                }
            }
            None => {
                if let Some(meant) = closest_flag(name) {
                    return Err(FlagError::Unknown(vec![format!(
                        "{name} (did you mean {meant}?)"
                    )]));
                }
            }
        }
    }
    Ok(())
}

/// bench's flag nearest to `name` within two edits (one edit for a flag of fewer than 8
/// letters: `--raise` is a task's own flag, not a typo of `--rate`), if any. `--help` is
/// answered before and suggests nothing: a task's `--heap` is no typo of it.
fn closest_flag(name: &str) -> Option<&'static str> {
    FLAGS
        .iter()
        .filter(|spec| spec.name != "--help")
        .map(|spec| (strsim::damerau_levenshtein(name, spec.name), spec.name))
        .filter(|(distance, flag)| *distance <= if flag.len() >= 10 { 2 } else { 1 })
        .min()
        .map(|(_, flag)| flag)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn the_task_path_may_come_before_or_after_the_flags() {
        let after = split_task_words(words("--iterations 3 --no-ingest noop.wasm --region eu"));
        assert_eq!(after.task.as_deref(), Some("noop.wasm"));
        assert_eq!(after.flags, words("--iterations 3 --no-ingest --region eu"));
        let before = split_task_words(words("noop.wasm --iterations 3"));
        assert_eq!(before.task.as_deref(), Some("noop.wasm"));
        assert_eq!(before.flags, words("--iterations 3"));
        let inline = split_task_words(words("--out=dir task"));
        assert_eq!(inline.task.as_deref(), Some("task"));
        assert!(!inline.help);
        // The value of a flag that takes one is never the path, even when it is a word.
        let named = split_task_words(words("--name fast task --help"));
        assert_eq!(named.task.as_deref(), Some("task"));
        assert_eq!(named.flags, words("--name fast"));
        assert!(named.help);
        assert_eq!(split_task_words(words("-h")).task, None);
    }

    #[test]
    fn the_last_valid_color_choice_wins() {
        assert_eq!(color_choice(&words("--iterations 3")), None);
        assert_eq!(
            color_choice(&words("--color always -q")),
            Some(ColorChoice::Always)
        );
        assert_eq!(
            color_choice(&words("--color=never --color bad")),
            Some(ColorChoice::Never)
        );
    }

    #[test]
    fn typos_of_bench_flags_are_rejected_with_a_suggestion() {
        assert_eq!(
            reject_typos(&words("--iteratons 3"))
                .unwrap_err()
                .to_string(),
            "Unknown flag(s): --iteratons (did you mean --iterations?)"
        );
        assert_eq!(
            reject_typos(&words("--concurency=2"))
                .unwrap_err()
                .to_string(),
            "Unknown flag(s): --concurency (did you mean --concurrency?)"
        );
        // Far from every bench flag: perhaps the task's own, checked after its config call.
        assert_eq!(reject_typos(&words("--region eu --bogus")), Ok(()));
        // Short flags take one edit: two from `--rate` is a task's own flag.
        assert_eq!(reject_typos(&words("--raise plain")), Ok(()));
        assert_eq!(
            reject_typos(&words("--rte 5/s")).unwrap_err().to_string(),
            "Unknown flag(s): --rte (did you mean --rate?)"
        );
        // A value is not a flag, even when it looks like one.
        assert_eq!(reject_typos(&words("--name --iteratons")), Ok(()));
        assert_eq!(reject_typos(&words("--heap 64 -q")), Ok(()));
    }
}
