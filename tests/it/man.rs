//! `man/git-berth.1` is generated from the clap definitions; this test fails when it is stale.
//! Regenerate with: BERTH_BLESS=1 cargo test --test it man::
//! The page the binary keeps beside itself is read by the real `man`, through the real `git`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use berth::commands::help::{MANUAL, Manual, install_manual};
use clap::CommandFactory as _;
use common::Sandbox;

type RenderPart = fn(&clap_mangen::Man, &mut dyn std::io::Write) -> std::io::Result<()>;

/// The whole page: the top command, then one subsection per command with its synopsis,
/// description and options, so `man git-berth` documents every flag.
fn render() -> String {
    let mut cmd = berth::cli::Cli::command();
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone()).title("GIT-BERTH");
    let mut page = Vec::new();
    man.render_title(&mut page).unwrap();
    man.render_name_section(&mut page).unwrap();
    man.render_synopsis_section(&mut page).unwrap();
    man.render_description_section(&mut page).unwrap();
    man.render_options_section(&mut page).unwrap();
    page.extend_from_slice(b".SH COMMANDS\n");
    for sub in cmd.get_subcommands() {
        section(&mut page, sub);
        // A command with commands of its own (`review approve`, `hook worktree-create`) documents
        // each, flags and all.
        for nested in sub.get_subcommands() {
            section(&mut page, nested);
        }
    }
    man.render_extra_section(&mut page).unwrap();
    man.render_version_section(&mut page).unwrap();
    String::from_utf8(page).unwrap()
}

/// One command's subsection: its synopsis, description, options and aliases.
fn section(page: &mut Vec<u8>, sub: &clap::Command) {
    let name = sub.get_bin_name().unwrap_or(sub.get_name()).to_owned();
    page.extend_from_slice(format!(".SS \"{name}\"\n").as_bytes());
    let sub_man = clap_mangen::Man::new(sub.clone());
    let parts: [RenderPart; 3] = [
        clap_mangen::Man::render_synopsis_section,
        clap_mangen::Man::render_description_section,
        clap_mangen::Man::render_options_section,
    ];
    for render_part in parts {
        let mut part = Vec::new();
        render_part(&sub_man, &mut part).unwrap();
        // Inside a subsection a section heading would restart the page; keep the text only.
        page.extend_from_slice(b".PP\n");
        for line in String::from_utf8(part).unwrap().lines() {
            if !line.starts_with(".SH ") {
                page.extend_from_slice(line.as_bytes());
                page.push(b'\n');
            }
        }
    }
    if !sub.get_visible_aliases().collect::<Vec<_>>().is_empty() {
        let aliases: Vec<_> = sub.get_visible_aliases().collect();
        page.extend_from_slice(format!(".PP\nAlias: {}\n", aliases.join(", ")).as_bytes());
    }
}

#[test]
fn the_man_page_matches_the_command_line() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man/git-berth.1");
    let fresh = render();
    if std::env::var_os("BERTH_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "man/git-berth.1 is stale; regenerate it with: BERTH_BLESS=1 cargo test --test it man::"
    );
}

#[test]
fn every_command_has_a_section_in_the_man_page() {
    let page = render();
    for sub in berth::cli::Cli::command().get_subcommands() {
        assert!(
            page.contains(&format!(".SS \"git berth {}\"", sub.get_name())),
            "no section for {}",
            sub.get_name()
        );
    }
}

// The manual beside the binary. `git berth --help` is git running `man git-berth`, so berth
// itself never sees it; every other run of berth puts the page where man looks for a binary in
// `<prefix>/bin`: `<prefix>/share/man/man1/git-berth.1`.

/// The first folder on `PATH` that holds `program`.
fn dir_of(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .find(|dir| dir.join(program).is_file())
}

/// `<root>/prefix/bin/git-berth`, a copy of the binary under test, as `cargo install` lays it out.
fn installed_copy(sb: &Sandbox) -> PathBuf {
    let bin = sb.root.join("prefix/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = bin.join("git-berth");
    std::fs::copy(env!("CARGO_BIN_EXE_git-berth"), &exe).unwrap();
    exe
}

/// Runs `cmd`, retrying while the kernel says the copied binary is busy: a process another test
/// thread forks while the copy is open for writing holds it open until it execs (ETXTBSY).
fn output(cmd: &mut Command) -> std::process::Output {
    for _ in 0..100 {
        match cmd.output() {
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::TXTBSY.raw_os_error()) => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            result => return result.unwrap(),
        }
    }
    panic!("{cmd:?} stayed busy");
}

#[test]
fn git_berth_help_opens_the_manual_after_the_readme_install_line_with_nothing_but_the_binary_on_path()
 {
    let (Some(man_dir), Some(git_dir)) = (dir_of("man"), dir_of("git")) else {
        common::skip(
            "man",
            "no `man` (or no `git`) on PATH; install man-db to run this test",
        );
        return;
    };
    let sb = Sandbox::new();
    let exe = installed_copy(&sb);
    let bin = exe.parent().unwrap().to_owned();
    // Only the new prefix and the folders of git and man: no MANPATH, no page anywhere else.
    let path =
        std::env::join_paths([bin, git_dir, man_dir, "/usr/bin".into(), "/bin".into()]).unwrap();
    let run = |program: &Path, args: &[&str]| {
        let mut cmd = Command::new(program);
        sb.env(&mut cmd);
        let out = output(
            cmd.env("PATH", &path)
                .env("MANPAGER", "cat")
                .env("PAGER", "cat")
                .env("MANWIDTH", "80")
                .current_dir(&sb.root)
                .args(args),
        );
        assert!(
            out.status.success(),
            "{program:?} {args:?}: {}",
            common::outputs(&out)
        );
        common::stdout(&out)
    };

    // The README's install line ends with this run, through git as a user types it.
    let version = run(Path::new("git"), &["berth", "--version"]);
    assert!(version.starts_with("git-berth "), "{version}");
    let page = sb.root.join("prefix/share/man/man1/git-berth.1");
    assert_eq!(std::fs::read_to_string(&page).unwrap(), MANUAL);

    let found = run(Path::new("man"), &["-w", "git-berth"]);
    assert_eq!(
        found.trim(),
        page.display().to_string(),
        "man finds the page through PATH"
    );
    let shown = run(Path::new("git"), &["berth", "--help"]);
    let first: Vec<&str> = shown
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .collect();
    assert!(first[0].starts_with("GIT-BERTH(1)"), "{shown}");
    assert_eq!(first[1], "NAME", "{shown}");
    assert!(
        first[2].trim().starts_with("git-berth - One worktree"),
        "{shown}"
    );
}

#[test]
fn the_manual_is_written_once_and_refreshed_when_it_differs() {
    let sb = Sandbox::new();
    let exe = installed_copy(&sb);
    let page = sb.root.join("prefix/share/man/man1/git-berth.1");
    assert_eq!(install_manual(&exe).unwrap(), Manual::Written(page.clone()));
    assert_eq!(install_manual(&exe).unwrap(), Manual::Current(page.clone()));
    std::fs::write(&page, ".TH GIT-BERTH 1 \"an older version\"\n").unwrap();
    assert_eq!(install_manual(&exe).unwrap(), Manual::Written(page.clone()));
    assert_eq!(std::fs::read_to_string(&page).unwrap(), MANUAL);
    let left: Vec<_> = std::fs::read_dir(page.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["git-berth.1"], "no temporary file is left behind");
}

#[test]
fn a_binary_outside_a_bin_folder_writes_no_manual() {
    let sb = Sandbox::new();
    let exe = sb.root.join("debug/git-berth");
    assert_eq!(install_manual(&exe).unwrap(), Manual::NoPlace);
    assert!(!sb.root.join("share").exists());
}

#[test]
fn a_manual_that_cannot_be_written_never_fails_the_command() {
    let sb = Sandbox::new();
    let exe = installed_copy(&sb);
    // A file where the folder would go stops the write even for root.
    std::fs::write(sb.root.join("prefix/share"), "").unwrap();
    assert!(install_manual(&exe).is_err());
    let mut cmd = Command::new(&exe);
    sb.env(&mut cmd);
    let out = output(cmd.arg("--version"));
    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(common::stderr(&out).is_empty(), "{}", common::outputs(&out));
}
