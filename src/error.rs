//! Errors a person can act on: one line saying what is wrong, and where there is one, the command
//! that fixes it. Each has a [`Kind`], which decides the exit code and is named in `--json` errors;
//! an error nobody gave a kind is a refusal, never a bug, since most are the person's files or disk.

use std::fmt;

/// What sort of failure an error is: it decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Berth would not do it, or could not in this repository or on this disk: the person acts.
    Refusal,
    /// The command line does not parse.
    Usage,
    /// A file or setting berth reads (git config, a hook file, a state file) is wrong; it is named.
    Configuration,
    /// A bug in berth: said as one, with where to report it.
    Internal,
    /// The reader of stdout went away (`git berth list | head -1`): not an error, a quiet stop.
    BrokenPipe,
    /// Ctrl-C (or SIGTERM) stopped a long command, which ended what it started first.
    Interrupted,
}

impl Kind {
    /// The exit code: 1 and 2 as git gives them, sysexits.h's `EX_CONFIG` and `EX_SOFTWARE` for
    /// the two a script may want to tell from a refusal, and 141 (128 + SIGPIPE) as a shell reports
    /// a writer killed by a closed pipe, and 130 (128 + SIGINT) for an interrupted run.
    pub const fn exit_code(self) -> u8 {
        match self {
            Kind::Refusal => 1,
            Kind::Usage => 2,
            Kind::Configuration => 78,
            Kind::Internal => 70,
            Kind::BrokenPipe => 141,
            Kind::Interrupted => 130,
        }
    }

    /// The kind's name in a `--json` error.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Refusal => "refusal",
            Kind::Usage => "usage",
            Kind::Configuration => "configuration",
            Kind::Internal => "internal",
            Kind::BrokenPipe => "broken-pipe",
            Kind::Interrupted => "interrupted",
        }
    }
}

/// A refusal or failure with an optional way out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub hint: Option<String>,
    pub kind: Kind,
}

impl Refusal {
    pub fn new(message: impl Into<String>) -> Self {
        Refusal {
            message: message.into(),
            hint: None,
            kind: Kind::Refusal,
        }
    }

    /// The same error as one of another kind.
    pub fn kind(mut self, kind: Kind) -> Self {
        self.kind = kind;
        self
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
    Refusal::new(message).into()
}

/// An error with the command or step that fixes it.
pub fn refuse_with_hint(message: impl Into<String>, hint: impl Into<String>) -> anyhow::Error {
    Refusal::new(message).hint(hint).into()
}

/// A file or setting berth reads is wrong: `message` names it, `hint` says how to put it right.
pub fn misconfigured(message: impl Into<String>, hint: impl Into<String>) -> anyhow::Error {
    Refusal::new(message)
        .hint(hint)
        .kind(Kind::Configuration)
        .into()
}

/// Something berth's own logic holds can never happen did: a bug, said as one.
pub fn bug(message: impl Into<String>) -> anyhow::Error {
    Refusal::new(message).kind(Kind::Internal).into()
}

/// The error's kind: a closed stdout anywhere beneath is a broken pipe, else the kind of the
/// outermost [`Refusal`] in its chain; an error with none is a refusal (an I/O or git failure on
/// the person's files is theirs to act on, not a bug).
pub fn kind(err: &anyhow::Error) -> Kind {
    if is_broken_pipe(err) {
        return Kind::BrokenPipe;
    }
    err.chain()
        .find_map(|cause| cause.downcast_ref::<Refusal>())
        .map_or(Kind::Refusal, |r| r.kind)
}

/// The lines `main` prints for an error: the message with its causes on one line, then the hint.
/// Each cause is said once, in words (an I/O error as [`io_reason`] says it, never Rust's debug
/// text); where no refusal gives a hint, a common cause beneath (a full disk, a read-only file
/// system, a permission) brings its own. A bug says it is one, and where to report it.
pub fn render(err: &anyhow::Error) -> (String, Option<String>) {
    let (line, hint) = said(err);
    if kind(err) == Kind::Internal {
        let report = format!(
            "this is a bug in {}: please report it, with the command that gave it, at {}",
            crate::names::TOOL,
            crate::names::ISSUES_URL
        );
        return (format!("internal error: {line}"), Some(report));
    }
    (line, hint)
}

/// What the error and its causes say, and the way out they give.
fn said(err: &anyhow::Error) -> (String, Option<String>) {
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

/// A failed command's error as `--json` prints it on stdout: one object,
/// `{"error": {"kind": "refusal", "message": "...", "hint": "..." or null}}`, saying what the
/// human lines on stderr say.
pub fn json(err: &anyhow::Error, kind: Kind) -> serde_json::Value {
    let (message, hint) = render(err);
    serde_json::json!({
        "error": {"kind": kind.name(), "message": message, "hint": hint}
    })
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

/// From here on a panic is said as the bug it is, in the one error form with where to report it,
/// and exits with [`Kind::Internal`]'s code rather than as an abort. The guard sets its own: a
/// panic there must block.
pub fn report_panics_as_bugs() {
    std::panic::set_hook(Box::new(|info| {
        report(&bug(info.to_string()));
        std::process::exit(i32::from(Kind::Internal.exit_code()));
    }));
}

/// True when the error is a write to a reader that went away (`git berth list | head -1`): git
/// stops quietly then, and so does berth.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    err.chain().any(|cause| {
        // serde_json keeps the I/O error it met out of the chain, so it is asked for its kind.
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|e| e.io_error_kind() == Some(BrokenPipe))
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

    #[test]
    fn each_kind_decides_its_exit_code() {
        let codes = [
            (Kind::Refusal, 1),
            (Kind::Usage, 2),
            (Kind::Internal, 70),
            (Kind::Configuration, 78),
            (Kind::BrokenPipe, 141),
        ];
        for (kind, code) in codes {
            assert_eq!(kind.exit_code(), code, "{kind:?}");
        }
    }

    #[test]
    fn an_error_has_the_kind_it_was_made_with_beneath_any_context() {
        let made = [
            (refuse("no"), Kind::Refusal),
            (refuse_with_hint("no", "yes"), Kind::Refusal),
            (
                misconfigured("berth.x is 'y'", "git config berth.x z"),
                Kind::Configuration,
            ),
            (bug("lost track"), Kind::Internal),
        ];
        for (err, want) in made {
            assert_eq!(kind(&err.context("cannot add 'task'")), want);
        }
    }

    #[test]
    fn an_io_failure_on_the_persons_files_is_a_refusal_not_a_bug() {
        let err = anyhow::Error::new(std::io::Error::from_raw_os_error(13))
            .context("cannot write /w/a/file");
        assert_eq!(kind(&err), Kind::Refusal);
        assert!(!render(&err).0.contains("internal"));
    }

    #[test]
    fn a_closed_pipe_is_a_broken_pipe_also_where_serde_json_met_it() {
        struct Closed;
        impl std::io::Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let plain = anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert_eq!(kind(&plain.context("cannot print")), Kind::BrokenPipe);
        let json = anyhow::Error::new(serde_json::to_writer(Closed, &[1, 2]).unwrap_err());
        assert!(is_broken_pipe(&json));
        assert_eq!(kind(&json), Kind::BrokenPipe);
    }

    #[test]
    fn a_bug_says_it_is_one_and_where_to_report_it() {
        let err = bug("lost track of hook setup").context("cannot set up 'task'");
        let (line, hint) = render(&err);
        assert_eq!(
            line,
            "internal error: cannot set up 'task': lost track of hook setup"
        );
        let hint = hint.unwrap();
        assert!(hint.starts_with("this is a bug in git berth"), "{hint}");
        assert!(hint.ends_with(crate::names::ISSUES_URL), "{hint}");
    }

    #[test]
    fn a_json_error_names_its_kind_and_says_what_stderr_says() {
        let err = misconfigured(
            "berth.claimTtl is 'soon', not a duration",
            "git config berth.claimTtl 12h",
        );
        assert_eq!(
            json(&err, kind(&err)),
            serde_json::json!({"error": {
                "kind": "configuration",
                "message": "berth.claimTtl is 'soon', not a duration",
                "hint": "git config berth.claimTtl 12h",
            }})
        );
        let bare = refuse("no worktree named 'x'");
        assert_eq!(
            json(&bare, Kind::Refusal)["error"]["hint"],
            serde_json::Value::Null
        );
    }

    /// Set only in the copy of this test binary that [`a_panic_is_said_as_a_bug_and_exits_70`]
    /// runs, where [`panicking_child`] panics.
    const PANIC_CHILD: &str = "BERTH_TEST_PANIC_CHILD";

    #[test]
    fn panicking_child() {
        if std::env::var_os(PANIC_CHILD).is_some() {
            report_panics_as_bugs();
            let items: Vec<u8> = Vec::new();
            let _ = items[usize::from(items.is_empty())];
        }
    }

    #[test]
    fn a_panic_is_said_as_a_bug_and_exits_70() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "error::tests::panicking_child", "--nocapture"])
            .env(PANIC_CHILD, "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(70), "{stderr}");
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("git berth: ") || l.starts_with("hint: "))
            .collect();
        assert_eq!(lines.len(), 2, "{stderr}");
        assert!(
            lines[0].starts_with("git berth: internal error: panicked at src/error.rs:"),
            "{stderr}"
        );
        assert!(
            lines[0].ends_with("index out of bounds: the len is 0 but the index is 1"),
            "{stderr}"
        );
        assert!(lines[1].ends_with(crate::names::ISSUES_URL), "{stderr}");
        assert!(!stderr.contains("thread '"), "no Rust panic text: {stderr}");
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
