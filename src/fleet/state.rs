//! A fleet's state: `<common dir>/berth/fleets/<fleet>/state.toml`, what `up` started (each
//! agent, where it works, its process and its supervisor's, how it ended) and the worktrees the
//! fleet made that are still there. Every write re-reads the file and writes it whole and
//! atomically under `state.lock`, since `up`, `down` and each agent's supervisor all write it; a
//! file that does not parse is an error naming it, and is never overwritten.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::registry::Backend;
use crate::{names, process, statefile};

/// The format this build writes and the newest it reads. A state whose worktrees include one
/// made in a clone (`repo`) is version 2, so that an older build, which would take that
/// worktree's name down in this repository, refuses it instead; every other state stays 1.
pub const FORMAT_VERSION: u32 = 2;

/// The version a state is written with: the oldest that holds all it records.
fn version_for(state: &State) -> u32 {
    if state.worktrees.iter().any(|w| w.repo.is_some()) {
        2
    } else {
        1
    }
}

/// A fleet as `up` started it and its agents and `down` changed it since.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    #[serde(default)]
    pub version: u32,
    /// The fleet's name, as its manifest writes it.
    pub name: String,
    /// The manifest, as the person named it.
    pub manifest: String,
    /// Seconds since the Unix epoch.
    pub started: u64,
    /// When `fleet down` took it down; none while it is up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub down: Option<u64>,
    #[serde(default, rename = "agent")]
    pub agents: Vec<AgentState>,
    /// The worktrees the fleet made that are still there: a group's, one per group.
    #[serde(default, rename = "worktree", skip_serializing_if = "Vec::is_empty")]
    pub worktrees: Vec<WorktreeState>,
}

/// One agent of a fleet.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentState {
    /// Its name in the manifest.
    pub name: String,
    /// Its name's slug: its key here, and its log's name.
    pub slug: String,
    /// Its name among every agent berth launched here (`git berth agents`): `<fleet>/<slug>`.
    pub agent: String,
    pub runtime: String,
    /// Headless (`background = true`), with its output in [`AgentState::log`].
    pub background: bool,
    /// The managed worktree it works in; none for an agent outside any checkout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    /// Where it works, once launched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<Backend>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane: Option<String>,
    /// The agent's process and its start time (clock ticks since boot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid_start: Option<u64>,
    /// A headless agent's supervisor, which waits for it and records how it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supervisor: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supervisor_start: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<PathBuf>,
    /// Seconds since the Unix epoch; 0 until it is launched.
    #[serde(default)]
    pub started: u64,
    /// When its supervisor saw it end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<u64>,
    /// Its exit code, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    /// The signal that ended it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// What the fleet set and took out of its environment (`BERTH_FLEET_DIR`, an identity, ...):
    /// its end commands run with the same.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unset: Vec<String>,
    /// Shell commands run in its folder when it ends: always, on exit 0, otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_exit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_complete: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_fail: Option<String>,
    /// Its `max_cost` in US dollars: advisory, shown by `fleet ls`; nothing enforces it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost: Option<String>,
    /// The `notify` targets its supervisor runs when it ends: `bell`, `notify-send`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notify: Vec<String>,
    /// Why its launch failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Where an agent stands, as `fleet ls` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Run {
    /// Not launched (yet, or its launch failed).
    Pending,
    Running,
    /// It ended and its supervisor recorded how.
    Exited,
    /// Its process is gone and nothing recorded how it ended (an interactive agent, or a
    /// supervisor that was killed).
    Gone,
}

impl Run {
    pub fn as_str(self) -> &'static str {
        match self {
            Run::Pending => "pending",
            Run::Running => "running",
            Run::Exited => "exited",
            Run::Gone => "gone",
        }
    }
}

impl AgentState {
    /// Whether its own process runs.
    pub fn alive(&self) -> bool {
        self.pid
            .is_some_and(|pid| process::alive(pid, self.pid_start))
    }

    /// Whether its supervisor runs (it may still be running the agent's `on_exit`).
    pub fn supervisor_alive(&self) -> bool {
        self.supervisor
            .is_some_and(|pid| process::alive(pid, self.supervisor_start))
    }

    /// Where it stands now. An exit recorded wins over a pid: the pid may be reused since.
    pub fn run(&self) -> Run {
        if self.ended.is_some() {
            Run::Exited
        } else if self.alive() {
            Run::Running
        } else if self.pid.is_none() && self.started == 0 {
            Run::Pending
        } else {
            Run::Gone
        }
    }

    /// Whether it started, and its process and its supervisor are both gone while nothing
    /// recorded how it ended (a supervisor killed with it). Read the state again before taking
    /// this as final: the supervisor may have recorded the end and gone since it was read.
    pub fn lost(&self) -> bool {
        self.ended.is_none() && self.pid.is_some() && !self.alive() && !self.supervisor_alive()
    }

    /// The exit code as a shell reports it: the code, or 128 + the signal's number.
    pub fn exit_code(&self) -> Option<i32> {
        self.exit.or(self.signal.map(|s| 128 + s))
    }

    /// Seconds it ran: until it ended, else until `now`; none before it started.
    pub fn elapsed(&self, now: u64) -> Option<u64> {
        (self.started > 0).then(|| self.ended.unwrap_or(now).saturating_sub(self.started))
    }
}

/// A worktree a fleet made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeState {
    /// Its managed name (`<fleet>/<group>`).
    pub name: String,
    /// Its group within the fleet.
    pub group: String,
    pub branch: String,
    /// The clone of another repository it was made in; none for this repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<PathBuf>,
    /// Why the last `down` or `clean` kept it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
    /// The runtimes' folder-trust records `auto_trust` wrote for it, taken out with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trusted: Vec<crate::orchestrator::folder_trust::Grant>,
}

impl State {
    /// Whether the fleet is up: `up` started it and no `down` took it down.
    pub fn is_up(&self) -> bool {
        self.down.is_none()
    }

    /// The agents whose process or supervisor still runs.
    pub fn running(&self) -> Vec<&AgentState> {
        self.agents
            .iter()
            .filter(|a| a.alive() || a.supervisor_alive())
            .collect()
    }

    pub fn agent_mut(&mut self, slug: &str) -> Option<&mut AgentState> {
        self.agents.iter_mut().find(|a| a.slug == slug)
    }
}

/// One fleet's folder: `<common dir>/berth/fleets/<fleet>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fleet {
    pub dir: PathBuf,
}

impl Fleet {
    /// The fleet `slug` of the repository whose state folder is `state_dir`.
    pub fn new(state_dir: &Path, slug: &str) -> Fleet {
        Fleet {
            dir: state_dir.join(names::FLEETS_DIR).join(slug),
        }
    }

    /// The fleet whose folder is `dir` (what a supervisor is handed).
    pub fn at(dir: PathBuf) -> Fleet {
        Fleet { dir }
    }

    /// Its name in the folder: the manifest name's slug.
    pub fn slug(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(names::FLEET_STATE_FILE)
    }

    /// The folder its agents share.
    pub fn shared(&self) -> PathBuf {
        self.dir.join(names::FLEET_SHARED_DIR)
    }

    /// A headless agent's log.
    pub fn log(&self, slug: &str) -> PathBuf {
        self.dir.join(format!("{slug}.{}", names::FLEET_LOG_EXT))
    }

    /// The state, read without the lock (a rename is atomic); `None` when the fleet has none.
    pub fn load(&self) -> Result<Option<State>> {
        read(&self.path())
    }

    /// Take the lock, read the state fresh, change it and write it when `change` succeeds. A
    /// fleet with no state yet starts from an empty one.
    pub fn update<T>(&self, change: impl FnOnce(&mut State) -> Result<T>) -> Result<T> {
        fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create {}", self.dir.display()))?;
        let _lock = crate::lockwait::lock_briefly(&self.dir.join(names::FLEET_STATE_LOCK))?;
        let mut state = read(&self.path())?.unwrap_or_default();
        let before = state.clone();
        let out = change(&mut state)?;
        if state != before {
            state.version = version_for(&state);
            let text = toml::to_string(&state)
                .map_err(|e| crate::error::bug(format!("cannot write the fleet's state: {e}")))?;
            statefile::write_atomic(&self.path(), text.as_bytes(), None)?;
        }
        Ok(out)
    }

    /// [`Fleet::update`] of one agent, by slug; an agent the state does not hold is left alone.
    pub fn update_agent(&self, slug: &str, change: impl FnOnce(&mut AgentState)) -> Result<()> {
        self.update(|state| {
            if let Some(agent) = state.agent_mut(slug) {
                change(agent);
            }
            Ok(())
        })
    }
}

fn read(path: &Path) -> Result<Option<State>> {
    match statefile::read_text(path, "fleet state")? {
        None => Ok(None),
        Some(text) => statefile::parse(&text, FORMAT_VERSION)
            .map(Some)
            .map_err(|reason| statefile::corrupt(path, "fleet state", &reason)),
    }
}

/// Every fleet of the repository whose state folder is `state_dir`, by slug, in name order.
pub fn all(state_dir: &Path) -> Result<Vec<(Fleet, State)>> {
    let dir = state_dir.join(names::FLEETS_DIR);
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    let mut fleets = Vec::new();
    for entry in entries.flatten() {
        let fleet = Fleet::at(entry.path());
        if let Some(state) = fleet.load()? {
            fleets.push((fleet, state));
        }
    }
    fleets.sort_by(|a, b| a.0.dir.cmp(&b.0.dir));
    Ok(fleets)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("berth-fleet-state-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        Scratch(dir)
    }

    fn agent(slug: &str) -> AgentState {
        AgentState {
            name: slug.to_owned(),
            slug: slug.to_owned(),
            agent: format!("f/{slug}"),
            runtime: "shell".to_owned(),
            ..AgentState::default()
        }
    }

    #[test]
    fn a_state_is_written_with_its_version_and_read_back_whole() {
        let dir = scratch("roundtrip");
        let fleet = Fleet::new(&dir.0, "f");
        assert_eq!(fleet.load().unwrap(), None);
        fleet
            .update(|s| {
                s.name = "f".to_owned();
                s.agents.push(agent("a"));
                Ok(())
            })
            .unwrap();
        fleet
            .update_agent("a", |a| {
                a.exit = Some(3);
                a.ended = Some(5);
            })
            .unwrap();
        let text = fs::read_to_string(fleet.path()).unwrap();
        assert!(text.starts_with("version = 1\n"), "{text}");
        let state = fleet.load().unwrap().unwrap();
        assert_eq!(state.agents[0].exit, Some(3));
        assert_eq!(state.agents[0].run(), Run::Exited);
        assert_eq!(all(&dir.0).unwrap().len(), 1);
    }

    #[test]
    fn a_corrupt_state_is_an_error_naming_it_and_is_left_as_it_is() {
        let dir = scratch("corrupt");
        let fleet = Fleet::new(&dir.0, "f");
        fs::create_dir_all(&fleet.dir).unwrap();
        fs::write(fleet.path(), "version = 1\n[[agent]\n").unwrap();
        let err = fleet.update(|_| Ok(())).unwrap_err();
        let (line, hint) = crate::error::render(&err);
        assert!(line.starts_with("corrupt fleet state "), "{line}");
        assert!(line.contains("state.toml"), "{line}");
        assert!(hint.is_some());
        assert_eq!(
            fs::read_to_string(fleet.path()).unwrap(),
            "version = 1\n[[agent]\n"
        );
        fs::write(fleet.path(), "version = 3\n").unwrap();
        let newer = crate::error::render(&fleet.load().unwrap_err()).0;
        assert!(newer.contains("newer"), "{newer}");
    }

    #[test]
    fn a_state_with_a_worktree_in_a_clone_is_version_2_and_any_other_is_1() {
        let dir = scratch("version");
        let fleet = Fleet::new(&dir.0, "f");
        let worktree = |repo: Option<PathBuf>| WorktreeState {
            name: "f/a".to_owned(),
            group: "a".to_owned(),
            branch: "berth/f/a".to_owned(),
            repo,
            kept: None,
            trusted: Vec::new(),
        };
        fleet
            .update(|s| {
                s.worktrees.push(worktree(None));
                Ok(())
            })
            .unwrap();
        assert!(
            fs::read_to_string(fleet.path())
                .unwrap()
                .starts_with("version = 1\n")
        );
        fleet
            .update(|s| {
                s.worktrees.push(worktree(Some(PathBuf::from("/clones/x"))));
                Ok(())
            })
            .unwrap();
        let text = fs::read_to_string(fleet.path()).unwrap();
        assert!(text.starts_with("version = 2\n"), "{text}");
        let back = fleet.load().unwrap().unwrap();
        assert_eq!(back.worktrees[1].repo, Some(PathBuf::from("/clones/x")));
    }

    #[test]
    fn an_agent_is_pending_until_launched_then_running_gone_or_exited() {
        let mut a = agent("a");
        assert_eq!(a.run(), Run::Pending);
        a.started = 10;
        a.pid = Some(std::process::id());
        a.pid_start = process::start_time(std::process::id());
        assert_eq!(a.run(), Run::Running);
        assert_eq!(a.elapsed(25), Some(15));
        a.pid_start = a.pid_start.map(|s| s + 1);
        assert_eq!(a.run(), Run::Gone);
        a.ended = Some(12);
        a.signal = Some(15);
        assert_eq!(a.run(), Run::Exited);
        assert_eq!(a.exit_code(), Some(143));
        assert_eq!(a.elapsed(25), Some(2));
    }
}
