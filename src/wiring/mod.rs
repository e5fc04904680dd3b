//! Wiring the guard into agent runtimes: which files each runtime needs (`plan`, pure), how
//! berth's entries are merged into a runtime's JSON settings and taken out again (`merge`,
//! pure), the master agent's definitions (`master`, pure), berth's MCP server entries (`mcp`,
//! pure), and writing them all or nothing
//! (`apply`, the only part with effects). `init` is its command; the table of guard files lives
//! with the guard (`guard::managed`), which protects them.

pub mod apply;
pub mod master;
pub mod mcp;
pub mod merge;
pub mod plan;
