//! Who owns which paths: `<common dir>/berth/owners.toml`, one owner per managed worktree with the
//! patterns it claimed (`git berth own`). Every write is atomic under `owners.lock`, after
//! re-reading the file, and rewrites the guard's copy (`owners.guard`, [`crate::guard::owners`]'s
//! format) in the same lock, so the guard never sees an older store. A file that does not parse
//! is an error that names it, never overwritten. An owner whose holder process is gone has
//! lapsed: it is dropped at the next write and never counted as live.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::guard::owners::{self, Owned};
use crate::{names, statefile};

/// The format this build writes, and the newest it reads.
pub const FORMAT_VERSION: u32 = 1;

/// The patterns one managed worktree owns, and who holds them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    /// The managed worktree's name, and its folder.
    pub worktree: String,
    pub path: PathBuf,
    /// The agent berth launched there when the claim was made, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The worktree's claim when the paths were claimed: its session, and the process (with its
    /// start time, so a reused pid is not it) whose life the ownership follows.
    pub session: String,
    pub pid: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid_start: Option<u64>,
    /// Seconds since the Unix epoch: the first claim.
    pub since: u64,
    #[serde(default, rename = "claim")]
    pub claims: Vec<Claim>,
}

/// One owned pattern, as the person wrote it (normalized: relative to the repository root, a
/// folder with a trailing `/`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    pub pattern: String,
    /// A glob's tracked files on the trunk when it was claimed, sorted; empty for a file or a
    /// folder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

impl Owner {
    /// Whether the process holding the ownership still runs.
    pub fn alive(&self) -> bool {
        crate::process::alive(self.pid, self.pid_start)
    }

    /// The patterns alone.
    pub fn patterns(&self) -> Vec<String> {
        self.claims.iter().map(|c| c.pattern.clone()).collect()
    }
}

/// Where the two claims `a` and `b` could touch one file: two globs only where their files at
/// claim time meet (and their folders nest), anything else as [`owners::overlap`] says.
pub fn overlap(a: &Claim, b: &Claim) -> bool {
    if !owners::overlap(&a.pattern, &b.pattern) {
        return false;
    }
    if owners::is_glob(&a.pattern) && owners::is_glob(&b.pattern) {
        return a.files.iter().any(|f| b.files.binary_search(f).is_ok());
    }
    true
}

/// A claim refused: the owner in the way, and each pair (asked, owned) that overlaps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clash {
    pub owner: Owner,
    pub pairs: Vec<(String, String)>,
}

/// The owners other than `worktree` whose claims overlap `asked`. Pure: the caller keeps only
/// the live owners in `all`.
pub fn clashes(all: &[Owner], worktree: &str, asked: &[Claim]) -> Vec<Clash> {
    all.iter()
        .filter(|o| o.worktree != worktree)
        .filter_map(|o| {
            let pairs: Vec<(String, String)> = asked
                .iter()
                .flat_map(|a| {
                    o.claims
                        .iter()
                        .filter(|c| overlap(a, c))
                        .map(|c| (a.pattern.clone(), c.pattern.clone()))
                })
                .collect();
            (!pairs.is_empty()).then(|| Clash {
                owner: o.clone(),
                pairs,
            })
        })
        .collect()
}

/// The live owner of a file that conflicts: collect's forecast and ship's refusal name it, and
/// ship tells its agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileOwner {
    pub file: String,
    pub worktree: String,
    pub agent: Option<String>,
    #[serde(skip)]
    pub path: PathBuf,
}

impl FileOwner {
    /// `worktree 'api', agent split/api`, for a message.
    pub fn said(&self) -> String {
        match &self.agent {
            Some(agent) => format!("worktree '{}', agent {agent}", self.worktree),
            None => format!("worktree '{}'", self.worktree),
        }
    }
}

/// The owner in `all` of each of `files` that one owns (a glob owns files added after its
/// claim). Pure: the caller keeps only the live owners in `all`.
pub fn owners_of(all: &[Owner], files: &[String]) -> Vec<FileOwner> {
    files
        .iter()
        .filter_map(|file| {
            all.iter()
                .find(|o| o.claims.iter().any(|c| owners::matches(&c.pattern, file)))
                .map(|o| FileOwner {
                    file: file.clone(),
                    worktree: o.worktree.clone(),
                    agent: o.agent.clone(),
                    path: o.path.clone(),
                })
        })
        .collect()
}

/// The file as written.
#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    version: u32,
    #[serde(default, rename = "owner")]
    owners: Vec<Owner>,
}

/// Where one repository's owners are kept.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

/// The owners held under their lock; dropping it releases the lock without writing.
pub struct Locked {
    store: Store,
    _lock: crate::lockwait::Held,
    pub owners: Vec<Owner>,
}

impl Store {
    /// The store under `state_dir` (`<common dir>/berth`).
    pub fn new(state_dir: PathBuf) -> Self {
        Store { dir: state_dir }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(names::OWNERS_FILE)
    }

    /// The guard's copy.
    pub fn guard_path(&self) -> PathBuf {
        self.dir.join(names::OWNERS_GUARD_FILE)
    }

    /// Every owner on file, lapsed ones too, read without the lock (a rename is atomic).
    pub fn load(&self) -> Result<Vec<Owner>> {
        read(&self.path())
    }

    /// Take the lock and read the owners fresh.
    pub fn lock(&self) -> Result<Locked> {
        fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create {}", self.dir.display()))?;
        let lock = crate::lockwait::lock(&self.dir.join(names::OWNERS_LOCK), "the owners")?;
        let owners = read(&self.path())?;
        Ok(Locked {
            store: self.clone(),
            _lock: lock,
            owners,
        })
    }
}

impl Locked {
    /// Drop the owners whose holder is gone, then write the store and the guard's copy, each
    /// atomically; the lock stays held until this value is dropped.
    pub fn save(&mut self) -> Result<()> {
        self.owners.retain(Owner::alive);
        self.owners.retain(|o| !o.claims.is_empty());
        let file = File {
            version: FORMAT_VERSION,
            owners: self.owners.clone(),
        };
        let text = toml::to_string(&file).context("cannot serialize the owners")?;
        statefile::write_atomic(&self.store.path(), text.as_bytes(), None)?;
        let guard = owners::render(&guarded(&self.owners));
        statefile::write_atomic(&self.store.guard_path(), guard.as_bytes(), None)
    }
}

/// The guard's lines for `all`: one per owned pattern.
pub fn guarded(all: &[Owner]) -> Vec<Owned> {
    all.iter()
        .flat_map(|o| {
            o.claims.iter().map(|c| Owned {
                pid: o.pid,
                start: o.pid_start,
                worktree: o.path.clone(),
                pattern: c.pattern.clone(),
                agent: o.agent.clone(),
            })
        })
        .collect()
}

fn read(path: &Path) -> Result<Vec<Owner>> {
    match statefile::read_text(path, "owners file")? {
        None => Ok(Vec::new()),
        Some(text) => {
            parse(&text).map_err(|reason| statefile::corrupt(path, "owners file", &reason))
        }
    }
}

/// Parse an owners file's text; the error is one line.
pub fn parse(text: &str) -> Result<Vec<Owner>, String> {
    statefile::parse::<File>(text, FORMAT_VERSION).map(|f| f.owners)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(pattern: &str, files: &[&str]) -> Claim {
        Claim {
            pattern: pattern.into(),
            files: files.iter().map(|f| (*f).to_owned()).collect(),
        }
    }

    fn owner(name: &str, claims: Vec<Claim>) -> Owner {
        Owner {
            worktree: name.into(),
            path: PathBuf::from(format!("/wt/{name}")),
            agent: None,
            session: format!("s-{name}"),
            pid: std::process::id(),
            pid_start: crate::process::start_time(std::process::id()),
            since: 1_700_000_000,
            claims,
        }
    }

    #[test]
    fn two_globs_overlap_only_where_their_files_meet() {
        let a = claim("src/*.rs", &["src/a.rs", "src/b.rs"]);
        let b = claim("src/b*", &["src/b.md", "src/b.rs"]);
        let c = claim("src/*.md", &["src/b.md"]);
        assert!(overlap(&a, &b));
        assert!(!overlap(&a, &c), "no tracked file is matched by both");
        assert!(overlap(&claim("src/", &[]), &c));
        assert!(!overlap(&claim("docs/", &[]), &c));
    }

    #[test]
    fn a_clash_names_the_other_owner_and_each_overlapping_pair() {
        let all = vec![
            owner("a", vec![claim("src/api/", &[])]),
            owner("b", vec![claim("docs/", &[])]),
        ];
        let asked = vec![claim("src/api/x.rs", &[]), claim("README", &[])];
        let clashes = clashes(&all, "b", &asked);
        assert_eq!(clashes.len(), 1);
        assert_eq!(clashes[0].owner.worktree, "a");
        assert_eq!(
            clashes[0].pairs,
            vec![("src/api/x.rs".to_owned(), "src/api/".to_owned())]
        );
        assert!(super::clashes(&all, "a", &asked[..1]).is_empty(), "its own");
    }

    #[test]
    fn the_store_round_trips_and_writes_the_guards_copy() {
        let dir = std::env::temp_dir().join(format!("berth-owners-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let store = Store::new(dir.clone());
        let mut locked = store.lock().unwrap();
        let mut gone = owner("b", vec![claim("docs/", &[])]);
        gone.pid = u32::MAX - 1;
        locked.owners = vec![owner("a", vec![claim("src/*.rs", &["src/a.rs"])]), gone];
        locked.save().unwrap();
        drop(locked);
        let back = store.load().unwrap();
        assert_eq!(back.len(), 1, "the lapsed owner is dropped");
        assert_eq!(back[0].claims[0].files, vec!["src/a.rs".to_owned()]);
        let guard = fs::read_to_string(store.guard_path()).unwrap();
        let owned = owners::parse(&guard).unwrap();
        assert_eq!(owned, guarded(&back));
        fs::write(store.path(), "version = 1\n[[owner]\n").unwrap();
        let err = store.lock().err().unwrap();
        assert!(
            crate::error::render(&err)
                .0
                .starts_with("corrupt owners file ")
        );
        let _ = fs::remove_dir_all(&dir);
    }
}
