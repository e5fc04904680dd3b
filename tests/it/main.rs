//! The integration tests, one binary with a module per area: each builds real repositories with
//! the real `git` program in temporary folders, runs the real `git-berth` binary and checks the
//! outcome with git. One binary links once after a change, where one per file linked 37 times.

mod common;
mod node;

mod add;
mod architecture;
mod claims;
mod claude_hooks;
mod clean;
mod cli;
mod collect;
mod completions;
mod discovery;
mod examples;
mod fleet;
mod guard_adapters;
mod guard_cli;
mod guard_fuzz;
mod guard_holders;
mod guard_owners;
mod guard_probe;
mod guard_round4;
mod guard_sandbox;
mod hooks;
mod init_cli;
mod json_forms;
mod judge;
mod lifecycle_model;
mod list;
mod locks;
mod man;
mod mcp;
mod opencode_plugin;
mod orchestrator;
mod ownership;
mod panel;
mod pipeline;
mod ports;
mod pr_review;
mod prune;
mod quick_status;
mod races;
mod recovery;
mod remove;
mod review;
mod seeding;
mod sessions;
mod ship;
mod status_line;
