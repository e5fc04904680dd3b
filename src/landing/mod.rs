//! What stands between a worktree and the trunk: review verdicts bound to a branch's head, and the
//! landing that moves the trunk. Nothing here writes the trunk unless a verdict approves the head.

pub mod log;
pub mod review;
pub mod ship;
