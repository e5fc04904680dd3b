//! The positional parameters (`$0`, `$1`, `"$@"`) of text a shell runs with `-c`: the words
//! written after the text. A whole quoted reference takes those words, when each is known and
//! nothing in the text may change them; any other use is a value only the running shell knows.

use super::super::scan::Word;
use super::walker::Walk;
use super::words::Arg;

/// The positional parameters and the ones made of them, by the names `tainted_in` reads.
const POSITIONAL: &[&str] = &[
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*", "#", "argv",
];

/// At most this many words stand for `"$@"`: each use copies them all, so more are not bound
/// (and a use of them is unknown), which keeps the walk linear in the text.
const MAX_SPREAD: usize = 64;

impl Walk<'_> {
    /// `text`, run by the shell `program` with the words `handed` after it: `$0` is the first
    /// of them (the shell's name when there is none), `$1` the next.
    pub(super) fn shell_text(&mut self, program: &str, text: &str, handed: &[Arg]) {
        // A use the words do not answer (`"$1/x"`, `$1` unquoted, after a `shift`) is unknown.
        self.positional_unknown();
        let words: Option<Vec<String>> = match handed {
            _ if self.piped => None,
            [] => Some(vec![program.to_string()]),
            _ => handed.iter().map(|a| a.text.clone()).collect(),
        };
        let outer = std::mem::replace(&mut self.positional, words);
        self.nested_text(text);
        self.positional = outer;
    }

    /// The positional parameters take values the text does not show (`shift`, `set -- $x`,
    /// words `xargs` appends): a written path made of them is unknown.
    pub(super) fn positional_unknown(&mut self) {
        self.positional = None;
        self.tainted
            .extend(POSITIONAL.iter().map(|name| name.to_string()));
    }

    /// The values of `w` when it is a whole quoted reference to positional parameters the text
    /// binds: `"$1"` or `"${1}"` (one word, empty when none was handed) and `"$@"` (one word for
    /// each after `$0`). Unquoted, the shell would split and glob them: not bound.
    pub(super) fn bound(&self, w: &Word) -> Option<Vec<String>> {
        let words = self.positional.as_ref()?;
        if !w.dynamic || !w.subs.is_empty() {
            return None;
        }
        let inner = w
            .raw
            .strip_prefix('"')?
            .strip_suffix('"')?
            .strip_prefix('$')?;
        let braced = inner.strip_prefix('{').and_then(|n| n.strip_suffix('}'));
        let name = braced.unwrap_or(inner);
        if name == "@" && words.len() <= MAX_SPREAD {
            return Some(words.iter().skip(1).cloned().collect());
        }
        // `$10` is `$1` and a `0`; only `${10}` is the tenth.
        let digits = !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit());
        if !digits || (name.len() > 1 && braced.is_none()) {
            return None;
        }
        let n: usize = name.parse().ok()?;
        Some(vec![words.get(n).cloned().unwrap_or_default()])
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::Effect;
    use super::super::tests::fx;

    fn unknown(cmd: &str) -> bool {
        fx(cmd).iter().any(|e| matches!(e, Effect::Unknown(_)))
    }

    fn writes(cmd: &str, path: &str) -> bool {
        fx(cmd)
            .iter()
            .any(|e| matches!(e, Effect::Writes { path: p, .. } if p == Path::new(path)))
    }

    #[test]
    fn a_quoted_positional_parameter_is_the_word_after_the_text() {
        assert!(writes("sh -c 'touch \"$1\"' _ ../p/x", "/p/x"));
        assert!(writes("bash -c 'touch \"$0\"' ../p/x", "/p/x"));
        assert!(writes("dash -c 'touch \"$2\"' _ a ../p/x", "/p/x"));
        assert!(writes("sh -c 'touch \"$@\"' _ a ../p/x", "/p/x"));
        assert!(writes("sh -c 'echo x > \"${1}\"' _ ../p/x", "/p/x"));
        assert!(writes(
            "find . -exec sh -c 'rustfmt \"$1\"' _ {} \\;",
            "/w/{}"
        ));
        assert!(!unknown("sh -c 'touch \"$1\"' _ src/x"));
    }

    #[test]
    fn positional_parameters_the_text_may_change_or_glue_are_unknown() {
        for cmd in [
            "bash -c 'shift; touch \"$1\"' _ a ../p/x",
            "bash -c 'set -- ../p/x; touch \"$1\"' _ a",
            "bash -c 'eval shift; touch \"$1\"' _ a ../p/x",
            "sh -c 'touch \"$1/x\"' _ ..",
            "sh -c 'touch $1' _ ../p/x",
            "sh -c 'for f; do touch \"$f\"; done' _ ../p/x",
            "sh -c 'touch \"$1\"' _ \"$X\"",
            "echo a | xargs sh -c 'touch \"$1\"' _",
            "set -- ..; touch \"$1/p/x\"",
        ] {
            assert!(unknown(cmd), "{cmd}: {:?}", fx(cmd));
        }
    }
}
