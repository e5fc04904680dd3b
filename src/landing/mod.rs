//! What stands between a worktree and the trunk: review verdicts bound to a branch's head, the
//! forecast of which worktrees' changes meet, and the landing that moves the trunk. Nothing here
//! writes the trunk unless a verdict approves the head.

pub mod forecast;
pub mod log;
pub mod review;
pub mod ship;
