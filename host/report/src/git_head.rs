//! The commit and branch checked out in the git repository around a directory, read from
//! the repository's files (`HEAD`, loose refs, `packed-refs`) the way `git rev-parse HEAD`
//! and `git rev-parse --abbrev-ref HEAD` report them, without starting git.

use std::path::{Path, PathBuf};

/// How many symbolic refs are followed before giving up (git stops at 5 too).
const MAX_SYMREF_DEPTH: usize = 5;

/// What `git rev-parse` says about `HEAD`; `None` where it would fail (no repository, or
/// a branch without commits yet).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GitHead {
    /// `git rev-parse HEAD`: the commit id.
    pub(crate) sha: Option<String>,
    /// `git rev-parse --abbrev-ref HEAD`: the branch's short name, `HEAD` when detached.
    pub(crate) abbrev_ref: Option<String>,
}

/// Where a repository keeps its files: the worktree's own git directory (`HEAD`,
/// per-worktree refs) and the directory shared by all worktrees (branches, `packed-refs`).
struct Repository {
    git_dir: PathBuf,
    common_dir: PathBuf,
}

/// The repository's `HEAD`, found from `dir` upwards (or at `git_dir_override`, as git
/// honours `GIT_DIR`). `None` when the repository keeps its refs in a format this reader
/// does not know (reftable): ask git instead.
pub(crate) fn read(dir: &Path, git_dir_override: Option<&Path>) -> Option<GitHead> {
    let repo = match git_dir_override {
        Some(git_dir) => Repository::at(dir.join(git_dir)),
        None => Repository::discover(dir),
    };
    let Some(repo) = repo else {
        return Some(GitHead::default());
    };
    if repo.common_dir.join("reftable").is_dir() {
        return None;
    }
    Some(repo.head())
}

impl Repository {
    /// The repository whose work tree holds `dir`: the first `.git` directory, or `.git`
    /// file naming one (`gitdir: PATH`, as in linked worktrees and submodules), from `dir`
    /// up to the root.
    fn discover(dir: &Path) -> Option<Self> {
        dir.ancestors().find_map(|dir| {
            let dot_git = dir.join(".git");
            if dot_git.is_dir() {
                return Self::at(dot_git);
            }
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.strip_prefix("gitdir:")?.trim();
            Self::at(dir.join(target))
        })
    }

    /// The repository of the git directory `git_dir`, if it is one (it has a `HEAD`).
    fn at(git_dir: PathBuf) -> Option<Self> {
        if !git_dir.join("HEAD").is_file() {
            return None;
        }
        let common_dir = match std::fs::read_to_string(git_dir.join("commondir")) {
            Ok(text) => git_dir.join(text.trim()),
            Err(_) => git_dir.clone(),
        };
        Some(Self {
            git_dir,
            common_dir,
        })
    }

    /// `HEAD` resolved; `rev-parse` fails (both `None`) on a branch without commits.
    fn head(&self) -> GitHead {
        match self.resolve("HEAD", 0) {
            None => GitHead::default(),
            Some((name, sha)) => GitHead {
                sha: Some(sha),
                abbrev_ref: Some(self.shorten(&name)),
            },
        }
    }

    /// The ref `name` finally points at (following symbolic refs) and its object id.
    fn resolve(&self, name: &str, depth: usize) -> Option<(String, String)> {
        if depth > MAX_SYMREF_DEPTH {
            return None;
        }
        match self.read_loose(name) {
            Some(content) => match symbolic_target(&content) {
                Some(target) => self.resolve(target, depth + 1),
                None => Some((name.to_owned(), object_id(&content)?)),
            },
            None => Some((name.to_owned(), self.packed(name)?)),
        }
    }

    /// The content of the loose ref `name`, from the worktree's directory for per-worktree
    /// refs (`HEAD`, pseudo-refs, `refs/bisect/`, `refs/worktree/`, `refs/rewritten/`),
    /// else from the shared one.
    fn read_loose(&self, name: &str) -> Option<String> {
        if name.split('/').any(|part| part.is_empty() || part == "..") {
            return None;
        }
        let per_worktree = !name.starts_with("refs/")
            || ["refs/bisect/", "refs/worktree/", "refs/rewritten/"]
                .iter()
                .any(|prefix| name.starts_with(prefix));
        let dir = if per_worktree {
            &self.git_dir
        } else {
            &self.common_dir
        };
        let path = dir.join(name);
        if !path.is_file() {
            return None;
        }
        std::fs::read_to_string(path).ok()
    }

    /// The object id of `name` in `packed-refs` (`<id> <name>` lines; `#` headers and `^`
    /// peeled lines skipped).
    fn packed(&self, name: &str) -> Option<String> {
        let text = std::fs::read_to_string(self.common_dir.join("packed-refs")).ok()?;
        text.lines()
            .filter(|line| !line.starts_with('#') && !line.starts_with('^'))
            .find_map(|line| {
                let (id, ref_name) = line.split_once(' ')?;
                (ref_name.trim_end() == name)
                    .then(|| object_id(id))
                    .flatten()
            })
    }

    fn exists(&self, name: &str) -> bool {
        self.resolve(name, 0).is_some()
    }

    /// `refname`'s shortest unambiguous name, as git's `shorten_unambiguous_ref`: the
    /// most specific rule that matches, unless a less specific rule would find another ref
    /// with that short name (`HEAD` stays `HEAD`).
    fn shorten(&self, refname: &str) -> String {
        const RULES: [(&str, &str); 6] = [
            ("", ""),
            ("refs/", ""),
            ("refs/tags/", ""),
            ("refs/heads/", ""),
            ("refs/remotes/", ""),
            ("refs/remotes/", "/HEAD"),
        ];
        for matched in (1..RULES.len()).rev() {
            let (prefix, suffix) = RULES[matched];
            let Some(short) = refname
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(suffix))
                .filter(|short| !short.is_empty())
            else {
                continue;
            };
            let ambiguous = RULES[..matched]
                .iter()
                .any(|(prefix, suffix)| self.exists(&format!("{prefix}{short}{suffix}")));
            if !ambiguous {
                return short.to_owned();
            }
        }
        refname.to_owned()
    }
}

/// The target of a symbolic ref (`ref: refs/heads/main`).
fn symbolic_target(content: &str) -> Option<&str> {
    content.strip_prefix("ref:").map(str::trim)
}

/// A SHA-1 or SHA-256 object id in lowercase hex.
fn object_id(text: &str) -> Option<String> {
    let id = text.trim();
    let hex = id
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    (hex && (id.len() == 40 || id.len() == 64)).then(|| id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn head(sha: Option<&str>, abbrev_ref: Option<&str>) -> GitHead {
        GitHead {
            sha: sha.map(str::to_owned),
            abbrev_ref: abbrev_ref.map(str::to_owned),
        }
    }

    #[test]
    fn a_branch_is_read_from_a_loose_ref_in_a_parent_directory() {
        let root = tempfile::tempdir().unwrap();
        let git = root.path().join(".git");
        write(&git.join("HEAD"), "ref: refs/heads/topic/x\n");
        write(&git.join("refs/heads/topic/x"), &format!("{A}\n"));
        let nested = root.path().join("a/b");
        fs::create_dir_all(&nested).unwrap();
        assert_eq!(read(&nested, None), Some(head(Some(A), Some("topic/x"))));
    }

    #[test]
    fn packed_refs_skip_headers_and_peeled_lines_and_loose_refs_win() {
        let root = tempfile::tempdir().unwrap();
        let git = root.path().join(".git");
        write(&git.join("HEAD"), "ref: refs/heads/main\n");
        let packed = format!(
            "# pack-refs with: peeled fully-peeled sorted \n{B} refs/heads/other\n{A} refs/heads/main\n^{B}\n"
        );
        write(&git.join("packed-refs"), &packed);
        assert_eq!(read(root.path(), None), Some(head(Some(A), Some("main"))));
        write(&git.join("refs/heads/main"), B);
        assert_eq!(read(root.path(), None), Some(head(Some(B), Some("main"))));
    }

    #[test]
    fn a_detached_head_is_its_commit_and_the_ref_is_head() {
        let root = tempfile::tempdir().unwrap();
        write(&root.path().join(".git/HEAD"), &format!("{A}\n"));
        assert_eq!(read(root.path(), None), Some(head(Some(A), Some("HEAD"))));
    }

    #[test]
    fn a_branch_without_commits_and_a_directory_outside_any_repository_give_nothing() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(read(root.path(), None), Some(GitHead::default()));
        write(&root.path().join(".git/HEAD"), "ref: refs/heads/main\n");
        assert_eq!(read(root.path(), None), Some(GitHead::default()));
    }

    #[test]
    fn a_linked_worktree_reads_its_head_and_the_shared_branches() {
        let root = tempfile::tempdir().unwrap();
        let common = root.path().join("main/.git");
        write(&common.join("HEAD"), "ref: refs/heads/main\n");
        write(&common.join("refs/heads/main"), A);
        write(&common.join("refs/heads/feature"), B);
        let own = common.join("worktrees/wt");
        write(&own.join("HEAD"), "ref: refs/heads/feature\n");
        write(&own.join("commondir"), "../..\n");
        let tree = root.path().join("wt");
        write(&tree.join(".git"), &format!("gitdir: {}\n", own.display()));
        assert_eq!(read(&tree, None), Some(head(Some(B), Some("feature"))));
    }

    #[test]
    fn git_dir_from_the_environment_is_used_as_given() {
        let root = tempfile::tempdir().unwrap();
        let elsewhere = root.path().join("store.git");
        write(&elsewhere.join("HEAD"), "ref: refs/heads/main\n");
        write(&elsewhere.join("refs/heads/main"), A);
        let unrelated = root.path().join("work");
        write(&unrelated.join(".git/HEAD"), &format!("{B}\n"));
        assert_eq!(
            read(&unrelated, Some(Path::new("../store.git"))),
            Some(head(Some(A), Some("main")))
        );
    }

    #[test]
    fn a_branch_named_like_a_tag_is_shortened_to_heads_name() {
        let root = tempfile::tempdir().unwrap();
        let git = root.path().join(".git");
        write(&git.join("HEAD"), "ref: refs/heads/v1\n");
        write(&git.join("refs/heads/v1"), A);
        write(&git.join("packed-refs"), &format!("{B} refs/tags/v1\n"));
        assert_eq!(
            read(root.path(), None),
            Some(head(Some(A), Some("heads/v1")))
        );
    }

    #[test]
    fn symbolic_ref_chains_are_followed_a_few_levels_only() {
        let root = tempfile::tempdir().unwrap();
        let git = root.path().join(".git");
        write(&git.join("HEAD"), "ref: refs/heads/a\n");
        write(&git.join("refs/heads/a"), "ref: refs/heads/b\n");
        write(&git.join("refs/heads/b"), A);
        assert_eq!(read(root.path(), None), Some(head(Some(A), Some("b"))));
        write(&git.join("refs/heads/b"), "ref: refs/heads/a\n");
        assert_eq!(read(root.path(), None), Some(GitHead::default()));
    }

    #[test]
    fn reftable_repositories_are_left_to_git() {
        let root = tempfile::tempdir().unwrap();
        let git = root.path().join(".git");
        write(&git.join("HEAD"), "ref: refs/heads/.invalid\n");
        fs::create_dir_all(git.join("reftable")).unwrap();
        assert_eq!(read(root.path(), None), None);
    }

    #[test]
    fn this_repository_reads_as_git_says() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let git = |args: &[&str]| {
            let output = std::process::Command::new("git")
                .args(args)
                .current_dir(here)
                .output()
                .ok()?;
            output
                .status
                .success()
                .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        };
        let Some(sha) = git(&["rev-parse", "HEAD"]) else {
            return; // Built outside a git checkout (or without git): nothing to compare.
        };
        let expected = head(
            Some(&sha),
            git(&["rev-parse", "--abbrev-ref", "HEAD"]).as_deref(),
        );
        assert_eq!(read(here, None), Some(expected));
    }
}
