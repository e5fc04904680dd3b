//! Refs outside `refs/heads/` that hold one object each (berth's facts about commits, such as
//! review verdicts): write the object, move the ref by compare-and-swap, read it back, delete it.
//! A ref is only ever moved from the value the caller saw, so two writers never tear one. Also:
//! removing the lock a killed writer left on a branch.

use anyhow::{Context as _, Result};
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};

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
pub fn swap(
    repo: &gix::Repository,
    name: &str,
    expected: Option<gix::ObjectId>,
    new: gix::ObjectId,
    message: &str,
) -> Result<Swap> {
    let edit = RefEdit {
        change: Change::Update {
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog: false,
                message: message.into(),
            },
            expected: previous(expected),
            new: gix::refs::Target::Object(new),
        },
        name: full_name(name)?,
        deref: false,
    };
    carry_out(repo, name, expected, edit)
}

/// Delete `name`, but only while it still points at `expected`. A ref that is already gone is
/// [`Swap::Done`].
pub fn delete(repo: &gix::Repository, name: &str, expected: gix::ObjectId) -> Result<Swap> {
    let edit = RefEdit {
        change: Change::Delete {
            expected: previous(Some(expected)),
            log: RefLog::AndReference,
        },
        name: full_name(name)?,
        deref: false,
    };
    match carry_out(repo, name, Some(expected), edit)? {
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
pub fn delete_any(repo: &gix::Repository, name: &str) -> Result<()> {
    for _ in 0..5 {
        let Some(id) = target(repo, name)? else {
            return Ok(());
        };
        if delete(repo, name, id)? == Swap::Done {
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
) -> Result<Swap> {
    match repo.edit_reference(edit) {
        Ok(_) => Ok(Swap::Done),
        Err(err) => {
            let now = target(repo, name)?;
            if now != expected {
                return Ok(Swap::Moved(now));
            }
            Err(super::gix_err(err)).with_context(|| format!("cannot update ref {name}"))
        }
    }
}

/// Remove the lock file of branch `branch` (short name) under `common_dir`, which the caller knows
/// a killed writer left (it holds the lock that writer held). The lock's path when there was one.
pub fn remove_stale_branch_lock(
    common_dir: &std::path::Path,
    branch: &str,
) -> Result<Option<std::path::PathBuf>> {
    let lock = common_dir.join("refs/heads").join(format!("{branch}.lock"));
    match std::fs::remove_file(&lock) {
        Ok(()) => Ok(Some(lock)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => {
            Err(anyhow::Error::from(e)
                .context(format!("cannot remove the stale {}", lock.display())))
        }
    }
}
