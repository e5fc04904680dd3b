//! git berth: one linked worktree, branch and claim per AI coding agent, and the primary checkout
//! kept out of their reach. The binary (`src/main.rs`) only parses and dispatches to `commands`.

pub mod cli;
pub mod clock;
pub mod commands;
pub mod error;
pub mod fleet;
pub mod gh;
pub mod git;
pub mod hooks;
pub mod inventory;
pub mod judge;
pub mod landing;
pub mod lockwait;
pub mod manifest;
pub mod orchestrator;
pub mod ownership;
pub mod panel;
pub mod paths;
pub mod pipeline;
pub mod ports;
pub mod registry;
pub mod render;
pub mod repo;
pub mod seed;
pub mod session;
pub mod slug;
pub mod statefile;
pub mod template;
#[cfg(test)]
mod testing;
pub mod ui;
pub mod wiring;
pub mod worktree;

// The guard is its own crate (`crates/berth-guard`), so that it cannot reach a repository or the
// registry; the leaves it shares with the rest keep their paths here.
pub use berth_guard as guard;
pub use berth_guard::{names, process};
