//! Where `cd -` and `popd` lead: the folders the command's own `cd`, `pushd` and `popd` left,
//! kept beside the walk's current folders. What the running shell held before the command is
//! never known here.

use super::Dir;

/// How a simple command moved the shell, for what `cd -` and `popd` find later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Move {
    Cd,
    Pushd,
    Popd,
}

/// Where `cd -` and `popd` go, as far as the command itself set them. The shell's own
/// `OLDPWD` and directory stack from before the command are unknown: `cd -` before any `cd`, or
/// a `popd` past what the command pushed, is unknown.
#[derive(Debug, Clone, Default)]
pub(super) struct History {
    /// `OLDPWD`: every folder it may be, or unknown (`None`).
    pub(super) previous: Option<Vec<Dir>>,
    /// The folders `pushd` saved, the last on top.
    pub(super) pushed: Vec<Vec<Dir>>,
    /// A `pushd` or `popd` may have failed: what the stack holds is unknown.
    pub(super) unsure: bool,
}

impl History {
    /// The shell was in `before` and ran a command that moved it (`moved`); `sure` when what
    /// follows runs only if the move succeeded (`cd x && ...`).
    pub(super) fn moved(&mut self, moved: Option<Move>, before: Vec<Dir>, sure: bool) {
        let Some(moved) = moved else { return };
        if (moved, sure) == (Move::Pushd, true) {
            self.pushed.push(before.clone());
        }
        self.previous = match (sure, self.previous.take()) {
            (true, _) => Some(before),
            // It may have failed, leaving `OLDPWD` as it was.
            (false, Some(mut old)) => {
                for d in before {
                    if !old.contains(&d) {
                        old.push(d);
                    }
                }
                Some(old)
            }
            (false, None) => None,
        };
        match (moved, sure) {
            (Move::Cd | Move::Pushd, true) => {}
            (Move::Popd, true) => {
                self.pushed.pop();
            }
            (_, false) => self.unsure = true,
        }
    }
}
