//! The completion scripts in `share/completions/` are generated from the clap definitions; this
//! test fails when they are stale. Regenerate with: BERTH_BLESS=1 cargo test --test it completions::
//! The bash script is also run the way bash runs it, through git's own completion.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use berth::commands::completions::{Shell, script};
use clap::CommandFactory as _;
use common::Sandbox;

fn share() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("share/completions")
}

#[test]
fn the_completion_scripts_match_the_command_line() {
    let mut stale = Vec::new();
    for shell in Shell::ALL {
        let path = share().join(shell.file_name());
        let fresh = script(shell, berth::cli::Cli::command());
        if std::env::var_os("BERTH_BLESS").is_some() {
            std::fs::create_dir_all(share()).unwrap();
            std::fs::write(&path, &fresh).unwrap();
            continue;
        }
        if std::fs::read_to_string(&path).unwrap_or_default() != fresh {
            stale.push(shell.file_name());
        }
    }
    assert!(
        stale.is_empty(),
        "share/completions/{stale:?} stale; regenerate with: BERTH_BLESS=1 cargo test --test it completions::"
    );
}

#[test]
fn the_command_prints_the_kept_scripts() {
    let sb = Sandbox::new();
    for (shell, name) in [
        (Shell::Bash, "bash"),
        (Shell::Zsh, "zsh"),
        (Shell::Fish, "fish"),
    ] {
        let printed = sb.berth_ok(&sb.root, &["completions", name]);
        assert_eq!(printed, script(shell, berth::cli::Cli::command()), "{name}");
    }
}

#[test]
fn completions_worktrees_names_the_managed_worktrees_and_is_offered_nowhere() {
    let sb = Sandbox::new();
    let repo = sb.repo("repo");
    sb.add(&repo, &["feat/a"]);
    sb.add(&repo, &["two"]);
    assert_eq!(
        sb.berth_ok(&repo, &["completions", "worktrees"]),
        "feat/a\ntwo\n"
    );
    let help = sb.berth_ok(&repo, &["help", "completions"]);
    assert!(
        help.contains("[possible values: bash, zsh, fish]"),
        "{help}"
    );
    let zsh = script(Shell::Zsh, berth::cli::Cli::command());
    assert!(
        zsh.contains(":(bash zsh fish)'"),
        "zsh offers the shells alone"
    );
}

/// `PATH` with the binary under test first, so the scripts' `git berth` runs it.
fn path_with_berth() -> std::ffi::OsString {
    std::env::join_paths(
        std::iter::once(common::berth_bin_dir()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .unwrap()
}

/// Where git's bash completion is installed, if it is.
fn git_bash_completion() -> Option<PathBuf> {
    [
        "/usr/share/bash-completion/completions/git",
        "/usr/share/git/completion/git-completion.bash",
        "/usr/local/etc/bash_completion.d/git-completion.bash",
        "/opt/homebrew/etc/bash_completion.d/git-completion.bash",
    ]
    .into_iter()
    .map(PathBuf::from)
    .find(|p| p.is_file())
}

/// What bash offers for `line` (ending in the word being completed), through git's completion
/// and the kept script, run in `dir` with the binary under test first on PATH.
fn complete(sb: &Sandbox, git_completion: &Path, dir: &Path, line: &str) -> Vec<String> {
    let program = r#"
source "$1"
source "$2"
COMP_LINE="$3"; COMP_POINT=${#COMP_LINE}
read -ra COMP_WORDS <<<"$COMP_LINE"
[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
complete_with=$(complete -p "${COMP_WORDS[0]}" | sed 's/.* -F \([^ ]*\) .*/\1/')
"$complete_with"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let mut cmd = Command::new("bash");
    sb.env(&mut cmd);
    let out = cmd
        .env("PATH", path_with_berth())
        .current_dir(dir)
        .args(["--norc", "--noprofile", "-c", program, "bash"])
        .arg(git_completion)
        .arg(share().join(Shell::Bash.file_name()))
        .arg(line)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::outputs(&out));
    common::stdout(&out)
        .lines()
        .map(|l| l.trim_end().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn bash_completes_git_berth_through_gits_own_completion() {
    let Some(git_completion) = git_bash_completion() else {
        eprintln!("skipped: git's bash completion is not installed here");
        return;
    };
    let sb = Sandbox::new();
    let repo = sb.repo("repo");
    sb.add(&repo, &["feat/a"]);
    sb.add(&repo, &["two"]);
    let at = |line: &str| complete(&sb, &git_completion, &repo, line);

    assert_eq!(at("git berth ad"), ["add"]);
    assert_eq!(at("git berth cl"), ["claim", "clean"]);
    assert_eq!(at("git berth path "), ["feat/a", "two"]);
    assert_eq!(at("git berth rm t"), ["two"]);
    assert_eq!(at("git berth remove --f"), ["--force"]);
    assert_eq!(at("git berth add --ba"), ["--base="]);
    assert!(at("git berth add --base ").contains(&"main".to_owned()));
    assert_eq!(
        at("git berth list --status "),
        ["available", "claimed", "stale"]
    );
    assert_eq!(at("git berth completions "), ["bash", "zsh", "fish"]);
    assert_eq!(at("git berth help gu"), ["guard"]);
    assert_eq!(at("git berth hook worktree-c"), ["worktree-create"]);
    assert_eq!(at("git berth init --runtime cl"), ["claude"]);
    assert_eq!(at("git berth spawn --runtime c"), ["claude", "codex"]);
    assert_eq!(at("git berth master o"), ["opencode"]);
    assert_eq!(
        at("git berth init --runtime claude,co"),
        ["claude,codex", "claude,copilot"]
    );
    // A command's own commands, then what each of them takes.
    assert_eq!(at("git berth review a"), ["approve"]);
    assert_eq!(at("git berth review approve "), ["feat/a", "two"]);
    assert_eq!(at("git berth review approve t"), ["two"]);
    assert_eq!(at("git berth review reject --n"), ["--note="]);
    assert_eq!(
        at("git-berth pa"),
        ["path"],
        "the binary's own name completes too"
    );
}

/// The first folder on `PATH` that holds `program`.
fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

#[test]
fn fish_completes_names_commands_and_values_where_clap_complete_leaves_them_out() {
    let Some(fish) = on_path("fish") else {
        common::skip("fish", "fish is not installed here");
        return;
    };
    let sb = Sandbox::new();
    let repo = sb.repo("repo");
    sb.add(&repo, &["feat/a"]);
    let config = sb.root.join("config");
    std::fs::create_dir_all(config.join("fish/completions")).unwrap();
    std::fs::copy(
        share().join(Shell::Fish.file_name()),
        config
            .join("fish/completions")
            .join(Shell::Fish.file_name()),
    )
    .unwrap();
    let path = path_with_berth();
    let at = |line: &str| -> Vec<String> {
        let mut cmd = Command::new(&fish);
        sb.env(&mut cmd);
        let out = cmd
            .env("PATH", &path)
            .env("XDG_CONFIG_HOME", &config)
            .current_dir(&repo)
            .args(["--no-config", "-c"])
            .arg(format!("set fish_complete_path {}/fish/completions $fish_complete_path; complete -C '{line}'", config.display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::outputs(&out));
        common::stdout(&out)
            .lines()
            .map(|l| l.split('\t').next().unwrap().to_owned())
            .collect()
    };
    assert_eq!(at("git-berth pat"), ["path"]);
    assert_eq!(at("git-berth path "), ["feat/a"]);
    assert_eq!(at("git-berth completions "), ["bash", "fish", "zsh"]);
    assert_eq!(at("git-berth help gua"), ["guard"]);
    assert_eq!(at("git-berth review approve "), ["feat/a"]);
}

#[test]
fn the_zsh_script_parses() {
    let Some(zsh) = on_path("zsh") else {
        common::skip("zsh", "zsh is not installed here");
        return;
    };
    let out = Command::new(zsh)
        .arg("-n")
        .arg(share().join(Shell::Zsh.file_name()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::outputs(&out));
    // Sourced by compinit, the script's last lines complete at once: every function they call
    // must be defined above them, or the first TAB fails with "command not found".
    let text = std::fs::read_to_string(share().join(Shell::Zsh.file_name())).unwrap();
    let runs = text
        .rfind("if [ \"$funcstack[1]\" = \"_git-berth\" ]")
        .unwrap();
    let helper = text.find("_git-berth_worktrees() {").unwrap();
    assert!(
        helper < runs,
        "the worktree-names helper comes after the call"
    );
    // `review approve <TAB>` offers worktree names, as `path <TAB>` does.
    let approve = &text[text.find("(approve)").unwrap()..];
    let approve = &approve[..approve.find(";;").unwrap()];
    assert!(approve.contains(":_git-berth_worktrees'"), "{approve}");
}

/// Record agents in `repo`'s registry as berth does when it launches them: each named agent
/// working in worktree `two`, run by `pid` (a process that has ended stands for a gone agent).
fn record_agents(sb: &Sandbox, repo: &Path, agents: &[(&str, u32)]) {
    let path = sb.registry_path(repo);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut text = text.replace("version = 1\n", "version = 2\n");
    let worktree = sb.list_row(repo, "two")["path"]
        .as_str()
        .unwrap()
        .to_owned();
    for (name, pid) in agents {
        let start = berth::process::start_time(*pid).unwrap_or(1);
        text.push_str(&format!(
            "\n[[agent]]\nname = \"{name}\"\nlayer = 1\nruntime = \"shell\"\nworktree = \"{worktree}\"\n\
             branch = \"berth/two\"\nbackend = \"none\"\npid = {pid}\npid_start = {start}\n\
             session = \"agent-{name}\"\nbase = [\"sh\"]\ncommand = [\"sh\"]\nstarted = 1\n"
        ));
    }
    std::fs::write(&path, text).unwrap();
}

#[test]
fn send_and_respawn_offer_live_agents_and_layer1_a_runtime_where_one_is_asked() {
    let sb = Sandbox::new();
    let repo = sb.repo("repo");
    sb.add(&repo, &["two"]);
    let live = common::Agent::spawn();
    let mut ended = common::Agent::spawn();
    let ended_pid = ended.pid();
    ended.kill();
    record_agents(&sb, &repo, &[("scout", live.pid()), ("gone", ended_pid)]);
    assert_eq!(sb.berth_ok(&repo, &["completions", "agents"]), "scout\n");
    // zsh is told the positionals in order, each with its own words.
    let zsh = script(Shell::Zsh, berth::cli::Cli::command());
    let layer1 = &zsh[zsh.find("(layer1)").unwrap()..];
    let layer1 = &layer1[..layer1.find(";;").unwrap()];
    let (name, branch, runtime) = (
        layer1.find("':name -- ").unwrap(),
        layer1.find("':branch -- ").unwrap(),
        layer1.find("'::runtime -- ").unwrap(),
    );
    assert!(name < branch && branch < runtime, "{layer1}");
    assert!(
        layer1.contains(":(opencode claude codex pi shell)'"),
        "{layer1}"
    );
    let send = &zsh[zsh.find("(send)").unwrap()..];
    assert!(
        send[..send.find(";;").unwrap()].contains(":_git-berth_agents'"),
        "{send}"
    );

    let Some(git_completion) = git_bash_completion() else {
        eprintln!("skipped: git's bash completion is not installed here");
        return;
    };
    let at = |line: &str| complete(&sb, &git_completion, &repo, line);
    assert_eq!(at("git berth send "), ["scout"]);
    assert_eq!(at("git berth send scout "), Vec::<String>::new());
    assert_eq!(at("git berth respawn s"), ["scout"]);
    assert_eq!(at("git berth stop "), ["scout"]);
    assert_eq!(at("git berth stop scout "), ["scout"], "stop takes several");
    assert_eq!(at("git berth layer1 "), ["two"]);
    assert_eq!(at("git berth layer1 x y c"), ["claude", "codex"]);
    assert_eq!(
        at("git berth layer1 --backend tmux x y o"),
        ["opencode"],
        "an option's value is no positional"
    );
    assert_eq!(at("git berth layer2 x s"), ["shell"]);
    assert!(
        at("git berth layer1 x ").iter().all(|w| w != "two"),
        "a branch is asked"
    );
}
