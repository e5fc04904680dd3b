//! Who owns which paths of a repository (atrium's board claim, enforced): the small file git berth
//! writes beside its owners store whenever ownership changes, and the guard reads to keep an agent
//! from editing what another worktree owns. One line per owned pattern: the owner's claim holder
//! (pid and start time, so a reused pid is not it), its worktree's folder, and the pattern. The
//! format and the matching rules live here alone, for both sides. Pure: no disk.
//!
//! A pattern is relative to the repository's root, with `/` separators: a file (`src/main.rs`),
//! a folder and everything below it (`src/api/`, written with its trailing `/`), or a glob
//! (`src/**/*.rs`: `**` any number of folders, `*` any run of characters within one name, `?`
//! one character).

use std::path::PathBuf;

/// One owned pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owned {
    /// The process whose life the owner's claim follows, and its start time.
    pub pid: u32,
    pub start: Option<u64>,
    /// The owning worktree's folder.
    pub worktree: PathBuf,
    pub pattern: String,
    /// The agent working there, when one does: the block names it.
    pub agent: Option<String>,
}

const HEADER: &str =
    "# git berth: owned paths (pid, start time, worktree folder, tab, pattern, tab, agent)";

/// The file's text: a header, then `<pid> <start|-> <worktree folder>\t<pattern>[\t<agent>]` a
/// line. Neither a pattern nor an agent's name holds a tab or a line break (both are refused
/// where they are made).
pub fn render(owned: &[Owned]) -> String {
    let mut out = format!("{HEADER}\n");
    for o in owned {
        let start = o.start.map_or("-".to_string(), |s| s.to_string());
        out.push_str(&format!(
            "{} {start} {}\t{}",
            o.pid,
            o.worktree.display(),
            o.pattern
        ));
        if let Some(agent) = &o.agent {
            out.push('\t');
            out.push_str(agent);
        }
        out.push('\n');
    }
    out
}

/// The owned patterns in `text`; `Err(line)` names the first line (from 1) that is not one.
pub fn parse(text: &str) -> Result<Vec<Owned>, usize> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = n + 1;
        let (head, rest) = line.split_once('\t').ok_or(bad)?;
        let (pattern, agent) = match rest.split_once('\t') {
            Some((pattern, agent)) if !agent.is_empty() => (pattern, Some(agent.to_owned())),
            Some(_) => return Err(bad),
            None => (rest, None),
        };
        let mut parts = head.splitn(3, ' ');
        let pid = parts.next().and_then(|p| p.parse().ok()).ok_or(bad)?;
        let start = match parts.next().ok_or(bad)? {
            "-" => None,
            s => Some(s.parse().map_err(|_| bad)?),
        };
        let worktree = parts.next().filter(|w| !w.is_empty()).ok_or(bad)?;
        if pattern.is_empty() {
            return Err(bad);
        }
        out.push(Owned {
            pid,
            start,
            worktree: PathBuf::from(worktree),
            pattern: pattern.to_owned(),
            agent,
        });
    }
    Ok(out)
}

/// Whether `pattern` has glob characters.
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// Whether the repository-relative path `rel` (no leading `/`, `/` separators) is owned by
/// `pattern`.
pub fn matches(pattern: &str, rel: &str) -> bool {
    if let Some(folder) = pattern.strip_suffix('/') {
        return rel == folder || rel.strip_prefix(folder).is_some_and(|r| r.starts_with('/'));
    }
    if !is_glob(pattern) {
        return rel == pattern;
    }
    let pat: Vec<&str> = pattern.split('/').collect();
    let path: Vec<&str> = rel.split('/').collect();
    glob_segments(&pat, &path)
}

/// Whether some path below the folder `rel` (no leading `/`, `/` separators; empty for the
/// repository's root) could be owned by `pattern`: removing or moving that folder changes it.
pub fn below(pattern: &str, rel: &str) -> bool {
    if rel.is_empty() {
        return true;
    }
    let pattern = pattern.strip_suffix('/').unwrap_or(pattern);
    let pat: Vec<&str> = pattern.split('/').collect();
    let path: Vec<&str> = rel.split('/').collect();
    glob_prefix(&pat, &path)
}

/// Whether a path that goes on below all of `path` could match `pat`: `pat` takes every
/// segment of `path` and still wants at least one more.
fn glob_prefix(pat: &[&str], path: &[&str]) -> bool {
    match (pat.split_first(), path.split_first()) {
        (_, None) => !pat.is_empty(),
        (None, Some(_)) => false,
        (Some((&"**", rest)), Some((_, more))) => glob_prefix(rest, path) || glob_prefix(pat, more),
        (Some((first, rest)), Some((name, more))) => {
            glob_name(first.as_bytes(), name.as_bytes()) && glob_prefix(rest, more)
        }
    }
}

/// Segments of a glob against segments of a path; `**` takes any number of them. Linear in
/// practice: the `**` branch tries each rest of the path once per `**`.
fn glob_segments(pat: &[&str], path: &[&str]) -> bool {
    match pat.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|i| glob_segments(rest, &path[i..])),
        Some((first, rest)) => match path.split_first() {
            Some((name, more)) => {
                glob_name(first.as_bytes(), name.as_bytes()) && glob_segments(rest, more)
            }
            None => false,
        },
    }
}

/// One name against one glob segment (`*` and `?`; a `[` is taken literally).
fn glob_name(pat: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pat.len() && (pat[p] == b'?' || pat[p] == name[n]) {
            p += 1;
            n += 1;
        } else if p < pat.len() && pat[p] == b'*' {
            star = Some((p, n));
            p += 1;
        } else if let Some((sp, sn)) = star {
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    pat[p..].iter().all(|&c| c == b'*')
}

/// The literal folder a pattern lies in: everything before its first glob character, cut back to
/// the last `/` (a folder pattern is its own folder; a file's is the file itself).
fn literal_prefix(pattern: &str) -> &str {
    if !is_glob(pattern) {
        return pattern.strip_suffix('/').unwrap_or(pattern);
    }
    let at = pattern.find(['*', '?', '[']).unwrap_or(pattern.len());
    pattern[..at]
        .rfind('/')
        .map_or("", |slash| &pattern[..slash])
}

/// Whether folder (or file) `a` is `b` or lies below it, or the other way round.
fn nested(a: &str, b: &str) -> bool {
    let below = |x: &str, y: &str| {
        y.is_empty() || x == y || x.strip_prefix(y).is_some_and(|r| r.starts_with('/'))
    };
    below(a, b) || below(b, a)
}

/// Whether some path could be owned by both `a` and `b`. Exact for files, folders and a glob
/// against either; for two globs whose literal folders nest it says yes (a caller that knows the
/// files can say more).
pub fn overlap(a: &str, b: &str) -> bool {
    let glob_and_folder = |glob: &str, folder: &str| {
        let folder = folder.trim_end_matches('/');
        matches(glob, folder) || below(glob, folder)
    };
    match (is_glob(a), is_glob(b)) {
        (false, false) => {
            let (fa, fb) = (a.ends_with('/'), b.ends_with('/'));
            match (fa, fb) {
                (false, false) => a == b,
                (true, false) => matches(a, b),
                (false, true) => matches(b, a),
                (true, true) => nested(literal_prefix(a), literal_prefix(b)),
            }
        }
        (true, false) if !b.ends_with('/') => matches(a, b),
        (false, true) if !a.ends_with('/') => matches(b, a),
        (true, false) => glob_and_folder(a, b),
        (false, true) => glob_and_folder(b, a),
        _ => nested(literal_prefix(a), literal_prefix(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_round_trips_and_a_bad_line_is_named() {
        let owned = vec![
            Owned {
                pid: 42,
                start: Some(7),
                worktree: PathBuf::from("/w/a b"),
                pattern: "src/api/".to_owned(),
                agent: Some("api".to_owned()),
            },
            Owned {
                pid: 43,
                start: None,
                worktree: PathBuf::from("/w/c"),
                pattern: "docs/**/*.md".to_owned(),
                agent: None,
            },
        ];
        assert_eq!(parse(&render(&owned)), Ok(owned));
        assert_eq!(parse("# h\n1 - /w\tx\nnope\n"), Err(3));
        assert_eq!(parse("1 - /w\t\n"), Err(1));
        assert_eq!(parse("1 - /w\tx\t\n"), Err(1));
    }

    #[test]
    fn files_folders_and_globs_match_as_written() {
        assert!(matches("src/main.rs", "src/main.rs"));
        assert!(!matches("src/main.rs", "src/main.rs.bak"));
        assert!(matches("src/api/", "src/api/x.rs"));
        assert!(matches("src/api/", "src/api/deep/y.rs"));
        assert!(!matches("src/api/", "src/apix/y.rs"));
        assert!(matches("src/api/**", "src/api/deep/y.rs"));
        assert!(matches("src/**/*.rs", "src/a/b/c.rs"));
        assert!(matches("src/**/*.rs", "src/c.rs"));
        assert!(!matches("src/**/*.rs", "src/c.md"));
        assert!(matches("src/*.rs", "src/lib.rs"));
        assert!(!matches("src/*.rs", "src/a/lib.rs"));
        assert!(matches("src/?.rs", "src/a.rs"));
        assert!(matches("*", "README"));
    }

    #[test]
    fn a_folder_holds_what_is_owned_below_it() {
        assert!(below("src/api/", "src"));
        assert!(below("src/api/x.rs", "src/api"));
        assert!(below("src/api/x.rs", ""));
        assert!(below("src/**/*.rs", "src/web"));
        assert!(below("**/*.rs", "docs"));
        assert!(below("src/*.rs", "src"));
        assert!(!below("src/*.rs", "src/web"));
        assert!(!below("src/api/", "src/web"));
        assert!(
            !below("src/api/", "src/api"),
            "the folder itself is matched, not below"
        );
        assert!(!below("src/api/x.rs", "src/api/x.rs"));
        assert!(!below("src/api/", "src/apix"));
    }

    #[test]
    fn overlap_is_exact_for_files_and_folders_and_safe_for_globs() {
        assert!(overlap("src/api/", "src/api/x.rs"));
        assert!(overlap("src/", "src/api/"));
        assert!(!overlap("src/api/", "src/web/"));
        assert!(!overlap("src/api/x.rs", "src/api/y.rs"));
        assert!(overlap("src/**/*.rs", "src/api/x.rs"));
        assert!(!overlap("src/**/*.rs", "src/api/x.md"));
        assert!(overlap("src/api/**", "src/api/"));
        assert!(!overlap("src/api/**", "src/web/"));
        assert!(
            !overlap("README*", "docs/"),
            "a root glob takes nothing below a folder"
        );
        assert!(overlap("*/x.rs", "docs/"));
        assert!(overlap("**", "docs/"));
        assert!(
            overlap("src/*", "src/api/"),
            "src/* names the folder src/api itself"
        );
        assert!(
            overlap("src/*.rs", "src/*.md"),
            "globs in one folder: said to overlap"
        );
        assert!(!overlap("src/a/*.rs", "src/b/*.rs"));
    }
}
