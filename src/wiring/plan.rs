//! What init writes for each runtime, and which files must change given what is already there.
//! Pure: it reads only through the caller's `ReadFile` and never writes.

use serde_json::Value;

use super::master;
use super::mcp::{self, Taken, Target};
use super::merge::{merge_into, parse_object, remove_ours, to_bytes};
use crate::error::Refusal;
use crate::guard::managed::{self, Kind};
use crate::guard::runtime::Runtime;
use crate::names;

/// What the user asked for, as plain data for the planners.
#[derive(Debug, Clone)]
pub struct Want {
    pub runtimes: Vec<Runtime>,
    pub worktrees: bool,
    /// Also the master agent's definition, for each runtime that has one.
    pub orchestrator: bool,
    /// Also berth's MCP server, in each runtime's project configuration that takes one.
    pub mcp: bool,
    pub force: bool,
}

/// One file's change: `after` is `None` to delete it. Paths are relative to the checkout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub before: Option<Vec<u8>>,
    pub after: Option<Vec<u8>>,
}

/// A file init owns outright, or a JSON file it merges its entries into. `earlier` holds the
/// entries earlier versions of berth wrote there, by event: each is upgraded without `--force`.
enum Install {
    Whole {
        path: &'static str,
        content: String,
    },
    Merge {
        path: &'static str,
        fragment: Value,
        earlier: Vec<(String, Value)>,
    },
}

/// Matchers earlier versions of berth wrote, before the guard judged every tool: an entry that
/// differs from this build's only by one of them is berth's own, untouched since, so a re-run
/// upgrades it without `--force` (an entry changed in any other way still needs it).
const EARLIER_MATCHERS: [(Runtime, &str, &str); 4] = [
    (
        Runtime::Claude,
        "PreToolUse",
        "Bash|PowerShell|Monitor|Edit|Write|MultiEdit|NotebookEdit",
    ),
    (
        Runtime::Codex,
        "PreToolUse",
        "^(Bash|apply_patch|Edit|Write)$",
    ),
    (
        Runtime::Gemini,
        "BeforeTool",
        "run_shell_command|write_file|replace",
    ),
    (
        Runtime::Cursor,
        "preToolUse",
        "Write|Edit|StrReplace|Delete",
    ),
];

/// This build's entries for `r` as earlier versions wrote them, by event.
fn earlier_entries(r: Runtime, fragment: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (_, event, matcher) in EARLIER_MATCHERS.iter().filter(|(e, ..)| *e == r) {
        let now = fragment["hooks"][*event].as_array().into_iter().flatten();
        for entry in now {
            let mut then = entry.clone();
            if let Some(obj) = then.as_object_mut() {
                obj.insert("matcher".into(), Value::from(*matcher));
            }
            out.push((event.to_string(), then));
        }
    }
    out
}

fn guard_command(r: Runtime) -> String {
    format!("{} guard --runtime {}", names::TOOL, r.name())
}

fn worktree_commands() -> [String; 2] {
    [
        format!("{} hook worktree-create", names::TOOL),
        format!("{} hook worktree-remove", names::TOOL),
    ]
}

/// Every command string init ever writes: an entry that runs one of them is berth's.
fn our_commands() -> Vec<String> {
    let mut all: Vec<String> = Runtime::ALL.iter().map(|r| guard_command(*r)).collect();
    all.extend(worktree_commands());
    all
}

/// Fills a template from `hooks/` with this build's command names.
fn fill(template: &str, r: Runtime) -> String {
    let quoted = |s: &str| Value::String(s.to_string()).to_string();
    let mut argv: Vec<String> = names::TOOL.split(' ').map(str::to_string).collect();
    argv.extend(["guard", "--runtime", r.name()].map(str::to_string));
    let [create, remove] = worktree_commands();
    template
        .replace("\"@GUARD@\"", &quoted(&guard_command(r)))
        .replace("\"@WORKTREE_CREATE@\"", &quoted(&create))
        .replace("\"@WORKTREE_REMOVE@\"", &quoted(&remove))
        .replace(
            "\"@HOOK_NAME@\"",
            &quoted(&format!("{}-guard", names::TOOL.replace(' ', "-"))),
        )
        .replace("@GUARD_ARGV@", &Value::from(argv).to_string())
        .replace("@MASTER_AGENT@", &quoted(names::MASTER_AGENT))
        .replace("@ALLOW_HATCH@", &quoted(names::env::ALLOW_MAIN_WORKTREE))
        .replace("@MASTER_HATCH@", &quoted(names::env::MASTER_SESSION))
}

fn fragment(template: &str, r: Runtime) -> Value {
    // The templates are part of this build and parsed by a unit test, so this cannot fail
    // for a binary whose tests passed.
    serde_json::from_str(&fill(template, r)).unwrap_or(Value::Null)
}

/// This build's template for each runtime's file, from `hooks/`.
fn template(r: Runtime) -> &'static str {
    match r {
        Runtime::Claude => include_str!("../../hooks/claude/guard.json"),
        Runtime::Codex => include_str!("../../hooks/codex/hooks.json"),
        Runtime::Gemini => include_str!("../../hooks/gemini/settings.json"),
        Runtime::Cursor => include_str!("../../hooks/cursor/hooks.json"),
        Runtime::Copilot => include_str!("../../hooks/copilot/berth-guard.json"),
        Runtime::Opencode => include_str!("../../hooks/opencode/berth-guard.ts"),
        Runtime::Pi => include_str!("../../hooks/pi/berth-guard.ts"),
    }
}

/// What init writes for `r`. Where the file goes and whether it is merged come from the table
/// the guard protects by, so every file init writes is one an agent cannot.
fn install(r: Runtime, worktrees: bool) -> Install {
    let at = managed::installed(r);
    match at.kind {
        Kind::Merge => {
            let mut frag = fragment(template(r), r);
            if worktrees && r == Runtime::Claude {
                let wt = fragment(include_str!("../../hooks/claude/worktrees.json"), r);
                // Both fragments come from this build and are objects; a merge of two objects
                // without force cannot be refused here, as they share no entry.
                let _ = merge_into(&mut frag, &wt, &[], false);
            }
            Install::Merge {
                path: at.path,
                earlier: earlier_entries(r, &frag),
                fragment: frag,
            }
        }
        Kind::Whole | Kind::WholeInLoadedFolder => Install::Whole {
            path: at.path,
            content: fill(template(r), r),
        },
    }
}

/// What uninstall does: the changes, and berth's files it keeps because a person changed them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Uninstall {
    pub changes: Vec<Change>,
    pub kept: Vec<String>,
}

/// Reads a file relative to the checkout: `None` when it does not exist.
pub type ReadFile<'a> = dyn Fn(&str) -> Result<Option<Vec<u8>>, String> + 'a;

/// The changes install needs, given each file's current contents. Pure over `read`.
pub fn plan_install(want: &Want, read: &ReadFile<'_>) -> Result<Vec<Change>, Refusal> {
    let mut changes = Vec::new();
    for r in &want.runtimes {
        match install(*r, want.worktrees) {
            Install::Whole { path, content } => {
                let hint = format!("{} init --runtime {} --force", names::TOOL, r.name());
                changes.extend(plan_whole(path, content, want.force, &hint, read)?);
            }
            Install::Merge {
                path,
                fragment,
                earlier,
            } => {
                let before = read(path).map_err(Refusal::new)?;
                let mut doc = parse_object(path, before.as_deref())?;
                let original = doc.clone();
                merge_into(&mut doc, &fragment, &earlier, want.force).map_err(|what| {
                    Refusal::new(format!("{path}: {what}")).hint(format!(
                        "{} init --runtime {} --force",
                        names::TOOL,
                        r.name()
                    ))
                })?;
                if doc != original || before.is_none() {
                    changes.push(Change {
                        path: path.into(),
                        before,
                        after: Some(to_bytes(&doc)),
                    });
                }
            }
        }
        if let Some(def) = master::definition(*r).filter(|_| want.orchestrator) {
            let hint = format!(
                "{} init --with-orchestrator --runtime {} --force",
                names::TOOL,
                r.name()
            );
            changes.extend(plan_whole(
                def.path,
                def.content(),
                want.force,
                &hint,
                read,
            )?);
        }
    }
    if want.mcp {
        plan_mcp_install(want, read, &mut changes)?;
    }
    Ok(changes)
}

/// A file's contents before any change, and as the changes planned so far leave it.
type Contents = (Option<Vec<u8>>, Option<Vec<u8>>);

fn current(changes: &[Change], path: &str, read: &ReadFile<'_>) -> Result<Contents, Refusal> {
    match changes.iter().find(|c| c.path == path) {
        Some(c) => Ok((c.before.clone(), c.after.clone())),
        None => {
            let before = read(path).map_err(Refusal::new)?;
            Ok((before.clone(), before))
        }
    }
}

/// Sets the planned contents of `path`, folding into a change already planned for it.
fn record(changes: &mut Vec<Change>, path: &str, before: Option<Vec<u8>>, after: Option<Vec<u8>>) {
    match changes.iter_mut().find(|c| c.path == path) {
        Some(c) => c.after = after,
        None => changes.push(Change {
            path: path.into(),
            before,
            after,
        }),
    }
    changes.retain(|c| c.before != c.after);
}

/// Adds berth's MCP server to each runtime's project configuration, and for Claude Code the
/// read-only tool to the allow list. A runtime without MCP configuration is passed over.
fn plan_mcp_install(
    want: &Want,
    read: &ReadFile<'_>,
    changes: &mut Vec<Change>,
) -> Result<(), Refusal> {
    for r in &want.runtimes {
        let Some(target) = mcp::target(*r) else {
            continue;
        };
        let path = target.path();
        let refuse = |what: String| {
            Refusal::new(format!("{path}: {what}")).hint(format!(
                "{} init --runtime {} --force (or --no-mcp)",
                names::TOOL,
                r.name()
            ))
        };
        let (before, now) = current(changes, path, read)?;
        match target {
            Target::Json { table, .. } => {
                let mut doc = parse_object(path, now.as_deref())?;
                let table = mcp::table_for(table, &doc);
                if mcp::add_server(&mut doc, table, &mcp::entry(*r), want.force).map_err(refuse)? {
                    record(changes, path, before, Some(to_bytes(&doc)));
                }
            }
            Target::CodexToml { .. } => {
                let text = String::from_utf8_lossy(now.as_deref().unwrap_or_default());
                if let Some(after) = mcp::add_codex(&text).map_err(refuse)? {
                    record(changes, path, before, Some(after.into_bytes()));
                }
            }
        }
        if *r == Runtime::Claude {
            let settings = managed::installed(*r).path;
            let (before, now) = current(changes, settings, read)?;
            let mut doc = parse_object(settings, now.as_deref())?;
            let added = mcp::add_allow(&mut doc, &mcp::claude_allow_rule())
                .map_err(|what| Refusal::new(format!("{settings}: {what}")))?;
            if added {
                record(changes, settings, before, Some(to_bytes(&doc)));
            }
        }
    }
    Ok(())
}

/// Takes berth's MCP server out of each runtime's project configuration where it is as init
/// wrote it (one changed since is named in `kept`, and goes too with `force`, but for Codex), and the allow-list rule out of Claude Code's
/// settings. A JSON file left empty goes.
fn plan_mcp_uninstall(
    want: &Want,
    read: &ReadFile<'_>,
    changes: &mut Vec<Change>,
    kept: &mut Vec<String>,
) -> Result<(), Refusal> {
    let emptied = |doc: &Value| doc.as_object().is_some_and(|o| o.is_empty());
    for r in &want.runtimes {
        if *r == Runtime::Claude {
            let settings = managed::installed(*r).path;
            let (before, now) = current(changes, settings, read)?;
            if let Some(now) = now {
                let mut doc = parse_object(settings, Some(&now))?;
                if mcp::remove_allow(&mut doc, &mcp::claude_allow_rule()) {
                    let after = (!emptied(&doc)).then(|| to_bytes(&doc));
                    record(changes, settings, before, after);
                }
            }
        }
        let Some(target) = mcp::target(*r) else {
            continue;
        };
        let path = target.path();
        let (before, Some(now)) = current(changes, path, read)? else {
            continue;
        };
        let taken = match target {
            Target::Json { table, .. } => {
                let mut doc = parse_object(path, Some(&now))?;
                let entry = mcp::entry(*r);
                let found_in = mcp::table_for(table, &doc);
                let mut taken = mcp::remove_server(&mut doc, found_in, &entry, want.force);
                if taken == Taken::Absent {
                    taken = mcp::remove_server(&mut doc, table, &entry, want.force);
                }
                if taken == Taken::Removed {
                    let after = (!emptied(&doc)).then(|| to_bytes(&doc));
                    record(changes, path, before, after);
                }
                taken
            }
            Target::CodexToml { .. } => match mcp::remove_codex(&String::from_utf8_lossy(&now)) {
                Ok(after) => {
                    let after = (!after.trim().is_empty()).then(|| after.into_bytes());
                    record(changes, path, before, after);
                    Taken::Removed
                }
                Err(taken) => taken,
            },
        };
        if taken == Taken::Changed && !kept.iter().any(|k| k == path) {
            kept.push(path.to_string());
        }
    }
    Ok(())
}

/// A file init owns outright: written when it is missing, left when it already holds
/// `content`, refused when it holds anything else, unless `force`.
fn plan_whole(
    path: &str,
    content: String,
    force: bool,
    hint: &str,
    read: &ReadFile<'_>,
) -> Result<Option<Change>, Refusal> {
    let before = read(path).map_err(Refusal::new)?;
    match &before {
        Some(b) if b == content.as_bytes() => Ok(None),
        Some(_) if !force => Err(Refusal::new(format!(
            "{path} exists and is not the one this version installs"
        ))
        .hint(hint)),
        _ => Ok(Some(Change {
            path: path.into(),
            before,
            after: Some(content.into_bytes()),
        })),
    }
}

/// The changes uninstall needs: berth's whole files and berth's hook entries go; every other
/// key and entry stays. A master definition goes while it is as init wrote it; one a person
/// changed is kept (and named in `kept`) unless `force`; one berth never wrote is not touched.
/// Pure over `read`.
pub fn plan_uninstall(want: &Want, read: &ReadFile<'_>) -> Result<Uninstall, Refusal> {
    let ours = our_commands();
    let mut changes = Vec::new();
    let mut kept = Vec::new();
    for r in &want.runtimes {
        // Uninstall takes the master out too, whether or not this run names the orchestrator.
        if let Some(def) = master::definition(*r) {
            match read(def.path).map_err(Refusal::new)? {
                Some(b)
                    if b == def.content().as_bytes()
                        || (want.force && master::carries_marker(&b)) =>
                {
                    changes.push(Change {
                        path: def.path.into(),
                        before: Some(b),
                        after: None,
                    });
                }
                Some(b) if master::carries_marker(&b) => kept.push(def.path.to_string()),
                _ => {}
            }
        }
        // Uninstall takes the worktree hooks out too, whether or not this run names them.
        match install(*r, true) {
            Install::Whole { path, content } => match read(path).map_err(Refusal::new)? {
                Some(b) if b != content.as_bytes() && !want.force => {
                    return Err(Refusal::new(format!(
                        "{path} is not the one this version installs; keeping it"
                    ))
                    .hint(format!(
                        "{} init --uninstall --runtime {} --force",
                        names::TOOL,
                        r.name()
                    )));
                }
                Some(b) => changes.push(Change {
                    path: path.into(),
                    before: Some(b),
                    after: None,
                }),
                None => {}
            },
            Install::Merge { path, .. } => {
                let Some(before) = read(path).map_err(Refusal::new)? else {
                    continue;
                };
                let mut doc = parse_object(path, Some(&before))?;
                if !remove_ours(&mut doc, &ours) {
                    continue;
                }
                let empty = doc
                    .as_object()
                    .is_some_and(|o| o.keys().all(|k| k == "version"));
                let after = if empty { None } else { Some(to_bytes(&doc)) };
                changes.push(Change {
                    path: path.into(),
                    before: Some(before),
                    after,
                });
            }
        }
    }
    plan_mcp_uninstall(want, read, &mut changes, &mut kept)?;
    Ok(Uninstall { changes, kept })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wiring::merge::is_ours;
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::path::Path;

    /// An in-memory checkout: relative path to contents.
    #[derive(Default)]
    struct Files(RefCell<HashMap<String, Vec<u8>>>);

    impl Files {
        fn with(path: &str, text: &str) -> Files {
            let f = Files::default();
            f.0.borrow_mut()
                .insert(path.into(), text.as_bytes().to_vec());
            f
        }

        fn reader(&self) -> impl Fn(&str) -> Result<Option<Vec<u8>>, String> + '_ {
            |p| Ok(self.0.borrow().get(p).cloned())
        }

        fn apply(&self, changes: &[Change]) {
            for c in changes {
                match &c.after {
                    Some(b) => self.0.borrow_mut().insert(c.path.clone(), b.clone()),
                    None => self.0.borrow_mut().remove(&c.path),
                };
            }
        }

        fn json(&self, path: &str) -> Value {
            serde_json::from_slice(&self.0.borrow()[path]).expect("json")
        }
    }

    fn want(runtimes: &[Runtime]) -> Want {
        Want {
            runtimes: runtimes.to_vec(),
            worktrees: false,
            orchestrator: false,
            mcp: false,
            force: false,
        }
    }

    const FOREIGN: &str = r#"{
  "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(.env)"]},
  "model": "opus",
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "herdr report"}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]
  }
}"#;

    /// `@NAME@` left in a filled template.
    fn has_placeholder(text: &str) -> bool {
        let parts: Vec<&str> = text.split('@').collect();
        parts.len() > 2
            && parts[1..parts.len() - 1]
                .iter()
                .any(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
    }

    #[test]
    fn every_template_in_hooks_fills_to_valid_content() {
        for r in Runtime::ALL {
            match install(r, true) {
                Install::Merge { fragment, .. } => {
                    assert!(fragment.is_object(), "{}", r.name());
                    assert!(is_ours(&fragment, &our_commands()));
                    assert!(!fragment.to_string().contains('@'), "{fragment}");
                }
                Install::Whole { content, .. } => {
                    assert!(!has_placeholder(&content), "{content}");
                    assert!(
                        content.contains(&format!("\"--runtime\",\"{}\"", r.name()))
                            || content.contains(&guard_command(r))
                    );
                }
            }
        }
    }

    #[test]
    fn every_file_init_writes_is_one_the_guard_keeps_agents_from_writing() {
        let files = Files::default();
        let all = Want {
            worktrees: true,
            ..want(&Runtime::ALL)
        };
        let changes = plan_install(&all, &files.reader()).expect("plan");
        assert_eq!(changes.len(), Runtime::ALL.len());
        for c in changes {
            let path = Path::new("/repo/linked").join(&c.path);
            assert!(managed::is_managed(&path, None), "{}", c.path);
        }
    }

    #[test]
    fn install_merges_into_claude_settings_keeping_foreign_keys_hooks_and_permissions() {
        let files = Files::with(names::CLAUDE_SETTINGS, FOREIGN);
        let changes = plan_install(&want(&[Runtime::Claude]), &files.reader()).expect("plan");
        files.apply(&changes);
        let doc = files.json(names::CLAUDE_SETTINGS);
        let foreign: Value = serde_json::from_str(FOREIGN).expect("json");
        assert_eq!(doc["permissions"], foreign["permissions"]);
        assert_eq!(doc["model"], "opus");
        assert_eq!(
            doc["hooks"]["SessionStart"],
            foreign["hooks"]["SessionStart"]
        );
        let pre = doc["hooks"]["PreToolUse"].as_array().expect("list");
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0], foreign["hooks"]["PreToolUse"][0]);
        assert_eq!(
            pre[1]["hooks"][0]["command"],
            "git berth guard --runtime claude"
        );
        assert_eq!(pre[1]["hooks"][0]["onFailure"], "block");
        // Every tool goes to the guard: it allows readers and judges the rest.
        assert_eq!(pre[1]["matcher"], "*");
    }

    /// What the version before every tool was routed to the guard wrote, beside a foreign hook.
    const EARLIER: [(&str, &str); 4] = [
        (
            names::CLAUDE_SETTINGS,
            r#"{"model":"opus","hooks":{"PreToolUse":[
              {"matcher":"Bash","hooks":[{"type":"command","command":"herdr report"}]},
              {"matcher":"Bash|PowerShell|Monitor|Edit|Write|MultiEdit|NotebookEdit","hooks":[
                {"type":"command","command":"git berth guard --runtime claude","timeout":10,"onFailure":"block"}]}]}}"#,
        ),
        (
            names::CODEX_HOOKS,
            r#"{"hooks":{"PreToolUse":[{"matcher":"^(Bash|apply_patch|Edit|Write)$","hooks":[
              {"type":"command","command":"git berth guard --runtime codex","timeout":30}]}],
              "Stop":[{"hooks":[{"type":"command","command":"notify"}]}]}}"#,
        ),
        (
            names::GEMINI_SETTINGS,
            r#"{"hooks":{"BeforeTool":[{"matcher":"run_shell_command|write_file|replace","hooks":[
              {"name":"git-berth-guard","type":"command","command":"git berth guard --runtime gemini","timeout":5000}]}]},
              "theme":"dark"}"#,
        ),
        (
            names::CURSOR_HOOKS,
            r#"{"version":1,"hooks":{
              "beforeShellExecution":[{"command":"git berth guard --runtime cursor","timeout":10,"failClosed":true}],
              "preToolUse":[{"command":"git berth guard --runtime cursor","matcher":"Write|Edit|StrReplace|Delete","timeout":10,"failClosed":true}],
              "afterFileEdit":[{"command":"fmt"}]}}"#,
        ),
    ];

    const EARLIER_RUNTIMES: [Runtime; 4] = [
        Runtime::Claude,
        Runtime::Codex,
        Runtime::Gemini,
        Runtime::Cursor,
    ];

    fn earlier_install() -> Files {
        let files = Files::default();
        for (path, text) in EARLIER {
            files
                .0
                .borrow_mut()
                .insert(path.into(), text.as_bytes().to_vec());
        }
        files
    }

    #[test]
    fn an_install_from_before_every_tool_was_judged_is_upgraded_without_force() {
        let files = earlier_install();
        let w = want(&EARLIER_RUNTIMES);
        let changes = plan_install(&w, &files.reader()).expect("upgrade needs no --force");
        assert_eq!(changes.len(), EARLIER.len());
        files.apply(&changes);
        for (path, event) in [
            (names::CLAUDE_SETTINGS, "PreToolUse"),
            (names::CODEX_HOOKS, "PreToolUse"),
            (names::GEMINI_SETTINGS, "BeforeTool"),
        ] {
            let doc = files.json(path);
            let ours: Vec<&Value> = doc["hooks"][event]
                .as_array()
                .expect("list")
                .iter()
                .filter(|e| is_ours(e, &our_commands()))
                .collect();
            assert_eq!(ours.len(), 1, "{path}: {doc}");
            assert_eq!(ours[0]["matcher"], "*", "{path}");
        }
        let cursor = files.json(names::CURSOR_HOOKS);
        assert_eq!(
            cursor["hooks"]["preToolUse"].as_array().map(Vec::len),
            Some(1)
        );
        assert!(cursor["hooks"]["preToolUse"][0].get("matcher").is_none());
        assert_eq!(cursor["hooks"]["afterFileEdit"][0]["command"], "fmt");
        assert_eq!(files.json(names::CLAUDE_SETTINGS)["model"], "opus");
        assert_eq!(plan_install(&w, &files.reader()).expect("plan"), vec![]);
    }

    #[test]
    fn an_earlier_entry_changed_by_hand_still_needs_force() {
        let mut doc: Value = serde_json::from_str(EARLIER[0].1).expect("json");
        doc["hooks"]["PreToolUse"][1]["hooks"][0]["timeout"] = 99.into();
        let files = Files::with(names::CLAUDE_SETTINGS, &doc.to_string());
        let err = plan_install(&want(&[Runtime::Claude]), &files.reader()).expect_err("refused");
        assert!(err.hint.as_deref().is_some_and(|h| h.contains("--force")));
    }

    #[test]
    fn uninstall_takes_out_an_install_from_before_every_tool_was_judged() {
        let files = earlier_install();
        let changes = plan_uninstall(&want(&EARLIER_RUNTIMES), &files.reader())
            .expect("plan")
            .changes;
        files.apply(&changes);
        let claude = files.json(names::CLAUDE_SETTINGS);
        assert_eq!(
            claude,
            serde_json::json!({"model":"opus","hooks":{"PreToolUse":[
                {"matcher":"Bash","hooks":[{"type":"command","command":"herdr report"}]}]}})
        );
        let cursor = files.json(names::CURSOR_HOOKS);
        assert_eq!(
            cursor,
            serde_json::json!({"version":1,"hooks":{"afterFileEdit":[{"command":"fmt"}]}})
        );
        assert!(
            !files
                .json(names::GEMINI_SETTINGS)
                .to_string()
                .contains("berth")
        );
        assert!(!files.json(names::CODEX_HOOKS).to_string().contains("berth"));
    }

    #[test]
    fn a_second_install_plans_no_change() {
        let files = Files::with(names::CLAUDE_SETTINGS, FOREIGN);
        let all = want(&Runtime::ALL);
        files.apply(&plan_install(&all, &files.reader()).expect("plan"));
        assert_eq!(plan_install(&all, &files.reader()).expect("plan"), vec![]);
    }

    #[test]
    fn a_settings_file_already_holding_the_entry_in_another_layout_is_not_rewritten() {
        let files = Files::default();
        files.apply(&plan_install(&want(&[Runtime::Claude]), &files.reader()).expect("plan"));
        let compact = files.json(names::CLAUDE_SETTINGS).to_string();
        let files = Files::with(names::CLAUDE_SETTINGS, &compact);
        assert_eq!(
            plan_install(&want(&[Runtime::Claude]), &files.reader()).expect("plan"),
            vec![]
        );
    }

    #[test]
    fn uninstall_removes_exactly_what_install_added() {
        let files = Files::with(names::CLAUDE_SETTINGS, FOREIGN);
        let all = Want {
            worktrees: true,
            ..want(&Runtime::ALL)
        };
        files.apply(&plan_install(&all, &files.reader()).expect("plan"));
        assert!(files.0.borrow().len() > 5);
        files.apply(&plan_uninstall(&all, &files.reader()).expect("plan").changes);
        let left: Vec<String> = files.0.borrow().keys().cloned().collect();
        assert_eq!(left, vec![names::CLAUDE_SETTINGS.to_string()]);
        assert_eq!(
            files.json(names::CLAUDE_SETTINGS),
            serde_json::from_str::<Value>(FOREIGN).expect("json")
        );
        assert_eq!(
            plan_uninstall(&all, &files.reader()).expect("plan"),
            Uninstall::default()
        );
    }

    #[test]
    fn uninstall_keeps_a_foreign_handler_added_to_berths_group() {
        let files = Files::default();
        files.apply(&plan_install(&want(&[Runtime::Claude]), &files.reader()).expect("plan"));
        let mut doc = files.json(names::CLAUDE_SETTINGS);
        doc["hooks"]["PreToolUse"][0]["hooks"]
            .as_array_mut()
            .expect("list")
            .push(json_handler("mine"));
        let files = Files::with(names::CLAUDE_SETTINGS, &doc.to_string());
        files.apply(
            &plan_uninstall(&want(&[Runtime::Claude]), &files.reader())
                .expect("plan")
                .changes,
        );
        let left = files.json(names::CLAUDE_SETTINGS);
        assert_eq!(
            left["hooks"]["PreToolUse"][0]["hooks"],
            Value::Array(vec![json_handler("mine")])
        );
    }

    fn json_handler(cmd: &str) -> Value {
        serde_json::json!({"type": "command", "command": cmd})
    }

    #[test]
    fn worktrees_adds_the_worktree_hooks_to_claude_settings() {
        let files = Files::default();
        let w = Want {
            worktrees: true,
            ..want(&[Runtime::Claude])
        };
        files.apply(&plan_install(&w, &files.reader()).expect("plan"));
        let doc = files.json(names::CLAUDE_SETTINGS);
        assert_eq!(
            doc["hooks"]["WorktreeCreate"][0]["hooks"][0]["command"],
            "git berth hook worktree-create"
        );
        assert_eq!(
            doc["hooks"]["WorktreeRemove"][0]["hooks"][0]["command"],
            "git berth hook worktree-remove"
        );
    }

    #[test]
    fn a_changed_berth_file_is_refused_without_force_and_replaced_with_it() {
        let files = Files::with(names::OPENCODE_PLUGIN, "// mine\n");
        let err = plan_install(&want(&[Runtime::Opencode]), &files.reader()).expect_err("refused");
        assert!(
            err.message.contains(names::OPENCODE_PLUGIN),
            "{}",
            err.message
        );
        assert!(err.hint.as_deref().is_some_and(|h| h.contains("--force")));
        let forced = plan_install(
            &Want {
                force: true,
                ..want(&[Runtime::Opencode])
            },
            &files.reader(),
        )
        .expect("plan");
        assert_eq!(forced.len(), 1);
    }

    #[test]
    fn a_changed_berth_hook_entry_is_refused_without_force() {
        let files = Files::default();
        files.apply(&plan_install(&want(&[Runtime::Claude]), &files.reader()).expect("plan"));
        let mut doc = files.json(names::CLAUDE_SETTINGS);
        doc["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 99.into();
        let files = Files::with(names::CLAUDE_SETTINGS, &doc.to_string());
        assert!(plan_install(&want(&[Runtime::Claude]), &files.reader()).is_err());
        let forced = plan_install(
            &Want {
                force: true,
                ..want(&[Runtime::Claude])
            },
            &files.reader(),
        )
        .expect("plan");
        files.apply(&forced);
        assert_eq!(
            files.json(names::CLAUDE_SETTINGS)["hooks"]["PreToolUse"]
                .as_array()
                .map(Vec::len),
            Some(1)
        );
    }

    #[test]
    fn a_settings_file_that_does_not_parse_is_refused_and_never_overwritten() {
        let files = Files::with(names::CLAUDE_SETTINGS, "{ not json");
        let err = plan_install(
            &Want {
                force: true,
                ..want(&[Runtime::Claude])
            },
            &files.reader(),
        )
        .expect_err("refused");
        assert!(err.message.contains("does not parse"), "{}", err.message);
    }

    #[test]
    fn cursor_and_codex_files_are_merged_beside_foreign_hooks() {
        let files = Files::with(
            names::CURSOR_HOOKS,
            r#"{"version":1,"hooks":{"afterFileEdit":[{"command":"fmt"}]}}"#,
        );
        files.apply(&plan_install(&want(&[Runtime::Cursor]), &files.reader()).expect("plan"));
        let doc = files.json(names::CURSOR_HOOKS);
        assert_eq!(doc["hooks"]["afterFileEdit"][0]["command"], "fmt");
        assert_eq!(doc["hooks"]["beforeShellExecution"][0]["failClosed"], true);
        files.apply(
            &plan_uninstall(&want(&[Runtime::Cursor]), &files.reader())
                .expect("plan")
                .changes,
        );
        assert_eq!(
            files.json(names::CURSOR_HOOKS),
            serde_json::json!({"version":1,"hooks":{"afterFileEdit":[{"command":"fmt"}]}})
        );
    }
    fn with_master(runtimes: &[Runtime]) -> Want {
        Want {
            orchestrator: true,
            ..want(runtimes)
        }
    }

    const MASTERS: [&str; 3] = [
        names::CLAUDE_MASTER_AGENT,
        names::OPENCODE_MASTER_AGENT,
        names::PI_MASTER_PROMPT,
    ];

    #[test]
    fn the_orchestrator_adds_a_master_for_each_runtime_that_has_one_and_only_then() {
        let files = Files::default();
        let plain = plan_install(&want(&Runtime::ALL), &files.reader()).expect("plan");
        assert!(plain.iter().all(|c| !MASTERS.contains(&c.path.as_str())));
        let changes = plan_install(&with_master(&Runtime::ALL), &files.reader()).expect("plan");
        assert_eq!(changes.len(), Runtime::ALL.len() + MASTERS.len());
        for m in MASTERS {
            assert!(changes.iter().any(|c| c.path == m), "{m}");
        }
        let only_codex = plan_install(&with_master(&[Runtime::Codex]), &files.reader());
        assert_eq!(only_codex.expect("plan").len(), 1);
    }

    #[test]
    fn a_master_changed_by_hand_is_refused_without_force_and_kept_by_uninstall() {
        let files = Files::default();
        let w = with_master(&[Runtime::Opencode]);
        files.apply(&plan_install(&w, &files.reader()).expect("plan"));
        assert_eq!(plan_install(&w, &files.reader()).expect("plan"), vec![]);
        let mut text = String::from_utf8(files.0.borrow()[names::OPENCODE_MASTER_AGENT].clone())
            .expect("utf8");
        text.push_str("\nAlso: be brief.\n");
        files
            .0
            .borrow_mut()
            .insert(names::OPENCODE_MASTER_AGENT.into(), text.into_bytes());
        let err = plan_install(&w, &files.reader()).expect_err("refused");
        assert!(err.message.contains(names::OPENCODE_MASTER_AGENT));
        assert!(
            err.hint
                .as_deref()
                .is_some_and(|h| h.contains("--with-orchestrator --runtime opencode --force")),
            "{:?}",
            err.hint
        );
        let plan = plan_uninstall(&w, &files.reader()).expect("plan");
        assert_eq!(plan.kept, vec![names::OPENCODE_MASTER_AGENT.to_string()]);
        assert_eq!(plan.changes.len(), 1);
        assert_eq!(plan.changes[0].path, names::OPENCODE_PLUGIN);
        let forced = Want { force: true, ..w };
        let plan = plan_uninstall(&forced, &files.reader()).expect("plan");
        assert!(plan.kept.is_empty());
        assert_eq!(plan.changes.len(), 2);
    }

    #[test]
    fn uninstall_never_touches_a_master_file_berth_did_not_write() {
        let files = Files::with(
            names::CLAUDE_MASTER_AGENT,
            "---\nname: master\n---\nMine.\n",
        );
        let forced = Want {
            force: true,
            ..with_master(&[Runtime::Claude])
        };
        assert_eq!(
            plan_uninstall(&forced, &files.reader()).expect("plan"),
            Uninstall::default()
        );
    }

    #[test]
    fn uninstall_takes_out_the_masters_without_being_told_of_the_orchestrator() {
        let files = Files::with(names::CLAUDE_SETTINGS, FOREIGN);
        files.apply(&plan_install(&with_master(&Runtime::ALL), &files.reader()).expect("plan"));
        files.apply(
            &plan_uninstall(&want(&Runtime::ALL), &files.reader())
                .expect("plan")
                .changes,
        );
        let left: Vec<String> = files.0.borrow().keys().cloned().collect();
        assert_eq!(left, vec![names::CLAUDE_SETTINGS.to_string()]);
    }

    fn with_mcp(runtimes: &[Runtime]) -> Want {
        Want {
            mcp: true,
            ..want(runtimes)
        }
    }

    #[test]
    fn mcp_registers_the_server_for_each_runtime_that_takes_one() {
        let files = Files::default();
        let changes = plan_install(&with_mcp(&Runtime::ALL), &files.reader()).expect("plan");
        files.apply(&changes);
        let server = |path: &str, table: &str| files.json(path)[table]["git-berth"].clone();
        let plain = serde_json::json!({"command": "git", "args": ["berth", "mcp"]});
        assert_eq!(server(".mcp.json", "mcpServers"), plain);
        assert_eq!(server(".cursor/mcp.json", "mcpServers"), plain);
        assert_eq!(server(".gemini/settings.json", "mcpServers"), plain);
        assert_eq!(
            server("opencode.json", "mcp"),
            serde_json::json!({"type": "local", "command": ["git", "berth", "mcp"], "enabled": true})
        );
        let toml = String::from_utf8(files.0.borrow()[".codex/config.toml"].clone()).expect("utf8");
        assert_eq!(toml, mcp::codex_block());
        assert_eq!(
            files.json(".claude/settings.json")["permissions"]["allow"],
            serde_json::json!(["mcp__git-berth__worktree_list"])
        );
        // The Gemini hooks and the server share one file: one change, holding both.
        assert_eq!(
            changes
                .iter()
                .filter(|c| c.path == ".gemini/settings.json")
                .count(),
            1
        );
        assert!(files.json(".gemini/settings.json")["hooks"].is_object());
        // No file for pi's MCP, and none of remove's tools allowed without asking.
        assert!(
            !changes
                .iter()
                .any(|c| c.path.contains("pi") && c.path.contains("mcp"))
        );
        let all =
            String::from_utf8(files.0.borrow()[".claude/settings.json"].clone()).expect("utf8");
        assert!(!all.contains("worktree_remove"));
    }

    #[test]
    fn mcp_install_is_idempotent_and_uninstall_restores_every_file() {
        let theirs = r#"{"mcpServers": {"docs": {"command": "docs-mcp"}}}"#;
        let files = Files::with(".mcp.json", theirs);
        files
            .0
            .borrow_mut()
            .insert(".claude/settings.json".into(), FOREIGN.as_bytes().to_vec());
        files
            .0
            .borrow_mut()
            .insert(".codex/config.toml".into(), b"model = \"o3\"\n".to_vec());
        let w = with_mcp(&Runtime::ALL);
        files.apply(&plan_install(&w, &files.reader()).expect("plan"));
        assert_eq!(plan_install(&w, &files.reader()).expect("again"), vec![]);
        assert_eq!(
            files.json(".mcp.json")["mcpServers"]["docs"]["command"],
            "docs-mcp"
        );
        let out = plan_uninstall(&w, &files.reader()).expect("uninstall");
        assert!(out.kept.is_empty());
        files.apply(&out.changes);
        assert_eq!(
            files.json(".mcp.json"),
            serde_json::from_str::<Value>(theirs).expect("json")
        );
        assert_eq!(
            files.json(".claude/settings.json"),
            serde_json::from_str::<Value>(FOREIGN).expect("json")
        );
        assert_eq!(
            files.0.borrow()[".codex/config.toml"],
            b"model = \"o3\"\n".to_vec()
        );
        let mut left: Vec<String> = files.0.borrow().keys().cloned().collect();
        left.sort();
        assert_eq!(
            left,
            [".claude/settings.json", ".codex/config.toml", ".mcp.json"]
        );
    }

    #[test]
    fn no_mcp_writes_no_server_and_a_changed_server_is_refused_then_kept() {
        let files = Files::default();
        let changes = plan_install(&want(&Runtime::ALL), &files.reader()).expect("plan");
        assert!(!changes.iter().any(|c| c.path.ends_with("mcp.json")));
        let mine = r#"{"mcpServers": {"git-berth": {"command": "my-berth"}}}"#;
        let files = Files::with(".cursor/mcp.json", mine);
        let w = with_mcp(&[Runtime::Cursor]);
        let err = plan_install(&w, &files.reader()).expect_err("refused");
        assert!(
            err.to_string().contains("a different `git-berth` server"),
            "{err}"
        );
        let out = plan_uninstall(&w, &files.reader()).expect("uninstall");
        assert_eq!(out.kept, [".cursor/mcp.json"]);
        assert!(!out.changes.iter().any(|c| c.path == ".cursor/mcp.json"));
        let forced = Want { force: true, ..w };
        let out = plan_uninstall(&forced, &files.reader()).expect("forced");
        assert!(out.kept.is_empty());
        assert!(
            out.changes
                .iter()
                .any(|c| c.path == ".cursor/mcp.json" && c.after.is_none())
        );
    }

    #[test]
    fn an_opencode_2_file_gets_the_server_under_mcp_servers_and_loses_only_it() {
        let theirs = r#"{"mcp": {"servers": {"docs": {"type": "local", "command": ["d"]}}}}"#;
        let files = Files::with("opencode.json", theirs);
        let w = with_mcp(&[Runtime::Opencode]);
        files.apply(&plan_install(&w, &files.reader()).expect("plan"));
        let doc = files.json("opencode.json");
        assert_eq!(
            doc["mcp"]["servers"]["git-berth"],
            mcp::entry(Runtime::Opencode)
        );
        assert!(doc["mcp"].get("git-berth").is_none());
        files.apply(
            &plan_uninstall(&w, &files.reader())
                .expect("uninstall")
                .changes,
        );
        assert_eq!(
            files.json("opencode.json"),
            serde_json::from_str::<Value>(theirs).expect("json")
        );
    }
}
