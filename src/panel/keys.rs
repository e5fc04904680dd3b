//! The panel's key map: which key does what in each state of the keyboard. Pure: a key in, an
//! [`Action`] out; the model carries the action out, the event loop its effects.
//!
//! A command on the selected worktree (diff, collect, approve, reject, ship, add) is a
//! [`Command`] with one line in [`COMMANDS`]: its key, the `?` screen and the dispatch follow.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What the keyboard is doing now, as the model says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// Moving through the rows.
    Browse,
    /// Typing the filter (`/`).
    Filter,
    /// Typing an answer to a question (a note, a name).
    Text,
    /// A one-key yes or no.
    Confirm,
    /// Reading a long text in the scrollable pane.
    Pane,
    /// The `?` screen: any key closes it.
    Help,
}

/// A command on the selected worktree, run by `actions.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// The worktree's changes against its base, in the scrollable pane.
    Diff,
    /// The merge-back overview (`git berth collect`), in the scrollable pane.
    Collect,
    /// Approve the worktree's head, with a note (`git berth review approve`).
    Approve,
    /// Reject the worktree's head, with a note (`git berth review reject`).
    Reject,
    /// Land the worktree through the gate, once confirmed (`git berth ship`).
    Ship,
    /// Add a worktree, named when asked (`git berth add`).
    Add,
}

/// Each command's key, its word on the status line, and what the `?` screen says of it.
pub const COMMANDS: &[(char, Command, &str, &str)] = &[
    (
        'd',
        Command::Diff,
        "diff",
        "the worktree's diff against its base",
    ),
    (
        'c',
        Command::Collect,
        "collect",
        "the merge-back overview of every worktree (as collect)",
    ),
    (
        'a',
        Command::Approve,
        "approve",
        "approve the worktree's head, with a note (as review approve)",
    ),
    (
        'x',
        Command::Reject,
        "reject",
        "reject the worktree's head, with a note (as review reject)",
    ),
    (
        's',
        Command::Ship,
        "ship",
        "land the worktree through the gate, after y (as ship)",
    ),
    (
        'n',
        Command::Add,
        "add",
        "add a worktree, named when asked (as add)",
    ),
];

/// What a key asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Up,
    Down,
    Top,
    Bottom,
    PageUp,
    PageDown,
    /// ↵ on a row: go there (print its path, or focus its agent's tab).
    Switch,
    Refresh,
    /// Start typing the filter.
    Filter,
    Help,
    Quit,
    /// Esc where something is open: close it (and clear the filter while typing it).
    Back,
    Type(char),
    Erase,
    /// ↵ while typing: keep the filter, or hand the answer over.
    Submit,
    Yes,
    No,
    Run(Command),
}

/// The action `key` asks for where the keyboard is `input`; `None` for a key that does nothing.
pub fn action(input: Input, key: KeyEvent) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return match key.code {
            KeyCode::Char('c') => Some(Action::Quit),
            KeyCode::Char('u') if matches!(input, Input::Filter | Input::Text) => {
                Some(Action::Back)
            }
            _ => None,
        };
    }
    match input {
        Input::Browse => browse(key.code),
        Input::Filter | Input::Text => typing(input, key.code),
        Input::Confirm => Some(match key.code {
            KeyCode::Char('y' | 'Y') | KeyCode::Enter => Action::Yes,
            _ => Action::No,
        }),
        Input::Pane => pane(key.code),
        Input::Help => Some(Action::Back),
    }
}

fn moves(code: KeyCode) -> Option<Action> {
    Some(match code {
        KeyCode::Up | KeyCode::Char('k') => Action::Up,
        KeyCode::Down | KeyCode::Char('j') => Action::Down,
        KeyCode::Home | KeyCode::Char('g') => Action::Top,
        KeyCode::End | KeyCode::Char('G') => Action::Bottom,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        _ => return None,
    })
}

fn browse(code: KeyCode) -> Option<Action> {
    if let Some(step) = moves(code) {
        return Some(step);
    }
    Some(match code {
        KeyCode::Enter => Action::Switch,
        KeyCode::Char('r') => Action::Refresh,
        KeyCode::Char('/') => Action::Filter,
        KeyCode::Char('?') => Action::Help,
        KeyCode::Char('q') | KeyCode::Esc => Action::Quit,
        KeyCode::Char(c) => {
            let (_, command, _, _) = COMMANDS.iter().find(|(key, ..)| *key == c)?;
            Action::Run(*command)
        }
        _ => return None,
    })
}

fn typing(input: Input, code: KeyCode) -> Option<Action> {
    Some(match code {
        KeyCode::Esc => Action::Back,
        KeyCode::Enter => Action::Submit,
        KeyCode::Backspace => Action::Erase,
        // The filter narrows the rows as it is typed, so the selection still moves.
        KeyCode::Up if input == Input::Filter => Action::Up,
        KeyCode::Down if input == Input::Filter => Action::Down,
        KeyCode::Char(c) => Action::Type(c),
        _ => return None,
    })
}

fn pane(code: KeyCode) -> Option<Action> {
    match code {
        KeyCode::Char(' ') => Some(Action::PageDown),
        KeyCode::Char('q') | KeyCode::Esc => Some(Action::Back),
        code => moves(code),
    }
}

/// The `?` screen: each key and what it does.
pub fn help() -> Vec<(String, String)> {
    let mut keys: Vec<(String, String)> = [
        ("up/down, j/k", "select a worktree"),
        (
            "enter",
            "go there: print its path and leave, or focus its agent's tab",
        ),
        ("/", "filter the rows (esc clears)"),
        (
            "r",
            "refresh now (the panel refreshes by itself when state changes)",
        ),
        ("?", "these keys"),
        ("q, esc", "leave"),
    ]
    .iter()
    .map(|(k, what)| ((*k).to_owned(), (*what).to_owned()))
    .collect();
    keys.extend(
        COMMANDS
            .iter()
            .map(|(key, _, _, what)| (key.to_string(), (*what).to_owned())),
    );
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn arrows_and_vi_keys_select_and_enter_switches() {
        for (code, want) in [
            (KeyCode::Up, Action::Up),
            (KeyCode::Char('k'), Action::Up),
            (KeyCode::Down, Action::Down),
            (KeyCode::Char('j'), Action::Down),
            (KeyCode::Enter, Action::Switch),
            (KeyCode::Char('q'), Action::Quit),
            (KeyCode::Esc, Action::Quit),
            (KeyCode::Char('d'), Action::Run(Command::Diff)),
            (KeyCode::Char('c'), Action::Run(Command::Collect)),
            (KeyCode::Char('a'), Action::Run(Command::Approve)),
            (KeyCode::Char('x'), Action::Run(Command::Reject)),
            (KeyCode::Char('s'), Action::Run(Command::Ship)),
            (KeyCode::Char('n'), Action::Run(Command::Add)),
        ] {
            assert_eq!(action(Input::Browse, key(code)), Some(want), "{code:?}");
        }
        assert_eq!(action(Input::Browse, key(KeyCode::Char('Z'))), None);
    }

    #[test]
    fn letters_are_typed_while_filtering_and_esc_goes_back() {
        assert_eq!(
            action(Input::Filter, key(KeyCode::Char('q'))),
            Some(Action::Type('q'))
        );
        assert_eq!(action(Input::Filter, key(KeyCode::Esc)), Some(Action::Back));
        assert_eq!(action(Input::Text, key(KeyCode::Up)), None);
        assert_eq!(
            action(
                Input::Text,
                KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)
            ),
            Some(Action::Quit)
        );
    }

    #[test]
    fn a_confirmation_takes_only_y_or_enter_as_yes() {
        assert_eq!(
            action(Input::Confirm, key(KeyCode::Enter)),
            Some(Action::Yes)
        );
        assert_eq!(
            action(Input::Confirm, key(KeyCode::Char('y'))),
            Some(Action::Yes)
        );
        assert_eq!(
            action(Input::Confirm, key(KeyCode::Char('x'))),
            Some(Action::No)
        );
    }
}
