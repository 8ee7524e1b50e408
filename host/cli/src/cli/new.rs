//! `bench new`: create a task project (with its README) that builds and runs as it is.

use super::error_exit;
use crate::scaffold::{self, Lang};
use std::path::Path;
use std::process::ExitCode;

/// Creates the project at `dir` and lists what it wrote.
pub(super) fn new(dir: &Path, lang: Lang) -> ExitCode {
    match scaffold::create(dir, lang) {
        Ok(files) => {
            for file in files {
                println!("created {}", dir.join(file).display());
            }
            println!("Next: bench run {}", shell_word(&dir.display().to_string()));
            ExitCode::SUCCESS
        }
        Err(error) => error_exit(&error),
    }
}

/// `path` as one shell word: quoted when it needs to be (a path with a NUL byte, which no
/// shell can pass, is shown as it is).
fn shell_word(path: &str) -> String {
    shlex::try_quote(path).map_or_else(|_| path.to_owned(), |word| word.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_command_quotes_the_directory_when_needed() {
        assert_eq!(shell_word("my-bench"), "my-bench");
        assert_eq!(shell_word("My Bench"), "'My Bench'");
        assert_eq!(shell_word("it's"), "\"it's\"");
    }
}
