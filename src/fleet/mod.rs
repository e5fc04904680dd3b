//! Fleets (atrium's fleets, seed 001's manifests): many agents started together from one
//! manifest, each in its worktree, and taken down together. A fleet's state, logs and shared
//! folder live in `<common dir>/berth/fleets/<fleet>/`. Agents are launched through the
//! orchestrator's one launcher and worktrees removed through the lifecycle layer's judge; this
//! module decides which, and keeps the fleet's record.
//! - [`plan`]: what each manifest field becomes on this machine (pure);
//! - [`up`]: read, resolve and plan a manifest, then launch its agents in parallel;
//! - [`list`]: the fleets and their agents as they stand;
//! - [`down`]: end the agents, remove the worktrees that hold nothing of value (also `clean`);
//! - [`state`]: the fleet's state file, written atomically under its lock;
//! - [`supervise`]: a headless agent's supervisor, which records how the agent ended;
//! - [`templates`]: the prompt templates a manifest's `template` names.

pub mod clones;
pub mod down;
pub mod list;
pub mod plan;
pub mod state;
pub mod supervise;
pub mod templates;
pub mod up;

pub use state::{AgentState, Fleet, Run, State, WorktreeState};
