//! `git berth help [<command>]`, usage errors in berth's one-line form, and the manual page kept
//! beside the binary so that `git berth --help` (git runs `man git-berth`) finds it. Putting the
//! page in place is best effort: it must never fail or slow the command that runs it.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::error::Refusal;
use crate::names;

#[derive(Debug, clap::Args)]
pub struct HelpArgs {
    /// The command to explain (all of them when left out)
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// Prints the long help (what `--help` prints) of the named command, or of `git berth` itself.
/// `cmd` is the whole command line (`cli::Cli`), handed down so no command imports the face.
pub fn run(mut cmd: clap::Command, args: &HelpArgs, out: &mut dyn Write) -> Result<()> {
    cmd.build();
    let help = match &args.command {
        None => cmd.render_long_help(),
        Some(name) => match cmd.find_subcommand_mut(name) {
            Some(sub) => sub.render_long_help(),
            None => return Err(unknown_command(cmd, name).into()),
        },
    };
    write!(out, "{help}")?;
    Ok(())
}

/// `help lst` is refused as `git berth lst` would be, with clap's "did you mean".
fn unknown_command(mut cmd: clap::Command, name: &str) -> Refusal {
    match cmd.try_get_matches_from_mut([names::BIN, name]) {
        Err(err) if err.kind() == ErrorKind::InvalidSubcommand => usage_error(&err, None),
        _ => not_a_command(name).hint(see_the_commands()),
    }
}

fn not_a_command(name: &str) -> Refusal {
    Refusal::new(format!("'{name}' is not a {} command", names::TOOL))
}

fn see_the_commands() -> String {
    format!("see the commands with: {} help", names::TOOL)
}

/// A clap usage error in berth's form: one line saying what is wrong, and a hint: clap's
/// suggestion where it has one ("did you mean"), else the values it takes, else the usage.
/// Clap's own suggestion to pass an unknown flag after `--` is dropped: for `remove` that would
/// remove a worktree named like the flag. `command` is the command the line names, if any, for
/// errors clap gives no usage with.
pub fn usage_error(err: &clap::Error, command: Option<&str>) -> Refusal {
    let strings = |kind: ContextKind| -> Vec<String> {
        match err.get(kind) {
            Some(ContextValue::String(s)) => vec![s.clone()],
            Some(ContextValue::Strings(v)) => v.clone(),
            _ => Vec::new(),
        }
    };
    let quoted = |v: Vec<String>| -> Vec<String> { v.iter().map(|s| format!("'{s}'")).collect() };
    let message = match (err.kind(), strings(ContextKind::InvalidSubcommand).first()) {
        (ErrorKind::InvalidSubcommand, Some(name)) => not_a_command(name).message,
        _ => first_paragraph(&err.render().to_string()),
    };
    let suggested = [
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedArg,
        ContextKind::SuggestedValue,
    ]
    .into_iter()
    .map(|kind| quoted(strings(kind)))
    .find(|s| !s.is_empty());
    let hint = if let Some(suggested) = suggested {
        format!("did you mean {}?", suggested.join(" or "))
    } else if let values @ [_, ..] = strings(ContextKind::ValidValue).as_slice() {
        format!("possible values: {}", values.join(", "))
    } else if let values @ [_, ..] = strings(ContextKind::ValidSubcommand).as_slice() {
        format!("commands: {}", values.join(", "))
    } else if err.kind() == ErrorKind::InvalidSubcommand {
        see_the_commands()
    } else {
        usage_hint(err, command)
    };
    Refusal::new(message).hint(hint)
}

/// Clap's message without its `error: ` label, its indented detail lines (`<NAME>` of a missing
/// argument) folded onto the line, and its tips and value lists left to the hint.
fn first_paragraph(rendered: &str) -> String {
    let mut line = String::new();
    for part in rendered.lines().take_while(|l| !l.trim().is_empty()) {
        let part = part.trim();
        if part.starts_with("tip:") || part.starts_with('[') {
            continue;
        }
        let part = part.strip_prefix("error: ").unwrap_or(part);
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { ", " });
        }
        line.push_str(part);
    }
    line
}

/// `usage: git berth add [OPTIONS] <NAME> (more: git berth help add)`.
fn usage_hint(err: &clap::Error, command: Option<&str>) -> String {
    let usage = match err.get(ContextKind::Usage) {
        Some(ContextValue::StyledStr(s)) => s.to_string(),
        _ => String::new(),
    };
    let usage = usage.trim().trim_start_matches("Usage:").trim().to_owned();
    let more = match command {
        Some(command) => format!("{} help {command}", names::TOOL),
        None => format!("{} help", names::TOOL),
    };
    if usage.is_empty() {
        format!("see: {more}")
    } else {
        format!("usage: {usage} (more: {more})")
    }
}

/// The manual page, as `man/git-berth.1` holds it (generated from the clap definitions).
pub const MANUAL: &str = include_str!("../../man/git-berth.1");

/// What [`install_manual`] found or did.
#[derive(Debug, PartialEq, Eq)]
pub enum Manual {
    /// The page was missing or different, and has been written here.
    Written(PathBuf),
    /// The page there is this build's already.
    Current(PathBuf),
    /// The binary is not in a `<prefix>/bin` folder, so there is no place man would look.
    NoPlace,
}

/// Where man looks for the page of a binary in `<prefix>/bin`: man-db searches
/// `<dir>/../share/man` for every `<dir>` on `PATH`, so `~/.cargo/bin/git-berth` gets
/// `~/.cargo/share/man/man1/git-berth.1`. `None` when the binary is not in a `bin` folder.
pub fn manual_path(exe: &Path) -> Option<PathBuf> {
    let bin = exe.parent()?;
    if bin.file_name()? != "bin" {
        return None;
    }
    let prefix = bin.parent()?;
    Some(prefix.join(format!("share/man/man1/{}.1", names::BIN)))
}

/// Puts this build's manual page where man finds it for the binary at `exe`, when it is missing
/// or different (an upgrade). The write is atomic (a temporary file renamed over the page), so
/// a `man` running at the same time reads the old page or the new one.
pub fn install_manual(exe: &Path) -> std::io::Result<Manual> {
    let Some(page) = manual_path(exe) else {
        return Ok(Manual::NoPlace);
    };
    if std::fs::read(&page).is_ok_and(|have| have == MANUAL.as_bytes()) {
        return Ok(Manual::Current(page));
    }
    let dir = page.parent().expect("the page path has a folder");
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{}.1.{}.tmp", names::BIN, std::process::id()));
    let written = std::fs::write(&tmp, MANUAL).and_then(|()| std::fs::rename(&tmp, &page));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map(|()| Manual::Written(page))
}

/// [`install_manual`] for the running binary, ignoring every failure: a read-only prefix or an
/// unreadable `/proc/self/exe` only means `git berth --help` finds no page, as before.
pub fn install_manual_quietly() {
    if let Ok(exe) = std::env::current_exe() {
        let _ = install_manual(&exe);
    }
}
