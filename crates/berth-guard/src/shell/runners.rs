//! A file this command writes and then runs as code. The guard judges what the command says; a
//! script written in it has text that is not on disk for anyone to read until it runs, however it
//! was spelled (`printf >`, `tee`, `cp /dev/stdin`, `base64 -d >`, `sed -i`), so running it in the
//! same command is refused with the way out: write it in one call and run it in the next.
//!
//! Written is every file the walk finds written (a redirection's, a path a program that may
//! write is handed) but for programs that change only a file's mode, times or existence, and the
//! script a runner is handed itself. Run is a file a shell or interpreter is given as its script,
//! `source`, a program named by its path, `make`'s makefile, the `package.json` a package
//! manager runs scripts from, and any file `find -exec` picks after something was written.

use std::path::Path;

use super::Effect;
use super::programs::{INTERPRETERS, SHELLS};
use super::walker::Walk;
use super::words::Arg;

/// Programs whose writes change a file's mode, owner, times or existence, never its text.
const NO_TEXT: &[&str] = &[
    "chmod", "chown", "chgrp", "touch", "mkdir", "rm", "rmdir", "unlink", "setfacl", "chattr",
];

/// Programs that build files from others on disk (compilers, git): what they make from files
/// is as readable as those files; made from text the command feeds them (`-`, a here-document,
/// a pipe) it is that text, hidden.
const BUILDERS: &[&str] = &[
    "cc",
    "gcc",
    "g++",
    "c++",
    "clang",
    "clang++",
    "rustc",
    "go",
    "javac",
    "kotlinc",
    "swiftc",
    "zig",
    "tsc",
    "esbuild",
    "ghc",
    "ocamlfind",
    "git",
];

/// Package managers that run the scripts of the `package.json` where they run.
const PACKAGE_RUNNERS: &[&str] = &["npm", "npx", "yarn", "pnpm", "pnpx", "bun"];

/// Files a tool runs by their name where it runs, with no word of the command naming them:
/// Python's start-up hooks, pytest's and cargo's project code, npm's settings.
const BY_CONVENTION: &[(&str, &[&str])] = &[
    ("python", &["sitecustomize.py", "usercustomize.py"]),
    ("python2", &["sitecustomize.py", "usercustomize.py"]),
    (
        "python3",
        &["sitecustomize.py", "usercustomize.py", "conftest.py"],
    ),
    ("pytest", &["conftest.py", "sitecustomize.py"]),
    ("cargo", &["build.rs"]),
    ("npm", &[".npmrc"]),
    ("npx", &[".npmrc"]),
    ("pnpm", &[".npmrc"]),
    ("yarn", &[".npmrc", ".yarnrc", ".yarnrc.yml"]),
];

/// Programs that copy or link files into a folder named last (`cp pwn d/`): a file run from that
/// folder may be one of them.
const INTO_FOLDER: &[&str] = &["cp", "mv", "install", "ln", "rsync"];

/// The makefiles `make` reads when no `-f` names one, in its order.
const MAKEFILES: &[&str] = &["GNUmakefile", "makefile", "Makefile"];

impl Walk<'_> {
    /// `by` may write `path` (from [`Walk::emit`]): remembered as written, unless `by` only
    /// changes modes or is the runner handed that very file.
    pub(super) fn note_write(&mut self, path: &Path, by: &str) {
        let program = by.trim_matches('`');
        if NO_TEXT.contains(&program)
            || self.scripts.from_disk.as_deref() == Some(program)
            || self
                .scripts
                .ran
                .get(path)
                .is_some_and(|runners| runners.iter().any(|r| r == program))
        {
            return;
        }
        if INTO_FOLDER.contains(&program) {
            self.scripts.filled.insert(path.to_path_buf());
        }
        self.scripts.written.insert(path.to_path_buf());
    }

    /// `runner` runs the file `text` names as code: refused when this command writes it.
    pub(super) fn runs_file(&mut self, text: &str, runner: &str) {
        // A descriptor or a process substitution is any file the shell opened.
        let opened = text.starts_with("/dev/fd/") || text.starts_with("/proc/self/fd/");
        if opened && !self.scripts.written.is_empty() {
            return self.refuse_run(runner, Path::new(text));
        }
        for path in self.resolve(text) {
            let filled = path
                .parent()
                .is_some_and(|d| self.scripts.filled.contains(d));
            if filled || self.scripts.written.contains(&path) {
                return self.refuse_run(runner, &path);
            }
            self.scripts
                .ran
                .entry(path)
                .or_default()
                .push(runner.to_string());
        }
    }

    /// `program` is about to be walked: a builder fed no text by the command (`fed`, or a `-`
    /// operand) makes its files from files on disk.
    pub(super) fn builds(&mut self, program: &str, rest: &[Arg], fed: bool) {
        self.scripts.from_disk = None;
        if !BUILDERS.contains(&program) || fed {
            return;
        }
        // Built from a file this command wrote (`printf ... > t.c && gcc -o t t.c`), or from
        // standard input, its output is that hidden text too.
        for a in rest {
            let Some(t) = a.text.as_deref() else { continue };
            if t == "-" || t == "/dev/stdin" {
                return;
            }
            if !t.starts_with('-')
                && self
                    .resolve(t)
                    .iter()
                    .any(|p| self.scripts.written.contains(p))
            {
                return;
            }
        }
        self.scripts.from_disk = Some(program.to_string());
    }

    /// The files `program` runs, by its own rules: its script operand (a shell, an interpreter),
    /// its makefile (`make`), its `package.json` (npm and the like), or what `find -exec` picks.
    pub(super) fn runners(&mut self, program: &str, rest: &[Arg]) {
        if program.contains('/') {
            self.runs_file(program, program);
            return;
        }
        // Most programs run no file: their words (tens of thousands for a `touch`) are not
        // copied here.
        let runs_files = matches!(
            program,
            "source" | "." | "make" | "gmake" | "awk" | "gawk" | "mawk" | "nawk" | "sed" | "gsed"
        ) || (program == "find" && !self.scripts.written.is_empty())
            || PACKAGE_RUNNERS.contains(&program)
            || BY_CONVENTION.iter().any(|(tool, _)| *tool == program)
            || SHELLS.contains(&program)
            || INTERPRETERS.contains(&program);
        if !runs_files {
            return;
        }
        // `"$PWD/s.sh"` is a path too; any other value only the shell knows is left out.
        let owned: Vec<String> = rest
            .iter()
            .filter_map(|a| match &a.text {
                Some(t) => Some(t.clone()),
                None => {
                    let raw: String = a
                        .raw()
                        .chars()
                        .filter(|c| !matches!(c, '"' | '\''))
                        .collect();
                    Some(self.known_prefix(&raw)).filter(|t| !t.contains(['$', '`']))
                }
            })
            .collect();
        let words: Vec<&str> = owned.iter().map(String::as_str).collect();
        match program {
            "source" | "." => {
                if let Some(file) = words.first() {
                    self.runs_file(file, program);
                }
            }
            "make" | "gmake" => {
                let named = make_files(&words);
                let dir = make_dir(&words);
                if named.is_empty() {
                    for m in MAKEFILES {
                        self.runs_file(&join(dir, m), program);
                    }
                }
                for f in named {
                    self.runs_file(&join(dir, f), program);
                }
            }
            "awk" | "gawk" | "mawk" | "nawk" | "sed" | "gsed" => {
                for f in awk_files(&words) {
                    self.runs_file(f, program);
                }
            }
            "find" if !self.scripts.written.is_empty() && runs_found(&words) => {
                self.emit(Effect::Refused {
                    what: "`find` would run files it picks after this same command wrote files: \
                           what it runs is not on disk for the guard to read before it runs"
                        .to_string(),
                    hint:
                        "write the files in one call and run them in the next, where their paths \
                           and content are on disk"
                            .to_string(),
                });
            }
            p => {
                if PACKAGE_RUNNERS.contains(&p) {
                    self.runs_file("package.json", program);
                }
                for (tool, files) in BY_CONVENTION {
                    if *tool == p {
                        for f in *files {
                            self.runs_file(f, program);
                        }
                    }
                }
                // `python3 -m pkg`: the module's file, or its package's.
                if p.starts_with("python")
                    && let Some(at) = words.iter().position(|w| *w == "-m")
                    && let Some(module) = words.get(at + 1)
                {
                    let module = module.replace('.', "/");
                    for f in [
                        format!("{module}.py"),
                        format!("{module}/__main__.py"),
                        format!("{module}/__init__.py"),
                    ] {
                        self.runs_file(&f, program);
                    }
                }
                if !(SHELLS.contains(&p) || INTERPRETERS.contains(&p)) {
                    return;
                }
                match script_operand(p, &words) {
                    Some(file) => self.runs_file(file, program),
                    // Inline code that names a file this command wrote may run it
                    // (`perl -e 'exec "sh", "s.sh"'`); a shell's own text is walked.
                    None if !SHELLS.contains(&p) => self.inline_names_written(&words, program),
                    None => {}
                }
            }
        }
    }
}

impl Walk<'_> {
    /// Text the command feeds `runner` (a here-document, a here-string) as its code names a file
    /// this command wrote (`make -f - <<'E'` whose rule runs it): as inline code.
    pub(super) fn fed_text_names_written(&mut self, program: &str, texts: &[String]) {
        let runs_text = program == "make"
            || program == "gmake"
            || INTERPRETERS.contains(&program)
            || PACKAGE_RUNNERS.contains(&program);
        if runs_text && !self.scripts.written.is_empty() {
            let words: Vec<&str> = texts.iter().map(String::as_str).collect();
            self.inline_names_written(&words, program);
        }
    }

    /// Code given inline to `runner` names a file this command wrote, by its file name.
    fn inline_names_written(&mut self, words: &[&str], runner: &str) {
        let named = self.scripts.written.iter().find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| words.iter().any(|w| w.contains(n)))
        });
        if let Some(path) = named.cloned() {
            self.refuse_run(runner, &path);
        }
    }

    fn refuse_run(&mut self, runner: &str, path: &Path) {
        self.emit(Effect::Refused {
            what: format!(
                "`{runner}` would run {}, which this same command writes: its text is not on \
                 disk for the guard to read before it runs",
                path.display()
            ),
            hint: "write the file in one call and run it in the next, where its path and content \
                   are on disk"
                .to_string(),
        });
    }
}

/// `dir/name`, or `name` where `make` runs.
fn join(dir: Option<&str>, name: &str) -> String {
    match dir {
        Some(d) => format!("{}/{name}", d.trim_end_matches('/')),
        None => name.to_string(),
    }
}

/// The script a shell or an interpreter runs from a file: its first operand after the options,
/// unless code is given inline (`-c`, `-e`) or a module is named (`-m`).
fn script_operand<'a>(program: &str, words: &[&'a str]) -> Option<&'a str> {
    // Options of these programs that take the next word as their value.
    let takes_value = |w: &str| match program {
        "python" | "python2" | "python3" => matches!(w, "-W" | "-X" | "-Q"),
        "node" | "nodejs" | "deno" | "bun" => matches!(w, "-r" | "--require" | "--import"),
        "perl" | "ruby" => matches!(w, "-I" | "-r"),
        _ => matches!(w, "-o" | "+o" | "-O" | "+O"),
    };
    let mut i = 0;
    while let Some(w) = words.get(i) {
        if *w == "--" {
            return words.get(i + 1).copied();
        }
        if w.starts_with('-') && w.len() > 1 || w.starts_with('+') && SHELLS.contains(&program) {
            if inline(program, w) {
                return None;
            }
            i += if takes_value(w) { 2 } else { 1 };
            continue;
        }
        return Some(w);
    }
    None
}

/// Does option `w` give `program` its code inline (`sh -c`, `python3 -c`/`-m`, `node -e`,
/// `perl -e`, `php -r`), or read it from standard input (`sh -s`)?
fn inline(program: &str, w: &str) -> bool {
    let short = |letters: &[char]| !w.starts_with("--") && w[1..].contains(letters);
    match program {
        p if SHELLS.contains(&p) => short(&['c', 's']),
        "python" | "python2" | "python3" => short(&['c', 'm']),
        "perl" => short(&['e', 'E']),
        "ruby" => short(&['e']),
        "php" => short(&['r']),
        _ => matches!(w, "-e" | "-p" | "--eval" | "--print"),
    }
}

/// `make -f F`, `-fF`, `--file=F`, `--makefile F`: the makefiles it is told to read.
fn make_files<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        match *w {
            "-f" | "--file" | "--makefile" => out.extend(it.next().copied()),
            w if w.starts_with("--file=") || w.starts_with("--makefile=") => {
                out.extend(w.split_once('=').map(|(_, f)| f));
            }
            w if w.starts_with("-f") && w.len() > 2 => out.push(&w[2..]),
            _ => {}
        }
    }
    out
}

/// `make -C dir`: where it runs, when the command says.
fn make_dir<'a>(words: &[&'a str]) -> Option<&'a str> {
    let mut it = words.iter();
    let mut dir = None;
    while let Some(w) = it.next() {
        match *w {
            "-C" | "--directory" => dir = it.next().copied(),
            w if w.starts_with("--directory=") => dir = w.split_once('=').map(|(_, d)| d),
            w if w.starts_with("-C") && w.len() > 2 => dir = Some(&w[2..]),
            _ => {}
        }
    }
    dir
}

/// `awk -f prog.awk`, `sed -f x.sed`: the program files it runs.
fn awk_files<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        match *w {
            "-f" | "--file" => out.extend(it.next().copied()),
            w if w.starts_with("--file=") => out.extend(w.split_once('=').map(|(_, f)| f)),
            _ => {}
        }
    }
    out
}

/// Does `find` run what it finds (`-exec`, `-execdir`, `-ok`, `-okdir`)?
fn runs_found(words: &[&str]) -> bool {
    words
        .iter()
        .any(|w| matches!(*w, "-exec" | "-execdir" | "-ok" | "-okdir"))
}

#[cfg(test)]
mod tests {
    use super::super::Effect;
    use super::super::tests::fx;
    use super::*;

    fn refused(cmd: &str) -> bool {
        fx(cmd).iter().any(|e| matches!(e, Effect::Refused { .. }))
    }

    #[test]
    fn a_file_written_then_run_in_one_command_is_refused_however_it_is_spelled() {
        for cmd in [
            "printf 'x' > s.sh && bash s.sh",
            "echo x | tee s.sh && sh ./s.sh",
            "cp /dev/stdin s.sh <<< x && bash s.sh",
            "printf x > s.sh && chmod +x s.sh && env ./s.sh",
            "printf x > s.sh && nice ./s.sh",
            "printf x > s.sh && builtin source s.sh",
            "printf x > s.sh && . s.sh",
            "printf x > f.py && python3 -B f.py",
            "printf x > mk && make -s -f mk",
            "printf x > Makefile && make -s",
            "printf x > d/mk && make -C d -fmk",
            "echo '{}' > package.json && npm test",
            "printf x > s.sh && find . -name s.sh -exec sh {} \\;",
            "printf x > p.awk && awk -f p.awk",
            "printf x > s.sh && perl -e 'exec \"sh\", \"s.sh\"'",
            "printf x > s.sh && bash \"$PWD/s.sh\"",
            "sed -i s/a/b/ s.sh && bash s.sh",
            "gcc -x c -o t - <<< 'int main(){}' && ./t",
            "printf 'int main(){}' > t.c && gcc -o t t.c && ./t",
            "printf 'int main(){}' | gcc -x c -o t - && ./t",
        ] {
            assert!(refused(cmd), "{cmd}: {:?}", fx(cmd));
        }
    }

    #[test]
    fn a_file_run_that_the_command_did_not_write_is_judged_as_before() {
        for cmd in [
            "bash s.sh",
            "chmod +x s.sh && ./s.sh",
            "python3 setup.py build && python3 setup.py install",
            "printf x > out.txt && bash s.sh",
            "printf x > s.sh && cat s.sh",
            "make && make install",
            "npm install && npm test",
            "find . -name '*.o' -exec rm {} +",
            "gcc -o t t.c && ./t",
            "go build -o app . && ./app",
            "git checkout -- s.sh && bash s.sh",
            "python3 -c 'print(1)' && python3 -m pytest",
            "echo '{}' > in.json && python3 -c 'import json; json.load(open(\"x.json\"))'",
        ] {
            assert!(!refused(cmd), "{cmd}: {:?}", fx(cmd));
        }
    }

    #[test]
    fn the_script_operand_skips_options_and_their_values() {
        assert_eq!(
            script_operand("python3", &["-W", "x", "f.py"]),
            Some("f.py")
        );
        assert_eq!(script_operand("python3", &["-c", "x"]), None);
        assert_eq!(script_operand("bash", &["-c", "s.sh"]), None);
        assert_eq!(script_operand("bash", &["-ex", "s.sh"]), Some("s.sh"));
        assert_eq!(script_operand("perl", &["-e", "x"]), None);
        assert_eq!(script_operand("node", &["-r", "m", "f.js"]), Some("f.js"));
        assert_eq!(make_files(&["-s", "-f", "mk", "--file=b"]), vec!["mk", "b"]);
    }
}
