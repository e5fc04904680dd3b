//! Pipelines (seed 001's best-of-N loop): a manifest's stages run in dependency order, the
//! agents of a stage in parallel, each headless in its own worktree, and a judge that picks the
//! best candidate and records its pick as a review verdict `ship` lands. A run lives in
//! `<common dir>/berth/runs/<pipeline>/<n>/`: its agents' state and logs (the fleet's formats),
//! `run.json`, and the verdict.
//! - [`record`]: a run's record, `run.json`;
//! - [`plan`]: a manifest made into stages and the fleet's plan of their agents;
//! - [`exec`]: running the stages of a planned pipeline;
//! - [`reviews`]: the review presets `pr-review` and `pr-fix` run, and where a pull request's
//!   head is published.

pub mod exec;
pub mod plan;
pub mod record;
pub mod reviews;
