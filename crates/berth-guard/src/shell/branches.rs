//! Which branches a git command writes, read from the words after its verb as git's option
//! parser reads them: by name, all of them, the one checked out, or ones only the shell knows.
//! Pure: a function of the words alone, it never walks the shell or looks at the disk.

use super::words::{Arg, split_option};
use super::{Ref, names_previous};

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
            // Git's reflog knows which branch that was, the guard does not: maybe the trunk.
            GitWord::Known(t) if names_previous(t.trim_start_matches('+')) => {
                Ref::Unknown(t.to_string())
            }
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
pub(super) struct BranchWrites {
    pub(super) refs: Vec<Ref>,
    pub(super) checks_out: Option<String>,
    /// Shell text git runs on the way (`rebase --exec`, `bisect run`), which may write
    /// branches itself; `None` in it is text only the shell knows.
    pub(super) runs: Vec<Option<String>>,
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
pub(super) fn branch_writes(verb: &str, args: &[Arg], piped: bool, editor: bool) -> BranchWrites {
    let mut out = BranchWrites::default();
    match verb {
        "push" | "send-pack" => push(args, &mut out),
        "fetch" | "pull" => fetch(verb, args, &mut out),
        "update-ref" => update_ref(args, &mut out),
        "branch" => branch(args, piped, &mut out),
        "checkout" | "switch" => checkout(args, &mut out),
        "worktree" => worktree(args, &mut out),
        "rebase" => rebase(args, editor, &mut out),
        "bisect" if args.first().is_some_and(|a| a.is("run")) => {
            let words: Option<Vec<&str>> = args[1..].iter().map(|a| a.text.as_deref()).collect();
            out.runs.push(words.map(|w| w.join(" ")));
        }
        // It runs its text in every submodule, from folders the guard does not know.
        "submodule" if args.iter().any(|a| a.is("foreach")) => {
            out.refs
                .push(Ref::Unknown("what `submodule foreach` runs".into()));
        }
        "symbolic-ref" => symbolic_ref(args, &mut out),
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

/// `git push`: the destination of each refspec, every branch with `--all`, and the branch
/// checked out when no refspec is given.
fn push(args: &[Arg], out: &mut BranchWrites) {
    let w = GitWords::read(
        args,
        &["-o", "--push-option", "--repo", "--receive-pack", "--exec"],
    );
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

/// `git fetch`, `git pull`: the destination of each `src:dst` refspec; a pull also merges into
/// the branch checked out.
fn fetch(verb: &str, args: &[Arg], out: &mut BranchWrites) {
    let w = GitWords::read(
        args,
        &[
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
        ],
    );
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

/// `git update-ref`: the ref it names (`HEAD` is the branch checked out, unless
/// `--no-deref`), or every branch with `--stdin`.
fn update_ref(args: &[Arg], out: &mut BranchWrites) {
    let w = GitWords::read(args, &["-m"]);
    if w.has(&["--stdin"]) {
        out.refs.push(Ref::All);
    } else if let Some(r) = w.operands.first() {
        match (r.branch(), w.has(&["--no-deref"])) {
            (Ref::Current, true) => {}
            (b, _) => out.refs.push(b),
        }
    }
}

/// `git branch`: what it deletes, renames, copies to or force-resets; listing and creating
/// write no branch that exists.
fn branch(args: &[Arg], piped: bool, out: &mut BranchWrites) {
    let w = GitWords::read(
        args,
        &[
            "-u",
            "--set-upstream-to",
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
            "--format",
            "--sort",
        ],
    );
    let ops = &w.operands;
    let named = |ws: &[GitWord]| -> Vec<Ref> { ws.iter().map(|w| w.branch()).collect() };
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

/// `git checkout`, `git switch`: the branch `-B`/`-C` resets (or `--ignore-other-worktrees`
/// takes), and the branch it checks out.
fn checkout(args: &[Arg], out: &mut BranchWrites) {
    let w = GitWords::read(args, &["-b", "-B", "-c", "-C", "--orphan", "--conflict"]);
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

/// `git worktree add`: the branch `-B` (or `--force` with a branch) resets, and the one the new
/// worktree checks out.
fn worktree(args: &[Arg], out: &mut BranchWrites) {
    let w = GitWords::read(args, &["-b", "-B", "--reason"]);
    if w.operands.first() != Some(&GitWord::Known("add")) {
        return;
    }
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

/// `git rebase`: the branch it rebases (the one checked out unless named), every branch with
/// `--update-refs`, and the shell text `--exec` (or a todo list an editor writes) runs.
fn rebase(args: &[Arg], editor: bool, out: &mut BranchWrites) {
    let w = GitWords::read(
        args,
        &[
            "--onto",
            "-s",
            "--strategy",
            "-X",
            "--strategy-option",
            "-x",
            "--exec",
        ],
    );
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

/// `git symbolic-ref NAME TARGET`: `HEAD` checks the target out; any other name is written.
fn symbolic_ref(args: &[Arg], out: &mut BranchWrites) {
    let w = GitWords::read(args, &["-m"]);
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::tests::fx;
    use super::super::{Effect, Ref};

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
}
