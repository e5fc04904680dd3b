//! File ownership of worktrees (`git berth own`, `owners`): a worktree claims the paths it will
//! change, and no two live worktrees own overlapping paths. The store is [`crate::ownership`];
//! here the paths a person typed become patterns, globs are expanded against the trunk's tracked
//! files, and ownership lapses with its worktree ([`lapse`], called wherever a record is
//! forgotten). Lock order: the registry's lock, if any, before the owners' lock, never after.

use std::path::{Component, Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::error::{refuse, refuse_with_hint};
use crate::guard::owners;
use crate::names;
use crate::ownership::{self, Claim, Owner, Store};
use crate::registry::{self, Record, Registry};
use crate::repo::{Context, Standing};

/// What `own` or `own --release` did (`--json` prints it).
#[derive(Debug, Serialize)]
pub struct Changed {
    pub worktree: String,
    pub path: PathBuf,
    /// The patterns claimed or given back now.
    pub changed: Vec<String>,
    /// What the worktree owns afterwards.
    pub owns: Vec<String>,
}

/// One live owner as `owners` shows it.
#[derive(Debug, Serialize)]
pub struct Listed {
    pub worktree: String,
    pub path: PathBuf,
    pub agent: Option<String>,
    pub session: String,
    pub paths: Vec<String>,
    pub since: u64,
}

/// The managed worktree `name` names, or the one the caller stands in; refused in the primary
/// checkout and in a checkout berth does not manage.
fn target<'a>(ctx: &Context, registry: &'a Registry, name: Option<&str>) -> Result<&'a Record> {
    if let Some(name) = name {
        return registry
            .find(name)
            .ok_or_else(|| super::unknown_in(ctx, registry, name));
    }
    let way_out = format!(
        "run it inside a worktree, or name one: {} own --worktree <name> <path>...",
        names::TOOL
    );
    if ctx.standing == Standing::Primary {
        return Err(refuse_with_hint(
            "the primary checkout owns no paths: ownership belongs to a worktree",
            way_out,
        ));
    }
    let here = ctx.current.as_deref();
    registry
        .worktrees
        .iter()
        .find(|r| here.is_some_and(|h| crate::paths::real_or_same(&r.path) == h))
        .ok_or_else(|| refuse_with_hint("you stand in no worktree berth manages", way_out))
}

/// `typed` as a pattern relative to the repository root: a path in the checkout at `root`, typed
/// from `cwd` (which may be below it). A path relative to the current folder is taken when that
/// folder is below the root and the path exists there, or when it starts with `./` or `../`;
/// otherwise it is relative to the root. A folder gets a trailing `/`; a glob is kept as written.
pub fn normalize(
    typed: &str,
    root: &Path,
    cwd: &Path,
    is_dir: &dyn Fn(&str) -> bool,
) -> Result<String> {
    let bad = |why: &str| {
        refuse_with_hint(
            format!("'{typed}' is not a path in the repository: {why}"),
            "give a file, a folder or a glob relative to the repository root",
        )
    };
    if typed.trim().is_empty() {
        return Err(bad("it is empty"));
    }
    if typed.contains(['\t', '\n', '\r']) {
        return Err(bad("it holds a tab or a line break"));
    }
    let below = cwd.strip_prefix(root).ok().map(Path::to_path_buf);
    let relative_to_cwd = typed.starts_with("./")
        || typed.starts_with("../")
        || typed == "."
        || typed == ".."
        || below.as_ref().is_some_and(|b| {
            !b.as_os_str().is_empty() && !owners::is_glob(typed) && cwd.join(typed).exists()
        });
    let joined = if Path::new(typed).is_absolute() {
        let inside = Path::new(typed)
            .strip_prefix(root)
            .or_else(|_| Path::new(typed).strip_prefix(crate::paths::real_or_same(root)))
            .map_err(|_| bad("it lies outside the checkout"))?;
        inside.to_path_buf()
    } else if relative_to_cwd {
        below.unwrap_or_default().join(typed)
    } else {
        PathBuf::from(typed)
    };
    let mut parts: Vec<String> = Vec::new();
    for part in joined.components() {
        match part {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop().ok_or_else(|| bad("it leaves the repository"))?;
            }
            Component::RootDir | Component::Prefix(_) => return Err(bad("it is absolute")),
        }
    }
    let mut pattern = parts.join("/");
    if pattern.is_empty() {
        return Err(bad("it is the whole repository"));
    }
    if !owners::is_glob(&pattern) && (typed.ends_with('/') || is_dir(&pattern)) {
        pattern.push('/');
    }
    Ok(pattern)
}

/// The trunk's tracked files (empty on an unborn trunk).
fn trunk_files(ctx: &Context) -> Result<Vec<String>> {
    match crate::git::graph::resolve_commit(&ctx.repo, &ctx.trunk()) {
        Some(commit) => crate::git::tree::files_of(&ctx.repo, commit),
        None => Ok(Vec::new()),
    }
}

/// The patterns `typed` for the worktree at `record`, each with its glob's files.
fn claims_of(ctx: &Context, record: &Record, typed: &Typed<'_>) -> Result<Vec<Claim>> {
    let (typed, cwd, root) = match typed {
        Typed::Here(typed) => {
            let cwd = std::env::current_dir().unwrap_or_else(|_| record.path.clone());
            let cwd = crate::paths::real_or_same(&cwd);
            let root = match ctx.current.as_deref() {
                Some(here) if cwd.starts_with(here) => here.to_path_buf(),
                _ => crate::paths::real_or_same(&record.path),
            };
            (typed, cwd, root)
        }
        Typed::Rooted(patterns) => {
            let root = crate::paths::real_or_same(&record.path);
            (patterns, root.clone(), root)
        }
    };
    let files = trunk_files(ctx)?;
    let is_dir = |rel: &str| {
        record.path.join(rel).is_dir()
            || files
                .iter()
                .any(|f| f.strip_prefix(rel).is_some_and(|r| r.starts_with('/')))
    };
    let mut claims: Vec<Claim> = Vec::new();
    for t in typed.iter() {
        let pattern = normalize(t, &root, &cwd, &is_dir)?;
        if claims.iter().any(|c| c.pattern == pattern) {
            continue;
        }
        let files = if owners::is_glob(&pattern) {
            files
                .iter()
                .filter(|f| owners::matches(&pattern, f))
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        claims.push(Claim { pattern, files });
    }
    Ok(claims)
}

/// Paths to own or give back: typed by a person where they stand (relative to the current
/// folder when it is below the root and the path is there), or relative to the repository's root
/// (a manifest's `owns`).
#[derive(Debug, Clone, Copy)]
pub enum Typed<'a> {
    Here(&'a [String]),
    Rooted(&'a [String]),
}

impl Typed<'_> {
    fn is_empty(&self) -> bool {
        match self {
            Typed::Here(t) | Typed::Rooted(t) => t.is_empty(),
        }
    }
}

/// The owners that count: their holder runs, and their worktree is still managed and held (a
/// released worktree owns nothing).
fn live_in(all: Vec<Owner>, registry: &Registry) -> Vec<Owner> {
    all.into_iter()
        .filter(|o| {
            o.alive()
                && registry
                    .worktrees
                    .iter()
                    .any(|r| r.name == o.worktree && r.claim.is_some())
        })
        .collect()
}

/// Every live owner (a lapsed one is left out), read without the lock.
pub fn live(ctx: &Context) -> Result<Vec<Owner>> {
    let registry = registry::Store::new(ctx.state_dir()).load()?;
    Ok(live_in(Store::new(ctx.state_dir()).load()?, &registry))
}

/// The live owners of `files`, for a message about them: a store that cannot be read is a
/// warning and names no owner (the message is still right without them).
pub fn owners_of(ctx: &Context, files: &[String]) -> Vec<ownership::FileOwner> {
    if files.is_empty() || !Store::new(ctx.state_dir()).path().exists() {
        return Vec::new();
    }
    match live(ctx) {
        Ok(all) => ownership::owners_of(&all, files),
        Err(err) => {
            ctx.ui.warn(format_args!(
                "cannot say who owns the conflicting files: {}",
                crate::error::render(&err).0
            ));
            Vec::new()
        }
    }
}

/// Every live owner, as `owners` shows them.
pub fn listed(ctx: &Context) -> Result<Vec<Listed>> {
    Ok(live(ctx)?
        .into_iter()
        .map(|o| Listed {
            paths: o.patterns(),
            worktree: o.worktree,
            path: o.path,
            agent: o.agent,
            session: o.session,
            since: o.since,
        })
        .collect())
}

/// The refusal of a claim that overlaps what other worktrees own.
fn clash_refusal(clashes: &[ownership::Clash]) -> anyhow::Error {
    let said: Vec<String> = clashes
        .iter()
        .map(|c| {
            let agent = c
                .owner
                .agent
                .as_ref()
                .map(|a| format!(" (agent {a})"))
                .unwrap_or_default();
            let pairs: Vec<String> = c
                .pairs
                .iter()
                .map(|(asked, owned)| {
                    if asked == owned {
                        asked.clone()
                    } else {
                        format!("{asked} (it owns {owned})")
                    }
                })
                .collect();
            format!(
                "worktree '{}'{agent} owns {}",
                c.owner.worktree,
                pairs.join(", ")
            )
        })
        .collect();
    let first = &clashes[0].owner;
    let ask = match &first.agent {
        Some(agent) => format!("{} send {agent} <message>", names::TOOL),
        None => "the master".to_owned(),
    };
    refuse_with_hint(
        format!("cannot own these paths: {}", said.join("; ")),
        format!(
            "ask the owner to give them back ({ask}, then {} own --release <path> there), or wait \
             until '{}' lands or is removed",
            names::TOOL,
            first.worktree
        ),
    )
}

/// Claim `typed` for the worktree `name` (default: the one the caller stands in). Refused, with
/// nothing changed, when any of them overlaps what another live worktree owns.
pub fn own(ctx: &Context, name: Option<&str>, typed: Typed<'_>) -> Result<Changed> {
    let store = Store::new(ctx.state_dir());
    let registry_store = registry::Store::new(ctx.state_dir());
    let mut locked = store.lock()?;
    // Read under the owners' lock: a removal forgets its record before it drops its owners.
    let registry = registry_store.load()?;
    let agents = registry_store.agents()?;
    let record = target(ctx, &registry, name)?;
    let claim = record.claim.clone().ok_or_else(|| {
        refuse_with_hint(
            format!(
                "worktree '{}' is held by no session, so nothing would keep its ownership",
                record.name
            ),
            format!("claim it first: {} claim {}", names::TOOL, record.name),
        )
    })?;
    if !crate::process::alive(claim.pid, claim.pid_start) {
        return Err(refuse_with_hint(
            format!(
                "the claim on worktree '{}' is stale (pid {} is gone)",
                record.name, claim.pid
            ),
            format!("claim it again: {} claim {}", names::TOOL, record.name),
        ));
    }
    let asked = claims_of(ctx, record, &typed)?;
    let others = live_in(locked.owners.clone(), &registry);
    let clashes = ownership::clashes(&others, &record.name, &asked);
    if !clashes.is_empty() {
        return Err(clash_refusal(&clashes));
    }
    let agent = agents
        .iter()
        .filter(|a| a.worktree == record.path)
        .max_by_key(|a| a.alive())
        .map(|a| a.name.clone());
    locked.owners = live_in(std::mem::take(&mut locked.owners), &registry);
    let at = match locked.owners.iter().position(|o| o.worktree == record.name) {
        Some(at) => at,
        None => {
            locked.owners.push(Owner {
                worktree: record.name.clone(),
                path: record.path.clone(),
                agent: None,
                session: claim.session.clone(),
                pid: claim.pid,
                pid_start: claim.pid_start,
                since: crate::clock::now(),
                claims: Vec::new(),
            });
            locked.owners.len() - 1
        }
    };
    let owner = &mut locked.owners[at];
    owner.session = claim.session;
    owner.pid = claim.pid;
    owner.pid_start = claim.pid_start;
    owner.agent = agent.or(owner.agent.take());
    let mut changed = Vec::new();
    for c in asked {
        if let Some(had) = owner.claims.iter_mut().find(|h| h.pattern == c.pattern) {
            had.files = c.files;
        } else {
            changed.push(c.pattern.clone());
            owner.claims.push(c);
        }
    }
    let out = Changed {
        worktree: owner.worktree.clone(),
        path: owner.path.clone(),
        changed,
        owns: owner.patterns(),
    };
    locked.save()?;
    Ok(out)
}

/// Give back `typed` (all the worktree's paths when empty) of the worktree `name` (default: the
/// one the caller stands in). A path it does not own is refused, naming what it owns.
pub fn release(ctx: &Context, name: Option<&str>, typed: Typed<'_>) -> Result<Changed> {
    let store = Store::new(ctx.state_dir());
    let mut locked = store.lock()?;
    let registry = registry::Store::new(ctx.state_dir()).load()?;
    let record = target(ctx, &registry, name)?;
    let asked = if typed.is_empty() {
        Vec::new()
    } else {
        claims_of(ctx, record, &typed)?
    };
    locked.owners = live_in(std::mem::take(&mut locked.owners), &registry);
    let owner = locked.owners.iter_mut().find(|o| o.worktree == record.name);
    let mut changed = Vec::new();
    let mut owns = Vec::new();
    if let Some(owner) = owner {
        if asked.is_empty() {
            changed = owner.patterns();
            owner.claims.clear();
        } else {
            for a in &asked {
                if !owner.claims.iter().any(|c| c.pattern == a.pattern) {
                    return Err(refuse_with_hint(
                        format!("worktree '{}' does not own {}", record.name, a.pattern),
                        format!("it owns: {}", owner.patterns().join(", ")),
                    ));
                }
            }
            owner.claims.retain(|c| {
                let going = asked.iter().any(|a| a.pattern == c.pattern);
                if going {
                    changed.push(c.pattern.clone());
                }
                !going
            });
        }
        owns = owner.patterns();
    } else if let Some(a) = asked.first() {
        return Err(refuse(format!(
            "worktree '{}' owns no paths, so not {}",
            record.name, a.pattern
        )));
    }
    locked.save()?;
    Ok(Changed {
        worktree: record.name.clone(),
        path: record.path.clone(),
        changed,
        owns,
    })
}

/// What the worktree `worktree` owns follows the agent launched there from now on, as its claim
/// does: ownership taken before the agent started (by the launching process, or by the master
/// that handed the worktree over) is the agent's. Called under the registry's lock (the lock
/// order allows it).
pub fn follow(
    ctx: &Context,
    worktree: &str,
    session: &str,
    agent: &str,
    pid: u32,
    pid_start: Option<u64>,
) -> Result<()> {
    let store = Store::new(ctx.state_dir());
    if !store.path().exists() {
        return Ok(());
    }
    let mut locked = store.lock()?;
    let Some(owner) = locked.owners.iter_mut().find(|o| o.worktree == worktree) else {
        return Ok(());
    };
    owner.session = session.to_owned();
    owner.pid = pid;
    owner.pid_start = pid_start;
    owner.agent = Some(agent.to_owned());
    locked.save()
}

/// Ownership ends with its worktree: drop what `record` owned (when its record was forgotten:
/// removed, cleaned, shipped, pruned), and rewrite the guard's copy. A failure is a warning: the
/// worktree is gone either way, and its owner lapses at the next write.
pub fn lapse(ctx: &Context, record: &Record) {
    let result = (|| -> Result<()> {
        let store = Store::new(ctx.state_dir());
        if !store.path().exists() {
            return Ok(());
        }
        let mut locked = store.lock()?;
        locked
            .owners
            .retain(|o| !(o.worktree == record.name && o.path == record.path));
        locked.save()
    })();
    if let Err(err) = result {
        ctx.ui.warn(format_args!(
            "the paths '{}' owned stay listed until the next `{} own`: {}",
            record.name,
            names::TOOL,
            crate::error::render(&err).0
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(typed: &str, cwd: &str) -> String {
        let dirs = ["src", "src/api", "docs"];
        normalize(typed, Path::new("/r"), Path::new(cwd), &|p| {
            dirs.contains(&p)
        })
        .unwrap()
    }

    #[test]
    fn a_path_is_taken_from_the_root_and_a_folder_gets_its_slash() {
        assert_eq!(norm("src/api", "/r"), "src/api/");
        assert_eq!(norm("./src/api/x.rs", "/r"), "src/api/x.rs");
        assert_eq!(norm("src/../docs", "/r"), "docs/");
        assert_eq!(norm("/r/src/main.rs", "/r/docs"), "src/main.rs");
        assert_eq!(norm("src/**/*.rs", "/r"), "src/**/*.rs");
        assert_eq!(norm("new/", "/r"), "new/");
    }

    #[test]
    fn a_path_relative_to_a_subfolder_is_taken_from_there() {
        assert_eq!(norm("./x.rs", "/r/src/api"), "src/api/x.rs");
        assert_eq!(norm("../api", "/r/src/web"), "src/api/");
        assert_eq!(norm("src/main.rs", "/r/src/api"), "src/main.rs");
    }

    #[test]
    fn a_path_outside_the_repository_is_refused() {
        let none = |_: &str| false;
        for typed in ["..", "../x", "/elsewhere/x", ".", "", "a\tb", "a\nb"] {
            assert!(
                normalize(typed, Path::new("/r"), Path::new("/r"), &none).is_err(),
                "{typed}"
            );
        }
    }
}
