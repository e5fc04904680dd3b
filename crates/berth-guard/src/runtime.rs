//! Each agent runtime's hook JSON in and answer out: which tool, which command, which files,
//! from where; and how that runtime is told "no". It must never decide anything itself, and
//! JSON it cannot read is an error (which blocks), never a quiet allow.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Action, Decision};

/// The runtimes whose hook JSON the guard reads.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Runtime {
    Claude,
    Codex,
    Gemini,
    Cursor,
    Copilot,
    Opencode,
    Pi,
}

impl Runtime {
    pub const ALL: [Runtime; 7] = [
        Runtime::Claude,
        Runtime::Codex,
        Runtime::Gemini,
        Runtime::Cursor,
        Runtime::Copilot,
        Runtime::Opencode,
        Runtime::Pi,
    ];

    /// The name on the command line (`--runtime claude`).
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Claude => "claude",
            Runtime::Codex => "codex",
            Runtime::Gemini => "gemini",
            Runtime::Cursor => "cursor",
            Runtime::Copilot => "copilot",
            Runtime::Opencode => "opencode",
            Runtime::Pi => "pi",
        }
    }

    pub fn from_name(name: &str) -> Option<Runtime> {
        Runtime::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// What one hook call asks about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// A tool that cannot change anything (read, grep, glob, ls, view).
    ReadOnly,
    Act(Action),
}

/// How the guard answers: exit code and what goes to stdout and stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Exit code for a block wherever the runtime honours it.
pub const BLOCK: i32 = 2;

/// Reads one hook call. `fallback_cwd` (the hook's own working directory) is used only where a
/// runtime's JSON has no working directory by design (Cursor's `preToolUse`); `home` expands
/// `~` in Pi's paths and in the paths other tools name.
pub fn parse(
    runtime: Runtime,
    input: &str,
    fallback_cwd: &Path,
    home: Option<&Path>,
) -> Result<Request, String> {
    let v: Value = serde_json::from_str(input)
        .map_err(|e| format!("{} hook JSON does not parse: {e}", runtime.name()))?;
    if !v.is_object() {
        return Err(format!("{} hook JSON is not an object", runtime.name()));
    }
    match runtime {
        Runtime::Claude => claude(&v, home),
        Runtime::Codex => codex(&v, home),
        Runtime::Gemini => gemini(&v, home),
        Runtime::Cursor => cursor(&v, fallback_cwd, home),
        Runtime::Copilot => copilot(&v, home),
        Runtime::Opencode => opencode(&v, home),
        Runtime::Pi => pi(&v, home),
    }
}

/// The answer in the runtime's own form. Allow is always exit 0 with nothing printed: an
/// explicit "allow" would skip the user's own permission prompts in some runtimes.
pub fn reply(runtime: Option<Runtime>, decision: &Decision) -> Reply {
    let Decision::Block(block) = decision else {
        return Reply {
            code: 0,
            stdout: String::new(),
            stderr: String::new(),
        };
    };
    let message = block.message();
    let stderr = format!("{message}\n");
    match runtime {
        // Copilot CLI ignores exit codes: only its deny JSON on a successful exit blocks.
        Some(Runtime::Copilot) => Reply {
            code: 0,
            stdout: json!({"permissionDecision": "deny", "permissionDecisionReason": message})
                .to_string()
                + "\n",
            stderr,
        },
        // Cursor blocks on exit 2 as well; the JSON carries the words to the agent and user.
        Some(Runtime::Cursor) => Reply {
            code: BLOCK,
            stdout: json!({"permission": "deny", "user_message": message, "agent_message": message})
                .to_string() + "\n",
            stderr,
        },
        _ => Reply {
            code: BLOCK,
            stdout: String::new(),
            stderr,
        },
    }
}

fn get<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, key| v.get(key))
}

fn string<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    get(v, path).and_then(Value::as_str)
}

fn required<'a>(v: &'a Value, path: &[&str], tool: &str) -> Result<&'a str, String> {
    string(v, path).ok_or_else(|| format!("the `{tool}` call has no `{}`", path.join(".")))
}

fn absolute_dir(v: &Value, path: &[&str]) -> Result<PathBuf, String> {
    let dir =
        string(v, path).ok_or_else(|| format!("the hook JSON has no `{}`", path.join(".")))?;
    let dir = PathBuf::from(dir);
    if !dir.is_absolute() {
        return Err(format!(
            "the hook JSON's `{}` is not absolute: {}",
            path.join("."),
            dir.display()
        ));
    }
    Ok(dir)
}

/// A command given as text, or (some runtimes) as an argv array.
fn command_of(v: &Value, path: &[&str], tool: &str) -> Result<String, String> {
    match get(v, path) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(items)) => {
            let words: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            words
                .map(shell_words::join)
                .ok_or_else(|| format!("the `{tool}` call's `{}` is not text", path.join(".")))
        }
        _ => Err(format!("the `{tool}` call has no `{}`", path.join("."))),
    }
}

/// The file paths an `apply_patch` text touches (added, updated, deleted or moved to).
pub fn patch_files(patch: &str) -> Vec<PathBuf> {
    const MARKERS: [&str; 4] = [
        "*** Add File:",
        "*** Update File:",
        "*** Delete File:",
        "*** Move to:",
    ];
    patch
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            MARKERS
                .iter()
                .find_map(|m| line.strip_prefix(m))
                .map(|p| PathBuf::from(p.trim()))
        })
        .filter(|p| !p.as_os_str().is_empty())
        .collect()
}

fn patch_action(patch: &str, base: &Path, cwd: PathBuf, tool: &str) -> Result<Request, String> {
    let files = patch_files(patch);
    if files.is_empty() {
        return Err(format!("the `{tool}` call's patch names no file"));
    }
    Ok(Request::Act(Action::edit(
        files.into_iter().map(|f| base.join(f)).collect(),
        cwd,
    )))
}

fn edit(file: &str, cwd: PathBuf) -> Request {
    let file = cwd.join(file);
    Request::Act(Action::edit(vec![file], cwd))
}

/// Tool names that never write, across runtimes (compared as [`same_name`] does).
const READ_ONLY: &[&str] = &[
    "read",
    "read_file",
    "read_many_files",
    "notebook_read",
    "glob",
    "grep",
    "grep_search",
    "search_file_content",
    "ls",
    "list",
    "list_dir",
    "list_directory",
    "find",
    "view",
    "web_fetch",
    "web_search",
    "google_web_search",
    "todo_write",
    "todo_read",
    "write_todos",
    "update_todo",
    "update_plan",
    "ask_user_question",
    "ask_user",
    "question",
    "enter_plan_mode",
    "exit_plan_mode",
    "lsp",
    "code_search",
    "codebase_search",
    "semantic_search",
    "file_search",
    "read_lints",
    "view_image",
    "tool_search",
    "list_mcp_resources_tool",
    "read_mcp_resource_tool",
    "wait_for_mcp_servers",
    "task_create",
    "task_get",
    "task_list",
    "task_update",
    "task_output",
    "task_stop",
    "bash_output",
    "kill_shell",
    "kill_bash",
    "cron_create",
    "cron_delete",
    "cron_list",
    "schedule_wakeup",
    "send_message",
    "list_agents",
    "push_notification",
    "report_findings",
    "send_feedback",
    "subagent_handback",
    "end_conversation",
];

/// The same tool name however a runtime spells it: `read_file`, `ReadFile`, `read-file`.
fn same_name(a: &str, b: &str) -> bool {
    fn letters(s: &str) -> impl Iterator<Item = u8> + '_ {
        s.bytes()
            .filter(|c| !matches!(c, b'_' | b'-'))
            .map(|c| c.to_ascii_lowercase())
    }
    letters(a).eq(letters(b))
}

fn is_read_only(tool: &str) -> bool {
    READ_ONLY.iter().any(|t| same_name(t, tool))
}

/// An MCP tool whose name says it only reads: `read_*`, `list_*`, `search_*`, `get_*`
/// (or `readFile`, `listDirectory`), `directory_tree`, or a reader's name.
fn mcp_reads_only(tool: &str) -> bool {
    const VERBS: [&str; 4] = ["read", "list", "search", "get"];
    let verb_first = VERBS.iter().any(|v| {
        tool.len() > v.len()
            && tool.is_char_boundary(v.len())
            && tool[..v.len()].eq_ignore_ascii_case(v)
            && matches!(tool.as_bytes()[v.len()], b'_' | b'-' | b'A'..=b'Z')
    });
    verb_first || same_name(tool, "directory_tree") || is_read_only(tool)
}

/// The tool's own name inside an MCP name `mcp__<server>__<tool>` (Claude Code, Codex).
fn mcp_tool(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("mcp__")?;
    Some(rest.split_once("__").map_or(rest, |(_, tool)| tool))
}

/// Keys under which a tool's input names a file or folder it works on (compared as
/// [`same_name`] does), at any depth of the input.
const PATH_KEYS: &[&str] = &[
    "path",
    "paths",
    "file",
    "files",
    "file_path",
    "file_paths",
    "filename",
    "filenames",
    "source",
    "sources",
    "destination",
    "destinations",
    "dest",
    "target",
    "targets",
    "target_file",
    "notebook_path",
    "directory",
    "dir",
    "dir_path",
    "folder",
    "cwd",
    "workdir",
    "working_directory",
    "new_path",
    "old_path",
    "from_path",
    "to_path",
    "uri",
];

/// More paths than this in one call blocks: each one costs the probe a few system calls.
const MAX_PATHS: usize = 1024;

/// The files and folders a tool's input names under [`PATH_KEYS`], resolved against `cwd`
/// (`~` against `home`). A URL is not a place, except a `file://` one.
fn named_paths(
    input: &Value,
    cwd: &Path,
    home: Option<&Path>,
    tool: &str,
) -> Result<Vec<PathBuf>, String> {
    // serde_json refuses input nested deeper than 128, which bounds this recursion.
    fn collect<'a>(v: &'a Value, named: bool, out: &mut Vec<&'a str>) {
        match v {
            Value::String(s) if named => out.push(s),
            Value::Array(items) => items.iter().for_each(|i| collect(i, named, out)),
            Value::Object(map) => map
                .iter()
                .for_each(|(k, v)| collect(v, PATH_KEYS.iter().any(|p| same_name(p, k)), out)),
            _ => {}
        }
    }
    let mut raw = Vec::new();
    collect(input, false, &mut raw);
    if raw.len() > MAX_PATHS {
        return Err(format!(
            "the `{tool}` call names more than {MAX_PATHS} paths"
        ));
    }
    Ok(raw
        .into_iter()
        .filter_map(|s| {
            let s = s.trim();
            if s.is_empty() || s.contains('\n') {
                return None;
            }
            let s = match s.strip_prefix("file://") {
                Some(local) => local,
                None if s.contains("://") => return None,
                None => s,
            };
            Some(match (s.strip_prefix('~'), home) {
                (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with('/') => {
                    h.join(rest.trim_start_matches('/'))
                }
                _ => cwd.join(s),
            })
        })
        .collect())
}

/// A tool this guard has no entry for. An MCP tool (`mcp` is its own name, as far as the
/// runtime tells it) is allowed when its name says it only reads, and otherwise judged as a
/// writer of the paths its input names. Any other unknown tool is judged by where the agent
/// stands and by every path it names: it is blocked in the primary checkout (fail closed).
/// Either, naming no path, is judged by where the agent stands, as the seed judges an edit.
fn other_tool(
    tool: &str,
    mcp: Option<&str>,
    input: Option<&Value>,
    cwd: PathBuf,
    home: Option<&Path>,
) -> Result<Request, String> {
    if mcp.is_some_and(mcp_reads_only) {
        return Ok(Request::ReadOnly);
    }
    let paths = match input {
        Some(input) => named_paths(input, &cwd, home, tool)?,
        None => Vec::new(),
    };
    Ok(Request::Act(if paths.is_empty() {
        Action::command("", cwd)
    } else if mcp.is_some() {
        Action::edit(paths, cwd)
    } else {
        let mut here = vec![cwd.clone()];
        here.extend(paths);
        Action::edit(here, cwd)
    }))
}

/// A tool input that some runtimes hand over as JSON inside a string.
fn input_object(v: &Value, path: &[&str], tool: &str) -> Result<Option<Value>, String> {
    match get(v, path) {
        Some(Value::String(s)) => serde_json::from_str(s).map(Some).map_err(|e| {
            format!(
                "the `{tool}` call's `{}` does not parse: {e}",
                path.join(".")
            )
        }),
        other => Ok(other.cloned()),
    }
}

fn claude(v: &Value, home: Option<&Path>) -> Result<Request, String> {
    let tool = string(v, &["tool_name"]).ok_or("the claude hook JSON has no `tool_name`")?;
    let cwd = absolute_dir(v, &["cwd"])?;
    Ok(match tool {
        "Bash" | "PowerShell" => Request::Act(Action::command(
            command_of(v, &["tool_input", "command"], tool)?,
            cwd,
        )),
        // Monitor runs a command, or only listens on a WebSocket.
        "Monitor" if get(v, &["tool_input", "command"]).is_none() => Request::ReadOnly,
        "Monitor" => Request::Act(Action::command(
            command_of(v, &["tool_input", "command"], tool)?,
            cwd,
        )),
        "Write" | "Edit" | "MultiEdit" => {
            edit(required(v, &["tool_input", "file_path"], tool)?, cwd)
        }
        "NotebookEdit" => edit(required(v, &["tool_input", "notebook_path"], tool)?, cwd),
        // Subagents and worktree moves run their own tools, which come through here again.
        "Agent" | "Task" | "EnterWorktree" | "ExitWorktree" => Request::ReadOnly,
        t if is_read_only(t) => Request::ReadOnly,
        t => other_tool(t, mcp_tool(t), v.get("tool_input"), cwd, home)?,
    })
}

/// Program names Codex runs a patch through, and the shells it reads a heredoc one from.
fn is_apply_patch(word: &str) -> bool {
    matches!(word, "apply_patch" | "applypatch")
}

fn is_shell(word: &str) -> Option<&'static [&'static str]> {
    let name = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    match name {
        "bash" | "sh" | "zsh" => Some(&["-lc", "-c"]),
        "powershell" | "pwsh" => Some(&["-Command", "-c"]),
        _ => None,
    }
}

/// The patch a Codex command carries, in the forms Codex itself applies as a patch rather
/// than running: argv `["apply_patch", patch]`, or a script `[cd <dir> &&] apply_patch
/// <<'EOF' ... EOF` given as text or as `["bash", "-lc", script]`. Returns the folder the
/// patch's paths are relative to (from `cd`, relative to the working directory) and the patch.
fn codex_patch(command: &Value) -> Option<(Option<String>, String)> {
    match command {
        Value::String(script) => heredoc_patch(script),
        Value::Array(items) => {
            let words: Vec<&str> = items.iter().map(Value::as_str).collect::<Option<_>>()?;
            match words.as_slice() {
                [program, patch] if is_apply_patch(program) => Some((None, (*patch).to_string())),
                [shell, flag, script] if is_shell(shell)?.contains(flag) => heredoc_patch(script),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `[cd <dir> &&] apply_patch <<'EOF'\n<patch>\nEOF`, with nothing after the terminator.
fn heredoc_patch(script: &str) -> Option<(Option<String>, String)> {
    let script = script.trim();
    let (dir, rest) = match script.strip_prefix("cd ") {
        Some(after) => {
            let (dir, after) = plain_word(after.trim_start())?;
            (
                Some(dir),
                after.trim_start().strip_prefix("&&")?.trim_start(),
            )
        }
        None => (None, script),
    };
    let rest = rest
        .strip_prefix("apply_patch")
        .or_else(|| rest.strip_prefix("applypatch"))?;
    let rest = rest.trim_start_matches([' ', '\t']).strip_prefix("<<")?;
    let (header, body) = rest.split_once('\n')?;
    let (delimiter, tail) = plain_word(header.trim())?;
    if !tail.trim().is_empty() {
        return None;
    }
    let mut lines = body.split('\n');
    let mut patch = Vec::new();
    for line in lines.by_ref() {
        if line.trim_end_matches('\r') == delimiter {
            return lines
                .all(|l| l.trim().is_empty())
                .then(|| (dir, patch.join("\n")));
        }
        patch.push(line);
    }
    None
}

/// One shell word that needs no expansion: bare, `'quoted'` or `"quoted"`; and what follows.
fn plain_word(text: &str) -> Option<(String, &str)> {
    let (word, rest) = match text.chars().next()? {
        q @ ('\'' | '"') => {
            let end = text[1..].find(q)? + 1;
            (&text[1..end], &text[end + 1..])
        }
        _ => {
            let end = text.find(char::is_whitespace).unwrap_or(text.len());
            (&text[..end], &text[end..])
        }
    };
    let plain = !word.is_empty()
        && !word.contains([
            '$', '`', '\\', ';', '&', '|', '<', '>', '(', ')', '*', '?', '~',
        ]);
    plain.then(|| (word.to_string(), rest))
}

fn codex_patch_request(
    found: (Option<String>, String),
    dir: PathBuf,
    tool: &str,
) -> Result<Request, String> {
    let (sub, patch) = found;
    let base = sub.map_or(dir.clone(), |s| dir.join(s));
    patch_action(&patch, &base, dir, tool)
}

fn codex(v: &Value, home: Option<&Path>) -> Result<Request, String> {
    let tool = string(v, &["tool_name"]).ok_or("the codex hook JSON has no `tool_name`")?;
    let cwd = absolute_dir(v, &["cwd"])?;
    Ok(match tool {
        "Bash" | "exec_command" | "shell" | "local_shell" | "shell_command" => {
            // `exec_command` names it `cmd`; every other shell tool `command`.
            let key = match get(v, &["tool_input", "command"]) {
                None if get(v, &["tool_input", "cmd"]).is_some() => "cmd",
                _ => "command",
            };
            let dir = string(v, &["tool_input", "workdir"]).map_or(cwd.clone(), |d| cwd.join(d));
            if let Some(found) = get(v, &["tool_input", key]).and_then(codex_patch) {
                return codex_patch_request(found, dir, tool);
            }
            let command = command_of(v, &["tool_input", key], tool)?;
            // Patch text Codex would not apply itself is judged as well as the command.
            let edits = if command.contains("*** Begin Patch") {
                patch_files(&command)
                    .into_iter()
                    .map(|f| dir.join(f))
                    .collect()
            } else {
                Vec::new()
            };
            Request::Act(Action {
                command,
                cwd: dir,
                edits,
            })
        }
        // Codex hands apply_patch's patch text over as `command`; some builds its argv.
        "apply_patch" | "Edit" | "Write" => {
            let given = ["command", "patch", "input"]
                .iter()
                .find_map(|k| get(v, &["tool_input", k]));
            match given {
                Some(Value::String(text)) => match heredoc_patch(text) {
                    Some(found) => codex_patch_request(found, cwd, tool)?,
                    None => patch_action(text, &cwd, cwd.clone(), tool)?,
                },
                Some(argv @ Value::Array(_)) => {
                    let found = codex_patch(argv).ok_or_else(|| {
                        format!("the `{tool}` call's command is not an apply_patch invocation")
                    })?;
                    codex_patch_request(found, cwd, tool)?
                }
                _ => return Err(format!("the `{tool}` call has no patch text")),
            }
        }
        // Input typed into a running shell is a command, run where the agent stands.
        "write_stdin" => Request::Act(Action::command(
            required(v, &["tool_input", "chars"], tool)?,
            cwd,
        )),
        t if is_read_only(t) => Request::ReadOnly,
        t => other_tool(t, mcp_tool(t), v.get("tool_input"), cwd, home)?,
    })
}

fn gemini(v: &Value, home: Option<&Path>) -> Result<Request, String> {
    let tool = string(v, &["tool_name"]).ok_or("the gemini hook JSON has no `tool_name`")?;
    let cwd = absolute_dir(v, &["cwd"])?;
    Ok(match tool {
        "run_shell_command" => {
            let command = command_of(v, &["tool_input", "command"], tool)?;
            // `dir_path`, and `directory` in older releases: the command runs there.
            let named = (
                string(v, &["tool_input", "dir_path"]),
                string(v, &["tool_input", "directory"]),
            );
            let dir = match named {
                (Some(a), Some(b)) if a != b => {
                    return Err(format!(
                        "the `{tool}` call names two directories, `{a}` and `{b}`"
                    ));
                }
                (Some(d), _) | (None, Some(d)) => cwd.join(d),
                (None, None) => cwd.clone(),
            };
            Request::Act(Action::command(command, dir))
        }
        "write_file" | "replace" | "edit" | "smart_edit" => {
            edit(required(v, &["tool_input", "file_path"], tool)?, cwd)
        }
        t if is_read_only(t) => Request::ReadOnly,
        t => {
            // An MCP tool carries `mcp_context`, with its own name where the release gives it.
            let mcp = match v.get("mcp_context") {
                Some(ctx) => Some(
                    string(ctx, &["tool_name"])
                        .or_else(|| mcp_tool(t))
                        .unwrap_or(""),
                ),
                None => mcp_tool(t).or(t.strip_prefix("mcp_").map(|_| "")),
            };
            other_tool(t, mcp, v.get("tool_input"), cwd, home)?
        }
    })
}

fn cursor(v: &Value, fallback_cwd: &Path, home: Option<&Path>) -> Result<Request, String> {
    let event = string(v, &["hook_event_name"]).unwrap_or("preToolUse");
    let named = string(v, &["cwd"])
        .or_else(|| string(v, &["tool_input", "cwd"]))
        .or_else(|| {
            v.get("workspace_roots")
                .and_then(|r| r.get(0))
                .and_then(Value::as_str)
        });
    let cwd = named.map_or_else(|| fallback_cwd.to_path_buf(), PathBuf::from);
    if !cwd.is_absolute() {
        return Err(format!(
            "the cursor hook JSON's working directory is not absolute: {}",
            cwd.display()
        ));
    }
    match event {
        "beforeShellExecution" => {
            return Ok(Request::Act(Action::command(
                command_of(v, &["command"], event)?,
                cwd,
            )));
        }
        "beforeReadFile" => return Ok(Request::ReadOnly),
        "beforeMCPExecution" | "preToolUse" => {}
        // An event this guard does not know: judged by where the agent stands.
        _ => return Ok(Request::Act(Action::command("", cwd))),
    }
    let tool = string(v, &["tool_name"])
        .ok_or_else(|| format!("the cursor `{event}` JSON has no `tool_name`"))?;
    // MCP tools come as `MCP:<server>:<tool>` in preToolUse and by their own name before
    // an MCP call; their input may be JSON inside a string.
    let mcp = match tool.get(..4) {
        Some(p) if p.eq_ignore_ascii_case("mcp:") => tool.rsplit(':').next(),
        _ if event == "beforeMCPExecution" => Some(tool),
        _ => None,
    };
    if mcp.is_some() {
        let input = input_object(v, &["tool_input"], tool)?;
        return other_tool(tool, mcp, input.as_ref(), cwd, home);
    }
    Ok(match tool {
        "Shell" | "Terminal" => Request::Act(Action::command(
            command_of(v, &["tool_input", "command"], tool)?,
            cwd,
        )),
        "Write" | "Edit" | "StrReplace" | "Delete" | "MultiEdit" | "EditNotebook" => {
            let file = ["file_path", "path", "target_file", "target_notebook"]
                .iter()
                .find_map(|k| string(v, &["tool_input", k]))
                .ok_or_else(|| format!("the `{tool}` call has no file path"))?;
            edit(file, cwd)
        }
        "Task" => Request::ReadOnly,
        t if is_read_only(t) => Request::ReadOnly,
        t => other_tool(t, None, v.get("tool_input"), cwd, home)?,
    })
}

/// Keys Copilot's `write_bash` input may hold that move through the shell's history or line,
/// so that what finally runs cannot be read from the text.
const COPILOT_EDIT_KEYS: [&str; 5] = ["{up}", "{down}", "{left}", "{right}", "{backspace}"];

fn copilot(v: &Value, home: Option<&Path>) -> Result<Request, String> {
    // camelCase payload (`toolArgs` is JSON inside a string) or the VS Code-style one.
    let (tool, args) = if let Some(tool) = string(v, &["toolName"]) {
        let args = match v.get("toolArgs") {
            Some(Value::String(s)) => serde_json::from_str(s)
                .map_err(|e| format!("copilot `toolArgs` does not parse: {e}"))?,
            Some(other) => other.clone(),
            None => Value::Null,
        };
        (tool, args)
    } else {
        let tool = string(v, &["tool_name"]).ok_or("the copilot hook JSON has no `toolName`")?;
        (tool, v.get("tool_input").cloned().unwrap_or(Value::Null))
    };
    let cwd = absolute_dir(v, &["cwd"])?;
    Ok(match tool {
        "bash" | "powershell" | "shell" => {
            Request::Act(Action::command(command_of(&args, &["command"], tool)?, cwd))
        }
        // Input sent to a running shell session is a command for it.
        "write_bash" | "write_powershell" => {
            let input = string(&args, &["input"])
                .or_else(|| string(&args, &["command"]))
                .ok_or_else(|| format!("the `{tool}` call has no `input`"))?;
            if let Some(key) = COPILOT_EDIT_KEYS.iter().find(|k| input.contains(*k)) {
                return Err(format!(
                    "the `{tool}` call sends {key}, so what runs cannot be read from it"
                ));
            }
            Request::Act(Action::command(input.replace("{enter}", "\n"), cwd))
        }
        "str_replace_editor" | "str_replace_based_edit_tool"
            if string(&args, &["command"]) == Some("view") =>
        {
            Request::ReadOnly
        }
        "edit" | "create" | "write" | "str_replace_editor" | "str_replace_based_edit_tool" => {
            let file = string(&args, &["path"])
                .or_else(|| string(&args, &["file_path"]))
                .ok_or_else(|| format!("the `{tool}` call has no `path`"))?;
            edit(file, cwd)
        }
        "task" | "report_intent" | "think" | "read_bash" | "stop_bash" | "list_bash"
        | "read_powershell" | "stop_powershell" | "list_powershell" => Request::ReadOnly,
        t if is_read_only(t) => Request::ReadOnly,
        t => other_tool(t, None, Some(&args), cwd, home)?,
    })
}

/// The OpenCode adapter sends `{tool, args, directory, worktree}`.
fn opencode(v: &Value, home: Option<&Path>) -> Result<Request, String> {
    let tool = string(v, &["tool"]).ok_or("the opencode hook JSON has no `tool`")?;
    let cwd = absolute_dir(v, &["directory"])?;
    Ok(match tool {
        "bash" => {
            let command = command_of(v, &["args", "command"], tool)?;
            let dir = string(v, &["args", "workdir"]).map_or(cwd.clone(), |d| cwd.join(d));
            Request::Act(Action::command(command, dir))
        }
        "edit" | "write" | "multiedit" => edit(required(v, &["args", "filePath"], tool)?, cwd),
        "apply_patch" | "patch" => {
            let patch = required(v, &["args", "patchText"], tool)?;
            // Patch paths are relative to the project root, which is the git worktree.
            let base = string(v, &["worktree"])
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or(cwd.clone());
            patch_action(patch, &base, cwd, tool)?
        }
        "task" | "skill" | "plan" => Request::ReadOnly,
        t if is_read_only(t) => Request::ReadOnly,
        t => other_tool(t, None, v.get("args"), cwd, home)?,
    })
}

/// The Pi extension sends `{tool, input, cwd}`.
fn pi(v: &Value, home: Option<&Path>) -> Result<Request, String> {
    let tool = string(v, &["tool"]).ok_or("the pi hook JSON has no `tool`")?;
    let cwd = absolute_dir(v, &["cwd"])?;
    Ok(match tool {
        "bash" => Request::Act(Action::command(
            command_of(v, &["input", "command"], tool)?,
            cwd,
        )),
        "edit" | "write" => {
            let raw = required(v, &["input", "path"], tool)?;
            // Pi resolves `@path` and `~/path` before touching the file; so must we.
            let path = raw.strip_prefix('@').unwrap_or(raw);
            let file = match (path.strip_prefix('~'), home) {
                (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with('/') => {
                    h.join(rest.trim_start_matches('/'))
                }
                (Some(_), _) => {
                    return Err(format!("cannot expand `{raw}` without a home directory"));
                }
                (None, _) => cwd.join(path),
            };
            Request::Act(Action::edit(vec![file], cwd))
        }
        t if is_read_only(t) => Request::ReadOnly,
        t => other_tool(t, None, v.get("input"), cwd, home)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{HOME, LINKED, PRIMARY, fake_probe};
    use crate::{Hatches, decide};

    macro_rules! cases {
        ($rt:literal) => {
            [
                (
                    "allow",
                    include_str!(concat!(
                        "../../../tests/fixtures/guard/",
                        $rt,
                        "/allow.json"
                    )),
                ),
                (
                    "block",
                    include_str!(concat!(
                        "../../../tests/fixtures/guard/",
                        $rt,
                        "/block.json"
                    )),
                ),
                (
                    "malformed",
                    include_str!(concat!(
                        "../../../tests/fixtures/guard/",
                        $rt,
                        "/malformed.json"
                    )),
                ),
                (
                    "read-only",
                    include_str!(concat!(
                        "../../../tests/fixtures/guard/",
                        $rt,
                        "/read-only.json"
                    )),
                ),
            ]
        };
    }

    fn fixture(runtime: Runtime, case: &str) -> String {
        let all = match runtime {
            Runtime::Claude => cases!("claude"),
            Runtime::Codex => cases!("codex"),
            Runtime::Gemini => cases!("gemini"),
            Runtime::Cursor => cases!("cursor"),
            Runtime::Copilot => cases!("copilot"),
            Runtime::Opencode => cases!("opencode"),
            Runtime::Pi => cases!("pi"),
        };
        let text = all
            .iter()
            .find(|(c, _)| *c == case)
            .map(|(_, t)| *t)
            .unwrap_or_default();
        text.replace("@PRIMARY@", PRIMARY)
            .replace("@LINKED@", LINKED)
    }

    fn answer(runtime: Runtime, json: &str) -> Reply {
        let decision = match parse(runtime, json, Path::new("/nowhere"), Some(Path::new(HOME))) {
            Ok(Request::ReadOnly) => Decision::Allow(crate::Why::ReadOnlyTool),
            Ok(Request::Act(a)) => decide(
                &Hatches::default(),
                &a,
                Some(Path::new(HOME)),
                &mut fake_probe,
            ),
            Err(what) => Decision::Block(crate::Block::Failed { what }),
        };
        reply(Some(runtime), &decision)
    }

    fn assert_allows(r: &Reply) {
        assert_eq!(
            r,
            &Reply {
                code: 0,
                stdout: String::new(),
                stderr: String::new()
            }
        );
    }

    fn assert_blocks(runtime: Runtime, r: &Reply) {
        assert!(!r.stderr.is_empty());
        match runtime {
            Runtime::Copilot => {
                assert_eq!(r.code, 0);
                let v: Value = serde_json::from_str(&r.stdout).expect("deny JSON");
                assert_eq!(v["permissionDecision"], "deny");
                assert!(
                    v["permissionDecisionReason"]
                        .as_str()
                        .is_some_and(|s| !s.is_empty())
                );
            }
            Runtime::Cursor => {
                assert_eq!(r.code, BLOCK);
                let v: Value = serde_json::from_str(&r.stdout).expect("deny JSON");
                assert_eq!(v["permission"], "deny");
            }
            _ => {
                assert_eq!(r.code, BLOCK);
                assert!(r.stdout.is_empty());
            }
        }
    }

    #[test]
    fn every_runtime_allows_its_allow_fixture_silently() {
        for rt in Runtime::ALL {
            assert_allows(&answer(rt, &fixture(rt, "allow")));
        }
    }

    #[test]
    fn every_runtime_blocks_its_block_fixture_in_its_own_form() {
        for rt in Runtime::ALL {
            let r = answer(rt, &fixture(rt, "block"));
            assert_blocks(rt, &r);
            assert!(
                r.stderr.contains("is protected"),
                "{}: {}",
                rt.name(),
                r.stderr
            );
        }
    }

    #[test]
    fn every_runtime_blocks_json_that_does_not_parse() {
        for rt in Runtime::ALL {
            let r = answer(rt, &fixture(rt, "malformed"));
            assert_blocks(rt, &r);
            assert!(
                r.stderr.contains("does not parse"),
                "{}: {}",
                rt.name(),
                r.stderr
            );
        }
    }

    #[test]
    fn every_runtime_allows_a_read_only_tool_in_the_primary_checkout() {
        for rt in Runtime::ALL {
            assert_allows(&answer(rt, &fixture(rt, "read-only")));
        }
    }

    #[test]
    fn json_that_lacks_what_the_tool_needs_blocks_with_a_reason() {
        let cases = [
            (
                Runtime::Claude,
                r#"{"cwd":"/repo/linked","tool_name":"Bash","tool_input":{}}"#,
                "command",
            ),
            (
                Runtime::Claude,
                r#"{"cwd":"/repo/linked","tool_name":"Edit","tool_input":{}}"#,
                "file_path",
            ),
            (
                Runtime::Claude,
                r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#,
                "cwd",
            ),
            (
                Runtime::Claude,
                r#"{"cwd":"relative","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
                "absolute",
            ),
            (Runtime::Claude, r#"[]"#, "not an object"),
            (
                Runtime::Codex,
                r#"{"cwd":"/repo/linked","tool_name":"apply_patch","tool_input":{"command":"no markers"}}"#,
                "names no file",
            ),
            (
                Runtime::Copilot,
                r#"{"cwd":"/repo/linked","toolName":"bash","toolArgs":"{oops"}"#,
                "toolArgs",
            ),
            (
                Runtime::Opencode,
                r#"{"tool":"edit","args":{},"directory":"/repo/linked"}"#,
                "filePath",
            ),
            (
                Runtime::Pi,
                r#"{"tool":"write","input":{},"cwd":"/repo/linked"}"#,
                "path",
            ),
            (
                Runtime::Gemini,
                r#"{"cwd":"/repo/linked","tool_name":"replace","tool_input":{}}"#,
                "file_path",
            ),
        ];
        for (rt, json, word) in cases {
            let r = answer(rt, json);
            assert_blocks(rt, &r);
            assert!(
                r.stderr.contains(word),
                "{}: {} lacks {word}",
                rt.name(),
                r.stderr
            );
        }
    }

    #[test]
    fn an_unknown_tool_is_judged_by_where_the_agent_stands() {
        let primary = r#"{"cwd":"/repo/primary","tool_name":"mcp__fs__write","tool_input":{}}"#;
        let linked = r#"{"cwd":"/repo/linked","tool_name":"mcp__fs__write","tool_input":{}}"#;
        assert_blocks(Runtime::Claude, &answer(Runtime::Claude, primary));
        assert_allows(&answer(Runtime::Claude, linked));
    }

    #[test]
    fn a_notebook_edit_is_judged_by_its_notebook_path() {
        let j = r#"{"cwd":"/repo/linked","tool_name":"NotebookEdit","tool_input":{"notebook_path":"/repo/primary/a.ipynb"}}"#;
        assert_blocks(Runtime::Claude, &answer(Runtime::Claude, j));
    }

    #[test]
    fn the_copilot_vs_code_payload_is_read_too() {
        let j = r#"{"hook_event_name":"PreToolUse","cwd":"/repo/linked","tool_name":"create","tool_input":{"path":"/repo/primary/x"}}"#;
        assert_blocks(Runtime::Copilot, &answer(Runtime::Copilot, j));
    }

    #[test]
    fn pi_paths_with_at_and_tilde_are_resolved_as_pi_does() {
        let at = r#"{"tool":"edit","input":{"path":"@../primary/a"},"cwd":"/repo/linked"}"#;
        let tilde = r#"{"tool":"edit","input":{"path":"~/primary/a"},"cwd":"/repo/linked"}"#;
        assert_blocks(Runtime::Pi, &answer(Runtime::Pi, at));
        assert_blocks(Runtime::Pi, &answer(Runtime::Pi, tilde));
    }

    #[test]
    fn opencode_patch_paths_are_relative_to_the_worktree() {
        let patch = "*** Begin Patch\n*** Add File: ../primary/x\n+hi\n*** End Patch";
        let j = json!({"tool":"apply_patch","args":{"patchText":patch},"directory":"/repo/linked/sub","worktree":"/repo/linked"});
        assert_blocks(
            Runtime::Opencode,
            &answer(Runtime::Opencode, &j.to_string()),
        );
    }

    #[test]
    fn a_patch_names_every_file_it_adds_updates_deletes_or_moves_to() {
        let patch = "*** Begin Patch\n*** Add File: a\n*** Update File: b\n*** Move to: c\n*** Delete File: d\n*** End Patch";
        assert_eq!(patch_files(patch), ["a", "b", "c", "d"].map(PathBuf::from));
    }

    #[test]
    fn a_command_given_as_argv_is_joined_with_shell_quoting() {
        let j = r#"{"cwd":"/repo/linked","tool_name":"Bash","tool_input":{"command":["sh","-c","cd /repo/primary && touch x"]}}"#;
        assert_blocks(Runtime::Codex, &answer(Runtime::Codex, j));
    }

    fn answer_json(runtime: Runtime, j: Value) -> Reply {
        answer(runtime, &j.to_string())
    }

    fn claude_call(cwd: &str, tool: &str, input: Value) -> Reply {
        answer_json(
            Runtime::Claude,
            json!({"cwd": cwd, "tool_name": tool, "tool_input": input}),
        )
    }

    fn codex_call(cwd: &str, tool: &str, input: Value) -> Reply {
        answer_json(
            Runtime::Codex,
            json!({"cwd": cwd, "tool_name": tool, "tool_input": input}),
        )
    }

    const PATCH_X: &str = "*** Begin Patch\n*** Add File: x\n+hi\n*** End Patch";

    #[test]
    fn an_mcp_write_tool_is_judged_by_the_paths_it_names() {
        let write = |cwd, path: &str| {
            claude_call(
                cwd,
                "mcp__filesystem__write_file",
                json!({"path": path, "content": "x"}),
            )
        };
        assert_blocks(Runtime::Claude, &write(LINKED, "/repo/primary/notes.md"));
        assert_allows(&write(PRIMARY, "/repo/linked/notes.md"));
        let moved = json!({"source": "/repo/linked/a", "destination": "/repo/primary/a"});
        assert_blocks(
            Runtime::Claude,
            &claude_call(LINKED, "mcp__filesystem__move_file", moved),
        );
        let nested = json!({"files": [{"path": "/repo/linked/a"}, {"path": "/repo/primary/b"}]});
        assert_blocks(
            Runtime::Codex,
            &codex_call(LINKED, "mcp__fs__create_files", nested),
        );
    }

    #[test]
    fn an_mcp_tool_whose_name_says_it_only_reads_is_allowed_in_the_primary() {
        for tool in [
            "mcp__filesystem__read_text_file",
            "mcp__filesystem__read_multiple_files",
            "mcp__filesystem__list_directory",
            "mcp__filesystem__search_files",
            "mcp__filesystem__get_file_info",
            "mcp__filesystem__directory_tree",
            "mcp__ide__readFile",
        ] {
            let r = claude_call(PRIMARY, tool, json!({"path": "/repo/primary/src"}));
            assert_allows(&r);
        }
        for tool in [
            "mcp__fs__readme_writer",
            "mcp__fs__listen",
            "mcp__fs__getaway",
        ] {
            let r = claude_call(PRIMARY, tool, json!({"path": "/repo/primary/src"}));
            assert_blocks(Runtime::Claude, &r);
        }
    }

    #[test]
    fn an_unknown_tool_is_blocked_in_the_primary_and_judged_by_its_paths_elsewhere() {
        assert_blocks(
            Runtime::Claude,
            &claude_call(PRIMARY, "Workflow", json!({"script": "x"})),
        );
        assert_allows(&claude_call(LINKED, "Workflow", json!({"script": "x"})));
        assert_blocks(
            Runtime::Claude,
            &claude_call(
                LINKED,
                "Artifact",
                json!({"file_path": "/repo/primary/a.html"}),
            ),
        );
        let pi = json!({"tool": "custom_writer", "input": {"path": "../primary/a"}, "cwd": LINKED});
        assert_blocks(Runtime::Pi, &answer_json(Runtime::Pi, pi));
        let oc = json!({"tool": "fs_write", "args": {"filePath": "a"}, "directory": PRIMARY});
        assert_blocks(Runtime::Opencode, &answer_json(Runtime::Opencode, oc));
    }

    #[test]
    fn paths_named_by_a_tool_resolve_like_the_tool_would() {
        let cwd = Path::new(LINKED);
        let home = Some(Path::new("/home/u"));
        let input = json!({
            "uri": "file:///repo/primary/a",
            "url": "https://example.com/x",
            "target": "https://example.com/y",
            "Path": "~/notes",
            "file_path": "sub/b",
            "content": "/repo/primary/not-a-path-key",
            "paths": ["/abs/c", ""],
        });
        let got = named_paths(&input, cwd, home, "t").expect("paths");
        assert_eq!(
            got,
            [
                "/repo/primary/a",
                "/home/u/notes",
                "/repo/linked/sub/b",
                "/abs/c"
            ]
            .map(PathBuf::from)
        );
        let many = json!({"paths": vec!["a"; MAX_PATHS + 1]});
        assert!(named_paths(&many, cwd, home, "t").is_err());
    }

    #[test]
    fn codex_apply_patch_given_as_argv_is_judged_by_its_files() {
        let argv = |patch: &str| json!({"command": ["apply_patch", patch]});
        let into_primary = "*** Begin Patch\n*** Add File: ../primary/x\n+hi\n*** End Patch";
        assert_blocks(
            Runtime::Codex,
            &codex_call(LINKED, "apply_patch", argv(into_primary)),
        );
        let into_linked =
            "*** Begin Patch\n*** Update File: /repo/linked/x\n@@\n-a\n+b\n*** End Patch";
        assert_allows(&codex_call(PRIMARY, "apply_patch", argv(into_linked)));
        let not_a_patch = json!({"command": ["cat", "x"]});
        let r = codex_call(LINKED, "apply_patch", not_a_patch);
        assert_blocks(Runtime::Codex, &r);
        assert!(r.stderr.contains("apply_patch invocation"), "{}", r.stderr);
    }

    #[test]
    fn codex_apply_patch_as_a_shell_heredoc_is_judged_by_its_files_where_it_cds() {
        let heredoc = format!("apply_patch <<'EOF'\n{PATCH_X}\nEOF\n");
        assert_blocks(
            Runtime::Codex,
            &codex_call(PRIMARY, "Bash", json!({"command": heredoc})),
        );
        assert_allows(&codex_call(LINKED, "Bash", json!({"command": heredoc})));
        let into_primary = format!("cd /repo/primary && apply_patch <<'EOF'\n{PATCH_X}\nEOF");
        assert_blocks(
            Runtime::Codex,
            &codex_call(
                LINKED,
                "Bash",
                json!({"command": ["bash", "-lc", into_primary]}),
            ),
        );
        let into_linked = format!("cd /repo/linked && applypatch <<\"PATCH\"\n{PATCH_X}\nPATCH");
        assert_allows(&codex_call(
            PRIMARY,
            "exec_command",
            json!({"cmd": ["zsh", "-lc", into_linked]}),
        ));
        // Patch text in a command Codex would not apply itself is judged as well.
        let other = "echo hi; apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: /repo/primary/x\n+a\n*** End Patch\nEOF";
        assert_blocks(
            Runtime::Codex,
            &codex_call(LINKED, "Bash", json!({"command": other})),
        );
    }

    #[test]
    fn only_the_heredoc_forms_codex_applies_are_read_as_patches() {
        let dir = |s: &str| heredoc_patch(s).map(|(d, _)| d);
        assert_eq!(
            dir(&format!("apply_patch <<'EOF'\n{PATCH_X}\nEOF")),
            Some(None)
        );
        assert_eq!(
            dir(&format!(
                "cd 'a b' && apply_patch <<EOF\n{PATCH_X}\nEOF\n\n"
            )),
            Some(Some("a b".to_string()))
        );
        assert_eq!(
            heredoc_patch(&format!("apply_patch <<'EOF'\n{PATCH_X}\nEOF")).map(|(_, p)| p),
            Some(PATCH_X.to_string())
        );
        for not in [
            format!("apply_patch <<'EOF'\n{PATCH_X}\nEOF\ntouch y"),
            format!("cd $D && apply_patch <<'EOF'\n{PATCH_X}\nEOF"),
            format!("cd a; apply_patch <<'EOF'\n{PATCH_X}\nEOF"),
            format!("apply_patch <<'EOF' > out\n{PATCH_X}\nEOF"),
            format!("apply_patch <<'EOF'\n{PATCH_X}\n"),
            "apply_patch x".to_string(),
        ] {
            assert_eq!(heredoc_patch(&not), None, "{not:?}");
        }
    }

    #[test]
    fn codex_input_written_to_a_running_shell_is_judged_as_a_command() {
        let stdin = |cwd, chars: &str| {
            codex_call(cwd, "write_stdin", json!({"session_id": 3, "chars": chars}))
        };
        assert_blocks(
            Runtime::Codex,
            &stdin(LINKED, "cd /repo/primary && touch x\n"),
        );
        assert_allows(&stdin(LINKED, "cargo test\n"));
        assert_blocks(Runtime::Codex, &stdin(PRIMARY, "ls\n"));
        let r = codex_call(LINKED, "write_stdin", json!({"session_id": 3}));
        assert!(r.stderr.contains("chars"), "{}", r.stderr);
    }

    #[test]
    fn gemini_smart_edit_and_the_shells_directory_are_judged_where_they_land() {
        let call = |cwd, tool, input: Value| {
            answer_json(
                Runtime::Gemini,
                json!({"cwd": cwd, "tool_name": tool, "tool_input": input}),
            )
        };
        let smart = json!({"file_path": "/repo/primary/a.rs", "instruction": "x"});
        assert_blocks(Runtime::Gemini, &call(LINKED, "smart_edit", smart));
        let shell = json!({"command": "touch x", "directory": "/repo/primary"});
        assert_blocks(Runtime::Gemini, &call(LINKED, "run_shell_command", shell));
        let out = json!({"command": "touch x", "directory": "/repo/linked"});
        assert_allows(&call(PRIMARY, "run_shell_command", out));
        let both = json!({"command": "ls", "dir_path": "/repo/linked", "directory": "/tmp"});
        let r = call(LINKED, "run_shell_command", both);
        assert!(r.stderr.contains("two directories"), "{}", r.stderr);
        let mcp = json!({"cwd": PRIMARY, "tool_name": "mcp_fs_read_file", "tool_input": {"path": "/repo/primary/a"}, "mcp_context": {"server_name": "fs", "tool_name": "read_file"}});
        assert_allows(&answer_json(Runtime::Gemini, mcp));
    }

    #[test]
    fn copilot_write_bash_is_a_command_and_str_replace_editor_a_writer() {
        let call = |cwd, tool, args: Value| {
            answer_json(
                Runtime::Copilot,
                json!({"cwd": cwd, "toolName": tool, "toolArgs": args.to_string()}),
            )
        };
        let typed = json!({"sessionId": "1", "input": "cd /repo/primary && touch x{enter}"});
        assert_blocks(Runtime::Copilot, &call(LINKED, "write_bash", typed));
        let tests = json!({"sessionId": "1", "input": "cargo test{enter}"});
        assert_allows(&call(LINKED, "write_bash", tests));
        let history = json!({"sessionId": "1", "input": "{up}{enter}"});
        let r = call(LINKED, "write_bash", history);
        assert_blocks(Runtime::Copilot, &r);
        assert!(r.stderr.contains("{up}"), "{}", r.stderr);
        let replace = json!({"command": "str_replace", "path": "/repo/primary/a", "old_str": "a", "new_str": "b"});
        assert_blocks(
            Runtime::Copilot,
            &call(LINKED, "str_replace_editor", replace),
        );
        let view = json!({"command": "view", "path": "/repo/primary/a"});
        assert_allows(&call(PRIMARY, "str_replace_editor", view));
        let create = json!({"command": "create", "path": "/repo/linked/a", "file_text": "x"});
        assert_allows(&call(PRIMARY, "str_replace_editor", create));
    }

    #[test]
    fn cursor_events_and_mcp_calls_are_each_judged() {
        let event = |cwd, name| {
            answer_json(
                Runtime::Cursor,
                json!({"hook_event_name": name, "workspace_roots": [cwd], "cwd": cwd}),
            )
        };
        assert_blocks(Runtime::Cursor, &event(PRIMARY, "beforeSomethingNew"));
        assert_allows(&event(LINKED, "beforeSomethingNew"));
        assert_allows(&event(PRIMARY, "beforeReadFile"));
        let mcp = json!({"hook_event_name": "beforeMCPExecution", "cwd": LINKED, "tool_name": "write_file", "tool_input": "{\"path\":\"/repo/primary/x\",\"content\":\"\"}"});
        assert_blocks(Runtime::Cursor, &answer_json(Runtime::Cursor, mcp));
        let read = json!({"hook_event_name": "preToolUse", "cwd": PRIMARY, "tool_name": "MCP:fs:read_file", "tool_input": {"path": "/repo/primary/x"}});
        assert_allows(&answer_json(Runtime::Cursor, read));
        let garbled = json!({"hook_event_name": "beforeMCPExecution", "cwd": LINKED, "tool_name": "write_file", "tool_input": "{oops"});
        let r = answer_json(Runtime::Cursor, garbled);
        assert_blocks(Runtime::Cursor, &r);
        assert!(r.stderr.contains("does not parse"), "{}", r.stderr);
    }

    #[test]
    fn a_tool_name_is_the_same_however_a_runtime_spells_it() {
        assert!(same_name("read_file", "ReadFile"));
        assert!(same_name("ask_user_question", "AskUserQuestion"));
        assert!(!same_name("read_file", "read_files"));
    }
}
