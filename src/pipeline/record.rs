//! A pipeline run's record, `<common dir>/berth/runs/<pipeline>/<n>/run.json`: what was asked
//! (manifest, vars), every stage and agent with its state, exit code, times, worktree, branch,
//! log and final message, and the judge's verdict. Only the run's own process writes it, whole
//! and atomically after every change; `pipeline runs` and `inspect` read it.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::{error, lockwait, names, statefile};

/// The format this build writes and the newest it reads.
pub const FORMAT_VERSION: u32 = 1;

/// How a run, a stage or an agent stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    Queued,
    Running,
    Done,
    Failed,
    /// A stage it depends on failed, so it never started.
    Skipped,
    /// Ctrl-C (or SIGTERM) stopped it.
    Interrupted,
}

impl Standing {
    pub fn as_str(self) -> &'static str {
        match self {
            Standing::Queued => "queued",
            Standing::Running => "running",
            Standing::Done => "done",
            Standing::Failed => "failed",
            Standing::Skipped => "skipped",
            Standing::Interrupted => "interrupted",
        }
    }

    /// Whether `--resume` runs it again: anything but done.
    pub fn redo(self) -> bool {
        self != Standing::Done
    }
}

/// One run of a pipeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    pub version: u32,
    /// The pipeline's name, as its manifest writes it, and its slug.
    pub pipeline: String,
    pub slug: String,
    /// `<slug>-<n>`: what `--resume` and `inspect` take, and the prefix of its worktrees.
    pub id: String,
    /// The manifest, as an absolute path, and the `--var`s it was run with.
    pub manifest: String,
    pub vars: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub state: Standing,
    /// Seconds since the epoch.
    pub started: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<u64>,
    pub stages: Vec<StageRecord>,
    /// The judge's verdict, once one is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::judge::verdict::Verdict>,
    /// The pull request `auto_pr` opened for the winner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageRecord {
    pub name: String,
    pub depends_on: Vec<String>,
    pub state: Standing,
    pub agents: Vec<AgentRecord>,
    /// A judge stage's candidates, its log and why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeRecord>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeRecord {
    pub candidates: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentRecord {
    /// Its name in the plan (a fanned-out copy's own name).
    pub name: String,
    pub slug: String,
    pub runtime: String,
    pub state: Standing,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    pub path: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<PathBuf>,
    /// Its last lines of output: the headless runtime's result text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Why it did not start or how it was lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl RunRecord {
    /// Seconds it took: until it ended, else until `now`.
    pub fn took(&self, now: u64) -> u64 {
        self.ended.unwrap_or(now).saturating_sub(self.started)
    }
}

/// The folder of every run of the pipeline `slug`.
pub fn runs_of(state_dir: &Path, slug: &str) -> PathBuf {
    state_dir.join(names::RUNS_DIR).join(slug)
}

/// Make the folder of a new run of `slug`: the first number after the runs there that `taken`
/// does not refuse (an id whose worktrees are still there, its folder removed by hand); two runs
/// starting at once each get their own (the folder is made, never taken).
pub fn new_run_dir(
    state_dir: &Path,
    slug: &str,
    taken: &dyn Fn(&str) -> bool,
) -> Result<(String, PathBuf)> {
    let all = runs_of(state_dir, slug);
    std::fs::create_dir_all(&all).with_context(|| format!("cannot create {}", all.display()))?;
    let mut n = next_number(&all);
    loop {
        let id = format!("{slug}-{n}");
        if taken(&id) {
            n += 1;
            continue;
        }
        let dir = all.join(n.to_string());
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok((id, dir)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", dir.display())),
        }
    }
}

/// The number after the highest run in the folder of all runs of a pipeline `all`.
pub fn next_number(all: &Path) -> u64 {
    numbers(all).into_iter().max().unwrap_or(0) + 1
}

fn numbers(all: &Path) -> Vec<u64> {
    std::fs::read_dir(all)
        .map(|dir| {
            dir.flatten()
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
                .collect()
        })
        .unwrap_or_default()
}

/// The folder of the run `id` (`<pipeline>-<n>`), if it exists.
pub fn find(state_dir: &Path, id: &str) -> Option<PathBuf> {
    let (slug, n) = id.rsplit_once('-')?;
    n.parse::<u64>().ok()?;
    let dir = runs_of(state_dir, slug).join(n);
    dir.join(names::RUN_FILE).is_file().then_some(dir)
}

/// Hold run `dir` for as long as the value lives: none when another berth runs it now.
pub fn hold(dir: &Path) -> Result<Option<lockwait::Held>> {
    lockwait::try_lock(&dir.join(names::RUN_LOCK))
}

/// How the run in `dir` stands now: as its record says, except that a run recorded as running
/// whose lock no berth holds was left by a berth that ended without saying so: interrupted.
pub fn standing_now(dir: &Path, record: &RunRecord) -> Standing {
    match record.state {
        Standing::Running if matches!(hold(dir), Ok(Some(_))) => Standing::Interrupted,
        state => state,
    }
}

/// Every run of every pipeline here, oldest first; a record that does not parse is an error
/// naming it.
pub fn all(state_dir: &Path) -> Result<Vec<(PathBuf, RunRecord)>> {
    let root = state_dir.join(names::RUNS_DIR);
    let mut out = Vec::new();
    let Ok(pipelines) = std::fs::read_dir(&root) else {
        return Ok(out);
    };
    for pipeline in pipelines.flatten() {
        for n in numbers(&pipeline.path()) {
            let dir = pipeline.path().join(n.to_string());
            if dir.join(names::RUN_FILE).is_file() {
                let record = load(&dir)?;
                out.push((dir, record));
            }
        }
    }
    out.sort_by(|a, b| (a.1.started, &a.1.id).cmp(&(b.1.started, &b.1.id)));
    Ok(out)
}

/// The record in the run folder `dir`.
pub fn load(dir: &Path) -> Result<RunRecord> {
    let path = dir.join(names::RUN_FILE);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read the run record {}", path.display()))?;
    let record: RunRecord = serde_json::from_str(&text).map_err(|e| {
        error::refuse_with_hint(
            format!("the run record {} does not parse: {e}", path.display()),
            "fix it by hand or move it aside; berth never overwrites it",
        )
    })?;
    if record.version > FORMAT_VERSION {
        return Err(error::refuse_with_hint(
            format!(
                "the run record {} is version {}, newer than this build reads ({FORMAT_VERSION})",
                path.display(),
                record.version
            ),
            "upgrade git-berth",
        ));
    }
    Ok(record)
}

/// Write `record` into the run folder `dir`, whole and atomically.
pub fn save(dir: &Path, record: &RunRecord) -> Result<()> {
    let text = serde_json::to_string_pretty(record)
        .map_err(|e| error::bug(format!("cannot write a run record: {e}")))?;
    statefile::write_atomic(&dir.join(names::RUN_FILE), text.as_bytes(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_numbered_on_from_the_last_and_found_by_id() {
        let dir = std::env::temp_dir().join(format!("berth-runs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (a, a_dir) = new_run_dir(&dir, "p", &|_| false).unwrap();
        let (b, _) = new_run_dir(&dir, "p", &|_| false).unwrap();
        assert_eq!((a.as_str(), b.as_str()), ("p-1", "p-2"));
        let (c, _) = new_run_dir(&dir, "p", &|id| id == "p-3").unwrap();
        assert_eq!(c, "p-4", "an id whose worktrees are there is skipped");
        assert_eq!(find(&dir, "p-1"), None, "no record yet");
        let record = RunRecord {
            version: FORMAT_VERSION,
            pipeline: "P".to_owned(),
            slug: "p".to_owned(),
            id: a.clone(),
            manifest: "/m.yaml".to_owned(),
            vars: vec![],
            description: None,
            state: Standing::Running,
            started: 1,
            ended: None,
            stages: vec![],
            verdict: None,
            pull_request: None,
        };
        save(&a_dir, &record).unwrap();
        assert_eq!(find(&dir, "p-1"), Some(a_dir.clone()));
        assert_eq!(load(&a_dir).unwrap(), record);
        assert_eq!(all(&dir).unwrap().len(), 1);
        std::fs::write(a_dir.join(names::RUN_FILE), "{").unwrap();
        assert!(
            all(&dir)
                .unwrap_err()
                .to_string()
                .contains("does not parse")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
