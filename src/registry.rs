//! The registry of managed worktrees: `<common dir>/berth/registry.toml`.
//! Every write is atomic (temp file + rename) under `registry.lock`, after re-reading the file; a
//! file that does not parse is an error that names it, and is never overwritten. Beside the
//! records it keeps the removals that have begun, so a killed `remove` can be finished.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::{names, statefile};

/// The format this build writes while no agent is recorded. A newer file is refused rather than
/// rewritten without the fields this build does not know.
pub const FORMAT_VERSION: u32 = 1;
/// The format of a file that holds what a build of version 1 would drop on its next write: agents
/// (`[[agent]]`), or a branch berth did not create (`branch_given`, which keeps `remove` from
/// deleting it without `--force`). Such a build must refuse the file instead. The newest format
/// this build reads.
pub const AGENTS_FORMAT_VERSION: u32 = 2;
/// The format of a file that records a headless agent (`backend = "headless"`, a fleet's
/// `background` agent), which a build of version 2 would read as a corrupt terminal name. The
/// newest format this build reads.
pub const HEADLESS_FORMAT_VERSION: u32 = 3;

/// All managed worktrees of one repository.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Registry {
    #[serde(default)]
    pub version: u32,
    #[serde(default, rename = "worktree")]
    pub worktrees: Vec<Record>,
}

/// One managed worktree. Later capabilities (claims, setup state, port blocks) add optional fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The name as the user gave it.
    pub name: String,
    /// The name as a safe path and ref component: the folder name and the branch suffix.
    pub slug: String,
    pub path: PathBuf,
    /// Short branch name, such as `berth/auth`.
    pub branch: String,
    /// What `--base` named (`HEAD`, `main`, a commit), as typed.
    pub base_ref: String,
    /// The commit the branch started from (written in hex; empty when the worktree was adopted
    /// on an unborn branch).
    #[serde(with = "hex_id")]
    pub base_commit: Option<gix::ObjectId>,
    /// Seconds since the Unix epoch.
    pub created: u64,
    /// Who holds the worktree, if anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<crate::session::Claim>,
    /// Written before the worktree is made and cleared after: a record still marked when its
    /// lock is free belongs to an `add` that died midway, and is rolled back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creating: Option<Creating>,
    /// Where the setup hook stands; `None` when the project has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<SetupState>,
    /// The worktree's machine-wide port block, when the project asks for ports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<crate::ports::Block>,
    /// The branch was there before berth (`add --branch`, or an adopted worktree): berth
    /// deletes it only with `--force`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub branch_given: bool,
}

impl Record {
    /// The base commit in hex, as hooks and JSON show it (empty when there is none).
    pub fn base_hex(&self) -> String {
        self.base_commit
            .map(|id| id.to_string())
            .unwrap_or_default()
    }
}

/// A commit id in the registry: its hex, or an empty string for none. Text that is not a whole
/// id reads as none, as every reader of the hex string treated it before it was typed.
mod hex_id {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(id: &Option<gix::ObjectId>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&id.map(|id| id.to_string()).unwrap_or_default())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<gix::ObjectId>, D::Error> {
        let text = String::deserialize(d)?;
        if text.is_empty() {
            return Ok(None);
        }
        Ok(gix::ObjectId::from_hex(text.as_bytes()).ok())
    }
}

/// Where a worktree's setup hook stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SetupState {
    /// Not run yet, or interrupted: the next `add` or `setup` runs it.
    Pending,
    Done,
    /// It failed: the next `add` or `setup` runs it again.
    Failed,
}

impl SetupState {
    pub fn as_str(self) -> &'static str {
        match self {
            SetupState::Pending => "pending",
            SetupState::Done => "done",
            SetupState::Failed => "failed",
        }
    }
}

/// A removal that has begun: written (and saved) under the lock before its teardown runs, dropped
/// with its record. It names the record by name and creation time, so that it never applies to a
/// later worktree of the same name, and the remover by pid and start time: while that process
/// lives the worktree is its to remove (others leave it alone, the lock free meanwhile); once it
/// is gone, the next `remove`, `clean` or `prune` finishes what it began. A mark without a pid
/// (an older build wrote it, only ever under the lock) is a dead remover's.
///
/// An older build reading this drops `pid` and takes the mark for a dead one: it unmarks it (the
/// teardown cannot have begun deleting), and the remover, finding its mark gone, keeps the
/// worktree. Nothing is lost, so the format stays as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Removing {
    pub name: String,
    pub created: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid_start: Option<u64>,
}

impl Removing {
    /// The mark of this process removing `record`.
    fn of(record: &Record) -> Self {
        let (pid, pid_start) = me();
        Removing {
            name: record.name.clone(),
            created: record.created,
            pid: Some(pid),
            pid_start,
        }
    }

    fn is(&self, record: &Record) -> bool {
        self.name == record.name && self.created == record.created
    }

    /// The pid of the remover while it lives.
    fn live_remover(&self) -> Option<u32> {
        self.pid
            .filter(|&pid| crate::process::alive(pid, self.pid_start))
    }

    fn mine(&self) -> bool {
        let (pid, start) = me();
        self.pid == Some(pid) && self.pid_start == start
    }
}

/// This process, as a mark names its remover.
fn me() -> (u32, Option<u64>) {
    let pid = std::process::id();
    (pid, crate::process::start_time(pid))
}

/// A terminal berth can open agents in. Saved in an agent's record by its lowercase name; a
/// name this build does not know makes the registry corrupt (a later terminal comes with a new
/// format version, so an older build refuses the file as newer rather than misdrive the pane).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// A tmux window (a split for layer 2): in the caller's session, else a detached one
    Tmux,
    /// A herdr tab (a split for layer 2), when berth runs inside herdr
    Herdr,
    /// No terminal: print the command to run, or run it here (`--here`)
    None,
    /// No terminal at all: a fleet's `background` agent, run detached by its supervisor with its
    /// output in a log. Chosen by the manifest, never on the command line.
    #[value(skip)]
    Headless,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Tmux => "tmux",
            Backend::Herdr => "herdr",
            Backend::None => "none",
            Backend::Headless => "headless",
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An agent berth launched for this repository (`layer1`, `layer2`, `spawn`, `--here`): where it
/// works, how to find its pane again and how to launch it again. Whether it is alive is read
/// from its process alone (pid and start time), never by asking the terminal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    pub name: String,
    /// 1 (its own tab and worktree) or 2 (a split beside its layer-1 parent, in its worktree).
    pub layer: u8,
    pub runtime: String,
    /// The worktree it works in, absolute.
    pub worktree: PathBuf,
    /// The managed worktree's name (its `--worktree` group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree_name: Option<String>,
    pub branch: String,
    /// `tmux`, `herdr` or `none` (launched with `--here`).
    pub backend: Backend,
    /// The pane's id in its terminal (`%3` in tmux); panes are found again by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane: Option<String>,
    /// The tmux server's socket, so later commands reach the same server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub socket: Option<PathBuf>,
    /// The agent's process, and its start time (clock ticks since boot) so a reused pid is not
    /// taken for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid_start: Option<u64>,
    /// Its own session (`BERTH_SESSION`), which holds its claims.
    pub session: String,
    /// A layer-2 agent's layer-1 parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The runtime's command line before the norms and the prompt are added (what `respawn`
    /// builds on).
    pub base: Vec<String>,
    /// The whole command line it was launched with.
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Seconds since the Unix epoch.
    pub started: u64,
    /// The environment berth gave it (beside the two hatches, which it removes).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

impl Agent {
    /// Whether its process still runs: pid and start time, from `/proc` alone.
    pub fn alive(&self) -> bool {
        self.pid
            .is_some_and(|pid| crate::process::alive(pid, self.pid_start))
    }
}

/// The file as written: the registry and the removals that have begun. The marks live beside
/// the records, not in them, so that a record is the same value in every caller.
#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    version: u32,
    #[serde(default, rename = "worktree")]
    worktrees: Vec<Record>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    removing: Vec<Removing>,
    #[serde(default, rename = "agent", skip_serializing_if = "Vec::is_empty")]
    agents: Vec<Agent>,
}

/// What an unfinished `add` had begun, so that rolling it back removes only what it made, and
/// who is making it: a mark whose process lives is that add's own (left alone by every other
/// command), one whose process is gone is a killed add's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Creating {
    /// The branch was to be created by this add (and may be deleted again).
    pub new_branch: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid_start: Option<u64>,
}

impl Creating {
    /// The mark of this process beginning an add.
    pub fn mine(new_branch: bool) -> Self {
        let (pid, pid_start) = me();
        Creating {
            new_branch,
            pid: Some(pid),
            pid_start,
        }
    }

    /// The live process making the worktree, if any. A mark without a pid is an older berth's,
    /// which held the lock throughout: it is gone.
    pub fn maker(&self) -> Option<u32> {
        self.pid
            .filter(|&pid| crate::process::alive(pid, self.pid_start))
    }
}

impl Registry {
    /// The record for `name`: its exact name first, else its slug.
    pub fn find(&self, name: &str) -> Option<&Record> {
        self.worktrees
            .iter()
            .find(|r| r.name == name)
            .or_else(|| self.worktrees.iter().find(|r| r.slug == name))
    }

    pub fn find_exact_mut(&mut self, name: &str) -> Option<&mut Record> {
        self.worktrees.iter_mut().find(|r| r.name == name)
    }

    pub fn find_mut(&mut self, name: &str) -> Option<&mut Record> {
        let at = self
            .worktrees
            .iter()
            .position(|r| r.name == name)
            .or_else(|| self.worktrees.iter().position(|r| r.slug == name))?;
        self.worktrees.get_mut(at)
    }

    pub fn remove(&mut self, name: &str) -> Option<Record> {
        let at = self.worktrees.iter().position(|r| r.name == name)?;
        Some(self.worktrees.remove(at))
    }
}

/// Where the registry of one repository lives.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

/// The registry held under its lock; dropping it releases the lock without writing.
pub struct Locked {
    store: Store,
    _lock: crate::lockwait::Held,
    pub registry: Registry,
    removing: Vec<Removing>,
    /// The agents berth launched, saved with the registry.
    pub agents: Vec<Agent>,
}

impl Store {
    /// The store under `state_dir` (`<common dir>/berth`).
    pub fn new(state_dir: PathBuf) -> Self {
        Store { dir: state_dir }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(names::REGISTRY_FILE)
    }

    /// Read without the lock: a rename is atomic, so a reader sees the old file or the new one.
    pub fn load(&self) -> Result<Registry> {
        Ok(read(&self.path())?.0)
    }

    /// The agents berth launched, read without the lock.
    pub fn agents(&self) -> Result<Vec<Agent>> {
        Ok(read(&self.path())?.2)
    }

    /// The records whose removal was begun by a process that is gone, read without the lock.
    pub fn removing(&self) -> Result<Vec<Record>> {
        let (registry, marks, _) = read(&self.path())?;
        Ok(registry
            .worktrees
            .into_iter()
            .filter(|r| {
                marks
                    .iter()
                    .any(|mark| mark.is(r) && mark.live_remover().is_none())
            })
            .collect())
    }

    /// The live process removing `record`, if any, read without the lock.
    pub fn removed_by(&self, record: &Record) -> Result<Option<u32>> {
        let (_, marks, _) = read(&self.path())?;
        Ok(marks
            .iter()
            .find(|mark| mark.is(record))
            .and_then(Removing::live_remover))
    }

    /// Take the lock and read the registry fresh, so a change is made on the latest state.
    pub fn lock(&self) -> Result<Locked> {
        fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create {}", self.dir.display()))?;
        let lock_path = self.dir.join(names::REGISTRY_LOCK);
        let lock = crate::lockwait::lock(&lock_path, "the registry")?;
        let (registry, removing, agents) = read(&self.path())?;
        Ok(Locked {
            store: self.clone(),
            _lock: lock,
            registry,
            removing,
            agents,
        })
    }

    /// Change the registry under its lock and save it when the change succeeds.
    pub fn update<T>(&self, change: impl FnOnce(&mut Registry) -> Result<T>) -> Result<T> {
        let mut locked = self.lock()?;
        let before = locked.registry.clone();
        let out = change(&mut locked.registry)?;
        if locked.registry != before {
            locked.save()?;
        }
        Ok(out)
    }
}

impl Locked {
    /// Write the registry atomically; the lock stays held until this value is dropped. A mark
    /// whose record is gone goes with it.
    pub fn save(&mut self) -> Result<()> {
        let version = if self.agents.iter().any(|a| a.backend == Backend::Headless) {
            HEADLESS_FORMAT_VERSION
        } else if self.agents.is_empty() && !self.registry.worktrees.iter().any(|r| r.branch_given)
        {
            FORMAT_VERSION
        } else {
            AGENTS_FORMAT_VERSION
        };
        self.registry.version = version;
        let registry = &self.registry;
        self.removing
            .retain(|mark| registry.worktrees.iter().any(|r| mark.is(r)));
        let file = File {
            version,
            worktrees: self.registry.worktrees.clone(),
            removing: self.removing.clone(),
            agents: self.agents.clone(),
        };
        write_atomic(&self.store.path(), &file)?;
        write_holders(&self.registry.worktrees, &self.agents)
    }

    /// Refuse unless the registry can be written (its folder takes a new file): checked before a
    /// removal destroys anything.
    pub fn check_writable(&self) -> Result<()> {
        statefile::check_writable(&self.store.path(), "registry")
    }

    /// Mark `record` as being removed by this process; the caller saves before its teardown runs
    /// and checks first that no live process removes it ([`Locked::removed_by`]).
    pub fn mark_removing(&mut self, record: &Record) {
        self.unmark_removing(record);
        self.removing.push(Removing::of(record));
    }

    /// Drop the mark of a removal that had not begun deleting (the worktree stays).
    pub fn unmark_removing(&mut self, record: &Record) {
        self.removing.retain(|mark| !mark.is(record));
    }

    /// The live process removing `record` (this one included), if any.
    pub fn removed_by(&self, record: &Record) -> Option<u32> {
        self.mark_of(record).and_then(Removing::live_remover)
    }

    /// Whether this process marked `record` as its to remove (and the mark is still there).
    pub fn removing_mine(&self, record: &Record) -> bool {
        self.mark_of(record).is_some_and(Removing::mine)
    }

    /// Whether a removal of `record` was begun by a process that is gone.
    pub fn is_removing(&self, record: &Record) -> bool {
        self.mark_of(record)
            .is_some_and(|mark| mark.live_remover().is_none())
    }

    fn mark_of(&self, record: &Record) -> Option<&Removing> {
        self.removing.iter().find(|mark| mark.is(record))
    }

    /// The records whose removal was begun by a process that is gone: each is to be finished (or
    /// unmarked). A live remover's is its own to carry out.
    pub fn removing(&self) -> Vec<Record> {
        self.registry
            .worktrees
            .iter()
            .filter(|r| self.is_removing(r))
            .cloned()
            .collect()
    }
}

type Parsed = (Registry, Vec<Removing>, Vec<Agent>);

fn read(path: &Path) -> Result<Parsed> {
    match statefile::read_text(path, "registry")? {
        None => Ok((Registry::default(), Vec::new(), Vec::new())),
        Some(text) => {
            parse_file(&text).map_err(|reason| statefile::corrupt(path, "registry", &reason))
        }
    }
}

/// Parse a registry text; the error is one line.
pub fn parse(text: &str) -> Result<Registry, String> {
    parse_file(text).map(|(registry, _, _)| registry)
}

fn parse_file(text: &str) -> Result<Parsed, String> {
    let file: File = statefile::parse(text, HEADLESS_FORMAT_VERSION)?;
    let registry = Registry {
        version: file.version,
        worktrees: file.worktrees,
    };
    Ok((registry, file.removing, file.agents))
}

/// Who holds each worktree, as the guard reads it (`berth_guard::holders`): its claim and the
/// agents berth launched there, written into the worktree's own admin folder where it changed.
/// A worktree whose `.git` is gone has nothing left to keep out of.
fn write_holders(worktrees: &[Record], agents: &[Agent]) -> Result<()> {
    use berth_guard::holders::{self, Holder};
    for record in worktrees {
        let mut held: Vec<Holder> = record
            .claim
            .iter()
            .map(|c| Holder {
                pid: c.pid,
                start: c.pid_start,
                session: c.session.clone(),
            })
            .collect();
        held.extend(
            agents
                .iter()
                .filter(|a| a.worktree == record.path)
                .filter_map(|a| {
                    Some(Holder {
                        pid: a.pid?,
                        start: a.pid_start,
                        session: a.session.clone(),
                    })
                }),
        );
        let dot_git = record.path.join(".git");
        let admin = match berth_guard::probe::admin_of(&record.path, &dot_git) {
            Ok(admin) if admin.is_dir() => admin,
            _ => continue,
        };
        let path = admin.join(names::HOLDERS_FILE);
        let now = std::fs::read_to_string(&path).ok();
        if held.is_empty() {
            if now.is_some() {
                std::fs::remove_file(&path)
                    .with_context(|| format!("cannot remove {}", path.display()))?;
            }
            continue;
        }
        let text = holders::render(&held);
        if now.as_deref() != Some(text.as_str()) {
            statefile::write_atomic(&path, text.as_bytes(), None)?;
        }
    }
    Ok(())
}

fn write_atomic(path: &Path, file: &File) -> Result<()> {
    let text = toml::to_string(file).context("cannot serialize the registry")?;
    statefile::write_atomic(path, text.as_bytes(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str) -> Record {
        Record {
            name: name.into(),
            slug: crate::slug::slug(name).unwrap(),
            path: PathBuf::from(format!("/wt/{name}")),
            branch: format!("berth/{name}"),
            base_ref: "HEAD".into(),
            base_commit: Some(gix::ObjectId::null(gix::hash::Kind::Sha1)),
            created: 1_700_000_000,
            claim: None,
            creating: None,
            setup: None,
            ports: None,
            branch_given: false,
        }
    }

    /// A test's own store folder under the temp folder (not made yet), removed when the test
    /// ends, passed or not.
    struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(test: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("berth-registry-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        Scratch(dir)
    }

    #[test]
    fn a_mark_names_its_live_remover_and_one_without_a_pid_is_a_dead_removers() {
        let dir = scratch("marks");
        let store = Store::new(dir.0.clone());
        let mut locked = store.lock().unwrap();
        locked.registry.worktrees.push(record("a"));
        locked.registry.worktrees.push(record("b"));
        locked.mark_removing(&record("a"));
        locked.save().unwrap();
        drop(locked);
        let text = fs::read_to_string(store.path()).unwrap();
        // An older build wrote `b`'s mark without a pid: under the lock, always, so it is dead.
        fs::write(
            store.path(),
            format!("{text}\n[[removing]]\nname = \"b\"\ncreated = 1700000000\n"),
        )
        .unwrap();
        let locked = store.lock().unwrap();
        assert_eq!(locked.removed_by(&record("a")), Some(std::process::id()));
        assert!(locked.removing_mine(&record("a")));
        assert!(
            !locked.is_removing(&record("a")),
            "a live remover's is no dead mark"
        );
        assert_eq!(locked.removed_by(&record("b")), None);
        assert!(locked.is_removing(&record("b")));
        assert_eq!(locked.removing(), vec![record("b")]);
        drop(locked);
        assert_eq!(store.removing().unwrap(), vec![record("b")]);
        assert_eq!(
            store.removed_by(&record("a")).unwrap(),
            Some(std::process::id())
        );
    }

    #[test]
    fn a_missing_file_is_an_empty_registry() {
        let dir = scratch("missing");
        let store = Store::new(dir.0.clone());
        assert_eq!(store.load().unwrap(), Registry::default());
    }

    #[test]
    fn a_saved_registry_reads_back_the_same() {
        let dir = scratch("roundtrip");
        let store = Store::new(dir.0.clone());
        store
            .update(|r| {
                r.worktrees.push(record("a"));
                r.worktrees.push(record("feat/b"));
                Ok(())
            })
            .unwrap();
        let back = store.load().unwrap();
        assert_eq!(back.version, FORMAT_VERSION);
        assert_eq!(back.worktrees, vec![record("a"), record("feat/b")]);
        assert_eq!(back.find("feat-b").unwrap().name, "feat/b");
        let leftovers: Vec<_> = fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp."))
            .collect();
        assert!(leftovers.is_empty(), "temp files left: {leftovers:?}");
    }

    #[test]
    fn a_corrupt_file_is_named_and_left_as_it_was() {
        let dir = scratch("corrupt");
        fs::create_dir_all(&dir.0).unwrap();
        let store = Store::new(dir.0.clone());
        fs::write(store.path(), "[[worktree]\nname = ").unwrap();
        let err = store.update(|_| Ok(())).unwrap_err();
        let (line, hint) = crate::error::render(&err);
        assert!(line.starts_with("corrupt registry "), "{line}");
        assert!(
            line.contains("registry.toml: line 1, column 12: "),
            "{line}"
        );
        assert!(hint.is_some());
        assert_eq!(fs::read(store.path()).unwrap(), b"[[worktree]\nname = ");
    }

    #[test]
    fn a_newer_format_is_refused_not_rewritten() {
        let err = parse("version = 99\n").unwrap_err();
        assert!(err.contains("newer"), "{err}");
    }

    fn agent(name: &str) -> Agent {
        Agent {
            name: name.into(),
            layer: 1,
            runtime: "shell".into(),
            worktree: PathBuf::from(format!("/wt/{name}")),
            worktree_name: Some(name.into()),
            branch: format!("berth/{name}"),
            backend: Backend::Tmux,
            pane: Some("%3".into()),
            socket: Some(PathBuf::from("/tmp/tmux-1/default")),
            pid: Some(4121),
            pid_start: Some(7),
            session: format!("agent-{name}"),
            parent: None,
            base: vec!["sh".into()],
            command: vec!["sh".into()],
            prompt: Some("say \"hi\"\nthen stop".into()),
            started: 1_700_000_000,
            env: BTreeMap::from([("BERTH_AGENT_LAYER".to_owned(), "1".to_owned())]),
        }
    }

    #[test]
    fn a_branch_berth_did_not_create_marks_the_file_as_version_2() {
        let dir = scratch("given");
        let store = Store::new(dir.0.clone());
        store
            .update(|r| {
                r.worktrees.push(Record {
                    branch_given: true,
                    ..record("a")
                });
                Ok(())
            })
            .unwrap();
        let text = fs::read_to_string(store.path()).unwrap();
        assert!(text.contains("version = 2"), "{text}");
        assert!(text.contains("branch_given = true"), "{text}");
    }

    #[test]
    fn agents_are_saved_beside_the_worktrees_and_mark_the_file_as_version_2() {
        let dir = scratch("agents");
        let store = Store::new(dir.0.clone());
        store
            .update(|r| {
                r.worktrees.push(record("a"));
                Ok(())
            })
            .unwrap();
        assert!(
            !fs::read_to_string(store.path())
                .unwrap()
                .contains("version = 2")
        );
        let mut locked = store.lock().unwrap();
        locked.agents.push(agent("a"));
        locked.save().unwrap();
        drop(locked);
        let text = fs::read_to_string(store.path()).unwrap();
        assert!(text.contains("version = 2"), "{text}");
        assert!(text.contains("[[agent]]"), "{text}");
        assert_eq!(store.agents().unwrap(), vec![agent("a")]);
        // A write that changes only the worktrees keeps the agents.
        store
            .update(|r| {
                r.worktrees.push(record("b"));
                Ok(())
            })
            .unwrap();
        assert_eq!(store.agents().unwrap(), vec![agent("a")]);
        assert_eq!(store.load().unwrap().worktrees.len(), 2);
    }

    #[test]
    fn a_headless_agent_marks_the_file_as_version_3_which_an_older_build_refuses_as_newer() {
        let dir = scratch("headless");
        let store = Store::new(dir.0.clone());
        let mut locked = store.lock().unwrap();
        locked.agents.push(Agent {
            backend: Backend::Headless,
            ..agent("a")
        });
        locked.save().unwrap();
        drop(locked);
        let text = fs::read_to_string(store.path()).unwrap();
        assert!(text.contains("version = 3"), "{text}");
        assert_eq!(store.agents().unwrap()[0].backend, Backend::Headless);
        let older = statefile::parse::<File>(&text, AGENTS_FORMAT_VERSION).unwrap_err();
        assert!(older.contains("newer"), "{older}");
    }

    #[test]
    fn an_agents_backend_is_saved_as_its_lowercase_name_and_read_back_as_the_same_terminal() {
        for (backend, name) in [
            (Backend::Tmux, "tmux"),
            (Backend::Herdr, "herdr"),
            (Backend::None, "none"),
            (Backend::Headless, "headless"),
        ] {
            let file = File {
                version: AGENTS_FORMAT_VERSION,
                worktrees: Vec::new(),
                removing: Vec::new(),
                agents: vec![Agent {
                    backend,
                    ..agent("a")
                }],
            };
            let text = toml::to_string(&file).unwrap();
            assert!(text.contains(&format!("backend = \"{name}\"\n")), "{text}");
            assert_eq!(parse_file(&text).unwrap().2[0].backend, backend);
            assert_eq!(backend.to_string(), name);
        }
    }

    #[test]
    fn an_agent_with_a_backend_this_build_does_not_know_makes_the_registry_corrupt() {
        let dir = scratch("backend");
        fs::create_dir_all(&dir.0).unwrap();
        let store = Store::new(dir.0.clone());
        let mut locked = store.lock().unwrap();
        locked.agents.push(agent("a"));
        locked.save().unwrap();
        drop(locked);
        let text = fs::read_to_string(store.path())
            .unwrap()
            .replace("backend = \"tmux\"", "backend = \"zellij\"");
        fs::write(store.path(), &text).unwrap();
        let err = store.agents().unwrap_err();
        let (line, hint) = crate::error::render(&err);
        assert!(line.starts_with("corrupt registry "), "{line}");
        assert!(line.contains("registry.toml: line "), "{line}");
        assert!(line.contains("zellij"), "{line}");
        assert!(hint.is_some());
        assert_eq!(fs::read_to_string(store.path()).unwrap(), text);
    }

    #[test]
    fn a_file_without_agents_reads_as_it_did_and_a_version_4_is_refused() {
        let text = "version = 1\n";
        assert!(parse(text).unwrap().worktrees.is_empty());
        assert!(parse("version = 4\n").unwrap_err().contains("newer"));
    }

    #[test]
    fn unknown_fields_from_a_later_issue_do_not_break_reading() {
        let text = "version = 1\n[[worktree]]\nname = \"a\"\nslug = \"a\"\npath = \"/a\"\nbranch = \"berth/a\"\nbase_ref = \"HEAD\"\nbase_commit = \"00\"\ncreated = 1\n";
        assert_eq!(parse(text).unwrap().worktrees.len(), 1);
    }
}
