//! Judge removal: whether a worktree may go, decided by a pure function (`verdict`) over the
//! facts the effectful code gathers (`facts`): lock, where the caller stands, claims, changes,
//! and commits found nowhere else. Nothing here removes anything.

use anyhow::Result;

use crate::error::Refusal;
use crate::git::{graph, status};
use crate::inventory::Managed;
use crate::names;
use crate::repo::Context;
use crate::session::{self, Hold};

/// Why a worktree may not be removed; `--force` overrides all but `Locked` and `Inside`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Remove,
    Locked(String),
    /// Agents berth launched still run in it (their names): a live
    /// claim that `--force` does not override, since their processes work in the folder.
    Agents(Vec<String>),
    Inside,
    Claimed(String),
    /// Its folder is there but is no checkout git can read (why, in words): nothing in it can be
    /// judged.
    Broken(String),
    Dirty,
    Unmerged {
        commits: usize,
        branch: String,
    },
    /// `--delete-branch` of a branch berth did not create (`add --branch`, an adopted worktree).
    BranchGiven(String),
}

/// What the effectful code found; `verdict` decides from it alone.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub locked: Option<String>,
    /// The names of the live agents berth launched that work in it.
    pub agents: Vec<String>,
    pub inside: bool,
    /// Another session that holds a live claim.
    pub claimed_by: Option<String>,
    /// The folder is there but is no checkout git can read: why.
    pub broken: Option<String>,
    pub dirty: bool,
    pub unmerged: usize,
    pub branch: String,
    /// The removal would delete a branch that was there before berth.
    pub deletes_given_branch: bool,
    /// The worktree's HEAD and branch tip as judged: it goes only while it still holds them.
    pub seen: Seen,
}

/// What a removal saw when it judged a worktree. The teardown runs after (for minutes, maybe),
/// so the removal looks again before it deletes ([`still`]), and deletes the branch only from
/// the tip it judged (compare-and-swap).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Seen {
    pub head: Option<gix::ObjectId>,
    pub tip: Option<gix::ObjectId>,
}

/// What the removal finds when it looks again after the teardown: HEAD, whether the checkout
/// is dirty, and the tip of its branch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Again {
    pub head: Option<gix::ObjectId>,
    pub dirty: bool,
    pub tip: Option<gix::ObjectId>,
}

/// Whether a judged worktree still goes once its teardown has run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Still {
    Go,
    /// It changed since it was judged: why, in words (`its HEAD moved ...`).
    Keep(String),
}

/// The pure decision after the teardown. `force` discards what was judged (uncommitted files,
/// unmerged commits), never a commit made after: one on the branch stays there (its deletion
/// from the judged tip fails), any other keeps the worktree.
pub fn still(seen: &Seen, now: &Again, force: bool) -> Still {
    if now.head != seen.head {
        let on_branch = now.head.is_some() && now.head == now.tip;
        if !(force && on_branch) {
            let name = |id: Option<gix::ObjectId>| {
                id.map_or_else(
                    || "nothing".to_owned(),
                    |id| crate::git::short(&id.to_string()).to_owned(),
                )
            };
            return Still::Keep(format!(
                "its HEAD moved from {} to {} during its teardown",
                name(seen.head),
                name(now.head)
            ));
        }
    }
    if now.dirty && !force {
        return Still::Keep("files in it changed during its teardown".to_owned());
    }
    Still::Go
}

/// Every reason a worktree stays, in the words `clean` prints (`claimed by s2, dirty`): all
/// that apply, not only the first.
pub fn reasons(facts: &Facts) -> Vec<String> {
    let mut out = Vec::new();
    if facts.locked.is_some() {
        out.push("locked".to_owned());
    }
    for name in &facts.agents {
        out.push(format!("agent {name} running"));
    }
    if facts.inside {
        out.push("current".to_owned());
    }
    if let Some(why) = &facts.broken {
        out.push(format!("broken: {why}"));
    }
    if let Some(session) = &facts.claimed_by {
        out.push(format!("claimed by {session}"));
    }
    if facts.dirty {
        out.push("dirty".to_owned());
    }
    if facts.unmerged > 0 {
        out.push("unmerged".to_owned());
    }
    out
}

/// The pure decision: the first refusal that applies, in order of how much it would lose.
pub fn verdict(facts: &Facts, force: bool) -> Verdict {
    if let Some(reason) = &facts.locked {
        return Verdict::Locked(reason.clone());
    }
    if !facts.agents.is_empty() {
        return Verdict::Agents(facts.agents.clone());
    }
    if facts.inside {
        return Verdict::Inside;
    }
    if force {
        return Verdict::Remove;
    }
    if let Some(session) = &facts.claimed_by {
        return Verdict::Claimed(session.clone());
    }
    if let Some(why) = &facts.broken {
        return Verdict::Broken(why.clone());
    }
    if facts.dirty {
        return Verdict::Dirty;
    }
    if facts.unmerged > 0 {
        return Verdict::Unmerged {
            commits: facts.unmerged,
            branch: facts.branch.clone(),
        };
    }
    if facts.deletes_given_branch {
        return Verdict::BranchGiven(facts.branch.clone());
    }
    Verdict::Remove
}

/// Which commits count as safe elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `remove`: the trunk, the upstream, or squash-merged into the trunk; with `delete_branch`
    /// the branch's own tip is judged too.
    Remove { delete_branch: bool },
    /// `clean`: only the trunk counts (directly or squash-merged); a pushed branch is not landed.
    Clean,
    /// `add` making room for a port block: as `clean`, but the caller's own claims stay too
    /// (nobody asked to clean them).
    MakeRoom,
}

/// Look at the worktree: lock, claim, where the caller stands, changes, and commits found
/// nowhere else.
/// What every judgement in one command shares, looked up once: the caller's session, the claim
/// TTL and the trunk's tip.
pub struct Judge {
    pub me: crate::session::Session,
    pub ttl: u64,
    pub trunk_name: String,
    pub trunk: Option<gix::ObjectId>,
    /// The agents berth launched; a live one keeps its worktree.
    pub agents: Vec<crate::registry::Agent>,
}

impl Judge {
    pub fn new(ctx: &Context) -> Result<Self> {
        let trunk_name = ctx.trunk();
        Ok(Judge {
            me: ctx.session()?,
            ttl: ctx.claim_ttl()?,
            trunk: graph::resolve_commit(&ctx.repo, &trunk_name),
            trunk_name,
            agents: crate::registry::Store::new(ctx.state_dir()).agents()?,
        })
    }
}

pub fn facts(ctx: &Context, entry: &Managed, judge: &Judge, scope: Scope) -> Result<Facts> {
    let (me, ttl, trunk) = (&judge.me, judge.ttl, judge.trunk);
    let record = &entry.record;
    // Only another session's live claim keeps a worktree: your own is yours to end, by
    // `remove` or by `clean` (you asked).
    let claimed_by = match session::hold(record.claim.as_ref(), me, ttl) {
        Hold::Live => record.claim.as_ref().map(|c| c.session.clone()),
        Hold::Mine if scope == Scope::MakeRoom => Some(me.id.clone()),
        _ => None,
    };
    let mut facts = Facts {
        locked: entry.locked.clone(),
        inside: ctx
            .current
            .as_deref()
            .is_some_and(|cur| cur == entry.path.as_path()),
        claimed_by,
        agents: live_agents(&judge.agents, &entry.path),
        branch: record.branch.clone(),
        deletes_given_branch: record.branch_given
            && scope
                == (Scope::Remove {
                    delete_branch: true,
                }),
        ..Facts::default()
    };
    if !entry.present && entry.path.exists() {
        facts.broken = Some(broken_why(&entry.path));
    }
    let mut head = None;
    if entry.present {
        let repo = crate::git::config::open(&entry.path)?;
        facts.dirty = status::is_dirty(&repo)?;
        head = crate::git::head(&repo);
        if let Some(name) = crate::git::head_branch(&repo) {
            facts.branch = name;
        }
    }
    facts.seen = Seen {
        head,
        tip: graph::branch_tip(&ctx.repo, &record.branch),
    };
    let unmerged = |tip: gix::ObjectId, elsewhere: &[gix::ObjectId]| {
        graph::work_not_landed(&ctx.repo, tip, elsewhere, trunk)
    };
    // The worktree's own work: commits on its HEAD since the commit it started from.
    if let Some(head) = head {
        let mut elsewhere: Vec<gix::ObjectId> = trunk.into_iter().collect();
        elsewhere.extend(record.base_commit);
        if matches!(scope, Scope::Remove { .. }) {
            elsewhere.extend(graph::upstream_tip(&ctx.repo, &facts.branch));
        }
        facts.unmerged = unmerged(head, &elsewhere)?;
    }
    // Deleting the branch loses every commit on it that no other ref reaches, whatever the
    // worktree started from (a checked-out existing branch brings commits of its own).
    if scope
        == (Scope::Remove {
            delete_branch: true,
        })
        && let Some(tip) = graph::branch_tip(&ctx.repo, &record.branch)
    {
        let mut elsewhere: Vec<gix::ObjectId> = trunk.into_iter().collect();
        elsewhere.extend(graph::upstream_tip(&ctx.repo, &record.branch));
        elsewhere.extend(graph::other_ref_tips(&ctx.repo, &record.branch)?);
        facts.unmerged = facts.unmerged.max(unmerged(tip, &elsewhere)?);
    }
    Ok(facts)
}

/// A live agent that works in the worktree at `path` (the first of [`live_agents`]).
pub fn live_agent(agents: &[crate::registry::Agent], path: &std::path::Path) -> Option<String> {
    live_agents(agents, path).into_iter().next()
}

/// The names of every live agent that works in the worktree at `path`: a refusal that named
/// one would send the user back for the next.
pub fn live_agents(agents: &[crate::registry::Agent], path: &std::path::Path) -> Vec<String> {
    let path = crate::paths::real_or_same(path);
    agents
        .iter()
        .filter(|a| crate::paths::real_or_same(&a.worktree) == path && a.alive())
        .map(|agent| agent.name.clone())
        .collect()
}

/// Why a folder that is there is no checkout git can read.
pub fn broken_why(path: &std::path::Path) -> String {
    if path.join(".git").exists() {
        "git has no admin entry for it".to_owned()
    } else {
        "its .git is missing".to_owned()
    }
}

pub fn refusal(ctx: &Context, entry: &Managed, verdict: &Verdict, trunk: &str) -> Option<Refusal> {
    let name = entry.name();
    let (message, hint) = match verdict {
        Verdict::Remove => return None,
        Verdict::Locked(reason) => (
            if reason.is_empty() {
                format!("worktree '{name}' is locked")
            } else {
                format!("worktree '{name}' is locked: {reason}")
            },
            format!(
                "unlock it first: git worktree unlock {}",
                entry.path.display()
            ),
        ),
        Verdict::Agents(agents) => {
            let names: Vec<String> = agents.iter().map(|a| format!("'{a}'")).collect();
            // One command stops them all.
            let stop = format!(
                "{} stop {}",
                crate::names::TOOL,
                agents
                    .iter()
                    .map(|agent| shell_words::quote(agent).into_owned())
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            let (who, runs, them) = match names.as_slice() {
                [one] => (format!("agent {one}"), "runs", "it"),
                [rest @ .., last] => (
                    format!("agents {} and {last}", rest.join(", ")),
                    "run",
                    "them",
                ),
                [] => (String::new(), "runs", "it"),
            };
            (
                format!("worktree '{name}' is where {who} still {runs}"),
                format!(
                    "stop {them} first ({stop}), then remove the worktree; --force does not override a running agent"
                ),
            )
        }
        Verdict::Inside => (
            format!("worktree '{name}' is the one you are in"),
            match &ctx.primary {
                Some(primary) => format!(
                    "run it from elsewhere: cd {} && {} remove '{name}'",
                    primary.display(),
                    names::TOOL
                ),
                None => "run it from another directory".to_owned(),
            },
        ),
        Verdict::Claimed(_) => (
            format!(
                "worktree '{name}' is claimed by {}",
                super::claim::holder(&entry.record, crate::clock::now())
            ),
            format!(
                "wait for it to be released, or remove it anyway with {} remove --force '{name}'",
                names::TOOL
            ),
        ),
        Verdict::Broken(why) => (
            format!(
                "worktree '{name}' is broken: {why} ({})",
                entry.path.display()
            ),
            broken_hint(name),
        ),
        Verdict::Dirty => (
            format!("worktree '{name}' has uncommitted changes or untracked files"),
            format!(
                "commit or stash them, or discard them with {} remove --force '{name}'",
                names::TOOL
            ),
        ),
        Verdict::Unmerged { commits, branch } => (
            format!(
                "worktree '{name}' has {commits} commit{} on {branch} not on {trunk} or its upstream",
                if *commits == 1 { "" } else { "s" }
            ),
            format!(
                "merge or push them, or drop them with {} remove --force '{name}'",
                names::TOOL
            ),
        ),
        Verdict::BranchGiven(branch) => (
            format!(
                "worktree '{name}' checks out {branch}, a branch {} did not create; \
                 --delete-branch deletes it only with --force",
                names::TOOL
            ),
            format!(
                "keep the branch: {tool} remove '{name}', or delete it too: {tool} remove \
                 --delete-branch --force '{name}'",
                tool = names::TOOL
            ),
        ),
    };
    Some(Refusal {
        message,
        hint: Some(hint),
        kind: crate::error::Kind::Refusal,
    })
}

/// The way out for a broken worktree: delete what is left, or forget it and keep the files.
pub fn broken_hint(name: &str) -> String {
    format!(
        "delete what is left with {} remove --force '{name}', or forget it (its files stay) with {} prune",
        names::TOOL,
        names::TOOL
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean() -> Facts {
        Facts {
            branch: "berth/a".into(),
            ..Facts::default()
        }
    }

    #[test]
    fn deleting_a_branch_berth_did_not_create_needs_force() {
        let facts = Facts {
            deletes_given_branch: true,
            ..clean()
        };
        assert_eq!(
            verdict(&facts, false),
            Verdict::BranchGiven("berth/a".into())
        );
        assert_eq!(verdict(&facts, true), Verdict::Remove);
    }

    #[test]
    fn a_clean_merged_worktree_is_removed() {
        assert_eq!(verdict(&clean(), false), Verdict::Remove);
    }

    #[test]
    fn uncommitted_work_is_kept_unless_forced() {
        let facts = Facts {
            dirty: true,
            ..clean()
        };
        assert_eq!(verdict(&facts, false), Verdict::Dirty);
        assert_eq!(verdict(&facts, true), Verdict::Remove);
    }

    #[test]
    fn unmerged_commits_are_kept_unless_forced() {
        let facts = Facts {
            unmerged: 2,
            ..clean()
        };
        assert_eq!(
            verdict(&facts, false),
            Verdict::Unmerged {
                commits: 2,
                branch: "berth/a".into()
            }
        );
        assert_eq!(verdict(&facts, true), Verdict::Remove);
    }

    #[test]
    fn another_live_sessions_claim_is_respected_unless_forced() {
        let facts = Facts {
            claimed_by: Some("s2".into()),
            ..clean()
        };
        assert_eq!(verdict(&facts, false), Verdict::Claimed("s2".into()));
        assert_eq!(verdict(&facts, true), Verdict::Remove);
    }

    #[test]
    fn a_broken_worktree_is_kept_unless_forced_but_a_claim_is_named_first() {
        let facts = Facts {
            broken: Some("its .git is missing".into()),
            ..clean()
        };
        assert_eq!(
            verdict(&facts, false),
            Verdict::Broken("its .git is missing".into())
        );
        assert_eq!(verdict(&facts, true), Verdict::Remove);
        let claimed = Facts {
            claimed_by: Some("s2".into()),
            ..facts
        };
        assert_eq!(verdict(&claimed, false), Verdict::Claimed("s2".into()));
    }

    #[test]
    fn a_running_agent_keeps_its_worktree_even_when_forced() {
        let facts = Facts {
            agents: vec!["alpha".into()],
            dirty: true,
            ..clean()
        };
        let running = Verdict::Agents(vec!["alpha".into()]);
        assert_eq!(verdict(&facts, false), running);
        assert_eq!(verdict(&facts, true), running);
        assert_eq!(reasons(&facts), ["agent alpha running", "dirty"]);
    }

    #[test]
    fn force_never_overrides_a_lock() {
        let facts = Facts {
            locked: Some("agent 7".into()),
            dirty: true,
            ..clean()
        };
        assert_eq!(verdict(&facts, true), Verdict::Locked("agent 7".into()));
    }

    fn id(n: u8) -> Option<gix::ObjectId> {
        Some(gix::ObjectId::from_bytes_or_panic(&[n; 20]))
    }

    #[test]
    fn a_worktree_unchanged_by_its_teardown_goes() {
        let seen = Seen {
            head: id(1),
            tip: id(1),
        };
        let now = Again {
            head: id(1),
            dirty: false,
            tip: id(1),
        };
        assert_eq!(still(&seen, &now, false), Still::Go);
    }

    #[test]
    fn a_commit_made_during_the_teardown_keeps_the_worktree_unless_forced_and_on_its_branch() {
        let seen = Seen {
            head: id(1),
            tip: id(1),
        };
        let on_branch = Again {
            head: id(2),
            dirty: false,
            tip: id(2),
        };
        assert!(
            matches!(still(&seen, &on_branch, false), Still::Keep(why) if why.contains("HEAD moved from 0101010 to 0202020"))
        );
        assert_eq!(still(&seen, &on_branch, true), Still::Go);
        let detached = Again {
            tip: id(1),
            ..on_branch
        };
        assert!(matches!(still(&seen, &detached, true), Still::Keep(_)));
    }

    #[test]
    fn a_file_written_during_the_teardown_keeps_the_worktree_unless_forced() {
        let seen = Seen {
            head: id(1),
            tip: id(1),
        };
        let now = Again {
            head: id(1),
            dirty: true,
            tip: id(1),
        };
        assert!(matches!(still(&seen, &now, false), Still::Keep(_)));
        assert_eq!(still(&seen, &now, true), Still::Go);
    }

    #[test]
    fn the_worktree_you_stand_in_is_never_removed() {
        let facts = Facts {
            inside: true,
            ..clean()
        };
        assert_eq!(verdict(&facts, true), Verdict::Inside);
    }
}
