//! The text of a candidate's diff: a unified diff per file, made with `similar`, binary files in
//! one line each, and the whole cut on a line boundary at a byte cap with the cut marked. Pure.

use std::fmt::Write as _;

use crate::git::diff::{Changed, Content};

/// Lines of context around each change, as `git diff` shows.
const CONTEXT: usize = 3;

/// How far into a file git looks for a NUL byte to call it binary.
const BINARY_PROBE: usize = 8000;

/// The unified diff of `files`, in their order.
pub fn render(files: &[Changed]) -> String {
    let mut out = String::new();
    for file in files {
        file_diff(&mut out, file);
    }
    out
}

fn file_diff(out: &mut String, file: &Changed) {
    let path = &file.path;
    if let (Some(kind), _) | (_, Some(kind)) = (other(&file.before), other(&file.after)) {
        let _ = writeln!(out, "{}", other_line(path, &file.before, &file.after, kind));
        return;
    }
    let (before, after) = (text(&file.before), text(&file.after));
    let (Some(before), Some(after)) = (before, after) else {
        let _ = writeln!(out, "{}", binary_line(path, &file.before, &file.after));
        return;
    };
    let _ = writeln!(out, "diff --git a/{path} b/{path}");
    let old_name = match file.before {
        Content::Missing => {
            let _ = writeln!(out, "new file");
            "/dev/null".to_owned()
        }
        _ => format!("a/{path}"),
    };
    let new_name = match file.after {
        Content::Missing => {
            let _ = writeln!(out, "deleted file");
            "/dev/null".to_owned()
        }
        _ => format!("b/{path}"),
    };
    let diff = similar::TextDiff::from_lines(before, after);
    let _ = write!(
        out,
        "{}",
        diff.unified_diff()
            .context_radius(CONTEXT)
            .header(&old_name, &new_name)
    );
}

/// What a side is when it is neither a file nor nothing.
fn other(content: &Content) -> Option<&'static str> {
    match content {
        Content::Other(kind) => Some(kind),
        _ => None,
    }
}

/// A side's text, `""` when missing; `None` when binary: a NUL byte near the start, as git
/// decides, or bytes that are not UTF-8.
fn text(content: &Content) -> Option<&str> {
    match content {
        Content::Missing | Content::Other(_) => Some(""),
        Content::Bytes(bytes) => {
            if bytes[..bytes.len().min(BINARY_PROBE)].contains(&0) {
                return None;
            }
            std::str::from_utf8(bytes).ok()
        }
    }
}

fn size(content: &Content) -> usize {
    match content {
        Content::Bytes(bytes) => bytes.len(),
        _ => 0,
    }
}

/// One line for a binary file.
fn binary_line(path: &str, before: &Content, after: &Content) -> String {
    match (before, after) {
        (Content::Missing, _) => format!("Binary file {path} added ({} bytes)", size(after)),
        (_, Content::Missing) => format!("Binary file {path} deleted ({} bytes)", size(before)),
        _ => format!(
            "Binary file {path} changed ({} bytes to {} bytes)",
            size(before),
            size(after)
        ),
    }
}

/// One line for a path that is, or was, a submodule or a folder.
fn other_line(path: &str, before: &Content, after: &Content, kind: &str) -> String {
    let word = |c: &Content| match c {
        Content::Missing => "nothing".to_owned(),
        Content::Bytes(_) => "a file".to_owned(),
        Content::Other(kind) => (*kind).to_owned(),
    };
    match (before, after) {
        (Content::Other(_), Content::Other(_)) => format!("{path}: {kind} changed"),
        _ => format!("{path}: was {}, is now {}", word(before), word(after)),
    }
}

/// `diff` kept whole when it has at most `max` bytes; otherwise its lines that fit in `max`
/// bytes, then one line that says where it was cut and how long it was.
pub fn cut(diff: &str, max: usize) -> String {
    if diff.len() <= max {
        return diff.to_owned();
    }
    // A newline is one byte and never inside a character, so the cut is a char boundary too.
    let kept = diff.as_bytes()[..max]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |at| at + 1);
    format!(
        "{}[... diff cut at {kept} bytes of {} ...]\n",
        &diff[..kept],
        diff.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(path: &str, before: Content, after: Content) -> Changed {
        Changed {
            path: path.into(),
            before,
            after,
        }
    }

    fn bytes(text: &str) -> Content {
        Content::Bytes(text.as_bytes().to_vec())
    }

    #[test]
    fn a_changed_file_is_a_unified_diff_with_git_headers() {
        let text = render(&[changed(
            "src/lib.rs",
            bytes("a\nb\nc\n"),
            bytes("a\nB\nc\n"),
        )]);
        assert_eq!(
            text,
            "diff --git a/src/lib.rs b/src/lib.rs\n\
             --- a/src/lib.rs\n\
             +++ b/src/lib.rs\n\
             @@ -1,3 +1,3 @@\n \
             a\n\
             -b\n\
             +B\n \
             c\n"
        );
    }

    #[test]
    fn an_added_and_a_deleted_file_diff_against_dev_null() {
        let text = render(&[
            changed("new.txt", Content::Missing, bytes("hello\n")),
            changed("old.txt", bytes("bye\n"), Content::Missing),
        ]);
        assert!(
            text.contains("new file\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n"),
            "{text}"
        );
        assert!(
            text.contains("deleted file\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"),
            "{text}"
        );
    }

    #[test]
    fn a_binary_file_is_one_line() {
        let png = Content::Bytes(vec![0x89, b'P', b'N', b'G', 0, 0, 1]);
        assert_eq!(
            render(&[changed("logo.png", Content::Missing, png.clone())]),
            "Binary file logo.png added (7 bytes)\n"
        );
        assert_eq!(
            render(&[changed("logo.png", png, Content::Bytes(vec![0xff, 0xfe]))]),
            "Binary file logo.png changed (7 bytes to 2 bytes)\n"
        );
    }

    #[test]
    fn a_submodule_is_one_line() {
        assert_eq!(
            render(&[changed(
                "vendor/lib",
                Content::Missing,
                Content::Other("a submodule")
            )]),
            "vendor/lib: was nothing, is now a submodule\n"
        );
    }

    #[test]
    fn a_short_diff_is_kept_whole() {
        assert_eq!(cut("a\nb\n", 4), "a\nb\n");
        assert_eq!(cut("", 0), "");
    }

    #[test]
    fn a_long_diff_is_cut_on_a_line_boundary_and_the_cut_is_marked() {
        let diff = "line one\nline two\nline three\n";
        let out = cut(diff, 12);
        assert_eq!(out, "line one\n[... diff cut at 9 bytes of 29 ...]\n");
        let exact = cut(diff, 18);
        assert_eq!(
            exact,
            "line one\nline two\n[... diff cut at 18 bytes of 29 ...]\n"
        );
    }

    #[test]
    fn a_first_line_longer_than_the_cap_leaves_only_the_mark() {
        assert_eq!(cut("ééééé\n", 3), "[... diff cut at 0 bytes of 11 ...]\n");
    }
}
