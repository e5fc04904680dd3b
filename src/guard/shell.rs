//! Where a shell command lands: the directories it works in (`cd`, `pushd`, `git -C`,
//! `--git-dir=`, `GIT_DIR=`, ...) and the files its redirections write. It reads the text only;
//! it must never run, expand or guess a value: whatever depends on the shell at run time is
//! reported as unknown, so the decision can fail closed.

use std::path::{Path, PathBuf};

/// A place a command works in or writes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A directory the command (or part of it) works in.
    Dir(PathBuf),
    /// A file a redirection writes.
    File(PathBuf),
    /// A place whose value only the running shell knows (a variable, a substitution, `cd -`).
    Unknown(String),
}

/// Why the text is not a command the shell could run: unterminated quote or substitution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotTokenizable(pub String);

/// Every place `command` lands besides `cwd` itself, with relative paths resolved against
/// each directory the command may be in at that point. `home` expands `~`.
pub fn targets(
    command: &str,
    cwd: &Path,
    home: Option<&Path>,
) -> Result<Vec<Target>, NotTokenizable> {
    let tokens = Scanner::new(command).list(false)?;
    let mut walk = Walk {
        dirs: vec![cwd.to_path_buf()],
        home,
        targets: Vec::new(),
        depth: 0,
    };
    walk.tokens(&tokens)?;
    Ok(walk.targets)
}

// ---------------------------------------------------------------------------------------------
// Scanning: split the text into words, operators and redirections the way sh does, keeping
// each word's raw text (shell-words unquotes it later) and every command substitution in it.

#[derive(Debug)]
enum Tok {
    Word(Word),
    /// `;`, `&&`, `||`, `|`, `&`, newline, `(`, `)`: ends a simple command.
    Op,
    Redirect {
        writes: bool,
        target: Word,
    },
}

#[derive(Debug, Default)]
struct Word {
    raw: String,
    /// The value depends on an expansion (variable, substitution, glob, ANSI-C quoting).
    dynamic: bool,
    /// Commands inside `$(...)`, backticks or `<(...)`; they run wherever the word is expanded.
    subs: Vec<Vec<Tok>>,
}

struct Scanner<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        Scanner {
            s: text.as_bytes(),
            text,
            pos: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn at(&self, offset: usize) -> Option<u8> {
        self.s.get(self.pos + offset).copied()
    }

    fn fail<T>(&self, what: &str) -> Result<T, NotTokenizable> {
        Err(NotTokenizable(what.to_string()))
    }

    /// A list of commands, up to the end of the text or (inside `$(`) the closing paren.
    fn list(&mut self, in_substitution: bool) -> Result<Vec<Tok>, NotTokenizable> {
        let mut toks = Vec::new();
        let mut parens = 0usize;
        loop {
            let Some(c) = self.peek() else {
                return if in_substitution {
                    self.fail("unterminated `$(`")
                } else {
                    Ok(toks)
                };
            };
            match c {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\\' if self.at(1) == Some(b'\n') => self.pos += 2,
                b'#' => {
                    while self.peek().is_some_and(|c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                b')' => {
                    self.pos += 1;
                    if parens == 0 && in_substitution {
                        return Ok(toks);
                    }
                    parens = parens.saturating_sub(1);
                    toks.push(Tok::Op);
                }
                b'(' => {
                    self.pos += 1;
                    parens += 1;
                    toks.push(Tok::Op);
                }
                b'\n' | b';' | b'|' => {
                    self.pos += 1;
                    toks.push(Tok::Op);
                }
                b'&' if self.at(1) == Some(b'>') => toks.push(self.redirect()?),
                b'&' => {
                    self.pos += 1;
                    toks.push(Tok::Op);
                }
                b'<' | b'>' if self.at(1) == Some(b'(') => toks.push(Tok::Word(self.word()?)),
                b'<' | b'>' => toks.push(self.redirect()?),
                b'0'..=b'9' if self.fd_redirect_ahead() => toks.push(self.redirect()?),
                _ => toks.push(Tok::Word(self.word()?)),
            }
        }
    }

    /// `2>file`, `10>>log`: digits glued to a redirection operator name a descriptor.
    fn fd_redirect_ahead(&self) -> bool {
        let mut i = self.pos;
        while self.s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        matches!(self.s.get(i), Some(b'<' | b'>'))
    }

    fn redirect(&mut self) -> Result<Tok, NotTokenizable> {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| matches!(c, b'<' | b'>' | b'&' | b'|' | b'-'))
        {
            // `>&-` closes a descriptor; stop before a `-` that starts a word such as `>-x`.
            if self.peek() == Some(b'-') && !self.text[start..self.pos].ends_with('&') {
                break;
            }
            // `>|` is one operator, but `>` followed by a pipe word is not a thing sh allows.
            self.pos += 1;
        }
        let op = &self.text[start..self.pos];
        let writes = op.starts_with('>') || op.starts_with("&>") || op == "<>";
        if op.ends_with("&-") {
            return Ok(Tok::Redirect {
                writes: false,
                target: Word::default(),
            });
        }
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
        match self.peek() {
            None | Some(b'\n' | b';' | b'|' | b'&' | b'(' | b')' | b'<' | b'>') => {
                return self.fail("a redirection without a target");
            }
            _ => {}
        }
        let target = self.word()?;
        // `>&2`, `2>&1`: a descriptor, not a file.
        let dup = (op.ends_with(">&") || op.ends_with("<&"))
            && !target.raw.is_empty()
            && target
                .raw
                .trim_end_matches('-')
                .bytes()
                .all(|b| b.is_ascii_digit());
        let heredoc = op.starts_with("<<");
        Ok(Tok::Redirect {
            writes: writes && !dup && !heredoc,
            target,
        })
    }

    fn word(&mut self) -> Result<Word, NotTokenizable> {
        let start = self.pos;
        let mut w = Word::default();
        let mut braces = false;
        if matches!(self.peek(), Some(b'<' | b'>')) && self.at(1) == Some(b'(') {
            self.pos += 2;
            w.subs.push(self.list(true)?);
            w.dynamic = true;
        }
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>' => {
                    break;
                }
                b'\\' => self.pos = (self.pos + 2).min(self.s.len()),
                b'\'' => {
                    self.pos += 1;
                    while self.peek().is_some_and(|c| c != b'\'') {
                        self.pos += 1;
                    }
                    if self.peek().is_none() {
                        return self.fail("unterminated `'`");
                    }
                    self.pos += 1;
                }
                b'"' => self.double_quoted(&mut w)?,
                b'`' => self.backticks(&mut w)?,
                b'$' => self.dollar(&mut w, false)?,
                b'*' | b'?' | b'[' => {
                    // A glob turns one word into any number of paths.
                    w.dynamic = true;
                    self.pos += 1;
                }
                b'{' => {
                    braces = true;
                    self.pos += 1;
                }
                _ => self.pos += 1,
            }
        }
        w.raw = self.text[start..self.pos].to_string();
        // `{ cd x; }` groups commands; only a brace inside a longer word can expand.
        w.dynamic |= braces && w.raw != "{";
        Ok(w)
    }

    fn double_quoted(&mut self, w: &mut Word) -> Result<(), NotTokenizable> {
        self.pos += 1;
        loop {
            match self.peek() {
                None => return self.fail("unterminated `\"`"),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => self.pos = (self.pos + 2).min(self.s.len()),
                Some(b'`') => self.backticks(w)?,
                Some(b'$') => self.dollar(w, true)?,
                Some(_) => self.pos += 1,
            }
        }
    }

    fn backticks(&mut self, w: &mut Word) -> Result<(), NotTokenizable> {
        self.pos += 1;
        let mut inner = String::new();
        let start = self.pos;
        loop {
            match self.peek() {
                None => return self.fail("unterminated backtick"),
                Some(b'`') => break,
                Some(b'\\') if matches!(self.at(1), Some(b'`' | b'\\' | b'$')) => {
                    inner.push_str(&self.text[start..self.pos]);
                    self.pos += 1;
                }
                Some(_) => {}
            }
            self.pos += 1;
        }
        // Rebuild the inner text with the backslash escapes removed, as sh does.
        let raw = &self.text[start..self.pos];
        let unescaped = unescape_backticks(raw);
        self.pos += 1;
        w.subs.push(Scanner::new(&unescaped).list(false)?);
        w.dynamic = true;
        Ok(())
    }

    fn dollar(&mut self, w: &mut Word, quoted: bool) -> Result<(), NotTokenizable> {
        match self.at(1) {
            Some(b'(') => {
                self.pos += 2;
                w.subs.push(self.list(true)?);
                w.dynamic = true;
            }
            Some(b'{') => {
                self.pos += 2;
                let mut depth = 1;
                while depth > 0 {
                    match self.peek() {
                        None => return self.fail("unterminated `${`"),
                        Some(b'{') => depth += 1,
                        Some(b'}') => depth -= 1,
                        Some(b'\\') => self.pos += 1,
                        Some(_) => {}
                    }
                    self.pos += 1;
                }
                w.dynamic = true;
            }
            Some(b'\'') if !quoted => {
                self.pos += 2;
                loop {
                    match self.peek() {
                        None => return self.fail("unterminated `$'`"),
                        Some(b'\\') => self.pos += 2,
                        Some(b'\'') => break,
                        Some(_) => self.pos += 1,
                    }
                }
                self.pos += 1;
                w.dynamic = true;
            }
            Some(c) if c.is_ascii_alphanumeric() || b"_@*#?$!-".contains(&c) => {
                self.pos += 2;
                if c.is_ascii_alphabetic() || c == b'_' {
                    while self
                        .peek()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                    {
                        self.pos += 1;
                    }
                }
                w.dynamic = true;
            }
            _ => self.pos += 1,
        }
        Ok(())
    }
}

fn unescape_backticks(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.peek(), Some('`' | '\\' | '$')) {
            out.push(chars.next().unwrap_or('\\'));
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Walking: follow the simple commands in order, tracking every directory the command may be
// in, and collect where each part lands.

/// Nested shells (`sh -c`, `eval`, substitutions) deeper than this are not followed.
const MAX_DEPTH: usize = 8;

/// Programs whose `-C <dir>` makes them work in another directory.
const CHDIR_FLAG_PROGRAMS: &[&str] = &["git", "env", "make", "tar"];

/// Shells whose `-c <text>` runs a command text we can read.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox"];

/// Git's variables that point it at another repository or work tree.
const GIT_PLACE_VARIABLES: &[&str] = &["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"];

/// Git's options that point it at another repository or work tree.
const GIT_PLACE_OPTIONS: &[&str] = &["--git-dir", "--work-tree"];

/// Words that may stand before a command name without being one.
const PREFIX_WORDS: &[&str] = &[
    "!", "{", "}", "if", "then", "elif", "else", "fi", "do", "done", "while", "until", "time",
    "command", "builtin",
];

struct Walk<'h> {
    dirs: Vec<PathBuf>,
    home: Option<&'h Path>,
    targets: Vec<Target>,
    depth: usize,
}

/// A word once unquoted; `None` when only the running shell knows its value.
struct Value<'w> {
    word: &'w Word,
    text: Option<String>,
}

impl Value<'_> {
    fn is(&self, s: &str) -> bool {
        self.text.as_deref() == Some(s)
    }

    fn program(&self) -> Option<&str> {
        self.text
            .as_deref()
            .map(|t| t.rsplit('/').next().unwrap_or(t))
    }
}

impl Walk<'_> {
    fn tokens(&mut self, toks: &[Tok]) -> Result<(), NotTokenizable> {
        if self.depth > MAX_DEPTH {
            self.targets
                .push(Target::Unknown("commands nested too deep".into()));
            return Ok(());
        }
        for simple in toks.split(|t| matches!(t, Tok::Op)) {
            self.simple(simple)?;
        }
        Ok(())
    }

    fn nested(&mut self, toks: &[Tok]) -> Result<(), NotTokenizable> {
        self.depth += 1;
        let r = self.tokens(toks);
        self.depth -= 1;
        r
    }

    fn nested_text(&mut self, text: &str) -> Result<(), NotTokenizable> {
        match Scanner::new(text).list(false) {
            Ok(toks) => self.nested(&toks),
            // A nested shell text that will not scan could still run: nobody can say where.
            Err(_) => {
                self.targets.push(Target::Unknown(text.to_string()));
                Ok(())
            }
        }
    }

    fn simple(&mut self, toks: &[Tok]) -> Result<(), NotTokenizable> {
        let mut words = Vec::new();
        for tok in toks {
            match tok {
                Tok::Word(w) => {
                    for sub in &w.subs {
                        self.nested(sub)?;
                    }
                    words.push(Value {
                        word: w,
                        text: unquote(w),
                    });
                }
                Tok::Redirect { writes, target } => {
                    for sub in &target.subs {
                        self.nested(sub)?;
                    }
                    if *writes {
                        self.place(unquote(target).as_deref(), &target.raw, false);
                    }
                }
                Tok::Op => {}
            }
        }
        self.git_places(&words);
        let Some(at) = words
            .iter()
            .position(|v| !is_assignment(v) && !PREFIX_WORDS.iter().any(|p| v.is(p)))
        else {
            return Ok(());
        };
        let (name, args) = (&words[at], &words[at + 1..]);
        match name.program() {
            Some("cd" | "pushd") => self.change_dir(name, args),
            Some("popd") => self.targets.push(Target::Unknown("popd".into())),
            Some("eval") => {
                let texts: Option<Vec<&str>> = args.iter().map(|v| v.text.as_deref()).collect();
                match texts {
                    Some(t) => self.nested_text(&t.join(" "))?,
                    None => self.targets.push(Target::Unknown(raw_of(args))),
                }
            }
            _ => {}
        }
        // Wrappers (`sudo`, `env`, `xargs`, `timeout 5`) put the real program further in.
        for (i, v) in words.iter().enumerate() {
            match v.program() {
                Some(p) if CHDIR_FLAG_PROGRAMS.contains(&p) => self.chdir_flags(&words[i + 1..]),
                Some(p) if SHELLS.contains(&p) => self.shell_text(&words[i + 1..])?,
                _ => {}
            }
        }
        Ok(())
    }

    /// `GIT_DIR=x` as an assignment (or an `env`/`export` argument), and `--git-dir=x`,
    /// `--git-dir x`, `--work-tree ...` after a `git`. The same text in a quoted argument of
    /// another program (`grep 'GIT_DIR=x'`) points nobody anywhere.
    fn git_places(&mut self, words: &[Value]) {
        let (mut after_git, mut after_env) = (false, false);
        for (i, v) in words.iter().enumerate() {
            let raw = v.word.raw.as_str();
            let key = v
                .text
                .as_deref()
                .unwrap_or_else(|| raw.trim_start_matches(['"', '\'']));
            let assignment = is_assignment(v) || after_env;
            for name in GIT_PLACE_VARIABLES.iter().chain(GIT_PLACE_OPTIONS) {
                let is_option = GIT_PLACE_OPTIONS.contains(name);
                if (is_option && !after_git) || (!is_option && !assignment) {
                    continue;
                }
                let Some(rest) = key.strip_prefix(name) else {
                    continue;
                };
                if let Some(value) = rest.strip_prefix('=') {
                    let text = v.text.as_ref().map(|_| value.to_string());
                    self.place(text.as_deref(), raw, true);
                } else if rest.is_empty() && is_option {
                    match words.get(i + 1) {
                        Some(next) => self.place(next.text.as_deref(), &next.word.raw, true),
                        None => self.targets.push(Target::Unknown(raw.to_string())),
                    }
                }
            }
            match v.program() {
                Some("git") => after_git = true,
                Some("env" | "export" | "declare" | "typeset" | "local" | "readonly") => {
                    after_env = true
                }
                _ => {}
            }
        }
    }

    fn change_dir(&mut self, name: &Value, args: &[Value]) {
        let operand = args.iter().find(|v| {
            !(v.text
                .as_deref()
                .is_some_and(|t| t.starts_with('-') && t.len() > 1))
        });
        let Some(dest) = operand else {
            // `cd` alone goes home; `cd -L` too.
            match self.home {
                Some(h) => self.enter(vec![h.to_path_buf()]),
                None => self.targets.push(Target::Unknown(name.word.raw.clone())),
            }
            return;
        };
        match dest.text.as_deref() {
            Some("-") => self.targets.push(Target::Unknown("cd -".into())),
            Some(t) if t.starts_with('+') && name.is("pushd") => {
                self.targets.push(Target::Unknown(format!("pushd {t}")))
            }
            text => {
                let places = self.resolve(text, &dest.word.raw);
                self.enter(places);
            }
        }
    }

    fn enter(&mut self, places: Vec<PathBuf>) {
        for p in places {
            self.targets.push(Target::Dir(p.clone()));
            if !self.dirs.contains(&p) {
                self.dirs.push(p);
            }
        }
    }

    fn shell_text(&mut self, args: &[Value]) -> Result<(), NotTokenizable> {
        let flag = args.iter().position(|v| {
            v.text
                .as_deref()
                .is_some_and(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('c'))
        });
        // Without `-c` (`bash script.sh`, `sh < file`) the script's text is not ours to read.
        if let Some(i) = flag {
            match args.get(i + 1).and_then(|v| v.text.as_deref()) {
                Some(text) => self.nested_text(text)?,
                None => self.targets.push(Target::Unknown(raw_of(&args[i..]))),
            }
        }
        Ok(())
    }

    fn chdir_flags(&mut self, args: &[Value]) {
        let mut i = 0;
        while i < args.len() {
            let v = &args[i];
            if v.is("-C") || v.is("--chdir") || v.is("--directory") {
                match args.get(i + 1) {
                    Some(next) => self.place(next.text.as_deref(), &next.word.raw, true),
                    None => self.targets.push(Target::Unknown(v.word.raw.clone())),
                }
                i += 1;
            } else if let Some(rest) = v.text.as_deref().and_then(|t| t.strip_prefix("--chdir=")) {
                self.place(Some(rest), &v.word.raw, true);
            } else if v.word.dynamic
                && (v.word.raw.starts_with("-C") || v.word.raw.starts_with("--chdir"))
            {
                self.targets.push(Target::Unknown(v.word.raw.clone()));
            }
            i += 1;
        }
    }

    fn place(&mut self, text: Option<&str>, raw: &str, dir: bool) {
        for p in self.resolve(text, raw) {
            self.targets
                .push(if dir { Target::Dir(p) } else { Target::File(p) });
        }
    }

    /// Every absolute path a word may name, one per directory the command may be in; a value
    /// only the shell knows (`text` is `None`) is recorded as unknown and yields none.
    fn resolve(&mut self, text: Option<&str>, raw: &str) -> Vec<PathBuf> {
        let Some(text) = text else {
            self.targets.push(Target::Unknown(raw.to_string()));
            return Vec::new();
        };
        let expanded = if text == "~" || text.starts_with("~/") {
            match self.home {
                Some(h) => h.join(text.trim_start_matches('~').trim_start_matches('/')),
                None => {
                    self.targets.push(Target::Unknown(text.to_string()));
                    return Vec::new();
                }
            }
        } else if text.starts_with('~') {
            // `~user` needs the password database; not worth guessing.
            self.targets.push(Target::Unknown(text.to_string()));
            return Vec::new();
        } else {
            PathBuf::from(text)
        };
        if expanded.is_absolute() {
            return vec![expanded];
        }
        self.dirs.iter().map(|d| d.join(&expanded)).collect()
    }
}

fn is_assignment(v: &Value) -> bool {
    let raw = v.word.raw.as_bytes();
    let name_len = raw
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    name_len > 0 && !raw[0].is_ascii_digit() && raw.get(name_len) == Some(&b'=')
}

fn unquote(w: &Word) -> Option<String> {
    if w.dynamic {
        return None;
    }
    match shell_words::split(&w.raw) {
        Ok(mut parts) if parts.len() == 1 => parts.pop(),
        // `""` splits to one empty word; anything else means the scanner and shell-words
        // disagree about the word, so nobody knows its value.
        _ => None,
    }
}

fn raw_of(args: &[Value]) -> String {
    args.iter()
        .map(|v| v.word.raw.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(cmd: &str) -> Vec<Target> {
        targets(cmd, Path::new("/w"), Some(Path::new("/home/u"))).expect("tokenizes")
    }

    fn dir(p: &str) -> Target {
        Target::Dir(p.into())
    }

    #[test]
    fn cd_and_pushd_name_the_directories_they_enter() {
        assert_eq!(t("cd /a && make"), vec![dir("/a")]);
        assert_eq!(t("pushd sub"), vec![dir("/w/sub")]);
        assert_eq!(t("cd"), vec![dir("/home/u")]);
        assert_eq!(t("cd ~/x"), vec![dir("/home/u/x")]);
        assert_eq!(t("cd -P '/a b'"), vec![dir("/a b")]);
    }

    #[test]
    fn a_relative_path_after_a_cd_is_resolved_against_every_directory_it_may_be_in() {
        assert_eq!(
            t("cd a; echo > f"),
            vec![
                dir("/w/a"),
                Target::File("/w/f".into()),
                Target::File("/w/a/f".into())
            ]
        );
    }

    #[test]
    fn redirections_to_descriptors_and_reads_land_nowhere() {
        assert!(t("a 2>&1 >&2 <in 3<&0 >&- <<EOF").is_empty());
        assert_eq!(t("a &>> log"), vec![Target::File("/w/log".into())]);
    }

    #[test]
    fn quoted_operators_are_words_not_operators() {
        assert!(t("echo 'a > b; cd /x' \"c > d\" e\\>f").is_empty());
    }

    #[test]
    fn git_options_count_only_after_git() {
        assert_eq!(
            t("git -C /r --git-dir=/g --work-tree /t log"),
            vec![dir("/g"), dir("/t"), dir("/r")]
        );
        assert!(t("echo --git-dir=/g -C /r").is_empty());
    }

    #[test]
    fn values_only_the_shell_knows_are_unknown() {
        assert_eq!(t("cd $X"), vec![Target::Unknown("$X".into())]);
        assert_eq!(
            t("echo > \"${OUT}\""),
            vec![Target::Unknown("\"${OUT}\"".into())]
        );
        assert_eq!(t("cd -"), vec![Target::Unknown("cd -".into())]);
    }

    #[test]
    fn nested_shell_text_and_substitutions_are_followed() {
        assert_eq!(t("sh -c 'cd /a'"), vec![dir("/a")]);
        assert_eq!(t("x=$(cd /b; pwd)"), vec![dir("/b")]);
        assert_eq!(t("echo \"`cd /c`\""), vec![dir("/c")]);
    }

    #[test]
    fn unterminated_quotes_and_substitutions_do_not_tokenize() {
        for c in [
            "echo 'a", "echo \"a", "echo $(a", "echo `a", "echo ${a", "echo $'a", "echo >",
        ] {
            assert!(targets(c, Path::new("/w"), None).is_err(), "{c}");
        }
    }

    #[test]
    fn a_comment_is_not_scanned() {
        assert!(t("ls # it's > /x").is_empty());
    }
}
