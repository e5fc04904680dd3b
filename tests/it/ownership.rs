//! File ownership (`git berth own`, `owners`): a worktree claims the paths it will change, two
//! live worktrees never own overlapping paths, and ownership lapses when its worktree is removed
//! or ships, or when its holder's process is gone. The guard's copy (`owners.guard`) follows the
//! store at every write. Agents are real `sleep` processes holding the worktrees' claims.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use berth::guard::owners;
use common::{Agent, Sandbox, outputs, stderr};
use serde_json::Value;

/// The guard's copy of the owners, parsed.
fn guarded(sb: &Sandbox, repo: &Path) -> Vec<owners::Owned> {
    let path = sb.common_dir(repo).join("berth").join("owners.guard");
    match std::fs::read_to_string(&path) {
        Ok(text) => owners::parse(&text).unwrap(),
        Err(_) => Vec::new(),
    }
}

/// `owners --json`: each worktree's name and its paths.
fn owners_of(sb: &Sandbox, repo: &Path) -> Vec<(String, Vec<String>)> {
    sb.berth_json(repo, &["owners", "--json"])["owners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let paths = o["paths"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap().to_owned())
                .collect();
            (o["worktree"].as_str().unwrap().to_owned(), paths)
        })
        .collect()
}

/// A worktree `name` made and claimed by session `name` whose claim `agent` holds.
fn add_as(sb: &Sandbox, repo: &Path, name: &str, agent: &Agent) -> PathBuf {
    let out = sb.berth_as(repo, name, agent.pid(), &["add", name]);
    assert!(out.status.success(), "add {name}: {}", outputs(&out));
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn own_in(sb: &Sandbox, dir: &Path, paths: &[&str]) -> std::process::Output {
    let mut args = vec!["own"];
    args.extend_from_slice(paths);
    sb.berth(dir, &args)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn a_claim_overlapping_another_worktrees_is_refused_naming_the_owner_and_the_paths() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.commit_file(&repo, "src/api/x.rs", "api\n");
    let (agent_a, agent_b) = (Agent::spawn(), Agent::spawn());
    let a = add_as(&sb, &repo, "a", &agent_a);
    let b = add_as(&sb, &repo, "b", &agent_b);

    let out = own_in(&sb, &a, &["src/api"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let refused = own_in(&sb, &b, &["src/web/", "src/api/x.rs"]);
    assert_eq!(refused.status.code(), Some(1), "{}", outputs(&refused));
    let said = stderr(&refused);
    assert!(
        said.contains("worktree 'a' owns src/api/x.rs (it owns src/api/)"),
        "{said}"
    );
    assert!(said.contains("hint: "), "{said}");
    assert_eq!(
        owners_of(&sb, &repo),
        vec![("a".to_owned(), strings(&["src/api/"]))],
        "a refused claim changes nothing"
    );

    let out = own_in(&sb, &b, &["src/web/"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let refused = own_in(&sb, &a, &["src/"]);
    assert!(
        stderr(&refused).contains("worktree 'b' owns src/ (it owns src/web/)"),
        "{}",
        outputs(&refused)
    );
    assert_eq!(
        owners_of(&sb, &repo),
        vec![
            ("a".to_owned(), strings(&["src/api/"])),
            ("b".to_owned(), strings(&["src/web/"])),
        ]
    );
    let guard = guarded(&sb, &repo);
    assert_eq!(guard.len(), 2);
    assert_eq!(guard[0].pid, agent_a.pid());
    assert_eq!(guard[0].worktree, a);
    assert_eq!(guard[0].pattern, "src/api/");
    assert_eq!(guard[1].pid, agent_b.pid());
    assert_eq!(guard[1].pattern, "src/web/");
}

#[test]
fn a_glob_owns_a_file_added_after_the_claim_and_two_globs_clash_only_on_shared_files() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.commit_file(&repo, "docs/guide.md", "guide\n");
    let (agent_a, agent_b) = (Agent::spawn(), Agent::spawn());
    let a = add_as(&sb, &repo, "a", &agent_a);
    let b = add_as(&sb, &repo, "b", &agent_b);

    let out = sb.berth(&a, &["own", "docs/**/*.md", "--json"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let said: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(said["owns"], serde_json::json!(["docs/**/*.md"]));
    let stored = std::fs::read_to_string(sb.common_dir(&repo).join("berth/owners.toml")).unwrap();
    assert!(stored.contains("\"docs/guide.md\""), "{stored}");

    // A file nobody had when the glob was claimed is the glob's all the same.
    let pattern = &guarded(&sb, &repo)[0].pattern;
    assert!(owners::matches(pattern, "docs/later/new.md"));
    let refused = own_in(&sb, &b, &["docs/later/new.md"]);
    assert!(
        stderr(&refused).contains("worktree 'a' owns docs/later/new.md (it owns docs/**/*.md)"),
        "{}",
        outputs(&refused)
    );
    // Two globs in one folder that share no tracked file do not clash; ones that do, do.
    let out = own_in(&sb, &b, &["docs/*.txt"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let refused = own_in(&sb, &b, &["docs/g*"]);
    assert!(
        stderr(&refused).contains("docs/g* (it owns docs/**/*.md)"),
        "{}",
        outputs(&refused)
    );
}

#[test]
fn a_path_is_taken_from_the_current_folder_below_a_worktrees_root_and_the_primary_is_refused() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let wt = sb.add(&repo, &["a"]);

    let out = own_in(&sb, &wt.join("src"), &["lib.rs", "../README.md"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert_eq!(
        owners_of(&sb, &repo),
        vec![("a".to_owned(), strings(&["src/lib.rs", "README.md"]))]
    );

    let refused = own_in(&sb, &repo, &["docs/"]);
    assert_eq!(refused.status.code(), Some(1));
    let said = stderr(&refused);
    assert!(
        said.contains("the primary checkout owns no paths"),
        "{said}"
    );
    assert!(said.contains("own --worktree <name>"), "{said}");
    sb.berth_ok(&repo, &["own", "--worktree", "a", "docs/"]);

    let rows = sb.list_rows(&repo, false);
    assert_eq!(
        rows[0]["owns"],
        serde_json::json!(["src/lib.rs", "README.md", "docs/"])
    );
    let full = sb.berth_ok(&repo, &["list", "--full"]);
    assert!(full.contains("src/lib.rs,README.md,docs/"), "{full}");

    sb.berth_ok(&wt, &["own", "--release", "README.md"]);
    assert_eq!(
        owners_of(&sb, &repo),
        vec![("a".to_owned(), strings(&["src/lib.rs", "docs/"]))]
    );
    let refused = own_in(&sb, &wt, &["--release", "nope.txt"]);
    assert!(
        stderr(&refused).contains("worktree 'a' does not own nope.txt"),
        "{}",
        outputs(&refused)
    );
    sb.berth_ok(&wt, &["own", "--release"]);
    assert!(owners_of(&sb, &repo).is_empty());
    assert!(guarded(&sb, &repo).is_empty(), "the guard's copy follows");
}

#[test]
fn ownership_lapses_when_the_worktree_is_removed_and_when_its_holder_is_gone() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut agent_a = Agent::spawn();
    let agent_b = Agent::spawn();
    let a = add_as(&sb, &repo, "a", &agent_a);
    let b = add_as(&sb, &repo, "b", &agent_b);
    let c = sb.add(&repo, &["c"]);
    assert!(own_in(&sb, &a, &["src/"]).status.success());
    assert!(own_in(&sb, &c, &["README.md"]).status.success());

    agent_a.kill();
    assert_eq!(
        owners_of(&sb, &repo),
        vec![("c".to_owned(), strings(&["README.md"]))],
        "a lapsed owner is not listed"
    );
    let out = own_in(&sb, &b, &["src/lib.rs"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let guard = guarded(&sb, &repo);
    assert!(
        guard.iter().all(|o| o.pid != agent_a.pid()),
        "the lapsed owner left the guard's copy at the next write: {guard:?}"
    );

    sb.berth_ok(&repo, &["remove", "c"]);
    assert_eq!(
        owners_of(&sb, &repo),
        vec![("b".to_owned(), strings(&["src/lib.rs"]))]
    );
    assert!(guarded(&sb, &repo).iter().all(|o| o.worktree != c));

    // A released worktree owns nothing, in the store and in the guard's copy at once.
    let out = sb.berth_as(&repo, "b", agent_b.pid(), &["release", "b"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert_eq!(owners_of(&sb, &repo), Vec::new());
    assert_eq!(guarded(&sb, &repo), Vec::new());
}

#[test]
fn ownership_lapses_when_the_worktree_ships() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let reviewer = Agent::spawn();
    let wt = sb.add(&repo, &["feature"]);
    sb.berth_ok(&wt, &["own", "src/lib.rs"]);
    sb.commit_file(&wt, "src/lib.rs", "fn main() { shipped() }\n");
    let out = sb.berth_as(
        &repo,
        "reviewer",
        reviewer.pid(),
        &["review", "approve", "feature"],
    );
    assert!(out.status.success(), "{}", outputs(&out));

    sb.berth_ok(&repo, &["ship", "feature"]);
    assert!(!wt.exists());
    assert!(owners_of(&sb, &repo).is_empty());
    assert!(guarded(&sb, &repo).is_empty());
}

#[test]
fn two_processes_claiming_overlapping_paths_at_once_end_with_exactly_one_owner() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let agents: Vec<Agent> = (0..4).map(|_| Agent::spawn()).collect();
    let trees: Vec<PathBuf> = agents
        .iter()
        .enumerate()
        .map(|(i, agent)| add_as(&sb, &repo, &format!("w{i}"), agent))
        .collect();

    let children: Vec<Child> = trees
        .iter()
        .enumerate()
        .map(|(i, wt)| {
            let path = if i % 2 == 0 { "src/" } else { "src/lib.rs" };
            sb.berth_command(wt, &["own", path])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();

    let won = outputs.iter().filter(|o| o.status.success()).count();
    assert_eq!(
        won,
        1,
        "{:#?}",
        outputs.iter().map(common::outputs).collect::<Vec<_>>()
    );
    for out in outputs.iter().filter(|o| !o.status.success()) {
        assert!(
            stderr(out).contains("cannot own these paths"),
            "{}",
            common::outputs(out)
        );
    }
    assert_eq!(owners_of(&sb, &repo).len(), 1);
    assert_eq!(guarded(&sb, &repo).len(), 1);
}

/// Claude Code's Edit of `file` in the worktree `dir`, judged by the real guard from `dir`.
fn claude_edit(sb: &Sandbox, dir: &Path, file: &str) -> std::process::Output {
    let json = serde_json::json!({
        "session_id": "s1",
        "cwd": dir,
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": dir.join(file), "old_string": "fn", "new_string": "pub fn"},
        "tool_use_id": "t1",
    });
    sb.guard_hook(dir, "claude", &json)
}

#[test]
fn a_fleets_owns_are_owned_before_its_agents_start_and_lapse_when_they_are_gone() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.commit_file(&repo, "src/api/x.rs", "fn x() {}\n");
    sb.commit_file(&repo, "src/web/y.rs", "fn y() {}\n");
    let manifest = sb.root.join("split.toml");
    std::fs::write(
        &manifest,
        r#"name = "split"

[defaults]
type = "shell"
background = true

[[agents]]
name = "api"
owns = ["src/api"]
prompt = "cat $(git rev-parse --git-common-dir)/berth/owners.guard > owned-at-start; sleep 60"

[[agents]]
name = "web"
owns = ["src/web/", "README*"]
prompt = "sleep 60"

[[agents]]
name = "quick"
owns = ["docs/"]
prompt = "true"
"#,
    )
    .unwrap();
    let manifest = manifest.display().to_string();
    sb.berth_json(&repo, &["fleet", "up", &manifest, "--json"]);
    let fleet = sb.berth_json(&repo, &["fleet", "ls", "split", "--json"]);
    let dir_of = |agent: &str| {
        let a = fleet["fleets"][0]["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == agent)
            .unwrap()
            .clone();
        PathBuf::from(a["path"].as_str().unwrap())
    };
    let (api, web) = (dir_of("api"), dir_of("web"));

    // The agent found its paths owned when it started, itself as the owner.
    let seen = api.join("owned-at-start");
    common::wait_for("the api agent to write what it saw", || {
        std::fs::read_to_string(&seen).is_ok_and(|t| t.contains("src/api/"))
    });
    let api_dir = api.file_name().unwrap().to_string_lossy().into_owned();
    let listed = sb.berth_json(&repo, &["owners", "--json"]);
    let by_agent = |agent: &str| {
        listed["owners"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["agent"] == agent)
            .cloned()
            .unwrap_or_else(|| panic!("no owner of agent {agent}: {listed}"))
    };
    assert_eq!(
        by_agent("split/api")["paths"],
        serde_json::json!(["src/api/"])
    );
    assert_eq!(
        by_agent("split/web")["paths"],
        serde_json::json!(["src/web/", "README*"])
    );
    // The quick agent is done, so what its worktree owned lapsed with it.
    common::wait_for("the quick agent's ownership to lapse", || {
        let now = sb.berth_json(&repo, &["owners", "--json"]);
        now["owners"].as_array().unwrap().len() == 2
    });

    let blocked = claude_edit(&sb, &web, "src/api/x.rs");
    let err = stderr(&blocked);
    assert_eq!(blocked.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "the worktree {api_dir} of agent split/api owns (src/api/)"
        )),
        "{err}"
    );
    assert!(err.contains("`git berth send split/api ...`"), "{err}");
    let own = claude_edit(&sb, &api, "src/api/x.rs");
    assert_eq!(own.status.code(), Some(0), "{}", outputs(&own));
    let free = claude_edit(&sb, &api, "src/lib.rs");
    assert_eq!(free.status.code(), Some(0), "{}", outputs(&free));

    sb.berth_json(
        &repo,
        &["fleet", "down", "split", "--grace", "1s", "--json"],
    );
    let after = sb.berth_json(&repo, &["owners", "--json"]);
    assert_eq!(after["owners"], serde_json::json!([]), "{after}");
    assert_eq!(guarded(&sb, &repo), Vec::new());
}

#[test]
fn collects_forecast_names_the_owner_of_a_conflicting_file() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let readme: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    sb.commit_file(&repo, "README.md", &readme);
    let holder = Agent::spawn();
    let a = add_as(&sb, &repo, "a", &holder);
    let b = sb.add(&repo, &["b"]);
    let out = own_in(&sb, &a, &["README.md"]);
    assert!(out.status.success(), "{}", outputs(&out));
    sb.commit_file(&a, "README.md", &readme.replace("line 4\n", "line four\n"));
    sb.commit_file(&b, "README.md", &readme.replace("line 4\n", "LINE 4\n"));

    let overview = sb.berth_json(&repo, &["collect", "--json"]);
    assert_eq!(
        overview["forecast"]["conflicts"],
        serde_json::json!([{
            "worktrees": ["a", "b"],
            "file": "README.md",
            "lines": [{"start": 4, "end": 4}],
            "owner": {"file": "README.md", "worktree": "a", "agent": null}
        }]),
        "{overview}"
    );
    let text = sb.berth_ok(&repo, &["collect"]);
    assert!(text.contains("line 4; owned by worktree 'a'"), "{text}");
}
