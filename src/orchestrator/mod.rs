//! The orchestrator (berth Module 2): a master in the primary checkout dispatches agents into
//! terminal tabs, each in a worktree of its own (layer 1) or beside its parent (layer 2), never
//! deeper. Planning is pure and apart from what runs terminals:
//! - [`runtime`]: each runtime's command line, norms and prompt (pure);
//! - [`identity`]: who may launch whom, each agent's identity, the hatches removed (pure);
//! - [`norms`]: the worktree norms template (pure);
//! - [`backend`]: which terminal, and the tmux and herdr command lines (pure);
//! - [`folder_trust`]: a runtime's folder-trust question answered ahead (`auto_trust`);
//! - [`terminal`]: the one place tmux and herdr run and agents are signalled;
//! - [`agents`]: launch, respawn, send, list, through the lifecycle layer and the registry.

pub mod agents;
pub mod backend;
pub mod folder_trust;
pub mod identity;
pub mod norms;
pub mod runtime;
pub mod terminal;

pub use agents::tell_worktree;
