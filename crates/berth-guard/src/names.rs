//! Every user-visible name berth uses: the tool, its files and folders, config keys, environment
//! variables and the branch prefix. A name changes here and nowhere else.

/// How a person types the tool.
pub const TOOL: &str = "git berth";
/// The binary git finds on `PATH`.
pub const BIN: &str = "git-berth";
/// Where a bug in berth is reported: an internal error names it.
pub const ISSUES_URL: &str = "https://github.com/git-berth/git-berth/issues";

/// Folder under the common dir that holds berth's per-repository state.
pub const STATE_DIR: &str = "berth";
/// The registry of managed worktrees, inside [`STATE_DIR`].
pub const REGISTRY_FILE: &str = "registry.toml";
/// The lock that guards every registry write, inside [`STATE_DIR`].
pub const REGISTRY_LOCK: &str = "registry.lock";
/// Folder inside [`STATE_DIR`] with one record per git lock file berth is taking or holds (its
/// path, berth's pid and start time), so that a lock a killed berth left is known to be its own.
pub const LOCKS_DIR: &str = "locks";
/// File in a linked worktree's own admin folder (`<common dir>/worktrees/<id>/`) that lists who
/// holds the worktree, its claim and the agents berth launched there, for the guard to read
/// without the registry. Git ignores it and removes it with the folder.
pub const HOLDERS_FILE: &str = "berth-holders";
/// Folder under `$XDG_DATA_HOME` (or `~/.local/share`) that holds worktrees and machine-wide state.
pub const DATA_DIR: &str = "git-berth";
/// The folder of the data directory that holds the repositories fleets clone, one folder each
/// named after the hash of its URL.
pub const CLONES_DIR: &str = "clones";

/// Branch prefix when `berth.branchPrefix` is not set.
pub const DEFAULT_BRANCH_PREFIX: &str = "berth/";
/// Trunk when neither `berth.trunk` nor the primary checkout names one.
pub const DEFAULT_TRUNK: &str = "main";
/// Port range when `berth.portRange` is not set; it is cut into units of [`PORT_UNIT`] ports.
pub const DEFAULT_PORT_RANGE: &str = "24000-24999";
pub const PORT_UNIT: u16 = 10;
/// The most ports a project may ask for (`.worktree-hooks/ports` and `install --ports` hold 1 to
/// this).
pub const MAX_PORTS: u16 = 1000;
/// How long a setup or teardown hook may run when `berth.hookTimeout` is not set.
pub const DEFAULT_HOOK_TIMEOUT: &str = "15m";
/// How long a hook's process group gets between TERM and KILL.
pub const HOOK_KILL_GRACE_SECS: u64 = 5;
/// How long a claim lives when `berth.claimTtl` is not set.
pub const DEFAULT_CLAIM_TTL: &str = "12h";

/// Git configuration keys berth reads.
pub mod config {
    pub const WORKTREE_BASE: &str = "berth.worktreeBase";
    pub const BRANCH_PREFIX: &str = "berth.branchPrefix";
    pub const TRUNK: &str = "berth.trunk";
    pub const CLAIM_TTL: &str = "berth.claimTtl";
    pub const PORT_RANGE: &str = "berth.portRange";
    pub const HOOK_TIMEOUT: &str = "berth.hookTimeout";
    /// `berth.runtime.<name>.command`: the command line that starts an agent runtime.
    pub const RUNTIME_PREFIX: &str = "berth.runtime.";
    pub const RUNTIME_SUFFIX: &str = ".command";
    /// The gate command `ship` runs when `--gate` is not given.
    pub const GATE: &str = "berth.gate";
    /// `true` lets the session that holds a worktree approve its own head.
    pub const SELF_REVIEW: &str = "berth.selfReview";
    /// The command line a pipeline's judge runs, the prompt added as its last argument.
    pub const JUDGE_COMMAND: &str = "berth.judge.command";
}

/// Environment variables berth reads.
pub mod env {
    /// Where user data lives (XDG base directory specification).
    pub const XDG_DATA_HOME: &str = "XDG_DATA_HOME";
    /// How `git -c key=value` hands its values to the commands it runs.
    pub const GIT_CONFIG_PARAMETERS: &str = "GIT_CONFIG_PARAMETERS";
    /// The session that holds claims, when `--session` is not given.
    pub const SESSION: &str = "BERTH_SESSION";
    /// The process whose life a claim follows, when the nearest agent ancestor is not the one.
    pub const SESSION_PID: &str = "BERTH_SESSION_PID";
    /// Escape hatch: `1` lets an agent act in the primary checkout.
    pub const ALLOW_MAIN_WORKTREE: &str = "BERTH_ALLOW_MAIN_WORKTREE";
    /// `1` marks the orchestrating (master) session, which may work in the primary checkout.
    pub const MASTER_SESSION: &str = "BERTH_MASTER_SESSION";
    /// Set to disable colour (<https://no-color.org>).
    pub const NO_COLOR: &str = "NO_COLOR";
    /// An agent's layer: `0` the master, `1` a tab of its own, `2` a split beside its parent.
    /// Unset is a person, who counts as layer 0.
    pub const AGENT_LAYER: &str = "BERTH_AGENT_LAYER";
    /// The branch an agent's worktree is on.
    pub const AGENT_BRANCH: &str = "BERTH_AGENT_BRANCH";
    /// The absolute path of an agent's worktree.
    pub const AGENT_WORKTREE: &str = "BERTH_AGENT_WORKTREE";
    /// The agent's name, as `git berth agents` lists it.
    pub const AGENT_NAME: &str = "BERTH_AGENT_NAME";
    /// The `--prompt` a `shell` agent was given.
    pub const AGENT_PROMPT: &str = "BERTH_AGENT_PROMPT";
    /// The file that holds an agent's worktree norms (its standing instructions).
    pub const AGENT_NORMS: &str = "BERTH_AGENT_NORMS";
    /// The folder a fleet's agents share (`<common dir>/berth/fleets/<fleet>/shared`), what the
    /// seed's prompts call `/fleet`.
    pub const FLEET_DIR: &str = "BERTH_FLEET_DIR";
    /// A fleet agent's worktrees, one per repository its manifest's `repos` names, in that
    /// order, separated by `:`; the agent starts in the first.
    pub const AGENT_REPOS: &str = "BERTH_AGENT_REPOS";
    /// The exit code an agent ended with, given to its `on_exit`, `on_complete` and `on_fail`
    /// commands (128 + the signal's number when a signal ended it, as a shell reports it).
    pub const AGENT_EXIT: &str = "BERTH_AGENT_EXIT";
    /// The JSON file of a pipeline judge's candidates (name, worktree, branch, base, diff,
    /// message), for a judge that is a program rather than a model.
    pub const JUDGE_CANDIDATES: &str = "BERTH_JUDGE_CANDIDATES";
    /// `1`: `git berth master` prints what it would run and launches nothing.
    pub const MASTER_DRY_RUN: &str = "BERTH_MASTER_DRY_RUN";
    /// `1`: `git berth ui` leaves right after drawing its first full frame (for benchmarks).
    pub const UI_EXIT_AFTER_FIRST_FRAME: &str = "BERTH_UI_EXIT_AFTER_FIRST_FRAME";
}

/// Identity written into reflogs when the user configured none, as git falls back to `user@host`.
pub const COMMITTER_NAME_FALLBACK: &str = "git-berth";
pub const COMMITTER_EMAIL_FALLBACK: &str = "git-berth@localhost";

/// The hook git runs after `git worktree add`; berth runs it the same way.
pub const POST_CHECKOUT_HOOK: &str = "post-checkout";

/// Files `git berth init` writes or merges, relative to the repository root.
pub const CLAUDE_SETTINGS: &str = ".claude/settings.json";
pub const CODEX_HOOKS: &str = ".codex/hooks.json";
pub const GEMINI_SETTINGS: &str = ".gemini/settings.json";
pub const CURSOR_HOOKS: &str = ".cursor/hooks.json";
pub const COPILOT_HOOKS: &str = ".github/hooks/berth-guard.json";
pub const OPENCODE_PLUGIN: &str = ".opencode/plugins/berth-guard.ts";
pub const PI_EXTENSION: &str = ".pi/extensions/berth-guard.ts";

/// The master agent's name in each runtime (`claude --agent master`, OpenCode's agent, Pi's
/// `/master`), and the definitions `git berth init --with-orchestrator` writes for it.
pub const MASTER_AGENT: &str = "master";
pub const CLAUDE_MASTER_AGENT: &str = ".claude/agents/master.md";
pub const OPENCODE_MASTER_AGENT: &str = ".opencode/agent/master.md";
pub const PI_MASTER_PROMPT: &str = ".pi/prompts/master.md";

/// The project's worktree hooks, committed in the checkout.
pub const HOOKS_DIR: &str = ".worktree-hooks";
/// The clone's own hooks, under the common dir; each replaces the committed one of its name.
pub const LOCAL_HOOKS_DIR: &str = "worktree-hooks";
pub const HOOK_SETUP: &str = "setup";
pub const HOOK_TEARDOWN: &str = "teardown";
pub const HOOK_PORTS: &str = "ports";
pub const HOOK_SEED: &str = "seed";
/// The gate `ship` runs on a landing's candidate before the trunk moves (`install --gate`).
pub const HOOK_GATE: &str = "gate";
/// Untracked files to bring into new worktrees, in gitignore syntax (Claude Code, worktrunk).
pub const WORKTREE_INCLUDE: &str = ".worktreeinclude";
/// Trusted hook contents, inside [`STATE_DIR`].
pub const TRUST_FILE: &str = "trust.toml";
/// Each agent's norms file (`<name>.md`) and, under herdr, its pid file, inside [`STATE_DIR`].
pub const AGENTS_DIR: &str = "agents";
/// Folder inside [`STATE_DIR`] with one folder per fleet (`fleets/<fleet>/`): its state, each
/// headless agent's log (`<agent>.log`) and the folder its agents share.
pub const FLEETS_DIR: &str = "fleets";
/// A fleet's agents and worktrees, inside its folder, and the lock every write of it takes.
pub const FLEET_STATE_FILE: &str = "state.toml";
pub const FLEET_STATE_LOCK: &str = "state.lock";
/// The folder a fleet's agents share (the seed's `/fleet`), inside the fleet's folder.
pub const FLEET_SHARED_DIR: &str = "shared";
/// A headless agent's log inside its fleet's folder: its name's slug and this extension.
pub const FLEET_LOG_EXT: &str = "log";
/// Folder inside [`STATE_DIR`] with one folder per pipeline (`runs/<pipeline>/`), and in it one
/// per run (`<n>/`): its agents' state, logs and shared folder, [`RUN_FILE`] and the verdict.
pub const RUNS_DIR: &str = "runs";
/// A pipeline run's record: its stages, agents, exit codes, times and verdict.
pub const RUN_FILE: &str = "run.json";
/// Folder under `${XDG_CONFIG_HOME:-~/.config}/git-berth/` with a person's pipelines, and in it
/// the folder of review presets (`pipelines/reviews/<name>.{toml,yaml}`), which win over berth's.
pub const PIPELINES_DIR: &str = "pipelines";
pub const REVIEW_PRESETS_DIR: &str = "reviews";
/// The review a `pr-review` or `pr-fix` run's agents write into the run's shared folder, posted
/// as the pull request's comment.
pub const PR_REVIEW_FILE: &str = "review.md";
/// The copy of a preset's manifest kept in its run's folder (`manifest.<ext>`), so the run can be
/// resumed.
pub const RUN_MANIFEST: &str = "manifest";
/// Where `pr-review` fetches a pull request's head: this prefix and its number.
pub const PR_HEAD_REFS: &str = "refs/berth/pr/";
/// Held by the `pipeline run` that runs a run, as long as it runs: a run whose record says it
/// runs while this lock is free was left by a berth that ended without saying so.
pub const RUN_LOCK: &str = "run.lock";
/// Who owns which paths (`git berth own`), inside [`STATE_DIR`]: the store and the lock every
/// write of it takes, and the guard's copy ([`crate::owners`]'s format), rewritten with it.
pub const OWNERS_FILE: &str = "owners.toml";
pub const OWNERS_LOCK: &str = "owners.lock";
pub const OWNERS_GUARD_FILE: &str = "owners.guard";
/// An agent's own session id is this prefix and its name's slug.
pub const AGENT_SESSION_PREFIX: &str = "agent-";
/// The tmux session berth opens for agents when it runs outside tmux: this prefix and the
/// project's name.
pub const TMUX_SESSION_PREFIX: &str = "berth-";
/// The branch prefix `git berth feat <branch>` adds to a branch without one.
pub const FEAT_PREFIX: &str = "feat/";

/// The judge command when `berth.judge.command` is not set: Claude Code, one prompt, no session.
pub const DEFAULT_JUDGE_COMMAND: &str = "claude -p";
/// The judge's verdict, kept in its pipeline run's folder.
pub const JUDGE_VERDICT_FILE: &str = "verdict.json";
/// A judge stage's output, in its run's folder: `<stage>.` and this.
pub const JUDGE_LOG_SUFFIX: &str = "judge.log";
/// The judge's candidates as JSON (what [`env::JUDGE_CANDIDATES`] names), in the run's folder.
pub const JUDGE_CANDIDATES_FILE: &str = "candidates.json";
/// A pipeline judge's review session is this prefix and `<pipeline>/<run id>`; the `/` keeps it
/// apart from every session that can hold a claim, since a session id given to berth has none.
pub const JUDGE_SESSION_PREFIX: &str = "judge:";

/// Machine-wide port blocks and their lock, inside the data dir.
pub const PORTS_FILE: &str = "ports.toml";
pub const PORTS_LOCK: &str = "ports.lock";
/// Review verdicts, one ref per branch: `refs/berth/reviews/<branch>` points at the verdict blob.
pub const REVIEW_REFS: &str = "refs/berth/reviews/";

/// The landing log `ship` appends to and `log` prints, and its lock, inside [`STATE_DIR`].
pub const LANDINGS_FILE: &str = "landings.toml";
pub const LANDINGS_LOCK: &str = "landings.lock";
/// Folder inside [`STATE_DIR`] for `ship`: the gates' logs, its lock and its journal.
pub const SHIP_DIR: &str = "ship";
/// Held while one landing moves the trunk and the primary checkout, inside [`SHIP_DIR`].
pub const SHIP_LOCK: &str = "ship.lock";
/// The landing under way, written before the trunk moves, inside [`SHIP_DIR`]; a kill leaves it
/// for the next `ship` to finish.
pub const SHIP_JOURNAL: &str = "landing.toml";
/// Written inside [`SHIP_DIR`] once `ship` holds the primary checkout's `index.lock` and before it
/// touches a file, holding the landed commit; removed once the index is in place. A kill leaves it,
/// telling the next run that files half written there are that killed run's, not a person's.
pub const SHIP_INDEX_HELD: &str = "index-lock-held";
/// How many gate logs (`<name>-<commit>-<time>.log` in [`SHIP_DIR`]) are kept, newest first:
/// a passed gate's log too, since stderr named it while it ran.
pub const GATE_LOGS_KEPT: usize = 10;
/// Name prefix of the scratch worktrees a gate runs in: `<prefix><pid>.<start>-<name>`.
pub const SHIP_SCRATCH_PREFIX: &str = "_ship-";

/// Environment a setup or teardown hook runs with.
pub mod hook_env {
    pub const NAME: &str = "WORKTREE_NAME";
    pub const PATH: &str = "WORKTREE_PATH";
    pub const BRANCH: &str = "WORKTREE_BRANCH";
    pub const BASE: &str = "WORKTREE_BASE";
    pub const PRIMARY: &str = "WORKTREE_PRIMARY";
    pub const HOOK: &str = "WORKTREE_HOOK";
    pub const PORT: &str = "WORKTREE_PORT";
    pub const PORTS: &str = "WORKTREE_PORTS";
}

/// The name `init` registers berth's MCP server under in each runtime's configuration; its tools
/// reach an agent as `mcp__<this>__<tool>` in Claude Code.
pub const MCP_SERVER: &str = "git-berth";
/// The program that serves the MCP tools, installed beside `git-berth`: `git berth mcp` becomes
/// it, so the server's protocol stack (rmcp, tokio) is in neither `git-berth` nor the guard.
pub const MCP_BINARY: &str = "git-berth-mcp";
/// The MCP tool that only reads (the list of worktrees): `init` puts it on Claude Code's allow
/// list so it runs without a prompt; the tools that change or remove worktrees are left to ask.
pub const MCP_READ_ONLY_TOOL: &str = "worktree_list";
