//! The pass before the walk: what the command sets for later parts of itself (`HOME`,
//! `CDPATH`, variables only the shell knows, positional parameters it may change, git's
//! configuring variables and editor) and what redefines names. It only records on the walk; it
//! never emits an effect of its own.

use super::super::scan::{self, Op, Tok};
use super::git_programs::picks_git_config;
use super::programs::{EDITOR_VARIABLES, configures_git, is_no_op_editor};
use super::walker::Walk;
use super::words::is_assignment;

impl Walk<'_> {
    /// What the command sets for later parts of itself, found before the walk so a loop
    /// cannot use it before it is seen: `HOME`, `CDPATH`, variables given values only the
    /// shell knows, git's configuring variables, and anything that redefines names.
    pub(super) fn taint(&mut self, toks: &[Tok]) {
        let mut stack = vec![toks];
        while let Some(list) = stack.pop() {
            let mut at = Simple::default();
            let mut prev_op_open = false;
            for (i, t) in list.iter().enumerate() {
                let w = match t {
                    Tok::Word(w) => w,
                    Tok::Redirect(r) => {
                        for sub in &r.target.subs {
                            stack.push(sub);
                        }
                        continue;
                    }
                    Tok::Op(op) => {
                        // `name ( )`: a function definition.
                        if *op == Op::Close && prev_op_open {
                            self.redefines = Some("a function defined in the command".into());
                        }
                        prev_op_open = *op == Op::Open
                            && matches!(list.get(i.wrapping_sub(1)), Some(Tok::Word(_)));
                        at = Simple::default();
                        continue;
                    }
                };
                prev_op_open = false;
                for sub in &w.subs {
                    stack.push(sub);
                }
                let next_is_in = matches!(list.get(i + 1), Some(Tok::Word(n)) if n.raw == "in");
                match self.bound(w) {
                    // `"$@"` in text `sh -c` runs: the words it was handed, as if written.
                    Some(values) => {
                        for v in values {
                            self.word(&mut at, &v, false, Some(v.clone()), next_is_in);
                        }
                    }
                    None => self.word(&mut at, &w.raw, w.dynamic, scan::value(w), next_is_in),
                }
            }
        }
    }

    /// One word of a simple command, as written (`full`), whether the shell expands it
    /// (`dynamic`), its value when known, and whether `in` follows it.
    fn word(
        &mut self,
        at: &mut Simple,
        full: &str,
        dynamic: bool,
        value: Option<String>,
        next_is_in: bool,
    ) {
        let raw = full.trim_start_matches(['"', '\'']);
        let name: String = raw
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let assigns = is_assignment(full);
        if assigns && EDITOR_VARIABLES.contains(&name.as_str()) {
            let value = value.and_then(|t| Some(t.split_once('=')?.1.to_string()));
            self.editor |= !value.as_deref().is_some_and(is_no_op_editor);
        }
        if assigns || at.command.is_some() {
            self.set(&name, assigns && dynamic, assigns);
        }
        match (at.command.as_deref(), at.prev.as_deref()) {
            (Some("read" | "mapfile" | "readarray"), _) if !raw.starts_with('-') => {
                self.set(&name, true, true)
            }
            // `for f; do`: the loop runs over the positional parameters.
            (Some("for" | "select"), Some("for" | "select")) if !next_is_in => {
                self.set(&name, true, true)
            }
            (Some("set"), Some(o)) if sets_positional(o, raw) => self.positional_unknown(),
            (Some("printf"), Some("-v")) | (Some("getopts"), _) => self.set(&name, true, true),
            (Some("shopt"), _) if matches!(raw, "cdable_vars" | "expand_aliases") => {
                self.redefines = Some(format!("`shopt -s {raw}`"));
            }
            _ => {}
        }
        if at.command.is_none() && !assigns {
            // `while read f`, `{ read f; }`, `builtin read f`: the command comes after.
            let opens = at.prev.as_deref().is_some_and(|p| OPENERS.contains(&p));
            if OPENERS.contains(&raw) || (opens && raw.starts_with('-')) {
                at.prev = Some(full.to_string());
                return;
            }
            // They may change the positional parameters where the walk cannot follow.
            if dynamic || matches!(raw, "shift" | "eval" | "source" | "." | "trap") {
                self.positional_unknown();
            }
            match raw {
                "function" => self.redefines = Some("a function defined in the command".into()),
                "hash" | "enable" => {
                    self.redefines = Some(format!("`{raw}` redefines what a name runs"))
                }
                _ => {}
            }
            if !matches!(
                raw,
                "export" | "declare" | "typeset" | "local" | "readonly" | "env"
            ) {
                at.command = Some(raw.to_string());
            }
        }
        at.prev = Some(full.to_string());
    }

    /// `name` is set in the command: to a value only the shell knows when `unknown_value`.
    fn set(&mut self, name: &str, unknown_value: bool, is_set: bool) {
        if name.is_empty() || !is_set {
            return;
        }
        match name {
            "HOME" => self.home_set = true,
            "CDPATH" => self.cdpath_set = true,
            "BASH_ENV" | "ENV" => {
                self.redefines = Some(format!("`{name}` makes every shell run a file first"))
            }
            _ => {}
        }
        if configures_git(name) {
            self.git_env = true;
        }
        if picks_git_config(name) && self.git_config_variable.is_none() {
            self.git_config_variable = Some(name.to_string());
        }
        if unknown_value {
            self.tainted.insert(name.to_string());
        }
    }
}

/// The simple command the pass is in: its command word, once found, and the word before.
#[derive(Default)]
struct Simple {
    command: Option<String>,
    prev: Option<String>,
}

/// Reserved words and builtins after which a command word still comes, as the command word.
const OPENERS: &[&str] = &[
    "!", "{", "}", "if", "then", "elif", "else", "fi", "do", "done", "while", "until", "time",
    "coproc", "command", "builtin",
];

/// `set`'s word `raw`, after the word `prev`, gives the positional parameters values: `--`
/// or an operand, not an option nor the name `-o` takes.
fn sets_positional(prev: &str, raw: &str) -> bool {
    let takes_name = prev.len() > 1
        && (prev.starts_with('-') || prev.starts_with('+'))
        && prev != "--"
        && prev.ends_with('o');
    raw == "--" || !(takes_name || raw.starts_with('-') || raw.starts_with('+'))
}
