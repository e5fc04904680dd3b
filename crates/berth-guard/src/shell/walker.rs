//! The walk over a scanned command: lists, pipelines and subshells, each simple command's
//! keywords, assignments and redirections, and the dispatch of its program by name. It keeps
//! the directories the shell may be in. It never reads the disk: what it cannot follow is
//! unknown, and the first unknown ends the walk.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::super::scan::{self, Op, Redirect, Tok};
use super::git_programs::names_a_command;
use super::history::{History, Move};
use super::programs::{
    GIT_PLACE_VARIABLES, INTERPRETERS, SET_BY_THE_SHELL, SHELLS, WRAPPERS, copy_destination,
    exec_at, is_reader,
};
use super::words::{Arg, berth_worktree, is_assignment, raw_of, tainted_in};
use super::xargs::prints;
use super::{Dir, Effect, Env, MAX_DIRS};

pub(super) struct Walk<'e> {
    pub(super) env: Env<'e>,
    /// Every directory the shell may be in at this point.
    pub(super) dirs: Vec<Dir>,
    /// Where `cd -` and `popd` go, as far as this command set them.
    pub(super) history: History,
    /// The simple command just walked moved the shell, and how.
    pub(super) moved: Option<Move>,
    pub(super) effects: Vec<Effect>,
    seen: crate::fast::Set<Effect>,
    pub(super) depth: usize,
    /// Inside a loop or after a function definition: a relative `cd` may repeat.
    pub(super) loops: usize,
    /// The command sets `HOME` or `CDPATH` itself, so `~` and relative `cd` are unknown.
    pub(super) home_set: bool,
    pub(super) cdpath_set: bool,
    /// An unknown was found: the answer is a block whatever follows.
    pub(super) done: bool,
    pub(super) commands: usize,
    /// What the command before this one in its pipeline prints, when the text says it (a plain
    /// `echo` or `printf`): the words `xargs` reads. `None` when only the running shell knows.
    pub(super) upstream: Option<Vec<String>>,
    /// What the simple command just walked prints, when the text says it.
    prints: Option<Vec<String>>,
    /// Where a wrapper (`env -C`, `sudo -D`) sends the command it runs.
    pub(super) chdir: Option<Vec<Dir>>,
    /// Variables holding values only the running shell knows: set so by the command (`P=$(...)`,
    /// `read p`), by the shell itself (`$_`, `$REPLY`), or positional parameters it may change.
    pub(super) tainted: HashSet<String>,
    /// The command configures git through its environment (`GIT_CONFIG_*`, `GIT_EXTERNAL_DIFF`).
    pub(super) git_env: bool,
    /// A variable the command sets that makes git read configuration the guard does not see
    /// (`HOME`, `GIT_CONFIG_GLOBAL`, `GIT_EXEC_PATH`, ...): git run anywhere in it is unknown.
    pub(super) git_config_variable: Option<String>,
    /// Files this command writes, and those it runs as code (see runners.rs).
    pub(super) scripts: Scripts,
    /// Where the agent stands: the repository of a worktree berth named (`cd "$(git berth
    /// path x)"`) is the one found from here.
    pub(super) cwd: PathBuf,
    /// The program being walked is run by `xargs`, which hands it more words.
    pub(super) piped: bool,
    /// What `xargs` hands the program being walked, when only the running shell knows it (words
    /// read from a file or another program): any program run then that may write is unknown.
    pub(super) handed: Option<String>,
    /// The words after the text a shell runs with `-c` (`$0`, `$1`, ...), when each is known;
    /// `None` where they are the agent's shell's own, or only the running shell knows them.
    pub(super) positional: Option<Vec<String>>,
    /// The command sets git's editor (`GIT_SEQUENCE_EDITOR=...`, `-c core.editor=...`) to
    /// something other than a no-op.
    pub(super) editor: bool,
    /// Something in the command changes what names mean (a function, `hash -p`, `shopt -s
    /// cdable_vars`, `BASH_ENV`): found before the walk, it makes the whole command unknown.
    pub(super) redefines: Option<String>,
}

/// What the walk remembers of the files this command writes and runs.
#[derive(Debug, Default)]
pub(super) struct Scripts {
    /// Files written so far, by absolute path.
    pub(super) written: crate::fast::Set<PathBuf>,
    /// Files a runner was handed to run, with the runners: a runner's own naming of the file
    /// (as a path it may write) is no write of the text.
    pub(super) ran: crate::fast::Map<PathBuf, Vec<String>>,
    /// The program being walked builds its output from files on disk (a compiler, git), whose
    /// text is no more hidden than a script already there: what it writes is not remembered.
    pub(super) from_disk: Option<String>,
    /// Folders a copy or link was made into (`cp pwn d/`): any file run from them may be it.
    pub(super) filled: crate::fast::Set<PathBuf>,
}

/// How a simple command stands in its pipeline.
#[derive(Clone, Copy)]
pub(super) struct Position {
    /// Its standard input comes from the command before it.
    pub(super) piped_in: bool,
}

impl<'e> Walk<'e> {
    /// A walk that starts with the shell in `cwd`, nothing found yet.
    pub(super) fn new(env: Env<'e>, cwd: &Path) -> Walk<'e> {
        Walk {
            env,
            dirs: vec![Dir::Path(cwd.to_path_buf())],
            history: History::default(),
            moved: None,
            effects: Vec::new(),
            seen: crate::fast::Set::default(),
            depth: 0,
            loops: 0,
            home_set: false,
            cdpath_set: false,
            done: false,
            commands: 0,
            upstream: None,
            prints: None,
            chdir: None,
            tainted: SET_BY_THE_SHELL.iter().map(|n| n.to_string()).collect(),
            git_env: false,
            git_config_variable: None,
            redefines: None,
            scripts: Scripts::default(),
            cwd: cwd.to_path_buf(),
            piped: false,
            handed: None,
            positional: None,
            editor: false,
        }
    }
}

impl Walk<'_> {
    pub(super) fn emit(&mut self, e: Effect) {
        if self.done {
            return;
        }
        if let (Some(handed), Effect::Runs { program, reads, .. }) = (&self.handed, &e)
            && !reads
        {
            // No folder answers this: the files are chosen when the command runs.
            return self.emit(Effect::Refused {
                what: format!(
                    "`{program}` would be given {handed}: which files it writes is known only then"
                ),
                hint: format!(
                    "name the files in the command, or let find hand them over where it looks: \
                     `find <folder> ... -exec {program} ... {{}} +`"
                ),
            });
        }
        if let Effect::Writes { path, by } = &e {
            self.note_write(path, by);
        }
        if matches!(e, Effect::Unknown(_) | Effect::Refused { .. }) {
            self.done = true;
        }
        if self.seen.insert(e.clone()) {
            self.effects.push(e);
        }
    }

    pub(super) fn unknown(&mut self, what: impl Into<String>) {
        self.emit(Effect::Unknown(what.into()));
    }

    pub(super) fn list(&mut self, toks: &[Tok]) {
        // Directories saved at each `(`, restored at its `)`: a subshell's `cd` stays inside.
        let mut saved: Vec<(Vec<Dir>, History)> = Vec::new();
        let mut start = 0;
        let mut piped_in = false;
        let mut i = 0;
        while i <= toks.len() && !self.done {
            let op = match toks.get(i) {
                Some(Tok::Op(op)) => Some(*op),
                Some(_) => {
                    i += 1;
                    continue;
                }
                None => None,
            };
            let before = self.dirs.clone();
            self.moved = None;
            let entered = self.simple(&toks[start..i], Position { piped_in });
            let moved = self.moved.take();
            match (op, entered) {
                // `cd x && y`: y runs only where the cd succeeded.
                (Some(Op::And), Some(into)) => {
                    self.dirs = into;
                    self.history.moved(moved, before, true);
                }
                // `cd x | y`: the cd ran in a subshell of the pipeline.
                (Some(Op::Pipe), Some(_)) => self.dirs = before,
                // Otherwise the cd may have failed: the shell is in either place.
                (_, Some(into)) => {
                    self.dirs = before.clone();
                    for d in into {
                        self.add_dir(d);
                    }
                    self.history.moved(moved, before, false);
                }
                _ => {}
            }
            piped_in = op == Some(Op::Pipe);
            let prints = self.prints.take();
            self.upstream = prints.filter(|_| piped_in);
            match op {
                Some(Op::Open) => saved.push((self.dirs.clone(), self.history.clone())),
                Some(Op::Close) => {
                    if let Some((dirs, history)) = saved.pop() {
                        self.dirs = dirs;
                        self.history = history;
                    }
                }
                _ => {}
            }
            start = i + 1;
            i += 1;
        }
    }

    fn add_dir(&mut self, d: Dir) {
        if self.dirs.contains(&d) {
            return;
        }
        if self.dirs.len() >= MAX_DIRS {
            self.unknown("the directory the command is in (too many `cd`s to follow)");
            return;
        }
        self.dirs.push(d);
    }

    /// One simple command. Returns where the shell is if it succeeds, when it changes
    /// directory (`cd`, `pushd`, or a command whose name only the shell knows).
    fn simple(&mut self, toks: &[Tok], pos: Position) -> Option<Vec<Dir>> {
        let mut args: Vec<Arg> = Vec::new();
        let mut redirects: Vec<&Redirect> = Vec::new();
        for tok in toks {
            match tok {
                Tok::Word(w) => {
                    // `"$(git berth add x)"` is the whitelist's own verb, written plainly.
                    if berth_worktree(&w.raw).is_none() {
                        for sub in &w.subs {
                            self.nested(sub);
                        }
                    }
                    match self.bound(w) {
                        // `"$@"` in text `sh -c` runs: one word for each it was handed.
                        Some(values) => {
                            args.extend(values.into_iter().map(|t| Arg {
                                word: w,
                                text: Some(t),
                            }));
                        }
                        None => args.push(Arg {
                            word: w,
                            text: scan::value(w),
                        }),
                    }
                }
                Tok::Redirect(r) => {
                    for sub in &r.target.subs {
                        self.nested(sub);
                    }
                    if let Some(h) = &r.heredoc {
                        for sub in &h.subs {
                            self.nested(sub);
                        }
                    }
                    redirects.push(r);
                }
                Tok::Op(_) => {}
            }
        }
        // What this command prints is its own, not that of a command inside it.
        self.prints = None;
        if self.done {
            return None;
        }
        for r in &redirects {
            self.redirect(r);
        }
        // Keywords and assignments before the command name.
        let mut at = 0;
        while let Some(a) = args.get(at) {
            match a.text.as_deref() {
                Some("do") => self.loops += 1,
                Some("done") => self.loops = self.loops.saturating_sub(1),
                Some("function") => self.loops += 1,
                _ => {}
            }
            if a.text.as_deref().is_some_and(|t| {
                matches!(
                    t,
                    "!" | "{"
                        | "}"
                        | "if"
                        | "then"
                        | "elif"
                        | "else"
                        | "fi"
                        | "do"
                        | "done"
                        | "while"
                        | "until"
                        | "coproc"
                        | "esac"
                        | "in"
                        | "function"
                )
            }) {
                at += 1;
            } else if is_assignment(a.raw()) {
                self.assignment(a);
                at += 1;
            } else {
                break;
            }
        }
        // `f() { ... }`: a function body may run any number of times, later.
        if toks.is_empty() || args.len() == at {
            return None;
        }
        self.commands += 1;
        let into = self.command(&args[at..], &redirects, pos);
        self.prints = prints(&args[at..]);
        into
    }

    fn redirect(&mut self, r: &Redirect) {
        if r.target.is_process_substitution() || !r.writes() {
            return;
        }
        let by = format!("`{}{}`", r.op, r.target.raw);
        let bound = self.bound(&r.target).filter(|v| v.len() == 1);
        match scan::value(&r.target).or_else(|| bound?.pop()) {
            Some(t) => self.writes_path(&t, &by, true),
            None => self.dynamic_path(&r.target, &by, true),
        }
    }

    /// `NAME=value` before a command, or as an argument of `export`, `declare`, `env`.
    pub(super) fn assignment(&mut self, a: &Arg) {
        let raw = a.raw();
        let name = raw.split('=').next().unwrap_or("");
        let value = a
            .text
            .as_deref()
            .and_then(|t| t.split_once('=').map(|(_, v)| v.to_string()));
        if GIT_PLACE_VARIABLES.contains(&name) {
            match value {
                Some(v) => {
                    for p in self.resolve(&v) {
                        self.emit(Effect::GitPlace(p));
                    }
                }
                None => self.unknown(raw.to_string()),
            }
            return;
        }
        // `GIT_PAGER=<cmd>`, `GIT_SSH_COMMAND=<cmd>`: text git runs, judged as if typed.
        if names_a_command(name) {
            match value.as_deref() {
                Some(v) => self.nested_text(v),
                None => self.unknown(raw.to_string()),
            }
        }
        if let Some(v) = value {
            self.named(&v, &format!("`{name}=`"));
        }
    }

    /// The command proper: `args[0]` is its name.
    fn command(
        &mut self,
        args: &[Arg],
        redirects: &[&Redirect],
        pos: Position,
    ) -> Option<Vec<Dir>> {
        let name = &args[0];
        let Some(program) = name.program().map(str::to_string) else {
            return self.dynamic_command(args);
        };
        match program.as_str() {
            "cd" | "pushd" => return self.change_dir(name, &args[1..]),
            "popd" => return self.pop_dir(&args[1..]),
            "alias" if args.iter().skip(1).any(|a| a.raw().contains('=')) => {
                self.unknown("an alias defined in the command");
                return None;
            }
            _ => {}
        }
        let rest = &args[1..];
        // Git says for itself where it runs (`-C`) and whether it only reads.
        if program != "git" {
            let reads = is_reader(&program, rest);
            self.runs_here(&program, reads);
        }
        match program.as_str() {
            "eval" => self.eval(rest),
            "source" | "." => self.source(rest, redirects),
            "trap" => {
                if let Some(t) = rest.first() {
                    match &t.text {
                        Some(text) => self.nested_text(text),
                        None => self.unknown(t.raw().to_string()),
                    }
                }
            }
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                for a in rest {
                    if is_assignment(a.raw()) {
                        self.assignment(a);
                    } else {
                        self.variable_set_at_run_time(a.text.as_deref(), a.raw());
                    }
                }
                return None;
            }
            "read" | "mapfile" | "readarray" | "getopts" => {
                for a in rest {
                    self.variable_set_at_run_time(a.text.as_deref(), a.raw());
                }
                if program != "read" && program != "getopts" {
                    self.callback(&program, rest);
                }
                return None;
            }
            "printf" if rest.first().is_some_and(|a| a.is("-v")) => {
                if let Some(v) = rest.get(1) {
                    self.variable_set_at_run_time(v.text.as_deref(), v.raw());
                }
            }
            _ => {}
        }
        self.program(&program, args, redirects, pos)
    }

    /// `read GIT_DIR`, `printf -v GIT_WORK_TREE ...`: git would be pointed somewhere only the
    /// running shell knows.
    fn variable_set_at_run_time(&mut self, name: Option<&str>, raw: &str) {
        let n = name.unwrap_or(raw);
        if GIT_PLACE_VARIABLES.contains(&n) || name.is_none() && raw.contains("GIT_") {
            self.unknown(format!("`{raw}` set at run time"));
        }
    }

    /// `mapfile -C cb`: the text `cb` runs with each line it reads appended, like a program
    /// `xargs` runs on words read at run time.
    fn callback(&mut self, program: &str, rest: &[Arg]) {
        let mut i = 0;
        while let Some(a) = rest.get(i) {
            i += 1;
            let Some(flags) = a.text.as_deref().and_then(|t| t.strip_prefix('-')) else {
                // A word only the shell knows may be `-C` too.
                if a.text.is_none() {
                    return self.unknown(format!("`{}` given to `{program}`", a.raw()));
                }
                return;
            };
            // Options with a value take the rest of the word, or the next word.
            let Some(at) = flags.find(['d', 'n', 'O', 's', 'u', 'c', 'C']) else {
                continue;
            };
            let value = match &flags[at + 1..] {
                "" => {
                    i += 1;
                    rest.get(i - 1).and_then(|v| v.text.clone())
                }
                glued => Some(glued.to_string()),
            };
            if flags.as_bytes()[at] != b'C' {
                continue;
            }
            let Some(text) = value else {
                return self.unknown(format!("the callback of `{program}`"));
            };
            let outer = self
                .handed
                .replace(format!("lines `{program}` reads at run time"));
            self.nested_text(&text);
            self.handed = outer;
        }
    }

    fn eval(&mut self, rest: &[Arg]) {
        let texts: Option<Vec<&str>> = rest.iter().map(|v| v.text.as_deref()).collect();
        match texts {
            Some(t) => self.nested_text(&t.join(" ")),
            None => self.unknown(raw_of(rest)),
        }
    }

    /// A command whose name only the shell knows (`$c x`, `$(echo cd) x`): it may be `cd`,
    /// so its first operand may be where the shell goes, and it may write what it names.
    pub(super) fn dynamic_command(&mut self, args: &[Arg]) -> Option<Vec<Dir>> {
        // Made by a command or from a value set at run time, the name may be a whole command
        // line (`$c` holding `touch ../x`): nothing of it is in the text.
        let raw: String = args[0]
            .raw()
            .chars()
            .filter(|c| !matches!(c, '"' | '\''))
            .collect();
        if raw.contains("$(") || raw.contains('`') || tainted_in(&raw, &self.tainted).is_some() {
            self.unknown(format!("`{}`, a command made at run time", args[0].raw()));
            return None;
        }
        // `"$PWD/s.sh"`: a path after all, which may be a file this command wrote.
        let path = self.known_prefix(&raw);
        if !path.contains(['$', '`']) {
            self.runs_file(&path, args[0].raw());
            if self.done {
                return None;
            }
        }
        self.runs_here(args[0].raw(), false);
        // A program only the shell knows may be git berth: its verbs are judged as berth's.
        if args[1..].iter().any(|a| a.is("ship") || a.is("approve")) {
            self.berth(&args[1..]);
        }
        for a in &args[1..] {
            if let Some(t) = &a.text {
                self.named(t, &format!("`{}`", args[0].raw()));
            }
        }
        let name = &args[0];
        let into = self.change_dir(name, &args[1..]);
        into.map(|mut d| {
            for old in &self.dirs {
                if !d.contains(old) {
                    d.push(old.clone());
                }
            }
            d
        })
    }

    /// What a named program does with its arguments. Returns where the shell goes when the
    /// program is a wrapped `cd` (`builtin cd x`).
    pub(super) fn program(
        &mut self,
        program: &str,
        args: &[Arg],
        redirects: &[&Redirect],
        pos: Position,
    ) -> Option<Vec<Dir>> {
        let rest = &args[1..];
        let by = format!("`{program}`");
        // A file this command wrote, run as code, is refused before anything else is judged.
        self.runners(program, rest);
        let fed = pos.piped_in || redirects.iter().any(|r| r.stdin_text());
        self.builds(program, rest, fed);
        let texts: Vec<String> = redirects
            .iter()
            .filter(|r| r.stdin_text())
            .filter_map(|r| match &r.heredoc {
                Some(h) => Some(h.body.clone()),
                None => scan::value(&r.target),
            })
            .collect();
        if !texts.is_empty() {
            self.fed_text_names_written(program, &texts);
        }
        if self.done {
            return None;
        }
        if self.done {
            return None;
        }
        // `script`'s word is the file it writes, not a command it wraps.
        if program == "script" {
            self.script(rest, &by);
            return None;
        }
        if WRAPPERS.contains(&program) {
            if self.depth >= scan::MAX_NESTING {
                self.unknown("commands wrapped too deep");
                return None;
            }
            self.depth += 1;
            let into = self.wrapper(program, args, redirects, pos);
            self.depth -= 1;
            return into;
        }
        if program == "git" {
            self.git(rest, redirects);
            return None;
        }
        if program == crate::names::BIN || program.ends_with(&format!("/{}", crate::names::BIN)) {
            self.berth(rest);
        }
        if SHELLS.contains(&program) {
            self.shell(program, rest, redirects, pos);
            return None;
        }
        if INTERPRETERS.contains(&program) {
            // The script is text to judge like any argument; read from a pipe, it is unknown.
            let has_script = rest.iter().any(|a| {
                a.text
                    .as_deref()
                    .is_some_and(|t| !t.starts_with('-') || matches!(t, "-c" | "-e" | "-E"))
            });
            if !has_script && pos.piped_in {
                self.unknown(format!("a script piped into `{program}`"));
                return None;
            }
            for r in redirects.iter().filter(|r| r.stdin_text()) {
                self.named_text(r, &by);
            }
        }
        if let Some(at) = exec_at(program, rest) {
            // `find ... -exec cmd {} \;`: the command runs as if wrapped.
            let end = rest[at + 1..]
                .iter()
                .position(|a| matches!(a.text.as_deref(), Some(";" | "+")))
                .map_or(rest.len(), |e| at + 1 + e);
            let inner = &rest[at + 1..end];
            if !inner.is_empty() {
                if self.depth >= scan::MAX_NESTING {
                    self.unknown("commands wrapped too deep");
                    return None;
                }
                self.depth += 1;
                self.inner_command(&by, inner, &[], pos, false);
                self.depth -= 1;
            }
        }
        if is_reader(program, rest) {
            return None;
        }
        // A symbolic link's words are read from where it lands, not judged as written; hard
        // links and sed's own writes add paths to the words judged below.
        if Walk::symbolic(program, rest) {
            self.link_targets(rest, &by);
            return None;
        }
        if program == "sed" {
            self.sed_scripts(rest, &by);
        }
        if let Some(dest) =
            copy_destination(program, rest).filter(|_| !Walk::cp_links(program, rest))
        {
            // `cp ../primary/.env .env` reads the primary and writes only where it copies to.
            match dest {
                Some(d) => self.writes_path(&d, &by, true),
                None => self.unknown(format!("where `{program}` copies to")),
            }
            return None;
        }
        for r in redirects.iter().filter(|r| r.stdin_text()) {
            self.named_text(r, &by);
        }
        self.named_args(rest, &by);
        None
    }

    /// `program` runs in every directory the shell may be in.
    pub(super) fn runs_here(&mut self, program: &str, reads: bool) {
        let dirs = self.dirs.clone();
        for d in &dirs {
            if let Dir::Path(p) = d {
                self.emit(Effect::Runs {
                    dir: p.clone(),
                    program: program.to_string(),
                    reads,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Effect;
    use super::super::tests::{fx, runs};

    #[test]
    fn a_cd_that_succeeds_moves_what_follows_and_one_that_may_fail_adds_a_place() {
        assert_eq!(
            fx("cd /a && make"),
            vec![Effect::Enters("/a".into()), runs("/a", "make", false)]
        );
        assert_eq!(
            fx("cd /a; make"),
            vec![
                Effect::Enters("/a".into()),
                runs("/w", "make", false),
                runs("/a", "make", false)
            ]
        );
    }

    #[test]
    fn a_subshell_or_a_pipeline_keeps_its_cd_to_itself() {
        assert_eq!(
            fx("(cd /a) && make"),
            vec![Effect::Enters("/a".into()), runs("/w", "make", false)]
        );
    }

    #[test]
    fn what_only_the_shell_knows_is_unknown() {
        for cmd in [
            "cd $X",
            "echo > \"$OUT\"",
            "cd -",
            "popd",
            "cd ~+/x",
            "curl x | sh",
            "alias c=cd",
            "for d in a b; do cd x; done",
            "read GIT_DIR",
        ] {
            assert!(
                fx(cmd).iter().any(|e| matches!(e, Effect::Unknown(_))),
                "{cmd}: {:?}",
                fx(cmd)
            );
        }
    }

    #[test]
    fn cd_dash_and_popd_return_where_the_command_itself_was() {
        assert_eq!(
            fx("cd /a && cd - && make"),
            vec![
                Effect::Enters("/a".into()),
                Effect::Enters("/w".into()),
                runs("/w", "make", false)
            ]
        );
        assert_eq!(
            fx("pushd /a && pushd /b && popd && popd && make"),
            vec![
                Effect::Enters("/a".into()),
                Effect::Enters("/b".into()),
                Effect::Enters("/w".into()),
                runs("/w", "make", false)
            ]
        );
        assert!(fx("cd \"$PWD/a\" && make").contains(&runs("/w/a", "make", false)));
        assert!(fx("cd \"$(pwd)\" && make").contains(&runs("/w", "make", false)));
        // Before the command's own `cd`, after one that may have failed, or past what it
        // pushed, the folder is the running shell's.
        for cmd in [
            "cd -; make",
            "cd /a; cd -",
            "pushd /a; popd",
            "pushd /a && popd && popd",
            "(cd /a) && cd -",
            "for d in a; do cd /a && cd -; done",
            "popd -n",
        ] {
            assert!(
                fx(cmd).iter().any(|e| matches!(e, Effect::Unknown(_))),
                "{cmd}: {:?}",
                fx(cmd)
            );
        }
    }

    #[test]
    fn writes_to_devices_and_names_too_long_to_open_are_no_files() {
        assert_eq!(
            fx("make > /dev/null 2>/dev/stderr"),
            vec![runs("/w", "make", false)]
        );
        let long = format!("touch {}", "x".repeat(5000));
        assert_eq!(fx(&long), vec![runs("/w", "touch", false)]);
    }

    #[test]
    fn too_many_possible_folders_are_unknown_not_slow() {
        let many = "cd a; ".repeat(100);
        assert!(fx(&many).iter().any(|e| matches!(e, Effect::Unknown(_))));
    }
}
