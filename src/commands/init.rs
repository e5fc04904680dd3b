//! `git berth init`: wires the guard into a repository for each agent runtime, or takes it out
//! again. It plans every change first (a pure function over the files' current contents) and
//! writes only when the whole plan holds; it must never clobber a key or hook it did not add.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::guard::managed::{self, Kind};
use crate::guard::probe::{self, Place};
use crate::guard::runtime::Runtime;
use crate::names;

/// Wire the trunk guard into a repository for each agent runtime.
#[derive(clap::Args, Debug, Clone)]
pub struct InitArgs {
    /// The repository to install into (default: the current directory).
    pub target: Option<PathBuf>,

    /// Comma list of runtimes: claude, codex, gemini, cursor, copilot, opencode, pi
    /// (default: claude,opencode,pi).
    #[arg(long, value_delimiter = ',')]
    pub runtime: Vec<String>,

    /// Also make Claude Code create and remove its worktrees through berth.
    #[arg(long)]
    pub worktrees: bool,

    /// Overwrite berth's files and hook entries that differ from what this version installs.
    #[arg(long)]
    pub force: bool,

    /// Take out exactly what init added, leaving every other key and hook as it was.
    #[arg(long)]
    pub uninstall: bool,
}

/// The seed's default set.
pub const DEFAULT_RUNTIMES: [Runtime; 3] = [Runtime::Claude, Runtime::Opencode, Runtime::Pi];

/// Runs init in the process's working directory; prints what it did on stderr and returns the
/// exit code: 0 done (or nothing to do), 1 refused (nothing was written).
pub fn run(args: &InitArgs) -> i32 {
    let stderr = &mut io::stderr();
    match execute(args, stderr) {
        Ok(()) => 0,
        Err(refusal) => {
            let _ = writeln!(stderr, "{}: {}", names::TOOL, refusal.what);
            if let Some(hint) = refusal.hint {
                let _ = writeln!(stderr, "hint: {hint}");
            }
            1
        }
    }
}

/// Why init wrote nothing, and the command that gets past it where there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub what: String,
    pub hint: Option<String>,
}

impl Refusal {
    fn new(what: impl Into<String>) -> Self {
        Refusal {
            what: what.into(),
            hint: None,
        }
    }

    fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// Plans and carries out init for `args`, reporting on `out`.
pub fn execute(args: &InitArgs, out: &mut dyn Write) -> Result<(), Refusal> {
    let runtimes = parse_runtimes(&args.runtime)?;
    let root = checkout_root(args.target.as_deref())?;
    let want = Want {
        runtimes: runtimes.clone(),
        worktrees: args.worktrees,
        force: args.force,
    };
    let root_for_read = root.clone();
    let read = move |rel: &str| read_file(&root_for_read.join(rel));
    let changes = if args.uninstall {
        plan_uninstall(&want, &read)?
    } else {
        plan_install(&want, &read)?
    };
    let list = runtimes
        .iter()
        .map(|r| r.name())
        .collect::<Vec<_>>()
        .join(", ");
    if changes.is_empty() {
        let what = if args.uninstall {
            "not installed"
        } else {
            "already installed"
        };
        let _ = writeln!(
            out,
            "{}: {what} ({list}) in {}",
            names::TOOL,
            root.display()
        );
        return Ok(());
    }
    apply(&root, &changes).map_err(|e| Refusal::new(format!("nothing was changed: {e}")))?;
    for c in &changes {
        let verb = match (&c.before, &c.after) {
            (None, Some(_)) => "created",
            (Some(_), Some(_)) => "updated",
            _ => "removed",
        };
        let _ = writeln!(out, "{verb} {}", root.join(&c.path).display());
    }
    if !args.uninstall {
        for r in &runtimes {
            let _ = writeln!(out, "{}: {}", r.name(), trust_step(*r));
        }
    }
    Ok(())
}

/// `--runtime a,b,a` in order, duplicates dropped; the seed's default when none is given.
pub fn parse_runtimes(given: &[String]) -> Result<Vec<Runtime>, Refusal> {
    let mut out = Vec::new();
    for name in given.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let Some(r) = Runtime::from_name(name) else {
            let known = Runtime::ALL
                .iter()
                .map(|r| r.name())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(
                Refusal::new(format!("unknown runtime '{name}' (known: {known})")).hint(format!(
                    "{} init --runtime {}",
                    names::TOOL,
                    DEFAULT_RUNTIMES.map(|r| r.name()).join(",")
                )),
            );
        };
        if !out.contains(&r) {
            out.push(r);
        }
    }
    if out.is_empty() {
        out.extend(DEFAULT_RUNTIMES);
    }
    Ok(out)
}

fn checkout_root(target: Option<&Path>) -> Result<PathBuf, Refusal> {
    let cwd = std::env::current_dir()
        .map_err(|e| Refusal::new(format!("cannot read the current directory: {e}")))?;
    let target = target.map_or(cwd.clone(), |t| cwd.join(t));
    if !target.is_dir() {
        return Err(Refusal::new(format!(
            "{} is not a directory",
            target.display()
        )));
    }
    match probe::locate(&target) {
        Ok(Place::Primary { root } | Place::Linked { root, .. }) => Ok(root),
        Ok(Place::Outside) => Err(Refusal::new(format!(
            "{} is not in a git repository",
            target.display()
        ))
        .hint(format!("git init {}", target.display()))),
        Err(e) => Err(Refusal::new(format!(
            "cannot tell whether {} is a git repository: {e}",
            target.display()
        ))),
    }
}

fn read_file(path: &Path) -> Result<Option<Vec<u8>>, String> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// What the user asked for, as plain data for the planners.
#[derive(Debug, Clone)]
pub struct Want {
    pub runtimes: Vec<Runtime>,
    pub worktrees: bool,
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

fn trust_step(r: Runtime) -> &'static str {
    match r {
        Runtime::Claude => {
            "restart Claude Code and accept the folder's trust dialog so project hooks run \
             (onFailure: block needs Claude Code 2.1.295 or later)"
        }
        Runtime::Codex => {
            "trust the project's .codex/ layer, then review and trust the hook in /hooks"
        }
        Runtime::Gemini => {
            "restart Gemini CLI and accept the new project hook when it warns about it"
        }
        Runtime::Cursor => "restart Cursor so it reads .cursor/hooks.json",
        Runtime::Copilot => "commit .github/hooks/ so Copilot CLI and the coding agent load it",
        Runtime::Opencode => "restart OpenCode so it loads the plugin from .opencode/plugins/",
        Runtime::Pi => "trust the project in Pi so .pi/extensions/ load, then /reload",
    }
}

/// Reads a file relative to the checkout: `None` when it does not exist.
pub type ReadFile<'a> = dyn Fn(&str) -> Result<Option<Vec<u8>>, String> + 'a;

/// The changes install needs, given each file's current contents. Pure over `read`.
pub fn plan_install(want: &Want, read: &ReadFile<'_>) -> Result<Vec<Change>, Refusal> {
    let mut changes = Vec::new();
    for r in &want.runtimes {
        match install(*r, want.worktrees) {
            Install::Whole { path, content } => {
                let before = read(path).map_err(Refusal::new)?;
                match &before {
                    Some(b) if b == content.as_bytes() => {}
                    Some(_) if !want.force => {
                        return Err(Refusal::new(format!(
                            "{path} exists and is not the one this version installs"
                        ))
                        .hint(format!(
                            "{} init --runtime {} --force",
                            names::TOOL,
                            r.name()
                        )));
                    }
                    _ => changes.push(Change {
                        path: path.into(),
                        before,
                        after: Some(content.into_bytes()),
                    }),
                }
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
    }
    Ok(changes)
}

/// The changes uninstall needs: berth's whole files and berth's hook entries go; every other
/// key and entry stays. Pure over `read`.
pub fn plan_uninstall(want: &Want, read: &ReadFile<'_>) -> Result<Vec<Change>, Refusal> {
    let ours = our_commands();
    let mut changes = Vec::new();
    for r in &want.runtimes {
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
    Ok(changes)
}

fn parse_object(path: &str, bytes: Option<&[u8]>) -> Result<Value, Refusal> {
    let Some(bytes) = bytes else {
        return Ok(Value::Object(Default::default()));
    };
    let doc: Value = serde_json::from_slice(bytes)
        .map_err(|e| Refusal::new(format!("{path} does not parse ({e}); it was left as it is")))?;
    if !doc.is_object() {
        return Err(Refusal::new(format!(
            "{path} is not a JSON object; it was left as it is"
        )));
    }
    Ok(doc)
}

fn to_bytes(doc: &Value) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(doc).unwrap_or_default();
    s.push('\n');
    s.into_bytes()
}

/// True when `v` runs one of berth's commands anywhere inside it.
fn is_ours(v: &Value, ours: &[String]) -> bool {
    match v {
        Value::Object(map) => map.iter().any(|(k, v)| match v {
            Value::String(s) if matches!(k.as_str(), "command" | "bash" | "powershell") => {
                ours.contains(s)
            }
            other => is_ours(other, ours),
        }),
        Value::Array(items) => items.iter().any(|i| is_ours(i, ours)),
        _ => false,
    }
}

/// Adds the fragment's top-level keys that are missing, and its entries under `hooks.<event>`
/// that are not there yet. A berth entry that differs is replaced when it is one of `earlier`
/// (as an earlier version wrote it) or with `force`, and refused otherwise.
fn merge_into(
    doc: &mut Value,
    fragment: &Value,
    earlier: &[(String, Value)],
    force: bool,
) -> Result<(), String> {
    let (Some(doc), Some(frag)) = (doc.as_object_mut(), fragment.as_object()) else {
        return Err("is not a JSON object".into());
    };
    for (key, value) in frag {
        if key != "hooks" {
            doc.entry(key.clone()).or_insert_with(|| value.clone());
            continue;
        }
        let hooks = doc
            .entry("hooks")
            .or_insert_with(|| Value::Object(Default::default()));
        let Some(hooks) = hooks.as_object_mut() else {
            return Err("its `hooks` is not an object".into());
        };
        let Some(events) = value.as_object() else {
            continue;
        };
        for (event, entries) in events {
            let list = hooks
                .entry(event.clone())
                .or_insert_with(|| Value::Array(Vec::new()));
            let Some(list) = list.as_array_mut() else {
                return Err(format!("its `hooks.{event}` is not a list"));
            };
            for entry in entries.as_array().into_iter().flatten() {
                if list.contains(entry) {
                    continue;
                }
                // Only an entry running this very command stands in the way; another
                // runtime's berth entry in a shared file is left alone.
                let commands = commands_in(entry);
                let same = list.iter().position(|e| is_ours(e, &commands));
                let upgrade = |old: &Value| earlier.iter().any(|(e, v)| e == event && v == old);
                match same {
                    Some(i) if upgrade(&list[i]) => list[i] = entry.clone(),
                    Some(_) if !force => {
                        return Err(format!(
                            "a different `{}` entry is already under `hooks.{event}`",
                            commands.join(", ")
                        ));
                    }
                    Some(i) => list[i] = entry.clone(),
                    None => list.push(entry.clone()),
                }
            }
        }
    }
    Ok(())
}

fn commands_in(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    match v {
                        Value::String(s)
                            if matches!(k.as_str(), "command" | "bash" | "powershell") =>
                        {
                            if !out.contains(s) {
                                out.push(s.clone());
                            }
                        }
                        other => walk(other, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    walk(v, &mut out);
    out
}

/// Takes berth's handlers out of `hooks.<event>`; a group left with no handler goes, then an
/// event left empty, then `hooks` itself. Returns whether anything was removed.
fn remove_ours(doc: &mut Value, ours: &[String]) -> bool {
    let Some(hooks) = doc.get_mut("hooks").and_then(Value::as_object_mut) else {
        return false;
    };
    let mut removed = false;
    let mut emptied = Vec::new();
    for (event, list) in hooks.iter_mut() {
        let Some(list) = list.as_array_mut() else {
            continue;
        };
        let before = list.len();
        list.retain_mut(|entry| {
            if let Some(handlers) = entry.get_mut("hooks").and_then(Value::as_array_mut) {
                let n = handlers.len();
                handlers.retain(|h| !is_ours(h, ours));
                if handlers.len() != n {
                    removed = true;
                    return !handlers.is_empty();
                }
                return true;
            }
            !is_ours(entry, ours)
        });
        if list.len() != before {
            removed = true;
            if list.is_empty() {
                emptied.push(event.clone());
            }
        }
    }
    for event in emptied {
        hooks.shift_remove(&event);
    }
    if removed && hooks.is_empty() {
        doc.as_object_mut().map(|o| o.shift_remove("hooks"));
    }
    removed
}

/// Carries a plan out: every new content goes to a temporary file beside its target first;
/// only when all are written are they renamed into place. A failure part-way puts back what
/// was there before.
fn apply(root: &Path, changes: &[Change]) -> io::Result<()> {
    let mut staged: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let mut made_dirs = Vec::new();
    let result = (|| -> io::Result<()> {
        for c in changes {
            let path = root.join(&c.path);
            let Some(after) = &c.after else {
                staged.push((path, None));
                continue;
            };
            let parent = path.parent().unwrap_or(root).to_path_buf();
            for dir in parent.ancestors().take_while(|d| *d != root) {
                if !dir.exists() {
                    made_dirs.push(dir.to_path_buf());
                }
            }
            fs::create_dir_all(&parent).map_err(|e| with_path(e, &parent))?;
            let tmp = parent.join(format!(
                ".{}.{}-{}.tmp",
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                names::TOOL.replace(' ', "-"),
                std::process::id()
            ));
            fs::write(&tmp, after).map_err(|e| with_path(e, &tmp))?;
            if let Ok(meta) = fs::metadata(&path) {
                fs::set_permissions(&tmp, meta.permissions()).map_err(|e| with_path(e, &tmp))?;
            }
            staged.push((path, Some(tmp)));
        }
        Ok(())
    })();
    if let Err(e) = result {
        for (_, tmp) in &staged {
            if let Some(tmp) = tmp {
                let _ = fs::remove_file(tmp);
            }
        }
        for dir in made_dirs.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
        return Err(e);
    }
    let originals: BTreeMap<&str, &Option<Vec<u8>>> = changes
        .iter()
        .map(|c| (c.path.as_str(), &c.before))
        .collect();
    for (i, (path, tmp)) in staged.iter().enumerate() {
        let step = match tmp {
            Some(tmp) => fs::rename(tmp, path),
            None => fs::remove_file(path).or_else(|e| {
                if e.kind() == io::ErrorKind::NotFound {
                    Ok(())
                } else {
                    Err(e)
                }
            }),
        };
        if let Err(e) = step {
            // Put back what the earlier steps replaced, and drop the rest of the staging.
            for (done, c) in staged[..i].iter().zip(changes) {
                let _ = match originals.get(c.path.as_str()) {
                    Some(Some(bytes)) => fs::write(&done.0, bytes),
                    _ => fs::remove_file(&done.0),
                };
            }
            for (_, tmp) in &staged[i..] {
                if let Some(tmp) = tmp {
                    let _ = fs::remove_file(tmp);
                }
            }
            return Err(with_path(e, path));
        }
        if tmp.is_none() {
            remove_empty_parents(root, path);
        }
    }
    Ok(())
}

/// After removing one of its files, drops the folders init made for it if they are now empty.
fn remove_empty_parents(root: &Path, file: &Path) {
    for dir in file.ancestors().skip(1).take_while(|d| *d != root) {
        if fs::remove_dir(dir).is_err() {
            break;
        }
    }
}

fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::HashMap;

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
                    assert!(!content.contains("@GUARD"), "{content}");
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
        let changes = plan_uninstall(&want(&EARLIER_RUNTIMES), &files.reader()).expect("plan");
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
        files.apply(&plan_uninstall(&all, &files.reader()).expect("plan"));
        let left: Vec<String> = files.0.borrow().keys().cloned().collect();
        assert_eq!(left, vec![names::CLAUDE_SETTINGS.to_string()]);
        assert_eq!(
            files.json(names::CLAUDE_SETTINGS),
            serde_json::from_str::<Value>(FOREIGN).expect("json")
        );
        assert_eq!(plan_uninstall(&all, &files.reader()).expect("plan"), vec![]);
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
        files.apply(&plan_uninstall(&want(&[Runtime::Claude]), &files.reader()).expect("plan"));
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
        assert!(err.what.contains(names::OPENCODE_PLUGIN), "{}", err.what);
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
        assert!(err.what.contains("does not parse"), "{}", err.what);
    }

    #[test]
    fn runtimes_are_a_comma_list_without_duplicates_and_default_to_the_seeds_three() {
        let list =
            |s: &[&str]| parse_runtimes(&s.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(list(&[]).expect("ok"), DEFAULT_RUNTIMES.to_vec());
        assert_eq!(
            list(&["pi", "claude", "pi"]).expect("ok"),
            vec![Runtime::Pi, Runtime::Claude]
        );
        let err = list(&["claude", "vim"]).expect_err("unknown");
        assert!(err.what.contains("'vim'"));
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
        files.apply(&plan_uninstall(&want(&[Runtime::Cursor]), &files.reader()).expect("plan"));
        assert_eq!(
            files.json(names::CURSOR_HOOKS),
            serde_json::json!({"version":1,"hooks":{"afterFileEdit":[{"command":"fmt"}]}})
        );
    }
}
