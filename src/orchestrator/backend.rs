//! Which terminal an agent opens in, and the exact command lines berth hands it: tmux (a window,
//! a split, a respawn, typed input), herdr 0.8 (a tab, a split, `pane run`) or none. Pure: the
//! environment is read by the caller into [`Seen`], and `terminal.rs` runs what is planned here.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::error::refuse_with_hint;
use crate::names;

/// tmux's own variables: the server's socket (and more) in panes it runs, and the pane.
pub const TMUX: &str = "TMUX";
pub const TMUX_PANE: &str = "TMUX_PANE";
/// herdr's: `1` in panes it runs, and the pane's id.
pub const HERDR_ENV: &str = "HERDR_ENV";
pub const HERDR_PANE_ID: &str = "HERDR_PANE_ID";

/// The terminal kinds live with the agent record that names them (the state layer).
pub use crate::registry::Backend;

/// What the environment says about the terminals.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// `$TMUX`: berth runs inside tmux.
    pub tmux: Option<String>,
    pub tmux_pane: Option<String>,
    /// `HERDR_ENV=1`: berth runs inside herdr.
    pub herdr: bool,
    pub herdr_pane: Option<String>,
    pub tmux_installed: bool,
    pub herdr_installed: bool,
}

/// The backend: the one asked for, else herdr inside herdr, tmux inside tmux, tmux in a
/// detached session where tmux is installed, else none. One asked for that cannot work is
/// refused.
pub fn choose(seen: &Seen, asked: Option<Backend>) -> Result<Backend> {
    match asked {
        Some(Backend::Herdr) if !(seen.herdr && seen.herdr_installed) => Err(refuse_with_hint(
            "--backend herdr needs berth to run inside herdr (HERDR_ENV=1) with herdr on PATH",
            "run it from a herdr pane, or use --backend tmux",
        )),
        Some(Backend::Tmux) if !seen.tmux_installed => Err(refuse_with_hint(
            "--backend tmux needs tmux on PATH",
            "install tmux, or use --here to run the agent in this terminal",
        )),
        Some(backend) => Ok(backend),
        None if seen.herdr && seen.herdr_installed => Ok(Backend::Herdr),
        None if seen.tmux_installed => Ok(Backend::Tmux),
        None => Ok(Backend::None),
    }
}

/// The socket of the tmux server `$TMUX` names (its first comma-separated field).
pub fn tmux_socket(tmux: &str) -> Option<PathBuf> {
    let path = tmux.split(',').next().filter(|p| !p.is_empty())?;
    Some(PathBuf::from(path))
}

/// The detached session berth opens outside tmux: `berth-<project>`, with what tmux does not
/// allow in a session name (`.` and `:`) made `-`.
pub fn tmux_session_name(project: &str) -> String {
    let name: String = project
        .chars()
        .map(|c| if c == '.' || c == ':' { '-' } else { c })
        .collect();
    format!("{}{name}", names::TMUX_SESSION_PREFIX)
}

/// What tmux prints for a pane it made: `<pane id> <pane pid> <socket>`.
pub const PANE_FORMAT: &str = "#{pane_id} #{pane_pid} #{socket_path}";

/// The start of every tmux command line: the server's socket, when known.
pub fn tmux(socket: Option<&Path>) -> Vec<String> {
    let mut out = vec!["tmux".to_owned()];
    if let Some(socket) = socket {
        out.push("-S".to_owned());
        out.push(socket.display().to_string());
    }
    out
}

/// Where a new tmux window goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Window {
    /// The current session of the caller's tmux client (`$TMUX_PANE` picks it).
    Current,
    /// A window in the detached session `name`, which exists.
    InSession(String),
    /// A new detached session `name`, whose first window it is.
    NewSession(String),
}

/// `new-window` (or `new-session`) running `argv` in `cwd`, named `title`; `focus` makes it the
/// current window, otherwise it opens behind the caller's.
pub fn tmux_tab(
    socket: Option<&Path>,
    at: &Window,
    title: &str,
    cwd: &Path,
    focus: bool,
    argv: &[String],
) -> Vec<String> {
    let mut out = tmux(socket);
    match at {
        Window::NewSession(name) => {
            out.extend(["new-session", "-d", "-s", name].map(str::to_owned));
        }
        Window::InSession(name) => {
            out.extend(["new-window", "-d", "-t", &format!("={name}:")].map(str::to_owned));
        }
        Window::Current => {
            out.push("new-window".to_owned());
            if !focus {
                out.push("-d".to_owned());
            }
        }
    }
    out.extend(["-n", title, "-c"].map(str::to_owned));
    out.push(cwd.display().to_string());
    out.extend(["-P", "-F", PANE_FORMAT, "--"].map(str::to_owned));
    out.extend(argv.iter().cloned());
    out
}

/// `split-window` beside `pane`, running `argv` in `cwd`; the caller's pane keeps the focus.
pub fn tmux_split(socket: Option<&Path>, pane: &str, cwd: &Path, argv: &[String]) -> Vec<String> {
    let mut out = tmux(socket);
    out.extend(["split-window", "-h", "-d", "-t", pane, "-c"].map(str::to_owned));
    out.push(cwd.display().to_string());
    out.extend(["-P", "-F", PANE_FORMAT, "--"].map(str::to_owned));
    out.extend(argv.iter().cloned());
    out
}

/// Keep `pane` open when its process ends, so that it can be respawned after a graceful stop.
pub fn tmux_hold(socket: Option<&Path>, pane: &str) -> Vec<String> {
    let mut out = tmux(socket);
    out.extend(["set-option", "-p", "-t", pane, "remain-on-exit", "on"].map(str::to_owned));
    out
}

/// Run `argv` in `pane` again, in `cwd` (`-k` ends whatever still runs there), let the pane
/// close with its process again, and print the new process's pid.
pub fn tmux_respawn(socket: Option<&Path>, pane: &str, cwd: &Path, argv: &[String]) -> Vec<String> {
    let mut out = tmux(socket);
    out.extend(["respawn-pane", "-k", "-t", pane, "-c"].map(str::to_owned));
    out.push(cwd.display().to_string());
    out.push("--".to_owned());
    out.extend(argv.iter().cloned());
    out.extend([";", "set-option", "-p", "-u", "-t", pane, "remain-on-exit"].map(str::to_owned));
    out.extend([";", "display-message", "-p", "-t", pane, PANE_FORMAT].map(str::to_owned));
    out
}

/// Type `text` into `pane` as it is (`-l`: no key names), then Enter.
pub fn tmux_send(socket: Option<&Path>, pane: &str, text: &str) -> Vec<String> {
    let mut out = tmux(socket);
    out.extend(["send-keys", "-t", pane, "-l", "--", text].map(str::to_owned));
    out.extend([";", "send-keys", "-t", pane, "Enter"].map(str::to_owned));
    out
}

/// Bring `pane` to the front of its session: its window selected, and the pane in its window.
pub fn tmux_focus(socket: Option<&Path>, pane: &str) -> Vec<String> {
    let mut out = tmux(socket);
    out.extend(["select-window", "-t", pane, ";"].map(str::to_owned));
    out.extend(["select-pane", "-t", pane].map(str::to_owned));
    out
}

/// Switch the tmux client that runs the caller to `pane`'s session (it fails where no client is
/// attached, which the caller may ignore: the pane is in front of its session all the same).
pub fn tmux_switch_client(socket: Option<&Path>, pane: &str) -> Vec<String> {
    let mut out = tmux(socket);
    out.extend(["switch-client", "-t", pane].map(str::to_owned));
    out
}

/// `herdr agent focus`: bring the tab holding `pane` to the front and focus the pane (herdr's
/// documented way to show one agent's pane; a tab focus also switches the workspace).
pub fn herdr_focus(pane: &str) -> Vec<String> {
    ["herdr", "agent", "focus", pane]
        .map(str::to_owned)
        .to_vec()
}

/// `herdr tab create` in `cwd`, labelled `title`, with the agent's variables; it prints JSON
/// with the new tab's root pane (`.result.root_pane.pane_id`).
pub fn herdr_tab(title: &str, cwd: &Path, env: &[String], focus: bool) -> Vec<String> {
    let mut out: Vec<String> = ["herdr", "tab", "create", "--cwd"]
        .map(str::to_owned)
        .into();
    out.push(cwd.display().to_string());
    out.extend(["--label", title].map(str::to_owned));
    push_env(&mut out, env);
    out.push(if focus { "--focus" } else { "--no-focus" }.to_owned());
    out
}

/// `herdr pane split` of `pane` to the right, in `cwd`; it prints `.result.pane.pane_id`.
pub fn herdr_split(pane: &str, cwd: &Path, env: &[String]) -> Vec<String> {
    let mut out: Vec<String> = [
        "herdr",
        "pane",
        "split",
        "--pane",
        pane,
        "--direction",
        "right",
        "--cwd",
    ]
    .map(str::to_owned)
    .into();
    out.push(cwd.display().to_string());
    push_env(&mut out, env);
    out.push("--no-focus".to_owned());
    out
}

fn push_env(out: &mut Vec<String>, env: &[String]) {
    for pair in env {
        out.push("--env".to_owned());
        out.push(pair.clone());
    }
}

/// `herdr pane run`: type `line` into `pane`'s shell and press Enter, in one step.
pub fn herdr_run(pane: &str, line: &str) -> Vec<String> {
    ["herdr", "pane", "run", pane, line]
        .map(str::to_owned)
        .into()
}

/// The shell line a herdr pane runs: go to `cwd`, write the agent's pid to `pid_file` (herdr
/// does not report a pane's process), then become `argv`.
pub fn herdr_line(cwd: &Path, pid_file: &Path, argv: &[String]) -> String {
    let mut words = vec![
        "sh".to_owned(),
        "-c".to_owned(),
        r#"echo $$ > "$0" && exec "$@""#.to_owned(),
        pid_file.display().to_string(),
    ];
    words.extend(argv.iter().cloned());
    format!(
        "cd {} && {}",
        shell_words::quote(&cwd.display().to_string()),
        shell_words::join(&words)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn herdr_inside_herdr_then_tmux_then_none() {
        let mut seen = Seen {
            tmux_installed: true,
            herdr_installed: true,
            ..Seen::default()
        };
        assert_eq!(choose(&seen, None).unwrap(), Backend::Tmux);
        seen.herdr = true;
        assert_eq!(choose(&seen, None).unwrap(), Backend::Herdr);
        assert_eq!(choose(&seen, Some(Backend::Tmux)).unwrap(), Backend::Tmux);
        let bare = Seen::default();
        assert_eq!(choose(&bare, None).unwrap(), Backend::None);
        assert!(choose(&bare, Some(Backend::Herdr)).is_err());
        assert!(choose(&bare, Some(Backend::Tmux)).is_err());
    }

    #[test]
    fn the_tmux_socket_is_the_first_field_of_tmux() {
        assert_eq!(
            tmux_socket("/tmp/tmux-1000/default,4121,0"),
            Some(PathBuf::from("/tmp/tmux-1000/default"))
        );
        assert_eq!(tmux_socket(""), None);
        assert_eq!(tmux_session_name("my.app"), "berth-my-app");
    }

    #[test]
    fn a_layer_1_window_opens_behind_with_its_cwd_and_reports_its_pane() {
        let sock = Path::new("/s");
        let argv = s(&["env", "sh"]);
        assert_eq!(
            tmux_tab(
                Some(sock),
                &Window::Current,
                "a",
                Path::new("/w/a"),
                false,
                &argv
            ),
            s(&[
                "tmux",
                "-S",
                "/s",
                "new-window",
                "-d",
                "-n",
                "a",
                "-c",
                "/w/a",
                "-P",
                "-F",
                PANE_FORMAT,
                "--",
                "env",
                "sh"
            ])
        );
        assert_eq!(
            tmux_tab(
                None,
                &Window::InSession("berth-r".into()),
                "a",
                Path::new("/w"),
                false,
                &argv
            )[1..5],
            s(&["new-window", "-d", "-t", "=berth-r:"])
        );
        assert_eq!(
            tmux_tab(
                None,
                &Window::NewSession("berth-r".into()),
                "a",
                Path::new("/w"),
                false,
                &argv
            )[1..5],
            s(&["new-session", "-d", "-s", "berth-r"])
        );
    }

    #[test]
    fn respawn_and_send_are_one_tmux_call_each() {
        let line = tmux_respawn(None, "%3", Path::new("/w/b"), &s(&["sh"]));
        assert_eq!(
            line[1..7],
            s(&["respawn-pane", "-k", "-t", "%3", "-c", "/w/b"])
        );
        assert!(line.contains(&"remain-on-exit".to_owned()));
        assert_eq!(
            tmux_send(None, "%3", "-n hi"),
            s(&[
                "tmux",
                "send-keys",
                "-t",
                "%3",
                "-l",
                "--",
                "-n hi",
                ";",
                "send-keys",
                "-t",
                "%3",
                "Enter"
            ])
        );
    }

    #[test]
    fn herdr_gets_a_tab_with_cwd_and_env_and_a_shell_line_that_records_the_pid() {
        assert_eq!(
            herdr_tab("a", Path::new("/w/a"), &s(&["BERTH_AGENT_LAYER=1"]), false),
            s(&[
                "herdr",
                "tab",
                "create",
                "--cwd",
                "/w/a",
                "--label",
                "a",
                "--env",
                "BERTH_AGENT_LAYER=1",
                "--no-focus"
            ])
        );
        assert_eq!(
            herdr_split("p1", Path::new("/w/a"), &[]),
            s(&[
                "herdr",
                "pane",
                "split",
                "--pane",
                "p1",
                "--direction",
                "right",
                "--cwd",
                "/w/a",
                "--no-focus"
            ])
        );
        let line = herdr_line(
            Path::new("/w/my a"),
            Path::new("/r/a.pid"),
            &s(&["env", "x y"]),
        );
        assert_eq!(
            line,
            r#"cd '/w/my a' && sh -c 'echo $$ > "$0" && exec "$@"' /r/a.pid env 'x y'"#
        );
    }
}
