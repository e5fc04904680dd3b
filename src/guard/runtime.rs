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
/// Pi's `~` paths.
pub fn parse(runtime: Runtime, input: &str, fallback_cwd: &Path, home: Option<&Path>) -> Result<Request, String> {
    let v: Value = serde_json::from_str(input).map_err(|e| format!("{} hook JSON does not parse: {e}", runtime.name()))?;
    if !v.is_object() {
        return Err(format!("{} hook JSON is not an object", runtime.name()));
    }
    match runtime {
        Runtime::Claude => claude(&v),
        Runtime::Codex => codex(&v),
        Runtime::Gemini => gemini(&v),
        Runtime::Cursor => cursor(&v, fallback_cwd),
        Runtime::Copilot => copilot(&v),
        Runtime::Opencode => opencode(&v),
        Runtime::Pi => pi(&v, home),
    }
}

/// The answer in the runtime's own form. Allow is always exit 0 with nothing printed: an
/// explicit "allow" would skip the user's own permission prompts in some runtimes.
pub fn reply(runtime: Option<Runtime>, decision: &Decision) -> Reply {
    let Decision::Block(block) = decision else {
        return Reply { code: 0, stdout: String::new(), stderr: String::new() };
    };
    let message = block.message();
    let stderr = format!("{message}\n");
    match runtime {
        // Copilot CLI ignores exit codes: only its deny JSON on a successful exit blocks.
        Some(Runtime::Copilot) => Reply {
            code: 0,
            stdout: json!({"permissionDecision": "deny", "permissionDecisionReason": message}).to_string() + "\n",
            stderr,
        },
        // Cursor blocks on exit 2 as well; the JSON carries the words to the agent and user.
        Some(Runtime::Cursor) => Reply {
            code: BLOCK,
            stdout: json!({"permission": "deny", "user_message": message, "agent_message": message}).to_string()
                + "\n",
            stderr,
        },
        _ => Reply { code: BLOCK, stdout: String::new(), stderr },
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
    let dir = string(v, path).ok_or_else(|| format!("the hook JSON has no `{}`", path.join(".")))?;
    let dir = PathBuf::from(dir);
    if !dir.is_absolute() {
        return Err(format!("the hook JSON's `{}` is not absolute: {}", path.join("."), dir.display()));
    }
    Ok(dir)
}

/// A command given as text, or (some runtimes) as an argv array.
fn command_of(v: &Value, path: &[&str], tool: &str) -> Result<String, String> {
    match get(v, path) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(items)) => {
            let words: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            words.map(shell_words::join).ok_or_else(|| format!("the `{tool}` call's `{}` is not text", path.join(".")))
        }
        _ => Err(format!("the `{tool}` call has no `{}`", path.join("."))),
    }
}

/// The file paths an `apply_patch` text touches (added, updated, deleted or moved to).
pub fn patch_files(patch: &str) -> Vec<PathBuf> {
    const MARKERS: [&str; 4] = ["*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"];
    patch
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            MARKERS.iter().find_map(|m| line.strip_prefix(m)).map(|p| PathBuf::from(p.trim()))
        })
        .filter(|p| !p.as_os_str().is_empty())
        .collect()
}

fn patch_action(patch: &str, base: &Path, cwd: PathBuf, tool: &str) -> Result<Request, String> {
    let files = patch_files(patch);
    if files.is_empty() {
        return Err(format!("the `{tool}` call's patch names no file"));
    }
    Ok(Request::Act(Action::edit(files.into_iter().map(|f| base.join(f)).collect(), cwd)))
}

fn edit(file: &str, cwd: PathBuf) -> Request {
    let file = cwd.join(file);
    Request::Act(Action::edit(vec![file], cwd))
}

/// Tool names that never write, across runtimes (compared case-insensitively).
const READ_ONLY: &[&str] = &[
    "read",
    "readfile",
    "read_file",
    "read_many_files",
    "notebookread",
    "glob",
    "grep",
    "search_file_content",
    "ls",
    "list",
    "list_directory",
    "find",
    "view",
    "webfetch",
    "web_fetch",
    "websearch",
    "google_web_search",
    "todowrite",
    "todoread",
    "write_todos",
    "askuserquestion",
    "ask_user",
    "question",
    "exitplanmode",
    "lsp",
    "codesearch",
];

fn is_read_only(tool: &str) -> bool {
    READ_ONLY.iter().any(|t| t.eq_ignore_ascii_case(tool))
}

/// A tool this guard does not know (an MCP tool, a new built-in): judged as the seed judges an
/// editor, by where the agent stands.
fn unknown_tool(cwd: PathBuf) -> Request {
    Request::Act(Action::command("", cwd))
}

fn claude(v: &Value) -> Result<Request, String> {
    let tool = string(v, &["tool_name"]).ok_or("the claude hook JSON has no `tool_name`")?;
    let cwd = absolute_dir(v, &["cwd"])?;
    Ok(match tool {
        "Bash" | "PowerShell" | "Monitor" => Request::Act(Action::command(command_of(v, &["tool_input", "command"], tool)?, cwd)),
        "Write" | "Edit" | "MultiEdit" => edit(required(v, &["tool_input", "file_path"], tool)?, cwd),
        "NotebookEdit" => edit(required(v, &["tool_input", "notebook_path"], tool)?, cwd),
        // Subagents and worktree moves run their own tools, which come through here again.
        "Agent" | "Task" | "EnterWorktree" | "ExitWorktree" => Request::ReadOnly,
        t if is_read_only(t) => Request::ReadOnly,
        _ => unknown_tool(cwd),
    })
}

fn codex(v: &Value) -> Result<Request, String> {
    let tool = string(v, &["tool_name"]).ok_or("the codex hook JSON has no `tool_name`")?;
    let cwd = absolute_dir(v, &["cwd"])?;
    Ok(match tool {
        "Bash" | "exec_command" | "shell" => Request::Act(Action::command(command_of(v, &["tool_input", "command"], tool)?, cwd)),
        // Codex hands apply_patch's patch text over as `command`.
        "apply_patch" | "Edit" | "Write" => {
            let patch = string(v, &["tool_input", "command"])
                .or_else(|| string(v, &["tool_input", "patch"]))
                .or_else(|| string(v, &["tool_input", "input"]))
                .ok_or_else(|| format!("the `{tool}` call has no patch text"))?;
            patch_action(patch, &cwd, cwd.clone(), tool)?
        }
        t if is_read_only(t) => Request::ReadOnly,
        _ => unknown_tool(cwd),
    })
}

fn gemini(v: &Value) -> Result<Request, String> {
    let tool = string(v, &["tool_name"]).ok_or("the gemini hook JSON has no `tool_name`")?;
    let cwd = absolute_dir(v, &["cwd"])?;
    Ok(match tool {
        "run_shell_command" => {
            let command = command_of(v, &["tool_input", "command"], tool)?;
            let dir = string(v, &["tool_input", "dir_path"]).map_or(cwd.clone(), |d| cwd.join(d));
            Request::Act(Action::command(command, dir))
        }
        "write_file" | "replace" | "edit" => edit(required(v, &["tool_input", "file_path"], tool)?, cwd),
        t if is_read_only(t) => Request::ReadOnly,
        _ => unknown_tool(cwd),
    })
}

fn cursor(v: &Value, fallback_cwd: &Path) -> Result<Request, String> {
    let event = string(v, &["hook_event_name"]).unwrap_or("preToolUse");
    let named = string(v, &["cwd"])
        .or_else(|| string(v, &["tool_input", "cwd"]))
        .or_else(|| v.get("workspace_roots").and_then(|r| r.get(0)).and_then(Value::as_str));
    let cwd = named.map_or_else(|| fallback_cwd.to_path_buf(), PathBuf::from);
    if !cwd.is_absolute() {
        return Err(format!("the cursor hook JSON's working directory is not absolute: {}", cwd.display()));
    }
    if event == "beforeShellExecution" {
        return Ok(Request::Act(Action::command(command_of(v, &["command"], "beforeShellExecution")?, cwd)));
    }
    if event != "preToolUse" {
        return Ok(unknown_tool(cwd));
    }
    let tool = string(v, &["tool_name"]).ok_or("the cursor hook JSON has no `tool_name`")?;
    Ok(match tool {
        "Shell" | "Terminal" => Request::Act(Action::command(command_of(v, &["tool_input", "command"], tool)?, cwd)),
        "Write" | "Edit" | "StrReplace" | "Delete" | "MultiEdit" | "EditNotebook" => {
            let file = ["file_path", "path", "target_file", "target_notebook"]
                .iter()
                .find_map(|k| string(v, &["tool_input", k]))
                .ok_or_else(|| format!("the `{tool}` call has no file path"))?;
            edit(file, cwd)
        }
        t if is_read_only(t) => Request::ReadOnly,
        _ => unknown_tool(cwd),
    })
}

fn copilot(v: &Value) -> Result<Request, String> {
    // camelCase payload (`toolArgs` is JSON inside a string) or the VS Code-style one.
    let (tool, args) = if let Some(tool) = string(v, &["toolName"]) {
        let args = match v.get("toolArgs") {
            Some(Value::String(s)) => serde_json::from_str(s).map_err(|e| format!("copilot `toolArgs` does not parse: {e}"))?,
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
        "bash" | "powershell" | "shell" => Request::Act(Action::command(command_of(&args, &["command"], tool)?, cwd)),
        "edit" | "create" | "write" => {
            let file = string(&args, &["path"])
                .or_else(|| string(&args, &["file_path"]))
                .ok_or_else(|| format!("the `{tool}` call has no `path`"))?;
            edit(file, cwd)
        }
        "task" | "report_intent" | "think" => Request::ReadOnly,
        t if is_read_only(t) => Request::ReadOnly,
        _ => unknown_tool(cwd),
    })
}

/// The OpenCode adapter sends `{tool, args, directory, worktree}`.
fn opencode(v: &Value) -> Result<Request, String> {
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
            let base = string(v, &["worktree"]).map(PathBuf::from).filter(|p| p.is_absolute()).unwrap_or(cwd.clone());
            patch_action(patch, &base, cwd, tool)?
        }
        "task" | "skill" | "plan" => Request::ReadOnly,
        t if is_read_only(t) => Request::ReadOnly,
        _ => unknown_tool(cwd),
    })
}

/// The Pi extension sends `{tool, input, cwd}`.
fn pi(v: &Value, home: Option<&Path>) -> Result<Request, String> {
    let tool = string(v, &["tool"]).ok_or("the pi hook JSON has no `tool`")?;
    let cwd = absolute_dir(v, &["cwd"])?;
    Ok(match tool {
        "bash" => Request::Act(Action::command(command_of(v, &["input", "command"], tool)?, cwd)),
        "edit" | "write" => {
            let raw = required(v, &["input", "path"], tool)?;
            // Pi resolves `@path` and `~/path` before touching the file; so must we.
            let path = raw.strip_prefix('@').unwrap_or(raw);
            let file = match (path.strip_prefix('~'), home) {
                (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with('/') => h.join(rest.trim_start_matches('/')),
                (Some(_), _) => return Err(format!("cannot expand `{raw}` without a home directory")),
                (None, _) => cwd.join(path),
            };
            Request::Act(Action::edit(vec![file], cwd))
        }
        t if is_read_only(t) => Request::ReadOnly,
        _ => unknown_tool(cwd),
    })
}
