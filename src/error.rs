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
pub fn render(err: &anyhow::Error) -> (String, Option<String>) {
    if let Some(refusal) = err.downcast_ref::<Refusal>() {
        return (refusal.message.clone(), refusal.hint.clone());
    }
    let hint = err
        .chain()
        .find_map(|cause| cause.downcast_ref::<Refusal>())
        .and_then(|r| r.hint.clone());
    // `{:#}` joins the context chain with ": "; gix errors can span lines, which must not leak.
    let line = format!("{err:#}").replace('\n', " ");
    (line, hint)
}

/// Print an error the one way every command does: `git berth: <what is wrong>`, then
/// `hint: <the way out>` where there is one.
pub fn report(err: &anyhow::Error) {
    let (line, hint) = render(err);
    eprintln!("{}: {line}", crate::names::TOOL);
    if let Some(hint) = hint {
        eprintln!("hint: {hint}");
    }
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

/// Print a warning as git does (`warning: ...`): something went wrong, and the command goes on.
pub fn warn(what: impl fmt::Display) {
    eprintln!("warning: {what}");
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
