//! A command's words as the walk reads them: an argument with its value, the program a word
//! names, option splitting and the short forms used in messages. Pure functions of the text:
//! nothing here knows where the shell stands or emits an effect.

use std::collections::HashSet;

use super::super::scan::Word;
use super::super::whitelist;

/// A word with its value (`None`: only the shell knows it).
pub(super) struct Arg<'w> {
    pub(super) word: &'w Word,
    pub(super) text: Option<String>,
}

impl Arg<'_> {
    pub(super) fn is(&self, s: &str) -> bool {
        self.text.as_deref() == Some(s)
    }

    pub(super) fn raw(&self) -> &str {
        &self.word.raw
    }

    /// The program's name: a bare word, or a path in a system `bin` folder. `./cat` is not
    /// `cat`: it is whatever that file is, so its whole path is its name.
    pub(super) fn program(&self) -> Option<&str> {
        let t = self.text.as_deref()?;
        match t.rsplit_once('/') {
            Some((dir, name)) if SYSTEM_BIN.contains(&dir) => Some(name),
            Some(_) => Some(t),
            None => Some(t),
        }
    }
}

/// Folders whose programs are the ones their names say.
const SYSTEM_BIN: &[&str] = &[
    "/bin",
    "/usr/bin",
    "/usr/local/bin",
    "/sbin",
    "/usr/sbin",
    "/opt/homebrew/bin",
];

/// `cd "$(git berth path x)"`, `cd "$(git berth add x)"`: the worktree berth prints.
pub(super) fn berth_worktree(raw: &str) -> Option<String> {
    let inner = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw)
        .strip_prefix("$(")?
        .strip_suffix(')')?;
    if !whitelist::is_whitelisted(inner) {
        return None;
    }
    let rest = inner.strip_prefix(crate::names::TOOL)?.strip_prefix(' ')?;
    let mut words = rest.split(' ');
    match words.next() {
        Some("path" | "add") => {}
        _ => return None,
    }
    let name = words.find(|w| !w.starts_with('-'))?;
    Some(name.to_string())
}

/// `-Cdir` → (`-C`, `dir`); `--opt=value` → (`--opt`, `value`); else the word alone.
pub(super) fn split_option(t: &str) -> (&str, Option<&str>) {
    if let Some(rest) = t.strip_prefix("--") {
        return match rest.split_once('=') {
            Some((o, v)) => (&t[..2 + o.len()], Some(v)),
            None => (t, None),
        };
    }
    if t.len() > 2 && t.starts_with('-') && t.is_char_boundary(2) {
        return (&t[..2], Some(&t[2..]));
    }
    (t, None)
}

pub(super) fn is_assignment(raw: &str) -> bool {
    let raw = raw.as_bytes();
    let name_len = raw
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    name_len > 0
        && !raw[0].is_ascii_digit()
        && (raw.get(name_len) == Some(&b'=')
            || (raw.get(name_len) == Some(&b'+') && raw.get(name_len + 1) == Some(&b'=')))
}

pub(super) fn raw_of(args: &[Arg]) -> String {
    args.iter().map(Arg::raw).collect::<Vec<_>>().join(" ")
}

/// At most 80 characters of `text`, for a message.
pub(super) fn short(text: &str) -> String {
    let t: String = text.chars().take(80).collect();
    if t.len() < text.len() {
        format!("{t}...")
    } else {
        t
    }
}

/// The first variable in `text` among `tainted`, those holding values made at run time (set by
/// the command from what only the shell knows, or by the shell itself).
pub(super) fn tainted_in(text: &str, tainted: &HashSet<String>) -> Option<String> {
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        rest = &rest[i + 1..];
        let inner = rest.strip_prefix('{').unwrap_or(rest);
        // `$1`, `$@`, `$*`, `$#`: one character names a special parameter (`$10` is `$1`).
        let name: String = match inner.chars().next() {
            Some(c @ ('0'..='9' | '@' | '*' | '#')) => c.to_string(),
            _ => inner
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect(),
        };
        if tainted.contains(&name) {
            return Some(name);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::tests::fx;
    use super::*;

    #[test]
    fn the_way_out_through_berth_is_a_worktree_berth_names() {
        assert!(berth_worktree("\"$(git berth add agent-1)\"").is_some());
        assert!(berth_worktree("$(git berth path x)").is_some());
        assert!(berth_worktree("\"$(git berth remove x)\"").is_none());
        assert!(berth_worktree("\"$(git berth path x; rm -rf /)\"").is_none());
        assert!(fx("cd \"$(git berth add x)\"").is_empty());
    }
}
