//! Review verdicts: one per branch, kept as a ref under `refs/berth/reviews/` so it survives a lost
//! registry and `prune`, and can travel with a push. A verdict counts only for the commit it was
//! given for; a later commit makes it `stale`, which is never an approval.
//!
//! The ref points at a blob, not a commit: a verdict is one small document with no history to
//! keep, so one object and one compare-and-swap of its ref are the whole write, and
//! `git cat-file -p refs/berth/reviews/<branch>` shows it as written. The document is TOML.

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::error::refuse_with_hint;
use crate::git::{self, graph, refs};
use crate::registry::{Record, Store};
use crate::repo::Context;
use crate::session::Session;
use crate::ui::Ui;
use crate::{clock, names, worktree};

/// Where a branch's review stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// No verdict.
    Unreviewed,
    /// Approved, at the commit the branch points to now.
    Approved,
    /// Rejected, at the commit the branch points to now.
    Rejected,
    /// A verdict given for another commit: the branch moved since. Not an approval.
    Stale,
    /// A verdict berth cannot read (its blob does not parse). Not an approval; a new verdict
    /// replaces it.
    Unreadable,
    /// No verdict, and the head is one `ship` landed (a worktree kept with `--keep`): its
    /// verdict went with the landing, and its work is on the trunk.
    Landed,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Unreviewed => "unreviewed",
            State::Approved => "approved",
            State::Rejected => "rejected",
            State::Stale => "stale",
            State::Unreadable => "unreadable",
            State::Landed => "landed",
        }
    }

    /// Its colour in a table: green may land, red may not, yellow needs a look.
    pub fn paint(self) -> crate::render::Paint {
        use crate::render::Paint;
        match self {
            State::Approved | State::Landed => Paint::Green,
            State::Rejected | State::Unreadable => Paint::Red,
            State::Stale | State::Unreviewed => Paint::Yellow,
        }
    }
}

/// A verdict as it is kept: bound to one commit of the branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub approved: bool,
    /// The branch's head when the verdict was given.
    pub commit: gix::ObjectId,
    /// The session that gave it.
    pub reviewer: String,
    /// Seconds since the Unix epoch.
    pub time: u64,
    pub note: String,
}

/// The document in the blob, and the JSON form of a verdict: its field names are a stable
/// interface. Fields this build does not know are ignored, so a later one can add some.
#[derive(Debug, Serialize, Deserialize)]
struct Document {
    /// `approve` or `reject`.
    verdict: String,
    commit: String,
    reviewer: String,
    time: u64,
    #[serde(default)]
    note: String,
}

const APPROVE: &str = "approve";
const REJECT: &str = "reject";

impl Verdict {
    fn document(&self) -> Document {
        Document {
            verdict: if self.approved { APPROVE } else { REJECT }.to_owned(),
            commit: self.commit.to_string(),
            reviewer: self.reviewer.clone(),
            time: self.time,
            note: self.note.clone(),
        }
    }

    /// The verdict as its blob holds it.
    pub fn to_text(&self) -> String {
        let body = toml::to_string(&self.document()).expect("a verdict always serializes");
        format!("# {} review verdict\n{body}", names::TOOL)
    }

    /// Read a verdict back; `None` when the text is not one.
    pub fn parse(text: &str) -> Option<Verdict> {
        let doc: Document = toml::from_str(text).ok()?;
        let approved = match doc.verdict.as_str() {
            APPROVE => true,
            REJECT => false,
            _ => return None,
        };
        Some(Verdict {
            approved,
            commit: gix::ObjectId::from_hex(doc.commit.as_bytes()).ok()?,
            reviewer: doc.reviewer,
            time: doc.time,
            note: doc.note,
        })
    }

    /// `approved` or `rejected`, as the verdict says it with no regard to the branch's head.
    pub fn word(&self) -> &'static str {
        if self.approved {
            State::Approved.as_str()
        } else {
            State::Rejected.as_str()
        }
    }
}

impl Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.document().serialize(s)
    }
}

/// Where the review of a branch at `head` stands, given its verdict. Pure.
pub fn judge(verdict: Option<&Verdict>, head: Option<gix::ObjectId>) -> State {
    match verdict {
        None => State::Unreviewed,
        Some(v) if Some(v.commit) != head => State::Stale,
        Some(v) if v.approved => State::Approved,
        Some(_) => State::Rejected,
    }
}

/// What `branch`'s review ref points at, and the verdict read from it: `None` beside the object
/// when it is not a verdict berth can read.
fn kept(repo: &gix::Repository, branch: &str) -> Result<Option<(gix::ObjectId, Option<Verdict>)>> {
    let Some(id) = refs::target(repo, &refs::review_ref(branch))? else {
        return Ok(None);
    };
    let verdict = refs::read_blob(repo, id)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| Verdict::parse(&text));
    Ok(Some((id, verdict)))
}

/// The verdict kept for `branch`, with the object its ref points at; one that cannot be read is
/// an error naming its ref.
fn load(repo: &gix::Repository, branch: &str) -> Result<Option<(gix::ObjectId, Verdict)>> {
    match kept(repo, branch)? {
        None => Ok(None),
        Some((id, Some(verdict))) => Ok(Some((id, verdict))),
        Some((_, None)) => {
            let name = refs::review_ref(branch);
            Err(refuse_with_hint(
                format!("the review verdict {name} is not one berth can read"),
                format!(
                    "see it with: git cat-file -p {name}; give a new one with {} review approve|reject",
                    names::TOOL
                ),
            ))
        }
    }
}

/// Where the review of `branch` stands when its head is `head`, and the verdict it stands on;
/// a verdict that cannot be read is `unreadable`, not an error, so one bad blob spoils one row.
/// A head with no verdict that `landings` log as landed is `landed`.
pub fn standing(
    repo: &gix::Repository,
    branch: &str,
    head: Option<gix::ObjectId>,
    landings: &[super::log::Landing],
) -> Result<(State, Option<Verdict>)> {
    Ok(match kept(repo, branch)? {
        None if head.is_some_and(|h| super::log::landed(landings, branch, h)) => {
            (State::Landed, None)
        }
        None => (State::Unreviewed, None),
        Some((_, None)) => (State::Unreadable, None),
        Some((_, Some(verdict))) => (judge(Some(&verdict), head), Some(verdict)),
    })
}

/// The verdict kept for `branch`, if any.
pub fn read(repo: &gix::Repository, branch: &str) -> Result<Option<Verdict>> {
    Ok(load(repo, branch)?.map(|(_, v)| v))
}

/// Where the review of `branch` stands when its head is `head`, and the verdict it stands on.
pub fn state(
    repo: &gix::Repository,
    branch: &str,
    head: gix::ObjectId,
) -> Result<(State, Option<Verdict>)> {
    let verdict = read(repo, branch)?;
    Ok((judge(verdict.as_ref(), Some(head)), verdict))
}

/// Drop `branch`'s verdict (after its work landed, or with the branch). Whatever verdict is
/// there goes, also one written while this ran: the branch it was about is gone.
pub fn forget(repo: &gix::Repository, branch: &str, ui: &Ui) -> Result<()> {
    refs::delete_any(repo, &refs::review_ref(branch), ui)
}

/// Keep `verdict` for `branch`, but only over the verdict (ref value) the caller saw: a verdict
/// written by someone else meanwhile is never overwritten unseen.
fn keep(
    repo: &gix::Repository,
    branch: &str,
    seen: Option<gix::ObjectId>,
    verdict: &Verdict,
    name: &str,
    ui: &Ui,
) -> Result<()> {
    let blob = refs::write_blob(repo, verdict.to_text().as_bytes())?;
    let message = format!("{}: {} {}", names::TOOL, verdict.word(), verdict.commit);
    match refs::swap(repo, &refs::review_ref(branch), seen, blob, &message, ui)? {
        refs::Swap::Done => Ok(()),
        refs::Swap::Moved(_) => {
            let now = read(repo, branch).ok().flatten();
            let said = match &now {
                Some(v) => format!("{} by {}", v.word(), v.reviewer),
                None => "withdrawn".to_owned(),
            };
            Err(refuse_with_hint(
                format!(
                    "another review of '{name}' was recorded while yours was ({said}); yours was not kept"
                ),
                format!(
                    "look at it with {} review status '{name}', then give yours again",
                    names::TOOL
                ),
            ))
        }
    }
}

/// Whether `session` may give this verdict. The author (the session that holds the worktree's
/// claim) may reject its own head but approves it only where `self_review` allows. Pure.
pub fn may_give(approve: bool, author: bool, self_review: bool) -> bool {
    !approve || !author || self_review
}

/// A verdict just given, as `review approve|reject --json` prints it.
#[derive(Debug, Serialize)]
pub struct Given {
    pub name: String,
    pub branch: String,
    pub review: State,
    pub verdict: Verdict,
    /// The verdict this one replaced, if any.
    pub replaced: Option<Verdict>,
    /// The worktree had uncommitted changes, which the verdict does not cover.
    pub dirty: bool,
}

/// Approve or reject the head of the managed worktree `name`'s branch, as the caller's session.
pub fn give(ctx: &Context, name: &str, approve: bool, note: &str) -> Result<Given> {
    give_as(ctx, name, &ctx.session()?, approve, note, None)
}

/// [`give`] as the session `reviewer`, which need not be the caller's: a pipeline's judge gives
/// its verdicts as its own session (`judge:<pipeline>/<run id>`). `reviewer` is the author when
/// it holds the worktree's claim, and may then approve only where `berth.selfReview` allows, as
/// for any reviewer. With `seen`, the verdict is for that commit only: when the branch has moved
/// from it, nothing is recorded, since the reviewer did not see what it points to now.
pub fn give_as(
    ctx: &Context,
    name: &str,
    reviewer: &Session,
    approve: bool,
    note: &str,
    seen: Option<gix::ObjectId>,
) -> Result<Given> {
    let registry = Store::new(ctx.state_dir()).load()?;
    let entry = worktree::find(ctx, &registry, name)?;
    let record = &entry.record;
    let head = head_of(&ctx.repo, record).ok_or_else(|| {
        refuse_with_hint(
            format!(
                "worktree '{}' has no branch {} to review",
                record.name, record.branch
            ),
            format!("see it with {} list", names::TOOL),
        )
    })?;
    if let Some(seen) = seen
        && seen != head
    {
        return Err(refuse_with_hint(
            format!(
                "worktree '{}' moved to {} after its review looked at {}: nothing was recorded",
                record.name,
                git::short(&head.to_string()),
                git::short(&seen.to_string())
            ),
            format!(
                "review the new head: {} review approve|reject '{}'",
                names::TOOL,
                record.name
            ),
        ));
    }
    let author = record.claim.as_ref().filter(|c| reviewer.owns(c));
    let self_review = ctx
        .repo
        .config_snapshot()
        .boolean(names::config::SELF_REVIEW)
        .unwrap_or(false);
    if let Some(claim) = author
        && !may_give(approve, true, self_review)
    {
        return Err(refuse_with_hint(
            format!(
                "worktree '{}' is held by your own session ({}): its author may not approve its own work",
                record.name, claim.session
            ),
            format!(
                "ask another session to review it, or allow it with: git config {} true",
                names::config::SELF_REVIEW
            ),
        ));
    }
    let dirty = approve
        && entry.present
        && git::config::open(&entry.path)
            .and_then(|repo| git::status::is_dirty(&repo))
            .unwrap_or(false);
    // An unreadable verdict is replaced like any other: seen by its object, so a verdict
    // written meanwhile is still not overwritten unseen.
    let seen = kept(&ctx.repo, &record.branch)?;
    // Tests stop here, the verdict seen and not yet replaced, to record another one meanwhile.
    worktree::test_pause("BERTH_TEST_PAUSE_REVIEW_MS");
    let verdict = Verdict {
        approved: approve,
        commit: head,
        reviewer: reviewer.id.clone(),
        time: clock::now(),
        note: note.to_owned(),
    };
    keep(
        &ctx.repo,
        &record.branch,
        seen.as_ref().map(|(id, _)| *id),
        &verdict,
        &record.name,
        &ctx.ui,
    )
    .with_context(|| format!("cannot record the review of '{}'", record.name))?;
    Ok(Given {
        name: record.name.clone(),
        branch: record.branch.clone(),
        review: judge(Some(&verdict), Some(head)),
        verdict,
        replaced: seen.and_then(|(_, v)| v),
        dirty,
    })
}

/// The commit a managed worktree's branch points to now.
fn head_of(repo: &gix::Repository, record: &Record) -> Option<gix::ObjectId> {
    graph::branch_tip(repo, &record.branch)
}

/// One worktree's review, as `review status` shows it.
#[derive(Debug, Serialize)]
pub struct Row {
    pub name: String,
    pub branch: String,
    /// `unreviewed`, `approved`, `rejected`, `stale`, `unreadable` or `landed`.
    pub review: State,
    /// The commit the branch points to now; null when the branch is gone.
    pub head: Option<String>,
    /// The verdict kept for the branch (for `stale`, the one given to an earlier commit).
    pub verdict: Option<Verdict>,
}

/// The JSON form of `review status`; its field names are a stable interface.
#[derive(Debug, Serialize)]
pub struct Overview {
    pub reviews: Vec<Row>,
}

/// The review of every managed worktree, or of the one named.
pub fn overview(ctx: &Context, name: Option<&str>) -> Result<Overview> {
    let registry = Store::new(ctx.state_dir()).load()?;
    let records: Vec<Record> = match name {
        Some(name) => vec![worktree::find(ctx, &registry, name)?.record],
        None => registry.worktrees.clone(),
    };
    // Only to tell a landed head from an unreviewed one: a log that cannot be read spoils no row.
    let landings = super::log::read(&ctx.common_dir).unwrap_or_default();
    let mut reviews = Vec::with_capacity(records.len());
    for record in &records {
        let head = head_of(&ctx.repo, record);
        let (review, verdict) = standing(&ctx.repo, &record.branch, head, &landings)?;
        reviews.push(Row {
            name: record.name.clone(),
            branch: record.branch.clone(),
            review,
            head: head.map(|id| id.to_string()),
            verdict,
        });
    }
    Ok(Overview { reviews })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(byte: u8) -> gix::ObjectId {
        gix::ObjectId::from_bytes_or_panic(&[byte; 20])
    }

    fn verdict(approved: bool, commit: gix::ObjectId) -> Verdict {
        Verdict {
            approved,
            commit,
            reviewer: "agent-7".into(),
            time: 1_780_000_000,
            note: "looks right\nsecond line \"quoted\"".into(),
        }
    }

    #[test]
    fn a_verdict_reads_back_as_it_was_written_notes_and_all() {
        for approved in [true, false] {
            let v = verdict(approved, id(1));
            assert_eq!(Verdict::parse(&v.to_text()), Some(v));
        }
    }

    #[test]
    fn text_that_is_not_a_verdict_reads_as_none() {
        assert_eq!(Verdict::parse("verdict = \"maybe\"\ncommit = \"00\""), None);
        let bad_commit = verdict(true, id(1))
            .to_text()
            .replace(&id(1).to_string(), "xyz");
        assert_eq!(Verdict::parse(&bad_commit), None);
        assert_eq!(Verdict::parse("not toml at all ["), None);
    }

    #[test]
    fn a_verdict_counts_only_for_the_commit_it_was_given_for() {
        assert_eq!(judge(None, Some(id(1))), State::Unreviewed);
        assert_eq!(
            judge(Some(&verdict(true, id(1))), Some(id(1))),
            State::Approved
        );
        assert_eq!(
            judge(Some(&verdict(false, id(1))), Some(id(1))),
            State::Rejected
        );
        assert_eq!(
            judge(Some(&verdict(true, id(1))), Some(id(2))),
            State::Stale
        );
        assert_eq!(judge(Some(&verdict(false, id(1))), None), State::Stale);
    }

    #[test]
    fn the_author_rejects_freely_but_approves_only_where_self_review_is_allowed() {
        assert!(may_give(true, false, false));
        assert!(!may_give(true, true, false));
        assert!(may_give(true, true, true));
        assert!(may_give(false, true, false));
    }

    #[test]
    fn the_json_form_names_the_verdict_by_its_word() {
        let json = serde_json::to_value(verdict(false, id(1))).unwrap();
        assert_eq!(json["verdict"], "reject");
        assert_eq!(json["commit"], id(1).to_string());
        assert_eq!(json["reviewer"], "agent-7");
    }
}
