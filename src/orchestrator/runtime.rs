//! Agent runtimes and their command lines: which program starts each one (git config
//! `berth.runtime.<name>.command`, else a built-in default), and how each one is handed the
//! worktree norms as standing instructions and the `--prompt` as its first message. Pure: the
//! caller reads the config and the environment and passes them in.

use std::path::Path;

use anyhow::Result;

use crate::error::{misconfigured, refuse_with_hint};
use crate::names;

/// The runtimes berth launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    Opencode,
    Claude,
    Codex,
    Pi,
    /// `$SHELL`, or the command given: for people and tests.
    Shell,
}

impl Runtime {
    pub const ALL: [Runtime; 5] = [
        Runtime::Opencode,
        Runtime::Claude,
        Runtime::Codex,
        Runtime::Pi,
        Runtime::Shell,
    ];

    /// The seed's default.
    pub const DEFAULT: Runtime = Runtime::Opencode;

    pub fn name(self) -> &'static str {
        match self {
            Runtime::Opencode => "opencode",
            Runtime::Claude => "claude",
            Runtime::Codex => "codex",
            Runtime::Pi => "pi",
            Runtime::Shell => "shell",
        }
    }

    /// The runtime `text` names, or a refusal that lists them.
    pub fn parse(text: &str) -> Result<Runtime> {
        Runtime::ALL
            .into_iter()
            .find(|r| r.name() == text)
            .ok_or_else(|| {
                refuse_with_hint(
                    format!("unknown runtime '{text}'"),
                    format!("name one of: {}", Runtime::names().join(", ")),
                )
            })
    }

    /// [`Runtime::parse`] of an optional name; none is the default.
    pub fn parse_or_default(text: Option<&str>) -> Result<Runtime> {
        text.map_or(Ok(Runtime::DEFAULT), Runtime::parse)
    }

    pub fn names() -> Vec<&'static str> {
        Runtime::ALL.iter().map(|r| r.name()).collect()
    }

    /// `berth.runtime.<name>.command`.
    pub fn config_key(self) -> String {
        format!(
            "{}{}{}",
            names::config::RUNTIME_PREFIX,
            self.name(),
            names::config::RUNTIME_SUFFIX
        )
    }
}

/// The command line that starts `runtime`: `configured` (the git config value, split as a shell
/// would split it) when there is one, else the program of the runtime's name; `shell` for the
/// shell runtime is `$SHELL`, else `sh`.
pub fn base_command(
    runtime: Runtime,
    configured: Option<&str>,
    shell: Option<&str>,
) -> Result<Vec<String>> {
    if let Some(line) = configured {
        let words = shell_words::split(line).map_err(|e| {
            misconfigured(
                format!("{} is not a command line: {e}", runtime.config_key()),
                format!(
                    "quote it as a shell would: git config {} 'my-agent --flag'",
                    runtime.config_key()
                ),
            )
        })?;
        if words.is_empty() {
            return Err(misconfigured(
                format!("{} is empty", runtime.config_key()),
                format!(
                    "set a command, or drop it: git config --unset {}",
                    runtime.config_key()
                ),
            ));
        }
        return Ok(words);
    }
    Ok(vec![match runtime {
        Runtime::Shell => shell.filter(|s| !s.is_empty()).unwrap_or("sh").to_owned(),
        other => other.name().to_owned(),
    }])
}

/// The norms an agent gets: their text, and the file berth wrote them to.
#[derive(Debug, Clone, Copy)]
pub struct Norms<'a> {
    pub text: &'a str,
    pub file: &'a Path,
}

/// What a launch adds to the base command: arguments, and environment variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// OpenCode reads its whole configuration, merged over its files, from this variable; its
/// `instructions` list names files it adds to every session's instructions.
const OPENCODE_CONFIG_CONTENT: &str = "OPENCODE_CONFIG_CONTENT";

/// The base command with the norms as standing instructions and the prompt as the first
/// message, each in the runtime's own way (README "Orchestrator" lists them):
/// - opencode: `OPENCODE_CONFIG_CONTENT={"instructions":["<norms file>"]}`, `--prompt <text>`;
/// - claude: `--append-system-prompt <norms>`, the prompt as its argument (interactive);
/// - codex: `-c developer_instructions=<norms as a TOML string>`, the prompt as its argument;
/// - pi: `--append-system-prompt <norms>`, the prompt as its argument;
/// - shell: `BERTH_AGENT_NORMS=<norms file>`, `BERTH_AGENT_PROMPT=<prompt>`.
///
/// A prompt that begins with `-` follows `--`, so it is never read as an option.
pub fn deliver(
    runtime: Runtime,
    base: &[String],
    norms: Norms<'_>,
    prompt: Option<&str>,
) -> Delivery {
    let mut argv = base.to_vec();
    let mut env = Vec::new();
    let positional = |argv: &mut Vec<String>, prompt: Option<&str>| {
        if let Some(prompt) = prompt {
            if prompt.starts_with('-') {
                argv.push("--".to_owned());
            }
            argv.push(prompt.to_owned());
        }
    };
    match runtime {
        Runtime::Opencode => {
            let config = serde_json::json!({ "instructions": [norms.file] });
            env.push((OPENCODE_CONFIG_CONTENT.to_owned(), config.to_string()));
            if let Some(prompt) = prompt {
                argv.push("--prompt".to_owned());
                argv.push(prompt.to_owned());
            }
        }
        Runtime::Claude | Runtime::Pi => {
            argv.push("--append-system-prompt".to_owned());
            argv.push(norms.text.to_owned());
            positional(&mut argv, prompt);
        }
        Runtime::Codex => {
            let value = toml::Value::String(norms.text.to_owned());
            argv.push("-c".to_owned());
            argv.push(format!("developer_instructions={value}"));
            positional(&mut argv, prompt);
        }
        Runtime::Shell => {
            env.push((
                names::env::AGENT_NORMS.to_owned(),
                norms.file.display().to_string(),
            ));
            if let Some(prompt) = prompt {
                env.push((names::env::AGENT_PROMPT.to_owned(), prompt.to_owned()));
            }
        }
    }
    Delivery { argv, env }
}

/// The base command in the runtime's own non-interactive mode, for an agent that runs headless
/// (a fleet's `background` agent): it does the prompt's task and exits, with the norms delivered
/// as [`deliver`] delivers them.
/// - claude: `--append-system-prompt <norms> -p <prompt>`;
/// - codex: `-c developer_instructions=<norms> exec <prompt>`;
/// - opencode: `run <prompt>`, the norms through `OPENCODE_CONFIG_CONTENT`;
/// - pi: `--append-system-prompt <norms> -p <prompt>`;
/// - shell: `sh -c <prompt>` (the prompt is the script), whatever the interactive shell is.
///
/// A prompt that begins with `-` follows `--`, so it is never read as an option.
pub fn deliver_headless(
    runtime: Runtime,
    base: &[String],
    norms: Norms<'_>,
    prompt: &str,
) -> Delivery {
    let mut out = deliver(runtime, base, norms, None);
    let positional = |argv: &mut Vec<String>| {
        if prompt.starts_with('-') {
            argv.push("--".to_owned());
        }
        argv.push(prompt.to_owned());
    };
    match runtime {
        Runtime::Claude | Runtime::Pi => {
            out.argv.push("-p".to_owned());
            positional(&mut out.argv);
        }
        Runtime::Codex => {
            out.argv.push("exec".to_owned());
            positional(&mut out.argv);
        }
        Runtime::Opencode => {
            out.argv.push("run".to_owned());
            positional(&mut out.argv);
        }
        Runtime::Shell => {
            out.argv = vec!["sh".to_owned(), "-c".to_owned(), prompt.to_owned()];
            out.env
                .push((names::env::AGENT_PROMPT.to_owned(), prompt.to_owned()));
        }
    }
    out
}

/// The master's command line: the base command, told to run as the `master` agent where
/// `git berth init --with-orchestrator` wrote its definition (`claude --agent master`,
/// `opencode --agent master`). Pi's master is a prompt template the person opens with `/master`.
pub fn master_command(runtime: Runtime, base: &[String], primary: &Path) -> Vec<String> {
    let mut argv = base.to_vec();
    let definition = match runtime {
        Runtime::Claude => Some(names::CLAUDE_MASTER_AGENT),
        Runtime::Opencode => Some(names::OPENCODE_MASTER_AGENT),
        _ => None,
    };
    if definition.is_some_and(|file| primary.join(file).is_file()) {
        argv.push("--agent".to_owned());
        argv.push(names::MASTER_AGENT.to_owned());
    }
    argv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norms() -> Norms<'static> {
        Norms {
            text: "Stay in /w/a.\nCommit on \"berth/a\".",
            file: Path::new("/r/.git/berth/agents/a.md"),
        }
    }

    fn s(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn an_unknown_runtime_is_refused_with_the_names_that_exist() {
        let err = Runtime::parse("gpt").unwrap_err();
        let (line, hint) = crate::error::render(&err);
        assert_eq!(line, "unknown runtime 'gpt'");
        assert_eq!(
            hint.unwrap(),
            "name one of: opencode, claude, codex, pi, shell"
        );
        assert_eq!(Runtime::parse_or_default(None).unwrap(), Runtime::Opencode);
    }

    #[test]
    fn the_configured_command_line_is_split_as_a_shell_splits_it() {
        assert_eq!(
            base_command(Runtime::Claude, Some("claude --model 'opus 4'"), None).unwrap(),
            s(&["claude", "--model", "opus 4"])
        );
        assert_eq!(
            base_command(Runtime::Codex, None, None).unwrap(),
            s(&["codex"])
        );
        assert_eq!(
            base_command(Runtime::Shell, None, Some("/bin/zsh")).unwrap(),
            s(&["/bin/zsh"])
        );
        assert_eq!(
            base_command(Runtime::Shell, None, None).unwrap(),
            s(&["sh"])
        );
        for bad in ["pi 'open", "  "] {
            let err = base_command(Runtime::Pi, Some(bad), None).unwrap_err();
            assert_eq!(
                crate::error::kind(&err),
                crate::error::Kind::Configuration,
                "{bad}"
            );
        }
        assert_eq!(Runtime::Pi.config_key(), "berth.runtime.pi.command");
    }

    #[test]
    fn a_headless_agent_runs_its_runtimes_non_interactive_mode_with_the_prompt() {
        let claude = deliver_headless(Runtime::Claude, &s(&["claude"]), norms(), "fix it");
        assert_eq!(
            claude.argv,
            s(&[
                "claude",
                "--append-system-prompt",
                norms().text,
                "-p",
                "fix it"
            ])
        );
        let pi = deliver_headless(Runtime::Pi, &s(&["pi"]), norms(), "-x");
        assert_eq!(pi.argv[3..], s(&["-p", "--", "-x"]));
        let codex = deliver_headless(Runtime::Codex, &s(&["codex"]), norms(), "go");
        assert_eq!(codex.argv[1], "-c");
        assert_eq!(codex.argv[3..], s(&["exec", "go"]));
        let opencode = deliver_headless(Runtime::Opencode, &s(&["opencode"]), norms(), "go");
        assert_eq!(opencode.argv, s(&["opencode", "run", "go"]));
        assert_eq!(opencode.env[0].0, "OPENCODE_CONFIG_CONTENT");
        let shell = deliver_headless(Runtime::Shell, &s(&["/bin/zsh"]), norms(), "echo hi");
        assert_eq!(shell.argv, s(&["sh", "-c", "echo hi"]));
        assert!(shell.env.iter().any(|(k, _)| k == "BERTH_AGENT_NORMS"));
    }

    #[test]
    fn each_runtime_gets_the_norms_and_the_prompt_its_own_way() {
        let claude = deliver(Runtime::Claude, &s(&["claude"]), norms(), Some("fix it"));
        assert_eq!(
            claude.argv,
            s(&["claude", "--append-system-prompt", norms().text, "fix it"])
        );
        assert!(claude.env.is_empty());

        let pi = deliver(Runtime::Pi, &s(&["pi"]), norms(), Some("-x first"));
        assert_eq!(
            pi.argv,
            s(&[
                "pi",
                "--append-system-prompt",
                norms().text,
                "--",
                "-x first"
            ])
        );

        let codex = deliver(Runtime::Codex, &s(&["codex"]), norms(), None);
        assert_eq!(codex.argv[..2], s(&["codex", "-c"]));
        let value = codex.argv[2]
            .strip_prefix("developer_instructions=")
            .unwrap();
        let parsed: toml::Table = toml::from_str(&format!("v = {value}")).unwrap();
        assert_eq!(parsed["v"].as_str(), Some(norms().text));

        let opencode = deliver(Runtime::Opencode, &s(&["opencode"]), norms(), Some("go"));
        assert_eq!(opencode.argv, s(&["opencode", "--prompt", "go"]));
        let (key, value) = &opencode.env[0];
        assert_eq!(key, "OPENCODE_CONFIG_CONTENT");
        let config: serde_json::Value = serde_json::from_str(value).unwrap();
        assert_eq!(config["instructions"][0], "/r/.git/berth/agents/a.md");

        let shell = deliver(Runtime::Shell, &s(&["sh", "-c", "x"]), norms(), Some("p"));
        assert_eq!(shell.argv, s(&["sh", "-c", "x"]));
        assert_eq!(
            shell.env,
            vec![
                (
                    "BERTH_AGENT_NORMS".to_owned(),
                    "/r/.git/berth/agents/a.md".to_owned()
                ),
                ("BERTH_AGENT_PROMPT".to_owned(), "p".to_owned())
            ]
        );
    }
}
