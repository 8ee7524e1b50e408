//! The GitHub Actions job summary: when `GITHUB_STEP_SUMMARY` names a file, the Markdown
//! summary is appended to it, keeping the file under GitHub's 1 MiB limit for a step.

use anyhow::{Context as _, Result};
use std::io::Write as _;
use std::path::Path;

/// GitHub's limit on the size of one step's summary.
pub(crate) const LIMIT_BYTES: u64 = 1024 * 1024;

/// Closes a summary cut short to fit the limit.
const TRUNCATED: &str = "\n_Summary truncated to stay under the 1 MiB step-summary limit._\n";

/// Appends `markdown` to the file `GITHUB_STEP_SUMMARY` names, if it names one; a full or
/// unwritable file is a warning on stderr, never an error (`what` names the text in it).
pub(crate) fn append_to_job_summary(markdown: &str, what: &str) {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|path| !path.is_empty()) else {
        return;
    };
    match append(Path::new(&path), markdown) {
        Ok(true) => {}
        Ok(false) => {
            eprintln!("[bench] GITHUB_STEP_SUMMARY is full (1 MiB): the {what} was not added")
        }
        Err(error) => eprintln!("[bench] cannot add the {what} to GITHUB_STEP_SUMMARY: {error:#}"),
    }
}

/// Appends `markdown` to the step-summary file at `path`, cut at a line end if the whole of
/// it would take the file to 1 MiB or more; nothing is written when not even the note fits.
/// Returns whether anything was written.
fn append(path: &Path, markdown: &str) -> Result<bool> {
    let existing = match std::fs::metadata(path) {
        Ok(metadata) => metadata.len(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => 0,
        Err(error) => return Err(error).with_context(|| format!("cannot read {}", path.display())),
    };
    let Some(text) = fitted(existing, markdown) else {
        return Ok(false);
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(true)
}

/// What of `markdown` may be appended to a file of `existing` bytes so that it stays
/// below [`LIMIT_BYTES`]: all of it, or its first lines and a truncation note, or nothing.
fn fitted(existing: u64, markdown: &str) -> Option<String> {
    let room = LIMIT_BYTES.saturating_sub(existing).saturating_sub(1);
    let room = usize::try_from(room).unwrap_or(usize::MAX);
    if markdown.len() <= room {
        return Some(markdown.to_owned());
    }
    let budget = room.checked_sub(TRUNCATED.len())?;
    // Cut after the last whole line that fits.
    let cut = markdown.as_bytes()[..budget]
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |at| at + 1);
    Some(format!("{}{TRUNCATED}", &markdown[..cut]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_summaries_are_appended_whole() {
        assert_eq!(fitted(0, "## a\n").as_deref(), Some("## a\n"));
        let limit = LIMIT_BYTES as usize;
        assert_eq!(
            fitted((limit - 6) as u64, "## a\n").as_deref(),
            Some("## a\n")
        );
    }

    #[test]
    fn large_summaries_are_cut_at_a_line_end_below_the_limit() {
        let line = "| row | 1 |\n";
        let markdown = line.repeat(200_000);
        let text = fitted(1000, &markdown).unwrap();
        assert!(1000 + text.len() < LIMIT_BYTES as usize);
        assert!(text.ends_with(TRUNCATED));
        let kept = &text[..text.len() - TRUNCATED.len()];
        assert!(kept.ends_with('\n') && kept.len().is_multiple_of(line.len()));
    }

    #[test]
    fn a_full_file_gets_nothing() {
        assert_eq!(fitted(LIMIT_BYTES - 10, &"x\n".repeat(100)), None);
        assert_eq!(fitted(LIMIT_BYTES + 10, "x\n"), None);
    }

    #[test]
    fn append_adds_to_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.md");
        std::fs::write(&path, "# before\n").unwrap();
        assert!(append(&path, "## run\n").unwrap());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "# before\n## run\n"
        );
    }
}
