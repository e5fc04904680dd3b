//! Refs that hold one object each (berth's facts about commits, such as review verdicts, and the
//! branches it creates and lands on): write the object, move the ref by compare-and-swap, read it
//! back, delete it.
//! A ref is only ever moved from the value the caller saw, so two writers never tear one. Every
//! lock taken here is recorded first (`locks`), so a kill never leaves one that blocks berth; an
//! update takes only the ref's own lock, as git does, never `packed-refs.lock`.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use gix::refs::transaction::{Change, PreviousValue, RefEdit, RefLog};

use super::locks;
use crate::ui::Ui;

/// What a compare-and-swap found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Swap {
    /// The ref now points at the new object.
    Done,
    /// Someone moved the ref first: it points here now (`None`: it is gone). Nothing was written.
    Moved(Option<gix::ObjectId>),
}

/// A full ref name (`refs/...`), validated as git validates one.
fn full_name(name: &str) -> Result<gix::refs::FullName> {
    name.try_into().map_err(|_| {
        crate::error::refuse_with_hint(
            format!("'{name}' is not a valid ref name"),
            "check it with: git check-ref-format <name>",
        )
    })
}

/// The object `name` points at, unpeeled; `None` when there is no such ref.
pub fn target(repo: &gix::Repository, name: &str) -> Result<Option<gix::ObjectId>> {
    let full = full_name(name)?;
    let reference = repo
        .try_find_reference(full.as_ref())
        .map_err(super::gix_err)
        .with_context(|| format!("cannot read ref {name}"))?;
    Ok(reference.and_then(|r| r.target().try_id().map(|id| id.to_owned())))
}

/// Store `bytes` as a blob in the object database and return its id.
pub fn write_blob(repo: &gix::Repository, bytes: &[u8]) -> Result<gix::ObjectId> {
    repo.write_blob(bytes)
        .map(|id| id.detach())
        .map_err(super::gix_err)
        .context("cannot write to the object database")
}

/// The content of the blob `id`; an error when it is missing or not a blob.
pub fn read_blob(repo: &gix::Repository, id: gix::ObjectId) -> Result<Vec<u8>> {
    let object = repo
        .find_object(id)
        .map_err(super::gix_err)
        .with_context(|| format!("cannot read object {id}"))?;
    if object.kind != gix::object::Kind::Blob {
        anyhow::bail!("object {id} is a {}, not a blob", object.kind);
    }
    Ok(object.data.clone())
}

/// Point `name` at `new`, but only while it still points at `expected` (`None`: only while it
/// does not exist). Another writer's ref lock is waited for as `core.filesRefLockTimeout` says.
///
/// Written as git writes it: under the ref's own lock, into a loose ref, with a reflog entry.
/// gix 0.91's transaction also takes `packed-refs.lock` for every update once `packed-refs`
/// exists (`file::Transaction::prepare` looks the old value up under that lock), and fails every
/// update while any `packed-refs.lock` exists; git takes it only to delete.
pub fn swap(
    repo: &gix::Repository,
    name: &str,
    expected: Option<gix::ObjectId>,
    new: gix::ObjectId,
    message: &str,
    ui: &Ui,
) -> Result<Swap> {
    let full = full_name(name)?;
    let common = repo.common_dir();
    let path = locks::ref_path(common, &full);
    let lock_path = locks::lock_of(&path);
    locks::clear_dead(common, ui);
    let _taking = locks::taking(common, std::slice::from_ref(&lock_path))?;
    let mut lock = gix::lock::File::acquire_to_update_resource(
        &path,
        ref_lock_wait(repo),
        Some(common.to_owned()),
        Default::default(),
    )
    .map_err(|err| {
        if lock_path.exists() {
            locks::held_elsewhere(&lock_path, &format!("update {name}"))
        } else {
            super::gix_err(err).context(format!("cannot update ref {name}"))
        }
    })?;
    // Tests stop here, the ref's lock taken, to kill it (only at the ref `BERTH_TEST_PAUSE_REF`
    // names, when it names one).
    if std::env::var("BERTH_TEST_PAUSE_REF").map_or(true, |only| only == name) {
        locks::test_pause("BERTH_TEST_PAUSE_REF_LOCKED_MS");
    }
    let now = target(repo, name)?;
    if now != expected {
        return Ok(Swap::Moved(now));
    }
    let written = (|| -> Result<()> {
        lock.write_all(format!("{new}\n").as_bytes())?;
        append_reflog(repo, &full, expected, new, message)?;
        Ok(())
    })();
    written.with_context(|| format!("cannot update ref {name}"))?;
    lock.commit()
        .map_err(|e| super::gix_err(e.error))
        .with_context(|| format!("cannot update ref {name}"))?;
    Ok(Swap::Done)
}

/// How long to wait for a ref's lock another writer holds: `core.filesRefLockTimeout`
/// milliseconds (negative: for ever), 100 when unset, as git.
fn ref_lock_wait(repo: &gix::Repository) -> gix::lock::acquire::Fail {
    use gix::lock::acquire::Fail;
    match repo
        .config_snapshot()
        .integer("core.filesRefLockTimeout")
        .unwrap_or(100)
    {
        ms if ms < 0 => Fail::AfterDurationWithBackoff(std::time::Duration::MAX),
        0 => Fail::Immediately,
        ms => Fail::AfterDurationWithBackoff(std::time::Duration::from_millis(ms.unsigned_abs())),
    }
}

/// Append the reflog entry of `name` moving from `old` to `new`, where gix would: under
/// `core.logAllRefUpdates`, creating the log of a branch, remote or note, appending to any other
/// that exists.
fn append_reflog(
    repo: &gix::Repository,
    name: &gix::refs::FullName,
    old: Option<gix::ObjectId>,
    new: gix::ObjectId,
    message: &str,
) -> Result<()> {
    use gix::refs::store::WriteReflog;
    let short = name.as_bstr().to_string();
    let create = match repo.refs.write_reflog {
        WriteReflog::Disable => return Ok(()),
        WriteReflog::Always => true,
        WriteReflog::Normal => ["refs/heads/", "refs/remotes/", "refs/notes/"]
            .iter()
            .any(|p| short.starts_with(p)),
    };
    let path = repo.common_dir().join("logs").join(&short);
    if create && let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut file = match std::fs::OpenOptions::new()
        .append(true)
        .create(create)
        .open(&path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot open {}", path.display())),
    };
    let who = repo
        .committer()
        .context("no committer identity for the reflog")?
        .map_err(super::gix_err)?;
    let mut line = format!("{} {new} ", old.unwrap_or_else(|| new.kind().null())).into_bytes();
    who.trim().write_to(&mut line)?;
    line.push(b'\t');
    line.extend_from_slice(message.replace('\n', " ").as_bytes());
    line.push(b'\n');
    file.write_all(&line)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Delete `name`, but only while it still points at `expected`. A ref that is already gone is
/// [`Swap::Done`].
pub fn delete(
    repo: &gix::Repository,
    name: &str,
    expected: gix::ObjectId,
    ui: &Ui,
) -> Result<Swap> {
    let edit = RefEdit {
        change: Change::Delete {
            expected: previous(Some(expected)),
            log: RefLog::AndReference,
        },
        name: full_name(name)?,
        deref: false,
    };
    match carry_out(repo, name, Some(expected), edit, ui)? {
        Swap::Moved(None) => Ok(Swap::Done),
        swap => Ok(swap),
    }
}

fn previous(expected: Option<gix::ObjectId>) -> PreviousValue {
    match expected {
        Some(id) => PreviousValue::MustExistAndMatch(gix::refs::Target::Object(id)),
        None => PreviousValue::MustNotExist,
    }
}

/// Delete `name` whatever it points at, also a value written while this runs: a few tries, each
/// from the value just read. A ref that is not there is deleted already.
pub fn delete_any(repo: &gix::Repository, name: &str, ui: &Ui) -> Result<()> {
    for _ in 0..5 {
        let Some(id) = target(repo, name)? else {
            return Ok(());
        };
        if delete(repo, name, id, ui)? == Swap::Done {
            return Ok(());
        }
    }
    anyhow::bail!("cannot delete {name}: it keeps changing while it is deleted")
}

/// The ref that holds `branch`'s review verdict (`landing::review` writes them; a verdict goes
/// with its branch).
pub fn review_ref(branch: &str) -> String {
    format!("{}{branch}", crate::names::REVIEW_REFS)
}

/// Apply one edit; when it fails because the ref is no longer where the caller saw it, say where
/// it is now instead of failing.
fn carry_out(
    repo: &gix::Repository,
    name: &str,
    expected: Option<gix::ObjectId>,
    edit: RefEdit,
    ui: &Ui,
) -> Result<Swap> {
    match edit_recorded(repo, edit, &[], ui) {
        Ok(()) => Ok(Swap::Done),
        Err(err) => {
            let now = target(repo, name)?;
            if now != expected {
                return Ok(Swap::Moved(now));
            }
            Err(err)
        }
    }
}

/// Apply one ref edit through gix, with the locks it takes recorded first: the ref's own, and
/// `packed-refs.lock` (gix takes it to delete, as git does), and `also` (`config.lock` when a
/// branch's config goes with it). A lock left by a killed berth is cleared first; one berth
/// cannot prove its own makes a one-line error that names it.
pub fn edit_recorded(
    repo: &gix::Repository,
    edit: RefEdit,
    also: &[PathBuf],
    ui: &Ui,
) -> Result<()> {
    let name = edit.name.as_bstr().to_string();
    let common = repo.common_dir();
    let mut taken = vec![
        locks::lock_of(&locks::ref_path(common, &edit.name)),
        common.join("packed-refs.lock"),
    ];
    taken.extend_from_slice(also);
    locks::clear_dead(common, ui);
    let _taking = locks::taking(common, &taken)?;
    let what = match edit.change {
        Change::Delete { .. } => format!("delete {name}"),
        Change::Update { .. } => format!("update {name}"),
    };
    repo.edit_reference(edit).map(|_| ()).map_err(|err| {
        match taken.iter().find(|lock| lock.exists()) {
            Some(lock) => locks::held_elsewhere(lock, &what),
            None => super::gix_err(err).context(format!("cannot {what}")),
        }
    })
}
