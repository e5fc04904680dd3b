//! Fleet and pipeline manifests (seed 001's schema, atrium's worktree groups): one schema in two
//! syntaxes,
//! TOML (`.toml`) and YAML (`.yaml`, `.yml`), read into one position-carrying tree and walked by
//! hand, so every error names the file, line, column and field path the same way in both. Pure:
//! no process, git or network; profiles are read and inputs inferred only through what the caller
//! passes, so that tests give fakes.
//! - [`parse`]: text to a fleet [`Manifest`] as written, each value with its place;
//!   [`parse_pipeline`] to a [`Pipeline`], [`parse_document`] to either;
//! - [`resolve()`]: a [`Manifest`] to one [`AgentSpec`] per agent, merged (agent, profile,
//!   defaults), interpolated and placed in its worktree group;
//! - [`plan_pipeline`]: a [`Pipeline`] to its stages in order, expanded, each agent resolved
//!   alike, its judges checked;
//! - [`plan_worktrees`]: the worktrees and branches of a fleet (or, through
//!   [`PipelinePlan::worktrees`], a pipeline).

pub mod agent;
pub mod error;
mod from_toml;
mod from_yaml;
pub mod inputs;
pub mod interpolate;
pub mod pipeline;
pub mod profile;
pub mod resolve;
pub mod schema;
pub mod stage;
pub mod syntax;
pub mod tree;
mod walk;
pub mod worktrees;

use std::sync::Arc;

pub use agent::{AgentFields, Identity, TemplateVar, WorktreeKey};
pub use error::{Located, ManifestError, Place, Pos};
pub use inputs::{Binding, BoundFrom, Infer};
pub use pipeline::{JudgePlan, PipelinePlan, Setting, StageKind, StagePlan, plan_pipeline};
pub use profile::{Files, Profile, config_home, profile_paths};
pub use resolve::{AgentSpec, Context, Layer, Placement, Resolved, Sourced, resolve};
pub use schema::{Document, InferFrom, Input, Manifest, Pipeline, Var};
pub use stage::{JudgeBlock, Layout, Stage, StageBody};
pub use syntax::{Syntax, read_tree};
pub use worktrees::{WorktreePlan, branch_name, plan_worktrees};

/// The manifest in `text`; `file` names it in every error (as the person gave it) and its
/// extension says the syntax.
pub fn parse(file: &str, text: &str) -> Result<Manifest, ManifestError> {
    let file: Arc<str> = Arc::from(file);
    let tree = read_tree(&file, text)?;
    schema::read(&file, &tree)
}

/// The pipeline manifest in `text`; `file` names it in every error and, for a sub-pipeline's
/// path, its folder.
pub fn parse_pipeline(file: &str, text: &str) -> Result<Pipeline, ManifestError> {
    let file: Arc<str> = Arc::from(file);
    let tree = read_tree(&file, text)?;
    schema::read_pipeline(&file, &tree)
}

/// The manifest in `text`, a fleet or a pipeline.
pub fn parse_document(file: &str, text: &str) -> Result<Document, ManifestError> {
    let file: Arc<str> = Arc::from(file);
    let tree = read_tree(&file, text)?;
    schema::read_document(&file, &tree)
}

#[cfg(test)]
mod pipeline_tests;
#[cfg(test)]
mod tests;
