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
        "Bash" | "PowerShell" | "Monitor" => Request::Act(Action::command(
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
        _ => unknown_tool(cwd),
    })
}

fn codex(v: &Value) -> Result<Request, String> {
    let tool = string(v, &["tool_name"]).ok_or("the codex hook JSON has no `tool_name`")?;
    let cwd = absolute_dir(v, &["cwd"])?;
    Ok(match tool {
        "Bash" | "exec_command" | "shell" => Request::Act(Action::command(
            command_of(v, &["tool_input", "command"], tool)?,
            cwd,
        )),
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
        "write_file" | "replace" | "edit" => {
            edit(required(v, &["tool_input", "file_path"], tool)?, cwd)
        }
        t if is_read_only(t) => Request::ReadOnly,
        _ => unknown_tool(cwd),
    })
}

fn cursor(v: &Value, fallback_cwd: &Path) -> Result<Request, String> {
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
    if event == "beforeShellExecution" {
        return Ok(Request::Act(Action::command(
            command_of(v, &["command"], "beforeShellExecution")?,
            cwd,
        )));
    }
    if event != "preToolUse" {
        return Ok(unknown_tool(cwd));
    }
    let tool = string(v, &["tool_name"]).ok_or("the cursor hook JSON has no `tool_name`")?;
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
        t if is_read_only(t) => Request::ReadOnly,
        _ => unknown_tool(cwd),
    })
}

fn copilot(v: &Value) -> Result<Request, String> {
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
            let base = string(v, &["worktree"])
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or(cwd.clone());
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
        _ => unknown_tool(cwd),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::tests::{HOME, LINKED, PRIMARY, fake_probe};
    use crate::guard::{Hatches, decide};

    macro_rules! cases {
        ($rt:literal) => {
            [
                (
                    "allow",
                    include_str!(concat!("../../tests/fixtures/guard/", $rt, "/allow.json")),
                ),
                (
                    "block",
                    include_str!(concat!("../../tests/fixtures/guard/", $rt, "/block.json")),
                ),
                (
                    "malformed",
                    include_str!(concat!(
                        "../../tests/fixtures/guard/",
                        $rt,
                        "/malformed.json"
                    )),
                ),
                (
                    "read-only",
                    include_str!(concat!(
                        "../../tests/fixtures/guard/",
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
            Ok(Request::ReadOnly) => Decision::Allow(crate::guard::Why::ReadOnlyTool),
            Ok(Request::Act(a)) => decide(
                &Hatches::default(),
                &a,
                Some(Path::new(HOME)),
                &mut fake_probe,
            ),
            Err(what) => Decision::Block(crate::guard::Block::Failed { what }),
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
}
