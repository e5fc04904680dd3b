//! Where a shell command's effects land: the directories each program runs in, the folders the
//! shell enters, the files redirections write, the paths programs that may write are handed,
//! and the repositories git is pointed at. It reads the text only (through `scan`); whatever
//! depends on the running shell is reported as unknown, so the decision can fail closed. Every
//! path is bounded: one walk over the scanned text, at most [`MAX_DIRS`] possible directories.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use super::scan::{self, NotShell, Op, Redirect, Tok, Word};

/// More possible current directories than this and the command is too tangled to follow.
pub const MAX_DIRS: usize = 16;

/// Linux's `PATH_MAX`: a path longer than this names nothing a program can open by name.
const MAX_PATH_BYTES: usize = 4096;

/// A directory the shell may be in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Dir {
    Path(PathBuf),
    /// A worktree berth itself named (`cd "$(git berth path x)"`): managed, so linked.
    Berth(String),
}

/// One thing the command does that the decision must judge.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Effect {
    /// `program` runs with `dir` as its working directory; `reads` when it only reads there.
    Runs {
        dir: PathBuf,
        program: String,
        reads: bool,
    },
    /// The shell enters `dir` (`cd`, `pushd`) and stays there for what follows.
    Enters(PathBuf),
    /// `by` may write `path`: a redirection's file, or a path handed to a program that can write.
    Writes { path: PathBuf, by: String },
    /// Git is pointed at this repository or work tree (`--git-dir`, `GIT_WORK_TREE`, ...).
    GitPlace(PathBuf),
    /// Configuration every worktree shares, which could send git into the primary.
    SharedConfig(String),
    /// Git, working on the checkout at `dir`, moves (or deletes, renames, pushes to, fetches
    /// into) `branch`.
    MovesBranch {
        dir: PathBuf,
        branch: Ref,
        by: String,
    },
    /// Git checks this branch out somewhere (`git checkout x`, `git worktree add p x`): what
    /// the same command commits afterwards may land on it.
    ChecksOut(String),
    /// A place or program only the running shell knows.
    Unknown(String),
}

/// A branch a git command writes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ref {
    /// Named in the command (`main`, `refs/heads/main`, `heads/*`): a refspec's destination, a
    /// branch to delete, reset or rename.
    Named(String),
    /// Every branch (`push --all`, `update-ref --stdin`, `filter-branch`).
    All,
    /// The branch checked out where git works (`commit`, `merge`, `reset`, a bare `push`).
    Current,
    /// A branch only the running shell knows (`git push origin "$B"`), shown as written.
    Unknown(String),
}

/// Does the branch name or refspec pattern `named` (`main`, `heads/main`, `refs/heads/*`)
/// name the branch `branch`? A pattern holds at most one `*`, as in git's refspecs.
pub fn names_branch(named: &str, branch: &str) -> bool {
    let full = |n: &str| -> String {
        if n.starts_with("refs/") {
            n.to_string()
        } else if n.starts_with("heads/") {
            format!("refs/{n}")
        } else {
            format!("refs/heads/{n}")
        }
    };
    let (pattern, target) = (full(named), format!("refs/heads/{branch}"));
    match pattern.split_once('*') {
        Some((pre, post)) => {
            target.len() >= pre.len() + post.len()
                && target.starts_with(pre)
                && target.ends_with(post)
        }
        None => pattern == target,
    }
}

/// What the guard knows of the agent's shell: its home and its `CDPATH`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Env<'a> {
    pub home: Option<&'a Path>,
    pub cdpath: Option<&'a str>,
}

/// Every effect of `command` run from `cwd`. An error means bash would not run the text as
/// written (or it nests too deep to follow): the caller blocks.
pub fn effects(command: &str, cwd: &Path, env: Env<'_>) -> Result<Vec<Effect>, NotShell> {
    let toks = scan::scan(command, 0)?;
    let mut walk = Walk {
        env,
        dirs: vec![Dir::Path(cwd.to_path_buf())],
        effects: Vec::new(),
        seen: HashSet::new(),
        depth: 0,
        loops: 0,
        home_set: false,
        cdpath_set: false,
        done: false,
        commands: 0,
        upstream: Vec::new(),
        last_words: Vec::new(),
        chdir: None,
        tainted: HashSet::new(),
        git_env: false,
        redefines: None,
        written: std::collections::HashMap::new(),
        cwd: cwd.to_path_buf(),
        piped: false,
        editor: false,
    };
    walk.taint(&toks);
    if let Some(what) = walk.redefines.take() {
        walk.unknown(what);
        return Ok(walk.effects);
    }
    walk.list(&toks);
    if walk.commands == 0 && walk.effects.is_empty() {
        // Nothing runs at all (an empty command, a comment): judged where the agent stands.
        walk.emit(Effect::Runs {
            dir: cwd.to_path_buf(),
            program: String::new(),
            reads: false,
        });
    }
    Ok(walk.effects)
}

// ---------------------------------------------------------------------------------------------
// Programs by what they may do.

/// Programs that only read the paths they are given (with the flags in `writes_with` they
/// write, and then count as writers).
const READERS: &[&str] = &[
    "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag", "diff", "cmp",
    "ls", "tree", "wc", "stat", "du", "find", "fd", "realpath", "readlink", "basename", "dirname",
    "echo", "printf", "pwd", "test", "[", "[[", "true", "false", "which", "type", "jq", "file",
];

/// Flags that make a reader write or run something.
fn reader_writes(program: &str, arg: &str) -> bool {
    match program {
        "find" => matches!(
            arg,
            "-delete"
                | "-exec"
                | "-execdir"
                | "-ok"
                | "-okdir"
                | "-fprint"
                | "-fprint0"
                | "-fprintf"
                | "-fls"
        ),
        "fd" => matches!(arg, "-x" | "--exec" | "-X" | "--exec-batch"),
        "rg" => arg == "--pre" || arg.starts_with("--pre="),
        "tree" => arg == "-o" || arg.starts_with("-o"),
        "printf" => arg == "-v",
        "file" => arg == "-C",
        _ => false,
    }
}

/// Shells whose `-c <text>` (or standard input) is a script we can read.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox", "fish",
];

/// Interpreters that run a script given inline (`-c`, `-e`) or on standard input.
const INTERPRETERS: &[&str] = &[
    "python",
    "python3",
    "python2",
    "node",
    "nodejs",
    "perl",
    "ruby",
    "php",
    "lua",
    "deno",
    "bun",
    "Rscript",
    "osascript",
    "tclsh",
    "awk",
    "gawk",
    "mawk",
    "nawk",
];

/// Words that wrap a command and run it (after their own options).
const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "env",
    "nice",
    "nohup",
    "timeout",
    "stdbuf",
    "setsid",
    "ionice",
    "chrt",
    "taskset",
    "xargs",
    "parallel",
    "exec",
    "command",
    "builtin",
    "time",
    "unbuffer",
    "chronic",
    "caffeinate",
    "flock",
    "strace",
    "ltrace",
    "watch",
    "script",
    "su",
    "runuser",
    "sg",
];

/// Wrapper options that take the next word as their value.
fn wrapper_takes_value(wrapper: &str, opt: &str) -> bool {
    match wrapper {
        "sudo" => matches!(
            opt,
            "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-r" | "-t" | "-U" | "-T" | "-R"
        ),
        "env" => matches!(
            opt,
            "-u" | "-C" | "-S" | "--unset" | "--chdir" | "--split-string"
        ),
        "nice" => matches!(opt, "-n" | "--adjustment"),
        "timeout" => matches!(opt, "-s" | "-k" | "--signal" | "--kill-after"),
        "stdbuf" => matches!(opt, "-i" | "-o" | "-e"),
        "ionice" => matches!(opt, "-c" | "-n" | "-p" | "-P" | "-u"),
        "taskset" | "chrt" => false,
        "xargs" => matches!(
            opt,
            "-I" | "-n"
                | "-P"
                | "-d"
                | "-E"
                | "-L"
                | "-s"
                | "-a"
                | "--arg-file"
                | "--delimiter"
                | "--max-args"
                | "--max-procs"
                | "--max-lines"
                | "--max-chars"
                | "--eof"
                | "--replace"
        ),
        "parallel" => matches!(opt, "-j" | "-S" | "--jobs" | "-a" | "--arg-file"),
        "exec" => matches!(opt, "-a"),
        "flock" => matches!(opt, "-w" | "--timeout" | "-E" | "--conflict-exit-code"),
        "strace" | "ltrace" => matches!(opt, "-o" | "-e" | "-p" | "-s" | "-u" | "-E"),
        "watch" => matches!(opt, "-n" | "--interval" | "-d"),
        "su" | "runuser" => matches!(opt, "-s" | "--shell" | "-g" | "-G" | "-u"),
        _ => false,
    }
}

/// Options of a wrapper whose value is shell text run as a command.
fn wrapper_text_option(wrapper: &str, opt: &str) -> bool {
    match wrapper {
        "env" => matches!(opt, "-S" | "--split-string"),
        "script" | "su" | "runuser" | "flock" | "sg" => matches!(opt, "-c" | "--command"),
        _ => false,
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

/// Variables that make git (or the pager and editor it starts) run a program or read other
/// configuration: with one set in the command, no git command only reads.
fn configures_git(name: &str) -> bool {
    (name.starts_with("GIT_") && !GIT_PLACE_VARIABLES.contains(&name))
        || matches!(
            name,
            "PAGER" | "EDITOR" | "VISUAL" | "LESSOPEN" | "LESSCLOSE"
        )
}

/// Git's variables that point it at another repository or work tree.
const GIT_PLACE_VARIABLES: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
];

/// Git verbs that only read (the working tree, the index and the refs stay as they are).
const GIT_READERS: &[&str] = &[
    "log",
    "show",
    "diff",
    "status",
    "blame",
    "grep",
    "ls-files",
    "ls-tree",
    "rev-parse",
    "describe",
    "shortlog",
    "cat-file",
    "show-ref",
    "rev-list",
    "merge-base",
    "for-each-ref",
    "name-rev",
    "whatchanged",
    "diff-tree",
    "diff-files",
    "diff-index",
    "check-ignore",
    "check-attr",
    "cherry",
    "count-objects",
    "var",
    "version",
    "help",
    "annotate",
    "range-diff",
];

/// Configuration sections an agent may write: none of their keys sends git elsewhere or makes
/// it run a program. Every other key (`core.*`, `alias.*`, `include*`, `diff.*`, `filter.*`,
/// `gpg.*`, `credential.*`, ...) is refused: the shared config would carry it into the primary.
const SAFE_GIT_SECTIONS: &[&str] = &[
    "user", "branch", "berth", "color", "log", "format", "pull", "push", "rebase", "fetch",
    "advice", "status", "column", "i18n", "rerere", "blame", "stash", "tag", "help",
];

fn safe_git_key(key: &str) -> bool {
    let section = key.split('.').next().unwrap_or("").to_ascii_lowercase();
    SAFE_GIT_SECTIONS.contains(&section.as_str()) && !key.to_ascii_lowercase().ends_with("program")
}

// ---------------------------------------------------------------------------------------------
// The walk.

struct Walk<'e> {
    env: Env<'e>,
    /// Every directory the shell may be in at this point.
    dirs: Vec<Dir>,
    effects: Vec<Effect>,
    seen: HashSet<Effect>,
    depth: usize,
    /// Inside a loop or after a function definition: a relative `cd` may repeat.
    loops: usize,
    /// The command sets `HOME` or `CDPATH` itself, so `~` and relative `cd` are unknown.
    home_set: bool,
    cdpath_set: bool,
    /// An unknown was found: the answer is a block whatever follows.
    done: bool,
    commands: usize,
    /// The literal words of the commands before this one in its pipeline (`xargs` input).
    upstream: Vec<String>,
    /// The literal words of the simple command just walked.
    last_words: Vec<String>,
    /// Where a wrapper (`env -C`, `sudo -D`) sends the command it runs.
    chdir: Option<Vec<Dir>>,
    /// Variables the command sets to values only the shell knows (`P=$(...)`, `read p`).
    tainted: HashSet<String>,
    /// The command configures git through its environment (`GIT_CONFIG_*`, `GIT_EXTERNAL_DIFF`).
    git_env: bool,
    /// Files this command writes, with their text when it is known (`cat > s.sh <<'EOF'`): a
    /// script run later in the same command is judged by that text.
    written: std::collections::HashMap<PathBuf, Option<String>>,
    /// Where the agent stands: the repository of a worktree berth named (`cd "$(git berth
    /// path x)"`) is the one found from here.
    cwd: PathBuf,
    /// The program being walked is run by `xargs`, which hands it more words.
    piped: bool,
    /// The command sets git's editor (`GIT_SEQUENCE_EDITOR=...`, `-c core.editor=...`) to
    /// something other than a no-op.
    editor: bool,
    /// Something in the command changes what names mean (a function, `hash -p`, `shopt -s
    /// cdable_vars`, `BASH_ENV`): found before the walk, it makes the whole command unknown.
    redefines: Option<String>,
}

/// A word with its value (`None`: only the shell knows it).
struct Arg<'w> {
    word: &'w Word,
    text: Option<String>,
}

impl Arg<'_> {
    fn is(&self, s: &str) -> bool {
        self.text.as_deref() == Some(s)
    }

    fn raw(&self) -> &str {
        &self.word.raw
    }

    /// The program's name: a bare word, or a path in a system `bin` folder. `./cat` is not
    /// `cat`: it is whatever that file is, so its whole path is its name.
    fn program(&self) -> Option<&str> {
        let t = self.text.as_deref()?;
        match t.rsplit_once('/') {
            Some((dir, name)) if SYSTEM_BIN.contains(&dir) => Some(name),
            Some(_) => Some(t),
            None => Some(t),
        }
    }
}

/// How a simple command stands in its pipeline.
#[derive(Clone, Copy)]
struct Position {
    /// Its standard input comes from the command before it.
    piped_in: bool,
}

impl Walk<'_> {
    fn emit(&mut self, e: Effect) {
        if self.done {
            return;
        }
        if matches!(e, Effect::Unknown(_)) {
            self.done = true;
        }
        if self.seen.insert(e.clone()) {
            self.effects.push(e);
        }
    }

    fn unknown(&mut self, what: impl Into<String>) {
        self.emit(Effect::Unknown(what.into()));
    }

    /// What the command sets for later parts of itself, found before the walk so a loop
    /// cannot use it before it is seen: `HOME`, `CDPATH`, variables given values only the
    /// shell knows, git's configuring variables, and anything that redefines names.
    fn taint(&mut self, toks: &[Tok]) {
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
        if unknown_value {
            self.tainted.insert(name.to_string());
        }
    }

    fn list(&mut self, toks: &[Tok]) {
        // Directories saved at each `(`, restored at its `)`: a subshell's `cd` stays inside.
        let mut saved: Vec<Vec<Dir>> = Vec::new();
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
            let entered = self.simple(&toks[start..i], Position { piped_in });
            match (op, entered) {
                // `cd x && y`: y runs only where the cd succeeded.
                (Some(Op::And), Some(into)) => self.dirs = into,
                // `cd x | y`: the cd ran in a subshell of the pipeline.
                (Some(Op::Pipe), Some(_)) => self.dirs = before,
                // Otherwise the cd may have failed: the shell is in either place.
                (_, Some(into)) => {
                    self.dirs = before;
                    for d in into {
                        self.add_dir(d);
                    }
                }
                _ => {}
            }
            piped_in = op == Some(Op::Pipe);
            if piped_in {
                let words = std::mem::take(&mut self.last_words);
                self.upstream.extend(words);
            } else {
                self.upstream.clear();
            }
            match op {
                Some(Op::Open) => saved.push(self.dirs.clone()),
                Some(Op::Close) => {
                    if let Some(d) = saved.pop() {
                        // What ran inside may have been skipped: keep the union small and safe.
                        let inside = std::mem::replace(&mut self.dirs, d);
                        let _ = inside;
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

    /// A nested command list (a substitution, `sh -c` text): it runs where the shell is now,
    /// in a subshell, so its `cd`s do not leak out.
    fn nested(&mut self, toks: &[Tok]) {
        if self.depth >= scan::MAX_NESTING {
            self.unknown("commands nested too deep");
            return;
        }
        let dirs = self.dirs.clone();
        let upstream = std::mem::take(&mut self.upstream);
        let loops = self.loops;
        self.depth += 1;
        self.list(toks);
        self.depth -= 1;
        self.dirs = dirs;
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
    fn nested_text(&mut self, text: &str) {
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
                    args.push(Arg {
                        word: w,
                        text: scan::value(w),
                    });
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
        if self.done {
            return None;
        }
        self.last_words = args.iter().filter_map(|a| a.text.clone()).collect();
        for r in &redirects {
            self.redirect(r);
        }
        self.remember_written(&args, &redirects);
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
        self.command(&args[at..], &redirects, pos)
    }

    fn redirect(&mut self, r: &Redirect) {
        if r.target.is_process_substitution() || !r.writes() {
            return;
        }
        let by = format!("`{}{}`", r.op, r.target.raw);
        match scan::value(&r.target) {
            Some(t) => self.writes_path(&t, &by, true),
            None => self.dynamic_path(&r.target, &by, true),
        }
    }

    /// `NAME=value` before a command, or as an argument of `export`, `declare`, `env`.
    fn assignment(&mut self, a: &Arg) {
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
        if program.contains('/') {
            // `./s.sh`: a script this command wrote is judged by its text.
            self.run_script(name, false);
        }
        match program.as_str() {
            "cd" | "pushd" => return self.change_dir(name, &args[1..]),
            "popd" => {
                self.unknown("popd");
                return None;
            }
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

    fn eval(&mut self, rest: &[Arg]) {
        let texts: Option<Vec<&str>> = rest.iter().map(|v| v.text.as_deref()).collect();
        match texts {
            Some(t) => self.nested_text(&t.join(" ")),
            None => self.unknown(raw_of(rest)),
        }
    }

    /// A command whose name only the shell knows (`$c x`, `$(echo cd) x`): it may be `cd`,
    /// so its first operand may be where the shell goes, and it may write what it names.
    fn dynamic_command(&mut self, args: &[Arg]) -> Option<Vec<Dir>> {
        self.runs_here(args[0].raw(), false);
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

    /// `cd`/`pushd` and their operand: where the shell goes if they succeed.
    fn change_dir(&mut self, name: &Arg, args: &[Arg]) -> Option<Vec<Dir>> {
        let mut operands = args.iter().skip_while(|v| {
            v.text
                .as_deref()
                .is_some_and(|t| t.starts_with('-') && t.len() > 1 && t != "--")
        });
        let mut dest = operands.next();
        if dest.is_some_and(|d| d.is("--")) {
            dest = operands.next();
        }
        let Some(dest) = dest else {
            if name.is("pushd") {
                self.unknown("pushd without a folder (it swaps to one only the shell knows)");
                return None;
            }
            return match (self.env.home, self.home_set) {
                (Some(h), false) => {
                    let h = Dir::Path(h.to_path_buf());
                    self.enter(&h);
                    Some(vec![h])
                }
                _ => {
                    self.unknown(format!("`{}` (home only the shell knows)", name.raw()));
                    None
                }
            };
        };
        if let Some(name) = berth_worktree(dest.raw()) {
            // If berth refuses, it prints nothing and `cd ""` stays where it was.
            let mut into = vec![Dir::Berth(name)];
            into.extend(self.dirs.iter().cloned());
            return Some(into);
        }
        let Some(text) = dest.text.as_deref() else {
            self.unknown(dest.raw().to_string());
            return None;
        };
        if text == "-" || (text.starts_with('+') && name.is("pushd")) {
            self.unknown(format!("{} {text}", name.raw()));
            return None;
        }
        if self.loops > 0 && !text.starts_with('/') && !text.starts_with('~') {
            self.unknown(format!(
                "`{} {text}` inside a loop or function (it may run any number of times)",
                name.raw()
            ));
            return None;
        }
        let mut places = self.resolve_dirs(text);
        // `cd src` searches CDPATH first, where one is set.
        let searched = !(text.starts_with('/')
            || text.starts_with('.')
            || text.starts_with('~')
            || text.is_empty());
        if searched {
            if self.cdpath_set {
                self.unknown(format!("`cd {text}` with a CDPATH the command sets"));
                return None;
            }
            if let Some(cdpath) = self.env.cdpath.filter(|c| !c.is_empty()) {
                for entry in cdpath.split(':') {
                    let base = if entry.is_empty() { "." } else { entry };
                    places.extend(self.resolve_dirs(&format!("{base}/{text}")));
                }
            }
        }
        if text.is_empty() {
            // `cd ""` stays where it is.
            return Some(self.dirs.clone());
        }
        for p in &places {
            self.enter(p);
        }
        if places.is_empty() {
            None
        } else {
            Some(places)
        }
    }

    fn enter(&mut self, d: &Dir) {
        if let Dir::Path(p) = d {
            self.emit(Effect::Enters(p.clone()));
        }
    }

    /// What a named program does with its arguments. Returns where the shell goes when the
    /// program is a wrapped `cd` (`builtin cd x`).
    fn program(
        &mut self,
        program: &str,
        args: &[Arg],
        redirects: &[&Redirect],
        pos: Position,
    ) -> Option<Vec<Dir>> {
        let rest = &args[1..];
        let by = format!("`{program}`");
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
        if let Some(dest) = copy_destination(program, rest) {
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

    /// Every argument of a program that may write: a literal is judged by the paths it names;
    /// a value only the shell knows by where it can lead.
    fn named_args(&mut self, args: &[Arg], by: &str) {
        for a in args {
            match &a.text {
                Some(t) => self.named(t, by),
                None => self.dynamic_path(a.word, by, false),
            }
        }
    }

    /// A word whose value only the shell knows, where a path may go. `$PWD`, `$(pwd)` and
    /// `$HOME` are known; a substitution or a variable this command sets is not (unknown); a
    /// glob or brace is judged by the folder it starts in, which must not be the primary or hold
    /// it, and must not climb out with `..`. A variable from the environment cannot be judged
    /// (the README says so), unless `strict`, where it is unknown.
    fn dynamic_path(&mut self, word: &Word, by: &str, strict: bool) {
        if self.done || berth_worktree(&word.raw).is_some() {
            return;
        }
        let raw = word.raw.as_str();
        let unknown = |w: &mut Self, why: &str| w.unknown(format!("`{raw}` ({why})"));
        if raw.contains("$'") {
            return unknown(self, "an escaped string");
        }
        let text: String = raw.chars().filter(|c| !matches!(c, '"' | '\'')).collect();
        let text = self.known_prefix(&text);
        if let Some(name) = tainted_in(&text, &self.tainted) {
            return unknown(self, &format!("`{name}` is set by the command itself"));
        }
        if text.contains("$(") || text.contains('`') {
            return unknown(self, "a value made by a command");
        }
        let first = text.find(['$', '*', '?', '[', '{']).unwrap_or(text.len());
        if computed(&text) {
            return unknown(self, "a value the shell computes");
        }
        if strict && text[first..].starts_with(['*', '?', '[', '{']) {
            return unknown(self, "a pattern that may name any file");
        }
        if first == 0 && text.starts_with('$') {
            if strict {
                unknown(self, "a variable");
            }
            return;
        }
        if text[first..].contains("..") {
            return unknown(self, "it may climb out of its folder");
        }
        let folder = match text[..first].rfind('/') {
            Some(0) => "/".to_string(),
            Some(i) => text[..i].to_string(),
            None => ".".to_string(),
        };
        for path in self.resolve(&folder) {
            self.emit(Effect::Writes {
                path,
                by: by.to_string(),
            });
        }
    }

    /// `$PWD`, `${PWD}`, `$(pwd)` or `` `pwd` `` at the start of a word is the folder the shell
    /// is in (when there is one), and `$HOME` the home the guard knows (when the command does
    /// not set it).
    fn known_prefix(&self, text: &str) -> String {
        for pwd in ["${PWD}", "$PWD", "$(pwd)", "`pwd`"] {
            if let Some(rest) = text.strip_prefix(pwd)
                && let [Dir::Path(d)] = self.dirs.as_slice()
                && !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            {
                return format!("{}{rest}", d.display());
            }
        }
        for home in ["${HOME}", "$HOME"] {
            if let Some(rest) = text.strip_prefix(home)
                && let (Some(h), false) = (self.env.home, self.home_set)
                && !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            {
                return format!("{}{rest}", h.display());
            }
        }
        text.to_string()
    }

    /// `sudo`, `env`, `xargs`, `timeout 5`, ...: their options, then the command they run.
    fn wrapper(
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
        let into = self.inner_command(&by, inner, redirects, pos, xargs);
        match shell_dirs {
            // A `cd` run inside `env -C` changes nothing for the shell.
            Some(d) => {
                self.dirs = d;
                None
            }
            None => into,
        }
    }
}

impl Walk<'_> {
    /// The command a wrapper (or `find -exec`) runs: judged as if it stood alone, and what it
    /// is handed may be written. Returns where the shell goes if it is a `cd`.
    fn inner_command(
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
                let reads = is_reader(&p, &inner[1..]);
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
                for w in std::mem::take(&mut self.upstream) {
                    self.named(&w, by);
                }
            }
        }
        into
    }

    /// `env -C dir`, `sudo -D dir`: the wrapped command runs there (see `self.chdir`).
    fn chdir_to(&mut self, text: Option<&str>, raw: &str) {
        match text {
            Some(t) => {
                let dirs = self.resolve_dirs(t);
                for d in &dirs {
                    if let Dir::Path(p) = d {
                        self.emit(Effect::Runs {
                            dir: p.clone(),
                            program: raw.to_string(),
                            reads: false,
                        });
                    }
                }
                self.chdir = Some(dirs);
            }
            None => self.unknown(raw.to_string()),
        }
    }

    /// `sh -c 'text'`, `bash -s <<EOF`, `... | sh`.
    fn shell(&mut self, program: &str, rest: &[Arg], redirects: &[&Redirect], pos: Position) {
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
                    let text = rest[i + 1..].iter().find(|a| {
                        a.text
                            .as_deref()
                            .is_none_or(|t| !(t.starts_with('-') || t.starts_with('+')))
                    });
                    match text.and_then(|a| a.text.clone()) {
                        Some(text) => {
                            self.named(&text, &by);
                            self.nested_text(&text);
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
            // `bash script.sh`: a script this command wrote is judged by its text; any other
            // script's text is not in the command, but what it is handed is.
            if let Some(script) = rest.get(i) {
                self.run_script(script, false);
            }
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

    /// A here-document or here-string handed to a program that may write: what it names counts.
    fn named_text(&mut self, r: &Redirect, by: &str) {
        match &r.heredoc {
            Some(h) => {
                let body = h.body.clone();
                self.named(&body, by)
            }
            None => {
                if let Some(t) = scan::value(&r.target) {
                    self.named(&t, by)
                }
            }
        }
    }

    /// Git: its global options, then its verb.
    fn git(&mut self, rest: &[Arg], redirects: &[&Redirect]) {
        let by = "`git`";
        let mut i = 0;
        let mut work: Vec<Dir> = self.dirs.clone();
        let mut configured = false;
        while let Some(a) = rest.get(i) {
            let Some(t) = a.text.as_deref() else {
                self.unknown(a.raw().to_string());
                return;
            };
            if !t.starts_with('-') {
                break;
            }
            let (opt, glued) = split_option(t);
            let value = || {
                glued
                    .map(str::to_string)
                    .or_else(|| rest.get(i + 1)?.text.clone())
            };
            let takes = matches!(
                opt,
                "-C" | "-c"
                    | "--git-dir"
                    | "--work-tree"
                    | "--namespace"
                    | "--config-env"
                    | "--exec-path"
                    | "--super-prefix"
                    | "--list-cmds"
                    | "--attr-source"
            ) && glued.is_none()
                && opt != "--exec-path";
            match opt {
                "-C" => match value() {
                    Some(v) => {
                        let mut next = Vec::new();
                        for d in &work {
                            next.extend(self.resolve_from(d, &v));
                        }
                        work = next;
                    }
                    None => {
                        self.unknown(raw_of(&rest[i..(i + 2).min(rest.len())]));
                        return;
                    }
                },
                "--git-dir" | "--work-tree" => match value() {
                    Some(v) => {
                        for d in work.clone() {
                            for p in self.resolve_from(&d, &v) {
                                if let Dir::Path(p) = p {
                                    self.emit(Effect::GitPlace(p));
                                }
                            }
                        }
                    }
                    None => {
                        self.unknown(raw_of(&rest[i..(i + 2).min(rest.len())]));
                        return;
                    }
                },
                "-c" | "--config-env" | "--exec-path" => {
                    configured = true;
                    if let Some(v) = value() {
                        if let Some((key, val)) = v.split_once('=')
                            && matches!(
                                key.to_ascii_lowercase().as_str(),
                                "core.editor" | "sequence.editor"
                            )
                        {
                            self.editor |= !is_no_op_editor(val);
                        }
                        if let Some((key, val)) = v.split_once('=')
                            && key.to_ascii_lowercase().starts_with("alias.")
                        {
                            // `!text` is shell text; any other alias is more words for git.
                            match val.strip_prefix('!') {
                                Some(text) => self.nested_text(text),
                                None => self.nested_text(&format!("git {val}")),
                            }
                        }
                        self.named(&v, by);
                    }
                }
                _ => {}
            }
            i += if takes { 2 } else { 1 };
        }
        let verb = rest.get(i).and_then(|a| a.text.clone());
        let args = &rest[(i + 1).min(rest.len())..];
        let configured = configured || self.git_env;
        let reader = !configured && verb.as_deref().is_some_and(|v| git_reads(v, args));
        if verb.as_deref() == Some("config") {
            self.git_config(args);
        }
        if let Some(v) = verb.as_deref() {
            self.branch_effects(v, &rest[i..], &work);
        }
        let program = format!("git {}", verb.as_deref().unwrap_or(""))
            .trim_end()
            .to_string();
        for d in &work {
            if let Dir::Path(p) = d {
                self.emit(Effect::Runs {
                    dir: p.clone(),
                    program: program.clone(),
                    reads: reader,
                });
            }
        }
        if reader {
            return;
        }
        for r in redirects.iter().filter(|r| r.stdin_text()) {
            self.named_text(r, by);
        }
        // A message is text, not a path.
        let mut skip_next = false;
        for a in args {
            if skip_next {
                skip_next = false;
                continue;
            }
            let Some(t) = a.text.as_deref() else { continue };
            if matches!(t, "-m" | "--message") {
                skip_next = true;
                continue;
            }
            if t.starts_with("--message=") || (t.starts_with("-m") && !t.starts_with("--")) {
                continue;
            }
            let saved = std::mem::replace(&mut self.dirs, work.clone());
            self.named(t, by);
            self.dirs = saved;
        }
    }

    /// The branches git writes (see [`branch_writes`]), each judged in every place git may
    /// work: the folders it runs in and the repositories it is pointed at.
    fn branch_effects(&mut self, verb: &str, from_verb: &[Arg], work: &[Dir]) {
        let writes = branch_writes(verb, &from_verb[1..], self.piped, self.editor);
        if let Some(b) = writes.checks_out {
            self.emit(Effect::ChecksOut(b));
        }
        for text in &writes.runs {
            match text {
                Some(t) => self.nested_text(t),
                None => self.unknown(format!("what `git {verb}` runs")),
            }
        }
        if writes.refs.is_empty() {
            return;
        }
        let by = short(&format!("git {}", raw_of(from_verb)).replace('\n', " "));
        let mut dirs: Vec<PathBuf> = Vec::new();
        for d in work {
            match d {
                Dir::Path(p) => dirs.push(p.clone()),
                // berth gave that worktree a branch of its own: only a branch named in the
                // command can be the trunk, and the trunk is the agent's repository's.
                Dir::Berth(_) => dirs.push(self.cwd.clone()),
            }
        }
        let places = self.effects.iter().filter_map(|e| match e {
            Effect::GitPlace(p) => Some(p.clone()),
            _ => None,
        });
        dirs.extend(places.collect::<Vec<_>>());
        let berth_only = work.iter().all(|d| matches!(d, Dir::Berth(_)));
        for branch in writes.refs {
            if branch == Ref::Current && berth_only {
                continue;
            }
            for dir in &dirs {
                self.emit(Effect::MovesBranch {
                    dir: dir.clone(),
                    branch: branch.clone(),
                    by: by.clone(),
                });
            }
        }
    }

    fn git_config(&mut self, args: &[Arg]) {
        let texts: Vec<&str> = args.iter().filter_map(|a| a.text.as_deref()).collect();
        let reads = texts.iter().any(|t| {
            matches!(
                *t,
                "--get"
                    | "--get-all"
                    | "--get-regexp"
                    | "--list"
                    | "-l"
                    | "get"
                    | "list"
                    | "--get-urlmatch"
                    | "--show-origin"
            )
        }) || texts.iter().filter(|t| !t.starts_with('-')).count() <= 1
            && !texts.iter().any(|t| {
                t.starts_with("--unset")
                    || t.ends_with("-section")
                    || matches!(*t, "--edit" | "-e" | "edit" | "unset" | "set")
            });
        if reads {
            return;
        }
        let section_op = texts.iter().find(|t| {
            matches!(
                **t,
                "--rename-section"
                    | "--remove-section"
                    | "rename-section"
                    | "remove-section"
                    | "--edit"
                    | "-e"
                    | "edit"
            )
        });
        if let Some(op) = section_op {
            self.emit(Effect::SharedConfig(format!("git config {op}")));
        }
        // The key: the first operand that is not a subcommand (`set`, `unset`, ...).
        let mut skip_value = false;
        for t in &texts {
            if skip_value {
                skip_value = false;
                continue;
            }
            if matches!(
                *t,
                "-f" | "--file" | "--blob" | "--type" | "--default" | "--comment"
            ) {
                skip_value = true;
                continue;
            }
            if t.starts_with('-')
                || matches!(
                    *t,
                    "set" | "unset" | "add" | "replace-all" | "rename" | "get"
                )
            {
                continue;
            }
            if !safe_git_key(t) {
                self.emit(Effect::SharedConfig(format!("git config {t}")));
            }
            break;
        }
        if args.iter().any(|a| a.text.is_none()) {
            self.unknown(format!("`git config {}`", raw_of(args)));
        }
    }

    /// Every path `text` may name for a program that may write: the word itself, a value glued
    /// to an option (`-C../x`, `--prefix=../x`), and path-like pieces of inline script text.
    fn named(&mut self, text: &str, by: &str) {
        if self.done || text.is_empty() {
            return;
        }
        let mut candidates: Vec<&str> = Vec::new();
        if !text.starts_with('-') {
            candidates.push(text);
        } else if !text.starts_with("--") && text.len() > 2 && text.is_char_boundary(2) {
            candidates.push(&text[2..]);
        }
        let is_sep = |c: char| {
            !(c.is_alphanumeric()
                || matches!(c, '.' | '_' | '-' | '/' | '~' | '@' | '+' | '%' | ':' | ','))
        };
        if text.contains(is_sep) || text.contains("=") {
            for piece in text.split(|c: char| is_sep(c) || c == '=') {
                if piece != text
                    && (piece.contains('/') || piece == ".." || piece == "~")
                    && !piece.contains("://")
                {
                    candidates.push(piece);
                }
            }
        }
        for c in candidates {
            self.writes_path(c, by, false);
        }
    }

    /// A path a program may write, resolved against every directory the shell may be in.
    fn writes_path(&mut self, text: &str, by: &str, strict: bool) {
        if text.is_empty() {
            if strict {
                self.unknown(format!("{by} (an empty file name)"));
            }
            return;
        }
        if text.starts_with('~') && (self.home_set || self.env.home.is_none()) {
            if strict || text == "~" || text.starts_with("~/") {
                self.unknown(format!("{text} (home only the shell knows)"));
            }
            return;
        }
        if text.starts_with('~') && !(text == "~" || text.starts_with("~/")) {
            // `~user` needs the password database.
            if strict {
                self.unknown(text.to_string());
            }
            return;
        }
        for p in self.resolve(text) {
            self.emit(Effect::Writes {
                path: p,
                by: by.to_string(),
            });
        }
    }

    /// Every absolute path `text` names, one per directory the shell may be in.
    fn resolve(&mut self, text: &str) -> Vec<PathBuf> {
        self.resolve_dirs(text)
            .into_iter()
            .filter_map(|d| match d {
                Dir::Path(p) => Some(p),
                Dir::Berth(_) => None,
            })
            .collect()
    }

    fn resolve_dirs(&mut self, text: &str) -> Vec<Dir> {
        let dirs = self.dirs.clone();
        let mut out = Vec::new();
        for d in &dirs {
            for p in self.resolve_from(d, text) {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// `text` from directory `d`: `~` expanded, relative paths joined and `.`/`..` folded.
    fn resolve_from(&mut self, d: &Dir, text: &str) -> Vec<Dir> {
        if text.starts_with('~') && !(text == "~" || text.starts_with("~/")) {
            // `~user`, `~+`, `~-`: the password database or the shell's own variables.
            self.unknown(text.to_string());
            return Vec::new();
        }
        let path = if text == "~" || text.starts_with("~/") {
            match (self.env.home, self.home_set) {
                (Some(h), false) => h.join(text.trim_start_matches('~').trim_start_matches('/')),
                _ => {
                    self.unknown(format!("{text} (home only the shell knows)"));
                    return Vec::new();
                }
            }
        } else {
            PathBuf::from(text)
        };
        let folded = match d {
            _ if path.is_absolute() => fold(&path),
            Dir::Path(base) => fold(&base.join(&path)),
            Dir::Berth(_) => PathBuf::new(),
        };
        if folded.as_os_str().len() > MAX_PATH_BYTES {
            self.unknown(format!("a path longer than {MAX_PATH_BYTES} bytes"));
            return Vec::new();
        }
        if path.is_absolute() {
            return vec![Dir::Path(folded)];
        }
        match d {
            Dir::Path(_) => vec![Dir::Path(folded)],
            // Inside a worktree berth named, a path that does not climb out stays in it.
            Dir::Berth(name) => {
                if path.components().any(|c| c == Component::ParentDir) {
                    self.unknown(format!("{text} from the worktree `{name}`"));
                    Vec::new()
                } else {
                    vec![d.clone()]
                }
            }
        }
    }
}

/// `.` and `..` folded by hand (symlinks are for the probe to follow).
fn fold(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    out.push("/");
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push("/");
    }
    out
}

/// Does this git verb (with these arguments) only read?
fn git_reads(verb: &str, args: &[Arg]) -> bool {
    let texts: Vec<Option<&str>> = args.iter().map(|a| a.text.as_deref()).collect();
    let has = |f: &dyn Fn(&str) -> bool| texts.iter().any(|t| t.is_some_and(f));
    if GIT_READERS.contains(&verb) {
        // `--output` writes a file; `--open-files-in-pager` and `--ext-diff` run programs.
        return !has(&|t| {
            t.starts_with("--output")
                || t.starts_with("--open-files-in-pager")
                || t == "-O"
                || t == "--ext-diff"
                || t.starts_with("--exec")
        });
    }
    let operands = texts
        .iter()
        .filter(|t| t.is_none_or(|t| !t.starts_with('-')))
        .count();
    match verb {
        "branch" | "tag" => {
            operands == 0
                || has(&|t| {
                    matches!(
                        t,
                        "--list"
                            | "-l"
                            | "--contains"
                            | "--merged"
                            | "--no-merged"
                            | "--show-current"
                    )
                }) && !has(&|t| {
                    matches!(
                        t,
                        "-d" | "-D" | "-f" | "--force" | "-m" | "-M" | "-c" | "-C" | "--delete"
                    )
                })
        }
        "remote" => {
            operands == 0
                || texts.first().copied().flatten() == Some("-v")
                || matches!(texts.first().copied().flatten(), Some("show" | "get-url"))
        }
        "worktree" => matches!(texts.first().copied().flatten(), Some("list")),
        "stash" => matches!(texts.first().copied().flatten(), Some("list" | "show")),
        "reflog" => operands == 0 || matches!(texts.first().copied().flatten(), Some("show")),
        "symbolic-ref" => operands <= 1 && !has(&|t| t == "-d" || t == "--delete"),
        "config" => false,
        _ => false,
    }
}

/// `cd "$(git berth path x)"`, `cd "$(git berth add x)"`: the worktree berth prints.
fn berth_worktree(raw: &str) -> Option<String> {
    let inner = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw)
        .strip_prefix("$(")?
        .strip_suffix(')')?;
    if !super::whitelist::is_whitelisted(inner) {
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
fn split_option(t: &str) -> (&str, Option<&str>) {
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

fn is_assignment(raw: &str) -> bool {
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

fn raw_of(args: &[Arg]) -> String {
    args.iter().map(Arg::raw).collect::<Vec<_>>().join(" ")
}

/// At most 80 characters of `text`, for a message.
fn short(text: &str) -> String {
    let t: String = text.chars().take(80).collect();
    if t.len() < text.len() {
        format!("{t}...")
    } else {
        t
    }
}

impl Walk<'_> {
    /// `program` runs in every directory the shell may be in.
    fn runs_here(&mut self, program: &str, reads: bool) {
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

/// A program known to only read what it is given, used without a flag that writes. Where a
/// flag could make it write, an argument only the shell knows might be that flag.
fn is_reader(program: &str, rest: &[Arg]) -> bool {
    let has_writing_flags = matches!(program, "find" | "fd" | "rg" | "tree" | "printf" | "file");
    READERS.contains(&program)
        && !rest.iter().any(|a| match a.text.as_deref() {
            Some(t) => reader_writes(program, t),
            None => has_writing_flags,
        })
}

/// `${x%/*}`, `${x:-y}`, `${x/a/b}`, `$((...))`: a value the shell computes from others.
fn computed(text: &str) -> bool {
    if text.contains("$((") {
        return true;
    }
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        rest = &rest[i + 2..];
        let inner = rest.split('}').next().unwrap_or(rest);
        if inner.contains(['%', '#', '/', ':', '^', ',', '@', '!', '[']) {
            return true;
        }
    }
    false
}

/// For programs that copy (and leave their sources alone): `Some(destination)`, or
/// `Some(None)` when the destination only the shell knows. `None` for any other program.
fn copy_destination(program: &str, rest: &[Arg]) -> Option<Option<String>> {
    if !matches!(program, "cp" | "install" | "rsync" | "scp") {
        return None;
    }
    let texts: Vec<Option<&str>> = rest.iter().map(|a| a.text.as_deref()).collect();
    if texts
        .iter()
        .any(|t| t.is_some_and(|t| t.starts_with("--remove-source") || t == "-l" || t == "--link"))
    {
        // Moving or hard-linking: the sources are touched too.
        return None;
    }
    let mut i = 0;
    let mut last = None;
    let mut operands = 0;
    while i < texts.len() {
        match texts[i] {
            Some("-t") | Some("--target-directory") => {
                return Some(texts.get(i + 1).copied().flatten().map(str::to_string));
            }
            Some(t) if t.starts_with("--target-directory=") => {
                return Some(Some(t["--target-directory=".len()..].to_string()));
            }
            Some(t) if t.starts_with("-t") && t.len() > 2 => {
                return Some(Some(t[2..].to_string()));
            }
            Some(t) if t.starts_with('-') && t.len() > 1 => {
                // install's `-m 644`, `-o u`, `-g g` and rsync's `-e ssh` take a value.
                if matches!(
                    (program, t),
                    ("install", "-m" | "-o" | "-g") | ("rsync", "-e")
                ) {
                    i += 1;
                }
            }
            t => {
                last = Some(t);
                operands += 1;
            }
        }
        i += 1;
    }
    if operands < 2 {
        return Some(last.flatten().map(str::to_string).filter(|_| operands == 1));
    }
    Some(last.flatten().map(str::to_string))
}

/// The first variable in `text` that the command sets to a value only the shell knows.
fn tainted_in(text: &str, tainted: &HashSet<String>) -> Option<String> {
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        rest = &rest[i + 1..];
        let name: String = rest
            .trim_start_matches('{')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if tainted.contains(&name) {
            return Some(name);
        }
    }
    None
}

impl Walk<'_> {
    /// `source file` runs the file in this very shell: a file on disk is the user's script (not
    /// judged), but text made here (`/dev/stdin` with a here-document, `<(...)`) is read.
    fn source(&mut self, rest: &[Arg], redirects: &[&Redirect]) {
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
            self.run_script(file, true);
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

/// Where `find`'s (or `fd`'s) `-exec` starts among its arguments.
fn exec_at(program: &str, rest: &[Arg]) -> Option<usize> {
    let flags: &[&str] = match program {
        "find" => &["-exec", "-execdir", "-ok", "-okdir"],
        "fd" | "fdfind" => &["-x", "--exec", "-X", "--exec-batch"],
        _ => return None,
    };
    rest.iter()
        .position(|a| a.text.as_deref().is_some_and(|t| flags.contains(&t)))
}

impl Walk<'_> {
    /// `cat > s.sh <<'EOF' ... EOF` keeps the script's text; any other write to a file makes
    /// its text unknown for the rest of the command.
    fn remember_written(&mut self, args: &[Arg], redirects: &[&Redirect]) {
        let body = match args.first().and_then(|a| a.program()) {
            Some("cat") if args.len() == 1 => redirects.iter().find_map(|r| match &r.heredoc {
                Some(h) if h.quoted || (h.subs.is_empty() && !h.body.contains('$')) => {
                    Some(h.body.clone())
                }
                _ => None,
            }),
            _ => None,
        };
        for r in redirects.iter().filter(|r| r.writes()) {
            if let Some(t) = scan::value(&r.target) {
                for p in self.resolve(&t) {
                    self.written.insert(p, body.clone());
                }
            }
        }
    }

    /// A script run by path (`bash s.sh`, `source s.sh`, `./s.sh`): one this command wrote is
    /// judged by its text, in this shell when `sourced`.
    fn run_script(&mut self, script: &Arg, sourced: bool) {
        let Some(t) = script.text.as_deref() else {
            return;
        };
        for p in self.resolve(t) {
            match self.written.get(&p).cloned() {
                Some(Some(text)) if sourced => self.sourced_text(&text),
                Some(Some(text)) => self.nested_text(&text),
                Some(None) => self.unknown(format!("`{t}` (a script this command writes)")),
                None => {}
            }
        }
    }
}

/// A word of a git command as a branch may be named: its text, or its raw form when only the
/// shell knows it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum GitWord<'a> {
    Known(&'a str),
    Shell(&'a str),
}

impl<'a> GitWord<'a> {
    fn of(a: &'a Arg<'_>) -> GitWord<'a> {
        match a.text.as_deref() {
            Some(t) => GitWord::Known(t),
            None => GitWord::Shell(a.raw()),
        }
    }

    /// The branch this word names: `HEAD` (and what prints the current branch) is the one
    /// checked out, a leading `+` (force) is not part of the name.
    fn branch(self) -> Ref {
        match self {
            GitWord::Known("HEAD" | "@") => Ref::Current,
            GitWord::Known(t) => Ref::Named(t.trim_start_matches('+').to_string()),
            GitWord::Shell(raw) if prints_current_branch(raw) => Ref::Current,
            GitWord::Shell(raw) => Ref::Unknown(raw.to_string()),
        }
    }

    fn text(self) -> Option<&'a str> {
        match self {
            GitWord::Known(t) => Some(t),
            GitWord::Shell(_) => None,
        }
    }
}

/// `"$(git branch --show-current)"` and its kin: the branch checked out where it runs.
fn prints_current_branch(raw: &str) -> bool {
    let inner = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    matches!(
        inner,
        "$(git branch --show-current)"
            | "$(git rev-parse --abbrev-ref HEAD)"
            | "$(git symbolic-ref --short HEAD)"
    )
}

/// A git command's words after its verb, read as git's option parser reads them.
#[derive(Default)]
struct GitWords<'a> {
    /// Options without a value, one per letter of a bundle (`-fd` is `-f` and `-d`).
    flags: Vec<String>,
    /// Options that take a value, with it (given apart or glued on).
    values: Vec<(String, Option<GitWord<'a>>)>,
    operands: Vec<GitWord<'a>>,
    /// A `--` came before the operands after it.
    dashdash: bool,
}

impl<'a> GitWords<'a> {
    /// Reads `args`; the options in `takes_value` take the word after them (or what is glued
    /// on). A word only the shell knows is an operand.
    fn read(args: &'a [Arg<'_>], takes_value: &[&str]) -> GitWords<'a> {
        let mut out = GitWords::default();
        let mut i = 0;
        while let Some(a) = args.get(i) {
            i += 1;
            let w = GitWord::of(a);
            let t = match w {
                GitWord::Known(t) if !out.dashdash && t.starts_with('-') && t != "-" => t,
                _ => {
                    out.operands.push(w);
                    continue;
                }
            };
            if t == "--" {
                out.dashdash = true;
                continue;
            }
            let mut take = |opt: &str, glued: &'a str, out: &mut GitWords<'a>| {
                let v = if glued.is_empty() {
                    i += 1;
                    args.get(i - 1).map(GitWord::of)
                } else {
                    Some(GitWord::Known(glued))
                };
                out.values.push((opt.to_string(), v));
            };
            if t.starts_with("--") {
                let (opt, glued) = split_option(t);
                if takes_value.contains(&opt) {
                    take(opt, glued.unwrap_or(""), &mut out);
                } else {
                    out.flags.push(opt.to_string());
                }
                continue;
            }
            // A bundle of short options: the first that takes a value takes the rest of the
            // word, or the next word.
            for (at, c) in t.char_indices().skip(1) {
                let opt = format!("-{c}");
                if takes_value.contains(&opt.as_str()) {
                    take(&opt, &t[at + c.len_utf8()..], &mut out);
                    break;
                }
                out.flags.push(opt);
            }
        }
        out
    }

    fn has(&self, flags: &[&str]) -> bool {
        self.flags.iter().any(|f| flags.contains(&f.as_str()))
    }

    /// The value of the last of `opts` given (`Some(None)`: given, with no word after it).
    fn value(&self, opts: &[&str]) -> Option<Option<GitWord<'a>>> {
        self.values
            .iter()
            .rev()
            .find(|(o, _)| opts.contains(&o.as_str()))
            .map(|(_, v)| *v)
    }
}

/// What a git command may do to branches.
#[derive(Default, Debug, PartialEq, Eq)]
struct BranchWrites {
    refs: Vec<Ref>,
    checks_out: Option<String>,
    /// Shell text git runs on the way (`rebase --exec`, `bisect run`), which may write
    /// branches itself; `None` in it is text only the shell knows.
    runs: Vec<Option<String>>,
}

/// Variables that name the program git runs to edit text (a rebase's todo list among it).
const EDITOR_VARIABLES: &[&str] = &["GIT_SEQUENCE_EDITOR", "GIT_EDITOR", "VISUAL", "EDITOR"];

/// An editor that leaves the text as git wrote it.
fn is_no_op_editor(program: &str) -> bool {
    matches!(
        program.trim(),
        "true" | ":" | "cat" | "/bin/true" | "/usr/bin/true"
    )
}

/// The verbs that make a commit on, or reset, the branch checked out where they run.
const GIT_MOVES_CURRENT: &[&str] = &[
    "commit",
    "merge",
    "reset",
    "cherry-pick",
    "revert",
    "am",
    "pull",
];

/// The branches a git command writes, read from its words: by name (deletes, renames,
/// force-resets, pushes to, fetches into), all of them, the one checked out where it runs, or
/// ones only the shell knows. `piped`: `xargs` hands it more words, which may name any branch.
/// `editor`: the command sets git's editor to a program of its own.
fn branch_writes(verb: &str, args: &[Arg], piped: bool, editor: bool) -> BranchWrites {
    let mut out = BranchWrites::default();
    let words = |takes_value: &[&str]| GitWords::read(args, takes_value);
    let named = |ws: &[GitWord]| -> Vec<Ref> { ws.iter().map(|w| w.branch()).collect() };
    match verb {
        "push" | "send-pack" => {
            let w = words(&["-o", "--push-option", "--repo", "--receive-pack", "--exec"]);
            if w.has(&["--all", "--mirror", "--branches"]) {
                out.refs.push(Ref::All);
            }
            let specs = w.operands.get(1..).unwrap_or_default();
            if specs.is_empty() {
                // What `push.default` pushes: the branch checked out, to its upstream.
                out.refs.push(Ref::Current);
            }
            let deletes = w.has(&["-d", "--delete"]);
            for spec in specs {
                // `src:dst` writes dst; `src` alone writes the branch of that name.
                let dst = match *spec {
                    GitWord::Known(t) if !deletes => {
                        let t = t.trim_start_matches('+');
                        match t.split_once(':') {
                            Some((_, dst)) if !dst.is_empty() => GitWord::Known(dst),
                            Some((src, _)) => GitWord::Known(src),
                            None => GitWord::Known(t),
                        }
                    }
                    other => other,
                };
                // `^ref` excludes; it writes nothing.
                if dst.text().is_none_or(|t| !t.starts_with('^')) {
                    out.refs.push(dst.branch());
                }
            }
        }
        "fetch" | "pull" => {
            let w = words(&[
                "-o",
                "--server-option",
                "--depth",
                "--deepen",
                "--shallow-since",
                "--shallow-exclude",
                "-j",
                "--jobs",
                "--upload-pack",
                "--negotiation-tip",
                "--refmap",
                "--filter",
                "--recurse-submodules-default",
                "--submodule-prefix",
                "-s",
                "--strategy",
                "-X",
                "--strategy-option",
            ]);
            // With `--all` or `--multiple` every operand is a remote.
            if !w.has(&["--all", "--multiple"]) {
                for spec in w.operands.get(1..).unwrap_or_default() {
                    match *spec {
                        GitWord::Known(t) => {
                            if let Some((_, dst)) = t.split_once(':')
                                && !dst.is_empty()
                            {
                                out.refs.push(GitWord::Known(dst).branch());
                            }
                        }
                        other => out.refs.push(other.branch()),
                    }
                }
            }
            if verb == "pull" {
                out.refs.push(Ref::Current);
            }
        }
        "update-ref" => {
            let w = words(&["-m"]);
            if w.has(&["--stdin"]) {
                out.refs.push(Ref::All);
            } else if let Some(r) = w.operands.first() {
                match (r.branch(), w.has(&["--no-deref"])) {
                    (Ref::Current, true) => {}
                    (b, _) => out.refs.push(b),
                }
            }
        }
        "branch" => {
            let w = words(&[
                "-u",
                "--set-upstream-to",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
                "--format",
                "--sort",
            ]);
            let ops = &w.operands;
            if w.has(&["-d", "-D", "--delete"]) {
                out.refs.extend(named(ops));
            } else if w.has(&["-m", "-M", "--move"]) {
                // One name renames the branch checked out to it.
                if ops.len() == 1 {
                    out.refs.push(Ref::Current);
                }
                out.refs.extend(named(ops));
            } else if w.has(&["-c", "-C", "--copy"]) {
                out.refs.extend(ops.last().map(|w| w.branch()));
            } else if w.has(&["-f", "--force"]) {
                out.refs.extend(ops.first().map(|w| w.branch()));
            }
            let writes = [
                "-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy",
            ];
            if piped && w.has(&[&writes[..], &["-f", "--force"]].concat()) {
                out.refs.push(Ref::Unknown("what `xargs` hands on".into()));
            }
        }
        "checkout" | "switch" => {
            let w = words(&["-b", "-B", "-c", "-C", "--orphan", "--conflict"]);
            if let Some(v) = w.value(&["-B", "-C"]) {
                out.refs
                    .push(v.map_or(Ref::Unknown("-B".into()), GitWord::branch));
            } else if w.has(&["--ignore-other-worktrees"]) {
                out.refs.extend(w.operands.first().map(|w| w.branch()));
            }
            out.checks_out = match w.value(&["-b", "-B", "-c", "-C", "--orphan"]) {
                Some(v) => v.and_then(GitWord::text).map(str::to_string),
                None if !w.dashdash && w.operands.len() == 1 && !w.has(&["-d", "--detach"]) => {
                    w.operands[0].text().map(str::to_string)
                }
                None => None,
            };
        }
        "worktree" => {
            let w = words(&["-b", "-B", "--reason"]);
            if w.operands.first() == Some(&GitWord::Known("add")) {
                let commit = w.operands.get(2).copied();
                if let Some(v) = w.value(&["-B"]) {
                    out.refs
                        .push(v.map_or(Ref::Unknown("-B".into()), GitWord::branch));
                } else if let Some(v) = w.value(&["-b"]) {
                    out.checks_out = v.and_then(GitWord::text).map(str::to_string);
                } else if let Some(c) = commit
                    && !w.has(&["-d", "--detach"])
                {
                    if w.has(&["-f", "--force"]) {
                        out.refs.push(c.branch());
                    }
                    out.checks_out = c.text().map(str::to_string);
                }
            }
        }
        "rebase" => {
            let w = words(&[
                "--onto",
                "-s",
                "--strategy",
                "-X",
                "--strategy-option",
                "-x",
                "--exec",
            ]);
            // `--update-refs` moves whatever branches point into what it rebases.
            if w.has(&["--update-refs"]) {
                out.refs.push(Ref::All);
            }
            let branch = if w.has(&["--root"]) {
                w.operands.first()
            } else {
                w.operands.get(1)
            };
            out.refs.push(branch.map_or(Ref::Current, |b| b.branch()));
            // Each `--exec` is shell text run after each commit; an editor the command sets
            // writes the todo list, whose `exec` lines run anything.
            for (opt, v) in &w.values {
                if matches!(opt.as_str(), "-x" | "--exec") {
                    out.runs.push(v.and_then(GitWord::text).map(str::to_string));
                }
            }
            if editor && w.has(&["-i", "--interactive"]) {
                out.refs
                    .push(Ref::Unknown("the todo list an editor writes".into()));
            }
        }
        "bisect" if args.first().is_some_and(|a| a.is("run")) => {
            let words: Option<Vec<&str>> = args[1..].iter().map(|a| a.text.as_deref()).collect();
            out.runs.push(words.map(|w| w.join(" ")));
        }
        // It runs its text in every submodule, from folders the guard does not know.
        "submodule" if args.iter().any(|a| a.is("foreach")) => {
            out.refs
                .push(Ref::Unknown("what `submodule foreach` runs".into()));
        }
        "symbolic-ref" => {
            let w = words(&["-m"]);
            if !w.has(&["-d", "--delete"])
                && let [name, target] = w.operands[..]
            {
                match name {
                    GitWord::Known("HEAD") => {
                        out.checks_out = target
                            .text()
                            .map(|t| t.strip_prefix("refs/heads/").unwrap_or(t).to_string());
                    }
                    other => out.refs.push(other.branch()),
                }
            }
        }
        // They rewrite any branch their text or stream names.
        "filter-branch" | "filter-repo" | "fast-import" => out.refs.push(Ref::All),
        v if GIT_MOVES_CURRENT.contains(&v) => out.refs.push(Ref::Current),
        _ => {}
    }
    if piped && matches!(verb, "push" | "fetch" | "pull" | "update-ref" | "rebase") {
        out.refs.push(Ref::Unknown("what `xargs` hands on".into()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fx(cmd: &str) -> Vec<Effect> {
        let env = Env {
            home: Some(Path::new("/home/u")),
            cdpath: None,
        };
        effects(cmd, Path::new("/w"), env).expect("reads as shell")
    }

    fn runs(dir: &str, program: &str, reads: bool) -> Effect {
        Effect::Runs {
            dir: dir.into(),
            program: program.into(),
            reads,
        }
    }

    fn writes(path: &str, by: &str) -> Effect {
        Effect::Writes {
            path: path.into(),
            by: by.into(),
        }
    }

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
    fn readers_name_paths_freely_and_writers_name_them_as_writes() {
        assert_eq!(fx("cat ../p/x"), vec![runs("/w", "cat", true)]);
        assert_eq!(
            fx("touch ../p/x"),
            vec![runs("/w", "touch", false), writes("/p/x", "`touch`")]
        );
        assert_eq!(
            fx("cp ../p/.env .env"),
            vec![runs("/w", "cp", false), writes("/w/.env", "`cp`")]
        );
    }

    #[test]
    fn glued_and_equals_flag_values_and_inline_scripts_are_named() {
        for (cmd, path) in [
            ("make -C../p", "/p"),
            ("npm --prefix=../p i", "/p"),
            ("python3 -c \"open('../p/x','w')\"", "/p/x"),
        ] {
            assert!(
                fx(cmd)
                    .iter()
                    .any(|e| matches!(e, Effect::Writes { path: p, .. } if p == Path::new(path))),
                "{cmd}: {:?}",
                fx(cmd)
            );
        }
    }

    #[test]
    fn git_says_where_it_runs_and_whether_it_only_reads() {
        assert_eq!(fx("git -C /p log"), vec![runs("/p", "git log", true)]);
        assert_eq!(
            fx("git --git-dir=/p/.git status"),
            vec![
                Effect::GitPlace("/p/.git".into()),
                runs("/w", "git status", true)
            ]
        );
        assert!(
            fx("git config core.hooksPath /x")
                .contains(&Effect::SharedConfig("git config core.hooksPath".into()))
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
    fn nested_shell_text_and_substitutions_are_followed() {
        assert!(fx("sh -c 'cd /a'").contains(&Effect::Enters("/a".into())));
        assert!(fx("x=$(cd /b; pwd)").contains(&Effect::Enters("/b".into())));
        assert!(fx("echo \"`cd /c`\"").contains(&Effect::Enters("/c".into())));
        assert!(fx("bash <<< 'cd /d'").contains(&Effect::Enters("/d".into())));
    }

    #[test]
    fn the_way_out_through_berth_is_a_worktree_berth_names() {
        assert!(berth_worktree("\"$(git berth add agent-1)\"").is_some());
        assert!(berth_worktree("$(git berth path x)").is_some());
        assert!(berth_worktree("\"$(git berth remove x)\"").is_none());
        assert!(berth_worktree("\"$(git berth path x; rm -rf /)\"").is_none());
        assert!(fx("cd \"$(git berth add x)\"").is_empty());
    }

    /// The branches `git <words>` writes, and the one it checks out.
    fn branch_fx(words: &str) -> (Vec<Ref>, Option<String>) {
        let mut found = Vec::new();
        let mut checks_out = None;
        for e in fx(&format!("git {words}")) {
            match e {
                Effect::MovesBranch { dir, branch, .. } => {
                    assert_eq!(dir, Path::new("/w"));
                    found.push(branch);
                }
                Effect::ChecksOut(b) => checks_out = Some(b),
                _ => {}
            }
        }
        (found, checks_out)
    }

    fn named(n: &str) -> Ref {
        Ref::Named(n.into())
    }

    #[test]
    fn git_names_the_branches_it_writes_as_its_option_parser_reads_them() {
        for (words, refs) in [
            ("push origin main", vec![named("main")]),
            ("push origin", vec![Ref::Current]),
            ("push", vec![Ref::Current]),
            ("push -u origin HEAD", vec![Ref::Current]),
            ("push -o ci.skip origin", vec![Ref::Current]),
            ("push origin +a:b c ^d", vec![named("b"), named("c")]),
            ("push origin a:", vec![named("a")]),
            ("push --all origin", vec![Ref::All, Ref::Current]),
            ("push origin --delete x", vec![named("x")]),
            ("fetch origin main", vec![]),
            ("fetch --depth 1 origin a:b", vec![named("b")]),
            ("fetch --all a:b", vec![]),
            ("pull . a:b", vec![named("b"), Ref::Current]),
            (
                "update-ref -m why refs/heads/a HEAD",
                vec![named("refs/heads/a")],
            ),
            ("update-ref HEAD x", vec![Ref::Current]),
            ("update-ref --no-deref HEAD x", vec![]),
            ("update-ref --stdin", vec![Ref::All]),
            ("branch -f a b", vec![named("a")]),
            ("branch -Df a b", vec![named("a"), named("b")]),
            ("branch -m new", vec![Ref::Current, named("new")]),
            ("branch -c a b", vec![named("b")]),
            ("branch a b", vec![]),
            ("branch -u origin/a a", vec![]),
            ("checkout -B a b", vec![named("a")]),
            ("checkout -Ba", vec![named("a")]),
            ("switch -fC a", vec![named("a")]),
            ("worktree add -B a ../p", vec![named("a")]),
            ("worktree add -f ../p a", vec![named("a")]),
            ("worktree add -f -b n ../p a", vec![]),
            ("rebase a", vec![Ref::Current]),
            ("rebase a b", vec![named("b")]),
            ("rebase --onto a b c", vec![named("c")]),
            ("rebase -x 'make test' a", vec![Ref::Current]),
            ("rebase --root a", vec![named("a")]),
            ("rebase --update-refs a", vec![Ref::All, Ref::Current]),
            (
                "symbolic-ref refs/heads/a refs/heads/b",
                vec![named("refs/heads/a")],
            ),
            ("commit -m x", vec![Ref::Current]),
            ("reset --hard", vec![Ref::Current]),
            ("filter-branch -- --all", vec![Ref::All]),
            ("log main", vec![]),
            ("stash", vec![]),
            ("tag -f main", vec![]),
        ] {
            assert_eq!(branch_fx(words).0, refs, "git {words}");
        }
    }

    #[test]
    fn git_says_which_branch_it_checks_out() {
        for (words, out) in [
            ("checkout main", Some("main")),
            ("switch -c n main", Some("n")),
            ("checkout main -- a", None),
            ("checkout main a", None),
            ("switch --detach main", None),
            ("worktree add ../p main", Some("main")),
            ("worktree add -b n ../p main", Some("n")),
            ("worktree add --detach ../p main", None),
            ("symbolic-ref HEAD refs/heads/main", Some("main")),
        ] {
            assert_eq!(branch_fx(words).1.as_deref(), out, "git {words}");
        }
    }

    #[test]
    fn a_branch_only_the_shell_knows_is_unknown_unless_it_is_the_current_one() {
        assert_eq!(
            branch_fx("push origin \"$B\"").0,
            vec![Ref::Unknown("\"$B\"".into())]
        );
        assert_eq!(
            branch_fx("push -u origin \"$(git branch --show-current)\"").0,
            vec![Ref::Current]
        );
        let piped = fx("echo main | xargs git push origin");
        assert!(
            piped.iter().any(|e| matches!(
                e,
                Effect::MovesBranch {
                    branch: Ref::Unknown(_),
                    ..
                }
            )),
            "{piped:?}"
        );
    }

    #[test]
    fn text_git_runs_on_the_way_is_judged_as_the_commands_it_is() {
        for (cmd, moved) in [
            ("git rebase -x 'git push origin HEAD:main' a", named("main")),
            ("git rebase --exec='git branch -D main' a", named("main")),
            (
                "git bisect run git update-ref refs/heads/main HEAD",
                named("refs/heads/main"),
            ),
        ] {
            let e = fx(cmd);
            assert!(
                e.iter()
                    .any(|e| matches!(e, Effect::MovesBranch { branch, .. } if *branch == moved)),
                "{cmd}: {e:?}"
            );
        }
        let unknown = |cmd: &str| {
            fx(cmd).iter().any(|e| {
                matches!(
                    e,
                    Effect::MovesBranch {
                        branch: Ref::Unknown(_),
                        ..
                    }
                )
            })
        };
        assert!(unknown("git submodule foreach 'git push'"));
        assert!(unknown("GIT_SEQUENCE_EDITOR='sed -i x' git rebase -i a"));
        assert!(unknown("git -c core.editor=vim rebase --interactive a"));
        assert!(!unknown("GIT_SEQUENCE_EDITOR=true git rebase -i a"));
        assert!(!unknown("GIT_EDITOR='sed -i x' git rebase a"));
    }

    #[test]
    fn a_refspec_pattern_names_the_branches_it_matches() {
        for (named, yes) in [
            ("main", true),
            ("heads/main", true),
            ("refs/heads/main", true),
            ("refs/heads/*", true),
            ("refs/*", true),
            ("refs/heads/ma*", true),
            ("*", true),
            ("refs/heads/m*x", false),
            ("refs/remotes/origin/main", false),
            ("refs/for/main", false),
            ("mainline", false),
            ("berth/main", false),
        ] {
            assert_eq!(names_branch(named, "main"), yes, "{named}");
        }
    }

    #[test]
    fn git_pointed_elsewhere_writes_branches_there_too() {
        let e = fx("git -C /a --git-dir=/b/.git branch -D main");
        for dir in ["/a", "/b/.git"] {
            assert!(
                e.contains(&Effect::MovesBranch {
                    dir: dir.into(),
                    branch: named("main"),
                    by: "git branch -D main".into(),
                }),
                "{dir}: {e:?}"
            );
        }
    }

    #[test]
    fn too_many_possible_folders_are_unknown_not_slow() {
        let many = "cd a; ".repeat(100);
        assert!(fx(&many).iter().any(|e| matches!(e, Effect::Unknown(_))));
    }
}
