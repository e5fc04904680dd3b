//! `git berth status-line`: the compact segment a status bar shows (`worktrees 5 · 2 yours · 1 to
//! review`), from [`crate::worktree::listing::counts`]: the registry, the claims and the review
//! refs, read as `list` reads them, and no checkout opened.

use std::io::Write;

use anyhow::Result;

use crate::error::refuse_with_hint;
use crate::repo::Context;
use crate::worktree::listing::{self, Counts};

#[derive(Debug, clap::Args)]
#[command(
    about = "Print the compact worktree segment for a status bar (tmux, starship, Claude Code)",
    long_about = "Print the compact worktree segment for a status bar: \
`worktrees 5 · 2 yours · 1 to review`.\n\n\
worktrees: the managed worktrees (the rows of `list`); yours: those your session holds (`list \
--mine`); to review: those whose branch has commits of its own (not on its base) and whose head \
has no verdict, or only a stale one given to an earlier commit. A count of 0 is left out, \
except the first.\n\n\
It reads only the registry, the claims and the review refs, never a checkout, so it stays fast \
however many worktrees there are. Outside a git repository it prints nothing and exits 0, so a \
status bar may run it anywhere.",
    after_help = "Placeholders for --format: {total} (managed worktrees), {yours} (held by your \
session), {review} (waiting for a review), {claimed} (held by a live claim, yours included), \
{available} (held by nobody), {stale} (held by a claim that no longer counts); {{ and }} print \
a brace.\n\n\
Examples:\n  git berth status-line\n  git berth status-line --format '{yours}/{total} wt'\n  \
tmux: set -g status-right '#(git -C \"#{pane_current_path}\" berth status-line)'"
)]
pub struct StatusLineArgs {
    /// Print this template instead, its placeholders replaced by the counts (see below)
    #[arg(long, value_name = "FMT", conflicts_with = "json")]
    pub format: Option<String>,
    /// Print the counts as JSON: {"total", "yours", "review", "claimed", "available", "stale"}
    #[arg(long)]
    pub json: bool,
}

/// The placeholders `--format` knows, in the order the help lists them.
const PLACEHOLDERS: [&str; 6] = ["total", "yours", "review", "claimed", "available", "stale"];

/// A parsed `--format`: text, and the counts to put between it.
#[derive(Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Count(&'static str),
}

pub fn run(session: Option<&str>, args: &StatusLineArgs, out: &mut dyn Write) -> Result<()> {
    // A bad template is said wherever it runs, before any repository is looked at.
    let template = args.format.as_deref().map(parse).transpose()?;
    let Some(mut ctx) = Context::discover_any()? else {
        return Ok(());
    };
    ctx.session_flag = session.map(str::to_owned);
    let counts = listing::counts(&ctx)?;
    if args.json {
        return super::write_json(out, &counts);
    }
    let line = match &template {
        Some(pieces) => fill(pieces, &counts),
        None => segment(&counts),
    };
    writeln!(out, "{line}")?;
    Ok(())
}

/// `worktrees N · M yours · K to review`, leaving out the counts of 0 after the first.
fn segment(counts: &Counts) -> String {
    let mut parts = vec![format!("worktrees {}", counts.total)];
    if counts.yours > 0 {
        parts.push(format!("{} yours", counts.yours));
    }
    if counts.review > 0 {
        parts.push(format!("{} to review", counts.review));
    }
    parts.join(" · ")
}

/// The template's text and placeholders; an unknown placeholder or a lone brace is refused,
/// naming it.
fn parse(template: &str) -> Result<Vec<Piece>> {
    let known = || {
        format!(
            "the placeholders are {}; write {{{{ or }}}} for a brace",
            PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(" ")
        )
    };
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let mut name = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == '}' {
                        closed = true;
                        break;
                    }
                    name.push(c);
                }
                if !closed {
                    return Err(refuse_with_hint(
                        format!("--format has a '{{' that no '}}' closes: {{{name}"),
                        known(),
                    ));
                }
                let Some(count) = PLACEHOLDERS.into_iter().find(|p| *p == name) else {
                    return Err(refuse_with_hint(
                        format!("--format has an unknown placeholder {{{name}}}"),
                        known(),
                    ));
                };
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Count(count));
            }
            '}' => {
                return Err(refuse_with_hint(
                    "--format has a '}' that closes no placeholder",
                    known(),
                ));
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// The template with each placeholder replaced by its count.
fn fill(pieces: &[Piece], counts: &Counts) -> String {
    pieces
        .iter()
        .map(|piece| match piece {
            Piece::Text(text) => text.clone(),
            Piece::Count(name) => match *name {
                "total" => counts.total,
                "yours" => counts.yours,
                "review" => counts.review,
                "claimed" => counts.claimed,
                "available" => counts.available,
                _ => counts.stale,
            }
            .to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts() -> Counts {
        Counts {
            total: 5,
            yours: 2,
            review: 1,
            claimed: 3,
            available: 1,
            stale: 1,
        }
    }

    #[test]
    fn the_segment_leaves_out_counts_of_zero_but_the_first() {
        assert_eq!(segment(&counts()), "worktrees 5 · 2 yours · 1 to review");
        assert_eq!(segment(&Counts::default()), "worktrees 0");
        let none_yours = Counts {
            yours: 0,
            ..counts()
        };
        assert_eq!(segment(&none_yours), "worktrees 5 · 1 to review");
    }

    #[test]
    fn a_template_fills_every_placeholder_and_keeps_doubled_braces() {
        let pieces = parse("{total}/{yours}/{review}/{claimed}/{available}/{stale} {{x}}").unwrap();
        assert_eq!(fill(&pieces, &counts()), "5/2/1/3/1/1 {x}");
        assert_eq!(fill(&parse("").unwrap(), &counts()), "");
    }

    #[test]
    fn an_unknown_placeholder_or_a_lone_brace_is_refused_naming_it() {
        let said = |t: &str| crate::error::render(&parse(t).unwrap_err());
        let (what, hint) = said("{total} {mine}");
        assert_eq!(what, "--format has an unknown placeholder {mine}");
        assert!(hint.unwrap().contains("{total} {yours} {review}"));
        assert_eq!(
            said("{total").0,
            "--format has a '{' that no '}' closes: {total"
        );
        assert!(said("a } b").0.contains("closes no placeholder"));
    }
}
