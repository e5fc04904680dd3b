//! The pass before the walk: what the command sets for later parts of itself (`HOME`,
//! `CDPATH`, variables only the shell knows, git's configuring variables and editor) and what
//! redefines names. It only records on the walk; it never emits an effect of its own.

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
            // The command word of the current simple command, and the words after it.
            let mut command: Option<String> = None;
            let mut prev: Option<&str> = None;
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
                        command = None;
                        prev = None;
                        continue;
                    }
                };
                prev_op_open = false;
                for sub in &w.subs {
                    stack.push(sub);
                }
                let raw = w.raw.trim_start_matches(['"', '\'']);
                let name: String = raw
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let assigns = is_assignment(&w.raw);
                if assigns && EDITOR_VARIABLES.contains(&name.as_str()) {
                    let value = scan::value(w).and_then(|t| Some(t.split_once('=')?.1.to_string()));
                    self.editor |= !value.as_deref().is_some_and(is_no_op_editor);
                }
                if assigns || command.is_some() {
                    self.set(&name, assigns && w.dynamic, assigns);
                }
                match (command.as_deref(), prev) {
                    (Some("read" | "mapfile" | "readarray"), _) if !raw.starts_with('-') => {
                        self.set(&name, true, true)
                    }
                    (Some("printf"), Some("-v")) | (Some("getopts"), _) => {
                        self.set(&name, true, true)
                    }
                    (Some("shopt"), _) if matches!(raw, "cdable_vars" | "expand_aliases") => {
                        self.redefines = Some(format!("`shopt -s {raw}`"));
                    }
                    _ => {}
                }
                if command.is_none() && !assigns {
                    match raw {
                        "function" => {
                            self.redefines = Some("a function defined in the command".into())
                        }
                        "hash" | "enable" => {
                            self.redefines = Some(format!("`{raw}` redefines what a name runs"))
                        }
                        _ => {}
                    }
                    if !matches!(
                        raw,
                        "export" | "declare" | "typeset" | "local" | "readonly" | "env"
                    ) {
                        command = Some(raw.to_string());
                    }
                }
                prev = Some(&w.raw);
            }
        }
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
