//! git berth: one linked worktree, branch and claim per AI coding agent, and the primary checkout
//! kept out of their reach. The binary (`src/main.rs`) only parses and dispatches to `commands`.

pub mod cli;
pub mod clock;
pub mod commands;
pub mod error;
pub mod git;
pub mod guard;
pub mod hooks;
pub mod inventory;
pub mod landing;
pub mod lockwait;
pub mod names;
pub mod orchestrator;
pub mod paths;
pub mod ports;
pub mod process;
pub mod registry;
pub mod render;
pub mod repo;
pub mod seed;
pub mod session;
pub mod slug;
pub mod statefile;
pub mod wiring;
pub mod worktree;
