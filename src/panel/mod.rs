//! `git berth ui`'s live panel: every worktree on one screen, read again when the repository's
//! state changes. The pure parts (the key map, the model, the drawing) are apart from the effects
//! (the reading, the watcher, the terminal, the actions, the loop that ties them).

pub mod actions;
pub mod keys;
pub mod model;
pub mod read;
pub mod run;
pub mod term;
pub mod view;
pub mod watch;
