//! Machine-wide port blocks with real processes and real listeners: the lowest free run, units
//! where something listens, clones sharing one machine, freeing and reuse, takeover of a gone
//! worktree's block, exhaustion, concurrent adds, and resizing with `setup`.

use crate::common;

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::*;

/// Each test's own `berth.portRange` start, from 61500 up in 250-port steps, slots 0-13 (this
/// file only; slot 13 may take 400). Above Linux's ephemeral ports (32768-60999), where another process's
/// port-0 listener, or a probe that happens to connect to itself, would make a unit busy at random.
fn ports_at(slot: u16) -> u16 {
    61500 + slot * 250
}

fn out_dir(sandbox: &Sandbox) -> PathBuf {
    let out = sandbox.root.join("out");
    std::fs::create_dir_all(&out).unwrap();
    out
}

/// A setup that records its environment as `<out>/<name>.env`.
fn recorder(out: &Path) -> String {
    format!(
        "env > {}/\"$WORKTREE_NAME.env\"",
        sh_quote(out.to_str().unwrap())
    )
}

/// A repository named `name` asking for `ports` ports, with a recording setup and teardown, and
/// a range of `units` units from `first`.
fn project(sandbox: &Sandbox, name: &str, ports: &str, first: u16, units: u16) -> PathBuf {
    let repo = sandbox.repo(name);
    let out = out_dir(sandbox);
    sandbox.port_range(&repo, first, units);
    let teardown = format!(
        "env > {}/\"teardown-$WORKTREE_NAME.env\"; pwd -P > {}/\"teardown-$WORKTREE_NAME.pwd\"",
        sh_quote(out.to_str().unwrap()),
        sh_quote(out.to_str().unwrap())
    );
    sandbox.install(
        &repo,
        &[
            "--setup",
            &recorder(&out),
            "--teardown",
            &teardown,
            "--ports",
            ports,
        ],
    );
    sandbox.commit_all(&repo, "hooks");
    repo
}

/// (first, count) of a worktree's block as `list --json` shows it.
fn block(sandbox: &Sandbox, repo: &Path, name: &str) -> Option<(u16, u16)> {
    let row = sandbox.list_row(repo, name);
    let ports = &row["ports"];
    if ports.is_null() {
        return None;
    }
    Some((
        ports["first"].as_u64().unwrap() as u16,
        ports["count"].as_u64().unwrap() as u16,
    ))
}

/// The `WORKTREE_PORT` and `WORKTREE_PORTS` the setup of `name` saw.
fn seen(sandbox: &Sandbox, name: &str) -> (u16, u16) {
    let env = read_env_file(&sandbox.root.join("out").join(format!("{name}.env")));
    (
        env["WORKTREE_PORT"].parse().unwrap(),
        env["WORKTREE_PORTS"].parse().unwrap(),
    )
}

/// Every entry of `ports.toml` as name → (common dir, first, units).
fn port_entries(sandbox: &Sandbox) -> BTreeMap<String, (String, u16, u16)> {
    let text = sandbox.ports_file();
    let value: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    value
        .get("block")
        .and_then(|b| b.as_array())
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|b| {
            (
                b["name"].as_str().unwrap().to_owned(),
                (
                    b["common_dir"].as_str().unwrap().to_owned(),
                    b["first"].as_integer().unwrap() as u16,
                    b["units"].as_integer().unwrap() as u16,
                ),
            )
        })
        .collect()
}

/// No two of `blocks` (first, units) share a port.
fn assert_disjoint(blocks: &[(u16, u16)]) {
    for (i, a) in blocks.iter().enumerate() {
        for b in &blocks[i + 1..] {
            let (a_end, b_end) = (a.0 + a.1 * 10, b.0 + b.1 * 10);
            assert!(
                a_end <= b.0 || b_end <= a.0,
                "{a:?} and {b:?} overlap in {blocks:?}"
            );
        }
    }
}

#[test]
fn each_worktree_gets_the_lowest_free_run_and_its_hook_sees_the_port_list_shows() {
    let sandbox = Sandbox::new();
    let r = ports_at(0);
    let repo = project(&sandbox, "repo", "15", r, 10);
    sandbox.add(&repo, &["a"]);
    sandbox.add(&repo, &["b"]);
    assert_eq!(block(&sandbox, &repo, "a"), Some((r, 15)));
    assert_eq!(
        block(&sandbox, &repo, "b"),
        Some((r + 20, 15)),
        "15 ports take two whole units"
    );
    assert_eq!(seen(&sandbox, "a"), (r, 15));
    assert_eq!(seen(&sandbox, "b"), (r + 20, 15));
    let full = sandbox.berth_ok(&repo, &["list", "--full"]);
    let rows = table_rows(&full);
    let (_, a) = rows.iter().find(|(_, row)| row["NAME"] == "a").unwrap();
    assert_eq!(a["PORTS"], format!("{r}-{}", r + 14), "{full}");

    let entries = port_entries(&sandbox);
    let common = sandbox.common_dir(&repo).display().to_string();
    assert_eq!(entries["a"], (common.clone(), r, 2));
    assert_eq!(entries["b"], (common, r + 20, 2));
}

#[test]
fn the_primary_checkout_gets_no_block() {
    let sandbox = Sandbox::new();
    let repo = project(&sandbox, "repo", "10", ports_at(1), 10);
    sandbox.add(&repo, &["a"]);
    let rows = sandbox.list_rows(&repo, true);
    let primary = rows.iter().find(|r| r["kind"] == "primary").unwrap();
    assert_eq!(primary["ports"], serde_json::Value::Null);
    let entries = port_entries(&sandbox);
    assert_eq!(entries.keys().collect::<Vec<_>>(), ["a"]);
}

#[test]
fn a_unit_where_something_listens_on_127_0_0_1_is_skipped() {
    let sandbox = Sandbox::new();
    let r = ports_at(2);
    let repo = project(&sandbox, "repo", "20", r, 10);
    // Units 0 and 2 are busy: the first run of two free units starts at unit 3.
    let _one = TcpListener::bind(("127.0.0.1", r + 3)).unwrap();
    let _two = TcpListener::bind(("127.0.0.1", r + 29)).unwrap();
    sandbox.add(&repo, &["a"]);
    assert_eq!(block(&sandbox, &repo, "a"), Some((r + 30, 20)));
    assert_eq!(seen(&sandbox, "a"), (r + 30, 20));
    // The listeners were only connected to: they still hold their ports.
    assert!(TcpListener::bind(("127.0.0.1", r + 3)).is_err());
}

#[test]
fn a_unit_where_something_listens_on_ipv6_loopback_is_skipped() {
    let sandbox = Sandbox::new();
    let r = ports_at(3);
    let Ok(_listener) = TcpListener::bind(("::1", r + 5)) else {
        eprintln!("no IPv6 loopback on this machine; nothing to show");
        return;
    };
    let repo = project(&sandbox, "repo", "10", r, 10);
    sandbox.add(&repo, &["a"]);
    assert_eq!(block(&sandbox, &repo, "a"), Some((r + 10, 10)));
}

#[test]
fn two_clones_on_one_machine_never_share_a_block() {
    let sandbox = Sandbox::new();
    let r = ports_at(4);
    let one = project(&sandbox, "one", "20", r, 20);
    let two = project(&sandbox, "two", "20", r, 20);
    for i in 0..3 {
        sandbox.add(&one, &[&format!("w{i}")]);
        sandbox.add(&two, &[&format!("w{i}")]);
    }
    let mut blocks = Vec::new();
    for repo in [&one, &two] {
        for i in 0..3 {
            let (first, count) = block(&sandbox, repo, &format!("w{i}")).unwrap();
            assert_eq!(count, 20);
            blocks.push((first, 2));
        }
    }
    assert_disjoint(&blocks);
    let mut firsts: Vec<u16> = blocks.iter().map(|b| b.0).collect();
    firsts.sort();
    assert_eq!(
        firsts,
        (0..6).map(|i| r + i * 20).collect::<Vec<_>>(),
        "packed lowest first"
    );
    let text = sandbox.ports_file();
    for repo in [&one, &two] {
        let common = sandbox.common_dir(repo).display().to_string();
        assert_eq!(
            text.matches(&format!("common_dir = \"{common}\"")).count(),
            3,
            "{text}"
        );
    }
}

#[test]
fn remove_frees_a_block_and_the_next_add_reuses_the_lowest() {
    let sandbox = Sandbox::new();
    let r = ports_at(5);
    let repo = project(&sandbox, "repo", "20", r, 10);
    for name in ["a", "b", "c"] {
        sandbox.add(&repo, &[name]);
    }
    sandbox.berth_ok(&repo, &["remove", "b"]);
    assert!(!port_entries(&sandbox).contains_key("b"));
    sandbox.add(&repo, &["d"]);
    assert_eq!(block(&sandbox, &repo, "d"), Some((r + 20, 20)));
    sandbox.berth_ok(&repo, &["remove", "a"]);
    sandbox.add(&repo, &["e"]);
    assert_eq!(block(&sandbox, &repo, "e"), Some((r, 20)));
    assert_eq!(block(&sandbox, &repo, "c"), Some((r + 40, 20)), "untouched");
}

#[test]
fn a_gone_worktrees_block_is_taken_over_after_its_teardown_ran() {
    let sandbox = Sandbox::new();
    let r = ports_at(6);
    let repo = project(&sandbox, "repo", "20", r, 10);
    let gone = sandbox.add(&repo, &["gone"]);
    sandbox.add(&repo, &["kept"]);
    std::fs::remove_dir_all(&gone).unwrap();

    sandbox.add(&repo, &["next"]);
    assert_eq!(block(&sandbox, &repo, "next"), Some((r, 20)));
    let out = sandbox.root.join("out");
    let env = read_env_file(&out.join("teardown-gone.env"));
    assert_eq!(env["WORKTREE_NAME"], "gone");
    assert_eq!(env["WORKTREE_PORT"], r.to_string());
    assert_eq!(
        std::fs::read_to_string(out.join("teardown-gone.pwd"))
            .unwrap()
            .trim_end(),
        repo.display().to_string(),
        "the gone worktree's teardown runs in its primary checkout"
    );
    let entries = port_entries(&sandbox);
    assert!(!entries.contains_key("gone"), "{entries:?}");
    assert_eq!(entries["next"].1, r);
    assert_eq!(entries["kept"].1, r + 20);
}

#[test]
fn after_a_takeover_list_no_longer_shows_the_block_on_the_gone_worktree() {
    let sandbox = Sandbox::new();
    let r = ports_at(11);
    let repo = project(&sandbox, "repo", "10", r, 10);
    let gone = sandbox.add(&repo, &["gone"]);
    std::fs::remove_dir_all(&gone).unwrap();
    sandbox.add(&repo, &["next"]);
    assert_eq!(block(&sandbox, &repo, "next"), Some((r, 10)));
    // Its teardown ran when its block was taken over: it is forgotten, as prune would.
    let rows = sandbox.list_rows(&repo, false);
    assert!(
        rows.iter().all(|r| r["name"] != "gone"),
        "the gone worktree is forgotten, so no two rows show one block: {rows:?}"
    );
}

#[test]
fn prune_frees_the_blocks_of_a_clone_since_deleted() {
    let sandbox = Sandbox::new();
    let r = ports_at(7);
    let doomed = project(&sandbox, "doomed", "20", r, 10);
    let other = project(&sandbox, "other", "20", r, 10);
    let wt = sandbox.add(&doomed, &["x"]);
    std::fs::remove_dir_all(&wt).unwrap();
    std::fs::remove_dir_all(&doomed).unwrap();
    assert!(port_entries(&sandbox).contains_key("x"));

    let printed = sandbox.berth_ok(&other, &["prune"]);
    assert!(
        printed.contains(&format!("freed ports {r}-{} of 'x'", r + 19)),
        "{printed}"
    );
    assert!(!port_entries(&sandbox).contains_key("x"));
    sandbox.add(&other, &["y"]);
    assert_eq!(block(&sandbox, &other, "y"), Some((r, 20)));
}

#[test]
fn asking_for_more_ports_than_the_range_holds_refuses_naming_clean_and_the_port_range() {
    let sandbox = Sandbox::new();
    let repo = project(&sandbox, "repo", "20", ports_at(8), 1);
    let before = sandbox.state(&repo);
    let err = sandbox.berth_err(&repo, &["add", "big"]);
    assert!(err.contains("git berth clean"), "{err}");
    assert!(err.contains("berth.portRange"), "{err}");
    let after = sandbox.state(&repo);
    assert_eq!(after.worktrees, before.worktrees);
    assert_eq!(after.refs, before.refs);
    assert_eq!(after.admin_entries, before.admin_entries);
    assert!(sandbox.list_rows(&repo, false).is_empty());
    assert!(!sandbox.root.join("out/big.env").exists());
}

#[test]
fn a_second_worktree_in_a_one_unit_range_is_refused_and_nothing_is_made() {
    let sandbox = Sandbox::new();
    let r = ports_at(9);
    let repo = project(&sandbox, "repo", "10", r, 1);
    sandbox.add(&repo, &["a"]);
    // `a` holds uncommitted work, so `clean` would keep it.
    let wt = PathBuf::from(sandbox.list_row(&repo, "a")["path"].as_str().unwrap());
    std::fs::write(wt.join("wip.txt"), "work\n").unwrap();
    let err = sandbox.berth_err(&repo, &["add", "b"]);
    assert!(
        err.contains("git berth clean") && err.contains("berth.portRange"),
        "{err}"
    );
    assert!(!sandbox.has_branch(&repo, "berth/b"));
    assert_eq!(git_worktrees(&sandbox, &repo).len(), 2);
    assert_eq!(sandbox.list_rows(&repo, false).len(), 1);
    assert_eq!(block(&sandbox, &repo, "a"), Some((r, 10)));
}

#[test]
fn with_no_run_free_add_first_removes_worktrees_that_clean_would_remove() {
    let sandbox = Sandbox::new();
    let r = ports_at(10);
    let repo = project(&sandbox, "repo", "10", r, 1);
    let landed = sandbox.add(&repo, &["landed"]);
    sandbox.berth_ok(&repo, &["release", "landed"]);
    let dry = sandbox.berth_ok(&repo, &["clean", "--dry-run"]);
    assert!(dry.contains("would remove landed"), "{dry}");

    sandbox.add(&repo, &["fresh"]);
    assert!(!landed.exists(), "the landed worktree made room");
    assert!(
        sandbox.root.join("out/teardown-landed.env").exists(),
        "it was torn down as remove would"
    );
    assert_eq!(block(&sandbox, &repo, "fresh"), Some((r, 10)));
    assert!(
        sandbox.has_branch(&repo, "berth/landed"),
        "its branch is kept"
    );

    // `fresh` is claimed (by this session): nothing more can be made room for.
    let err = sandbox.berth_err(&repo, &["add", "third"]);
    assert!(
        err.contains("git berth clean") && err.contains("berth.portRange"),
        "{err}"
    );
    assert_eq!(block(&sandbox, &repo, "fresh"), Some((r, 10)));
}

#[test]
fn sixteen_concurrent_adds_get_sixteen_distinct_blocks() {
    let sandbox = Sandbox::new();
    let r = ports_at(13);
    let repo = project(&sandbox, "repo", "20", r, 40);
    let children: Vec<_> = (0..16)
        .map(|i| {
            sandbox
                .berth_command(&repo, &["add", &format!("w{i:02}")])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", outputs(&out));
    }
    let mut blocks = Vec::new();
    for i in 0..16 {
        let name = format!("w{i:02}");
        let (first, count) = block(&sandbox, &repo, &name).expect("a block");
        assert_eq!(count, 20);
        assert_eq!(
            seen(&sandbox, &name),
            (first, 20),
            "{name}'s hook saw its own block"
        );
        blocks.push((first, 2));
    }
    assert_disjoint(&blocks);
    let mut firsts: Vec<u16> = blocks.iter().map(|b| b.0).collect();
    firsts.sort();
    assert_eq!(firsts, (0..16).map(|i| r + i * 20).collect::<Vec<_>>());
    assert_eq!(port_entries(&sandbox).len(), 16);
}

#[test]
fn setup_after_the_ports_hook_changes_resizes_or_frees_the_block() {
    let sandbox = Sandbox::new();
    let r = ports_at(12);
    let repo = project(&sandbox, "repo", "10", r, 10);
    let a = sandbox.add(&repo, &["a"]);
    sandbox.add(&repo, &["b"]);
    assert_eq!(block(&sandbox, &repo, "a"), Some((r, 10)));
    assert_eq!(block(&sandbox, &repo, "b"), Some((r + 10, 10)));

    // Grow: three units do not fit below b, so a moves past it.
    sandbox.install(&a, &["--ports", "30"]);
    sandbox.berth_ok(&repo, &["setup", "a"]);
    assert_eq!(block(&sandbox, &repo, "a"), Some((r + 20, 30)));
    assert_eq!(seen(&sandbox, "a"), (r + 20, 30));
    assert_eq!(port_entries(&sandbox)["a"].2, 3);

    // Shrink: the lowest free unit is the one a left.
    sandbox.install(&a, &["--ports", "5"]);
    sandbox.berth_ok(&repo, &["setup", "a"]);
    assert_eq!(block(&sandbox, &repo, "a"), Some((r, 5)));
    assert_eq!(seen(&sandbox, "a"), (r, 5));

    // No ports hook any more: the block is freed and the hook sees no port.
    std::fs::remove_file(a.join(".worktree-hooks/ports")).unwrap();
    sandbox.berth_ok(&repo, &["setup", "a"]);
    assert_eq!(block(&sandbox, &repo, "a"), None);
    assert!(!port_entries(&sandbox).contains_key("a"));
    let env = read_env_file(&sandbox.root.join("out/a.env"));
    assert!(!env.contains_key("WORKTREE_PORT"), "{env:?}");
    assert_eq!(block(&sandbox, &repo, "b"), Some((r + 10, 10)));
}

#[test]
fn a_gone_worktree_whose_block_was_taken_over_is_torn_down_only_once() {
    let sandbox = Sandbox::new();
    let r = 65400; // past slot 13's 400 ports and benches/hooks.sh's 65200-65299
    let repo = sandbox.repo("repo");
    let log = sandbox.root.join("teardowns");
    sandbox.port_range(&repo, r, 1);
    let teardown = format!(
        "echo \"$WORKTREE_NAME $WORKTREE_PORT\" >> {}",
        sh_quote(log.to_str().unwrap())
    );
    sandbox.install(&repo, &["--teardown", &teardown, "--ports", "10"]);
    sandbox.commit_all(&repo, "hooks");
    let gone = sandbox.add(&repo, &["gone"]);
    std::fs::remove_dir_all(&gone).unwrap();
    sandbox.add(&repo, &["next"]);
    assert_eq!(block(&sandbox, &repo, "next"), Some((r, 10)));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!("gone {r}\n")
    );

    sandbox.berth_ok(&repo, &["prune"]);
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!("gone {r}\n"),
        "a second teardown of 'gone' would act on the ports 'next' now holds"
    );
}
