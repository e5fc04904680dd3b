//! Git: its global options (`-C`, `--git-dir`, `-c`), the places it works, whether its verb
//! only reads, what `git config` writes, and the branches it moves (read in `branches`). It
//! judges only the words of the command: it never opens a repository or runs git.

use std::path::PathBuf;

use super::super::scan::Redirect;
use super::branches::branch_writes;
use super::git_programs::{Setting, VerbRuns, grep_pager, runs_nothing, setting, verb_runs};
use super::programs::is_no_op_editor;
use super::walker::Walk;
use super::words::{Arg, raw_of, short, split_option};
use super::{Dir, Effect, Ref};

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
    SAFE_GIT_SECTIONS.contains(&section.as_str()) && setting(key) == Setting::Plain
}

impl Walk<'_> {
    /// Git: its global options, then its verb.
    pub(super) fn git(&mut self, rest: &[Arg], redirects: &[&Redirect]) {
        let by = "`git`";
        let mut i = 0;
        let mut work: Vec<Dir> = self.dirs.clone();
        let mut configured = false;
        let mut update_refs = false;
        if let Some(name) = self.git_config_variable.clone() {
            self.git_runs_unseen(format!("the configuration `{name}=` makes it read"));
        }
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
                "-c" => {
                    configured = true;
                    match value() {
                        Some(v) => update_refs |= self.git_config_option(&v, by),
                        None => self.unknown(raw_of(&rest[i..(i + 2).min(rest.len())])),
                    }
                }
                // `key=ENVVAR`: the value is the variable's, which only the shell knows.
                "--config-env" => {
                    configured = true;
                    match value() {
                        Some(v) => {
                            let key = v.split_once('=').map_or(v.as_str(), |(k, _)| k);
                            update_refs |= self.git_setting(key, None, by);
                        }
                        None => self.unknown(raw_of(&rest[i..(i + 2).min(rest.len())])),
                    }
                }
                // Given a folder, git runs its own programs from there.
                "--exec-path" if glued.is_some() => {
                    configured = true;
                    self.git_runs_unseen(format!("its own programs from `{t}`"));
                }
                _ => {}
            }
            i += if takes { 2 } else { 1 };
        }
        let verb = rest.get(i).and_then(|a| a.text.clone());
        let args = &rest[(i + 1).min(rest.len())..];
        let configured = configured || self.git_env;
        let runs = verb.as_deref().map_or(Vec::new(), |v| verb_runs(v, args));
        let reader =
            !configured && runs.is_empty() && verb.as_deref().is_some_and(|v| git_reads(v, args));
        for r in runs {
            match r {
                VerbRuns::Text(Some(text)) => self.nested_text(&text),
                VerbRuns::Text(None) => {
                    self.unknown(format!("what `git {}` runs", verb.as_deref().unwrap_or("")))
                }
                VerbRuns::Programs(dir) => {
                    self.git_runs_unseen(format!("the hooks the templates in `{dir}` install"))
                }
                VerbRuns::Setting(Some(v)) => {
                    self.git_config_option(&v, by);
                }
                VerbRuns::Setting(None) => self.unknown(format!(
                    "a setting of `git {}`",
                    verb.as_deref().unwrap_or("")
                )),
            }
        }
        if verb.as_deref() == Some("config") {
            self.git_config(args);
        }
        if verb.as_deref() == Some("berth") {
            self.berth(args);
        }
        if let Some(v) = verb.as_deref() {
            self.branch_effects(v, &rest[i..], &work, update_refs);
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
        self.git_operands(args, &work, by);
    }

    /// The value of `-c` (`key=value`, or `key` alone for true): what the setting makes git
    /// run or write, and the paths it names. True when it turns `rebase.updateRefs` on.
    fn git_config_option(&mut self, v: &str, by: &str) -> bool {
        let (key, value) = v.split_once('=').unwrap_or((v, "true"));
        let update_refs = self.git_setting(key, Some(value), by);
        self.named(v, by);
        update_refs
    }

    /// One setting git runs with (`value` is `None` when only the shell knows it), judged by
    /// what git-config(1) says its value is. True when it turns `rebase.updateRefs` on.
    fn git_setting(&mut self, key: &str, value: Option<&str>, by: &str) -> bool {
        let kind = setting(key);
        let Some(value) = value else {
            if kind != Setting::Plain {
                self.git_runs_unseen(format!("`{key}` set to a value only the shell knows"));
            }
            return kind == Setting::UpdatesRefs;
        };
        if matches!(
            key.to_ascii_lowercase().as_str(),
            "core.editor" | "sequence.editor"
        ) {
            self.editor |= !is_no_op_editor(value);
        }
        match kind {
            Setting::Command => self.nested_text(value),
            // `!text` is shell text; any other alias is more words for git.
            Setting::Alias => match value.strip_prefix('!') {
                Some(text) => self.nested_text(text),
                None => self.nested_text(&format!("git {value}")),
            },
            Setting::BangCommand => {
                if let Some(text) = value.strip_prefix('!') {
                    self.nested_text(text);
                }
            }
            Setting::FlagOrCommand if !runs_nothing(kind, value) => self.nested_text(value),
            Setting::Programs if !runs_nothing(kind, value) => {
                self.git_runs_unseen(format!("the programs `{key}={value}` lets it run"))
            }
            Setting::Include => {
                self.git_runs_unseen(format!("the configuration `{key}={value}` reads"))
            }
            Setting::Place => {
                for p in self.resolve(value) {
                    self.emit(Effect::GitPlace(p));
                }
            }
            Setting::Output if value.contains('/') => self.writes_path(value, by, true),
            Setting::UpdatesRefs => return !is_false(value),
            _ => {}
        }
        false
    }

    /// The words after a verb that writes: each may name a path, taken from where git works.
    fn git_operands(&mut self, args: &[Arg], work: &[Dir], by: &str) {
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
            let saved = std::mem::replace(&mut self.dirs, work.to_vec());
            self.named(t, by);
            self.dirs = saved;
        }
    }

    /// The branches git writes (see [`branch_writes`]), each judged in every place git may
    /// work: the folders it runs in and the repositories it is pointed at.
    fn branch_effects(&mut self, verb: &str, from_verb: &[Arg], work: &[Dir], update_refs: bool) {
        let mut writes = branch_writes(verb, &from_verb[1..], self.piped, self.editor);
        // A rebase told to by configuration moves every branch pointing into what it rebases.
        if update_refs && verb == "rebase" {
            writes.refs.push(Ref::All);
        }
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
}

impl Walk<'_> {
    /// Git would run programs the guard cannot read: `what` says which.
    fn git_runs_unseen(&mut self, what: String) {
        self.emit(Effect::Refused {
            what: format!(
                "git would run programs the guard cannot read: {what} (the primary checkout is \
                 protected)"
            ),
            hint: "leave that out; a person sets git's configuration, hooks and templates".into(),
        });
    }
}

/// Git's spellings of false.
fn is_false(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "false" | "no" | "off" | "0" | ""
    )
}

/// Does this git verb (with these arguments) only read?
fn git_reads(verb: &str, args: &[Arg]) -> bool {
    let texts: Vec<Option<&str>> = args.iter().map(|a| a.text.as_deref()).collect();
    let has = |f: &dyn Fn(&str) -> bool| texts.iter().any(|t| t.is_some_and(f));
    if GIT_READERS.contains(&verb) {
        // `--output` writes a file; a pager for `grep`'s files and `--ext-diff` run programs.
        let runs =
            has(&|t| t.starts_with("--output") || t == "--ext-diff" || t.starts_with("--exec"));
        return !(runs || verb == "grep" && grep_pager(args).0);
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

#[cfg(test)]
mod tests {
    use super::super::tests::{fx, runs};
    use super::super::{Effect, Ref};

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
    fn git_pointed_elsewhere_writes_branches_there_too() {
        let e = fx("git -C /a --git-dir=/b/.git branch -D main");
        for dir in ["/a", "/b/.git"] {
            assert!(
                e.contains(&Effect::MovesBranch {
                    dir: dir.into(),
                    branch: Ref::Named("main".into()),
                    by: "git branch -D main".into(),
                }),
                "{dir}: {e:?}"
            );
        }
    }
}
