//! Wiring the guard into agent runtimes: which files each runtime needs (`plan`, pure), how
//! berth's entries are merged into a runtime's JSON settings and taken out again (`merge`,
//! pure), and writing them all or nothing (`apply`, the only part with effects). `init` is its
//! command; the table of files lives with the guard (`guard::managed`), which protects them.

pub mod apply;
pub mod merge;
pub mod plan;
