//! The run flags as clap arguments, for shell completion only: `bench run`, `check` and
//! `inspect` take their words raw and parse them with upstream's parser
//! (`parse_run_flags`), so clap never parses these.

use super::table::{FlagSpec, Hint, Value, FLAGS};
use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgAction, ValueHint};

/// A clap argument for every run flag: its names, help line, value and what completes it.
pub(crate) fn completion_args() -> impl Iterator<Item = Arg> {
    FLAGS.iter().map(arg)
}

/// The clap argument of one flag.
fn arg(spec: &FlagSpec) -> Arg {
    let long = spec.name.trim_start_matches('-');
    let mut arg = Arg::new(long).long(long).help(spec.help);
    if let Some(short) = spec.short {
        arg = arg.short(short);
    }
    let (arg, value) = match spec.value {
        Value::Switch => return arg.action(ArgAction::SetTrue),
        Value::Required(value) => (arg.num_args(1), value),
        Value::Optional(value) => (arg.num_args(0..=1).require_equals(true), value),
    };
    let mut arg = arg.action(ArgAction::Append);
    // zsh's script writes a value name unescaped, where a colon would end it.
    if !value.contains(':') {
        arg = arg.value_name(value);
    }
    match spec.hint {
        Hint::Text => arg.value_hint(ValueHint::Other),
        Hint::File => arg.value_hint(ValueHint::FilePath),
        Hint::Dir => arg.value_hint(ValueHint::DirPath),
        Hint::Url => arg.value_hint(ValueHint::Url),
        Hint::Choices(words) => arg.value_parser(PossibleValuesParser::new(words.iter().copied())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_has_one_completion_arg_with_its_names_and_value() {
        let args: Vec<Arg> = completion_args().collect();
        assert_eq!(args.len(), FLAGS.len());
        for (spec, arg) in FLAGS.iter().zip(&args) {
            assert_eq!(
                arg.get_long().map(|long| format!("--{long}")),
                Some(spec.name.to_owned())
            );
            assert_eq!(arg.get_short(), spec.short);
            assert_eq!(
                arg.get_help().map(ToString::to_string).as_deref(),
                Some(spec.help)
            );
            let takes_value = !matches!(spec.value, Value::Switch);
            assert_eq!(
                arg.get_action().takes_values(),
                takes_value,
                "{}",
                spec.name
            );
        }
        let hint = |name: &str| {
            let arg = args
                .iter()
                .find(|arg| arg.get_long() == Some(name))
                .unwrap();
            arg.get_value_hint()
        };
        assert_eq!(hint("out"), ValueHint::DirPath);
        assert_eq!(hint("allow-dir"), ValueHint::DirPath);
        assert_eq!(hint("export-csv"), ValueHint::FilePath);
        assert_eq!(hint("trust-worker"), ValueHint::FilePath);
        assert_eq!(hint("dispatch"), ValueHint::Url);
        assert_eq!(hint("iterations"), ValueHint::Other);
        let choices = |name: &str| {
            let arg = args
                .iter()
                .find(|arg| arg.get_long() == Some(name))
                .unwrap();
            arg.get_possible_values()
                .iter()
                .map(|value| value.get_name().to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(choices("group-by"), ["participant", "round"]);
        assert_eq!(choices("color"), ["auto", "always", "never"]);
        assert_eq!(choices("http-keep-alive"), ["true", "false"]);
    }
}
