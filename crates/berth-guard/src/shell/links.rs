//! Links and the files programs write by their own script: `ln -s` and `cp -s` read a relative
//! target from the link's folder, and `sed`'s `w` commands name files to write. They add paths
//! for the walk to judge; they never decide and never look at the disk.

use super::walker::Walk;
use super::words::{Arg, split_option};

impl Walk<'_> {
    /// Does `cp` (with these arguments) make links rather than copies (`-s`, `-l`, in any bundle
    /// such as `-al` or `-sf`)? A link made to the primary is a way to write it later.
    pub(super) fn cp_links(program: &str, rest: &[Arg]) -> bool {
        program == "cp"
            && rest.iter().any(|a| match a.text.as_deref() {
                Some("--symbolic-link" | "--link") => true,
                Some(t) if t.starts_with('-') && !t.starts_with("--") => {
                    t[1..].contains(['s', 'l'])
                }
                _ => false,
            })
    }

    /// Does `ln` or `cp` (with these arguments) make symbolic links (`-s`, `--symbolic`,
    /// `--symbolic-link`, in any bundle)?
    pub(super) fn symbolic(program: &str, rest: &[Arg]) -> bool {
        let long: &[&str] = match program {
            "ln" => &["--symbolic"],
            "cp" => &["--symbolic-link"],
            _ => return false,
        };
        rest.iter().any(|a| match a.text.as_deref() {
            Some(t) if t.starts_with("--") => long.contains(&t),
            Some(t) if t.starts_with('-') => t[1..].contains('s'),
            _ => false,
        })
    }

    /// `ln -s TARGET... LINK` / `cp -s SOURCE... DEST`: a relative target is read from the folder
    /// the link lands in, so it is judged from there too (the folder named last, or its parent).
    pub(super) fn link_targets(&mut self, rest: &[Arg], by: &str) {
        let mut operands = Vec::new();
        let mut folder = None;
        let mut words = rest.iter().filter_map(|a| a.text.as_deref());
        while let Some(t) = words.next() {
            match t {
                "-t" | "--target-directory" => folder = words.next(),
                "-S" | "--suffix" => {
                    words.next();
                }
                t if t.starts_with("--target-directory=") => {
                    folder = Some(&t["--target-directory=".len()..])
                }
                t if t.starts_with('-') && t.len() > 1 => {}
                t => operands.push(t),
            }
        }
        let (targets, bases): (&[&str], Vec<&str>) = match folder {
            Some(f) => (&operands[..], vec![f]),
            None if operands.len() >= 2 => {
                let (last, targets) = operands.split_last().expect("two operands");
                let parent = last.rsplit_once('/').map_or(".", |(p, _)| p);
                (targets, vec![*last, parent])
            }
            // One operand: the link is made where the shell stands, as the word is read.
            None => return,
        };
        for base in &bases {
            self.writes_path(base, by, true);
        }
        for target in targets {
            if target.starts_with('/') || target.starts_with('~') {
                self.named(target, by);
                continue;
            }
            for base in &bases {
                let base = if base.is_empty() { "/" } else { base };
                self.named(&format!("{base}/{target}"), by);
            }
        }
        if rest.iter().any(|a| a.text.is_none()) {
            self.unknown(format!("what {by} links"));
        }
    }

    /// `script [options] [file]`: the file (default `typescript`) is written, with `-a` added
    /// to; `-c`'s text runs; the timing and log options name files it writes as well.
    pub(super) fn script(&mut self, rest: &[Arg], by: &str) {
        let mut file = None;
        let mut i = 0;
        while let Some(a) = rest.get(i) {
            i += 1;
            let Some(t) = a.text.as_deref() else {
                self.unknown(format!("what {by} is given ({})", a.raw()));
                return;
            };
            let (opt, glued) = if t.starts_with("--") {
                split_option(t)
            } else if t.starts_with('-') && t.len() > 1 {
                // A bundle (`-qc`): the first letter that takes a value takes the rest of the
                // word, or the next word.
                match t.char_indices().find(|&(_, c)| "cTIOBEmot".contains(c)) {
                    Some((at, _)) => (&t[at..at + 1], Some(&t[at + 1..]).filter(|g| !g.is_empty())),
                    None => continue,
                }
            } else {
                file.get_or_insert(t.to_string());
                continue;
            };
            let mut value = || match glued {
                Some(g) => Some(g.to_string()),
                None => {
                    i += 1;
                    rest.get(i - 1).and_then(|a| a.text.clone())
                }
            };
            match opt {
                "c" | "-c" | "--command" => match value() {
                    Some(text) => self.nested_text(&text),
                    None => self.unknown(format!("what {by} runs")),
                },
                "T" | "I" | "O" | "B" | "--log-timing" | "--log-in" | "--log-out" | "--log-io" => {
                    match value() {
                        Some(f) => self.writes_path(&f, by, true),
                        None => self.unknown(format!("where {by} logs")),
                    }
                }
                "t" | "--timing" => {
                    if let Some(f) = glued {
                        self.writes_path(f, by, true);
                    }
                }
                "E" | "m" | "o" | "--echo" | "--logging-format" | "--output-limit" => {
                    value();
                }
                _ => {}
            }
        }
        self.writes_path(file.as_deref().unwrap_or("typescript"), by, true);
    }

    /// `sed`'s script (the first operand, or each `-e`/`--expression`): the files its `w`
    /// commands and `s///w` flags write, and the text its `e` command runs.
    pub(super) fn sed_scripts(&mut self, rest: &[Arg], by: &str) {
        let mut scripts = Vec::new();
        let mut given = false;
        let mut i = 0;
        while let Some(a) = rest.get(i) {
            i += 1;
            let Some(t) = a.text.as_deref() else {
                if !given {
                    self.unknown(format!("the script of {by}"));
                    return;
                }
                continue;
            };
            match t {
                "-e" | "--expression" => {
                    given = true;
                    match rest.get(i).and_then(|a| a.text.clone()) {
                        Some(s) => scripts.push(s),
                        None => {
                            self.unknown(format!("the script of {by}"));
                            return;
                        }
                    }
                    i += 1;
                }
                // A script file is read from disk by sed; the guard does not follow it.
                "-f" | "--file" => {
                    given = true;
                    i += 1;
                }
                t if t.starts_with("--expression=") => {
                    given = true;
                    scripts.push(t["--expression=".len()..].to_string());
                }
                t if t.starts_with("-e") && t.len() > 2 => {
                    given = true;
                    scripts.push(t[2..].to_string());
                }
                t if t.starts_with('-') => {}
                t if !given => {
                    given = true;
                    scripts.push(t.to_string());
                }
                _ => {}
            }
        }
        for script in scripts {
            for does in sed_effects(&script) {
                match does {
                    Sed::Writes(path) => self.writes_path(&path, by, true),
                    Sed::Runs(Some(text)) => self.nested_text(&text),
                    Sed::Runs(None) => self.unknown(format!("what {by} runs (its `e` command)")),
                }
            }
        }
    }
}

/// What a `sed` script does besides editing its stream.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Sed {
    /// A `w`/`W` command or an `s///w` flag writes this file.
    Writes(String),
    /// An `e` command runs this text (`None`: the pattern space, or an `s///e` flag).
    Runs(Option<String>),
}

/// The writes and runs of a sed script, read command by command as GNU sed reads it: an
/// address (`1`, `$`, `/re/`, `\%re%`, ranges, `!`), then the command letter, where `w`, `W`,
/// `r`, `R` and `e` take the rest of the line and `s` and `y` their delimited parts.
pub(super) fn sed_effects(script: &str) -> Vec<Sed> {
    let mut out = Vec::new();
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let rest_of_line = |from: usize| -> (String, usize) {
        let end = chars[from..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(chars.len(), |e| from + e);
        (
            chars[from..end]
                .iter()
                .collect::<String>()
                .trim()
                .to_string(),
            end,
        )
    };
    // Past a delimited part (`/re/`) starting at the delimiter; returns the index after it.
    let skip_delimited = |from: usize| -> usize {
        let delim = chars[from];
        let mut j = from + 1;
        while j < chars.len() && chars[j] != delim {
            if chars[j] == '\\' {
                j += 1;
            }
            j += 1;
        }
        j + 1
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | ';' | '{' | '}' | '!' | ',' | '$' | '+' | '~' => i += 1,
            '0'..='9' => i += 1,
            '/' => i = skip_delimited(i),
            '\\' if i + 1 < chars.len() => i = skip_delimited(i + 1),
            'w' | 'W' => {
                let (file, end) = rest_of_line(i + 1);
                out.push(Sed::Writes(file));
                i = end;
            }
            'r' | 'R' | 'a' | 'i' | 'c' | ':' | 'b' | 't' | 'T' | '#' => {
                i = rest_of_line(i + 1).1;
            }
            'e' => {
                let (text, end) = rest_of_line(i + 1);
                out.push(Sed::Runs(Some(text).filter(|t| !t.is_empty())));
                i = end;
            }
            's' | 'y' if i + 1 < chars.len() => {
                // `s/re/replacement/flags`: two parts after the first delimiter.
                let mut j = skip_delimited(i + 1) - 1;
                if j < chars.len() {
                    j = skip_delimited(j);
                }
                if c == 'y' {
                    i = j;
                    continue;
                }
                while j < chars.len() && !matches!(chars[j], ';' | '\n' | '}' | 'w' | 'W') {
                    if chars[j] == 'e' {
                        out.push(Sed::Runs(None));
                    }
                    j += 1;
                }
                if j < chars.len() && matches!(chars[j], 'w' | 'W') {
                    let (file, end) = rest_of_line(j + 1);
                    out.push(Sed::Writes(file));
                    j = end;
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Sed, sed_effects};
    use crate::tests::{LINKED, PRIMARY, blocked, cmd};

    #[test]
    fn links_into_the_primary_and_files_programs_write_by_script_block() {
        for c in [
            "ln -s ../../primary/x sub/link",
            "ln -sf ../../primary sub/",
            "ln -s -t sub ../../primary",
            "ln -s --target-directory=a/b ../../../primary/x",
            "cp -s /repo/primary/x y",
            "cp -al ../primary/x y",
            "cp -sf ../primary/x y",
            "cp --symbolic-link ../primary/x y",
            "sed -n '1w../primary/x' f",
            "sed -n '$w ../primary/x' f",
            "sed -e 's/a/b/w ../primary/x' f",
            "sed '1e touch ../primary/x' f",
            "tar -cf../primary/x a",
            "script -q ../primary/x -c true",
        ] {
            let from_primary = format!("cd {LINKED} && {c}");
            assert!(blocked(&cmd(c, LINKED)), "allowed: {c}");
            assert!(
                blocked(&cmd(&from_primary, PRIMARY)),
                "allowed: {from_primary}"
            );
        }
    }

    #[test]
    fn links_and_sed_inside_the_worktree_stay_allowed() {
        for c in [
            "ln -s ../x sub/link",
            "ln -s target link",
            "cp -a src dst",
            "cp -r src dst",
            "sed -i 's/a/b/' f",
            "sed -n '1,5p' f > out",
            "sed 's/x/y/w out.txt' f",
        ] {
            assert!(!blocked(&cmd(c, LINKED)), "blocked: {c}");
        }
    }

    #[test]
    fn sed_writes_what_its_w_commands_and_flags_name_wherever_the_address_is_glued() {
        let w = |p: &str| Sed::Writes(p.into());
        assert_eq!(sed_effects("1w../p/x"), [w("../p/x")]);
        assert_eq!(sed_effects("/re/w /p/x"), [w("/p/x")]);
        assert_eq!(sed_effects("$W out"), [w("out")]);
        assert_eq!(sed_effects("s/a/b/gw ../p/x"), [w("../p/x")]);
        assert_eq!(sed_effects("s|a/w|b|;2w f\n3p"), [w("f")]);
        assert_eq!(sed_effects("\\%x%w f"), [w("f")]);
        assert_eq!(
            sed_effects("1e touch x"),
            [Sed::Runs(Some("touch x".into()))]
        );
        assert_eq!(sed_effects("s/a/b/e"), [Sed::Runs(None)]);
    }

    #[test]
    fn ordinary_sed_scripts_write_nothing() {
        for s in [
            "s/a/b/g",
            "1d",
            "/^#/d;s/x/y/",
            "y/abc/xyz/",
            "10q",
            "$!N;P;D",
            "/w/p",
        ] {
            assert!(sed_effects(s).is_empty(), "{s}: {:?}", sed_effects(s));
        }
    }
}
