//! The files of `.worktree-hooks` (or the clone's own folder): where they live, what `install`
//! writes, and reading back what a hook file holds (the command, the number of ports). Every file
//! is checked before any is written, and each is replaced atomically.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};

use crate::names::MAX_PORTS;
use crate::{error, names, statefile};

/// `<checkout>/.worktree-hooks`.
pub fn checkout_dir(checkout: &Path) -> PathBuf {
    checkout.join(names::HOOKS_DIR)
}

/// `<common dir>/worktree-hooks`, where each hook replaces the committed one of its name.
pub fn local_dir(common_dir: &Path) -> PathBuf {
    common_dir.join(names::LOCAL_HOOKS_DIR)
}

/// `s` as one single-quoted `sh` word, whatever it holds: `'` becomes `'\''`.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The setup or teardown hook for `command`: the command shows as one line in a diff, and the
/// file runs on its own with `sh <hook>` or as an executable.
pub fn script(command: &str) -> String {
    format!(
        "#!/bin/sh\n\
         # Written by `{} install`; edit the command or install again. Runs without berth too.\n\
         command={}\n\
         exec sh -ec \"$command\"\n",
        names::TOOL,
        quote(command)
    )
}

/// The command a hook holds on its `command=` line, if it has one written as [`script`] writes it
/// (single-quoted parts and `\'`); `None` for a hook written by hand some other way.
pub fn parse_command(content: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(content).ok()?;
    let start = text
        .match_indices("command=")
        .map(|(at, _)| at)
        .find(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n')?;
    let mut chars = text[start + "command=".len()..].chars();
    let mut out = String::new();
    loop {
        match chars.next() {
            Some('\'') => loop {
                match chars.next()? {
                    '\'' => break,
                    c => out.push(c),
                }
            },
            Some('\\') => out.push(chars.next().filter(|&c| c != '\n')?),
            None | Some('\n') => return Some(out),
            Some(c) if c == ' ' || c == '\t' => {
                // Only a comment or nothing may follow the word on its line.
                let rest: String = chars.take_while(|&c| c != '\n').collect();
                let rest = rest.trim();
                return (rest.is_empty() || rest.starts_with('#')).then_some(out);
            }
            Some(_) => return None,
        }
    }
}

/// The number a `ports` hook holds: one whole number from 1 to [`MAX_PORTS`], blank lines and
/// surrounding space allowed. The error is one line, without the file's name.
pub fn parse_ports(text: &str) -> Result<u16, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("empty, not a whole number from 1 to {MAX_PORTS}"));
    }
    match text.parse::<u32>() {
        Ok(n)
            if (1..=u32::from(MAX_PORTS)).contains(&n)
                && text.bytes().all(|b| b.is_ascii_digit()) =>
        {
            Ok(n as u16)
        }
        _ => Err(format!(
            "'{}' is not a whole number from 1 to {MAX_PORTS}",
            text.escape_default()
        )),
    }
}

/// Write the hooks given into `dir` (the checkout's `.worktree-hooks` or the local folder) and
/// leave the others as they are. Everything is checked before anything is written; each file is
/// replaced atomically. Returns the paths written, in the order setup, teardown, ports.
/// `install` trusts what it writes: read the hooks back and pass them to `hooks::trust`.
pub fn install(
    dir: &Path,
    setup: Option<&str>,
    teardown: Option<&str>,
    ports: Option<u16>,
) -> Result<Vec<PathBuf>> {
    let mut files: Vec<(&str, Vec<u8>, u32)> = Vec::new();
    for (name, command) in [(names::HOOK_SETUP, setup), (names::HOOK_TEARDOWN, teardown)] {
        let Some(command) = command else { continue };
        if command.trim().is_empty() {
            return Err(error::refuse_with_hint(
                format!("the {name} command is empty"),
                format!("give the command to run, as in --{name} 'make {name}'"),
            ));
        }
        if command.contains('\0') {
            return Err(error::refuse(format!(
                "the {name} command holds a NUL byte, which no shell can run"
            )));
        }
        files.push((name, script(command).into_bytes(), 0o755));
    }
    if let Some(n) = ports {
        parse_ports(&n.to_string()).map_err(|reason| {
            error::refuse_with_hint(
                format!("--ports {n}: {reason}"),
                format!("ask for between 1 and {MAX_PORTS} ports, as in --ports 20"),
            )
        })?;
        files.push((names::HOOK_PORTS, format!("{n}\n").into_bytes(), 0o644));
    }
    if files.is_empty() {
        return Ok(Vec::new());
    }
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    for (name, bytes, mode) in files {
        let path = dir.join(name);
        statefile::write_atomic(&path, &bytes, Some(mode))?;
        written.push(path);
    }
    Ok(written)
}

/// Refuse a gate command no shell can run: empty, or holding a NUL byte.
pub fn check_gate(command: &str) -> Result<()> {
    if command.trim().is_empty() || command.contains('\0') {
        return Err(error::refuse_with_hint(
            "the gate command is empty or holds a NUL byte",
            "give the command that tests a landing, as in --gate 'make test'",
        ));
    }
    Ok(())
}

/// Write the gate hook for `command` into `dir`, as [`install`] writes setup: a plain `sh` script
/// holding the command. Returns its path; trusting it is the caller's part.
pub fn install_gate(dir: &Path, command: &str) -> Result<PathBuf> {
    check_gate(command)?;
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(names::HOOK_GATE);
    statefile::write_atomic(&path, script(command).as_bytes(), Some(0o755))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::testing::{checkout_hook, scratch};
    use std::os::unix::fs::PermissionsExt as _;
    use std::process::Command;

    fn sh(script: &Path, cwd: &Path) -> std::process::Output {
        Command::new("sh")
            .arg(script)
            .current_dir(cwd)
            .output()
            .unwrap()
    }

    #[test]
    fn a_command_with_quotes_dollars_backticks_and_newlines_survives_install() {
        let dir = scratch("quoting");
        let out = dir.join("out");
        let command = format!(
            "printf '%s\\n' \"it's\" '\"q\"' '$HOME' '`date`' \"a\nb\" > {}",
            quote(out.to_str().unwrap())
        );
        let written = install(&dir.join("hooks"), Some(&command), None, None).unwrap();
        assert_eq!(written, vec![dir.join("hooks").join("setup")]);
        let result = sh(&written[0], &dir);
        assert!(
            result.status.success(),
            "{}",
            String::from_utf8_lossy(&result.stderr)
        );
        assert_eq!(
            fs::read_to_string(&out).unwrap(),
            "it's\n\"q\"\n$HOME\n`date`\na\nb\n"
        );
        let content = fs::read(&written[0]).unwrap();
        assert_eq!(parse_command(&content).as_deref(), Some(command.as_str()));
        let mode = fs::metadata(&written[0]).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
    }

    #[test]
    fn an_installed_hook_runs_as_an_executable_with_sh_errexit() {
        let dir = scratch("exec");
        let written = install(&dir, None, Some("false; echo not reached"), None).unwrap();
        let out = Command::new(&written[0])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty());
    }

    #[test]
    fn install_writes_only_the_hooks_it_is_given() {
        let dir = scratch("leaves");
        install(&dir, Some("make setup"), Some("make down"), Some(20)).unwrap();
        let written = install(&dir, None, Some("docker compose down -v"), None).unwrap();
        assert_eq!(written, vec![dir.join("teardown")]);
        assert_eq!(
            parse_command(&fs::read(dir.join("setup")).unwrap()).as_deref(),
            Some("make setup")
        );
        assert_eq!(
            parse_command(&fs::read(dir.join("teardown")).unwrap()).as_deref(),
            Some("docker compose down -v")
        );
        assert_eq!(fs::read_to_string(dir.join("ports")).unwrap(), "20\n");
        assert!(install(&dir, None, None, None).unwrap().is_empty());
    }

    #[test]
    fn ports_must_be_a_whole_number_from_1_to_1000() {
        assert_eq!(parse_ports("20\n"), Ok(20));
        assert_eq!(parse_ports(" 1000 "), Ok(1000));
        for bad in [
            "0",
            "1001",
            "",
            "-3",
            "+5",
            "2.5",
            "ten",
            "20 30",
            "99999999999",
        ] {
            assert!(parse_ports(bad).is_err(), "{bad:?} was accepted");
        }
        let dir = scratch("ports");
        for bad in [0, 1001] {
            let err = install(&dir, Some("make"), None, Some(bad)).unwrap_err();
            assert!(err.to_string().contains("from 1 to 1000"), "{err}");
        }
        assert!(
            !dir.join("setup").exists(),
            "nothing is written when one option is bad"
        );
        let hook = checkout_hook("ports", "twenty\n");
        let err = hook.ports().unwrap_err().to_string();
        assert!(
            err.contains("/repo/.worktree-hooks/ports") && err.contains("'twenty'"),
            "{err}"
        );
    }

    #[test]
    fn an_empty_command_is_refused() {
        let dir = scratch("empty");
        assert!(install(&dir, Some("  "), None, None).is_err());
        assert!(!dir.join("setup").exists());
    }

    #[test]
    fn a_hand_written_hook_has_no_command_to_show() {
        assert_eq!(parse_command(b"#!/bin/sh\nmake setup\n"), None);
        assert_eq!(parse_command(b"command=\"make\"\n"), None);
        assert_eq!(
            parse_command(b"command='a'\\''b' # note\nexec x\n").as_deref(),
            Some("a'b")
        );
        assert_eq!(parse_command(b"# command='x'\n"), None);
    }
}
