//! `--color auto|always|never` and `NO_COLOR`: whether bench colours the summary's status
//! column (stdout) and its error prefixes (stderr). `auto` colours a stream that is a
//! terminal unless `NO_COLOR` is set to a non-empty value; piped output has no escape codes
//! unless `--color always`.

use std::io::IsTerminal;
use std::sync::Mutex;

/// When to colour.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    #[default]
    Auto,
    /// Always, even piped.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether a stream colours: `is_terminal` and `no_color` (the value of `NO_COLOR`)
    /// matter for `auto` only.
    fn colors(self, is_terminal: bool, no_color: Option<&str>) -> bool {
        match self {
            Self::Always => true,
            Self::Never => false,
            Self::Auto => is_terminal && no_color.is_none_or(str::is_empty),
        }
    }

    /// Whether stdout colours.
    pub(crate) fn stdout(self) -> bool {
        self.colors(std::io::stdout().is_terminal(), no_color().as_deref())
    }

    /// Whether stderr colours.
    pub(crate) fn stderr(self) -> bool {
        self.colors(std::io::stderr().is_terminal(), no_color().as_deref())
    }

    /// Reads a `--color` value.
    pub(crate) fn parse(value: &str) -> Option<Self> {
        <Self as clap::ValueEnum>::from_str(value, false).ok()
    }
}

fn no_color() -> Option<String> {
    std::env::var_os("NO_COLOR").map(|value| value.to_string_lossy().into_owned())
}

static CHOICE: Mutex<ColorChoice> = Mutex::new(ColorChoice::Auto);

/// Sets the invocation's choice before anything is printed (a task command's own
/// `--color` replaces the one given before the subcommand).
pub(crate) fn set(choice: ColorChoice) {
    *CHOICE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = choice;
}

/// The invocation's choice (`auto` until set).
pub(crate) fn choice() -> ColorChoice {
    *CHOICE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_colours_a_terminal_unless_no_color_is_set() {
        assert!(ColorChoice::Auto.colors(true, None));
        assert!(ColorChoice::Auto.colors(true, Some("")));
        assert!(!ColorChoice::Auto.colors(true, Some("1")));
        assert!(!ColorChoice::Auto.colors(false, None));
        assert!(ColorChoice::Always.colors(false, Some("1")));
        assert!(!ColorChoice::Never.colors(true, None));
    }

    #[test]
    fn values_are_the_three_words() {
        assert_eq!(ColorChoice::parse("always"), Some(ColorChoice::Always));
        assert_eq!(ColorChoice::parse("never"), Some(ColorChoice::Never));
        assert_eq!(ColorChoice::parse("auto"), Some(ColorChoice::Auto));
        assert_eq!(ColorChoice::parse("yes"), None);
    }
}
