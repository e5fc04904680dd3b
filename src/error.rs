//! Errors a person can act on: one line saying what is wrong, and where there is one, the command
//! that fixes it. `main` prints them; every other error gets its context chain on one line.

use std::fmt;

/// A refusal or failure with an optional way out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub hint: Option<String>,
}

impl Refusal {
    pub fn new(message: impl Into<String>) -> Self {
        Refusal {
            message: message.into(),
            hint: None,
        }
    }

    /// The same refusal with the command or step that gets past it.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Refusal {}

/// An error with no hint.
pub fn refuse(message: impl Into<String>) -> anyhow::Error {
    Refusal {
        message: message.into(),
        hint: None,
    }
    .into()
}

/// An error with the command or step that fixes it.
pub fn refuse_with_hint(message: impl Into<String>, hint: impl Into<String>) -> anyhow::Error {
    Refusal {
        message: message.into(),
        hint: Some(hint.into()),
    }
    .into()
}

/// The lines `main` prints for an error: the message with its causes on one line, then the hint.
/// Each cause is said once, in words (an I/O error as [`io_reason`] says it, never Rust's debug
/// text); where no refusal gives a hint, a common cause beneath (a full disk, a read-only file
/// system, a permission) brings its own.
pub fn render(err: &anyhow::Error) -> (String, Option<String>) {
    let mut parts: Vec<String> = Vec::new();
    let mut io = None;
    for cause in err.chain() {
        let text = match cause.downcast_ref::<std::io::Error>() {
            Some(e) => {
                io.get_or_insert(e);
                io_reason(e)
            }
            None => without_os_error(&cause.to_string()),
        };
        // gix errors can span lines, which must not leak.
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        // A cause its context already spelled out (`cannot write x: No space left on device`)
        // is not said twice.
        let said = parts
            .last()
            .is_some_and(|last| last.to_lowercase().contains(&text.to_lowercase()));
        if !text.is_empty() && !said {
            parts.push(text);
        }
    }
    let hint = err
        .chain()
        .find_map(|cause| cause.downcast_ref::<Refusal>())
        .and_then(|r| r.hint.clone())
        .or_else(|| io.and_then(io_hint));
    (parts.join(": "), hint)
}

/// The way out of an I/O error a person can do something about.
fn io_hint(e: &std::io::Error) -> Option<String> {
    use std::io::ErrorKind;
    let hint = match e.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => {
            "free space on that disk (df -h shows how much is left), then run it again"
        }
        ErrorKind::ReadOnlyFilesystem => {
            "the file system is mounted read-only: run it where the repository can be written"
        }
        ErrorKind::PermissionDenied => {
            "check the permissions of the path named above, then run it again"
        }
        _ => return None,
    };
    Some(hint.to_owned())
}

/// `text` without Rust's ` (os error N)`, wherever a cause's own message repeats it.
fn without_os_error(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" (os error ") {
        let after = &rest[at + " (os error ".len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            out.push_str(&rest[..at]);
            rest = &after[digits + 1..];
        } else {
            out.push_str(&rest[..at + 1]);
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// Print an error the one way every command does: `git berth: <what is wrong>`, then
/// `hint: <the way out>` where there is one.
pub fn report(err: &anyhow::Error) {
    let (line, hint) = render(err);
    let mut text = format!("{}: {line}\n", crate::names::TOOL);
    if let Some(hint) = hint {
        text.push_str(&format!("hint: {hint}\n"));
    }
    // As `ui::Ui` writes (which uses `render`, so this cannot use it): a closed stderr loses the
    // message, and never panics the process that only wanted to say it.
    let _ = std::io::Write::write_all(&mut std::io::stderr(), text.as_bytes());
}

/// An I/O error as a person reads it: `permission denied`, `no space left on device`, without
/// Rust's `(os error 13)`.
pub fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => text.as_str(),
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// True when the error is a write to a reader that went away (`git berth list | head -1`): git
/// stops quietly then, and so does berth.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use anyhow::Context as _;

    #[test]
    fn context_added_above_a_refusal_is_said_before_it_and_its_hint_kept() {
        let err: anyhow::Result<()> = Err(refuse_with_hint("it moved", "run it again"));
        let err = err
            .context("cannot record the review of 'task'")
            .unwrap_err();
        assert_eq!(
            render(&err),
            (
                "cannot record the review of 'task': it moved".to_owned(),
                Some("run it again".to_owned())
            )
        );
    }

    /// What gix 0.91 returns when a disk fills up while it removes a worktree: its message, with
    /// the I/O error beneath.
    pub(crate) fn gix_disk_full() -> gix::Error {
        use gix::error::{ErrorExt as _, message};
        std::io::Error::from_raw_os_error(28)
            .and_raise(message("Could not remove the linked worktree"))
    }

    #[test]
    fn a_full_disk_beneath_a_gix_error_reads_as_words_with_a_hint() {
        // As `git::gix_err` keeps it: the gix error itself, its causes a chain.
        let err = Err::<(), _>(anyhow::Error::new(gix_disk_full()))
            .context("cannot remove worktree /w/auth")
            .unwrap_err();
        let (line, hint) = render(&err);
        assert_eq!(
            line,
            "cannot remove worktree /w/auth: Could not remove the linked worktree: no space left on device"
        );
        assert!(hint.unwrap().starts_with("free space on that disk"));
        for debug in ["Message {", "Caused by", "Os {", "os error", "\n"] {
            assert!(!line.contains(debug), "{debug} in {line}");
        }
    }

    #[test]
    fn an_io_error_of_kind_storage_full_gets_the_same_hint() {
        let err = anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::StorageFull))
            .context("cannot write /r/.git/berth/registry.toml");
        let (line, hint) = render(&err);
        assert!(
            line.starts_with("cannot write /r/.git/berth/registry.toml: "),
            "{line}"
        );
        assert!(hint.unwrap().starts_with("free space on that disk"));
    }

    #[test]
    fn a_cause_its_context_already_says_is_said_once() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl fmt::Display for Outer {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "Could not remove \"/w/a/x\": {}", self.0)
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let err = anyhow::Error::new(Outer(std::io::Error::from_raw_os_error(13)));
        let (line, hint) = render(&err);
        assert_eq!(line, "Could not remove \"/w/a/x\": Permission denied");
        assert!(hint.unwrap().starts_with("check the permissions"));
    }
}
