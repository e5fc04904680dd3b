//! Where the shell goes and what words name: `cd` and `pushd`, paths resolved against every
//! directory the shell may be in, and the paths a program that may write is handed. Paths are
//! folded by hand and bounded in length; symlinks are the probe's, never followed here.

use std::path::{Component, Path, PathBuf};

use super::super::scan::{self, Redirect, Word};
use super::history::Move;
use super::walker::Walk;
use super::words::{Arg, berth_worktree, tainted_in};
use super::{Dir, Effect};

/// Linux's `PATH_MAX`: a path longer than this names nothing a program can open by name.
const MAX_PATH_BYTES: usize = 4096;

/// Files whose writes land nowhere on disk: redirecting to them is not writing a file.
const NOT_FILES: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// The spellings of the folder the shell is in.
const PWD: [&str; 4] = ["${PWD}", "$PWD", "$(pwd)", "`pwd`"];

/// A word as the shell reads it once its quotes are gone (escapes kept, to be refused).
fn unquoted(raw: &str) -> String {
    raw.chars().filter(|c| !matches!(c, '"' | '\'')).collect()
}

impl Walk<'_> {
    /// `cd`/`pushd` and their operand: where the shell goes if they succeed.
    pub(super) fn change_dir(&mut self, name: &Arg, args: &[Arg]) -> Option<Vec<Dir>> {
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
        // `cd "$PWD/src"`: the folder the shell is in, when that is one folder.
        let pwd = match dest.text {
            Some(_) => None,
            None => Some(unquoted(dest.raw()))
                .filter(|t| PWD.iter().any(|p| t.starts_with(p)))
                .map(|t| self.known_prefix(&t))
                .filter(|t| !t.contains(['$', '`', '*', '?', '[', '{', '\\'])),
        };
        let Some(text) = dest.text.as_deref().or(pwd.as_deref()) else {
            self.unknown(dest.raw().to_string());
            return None;
        };
        if self.loops > 0 && (text == "-" || name.is("pushd")) {
            self.unknown(format!(
                "`{} {text}` inside a loop or function (it may run any number of times)",
                name.raw()
            ));
            return None;
        }
        self.moved = Some(if name.is("pushd") {
            Move::Pushd
        } else {
            Move::Cd
        });
        if text == "-" {
            return match self.history.previous.clone() {
                Some(into) => {
                    for d in &into {
                        self.enter(d);
                    }
                    Some(into)
                }
                None => {
                    self.unknown(format!(
                        "`{} -` (the folder the shell was in before this command; join \
                         `cd <folder> && ... && cd -` with `&&`)",
                        name.raw()
                    ));
                    None
                }
            };
        }
        if text.starts_with('+') && name.is("pushd") {
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

    /// `popd`: back to the folder the command's own `pushd` saved; any other is unknown.
    pub(super) fn pop_dir(&mut self, args: &[Arg]) -> Option<Vec<Dir>> {
        let top = self.history.pushed.last().cloned();
        let why = if !args.is_empty() {
            "with options or a place in the stack"
        } else if self.loops > 0 {
            "inside a loop or function (it may run any number of times)"
        } else if self.history.unsure || top.is_none() {
            "to a folder only the shell knows; join `pushd <folder> && ... && popd` with `&&`"
        } else {
            ""
        };
        let Some(into) = top.filter(|_| why.is_empty()) else {
            self.unknown(format!("`popd` ({why})"));
            return None;
        };
        self.moved = Some(Move::Popd);
        for d in &into {
            self.enter(d);
        }
        Some(into)
    }

    fn enter(&mut self, d: &Dir) {
        if let Dir::Path(p) = d {
            self.emit(Effect::Enters(p.clone()));
        }
    }

    /// Every argument of a program that may write: a literal is judged by the paths it names;
    /// a value only the shell knows by where it can lead.
    pub(super) fn named_args(&mut self, args: &[Arg], by: &str) {
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
    pub(super) fn dynamic_path(&mut self, word: &Word, by: &str, strict: bool) {
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
            return unknown(self, &format!("`${name}` is set at run time"));
        }
        if text.contains("$(") || text.contains('`') {
            return unknown(self, "a value made by a command");
        }
        // `"$PWD/s.sh"`: known whole, it is that very file.
        if !text.contains(['$', '*', '?', '[', '{', '\\']) {
            return self.writes_path(&text, by, strict);
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
    pub(super) fn known_prefix(&self, text: &str) -> String {
        for pwd in PWD {
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

    /// `env -C dir`, `sudo -D dir`: the wrapped command runs there (see `self.chdir`).
    pub(super) fn chdir_to(&mut self, text: Option<&str>, raw: &str) {
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

    /// A here-document or here-string handed to a program that may write: what it names counts.
    pub(super) fn named_text(&mut self, r: &Redirect, by: &str) {
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

    /// Every path `text` may name for a program that may write: the word itself, a value glued
    /// to an option (`-C../x`, `--prefix=../x`), and path-like pieces of inline script text.
    pub(super) fn named(&mut self, text: &str, by: &str) {
        if self.done || text.is_empty() {
            return;
        }
        let mut candidates: Vec<&str> = Vec::new();
        if !text.starts_with('-') {
            candidates.push(text);
        } else if !text.starts_with("--") && text.len() > 2 && text.is_char_boundary(2) {
            candidates.push(&text[2..]);
            // A value glued after a bundle of flags (`tar -cf../x`): from any letter on.
            for (at, c) in text.char_indices().skip(2) {
                let prev = text[..at].chars().next_back().unwrap_or('-');
                if matches!(c, '/' | '.' | '~') && prev.is_ascii_alphabetic() {
                    candidates.push(&text[at..]);
                    break;
                }
            }
        }
        // `of=s.sh`, `--output=out.txt`: the value of a named setting may be a file here.
        if let Some((key, value)) = text.split_once('=')
            && !value.is_empty()
            && key
                .trim_start_matches('-')
                .starts_with(|c: char| c.is_ascii_alphabetic())
            && key
                .trim_start_matches('-')
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            candidates.push(value);
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
    pub(super) fn writes_path(&mut self, text: &str, by: &str, strict: bool) {
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
        // The kernel refuses a longer name (ENAMETOOLONG), so it writes nothing; the
        // path-like pieces of long script text are judged on their own.
        if text.len() >= MAX_PATH_BYTES {
            return;
        }
        for p in self.resolve(text) {
            if NOT_FILES.iter().any(|f| p == Path::new(f)) {
                continue;
            }
            self.emit(Effect::Writes {
                path: p,
                by: by.to_string(),
            });
        }
    }

    /// Every absolute path `text` names, one per directory the shell may be in.
    pub(super) fn resolve(&mut self, text: &str) -> Vec<PathBuf> {
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
    pub(super) fn resolve_from(&mut self, d: &Dir, text: &str) -> Vec<Dir> {
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::Effect;
    use super::super::tests::fx;

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
}
