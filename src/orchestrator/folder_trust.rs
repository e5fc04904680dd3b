//! A manifest's `auto_trust`: the runtime's folder-trust question answered ahead, by writing the
//! record the runtime itself writes when a person accepts it, and never by turning any of its
//! permission checks off. Each runtime keeps that record its own way:
//! - Claude Code: `projects."<folder>".hasTrustDialogAccepted = true` in `~/.claude.json`
//!   (`$CLAUDE_CONFIG_DIR/.claude.json` when set); a `claude -p` run asks nothing, so a
//!   background Claude agent needs no record;
//! - Codex: `[projects."<folder>"] trust_level = "trusted"` in `~/.codex/config.toml`
//!   (`$CODEX_HOME`), keyed by the main checkout, where Codex looks up a linked worktree's trust;
//! - Pi: `"<folder>": true` in `~/.pi/agent/trust.json` (`$PI_CODING_AGENT_DIR`);
//! - OpenCode and a `shell` agent ask no such question.
//!
//! [`grant_for`] and the editors are pure; [`apply`] and [`revoke`] write, each under berth's
//! trust-records lock and atomically, and refuse a file they cannot read rather than replace it.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::runtime::Runtime;
use crate::{error, lockwait, paths, statefile};

/// Whose record it is: the runtimes that ask a folder-trust question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Asker {
    Claude,
    Codex,
    Pi,
}

/// The record `auto_trust` writes for one agent: which file, under which key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub runtime: Asker,
    pub file: PathBuf,
    /// The folder the record names.
    pub key: String,
}

/// What [`apply`] found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// The record was written; [`revoke`] takes it out when the worktree goes.
    Added,
    /// The folder was already trusted: nothing written, nothing to take out later.
    Already,
    /// The person marked the folder untrusted: kept as they chose.
    Refused,
}

/// Where a runtime's files are, read from the environment by the caller.
#[derive(Debug, Clone, Default)]
pub struct Homes {
    pub home: Option<PathBuf>,
    pub claude_config_dir: Option<PathBuf>,
    pub codex_home: Option<PathBuf>,
    pub pi_agent_dir: Option<PathBuf>,
}

impl Homes {
    /// This process's environment.
    pub fn from_env() -> Homes {
        let var = |k: &str| {
            std::env::var_os(k)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        Homes {
            home: var("HOME").or_else(dirs::home_dir),
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
            codex_home: var("CODEX_HOME"),
            pi_agent_dir: var("PI_CODING_AGENT_DIR"),
        }
    }
}

/// The record `auto_trust = true` writes for `runtime` working in `folder` (whose main checkout
/// is `main_checkout`), or none when the runtime asks no folder-trust question (or not in this
/// mode), with the sentence `--dry-run` shows for what the field became.
pub fn grant_for(
    runtime: Runtime,
    background: bool,
    folder: &Path,
    main_checkout: &Path,
    homes: &Homes,
) -> (Option<Grant>, String) {
    let home = |rest: &str| homes.home.as_ref().map(|h| h.join(rest));
    let key = |p: &Path| p.display().to_string();
    let (file, key) = match runtime {
        Runtime::Claude if background => {
            return (
                None,
                "nothing to write: a headless claude -p run trusts its folder without asking"
                    .to_owned(),
            );
        }
        Runtime::Claude => (
            homes
                .claude_config_dir
                .as_ref()
                .map(|d| d.join(".claude.json"))
                .or_else(|| home(".claude.json")),
            key(folder),
        ),
        Runtime::Codex => (
            homes
                .codex_home
                .clone()
                .or_else(|| home(".codex"))
                .map(|d| d.join("config.toml")),
            key(main_checkout),
        ),
        Runtime::Pi => (
            homes
                .pi_agent_dir
                .clone()
                .or_else(|| home(".pi/agent"))
                .map(|d| d.join("trust.json")),
            key(folder),
        ),
        Runtime::Opencode => {
            return (
                None,
                "nothing to write: OpenCode asks no folder-trust question".to_owned(),
            );
        }
        Runtime::Shell => {
            return (
                None,
                "nothing to write: a shell agent asks no folder-trust question".to_owned(),
            );
        }
    };
    let Some(file) = file else {
        return (
            None,
            "nothing written: HOME is not set, so the runtime's trust file cannot be found"
                .to_owned(),
        );
    };
    let asker = match runtime {
        Runtime::Claude => Asker::Claude,
        Runtime::Codex => Asker::Codex,
        _ => Asker::Pi,
    };
    let became = match asker {
        Asker::Claude => format!(
            "its folder-trust dialog accepted ahead: projects.\"{key}\".hasTrustDialogAccepted in \
             {} (taken out when down removes the worktree); its permission checks are unchanged",
            file.display()
        ),
        Asker::Codex => format!(
            "[projects.\"{key}\"] trust_level = \"trusted\" in {} (Codex keys a linked worktree's \
             trust by its main checkout; kept after down); its approvals are unchanged",
            file.display()
        ),
        Asker::Pi => format!(
            "\"{key}\": true in {} (taken out when down removes the worktree); its permission \
             checks are unchanged",
            file.display()
        ),
    };
    (
        Some(Grant {
            runtime: asker,
            file,
            key,
        }),
        became,
    )
}

/// `folder` as the runtimes key it: with its symlinks resolved as far as it exists (a worktree
/// is trusted before it is made).
pub fn canonical(folder: &Path) -> PathBuf {
    let mut existing = folder;
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return folder.to_owned(),
        }
    }
    let mut out = paths::real_or_same(existing);
    out.extend(rest.iter().rev());
    out
}

/// Write `grant`'s record, unless the folder is already trusted (or marked untrusted).
pub fn apply(grant: &Grant) -> Result<Applied> {
    edit(grant, |text| add(grant, text))
}

/// Take `grant`'s record out again, if it is still there as berth wrote it. Codex's record names
/// the main checkout, which other worktrees share, so it stays.
pub fn revoke(grant: &Grant) -> Result<()> {
    let remove = match grant.runtime {
        Asker::Codex => return Ok(()),
        Asker::Claude => claude_remove,
        Asker::Pi => pi_remove,
    };
    edit(grant, |text| {
        let out = remove(text, &grant.key)?;
        Ok((Applied::Added, out))
    })
    .map(drop)
}

/// Read `grant`'s file under berth's lock, change it with `change`, and write it back whole when
/// it changed.
fn edit(
    grant: &Grant,
    change: impl FnOnce(&str) -> Result<(Applied, Option<String>), String>,
) -> Result<Applied> {
    let lock = paths::data_dir()?.join("trust-records.lock");
    if let Some(dir) = lock.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let _held = lockwait::lock(&lock, "the runtimes' trust records")?;
    let file = &grant.file;
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(error::refuse_with_hint(
                format!("cannot read {}: {}", file.display(), error::io_reason(&e)),
                "make it readable, or leave auto_trust out",
            ));
        }
    };
    let (applied, out) = change(&text).map_err(|why| {
        error::refuse_with_hint(
            format!("{}: {why}", file.display()),
            "fix the file, or leave auto_trust out and accept the runtime's question yourself",
        )
    })?;
    if let Some(out) = out {
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        statefile::write_atomic(file, out.as_bytes(), Some(mode_of(file)))?;
    }
    Ok(applied)
}

/// The file's permissions, kept; a new file is the owner's alone, as the runtimes make them.
fn mode_of(file: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(file).map_or(0o600, |m| m.permissions().mode() & 0o7777)
}

fn add(grant: &Grant, text: &str) -> Result<(Applied, Option<String>), String> {
    match grant.runtime {
        Asker::Claude => claude_add(text, &grant.key),
        Asker::Codex => codex_add(text, &grant.key),
        Asker::Pi => pi_add(text, &grant.key),
    }
}

/// A JSON object file's text, or an empty object for an empty or missing file.
fn json_object(text: &str) -> Result<serde_json::Map<String, Value>, String> {
    if text.trim().is_empty() {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("is not a JSON object".to_owned()),
        Err(e) => Err(format!("is not valid JSON ({e})")),
    }
}

fn json_text(map: serde_json::Map<String, Value>) -> Result<String, String> {
    serde_json::to_string_pretty(&Value::Object(map))
        .map(|t| t + "\n")
        .map_err(|e| e.to_string())
}

/// `~/.claude.json` with `projects[key].hasTrustDialogAccepted = true`; every other key kept.
pub fn claude_add(text: &str, key: &str) -> Result<(Applied, Option<String>), String> {
    let mut map = json_object(text)?;
    let projects = map
        .entry("projects")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    let Value::Object(projects) = projects else {
        return Err("its \"projects\" is not an object".to_owned());
    };
    let project = projects
        .entry(key)
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    let Value::Object(project) = project else {
        return Err(format!("its \"projects\".\"{key}\" is not an object"));
    };
    if project.get("hasTrustDialogAccepted") == Some(&Value::Bool(true)) {
        return Ok((Applied::Already, None));
    }
    project.insert("hasTrustDialogAccepted".to_owned(), Value::Bool(true));
    Ok((Applied::Added, Some(json_text(map)?)))
}

/// `~/.claude.json` without the folder's acceptance; the folder's entry goes when nothing else
/// is left in it.
pub fn claude_remove(text: &str, key: &str) -> Result<Option<String>, String> {
    let mut map = json_object(text)?;
    let Some(Value::Object(projects)) = map.get_mut("projects") else {
        return Ok(None);
    };
    let Some(Value::Object(project)) = projects.get_mut(key) else {
        return Ok(None);
    };
    if project.remove("hasTrustDialogAccepted").is_none() {
        return Ok(None);
    }
    if project.is_empty() {
        projects.remove(key);
    }
    Ok(Some(json_text(map)?))
}

/// Codex's config with `[projects."<key>"] trust_level = "trusted"` added at its end, the rest
/// of the text (comments, order) untouched; a folder already given a trust level keeps it.
pub fn codex_add(text: &str, key: &str) -> Result<(Applied, Option<String>), String> {
    let table: toml::Table =
        toml::from_str(text).map_err(|e| format!("is not valid TOML ({})", e.message()))?;
    let project = table
        .get("projects")
        .and_then(|p| p.as_table())
        .and_then(|p| p.get(key));
    if let Some(project) = project {
        return match project.get("trust_level").and_then(|l| l.as_str()) {
            Some("trusted") => Ok((Applied::Already, None)),
            Some(_) => Ok((Applied::Refused, None)),
            None => Err(format!(
                "[projects.\"{key}\"] has no trust_level; add trust_level = \"trusted\" to it"
            )),
        };
    }
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() {
        out.push('\n');
    }
    let quoted = toml::Value::String(key.to_owned()).to_string();
    out.push_str(&format!("[projects.{quoted}]\ntrust_level = \"trusted\"\n"));
    let check: toml::Table = toml::from_str(&out).map_err(|_| {
        "its projects table is written in a way berth cannot add to; add \
         [projects.\"<folder>\"] trust_level = \"trusted\" yourself"
            .to_owned()
    })?;
    let trusted = check
        .get("projects")
        .and_then(|p| p.get(key))
        .and_then(|p| p.get("trust_level"))
        .and_then(|l| l.as_str())
        == Some("trusted");
    if !trusted {
        return Err("berth's addition did not read back as trusted".to_owned());
    }
    Ok((Applied::Added, Some(out)))
}

/// Pi's trust file (folder to decision) with the folder trusted; a decision already recorded
/// for the folder is kept.
pub fn pi_add(text: &str, key: &str) -> Result<(Applied, Option<String>), String> {
    let mut map = json_object(text)?;
    match map.get(key) {
        Some(Value::Bool(true)) => return Ok((Applied::Already, None)),
        Some(Value::Bool(false)) => return Ok((Applied::Refused, None)),
        _ => {}
    }
    map.insert(key.to_owned(), Value::Bool(true));
    Ok((Applied::Added, Some(json_text(map)?)))
}

/// Pi's trust file without the folder's `true`.
pub fn pi_remove(text: &str, key: &str) -> Result<Option<String>, String> {
    let mut map = json_object(text)?;
    if map.get(key) != Some(&Value::Bool(true)) {
        return Ok(None);
    }
    map.remove(key);
    Ok(Some(json_text(map)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn homes() -> Homes {
        Homes {
            home: Some(PathBuf::from("/h")),
            ..Homes::default()
        }
    }

    #[test]
    fn each_runtime_keeps_its_record_in_its_own_file() {
        let (wt, main) = (Path::new("/d/wt"), Path::new("/r"));
        let file = |r, bg| {
            grant_for(r, bg, wt, main, &homes())
                .0
                .map(|g| (g.file, g.key))
        };
        assert_eq!(
            file(Runtime::Claude, false),
            Some((PathBuf::from("/h/.claude.json"), "/d/wt".to_owned()))
        );
        assert_eq!(file(Runtime::Claude, true), None);
        assert_eq!(
            file(Runtime::Codex, true),
            Some((PathBuf::from("/h/.codex/config.toml"), "/r".to_owned()))
        );
        assert_eq!(
            file(Runtime::Pi, false),
            Some((PathBuf::from("/h/.pi/agent/trust.json"), "/d/wt".to_owned()))
        );
        assert_eq!(file(Runtime::Opencode, false), None);
        assert_eq!(file(Runtime::Shell, false), None);
        let moved = Homes {
            claude_config_dir: Some(PathBuf::from("/c")),
            codex_home: Some(PathBuf::from("/x")),
            pi_agent_dir: Some(PathBuf::from("/p")),
            ..homes()
        };
        let file = |r| grant_for(r, false, wt, main, &moved).0.map(|g| g.file);
        assert_eq!(
            file(Runtime::Claude),
            Some(PathBuf::from("/c/.claude.json"))
        );
        assert_eq!(file(Runtime::Codex), Some(PathBuf::from("/x/config.toml")));
        assert_eq!(file(Runtime::Pi), Some(PathBuf::from("/p/trust.json")));
    }

    #[test]
    fn claude_acceptance_is_added_beside_everything_else_and_taken_out_alone() {
        let text = r#"{"numStartups": 3, "projects": {"/a": {"allowedTools": []}}}"#;
        let (applied, out) = claude_add(text, "/d/wt").unwrap();
        assert_eq!(applied, Applied::Added);
        let out = out.unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["numStartups"], 3);
        assert_eq!(v["projects"]["/a"]["allowedTools"], serde_json::json!([]));
        assert_eq!(v["projects"]["/d/wt"]["hasTrustDialogAccepted"], true);
        assert!(out.find("numStartups") < out.find("projects"), "order kept");
        assert_eq!(claude_add(&out, "/d/wt").unwrap(), (Applied::Already, None));
        let back = claude_remove(&out, "/d/wt").unwrap().unwrap();
        let v: Value = serde_json::from_str(&back).unwrap();
        assert!(v["projects"].get("/d/wt").is_none());
        assert_eq!(v["projects"]["/a"]["allowedTools"], serde_json::json!([]));
        assert_eq!(claude_remove(&back, "/d/wt").unwrap(), None);
        let (_, fresh) = claude_add("", "/d/wt").unwrap();
        assert!(fresh.unwrap().contains("hasTrustDialogAccepted"));
    }

    #[test]
    fn a_file_that_is_not_what_the_runtime_writes_is_refused_not_replaced() {
        assert!(
            claude_add("{not json", "/d")
                .unwrap_err()
                .contains("not valid JSON")
        );
        assert!(
            claude_add("[1]", "/d")
                .unwrap_err()
                .contains("not a JSON object")
        );
        assert!(
            claude_add(r#"{"projects": 3}"#, "/d")
                .unwrap_err()
                .contains("\"projects\" is not an object")
        );
        assert!(pi_add("nope", "/d").is_err());
        assert!(
            codex_add("a = [", "/r")
                .unwrap_err()
                .contains("not valid TOML")
        );
    }

    #[test]
    fn codex_trust_is_appended_leaving_the_rest_of_the_text_as_it_was() {
        let text = "# mine\nmodel = \"o3\"\n\n[projects.\"/other\"]\ntrust_level = \"untrusted\"";
        let (applied, out) = codex_add(text, "/r/my \"repo\"").unwrap();
        assert_eq!(applied, Applied::Added);
        let out = out.unwrap();
        assert!(out.starts_with(text), "{out}");
        let t: toml::Table = toml::from_str(&out).unwrap();
        assert_eq!(
            t["projects"]["/r/my \"repo\""]["trust_level"].as_str(),
            Some("trusted")
        );
        assert_eq!(
            codex_add(&out, "/r/my \"repo\"").unwrap(),
            (Applied::Already, None)
        );
        assert_eq!(codex_add(&out, "/other").unwrap(), (Applied::Refused, None));
        let bare = "[projects.\"/r\"]\nmodel = \"o3\"\n";
        assert!(
            codex_add(bare, "/r")
                .unwrap_err()
                .contains("no trust_level")
        );
        let inline = "projects = { \"/x\" = { trust_level = \"trusted\" } }\n";
        assert!(
            codex_add(inline, "/r")
                .unwrap_err()
                .contains("cannot add to")
        );
        assert_eq!(
            codex_add("", "/r").unwrap().1.unwrap(),
            "[projects.\"/r\"]\ntrust_level = \"trusted\"\n"
        );
    }

    #[test]
    fn pi_keeps_a_decision_already_made() {
        let (applied, out) = pi_add(r#"{"/a": false}"#, "/d/wt").unwrap();
        assert_eq!(applied, Applied::Added);
        let out = out.unwrap();
        assert_eq!(pi_add(&out, "/a").unwrap(), (Applied::Refused, None));
        assert_eq!(pi_add(&out, "/d/wt").unwrap(), (Applied::Already, None));
        let back = pi_remove(&out, "/d/wt").unwrap().unwrap();
        let v: Value = serde_json::from_str(&back).unwrap();
        assert_eq!(v, serde_json::json!({"/a": false}));
        assert_eq!(pi_remove(&back, "/a").unwrap(), None);
    }

    #[test]
    fn a_folder_not_made_yet_is_keyed_by_its_resolved_parent() {
        let dir = std::env::temp_dir();
        let real = paths::real_or_same(&dir);
        assert_eq!(
            canonical(&dir.join("no-such-berth-wt/x")),
            real.join("no-such-berth-wt/x")
        );
    }
}
