//! What a build shows while it works: on a terminal a spinner naming the step (`npm ci`,
//! `esbuild`, `componentize-js` or `componentize-js --aot (weval)`, `componentize-py`,
//! `cargo build`, `compiling component`), elsewhere one line per build step on stderr,
//! nothing with `-q`; notes about the build (not with `-q`). With a spinner or `-q` the
//! tools' own output is kept back and shown only when a tool fails. Compiling the
//! component is shown on a terminal only: piped stderr of a `.wasm` run stays as it was,
//! whether or not the component was cached.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// How build steps are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BuildProgress {
    /// A spinner on stderr (a terminal).
    Spinner,
    /// One line per step on stderr, the tools' output as it comes.
    Lines,
    /// Nothing but a failing tool's output.
    Quiet,
}

impl BuildProgress {
    /// A spinner when stderr is a terminal, else lines; nothing when `quiet`.
    pub(crate) fn on_stderr(quiet: bool) -> Self {
        if quiet {
            Self::Quiet
        } else if std::io::stderr().is_terminal() {
            Self::Spinner
        } else {
            Self::Lines
        }
    }

    /// Shows that `step` started; it is shown until the returned guard is dropped.
    pub(crate) fn step(self, step: &str) -> Step {
        match self {
            Self::Spinner => {
                let spinner = ProgressBar::new_spinner()
                    .with_style(
                        ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                            .expect("the template is valid"),
                    )
                    .with_message(step.to_owned());
                spinner.enable_steady_tick(Duration::from_millis(100));
                Step(Some(spinner))
            }
            Self::Lines => {
                eprintln!("{}", step_line(step));
                Step(None)
            }
            Self::Quiet => Step(None),
        }
    }

    /// Shows `step` only on a terminal (a spinner), until the returned guard is dropped.
    pub(crate) fn terminal_step(self, step: &str) -> Option<Step> {
        (self == Self::Spinner).then(|| self.step(step))
    }

    /// Shows a one-line note about the build on stderr (not with `-q`).
    pub(crate) fn note(self, note: &str) {
        if self != Self::Quiet {
            eprintln!("{note}");
        }
    }

    /// Whether a tool's output is kept back (and shown only when the tool fails).
    pub(crate) fn holds_tool_output(self) -> bool {
        self != Self::Lines
    }
}

/// The line a step prints when stderr is not a terminal.
fn step_line(step: &str) -> String {
    format!("[build] {step}")
}

/// A step being shown; the spinner goes away when it is dropped.
#[derive(Debug)]
pub(crate) struct Step(Option<ProgressBar>);

impl Drop for Step {
    fn drop(&mut self) {
        if let Some(spinner) = &self.0 {
            spinner.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_wins_and_only_lines_stream_tool_output() {
        assert_eq!(BuildProgress::on_stderr(true), BuildProgress::Quiet);
        assert!(BuildProgress::Quiet.holds_tool_output());
        assert!(BuildProgress::Spinner.holds_tool_output());
        assert!(!BuildProgress::Lines.holds_tool_output());
        assert_eq!(step_line("esbuild"), "[build] esbuild");
    }
}
