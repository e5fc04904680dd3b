//! Status for people, on stderr, through one handle every layer is given: `status` (silenced by
//! quiet), `warn`, `hint` and a refusal's two lines. A write never panics: stderr closed or its
//! reader gone (`2>&-`, a pipe closed early) loses the line, never the command's work.

use std::fmt::Display;
use std::io::{IsTerminal as _, Write};
use std::sync::{Arc, Mutex};

use crate::{names, render};

/// Where status goes and how: made once per run (`Context` carries it), cloned where a thread
/// or a second context needs it; clones share the one stream.
#[derive(Clone)]
pub struct Ui {
    err: Arc<Mutex<dyn Write + Send>>,
    quiet: bool,
    terminal: bool,
    colour: bool,
}

impl Ui {
    /// The process's stderr, with colour decided by the rule tables use (`render::wants_colour`)
    /// applied to stderr: `config` reads a git config value, as for `Terminal::detect`.
    pub fn detect(config: impl Fn(&str) -> Option<String>) -> Ui {
        let terminal = std::io::stderr().is_terminal();
        // git's pager reads stdout alone: it never shows what goes to stderr.
        let signals = render::Signals {
            pager: false,
            ..render::Signals::detect(config, terminal)
        };
        Ui {
            err: Arc::new(Mutex::new(std::io::stderr())),
            quiet: false,
            terminal,
            colour: render::wants_colour(&signals),
        }
    }

    /// Plain text to stderr: no colour, no progress. For the one leaf below every `Context` that
    /// speaks (a wait for a lock), whose callers hold no `Ui` to give it.
    pub fn stderr() -> Ui {
        Ui::to(std::io::stderr())
    }

    /// Plain text to `writer`: no terminal, no colour. For tests.
    pub fn to(writer: impl Write + Send + 'static) -> Ui {
        Ui {
            err: Arc::new(Mutex::new(writer)),
            quiet: false,
            terminal: false,
            colour: false,
        }
    }

    /// The same stream with status silenced; warnings and refusals still show.
    pub fn quiet(&self) -> Ui {
        Ui {
            quiet: true,
            ..self.clone()
        }
    }

    /// This handle if `quiet` is false, else [`Ui::quiet`]'s.
    pub fn quiet_if(&self, quiet: bool) -> Ui {
        if quiet { self.quiet() } else { self.clone() }
    }

    /// Whether status is silenced.
    pub fn is_quiet(&self) -> bool {
        self.quiet
    }

    /// Whether a live progress line can be drawn: stderr is a terminal and status is not silenced.
    pub fn shows_progress(&self) -> bool {
        self.terminal && !self.quiet
    }

    /// Whether what goes to stderr may be coloured, decided once in [`Ui::detect`].
    pub fn colour(&self) -> bool {
        self.colour
    }

    /// A line saying what the command does or did (`created worktree ...`); none when quiet.
    pub fn status(&self, line: impl Display) {
        if !self.quiet {
            self.write(format_args!("{line}\n"));
        }
    }

    /// Something went wrong and the command goes on, as git says it (`warning: ...`).
    pub fn warn(&self, what: impl Display) {
        self.write(format_args!("warning: {what}\n"));
    }

    /// The way out of what the line before said (`hint: ...`).
    pub fn hint(&self, what: impl Display) {
        self.write(format_args!("hint: {what}\n"));
    }

    /// An error, the one way every command prints one (`error::render`'s line and hint): for a
    /// refusal of one item when the command goes on with the others.
    pub fn error(&self, err: &anyhow::Error) {
        let (line, hint) = crate::error::render(err);
        self.refused(line);
        if let Some(hint) = hint {
            self.hint(hint);
        }
    }

    /// A refusal's line alone (`git berth: ...`), for one of several said together.
    pub fn refused(&self, message: impl Display) {
        self.write(format_args!("{}: {message}\n", names::TOOL));
    }

    /// Text as it is, no newline added: a progress line redrawn with `\r`; none when quiet.
    pub fn progress(&self, text: impl Display) {
        if !self.quiet {
            self.write(format_args!("{text}"));
        }
    }

    /// One write of the whole text, so lines from two threads never interleave. Every error is
    /// dropped: status is worth less than the work it reports, and a closed stream must not
    /// stop (or, with `panic = "abort"`, kill) the command midway.
    fn write(&self, text: std::fmt::Arguments<'_>) {
        let text = text.to_string();
        let mut err = self
            .err
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let _ = err.write_all(text.as_bytes());
        let _ = err.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose reader went away: every write fails as a closed pipe's does.
    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
    }

    /// What was written, kept for the test to read.
    #[derive(Clone, Default)]
    struct Kept(Arc<Mutex<Vec<u8>>>);

    impl Write for Kept {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Kept {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    #[test]
    fn every_kind_of_line_to_a_closed_pipe_is_dropped_without_a_panic() {
        let ui = Ui::to(ClosedPipe);
        ui.status("created worktree 'a'");
        ui.warn("could not free the port block of 'a'");
        ui.hint("git berth prune");
        ui.error(&crate::error::refuse_with_hint("no", "yes"));
        ui.progress("\rChecking out files: 1/2");
    }

    #[test]
    fn lines_read_as_git_prints_them_and_quiet_drops_status_alone() {
        let kept = Kept::default();
        let ui = Ui::to(kept.clone());
        ui.status("landed 'a'");
        ui.warn("stays");
        ui.error(&crate::error::refuse_with_hint("refused", "do this"));
        let quiet = ui.quiet_if(true);
        quiet.status("not shown");
        quiet.progress("not shown either");
        quiet.warn("shown");
        assert!(quiet.is_quiet() && !quiet.shows_progress() && !ui.is_quiet());
        assert_eq!(
            kept.text(),
            format!(
                "landed 'a'\nwarning: stays\n{}: refused\nhint: do this\nwarning: shown\n",
                names::TOOL
            )
        );
    }
}
