//! `git berth mcp` over pipes, as a runtime drives it: JSON-RPC lines on its stdin, answers on its
//! stdout. Each server runs under its own python process, which stands in for the agent runtime
//! that started it (the server's session), so two servers are two agents.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use common::{Sandbox, git_worktree_paths};
use serde_json::{Value, json};

/// A running server and the next request id.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
    /// The initialize answer.
    init: Value,
}

impl Server {
    /// A server started in `dir`, initialized.
    fn start(sb: &Sandbox, dir: &Path) -> Server {
        let mut cmd = std::process::Command::new("python3");
        sb.env(&mut cmd);
        cmd.current_dir(dir)
            .args([
                "-c",
                "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))",
                env!("CARGO_BIN_EXE_git-berth"),
                "mcp",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Server {
            child,
            stdin,
            stdout,
            next: 1,
            init: Value::Null,
        };
        server.init = server.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "berth-tests", "version": "1"},
            }),
        );
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Send a request and read lines until its answer; the answer's `result`.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let answer = self.answer(method, params);
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// Send a request and read lines until its answer, whole (a `result` or an `error`).
    fn answer(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let read = self.stdout.read_line(&mut line).unwrap();
            assert!(
                read > 0,
                "the server closed stdout before answering {method}"
            );
            let answer: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {line}"));
            if answer["id"] == json!(id) {
                return answer;
            }
        }
    }

    fn tools(&mut self) -> Vec<Value> {
        self.request("tools/list", json!({}))["tools"]
            .as_array()
            .unwrap()
            .clone()
    }

    /// Call `tool`: `Ok(parsed JSON)`, or `Err(text)` for a tool error.
    fn call(&mut self, tool: &str, arguments: Value) -> Result<Value, String> {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let text = result["content"][0]["text"].as_str().unwrap().to_owned();
        if result["isError"] == json!(true) {
            Err(text)
        } else {
            Ok(serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")))
        }
    }

    fn ok(&mut self, tool: &str, arguments: Value) -> Value {
        self.call(tool, arguments)
            .unwrap_or_else(|e| panic!("{tool} failed: {e}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn worktree<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["worktrees"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {list}"))
}

#[test]
fn in_a_repository_it_gives_instructions_and_five_tools_with_their_hints() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut server = Server::start(&sb, &repo);
    let instructions = server.init["instructions"].as_str().unwrap_or_default();
    assert!(
        instructions.contains("worktree_list first"),
        "{}",
        server.init
    );
    assert!(server.init["capabilities"]["tools"].is_object());
    let tools = server.tools();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "worktree_claim",
            "worktree_create",
            "worktree_list",
            "worktree_release",
            "worktree_remove"
        ]
    );
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap().clone();
    assert_eq!(tool("worktree_list")["annotations"]["readOnlyHint"], true);
    assert_eq!(
        tool("worktree_remove")["annotations"]["destructiveHint"],
        true
    );
    assert_eq!(
        tool("worktree_create")["annotations"]["readOnlyHint"],
        false
    );
    let create = tool("worktree_create");
    assert_eq!(create["inputSchema"]["required"], json!(["name"]));
    assert_eq!(
        create["inputSchema"]["properties"]["reuse_if_available"]["default"],
        true
    );
    for t in &tools {
        assert!(
            t["inputSchema"]["properties"]["repo_root"].is_object(),
            "{t}"
        );
    }
}

#[test]
fn outside_any_repository_it_offers_no_tools_and_no_instructions() {
    let sb = Sandbox::new();
    let empty = sb.root.join("empty");
    std::fs::create_dir_all(empty.join("notes")).unwrap();
    let mut server = Server::start(&sb, &empty);
    assert!(server.init.get("instructions").is_none(), "{}", server.init);
    assert!(
        server.init["capabilities"].get("tools").is_none(),
        "{}",
        server.init
    );
    assert_eq!(server.tools(), Vec::<Value>::new());
}

#[test]
fn a_child_repository_keeps_the_tools_reachable_through_repo_root() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut server = Server::start(&sb, &sb.root);
    assert!(server.init["instructions"].is_string());
    let err = server.call("worktree_list", json!({})).unwrap_err();
    assert!(err.contains("is not in a git repository"), "{err}");
    assert!(
        err.contains("hint: name one of its child repositories in repo_root"),
        "{err}"
    );
    let made = server.ok("worktree_create", json!({"name": "a", "repo_root": "app"}));
    assert_eq!(made["branch"], "berth/a");
    let list = server.ok("worktree_list", json!({"repo_root": "app"}));
    assert_eq!(worktree(&list, "a")["claimed_by"], "self");
    // The sandbox's parent folder exists, and lies outside the server's folder.
    let err = server
        .call("worktree_list", json!({"repo_root": ".."}))
        .unwrap_err();
    assert!(err.starts_with("error: repo_root .. is outside"), "{err}");
    let err = server
        .call("worktree_list", json!({"repo_root": "missing"}))
        .unwrap_err();
    assert!(err.starts_with("error: repo_root missing: "), "{err}");
    assert_eq!(git_worktree_paths(&sb, &repo).len(), 2);
}

#[test]
fn each_tool_does_what_its_command_does_and_refuses_what_it_refuses() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut server = Server::start(&sb, &repo);

    let made = server.ok("worktree_create", json!({"name": "a"}));
    let path = PathBuf::from(made["path"].as_str().unwrap());
    assert_eq!(made["reused"], false);
    // Its session is the process that started it (the runtime), as for the agent's own commands.
    let runtime = server.child.id().to_string();
    assert_eq!(
        made["session"].as_str().unwrap().rsplit(':').next(),
        Some(runtime.as_str()),
        "{made}"
    );
    assert!(git_worktree_paths(&sb, &repo).contains(&path));
    let again = server.ok("worktree_create", json!({"name": "a"}));
    assert_eq!(again["reused"], true);
    let err = server
        .call(
            "worktree_create",
            json!({"name": "a", "reuse_if_available": false}),
        )
        .unwrap_err();
    assert!(err.contains("'a'"), "{err}");
    let err = server
        .call("worktree_create", json!({"name": "../x"}))
        .unwrap_err();
    assert!(err.starts_with("error: "), "{err}");

    let list = server.ok("worktree_list", json!({}));
    assert!(
        list["repo_key"].as_str().unwrap().starts_with("app-"),
        "{list}"
    );
    assert_eq!(list["cwd_worktree"], Value::Null);
    let a = worktree(&list, "a");
    assert_eq!(a["status"], "claimed");
    assert_eq!(a["claimed_by"], "self");
    assert_eq!(a["base_commit"], sb.rev(&repo, "HEAD"));
    assert_eq!(a["head_commit"], sb.rev(&repo, "HEAD"));
    assert_eq!(a["base_ref"], "main");
    assert_eq!(a["dirty"], false);
    let mine = server.ok("worktree_list", json!({"mine": true}));
    assert_eq!(mine["worktrees"].as_array().unwrap().len(), 1);
    let other_base = server.ok("worktree_list", json!({"base_ref": "elsewhere"}));
    assert_eq!(other_base["worktrees"], json!([]));

    let held = server.ok("worktree_claim", json!({"name": "a"}));
    assert_eq!(held["already_held"], true);
    let err = server
        .call("worktree_claim", json!({"name": "nope"}))
        .unwrap_err();
    assert!(err.contains("no worktree named 'nope'"), "{err}");
    let freed = server.ok("worktree_release", json!({"name": "a"}));
    assert_eq!(freed["released"], true);
    let list = server.ok("worktree_list", json!({"status": "available"}));
    assert_eq!(worktree(&list, "a")["claimed_by"], Value::Null);

    std::fs::write(path.join("wip.txt"), "unsaved\n").unwrap();
    let err = server
        .call("worktree_remove", json!({"name": "a"}))
        .unwrap_err();
    assert!(err.contains("uncommitted"), "{err}");
    assert!(path.exists());
    let gone = server.ok("worktree_remove", json!({"name": "a", "force": true}));
    assert_eq!(gone["removed"][0]["name"], "a");
    assert!(!git_worktree_paths(&sb, &repo).contains(&path));
    assert!(
        sb.has_branch(&repo, "berth/a"),
        "the branch stays without delete_branch"
    );
}

#[test]
fn a_worktree_list_from_inside_a_worktree_names_it() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["here"]);
    let mut server = Server::start(&sb, &wt);
    let list = server.ok("worktree_list", json!({}));
    assert_eq!(list["cwd_worktree"], "here");
}

#[test]
fn two_servers_are_two_sessions_and_exactly_one_wins_a_race_for_a_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut first = Server::start(&sb, &repo);
    let mut second = Server::start(&sb, &repo);
    let both = std::thread::scope(|s| {
        let one = s.spawn(|| first.call("worktree_create", json!({"name": "x"})));
        let two = s.spawn(|| second.call("worktree_create", json!({"name": "x"})));
        [one.join().unwrap(), two.join().unwrap()]
    });
    let won: Vec<&Value> = both.iter().filter_map(|r| r.as_ref().ok()).collect();
    let lost: Vec<&String> = both.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!((won.len(), lost.len()), (1, 1), "{both:?}");
    assert!(
        lost[0].contains("worktree 'x' is claimed by"),
        "{}",
        lost[0]
    );
    let (winner, loser) = if both[0].is_ok() {
        (&mut first, &mut second)
    } else {
        (&mut second, &mut first)
    };
    let seen = loser.ok("worktree_list", json!({}));
    let x = worktree(&seen, "x");
    assert_eq!(x["status"], "claimed");
    assert_ne!(x["claimed_by"], "self");
    assert_eq!(x["claimed_by"], won[0]["session"]);
    let err = loser
        .call("worktree_claim", json!({"name": "x"}))
        .unwrap_err();
    assert!(err.contains("is claimed by"), "{err}");
    winner.ok("worktree_release", json!({"name": "x"}));
    let taken = loser.ok("worktree_claim", json!({"name": "x"}));
    assert_eq!(taken["already_held"], false);
    // The loser's claim is its own session's: the process that started it, standing in for the
    // agent runtime.
    assert_eq!(
        loser.ok("worktree_list", json!({}))["worktrees"][0]["claimed_by"],
        "self"
    );
}

/// The Python that has the official MCP SDK: `BERTH_TEST_MCP_PYTHON`, else the virtual
/// environment `.ci/run` makes; `None` (the test skips) when neither has it.
fn sdk_python() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
    let candidates = std::env::var_os("BERTH_TEST_MCP_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain(cache.map(|c| c.join("git-berth-ci/mcp-venv/bin/python")));
    for python in candidates {
        let has = std::process::Command::new(&python)
            .args(["-c", "import mcp"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if has {
            return Some(python);
        }
    }
    None
}

#[test]
fn the_official_python_sdk_lists_the_tools_creates_a_worktree_and_lists_it() {
    let Some(python) = sdk_python() else {
        common::skip(
            "mcp",
            "no Python with the MCP SDK (set BERTH_TEST_MCP_PYTHON, or run .ci/run)",
        );
        return;
    };
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let mut cmd = std::process::Command::new(python);
    sb.env(&mut cmd);
    let out = cmd
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_git-berth"))
        .arg(&repo)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::outputs(&out));
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        seen["instructions"]
            .as_str()
            .unwrap()
            .contains("worktree_list")
    );
    assert_eq!(
        seen["tools"],
        json!([
            "worktree_claim",
            "worktree_create",
            "worktree_list",
            "worktree_release",
            "worktree_remove"
        ])
    );
    assert_eq!(seen["read_only"], json!(["worktree_list"]));
    assert_eq!(seen["created_error"], false, "{seen}");
    let path = PathBuf::from(seen["created"]["path"].as_str().unwrap());
    assert!(git_worktree_paths(&sb, &repo).contains(&path));
    assert_eq!(
        worktree(&seen["listed"], "from-python")["claimed_by"],
        "self"
    );
}

#[test]
fn a_stale_claim_is_found_by_its_filter_and_reclaimed_saying_so() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut gone = common::Agent::spawn();
    for name in ["old", "older"] {
        let out = sb.berth_as(&repo, "other", gone.pid(), &["add", name]);
        assert!(out.status.success(), "{}", common::outputs(&out));
    }
    gone.kill();
    let mut server = Server::start(&sb, &repo);
    let stale = server.ok("worktree_list", json!({"status": "stale"}));
    assert_eq!(stale["worktrees"].as_array().unwrap().len(), 2, "{stale}");
    assert!(
        worktree(&stale, "old")["stale_reason"].is_string(),
        "{stale}"
    );
    assert_eq!(
        server.ok("worktree_list", json!({"status": "claimed"}))["worktrees"],
        json!([])
    );
    let taken = server.ok("worktree_claim", json!({"name": "old"}));
    assert_eq!(taken["reclaimed_stale"], true, "{taken}");
    let reused = server.ok("worktree_create", json!({"name": "older"}));
    assert_eq!(
        (&reused["reused"], &reused["reclaimed_stale"]),
        (&json!(true), &json!(true)),
        "{reused}"
    );
    let mine = server.ok("worktree_list", json!({"mine": true}));
    assert_eq!(mine["worktrees"].as_array().unwrap().len(), 2, "{mine}");
    // Taken again by its holder: nothing stale is left to say.
    let again = server.ok("worktree_claim", json!({"name": "old"}));
    assert_eq!(
        (&again["reclaimed_stale"], &again["already_held"]),
        (&json!(false), &json!(true))
    );
}

#[test]
fn remove_deletes_a_merged_branch_when_asked_and_refuses_an_unmerged_one() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut server = Server::start(&sb, &repo);
    server.ok("worktree_create", json!({"name": "done"}));
    let gone = server.ok(
        "worktree_remove",
        json!({"name": "done", "delete_branch": true}),
    );
    assert_eq!(
        gone,
        json!({"removed": [{
            "name": "done",
            "path": gone["removed"][0]["path"],
            "branch": "berth/done",
            "branch_deleted": true,
        }], "kept": []})
    );
    assert!(!sb.has_branch(&repo, "berth/done"));

    let made = server.ok("worktree_create", json!({"name": "work"}));
    let path = PathBuf::from(made["path"].as_str().unwrap());
    std::fs::write(path.join("new.txt"), "work\n").unwrap();
    sb.commit_all(&path, "work of its own");
    let err = server
        .call(
            "worktree_remove",
            json!({"name": "work", "delete_branch": true}),
        )
        .unwrap_err();
    assert!(err.contains("1 commit on berth/work not on main"), "{err}");
    assert!(err.contains("\nhint: "), "{err}");
    assert!(git_worktree_paths(&sb, &repo).contains(&path));
    assert!(sb.has_branch(&repo, "berth/work"));
}

#[test]
fn a_repo_root_that_leads_outside_through_a_link_is_refused() {
    let sb = Sandbox::new();
    let outside = sb.repo("outside");
    let home = sb.root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    sb.repo("home/app");
    std::os::unix::fs::symlink(&outside, home.join("link")).unwrap();
    let mut server = Server::start(&sb, &home);
    // The link names a folder inside `home`; the repository it opens is not.
    let err = server
        .call("worktree_create", json!({"name": "x", "repo_root": "link"}))
        .unwrap_err();
    assert!(err.starts_with("error: repo_root link is outside"), "{err}");
    assert_eq!(git_worktree_paths(&sb, &outside).len(), 1);
    // Unknown arguments are refused, not ignored.
    let err = server
        .call("worktree_list", json!({"sttus": "stale"}))
        .unwrap_err();
    assert!(err.contains("unknown field `sttus`"), "{err}");
}

#[test]
fn a_hook_that_prints_leaves_the_protocol_stream_clean() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.install(
        &repo,
        &[
            "--setup",
            "echo hello-from-setup; echo to-stderr >&2",
            "--teardown",
            "echo bye-from-teardown",
        ],
    );
    sb.commit_all(&repo, "hooks");
    let mut server = Server::start(&sb, &repo);
    // Every line the server writes is read as JSON-RPC by `request`: a stray line fails it.
    let made = server.ok("worktree_create", json!({"name": "hooked"}));
    let path = PathBuf::from(made["path"].as_str().unwrap());
    assert!(git_worktree_paths(&sb, &repo).contains(&path));
    server.ok("worktree_remove", json!({"name": "hooked"}));
    assert!(!git_worktree_paths(&sb, &repo).contains(&path));
    server.ok("worktree_list", json!({}));
}

#[test]
fn cwd_worktree_is_the_worktree_holding_the_servers_folder() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["here"]);
    let deep = wt.join("src/deep");
    std::fs::create_dir_all(&deep).unwrap();
    let mut server = Server::start(&sb, &deep);
    assert_eq!(
        server.ok("worktree_list", json!({}))["cwd_worktree"],
        "here"
    );
    let mut primary = Server::start(&sb, &repo);
    // The primary checkout is not one of the managed worktrees the list holds.
    assert_eq!(
        primary.ok("worktree_list", json!({}))["cwd_worktree"],
        Value::Null
    );
}
