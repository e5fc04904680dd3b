//! Commands inside the command: text run by `sh -c`, `eval`, `trap`, `source`, wrappers
//! (`sudo`, `env`, `xargs`, `find -exec`) and scripts this command wrote, each walked one level
//! deeper. Every level counts against `scan::MAX_NESTING`; text it cannot read is unknown.

use super::super::scan::{self, NotShell, Redirect, Tok};
use super::Dir;
use super::programs::{has_writing_flags, is_reader, wrapper_takes_value, wrapper_text_option};
use super::walker::{Position, Walk};
use super::words::{Arg, is_assignment, raw_of, short, split_option};
use super::xargs::{handed_at_run_time, xargs_command_at};

impl Walk<'_> {
    /// A nested command list (a substitution, `sh -c` text): it runs where the shell is now,
    /// in a subshell, so its `cd`s do not leak out.
    pub(super) fn nested(&mut self, toks: &[Tok]) {
        if self.depth >= scan::MAX_NESTING {
            self.unknown("commands nested too deep");
            return;
        }
        let dirs = self.dirs.clone();
        let history = self.history.clone();
        let upstream = std::mem::take(&mut self.upstream);
        let loops = self.loops;
        self.depth += 1;
        self.list(toks);
        self.depth -= 1;
        self.dirs = dirs;
        self.history = history;
        self.upstream = upstream;
        self.loops = loops;
    }

    /// Text run by `source` in this very shell: its `cd`s move what follows.
    fn sourced_text(&mut self, text: &str) {
        if self.depth >= scan::MAX_NESTING {
            self.unknown("commands nested too deep");
            return;
        }
        if let Some(toks) = self.scan_nested(text) {
            self.depth += 1;
            self.list(&toks);
            self.depth -= 1;
        }
    }

    /// Text run by a nested shell (`sh -c`, `eval`, a trap): in a subshell of its own.
    pub(super) fn nested_text(&mut self, text: &str) {
        if let Some(toks) = self.scan_nested(text) {
            self.nested(&toks);
        }
    }

    /// Shell text met inside the command, scanned one level deeper with what it sets found
    /// first. Text that will not scan (or that redefines names) could still run as something:
    /// nobody can say where, so it is unknown.
    fn scan_nested(&mut self, text: &str) -> Option<Vec<Tok>> {
        match scan::scan(text, self.depth + 1) {
            Ok(toks) => {
                self.taint(&toks);
                if let Some(what) = self.redefines.take() {
                    self.unknown(what);
                    return None;
                }
                Some(toks)
            }
            Err(NotShell(why)) => {
                self.unknown(format!("`{}` ({why})", short(text)));
                None
            }
        }
    }

    /// `sudo`, `env`, `xargs`, `timeout 5`, ...: their options, then the command they run.
    pub(super) fn wrapper(
        &mut self,
        wrapper: &str,
        args: &[Arg],
        redirects: &[&Redirect],
        pos: Position,
    ) -> Option<Vec<Dir>> {
        let by = format!("`{wrapper}`");
        let mut i = 1;
        let mut chdir: Option<&Arg> = None;
        while let Some(a) = args.get(i) {
            let Some(t) = a.text.as_deref() else { break };
            if t == "--" {
                i += 1;
                break;
            }
            if wrapper == "env" && is_assignment(a.raw()) {
                self.assignment(a);
                i += 1;
                continue;
            }
            if !t.starts_with('-') || t == "-" {
                break;
            }
            let (mut opt, mut glued) = split_option(t);
            // `script -qc 'text'`: short flags bundled, the last one taking the text.
            if matches!(wrapper, "script" | "su" | "runuser")
                && !t.starts_with("--")
                && t.ends_with('c')
            {
                (opt, glued) = ("-c", None);
            }
            if wrapper_text_option(wrapper, opt) {
                match glued
                    .map(str::to_string)
                    .or_else(|| args.get(i + 1)?.text.clone())
                {
                    Some(text) => self.nested_text(&text),
                    None => self.unknown(raw_of(&args[i..(i + 2).min(args.len())])),
                }
            }
            let is_chdir = matches!((wrapper, opt), ("env", "-C" | "--chdir") | ("sudo", "-D"));
            if wrapper_takes_value(wrapper, opt) && glued.is_none() {
                if is_chdir {
                    chdir = args.get(i + 1);
                }
                if let Some(v) = args.get(i + 1).and_then(|v| v.text.clone()) {
                    self.named(&v, &by);
                }
                i += 2;
            } else {
                if let Some(v) = glued {
                    if is_chdir {
                        self.chdir_to(Some(v), a.raw());
                    }
                    self.named(v, &by);
                }
                i += 1;
            }
        }
        if wrapper == "timeout" && args.get(i).is_some() {
            // The duration.
            i += 1;
        }
        if wrapper == "xargs"
            && let Some(at) = xargs_command_at(&args[1..])
        {
            // xargs's own reading: `-I {}` takes a value, `--replace` and `-i` do not.
            i = 1 + at;
        }
        if let Some(c) = chdir {
            self.chdir_to(c.text.as_deref(), c.raw());
        }
        let inner = &args[i.min(args.len())..];
        if inner.is_empty() {
            return None;
        }
        if wrapper == "watch" {
            // `watch 'cmd'` runs its words as shell text.
            let texts: Option<Vec<&str>> = inner.iter().map(|a| a.text.as_deref()).collect();
            match texts {
                Some(t) => self.nested_text(&t.join(" ")),
                None => self.unknown(raw_of(inner)),
            }
            return None;
        }
        // `env -C dir cmd`: the command and the paths it names are taken from there.
        let shell_dirs = self
            .chdir
            .take()
            .map(|d| std::mem::replace(&mut self.dirs, d));
        let xargs = matches!(wrapper, "xargs" | "parallel");
        let handed = match xargs {
            true => handed_at_run_time(
                wrapper,
                &args[1..i],
                inner,
                redirects,
                pos.piped_in,
                self.upstream.is_some(),
            ),
            false => None,
        };
        let outer = self.handed.clone();
        self.handed = handed.or(outer.clone());
        let into = self.inner_command(&by, inner, redirects, pos, xargs);
        self.handed = outer;
        match shell_dirs {
            // A `cd` run inside `env -C` changes nothing for the shell.
            Some(d) => {
                self.dirs = d;
                None
            }
            None => into,
        }
    }

    /// The command a wrapper (or `find -exec`) runs: judged as if it stood alone, and what it
    /// is handed may be written. Returns where the shell goes if it is a `cd`.
    pub(super) fn inner_command(
        &mut self,
        by: &str,
        inner: &[Arg],
        redirects: &[&Redirect],
        pos: Position,
        xargs: bool,
    ) -> Option<Vec<Dir>> {
        let into;
        let writes = match inner[0].program().map(str::to_string) {
            Some(p) if p == "cd" || p == "pushd" => {
                into = self.change_dir(&inner[0], &inner[1..]);
                false
            }
            Some(p) => {
                // Handed words only the shell knows, a reader may be handed a flag that writes.
                let reads =
                    is_reader(&p, &inner[1..]) && (self.handed.is_none() || !has_writing_flags(&p));
                if p != "git" {
                    self.runs_here(&p, reads);
                }
                let piped = std::mem::replace(&mut self.piped, xargs);
                into = self.program(&p, inner, redirects, pos);
                self.piped = piped;
                !reads
            }
            None => {
                into = self.dynamic_command(inner);
                true
            }
        };
        if writes {
            // Whatever the wrapper hands on may be written; `... | xargs rm`: what came down
            // the pipe are more arguments of `rm`.
            self.named_args(inner, by);
            if xargs {
                // Judged once: a later `| xargs` need not judge them again.
                for w in self.upstream.take().unwrap_or_default() {
                    self.named(&w, by);
                }
            }
        }
        into
    }

    /// `sh -c 'text'`, `bash -s <<EOF`, `... | sh`.
    pub(super) fn shell(
        &mut self,
        program: &str,
        rest: &[Arg],
        redirects: &[&Redirect],
        pos: Position,
    ) {
        let by = format!("`{program}`");
        let mut i = 0;
        let mut script_operand = false;
        let mut stdin_flag = false;
        while let Some(a) = rest.get(i) {
            let Some(t) = a.text.as_deref() else {
                self.unknown(a.raw().to_string());
                return;
            };
            if t == "--" {
                script_operand = rest.get(i + 1).is_some();
                break;
            }
            if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 && !t.starts_with("--") {
                if t.contains('c') && t.starts_with('-') {
                    // The first operand after the options is the text: `bash -c -e 'x'`,
                    // `bash -ce 'x'`, `bash -c -- 'x'`.
                    let at = rest[i + 1..].iter().position(|a| {
                        a.text
                            .as_deref()
                            .is_none_or(|t| !(t.starts_with('-') || t.starts_with('+')))
                    });
                    let at = at.map_or(rest.len(), |at| i + 1 + at);
                    match rest.get(at).and_then(|a| a.text.clone()) {
                        Some(text) => {
                            self.named(&text, &by);
                            self.shell_text(program, &text, &rest[at + 1..]);
                        }
                        None => self.unknown(raw_of(&rest[i..])),
                    }
                    return;
                }
                if t.contains('s') && t.starts_with('-') {
                    stdin_flag = true;
                }
                // `-o opt`, `-O opt` take a value.
                if matches!(t, "-o" | "+o" | "-O" | "+O") {
                    i += 1;
                }
                i += 1;
                continue;
            }
            if t.starts_with("--") {
                i += 1;
                continue;
            }
            script_operand = true;
            break;
        }
        if script_operand && !stdin_flag {
            // `bash script.sh`: the script's text is not in the command (one this command wrote
            // is refused, see runners.rs), but what it is handed is.
            for a in &rest[i..] {
                if let Some(t) = &a.text {
                    self.named(t, &by);
                }
            }
            return;
        }
        let mut fed = false;
        for r in redirects.iter().filter(|r| r.stdin_text()) {
            fed = true;
            match (&r.heredoc, r.op.as_str()) {
                (Some(h), _) if h.quoted => self.nested_text(&h.body.clone()),
                (Some(h), _) => {
                    if h.subs.is_empty() && !h.body.contains('$') && !h.body.contains('`') {
                        self.nested_text(&h.body.clone())
                    } else {
                        self.unknown(format!("a script for `{program}` built at run time"))
                    }
                }
                (None, "<<<") => match scan::value(&r.target) {
                    Some(t) => self.nested_text(&t),
                    None => self.unknown(r.target.raw.clone()),
                },
                _ => self.unknown(format!("a script for `{program}`")),
            }
        }
        let from_file = redirects.iter().any(|r| r.op == "<" || r.op == "<&");
        if pos.piped_in || from_file || (!fed && stdin_flag) {
            self.unknown(format!("a script fed to `{program}` on its standard input"));
        }
    }

    /// `source file` runs the file in this very shell: a file on disk is the user's script (not
    /// judged), but text made here (`/dev/stdin` with a here-document, `<(...)`) is read.
    pub(super) fn source(&mut self, rest: &[Arg], redirects: &[&Redirect]) {
        let Some(file) = rest.first() else { return };
        let stdin = matches!(
            file.text.as_deref(),
            Some("/dev/stdin" | "-" | "/dev/fd/0" | "/proc/self/fd/0")
        );
        if file.word.is_process_substitution() || (file.text.is_none() && !stdin) {
            self.unknown(format!("`source {}` (text made by a command)", file.raw()));
            return;
        }
        if !stdin {
            // A file on disk (one this command wrote is refused, see runners.rs).
            return;
        }
        let mut fed = false;
        for r in redirects.iter().filter(|r| r.stdin_text()) {
            fed = true;
            let text = match &r.heredoc {
                Some(h) if h.quoted || (h.subs.is_empty() && !h.body.contains('$')) => {
                    Some(h.body.clone())
                }
                Some(_) => None,
                None => scan::value(&r.target),
            };
            match text {
                Some(t) => self.sourced_text(&t),
                None => self.unknown("a sourced script built at run time"),
            }
        }
        if !fed {
            self.unknown("a script sourced from standard input");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Effect;
    use super::super::tests::fx;

    #[test]
    fn nested_shell_text_and_substitutions_are_followed() {
        assert!(fx("sh -c 'cd /a'").contains(&Effect::Enters("/a".into())));
        assert!(fx("x=$(cd /b; pwd)").contains(&Effect::Enters("/b".into())));
        assert!(fx("echo \"`cd /c`\"").contains(&Effect::Enters("/c".into())));
        assert!(fx("bash <<< 'cd /d'").contains(&Effect::Enters("/d".into())));
    }
}
