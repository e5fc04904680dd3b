//! The judge's prompt: one template, `share/prompts/judge.md`, built into the binary, with the
//! criteria, the number of candidates, their names and each one's message and diff filled in by
//! code. Pure.

use std::fmt::Write as _;

use super::Entry;

const TEMPLATE: &str = include_str!("../../share/prompts/judge.md");

/// The criteria when the pipeline gives none (the seed's "quality-first default").
pub const DEFAULT_CRITERIA: &str =
    "correctness first, then tests that show it, then the smallest clear change";

/// The prompt that asks the judge to pick among `entries` by `criteria` (the default when `None`
/// or blank).
pub fn render(criteria: Option<&str>, entries: &[Entry]) -> String {
    let criteria = criteria
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .unwrap_or(DEFAULT_CRITERIA);
    let count = entries.len().to_string();
    let names = entries
        .iter()
        .map(|e| format!("\"{}\"", e.name))
        .collect::<Vec<_>>()
        .join(", ");
    let candidates = entries.iter().map(block).collect::<Vec<_>>().join("\n");
    crate::template::fill(
        TEMPLATE,
        &[
            ("{count}", &count),
            ("{criteria}", criteria),
            ("{names}", &names),
            ("{candidates}", candidates.trim_end()),
        ],
    )
}

/// One candidate's part of the prompt.
fn block(entry: &Entry) -> String {
    let message = if entry.message.trim().is_empty() {
        "(none)"
    } else {
        entry.message.trim_end()
    };
    let diff = if entry.diff.is_empty() {
        "(no changes)\n"
    } else {
        entry.diff.as_str()
    };
    let mut out = String::new();
    let _ = writeln!(out, "## Candidate \"{}\"\n", entry.name);
    let _ = writeln!(
        out,
        "Branch `{}`, started from `{}`.\n",
        entry.branch, entry.base
    );
    let _ = writeln!(out, "Its final message:\n");
    let fence = fence_for(message);
    let _ = writeln!(out, "{fence}\n{message}\n{fence}\n");
    let _ = writeln!(out, "Its changes:\n");
    let fence = fence_for(diff);
    let _ = writeln!(out, "{fence}diff\n{diff}{fence}");
    out
}

/// A code fence longer than any run of backticks in `text`, so that `text` cannot close it.
fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, diff: &str, message: &str) -> Entry {
        Entry {
            name: name.into(),
            worktree: format!("/w/{name}").into(),
            branch: format!("berth/p/{name}"),
            base: "main".into(),
            diff: diff.into(),
            message: message.into(),
            head: gix::ObjectId::null(gix::hash::Kind::Sha1),
        }
    }

    #[test]
    fn the_prompt_holds_the_criteria_and_each_candidates_name_diff_and_message() {
        let entries = [
            entry("claude", "+fn a() {}\n", "I added a."),
            entry("codex", "+fn b() {}\n", "I added b."),
        ];
        let prompt = render(Some("tests first"), &entries);
        assert!(prompt.contains("Judge them by: tests first"), "{prompt}");
        for (name, diff, message) in [
            ("claude", "+fn a() {}", "I added a."),
            ("codex", "+fn b() {}", "I added b."),
        ] {
            assert!(
                prompt.contains(&format!("## Candidate \"{name}\"")),
                "{prompt}"
            );
            assert!(prompt.contains(diff), "{prompt}");
            assert!(prompt.contains(message), "{prompt}");
        }
        assert!(prompt.contains("one of \"claude\", \"codex\""), "{prompt}");
        assert!(prompt.contains("best-of-2"), "{prompt}");
        assert!(
            prompt.contains(r#"{"winner": "<name>", "ranking": ["#),
            "the JSON asked for stays as written: {prompt}"
        );
        assert!(!prompt.contains("{candidates}") && !prompt.contains("{criteria}"));
    }

    #[test]
    fn blank_criteria_fall_back_to_the_default() {
        let prompt = render(Some("  "), &[entry("a", "", ""), entry("b", "", "")]);
        assert!(prompt.contains(DEFAULT_CRITERIA), "{prompt}");
        assert!(prompt.contains("(no changes)"), "{prompt}");
        assert!(prompt.contains("(none)"), "{prompt}");
    }

    #[test]
    fn a_placeholder_inside_a_candidates_diff_is_not_filled() {
        let prompt = render(
            None,
            &[entry("a", "+say {criteria}\n", ""), entry("b", "", "")],
        );
        assert!(prompt.contains("+say {criteria}"), "{prompt}");
    }

    #[test]
    fn a_fence_inside_a_diff_cannot_close_the_prompts_fence() {
        let diff = "+```rust\n+x\n+```\n";
        let block = block(&entry("a", diff, "done"));
        assert!(block.contains(&format!("````diff\n{diff}````")), "{block}");
    }
}
