//! Every user-visible name berth uses: the tool, its files and folders, config keys, environment
//! variables and the branch prefix. A name changes here and nowhere else.

/// How a person types the tool.
pub const TOOL: &str = "git berth";
/// The binary git finds on `PATH`.
pub const BIN: &str = "git-berth";

/// Folder under the common dir that holds berth's per-repository state.
pub const STATE_DIR: &str = "berth";
/// The registry of managed worktrees, inside [`STATE_DIR`].
pub const REGISTRY_FILE: &str = "registry.toml";
/// The lock that guards every registry write, inside [`STATE_DIR`].
pub const REGISTRY_LOCK: &str = "registry.lock";
/// Folder under `$XDG_DATA_HOME` (or `~/.local/share`) that holds worktrees and machine-wide state.
pub const DATA_DIR: &str = "git-berth";

/// Branch prefix when `berth.branchPrefix` is not set.
pub const DEFAULT_BRANCH_PREFIX: &str = "berth/";
/// Trunk when neither `berth.trunk` nor the primary checkout names one.
pub const DEFAULT_TRUNK: &str = "main";

/// Git configuration keys berth reads.
pub mod config {
    pub const WORKTREE_BASE: &str = "berth.worktreeBase";
    pub const BRANCH_PREFIX: &str = "berth.branchPrefix";
    pub const TRUNK: &str = "berth.trunk";
}

/// Environment variables berth reads.
pub mod env {
    /// Where user data lives (XDG base directory specification).
    pub const XDG_DATA_HOME: &str = "XDG_DATA_HOME";
    /// How `git -c key=value` hands its values to the commands it runs.
    pub const GIT_CONFIG_PARAMETERS: &str = "GIT_CONFIG_PARAMETERS";
    /// Unset to disable colour (<https://no-color.org>).
    pub const NO_COLOR: &str = "NO_COLOR";
}

/// Identity written into reflogs when the user configured none, as git falls back to `user@host`.
pub const COMMITTER_NAME_FALLBACK: &str = "git-berth";
pub const COMMITTER_EMAIL_FALLBACK: &str = "git-berth@localhost";

/// The hook git runs after `git worktree add`; berth runs it the same way.
pub const POST_CHECKOUT_HOOK: &str = "post-checkout";
