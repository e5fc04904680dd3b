//! The master agent's definition for each runtime that has one, written by
//! `init --with-orchestrator`: its role in words, and the runtime's own way of taking the edit
//! tools away from it. Pure: the texts are part of this build, filled with berth's names here.

use crate::guard::runtime::Runtime;
use crate::names;

/// One runtime's master definition: where init writes it, from which template in `share/agents/`.
pub(crate) struct Definition {
    pub runtime: Runtime,
    pub path: &'static str,
    template: &'static str,
}

/// The runtimes that can be given a master: Claude Code (a subagent file whose `tools` list
/// leaves out every editing tool), OpenCode (an agent whose `permission` denies edit and write)
/// and Pi (a prompt template: the rule in words only).
const DEFINITIONS: [Definition; 3] = [
    Definition {
        runtime: Runtime::Claude,
        path: names::CLAUDE_MASTER_AGENT,
        template: include_str!("../../share/agents/claude/master.md"),
    },
    Definition {
        runtime: Runtime::Opencode,
        path: names::OPENCODE_MASTER_AGENT,
        template: include_str!("../../share/agents/opencode/master.md"),
    },
    Definition {
        runtime: Runtime::Pi,
        path: names::PI_MASTER_PROMPT,
        template: include_str!("../../share/agents/pi/master.md"),
    },
];

/// The role every runtime's master gets, whatever its runtime enforces.
const ROLE: &str = include_str!("../../share/agents/role.md");

/// The master definition init writes for `r`, if that runtime has one.
pub(crate) fn definition(r: Runtime) -> Option<&'static Definition> {
    DEFINITIONS.iter().find(|d| d.runtime == r)
}

impl Definition {
    /// The file as this build writes it.
    pub(crate) fn content(&self) -> String {
        fill(&self.template.replace("@ROLE@", ROLE))
    }
}

/// The first line of the role: a file that still carries it came from `init`, even after a
/// person changed the rest, so uninstall warns about it instead of passing it by in silence.
fn marker() -> String {
    fill(ROLE.lines().next().unwrap_or_default())
}

/// True when `bytes` is a master definition berth wrote, changed or not.
pub(crate) fn carries_marker(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes).contains(&marker())
}

fn fill(text: &str) -> String {
    text.replace("@TOOL@", names::TOOL)
        .replace("@MASTER@", names::MASTER_AGENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The YAML frontmatter between the first two `---` lines.
    fn frontmatter(text: &str) -> &str {
        let rest = text.strip_prefix("---\n").expect("starts with frontmatter");
        &rest[..rest.find("\n---\n").expect("frontmatter ends")]
    }

    fn line<'a>(front: &'a str, key: &str) -> Option<&'a str> {
        front
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key}: ")))
    }

    #[test]
    fn every_definition_is_filled_and_carries_the_role_and_its_marker() {
        for d in &DEFINITIONS {
            let text = d.content();
            assert!(!text.contains('@'), "{}: {text}", d.path);
            assert!(text.contains("# You are the master"), "{}", d.path);
            assert!(text.contains("git berth layer1"), "{}", d.path);
            assert!(carries_marker(text.as_bytes()), "{}", d.path);
            assert!(d.path.ends_with(&format!("/{}.md", names::MASTER_AGENT)));
            assert_eq!(definition(d.runtime).map(|x| x.path), Some(d.path));
        }
        assert!(definition(Runtime::Codex).is_none());
    }

    #[test]
    fn claudes_master_may_use_no_tool_that_edits_files_nor_start_subagents() {
        let text = definition(Runtime::Claude).expect("claude").content();
        let front = frontmatter(&text);
        assert_eq!(line(front, "name"), Some(names::MASTER_AGENT));
        let tools: Vec<&str> = line(front, "tools")
            .expect("tools")
            .split(',')
            .map(str::trim)
            .collect();
        assert!(
            tools.contains(&"Bash") && tools.contains(&"Read"),
            "{tools:?}"
        );
        for editing in [
            "Write",
            "Edit",
            "MultiEdit",
            "NotebookEdit",
            "Agent",
            "Task",
        ] {
            assert!(!tools.contains(&editing), "{editing} in {tools:?}");
        }
    }

    #[test]
    fn opencodes_master_is_a_primary_agent_denied_edit_and_write() {
        let text = definition(Runtime::Opencode).expect("opencode").content();
        let front = frontmatter(&text);
        assert!(line(front, "description").is_some());
        assert_eq!(line(front, "mode"), Some("primary"));
        assert!(
            front.contains("permission:\n  edit: deny\n  write: deny"),
            "{front}"
        );
    }

    #[test]
    fn pis_master_says_the_rule_in_words() {
        let text = definition(Runtime::Pi).expect("pi").content();
        assert!(line(frontmatter(&text), "description").is_some());
        assert!(text.contains("never call `edit` or `write`"), "{text}");
    }

    #[test]
    fn a_file_without_the_marker_is_not_berths() {
        assert!(!carries_marker(b"---\nname: master\n---\nMy own master.\n"));
    }
}
