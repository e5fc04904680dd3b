//! The terminal the panel draws on: `/dev/tty`, never stdout, so that stdout carries only the
//! path ↵ prints (`cd "$(git berth ui)"`). Raw mode and the alternate screen are undone when the
//! screen is dropped and on a panic, so the person's shell comes back as it was.

use std::fs::File;
use std::io::{IsTerminal as _, Write as _};
use std::sync::Once;

use anyhow::{Context as _, Result};
use crossterm::{cursor, execute, terminal};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::error::refuse_with_hint;

/// Where the panel's frames go.
pub type Tty = Terminal<CrosstermBackend<File>>;

/// The controlling terminal, opened for drawing.
const TTY: &str = "/dev/tty";

/// The terminal the panel needs, or the refusal that says there is none: stdin must be a
/// terminal (keys are read from it) and `/dev/tty` must open (frames are drawn there).
pub fn require() -> Result<File> {
    let refused = || {
        refuse_with_hint(
            format!("{} ui needs a terminal", crate::names::TOOL),
            format!(
                "run it in a terminal; a script reads the same rows with: {} list --all --json",
                crate::names::TOOL
            ),
        )
    };
    if !std::io::stdin().is_terminal() {
        return Err(refused());
    }
    let tty = File::options()
        .read(true)
        .write(true)
        .open(TTY)
        .map_err(|_| refused())?;
    if !tty.is_terminal() {
        return Err(refused());
    }
    Ok(tty)
}

/// The panel's screen: raw mode and the alternate screen on `tty` while it lives.
pub struct Screen {
    pub terminal: Tty,
}

impl Screen {
    pub fn open(mut tty: File) -> Result<Screen> {
        restore_on_panic();
        terminal::enable_raw_mode().context("cannot put the terminal in raw mode")?;
        let entered = execute!(tty, terminal::EnterAlternateScreen, cursor::Hide);
        if let Err(err) = entered {
            restore();
            return Err(err).context("cannot switch the terminal to the panel's screen");
        }
        match Terminal::new(CrosstermBackend::new(tty)) {
            Ok(terminal) => Ok(Screen { terminal }),
            Err(err) => {
                restore();
                Err(err).context("cannot draw on the terminal")
            }
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        restore();
    }
}

/// Leave the alternate screen, show the cursor, and turn raw mode off: safe to call twice.
fn restore() {
    if let Ok(mut tty) = File::options().write(true).open(TTY) {
        let _ = execute!(tty, terminal::LeaveAlternateScreen, cursor::Show);
        let _ = tty.flush();
    }
    let _ = terminal::disable_raw_mode();
}

/// A panic (which the release build turns into an abort) restores the terminal before the
/// report that it is a bug, so the report is readable and the shell usable.
fn restore_on_panic() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            report(info);
        }));
    });
}
