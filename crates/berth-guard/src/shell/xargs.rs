//! What `xargs` and `parallel` hand the command they run. The words are known only when the
//! text itself says them: a plain `echo` or `printf` piped straight in, or `parallel`'s `:::`.
//! Read from a file, from another program or from the agent's own input, they are made at run
//! time, and so is a replacement string glued into a longer word (`-I{} touch {}/x`). This
//! module only says which; the walk makes a program handed such words that may write unknown.

use super::super::scan::Redirect;
use super::words::Arg;

/// How `xargs` reads its input, from its options.
#[derive(Debug, Default, PartialEq, Eq)]
struct XargsOptions {
    /// Where the command starts, counted from the first option.
    start: usize,
    /// `-a file`: the words come from a file.
    from_file: bool,
    /// `-0`, `-d c`: items are cut otherwise than at blanks, so a printed word is not one.
    delimited: bool,
    /// `-I R`, `-i`, `--replace`: the string replaced by each item inside the command's words.
    replace: Option<String>,
    /// An option only the shell knows, which may be any of these.
    unknown: bool,
}

/// Reads `xargs`'s options as its getopt does: short flags may be bundled (`-r0`), a value is
/// glued or the next word, and `-i`, `-e`, `-l` take theirs only glued.
fn xargs_options(words: &[Arg]) -> XargsOptions {
    let mut o = XargsOptions::default();
    let mut i = 0;
    while let Some(a) = words.get(i) {
        let Some(t) = a.text.as_deref() else {
            o.unknown = true;
            break;
        };
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        i += 1;
        if let Some(long) = t.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let takes = matches!(
                name,
                "arg-file"
                    | "delimiter"
                    | "max-args"
                    | "max-procs"
                    | "max-lines"
                    | "max-chars"
                    | "process-slot-var"
            );
            let value = match value {
                Some(v) => Some(v.to_string()),
                None if takes => {
                    i += 1;
                    words.get(i - 1).and_then(|v| v.text.clone())
                }
                None => None,
            };
            match name {
                "arg-file" => o.from_file = true,
                "null" | "delimiter" => o.delimited = true,
                "replace" => o.replace = Some(value.unwrap_or_else(|| "{}".into())),
                _ => {}
            }
            continue;
        }
        for (at, c) in t.char_indices().skip(1) {
            let glued = &t[at + c.len_utf8()..];
            match c {
                'a' | 'd' | 'E' | 'I' | 'L' | 'n' | 'P' | 's' => {
                    let value = if glued.is_empty() {
                        i += 1;
                        words.get(i - 1).and_then(|v| v.text.clone())
                    } else {
                        Some(glued.to_string())
                    };
                    match c {
                        'a' => o.from_file = true,
                        'd' => o.delimited = true,
                        'I' => match value {
                            Some(v) => o.replace = Some(v),
                            None => o.unknown = true,
                        },
                        _ => {}
                    }
                    break;
                }
                'i' => {
                    o.replace = Some(if glued.is_empty() { "{}" } else { glued }.to_string());
                    break;
                }
                'e' | 'l' => break,
                '0' => o.delimited = true,
                _ => {}
            }
        }
    }
    o.start = i.min(words.len());
    o
}

/// Where the command `xargs` runs starts among its words after the name (`None`: the words
/// only the shell knows hide it).
pub(super) fn xargs_command_at(words: &[Arg]) -> Option<usize> {
    let o = xargs_options(words);
    (!o.unknown).then_some(o.start)
}

/// The words a plain `echo` or `printf` prints, when its text says each of them: every word
/// literal, no quote or backslash for `xargs` to read otherwise, and printf's format nothing
/// but whole `%s` and plain text between blanks (`'%s\n'`), so no word is made by gluing.
pub(super) fn prints(args: &[Arg]) -> Option<Vec<String>> {
    let texts: Option<Vec<&str>> = args.iter().map(|a| a.text.as_deref()).collect();
    let (name, rest) = texts?.split_first().map(|(n, r)| (*n, r.to_vec()))?;
    let plain = |t: &str| !t.contains(['\'', '"', '\\']);
    match name {
        "echo" => {
            let words: Vec<&str> = rest
                .iter()
                .copied()
                .skip_while(|t| {
                    t.len() > 1
                        && t.starts_with('-')
                        && t[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
                })
                .collect();
            words
                .iter()
                .all(|t| plain(t))
                .then(|| words.iter().map(|t| t.to_string()).collect())
        }
        "printf" => {
            let rest = match rest.first() {
                Some(&"--") => &rest[1..],
                Some(t) if t.starts_with('-') => return None,
                _ => &rest[..],
            };
            let (format, operands) = rest.split_first()?;
            let format = format.replace("\\n", " ").replace("\\t", " ");
            let pieces: Vec<&str> = format.split_whitespace().collect();
            let whole = pieces.iter().all(|p| *p == "%s" || !p.contains('%'));
            if !whole || !plain(&format) || !operands.iter().all(|t| plain(t)) {
                return None;
            }
            let printed = pieces.into_iter().filter(|p| *p != "%s");
            Some(
                printed
                    .chain(operands.iter().copied())
                    .map(str::to_string)
                    .collect(),
            )
        }
        _ => None,
    }
}

/// What `wrapper` (`xargs` or `parallel`, given `options` before the command `inner`) hands
/// `inner` that only the running shell knows, said for a message; `None` when the text says
/// every word (they are then judged as written). `piped_in`: its standard input is a pipe;
/// `upstream_known`: the command before it in the pipeline prints what the text says.
pub(super) fn handed_at_run_time(
    wrapper: &str,
    options: &[Arg],
    inner: &[Arg],
    redirects: &[&Redirect],
    piped_in: bool,
    upstream_known: bool,
) -> Option<String> {
    let reads = format!("words `{wrapper}` reads at run time");
    let builds = format!("words `{wrapper}` builds at run time");
    let word = |a: &Arg| a.text.clone().unwrap_or_else(|| a.raw().to_string());
    if wrapper == "parallel" {
        // `:::` gives the words in the text; `::::`, `-a` and standard input do not.
        let words: Vec<String> = options.iter().chain(inner).map(word).collect();
        let literal = words.iter().any(|w| w == ":::" || w == ":::+");
        let files = words
            .iter()
            .any(|w| w.starts_with("::::") || matches!(w.as_str(), "-a" | "--arg-file"));
        if !literal || files || inner.iter().any(|a| a.text.is_none()) {
            return Some(reads);
        }
        let glued = |w: &String| w.contains('{') && w.contains('}') && w != "{}";
        return inner.iter().map(word).any(|w| glued(&w)).then_some(builds);
    }
    let o = xargs_options(options);
    let stdin = redirects.iter().any(|r| r.op.starts_with('<'));
    if o.unknown || o.from_file || o.delimited || stdin || !piped_in || !upstream_known {
        return Some(reads);
    }
    let r = o.replace?;
    inner
        .iter()
        .map(word)
        .any(|w| w != r && w.contains(r.as_str()))
        .then_some(builds)
}

#[cfg(test)]
mod tests {
    use super::super::super::scan;
    use super::super::Effect;
    use super::super::tests::fx;
    use super::*;

    fn words(text: &str) -> Vec<scan::Word> {
        scan::scan(text, 0)
            .expect("scans")
            .into_iter()
            .filter_map(|t| match t {
                scan::Tok::Word(w) => Some(w),
                _ => None,
            })
            .collect()
    }

    fn args(words: &[scan::Word]) -> Vec<Arg<'_>> {
        words
            .iter()
            .map(|w| Arg {
                word: w,
                text: scan::value(w),
            })
            .collect()
    }

    fn blocks(cmd: &str) -> bool {
        fx(cmd)
            .iter()
            .any(|e| matches!(e, Effect::Unknown(_) | Effect::Refused { .. }))
    }

    #[test]
    fn xargs_options_are_read_as_its_getopt_reads_them() {
        let w = words("-r0 -I {} -n1 touch {}");
        let o = xargs_options(&args(&w));
        assert_eq!((o.start, o.delimited), (4, true));
        assert_eq!(o.replace.as_deref(), Some("{}"));
        let w = words("-iX --arg-file=list -- touch");
        let o = xargs_options(&args(&w));
        assert_eq!((o.start, o.from_file), (3, true));
        assert_eq!(o.replace.as_deref(), Some("X"));
        let w = words("--replace touch {}");
        assert_eq!(xargs_options(&args(&w)).start, 1);
    }

    #[test]
    fn only_plain_echo_and_printf_print_words_the_text_says() {
        let printed = |text: &str| prints(&args(&words(text)));
        assert_eq!(
            printed("printf '%s\\n' a b"),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(printed("echo -n src/x"), Some(vec!["src/x".into()]));
        for glued in [
            "printf '%s%s' . ./primary/x",
            "printf '../%s' primary",
            "printf '%b' x",
            "printf '\\x2e'",
            "echo -e '\\x2e\\x2e'",
            "echo \"'..'/x\"",
            "echo $X",
            "echo *",
            "cat list",
        ] {
            assert_eq!(printed(glued), None, "{glued}");
        }
    }

    #[test]
    fn a_writer_xargs_hands_words_made_at_run_time_is_refused() {
        for cmd in [
            "xargs touch < list",
            "cat list | xargs touch",
            "xargs -a list rm",
            "pwd | xargs -I{} touch {}/x",
            "echo .. | xargs -I{} touch {}/x",
            "echo a | xargs -0 touch",
            "cat list | xargs find",
            "cat list | xargs git worktree add",
            "xargs touch",
            "cat list | parallel touch",
            "parallel touch {}/x ::: ..",
        ] {
            assert!(blocks(cmd), "{cmd}: {:?}", fx(cmd));
        }
        for cmd in [
            "printf '%s\\n' a b | xargs touch",
            "echo src/x | xargs -I{} touch {}",
            "git ls-files | xargs grep -l foo",
            "find . -name '*.rs' | xargs wc -l",
            "git branch --merged main | grep berth/old | xargs git log -1",
            "cat list | xargs -I{} cat {}/x",
            "parallel touch ::: a b",
        ] {
            assert!(!blocks(cmd), "{cmd}: {:?}", fx(cmd));
        }
    }
}
