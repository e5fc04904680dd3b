//! The landing log: one entry per landing `ship` made, in `<common dir>/berth/landings.toml`, read
//! by `git berth log` and `ship --history`. An append rewrites the whole file atomically under its
//! lock; a file that does not parse is an error naming it, never overwritten.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::render::{Cell, Column, Cut, Row, Table, Terminal};
use crate::repo::Context;
use crate::{clock, names, statefile};

/// The format of `landings.toml` this build reads and writes.
const FORMAT_VERSION: u32 = 1;

/// One landing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Landing {
    pub worktree: String,
    pub branch: String,
    pub trunk: String,
    /// The trunk's tip before and after, in hex.
    pub old_tip: String,
    pub new_tip: String,
    /// `squash`, `merge` or `ff`.
    pub strategy: String,
    /// The session whose verdict approved the landed head.
    pub reviewer: String,
    /// `passed`, or `none` when no gate was configured.
    pub gate: String,
    /// The branch's head that landed, in hex (empty in a landing logged before it was kept):
    /// a worktree kept after landing is known as landed while its branch is still there.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub head: String,
    /// Seconds since the Unix epoch.
    pub time: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    version: u32,
    #[serde(default, rename = "landing")]
    landings: Vec<Landing>,
}

/// `<common dir>/berth/landings.toml`.
pub fn path(common_dir: &Path) -> PathBuf {
    common_dir.join(names::STATE_DIR).join(names::LANDINGS_FILE)
}

/// Every landing, oldest first; none when nothing has landed yet.
pub fn read(common_dir: &Path) -> Result<Vec<Landing>> {
    Ok(load(&path(common_dir))?.landings)
}

/// Whether `branch` at `head` is a head that landed, as `landings` log it.
pub fn landed(landings: &[Landing], branch: &str, head: gix::ObjectId) -> bool {
    let head = head.to_string();
    landings
        .iter()
        .any(|l| l.branch == branch && l.head == head)
}

/// Append `landing` under the log's lock.
pub fn append(common_dir: &Path, landing: &Landing) -> Result<()> {
    let file_path = path(common_dir);
    let dir = file_path.parent().unwrap_or(common_dir);
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let lock_path = dir.join(names::LANDINGS_LOCK);
    let _lock = crate::lockwait::lock(&lock_path, "the landing log")?;
    let mut file = load(&file_path)?;
    // A landing finished again after a kill is logged once.
    if file.landings.iter().any(|l| l.new_tip == landing.new_tip) {
        return Ok(());
    }
    file.version = FORMAT_VERSION;
    file.landings.push(landing.clone());
    let text = toml::to_string(&file).context("cannot serialize the landing log")?;
    statefile::write_atomic(&file_path, text.as_bytes(), Some(0o644))
}

/// What `log --json` (and `ship --history --json`) prints.
#[derive(Serialize)]
struct Shown<'a> {
    landings: &'a [Landing],
}

/// Print the landing log: a table, oldest first, each landing's age; or JSON.
pub fn print(ctx: &Context, json: bool, out: &mut dyn Write) -> Result<()> {
    let landings = read(&ctx.common_dir)?;
    if json {
        serde_json::to_writer_pretty(
            &mut *out,
            &Shown {
                landings: &landings,
            },
        )?;
        writeln!(out)?;
        return Ok(());
    }
    if landings.is_empty() {
        ctx.ui.status(format_args!(
            "nothing has landed yet; land an approved worktree with {} ship <name>",
            names::TOOL
        ));
        return Ok(());
    }
    let now = clock::now();
    let rows = landings
        .iter()
        .map(|l| Row {
            mark: None,
            cells: vec![
                Cell::from(clock::age(now, l.time)),
                Cell::from(l.worktree.as_str()),
                Cell::from(l.branch.as_str()),
                Cell::from(format!(
                    "{} {}..{}",
                    l.trunk,
                    crate::git::short(&l.old_tip),
                    crate::git::short(&l.new_tip)
                )),
                Cell::from(l.strategy.as_str()),
                Cell::from(l.gate.as_str()),
                Cell::from(l.reviewer.as_str()),
            ],
            details: Vec::new(),
        })
        .collect();
    let table = Table {
        columns: vec![
            Column::keep("WHEN"),
            Column::cut("WORKTREE", Cut::End, 1, 8),
            Column::cut("BRANCH", Cut::Middle, 1, 12),
            Column::keep("TRUNK"),
            Column::keep("STRATEGY"),
            Column::keep("GATE"),
            Column::cut("REVIEWER", Cut::End, 0, 8),
        ],
        header: true,
        gutter: false,
        rows,
    };
    write!(
        out,
        "{}",
        table.render(&Terminal::detect(|key| ctx.config_string(key)))
    )?;
    Ok(())
}

fn load(path: &Path) -> Result<File> {
    let Some(text) = statefile::read_text(path, "landing log")? else {
        return Ok(File::default());
    };
    statefile::parse(&text, FORMAT_VERSION)
        .map_err(|reason| statefile::corrupt(path, "landing log", &reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn landing(n: u64) -> Landing {
        Landing {
            worktree: format!("w{n}"),
            branch: format!("berth/w{n}"),
            trunk: "main".into(),
            old_tip: format!("{:040}", n),
            new_tip: format!("{:040}", n + 1),
            strategy: "squash".into(),
            reviewer: "r".into(),
            gate: "none".into(),
            head: format!("{:040}", n + 100),
            time: n,
        }
    }

    #[test]
    fn landings_are_appended_in_order_and_a_repeated_one_is_logged_once() {
        let dir = std::env::temp_dir().join(format!("berth-landings-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        append(&dir, &landing(1)).unwrap();
        append(&dir, &landing(2)).unwrap();
        append(&dir, &landing(2)).unwrap();
        assert_eq!(read(&dir).unwrap(), vec![landing(1), landing(2)]);
        std::fs::write(path(&dir), "landing = 3").unwrap();
        let err = append(&dir, &landing(3)).unwrap_err().to_string();
        assert!(err.contains("corrupt landing log"), "{err}");
        assert_eq!(std::fs::read_to_string(path(&dir)).unwrap(), "landing = 3");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
