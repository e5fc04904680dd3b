//! Shell text into words, operators, redirections and here-documents, the way bash reads them.
//! It only reads: nothing is run or expanded. Every path through it is bounded: one pass over the
//! text, nesting (substitutions, backticks) at most [`MAX_NESTING`] deep, and text that bash would
//! refuse (an unterminated quote) is an error, so the guard can block rather than guess.

/// Substitutions, backticks and nested shells deeper than this make the text an error.
pub const MAX_NESTING: usize = 16;

/// One element of a command list.
#[derive(Debug)]
pub enum Tok {
    Word(Word),
    Op(Op),
    Redirect(Redirect),
}

/// What separates simple commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `&&`
    And,
    /// `||`
    Or,
    /// `;`, `&`, a newline, `;;` in a `case`
    Seq,
    /// `|`, `|&`
    Pipe,
    /// `(`: a subshell (or a function's `()`)
    Open,
    /// `)`
    Close,
}

#[derive(Debug, Default)]
pub struct Word {
    /// The word as written, quotes included.
    pub raw: String,
    /// The value depends on an expansion: a variable, a substitution, a glob, a brace.
    pub dynamic: bool,
    /// Command lists inside `$(...)`, backticks, `<(...)` and `>(...)`: they run wherever the
    /// word is expanded.
    pub subs: Vec<Vec<Tok>>,
}

impl Word {
    /// The word is nothing but a process substitution (`>(tee log)`), a pipe, not a file.
    pub fn is_process_substitution(&self) -> bool {
        (self.raw.starts_with("<(") || self.raw.starts_with(">(")) && self.raw.ends_with(')')
    }
}

#[derive(Debug)]
pub struct Redirect {
    /// The operator: `>`, `>>`, `>|`, `&>`, `&>>`, `<`, `<>`, `<<`, `<<-`, `<<<`, `>&`, `<&`.
    pub op: String,
    /// The file, descriptor, here-string or here-document delimiter.
    pub target: Word,
    /// A here-document's body, filled in once the line that holds it ends.
    pub heredoc: Option<Heredoc>,
}

impl Redirect {
    /// The redirection opens a file for writing (not a descriptor, not a here-document).
    pub fn writes(&self) -> bool {
        let op = self.op.as_str();
        let to_file = matches!(op, ">" | ">>" | ">|" | "&>" | "&>>" | "<>");
        let dup = matches!(op, ">&" | "<&");
        if dup {
            // `>&2`, `2>&1`, `>&-` name descriptors; `>& file` (bash) writes a file.
            let t = self.target.raw.trim_end_matches('-');
            return !t.is_empty() && !t.bytes().all(|b| b.is_ascii_digit());
        }
        to_file
    }

    /// The redirection feeds the command's standard input with text written right here.
    pub fn stdin_text(&self) -> bool {
        self.op.starts_with("<<")
    }
}

#[derive(Debug, Default)]
pub struct Heredoc {
    pub body: String,
    /// The delimiter was quoted, so the body is literal; otherwise it is expanded.
    pub quoted: bool,
    /// Substitutions in an expanded body.
    pub subs: Vec<Vec<Tok>>,
    /// The body has been read (a here-document at the very end of the text has none).
    pub read: bool,
}

/// Why the text is not something bash would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotShell(pub String);

/// Reads `text` as a command list. `depth` counts the nesting already spent by the caller (a
/// nested `sh -c` text starts deeper).
pub fn scan(text: &str, depth: usize) -> Result<Vec<Tok>, NotShell> {
    if depth > MAX_NESTING {
        return Err(NotShell("commands nested too deep".into()));
    }
    let mut s = Scanner {
        s: text.as_bytes(),
        text,
        pos: 0,
        depth,
        pending: Vec::new(),
    };
    s.list(false)
}

struct Pending {
    delim: String,
    strip_tabs: bool,
    quoted: bool,
}

struct Scanner<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
    depth: usize,
    pending: Vec<Pending>,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn at(&self, offset: usize) -> Option<u8> {
        self.s.get(self.pos + offset).copied()
    }

    fn fail<T>(&self, what: &str) -> Result<T, NotShell> {
        Err(NotShell(what.to_string()))
    }

    fn deeper(&mut self) -> Result<(), NotShell> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return self.fail("commands nested too deep");
        }
        Ok(())
    }

    /// A list of commands, up to the end of the text or (inside `$(`) its closing paren.
    fn list(&mut self, in_substitution: bool) -> Result<Vec<Tok>, NotShell> {
        let mut toks = Vec::new();
        let mut parens = 0usize;
        // `case` patterns end in a `)` that closes nothing.
        let mut cases = 0usize;
        let mut pattern_next = false;
        let mut command_start = true;
        // Here-document redirects waiting for a body are after the last newline.
        let mut line_start = 0;
        loop {
            let Some(c) = self.peek() else {
                return if in_substitution {
                    self.fail("unterminated `$(`")
                } else {
                    Ok(toks)
                };
            };
            let was_start = command_start;
            command_start = false;
            match c {
                b' ' | b'\t' | b'\r' => {
                    self.pos += 1;
                    command_start = was_start;
                }
                b'\\' if self.at(1) == Some(b'\n') => {
                    self.pos += 2;
                    command_start = was_start;
                }
                b'#' => {
                    while self.peek().is_some_and(|c| c != b'\n') {
                        self.pos += 1;
                    }
                    command_start = was_start;
                }
                b'\n' => {
                    self.pos += 1;
                    toks.push(Tok::Op(Op::Seq));
                    self.read_heredocs(&mut toks[line_start..])?;
                    line_start = toks.len();
                    command_start = true;
                }
                b')' if pattern_next && cases > 0 => {
                    self.pos += 1;
                    pattern_next = false;
                    toks.push(Tok::Op(Op::Seq));
                    command_start = true;
                }
                b')' => {
                    self.pos += 1;
                    if parens == 0 && in_substitution {
                        return Ok(toks);
                    }
                    parens = parens.saturating_sub(1);
                    toks.push(Tok::Op(Op::Close));
                    command_start = true;
                }
                b'(' => {
                    self.pos += 1;
                    parens += 1;
                    toks.push(Tok::Op(Op::Open));
                    command_start = true;
                }
                b';' => {
                    self.pos += 1;
                    if self.peek() == Some(b';') {
                        self.pos += 1;
                        pattern_next = cases > 0;
                    }
                    if self.peek() == Some(b'&') {
                        self.pos += 1;
                        pattern_next = cases > 0;
                    }
                    toks.push(Tok::Op(Op::Seq));
                    command_start = true;
                }
                b'|' => {
                    self.pos += 1;
                    let op = match self.peek() {
                        Some(b'|') => {
                            self.pos += 1;
                            Op::Or
                        }
                        Some(b'&') => {
                            self.pos += 1;
                            Op::Pipe
                        }
                        _ => Op::Pipe,
                    };
                    toks.push(Tok::Op(op));
                    command_start = true;
                }
                b'&' if self.at(1) == Some(b'>') => toks.push(self.redirect()?),
                b'&' => {
                    self.pos += 1;
                    let op = if self.peek() == Some(b'&') {
                        self.pos += 1;
                        Op::And
                    } else {
                        Op::Seq
                    };
                    toks.push(Tok::Op(op));
                    command_start = true;
                }
                b'<' | b'>' if self.at(1) == Some(b'(') => toks.push(Tok::Word(self.word()?)),
                b'<' | b'>' => toks.push(self.redirect()?),
                b'0'..=b'9' if self.fd_redirect_ahead() => toks.push(self.redirect()?),
                _ => {
                    let w = self.word()?;
                    if was_start {
                        match w.raw.as_str() {
                            "case" => cases += 1,
                            "esac" => {
                                cases = cases.saturating_sub(1);
                                pattern_next = false;
                            }
                            _ => {}
                        }
                        // Keywords leave the next word at a command's start.
                        command_start = matches!(
                            w.raw.as_str(),
                            "if" | "then"
                                | "elif"
                                | "else"
                                | "do"
                                | "while"
                                | "until"
                                | "!"
                                | "{"
                                | "time"
                                | "coproc"
                        );
                    } else if cases > 0 && w.raw == "in" {
                        pattern_next = true;
                    }
                    toks.push(Tok::Word(w));
                }
            }
        }
    }

    /// `2>file`, `10>>log`, `{fd}>x`: digits glued to a redirection operator name a descriptor.
    fn fd_redirect_ahead(&self) -> bool {
        let mut i = self.pos;
        while self.s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        matches!(self.s.get(i), Some(b'<' | b'>')) && self.s.get(i + 1) != Some(&b'(')
    }

    fn redirect(&mut self) -> Result<Tok, NotShell> {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let start = self.pos;
        let op: &str = {
            let rest = &self.text[start..];
            [
                "&>>", "<<<", "<<-", "&>", ">>", ">|", ">&", "<&", "<>", "<<", ">", "<",
            ]
            .into_iter()
            .find(|o| rest.starts_with(o))
            .unwrap_or(">")
        };
        self.pos += op.len();
        let op = op.to_string();
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'<' | b'>') if self.at(1) == Some(b'(') => {}
            None | Some(b'\n' | b';' | b'|' | b'&' | b'(' | b')' | b'<' | b'>') => {
                // `>&-` and `<&-` close a descriptor: `-` was taken as the target below.
                return self.fail("a redirection without a target");
            }
            _ => {}
        }
        let target = self.word()?;
        let mut heredoc = None;
        if op == "<<" || op == "<<-" {
            let quoted = target.raw.contains(['\'', '"', '\\']);
            let delim = shell_words::split(&target.raw)
                .ok()
                .and_then(|mut p| if p.len() == 1 { p.pop() } else { None })
                .unwrap_or_else(|| target.raw.clone());
            self.pending.push(Pending {
                delim,
                strip_tabs: op == "<<-",
                quoted,
            });
            heredoc = Some(Heredoc {
                quoted,
                ..Heredoc::default()
            });
        }
        Ok(Tok::Redirect(Redirect {
            op,
            target,
            heredoc,
        }))
    }

    /// After a newline: the bodies of the here-documents opened on the line just ended, in order.
    fn read_heredocs(&mut self, toks: &mut [Tok]) -> Result<(), NotShell> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let mut bodies = Vec::with_capacity(pending.len());
        for p in &pending {
            let mut body = String::new();
            loop {
                if self.pos >= self.s.len() {
                    // bash runs it with a warning: the body ends with the text.
                    break;
                }
                let end = self.text[self.pos..]
                    .find('\n')
                    .map_or(self.s.len(), |i| self.pos + i);
                let line = &self.text[self.pos..end];
                self.pos = (end + 1).min(self.s.len());
                let line = if p.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if line == p.delim {
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            let subs = if p.quoted {
                Vec::new()
            } else {
                expanded_subs(&body, self.depth)?
            };
            bodies.push(Heredoc {
                body,
                quoted: p.quoted,
                subs,
                read: true,
            });
        }
        // The redirects waiting are this list's own; one opened inside a substitution whose
        // line ends outside it (or the other way round) cannot be placed: fail closed.
        let mut waiting: Vec<&mut Heredoc> = toks
            .iter_mut()
            .filter_map(|t| match t {
                Tok::Redirect(Redirect {
                    heredoc: Some(h), ..
                }) if !h.read => Some(h),
                _ => None,
            })
            .collect();
        if waiting.len() != bodies.len() {
            return self.fail("a here-document whose body cannot be placed");
        }
        for (slot, body) in waiting.iter_mut().zip(bodies) {
            **slot = body;
        }
        Ok(())
    }

    fn word(&mut self) -> Result<Word, NotShell> {
        let start = self.pos;
        let mut w = Word::default();
        let mut braces = false;
        if matches!(self.peek(), Some(b'<' | b'>')) && self.at(1) == Some(b'(') {
            self.pos += 2;
            self.substitution(&mut w)?;
        }
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>' => {
                    // `a=(x y)`: an array assignment keeps its parens in the word.
                    if c == b'(' && self.pos > start && self.s[self.pos - 1] == b'=' {
                        self.array(&mut w)?;
                        continue;
                    }
                    // `@(x|y)`, `!(x)`, `+(x)`: extglob patterns.
                    if c == b'('
                        && self.pos > start
                        && matches!(self.s[self.pos - 1], b'@' | b'!' | b'+' | b'*' | b'?')
                    {
                        self.array(&mut w)?;
                        w.dynamic = true;
                        continue;
                    }
                    break;
                }
                b'\\' => self.pos = (self.pos + 2).min(self.s.len()),
                b'\'' => self.single_quoted()?,
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
        // `{ cd x; }` groups commands and `{}` is literal; `{a,b}` and `{1..3}` expand.
        w.dynamic |= braces && w.raw.contains('}') && (w.raw.contains(',') || w.raw.contains(".."));
        Ok(w)
    }

    /// `(a b c)` after `name=`: words up to the matching paren, kept in the word.
    fn array(&mut self, w: &mut Word) -> Result<(), NotShell> {
        self.pos += 1;
        loop {
            match self.peek() {
                None => return self.fail("unterminated `(`"),
                Some(b')') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => self.pos = (self.pos + 2).min(self.s.len()),
                Some(b'\'') => self.single_quoted()?,
                Some(b'"') => self.double_quoted(w)?,
                Some(b'`') => self.backticks(w)?,
                Some(b'$') => self.dollar(w, false)?,
                Some(b'(') => return self.fail("nested `(` in an array"),
                Some(_) => self.pos += 1,
            }
        }
    }

    fn single_quoted(&mut self) -> Result<(), NotShell> {
        self.pos += 1;
        match self.text[self.pos..].find('\'') {
            Some(i) => {
                self.pos += i + 1;
                Ok(())
            }
            None => self.fail("unterminated `'`"),
        }
    }

    fn double_quoted(&mut self, w: &mut Word) -> Result<(), NotShell> {
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

    /// After `$(`, `<(` or `>(`: the list up to the closing paren, one level deeper.
    fn substitution(&mut self, w: &mut Word) -> Result<(), NotShell> {
        self.deeper()?;
        let list = self.list(true)?;
        self.depth -= 1;
        w.subs.push(list);
        w.dynamic = true;
        Ok(())
    }

    fn backticks(&mut self, w: &mut Word) -> Result<(), NotShell> {
        self.pos += 1;
        let start = self.pos;
        loop {
            match self.peek() {
                None => return self.fail("unterminated backtick"),
                Some(b'`') => break,
                Some(b'\\') => self.pos += 1,
                Some(_) => {}
            }
            self.pos += 1;
        }
        let inner = unescape_backticks(&self.text[start..self.pos.min(self.s.len())]);
        self.pos += 1;
        self.deeper()?;
        let toks = scan(&inner, self.depth)?;
        self.depth -= 1;
        w.subs.push(toks);
        w.dynamic = true;
        Ok(())
    }

    fn dollar(&mut self, w: &mut Word, quoted: bool) -> Result<(), NotShell> {
        match self.at(1) {
            Some(b'(') => {
                self.pos += 2;
                self.substitution(w)?;
            }
            Some(b'{') => {
                self.pos += 2;
                self.parameter(w)?;
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
            Some(b'"') if !quoted => {
                self.pos += 1;
                self.double_quoted(w)?;
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

    /// `${...}` after its `${`: up to the matching brace, with quotes, substitutions and
    /// nested parameters inside it read as bash reads them (`${x:-'}'}` ends at the last brace).
    fn parameter(&mut self, w: &mut Word) -> Result<(), NotShell> {
        self.deeper()?;
        loop {
            match self.peek() {
                None => return self.fail("unterminated `${`"),
                Some(b'}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                Some(b'\\') => self.pos = (self.pos + 2).min(self.s.len()),
                Some(b'\'') => self.single_quoted()?,
                Some(b'"') => self.double_quoted(w)?,
                Some(b'`') => self.backticks(w)?,
                Some(b'$') => self.dollar(w, true)?,
                Some(_) => self.pos += 1,
            }
        }
    }
}

/// The substitutions in a here-document body or other text that bash expands as if double
/// quoted (a `"` in it is an ordinary character).
fn expanded_subs(body: &str, depth: usize) -> Result<Vec<Vec<Tok>>, NotShell> {
    let mut s = Scanner {
        s: body.as_bytes(),
        text: body,
        pos: 0,
        depth,
        pending: Vec::new(),
    };
    let mut w = Word::default();
    while let Some(c) = s.peek() {
        match c {
            b'\\' => s.pos = (s.pos + 2).min(s.s.len()),
            b'`' => s.backticks(&mut w)?,
            b'$' => s.dollar(&mut w, true)?,
            _ => s.pos += 1,
        }
    }
    Ok(w.subs)
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

/// The value of a word once unquoted, or `None` when only the running shell knows it.
pub fn value(w: &Word) -> Option<String> {
    if w.dynamic {
        return None;
    }
    if !w.raw.contains(['\'', '"', '\\']) {
        return Some(w.raw.clone());
    }
    match shell_words::split(&w.raw) {
        Ok(mut parts) if parts.len() == 1 => parts.pop(),
        // `""` splits to one empty word; anything else means the scanner and shell-words
        // disagree about the word, so nobody knows its value.
        Ok(parts) if parts.is_empty() && (w.raw == "''" || w.raw == "\"\"") => Some(String::new()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(toks: &[Tok]) -> Vec<String> {
        toks.iter()
            .filter_map(|t| match t {
                Tok::Word(w) => Some(w.raw.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_heredoc_body_is_text_not_commands() {
        let toks = scan("cat <<'EOF'\ndon't > x; rm -rf /\nEOF\necho done", 0).unwrap();
        assert_eq!(words(&toks), ["cat", "echo", "done"]);
        let body = toks.iter().find_map(|t| match t {
            Tok::Redirect(r) => r.heredoc.as_ref(),
            _ => None,
        });
        assert_eq!(body.unwrap().body, "don't > x; rm -rf /\n");
    }

    #[test]
    fn the_commit_idiom_with_an_apostrophe_scans() {
        let c = "git commit -m \"$(cat <<'EOF'\nFix: don't break\n\nCo-Authored-By: x\nEOF\n)\"";
        let toks = scan(c, 0).unwrap();
        assert_eq!(words(&toks).len(), 4);
    }

    #[test]
    fn an_unquoted_heredoc_body_keeps_its_substitutions() {
        let toks = scan("cat <<EOF\n$(touch /p/x)\nEOF", 0).unwrap();
        let h = toks
            .iter()
            .find_map(|t| match t {
                Tok::Redirect(r) => r.heredoc.as_ref(),
                _ => None,
            })
            .unwrap();
        assert_eq!(h.subs.len(), 1);
    }

    #[test]
    fn quotes_inside_a_parameter_expansion_are_quotes() {
        let toks = scan("echo ${x:-'}'} done", 0).unwrap();
        assert_eq!(words(&toks).len(), 3);
    }

    #[test]
    fn a_process_substitution_is_a_redirection_target() {
        let toks = scan("cmd > >(tee log)", 0).unwrap();
        assert!(matches!(&toks[1], Tok::Redirect(r) if r.target.is_process_substitution()));
    }

    #[test]
    fn a_case_pattern_paren_closes_nothing() {
        let toks = scan("x=$(case a in a) echo y;; esac); echo z", 0).unwrap();
        assert_eq!(
            words(&toks),
            ["x=$(case a in a) echo y;; esac)", "echo", "z"]
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("echo {}", "$(".repeat(30_000));
        assert!(scan(&deep, 0).is_err());
        let ticks = format!("echo {}x", "\\`".repeat(40));
        let _ = scan(&ticks, 0);
    }

    #[test]
    fn unterminated_quotes_and_substitutions_are_errors() {
        for c in [
            "echo 'a", "echo \"a", "echo $(a", "echo `a", "echo ${a", "echo $'a", "echo >",
        ] {
            assert!(scan(c, 0).is_err(), "{c}");
        }
    }
}
