//! What git runs besides itself: the configuration settings whose value names a command, a
//! folder of programs, more configuration or a file to write (from git-config(1)), the
//! variables that do the same, and the options of each verb that take a command. Pure tables
//! and readers of words: the walk (`git.rs`) decides what each means for the command.

use super::words::{Arg, split_option};

/// What a setting's value is to git.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Setting {
    /// Shell text git runs (`core.pager`, `diff.<driver>.textconv`, `credential.helper`, ...).
    Command,
    /// Shell text when it starts with `!`, otherwise more words for git (`alias.*`).
    Alias,
    /// A boolean, or a command git runs (`core.fsmonitor`, `pager.<verb>`).
    FlagOrCommand,
    /// A command when it starts with `!` (`submodule.<name>.update`).
    BangCommand,
    /// A folder whose programs git runs (`core.hooksPath`, `init.templateDir`), or a switch
    /// that lets a URL run one (`protocol.ext.allow`): nothing the guard can read.
    Programs,
    /// More configuration, which may set any of these (`include.path`, `includeIf.*.path`).
    Include,
    /// The work tree git works in (`core.worktree`).
    Place,
    /// A file git writes (`trace2.eventTarget`).
    Output,
    /// `rebase.updateRefs`: a rebase moves every branch pointing into what it rebases.
    UpdatesRefs,
    /// Data: a name, a number, a colour.
    Plain,
}

/// The kind of the setting `key` (`section.name` or `section.subsection.name`), as git-config(1)
/// documents each setting that names a command, a program folder, a configuration file, a work
/// tree or an output file. Everything else is data.
pub(super) fn setting(key: &str) -> Setting {
    let key = key.to_ascii_lowercase();
    let (section, rest) = key.split_once('.').unwrap_or((key.as_str(), ""));
    let (sub, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    use Setting::*;
    match (section, sub, name) {
        ("alias", None, _) => Alias,
        (
            "core",
            None,
            "editor" | "pager" | "sshcommand" | "askpass" | "gitproxy" | "alternaterefscommand",
        ) => Command,
        ("core", None, "fsmonitor") | ("pager", None, _) => FlagOrCommand,
        ("core", None, "hookspath") | ("init", None, "templatedir") => Programs,
        ("core", None, "worktree") => Place,
        ("sequence", None, "editor") | ("diff", None, "external") => Command,
        ("diff", Some(_), "command" | "textconv") => Command,
        ("difftool" | "mergetool", Some(_), "cmd" | "path") => Command,
        ("merge", Some(_), "driver") => Command,
        ("filter", Some(_), "clean" | "smudge" | "process") => Command,
        ("gpg", _, "program") | ("gpg", Some("ssh"), "defaultkeycommand") => Command,
        ("credential", _, "helper") => Command,
        ("sendemail", _, "sendmailcmd" | "smtpserver" | "tocmd" | "cccmd" | "headercmd") => Command,
        ("web" | "help", None, "browser") | ("browser", Some(_), "cmd" | "path") => Command,
        ("man", None, "viewer") | ("man", Some(_), "cmd" | "path") => Command,
        ("instaweb", None, "httpd" | "browser") | ("guitool", Some(_), "cmd") => Command,
        ("interactive", None, "difffilter") | ("tar", Some(_), "command") => Command,
        ("remote", Some(_), "uploadpack" | "receivepack" | "vcs") => Command,
        ("uploadpack", None, "packobjectshook") => Command,
        ("submodule", Some(_), "update") => BangCommand,
        ("protocol", None | Some("ext"), "allow") => Programs,
        ("include", None, "path") | ("includeif", Some(_), "path") => Include,
        ("trace2", None, "normaltarget" | "perftarget" | "eventtarget") => Output,
        ("rebase", None, "updaterefs") => UpdatesRefs,
        _ => Plain,
    }
}

/// Is `value` of a `FlagOrCommand` or `Programs` setting one that runs nothing?
pub(super) fn runs_nothing(kind: Setting, value: &str) -> bool {
    let v = value.trim().to_ascii_lowercase();
    match kind {
        Setting::FlagOrCommand => matches!(
            v.as_str(),
            "" | "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0"
        ),
        Setting::Programs => matches!(v.as_str(), "" | "/dev/null" | "never"),
        _ => false,
    }
}

/// Variables, set anywhere in a command that runs git, that make git read configuration (or
/// programs) the guard does not see: another home, another global or system file, settings
/// given by number, another folder of git's own programs or of templates.
pub(super) fn picks_git_config(name: &str) -> bool {
    matches!(
        name,
        "HOME"
            | "XDG_CONFIG_HOME"
            | "GIT_CONFIG"
            | "GIT_CONFIG_GLOBAL"
            | "GIT_CONFIG_SYSTEM"
            | "GIT_CONFIG_COUNT"
            | "GIT_CONFIG_PARAMETERS"
            | "GIT_EXEC_PATH"
            | "GIT_TEMPLATE_DIR"
    ) || name.starts_with("GIT_CONFIG_KEY_")
        || name.starts_with("GIT_CONFIG_VALUE_")
}

/// Variables whose value is a command git (or the pager it starts) runs.
pub(super) fn names_a_command(name: &str) -> bool {
    matches!(
        name,
        "GIT_PAGER"
            | "PAGER"
            | "GIT_EDITOR"
            | "GIT_SEQUENCE_EDITOR"
            | "EDITOR"
            | "VISUAL"
            | "GIT_EXTERNAL_DIFF"
            | "GIT_SSH"
            | "GIT_SSH_COMMAND"
            | "GIT_ASKPASS"
            | "SSH_ASKPASS"
            | "GIT_PROXY_COMMAND"
            | "LESSOPEN"
            | "LESSCLOSE"
    )
}

/// What a verb's own options make git run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum VerbRuns {
    /// Shell text (`grep -O<pager>`, `difftool -x <cmd>`, `fetch --upload-pack=<cmd>`); `None`
    /// when only the shell knows it.
    Text(Option<String>),
    /// A folder of templates, whose hooks run later (`init --template=<dir>`).
    Programs(String),
    /// A setting for the repository it makes (`clone -c key=value`).
    Setting(Option<String>),
}

/// The options of `verb` that take a command, a template folder or a setting, with their values.
pub(super) fn verb_runs(verb: &str, args: &[Arg]) -> Vec<VerbRuns> {
    // Options whose value is shell text, per verb (both spellings where git has two).
    let text_options: &[&str] = match verb {
        "difftool" => &["-x", "--extcmd"],
        "fetch" | "pull" | "ls-remote" => &["--upload-pack"],
        "clone" => &["-u", "--upload-pack"],
        "push" | "send-pack" => &["--receive-pack", "--exec"],
        "archive" => &["--exec"],
        "send-email" => &[
            "--smtp-server",
            "--sendmail-cmd",
            "--to-cmd",
            "--cc-cmd",
            "--header-cmd",
        ],
        "instaweb" => &["-d", "--httpd", "-b", "--browser"],
        "daemon" => &["--access-hook"],
        "filter-branch" => &[
            "--env-filter",
            "--tree-filter",
            "--index-filter",
            "--parent-filter",
            "--msg-filter",
            "--commit-filter",
            "--tag-name-filter",
        ],
        _ => &[],
    };
    let template: &[&str] = match verb {
        "init" | "clone" => &["--template"],
        _ => &[],
    };
    let setting: &[&str] = match verb {
        "clone" => &["-c", "--config"],
        _ => &[],
    };
    let mut out = Vec::new();
    if verb == "grep" {
        out.extend(grep_pager(args).1.into_iter().map(VerbRuns::Text));
    }
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let Some(t) = a.text.as_deref() else { continue };
        if t == "--" || !t.starts_with('-') {
            continue;
        }
        let (opt, glued) = if t.starts_with("--") {
            split_option(t)
        } else {
            // `-x<cmd>`: a short option with its value glued on.
            let cut = t.char_indices().nth(2).map_or(t.len(), |(at, _)| at);
            (&t[..cut], Some(&t[cut..]).filter(|g| !g.is_empty()))
        };
        let wanted = |list: &[&str]| list.contains(&opt);
        if !(wanted(text_options) || wanted(template) || wanted(setting)) {
            continue;
        }
        let value = match glued {
            Some(g) => Some(g.to_string()),
            None => {
                i += 1;
                args.get(i - 1).and_then(|a| a.text.clone())
            }
        };
        out.push(if wanted(text_options) {
            VerbRuns::Text(value)
        } else if wanted(template) {
            match value {
                Some(v) if runs_nothing(Setting::Programs, &v) => continue,
                Some(v) => VerbRuns::Programs(v),
                None => VerbRuns::Programs(format!("{opt} {}", a.raw())),
            }
        } else {
            VerbRuns::Setting(value)
        });
    }
    out
}

/// `git grep -O[<pager>]` / `--open-files-in-pager[=<pager>]`, in a bundle of short options
/// too (`-nOvim`): whether it opens a pager at all, and the text of each pager it names (`None`
/// when only the shell knows the word). With no pager named git runs its configured one.
pub(super) fn grep_pager(args: &[Arg]) -> (bool, Vec<Option<String>>) {
    // Short options of `git grep` that take the rest of the word, or the next word.
    const TAKES: &[char] = &['e', 'f', 'A', 'B', 'C', 'm'];
    let (mut opens, mut named) = (false, Vec::new());
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let Some(t) = a.text.as_deref() else {
            if a.raw().starts_with("-O") || a.raw().starts_with("--open-files-in-pager") {
                opens = true;
                named.push(None);
            }
            continue;
        };
        if t == "--" {
            break;
        }
        if let Some(rest) = t.strip_prefix("--open-files-in-pager") {
            opens = true;
            if let Some(pager) = rest.strip_prefix('=') {
                named.push(Some(pager.to_string()));
            }
            continue;
        }
        if t.starts_with("--") || !t.starts_with('-') {
            continue;
        }
        for (at, c) in t.char_indices().skip(1) {
            if c == 'O' {
                opens = true;
                let pager = &t[at + 1..];
                if !pager.is_empty() {
                    named.push(Some(pager.to_string()));
                }
                break;
            }
            if TAKES.contains(&c) {
                if at + 1 == t.len() {
                    i += 1; // its value is the next word
                }
                break;
            }
        }
    }
    (opens, named)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{LINKED, PRIMARY, blocked, cmd};

    /// Each from the linked worktree, and from the primary after `cd` into the worktree.
    fn judged(command: &str) -> [(String, bool); 2] {
        let from_primary = format!("cd {LINKED} && {command}");
        [
            (command.to_string(), blocked(&cmd(command, LINKED))),
            (from_primary.clone(), blocked(&cmd(&from_primary, PRIMARY))),
        ]
    }

    #[test]
    fn git_options_and_variables_that_run_programs_or_pick_configuration_block() {
        for c in [
            // grep's pager, in every spelling
            "git grep -Otouch\\ ../primary/x foo",
            "git grep -O'touch ../primary/x' foo",
            "git grep -nO'touch ../primary/x' foo",
            "git -C . grep -O'sh -c \"touch ../primary/x\"' foo",
            "git grep -P --open-files-in-pager='touch ../primary/x' foo",
            "git grep --no-index -O\"$X\" foo",
            // git's own programs and templates
            "git --exec-path=/tmp/evil status",
            "GIT_EXEC_PATH=/tmp/evil git status",
            "git init --template=/tmp/t x",
            "git init --template /tmp/t",
            "git clone --template=/tmp/t . x",
            "GIT_TEMPLATE_DIR=/tmp/t git init x",
            // configuration from files the guard does not read
            "HOME=/tmp/evil git status",
            "XDG_CONFIG_HOME=/tmp/e git log",
            "GIT_CONFIG_GLOBAL=/tmp/e git log",
            "GIT_CONFIG_SYSTEM=/tmp/e git log",
            "export GIT_CONFIG_GLOBAL=/tmp/e; git log",
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=less git log",
            "git -c include.path=/tmp/x status",
            "git -c includeIf.onbranch:x.path=/tmp/x status",
            // settings that name programs, on readers and on writers
            "git -c core.hooksPath=/tmp/h commit -m x",
            "git -c core.fsmonitor='touch ../primary/x' status",
            "git -c core.sshCommand='touch ../primary/x' fetch",
            "git -c diff.md.textconv='touch ../primary/x' log -p",
            "git -c diff.external='touch ../primary/x' diff",
            "git -c alias.st='!touch ../primary/x' st",
            "git -c core.pager='touch ../primary/x' log",
            "git -c sequence.editor='touch ../primary/x' rebase -i HEAD~2",
            "git -c core.editor='touch ../primary/x' commit",
            "git -c filter.x.smudge='touch ../primary/x' checkout .",
            "git -c credential.helper='!touch ../primary/x' fetch",
            "git -c protocol.ext.allow=always fetch 'ext::sh -c x'",
            "git --config-env=core.pager=EVIL log",
            "git clone -c core.hooksPath=/tmp/h . x",
            "GIT_PAGER='touch ../primary/x' git log",
            "GIT_SSH_COMMAND='touch ../primary/x' git fetch",
            "GIT_EXTERNAL_DIFF='touch ../primary/x' git diff",
            // verbs' own options that take a command
            "git difftool -x 'touch ../primary/x' HEAD",
            "git fetch --upload-pack='touch ../primary/x' origin",
            "git push --receive-pack='touch ../primary/x' origin",
            "git archive --remote=o --exec='touch ../primary/x' HEAD",
        ] {
            for (c, b) in judged(c) {
                assert!(b, "allowed: {c}");
            }
        }
    }

    #[test]
    fn git_settings_that_run_nothing_or_harmless_programs_stay_allowed() {
        for c in [
            "git -c core.pager=cat log",
            "git -c color.ui=never status",
            "git -c core.quotepath=off status",
            "git -c core.hooksPath=/dev/null commit -m x",
            "git -c core.fsmonitor=false status",
            "git -c user.name=x commit -m y",
            "GIT_PAGER=cat git log",
            "git --no-pager log",
            "git --exec-path",
            "git grep -n foo",
            "git grep -e -O foo",
            "git init --template= x",
        ] {
            assert!(!blocked(&cmd(c, LINKED)), "blocked: {c}");
        }
    }

    #[test]
    fn settings_that_name_commands_are_told_from_data() {
        for key in [
            "core.pager",
            "core.editor",
            "sequence.editor",
            "core.sshCommand",
            "core.askPass",
            "diff.external",
            "diff.md.textconv",
            "diff.md.command",
            "difftool.x.cmd",
            "mergetool.my.tool.path",
            "merge.ours.driver",
            "filter.lfs.smudge",
            "filter.lfs.process",
            "gpg.program",
            "gpg.x509.program",
            "gpg.ssh.defaultKeyCommand",
            "credential.helper",
            "credential.https://h.example.helper",
            "sendemail.smtpServer",
            "browser.ff.cmd",
            "man.viewer",
            "interactive.diffFilter",
            "tar.tgz.command",
            "remote.origin.uploadpack",
            "remote.origin.vcs",
            "uploadpack.packObjectsHook",
            "core.gitProxy",
        ] {
            assert_eq!(setting(key), Setting::Command, "{key}");
        }
        assert_eq!(setting("alias.st"), Setting::Alias);
        assert_eq!(setting("core.fsmonitor"), Setting::FlagOrCommand);
        assert_eq!(setting("pager.log"), Setting::FlagOrCommand);
        assert_eq!(setting("core.hooksPath"), Setting::Programs);
        assert_eq!(setting("init.templateDir"), Setting::Programs);
        assert_eq!(setting("protocol.ext.allow"), Setting::Programs);
        assert_eq!(setting("include.path"), Setting::Include);
        assert_eq!(setting("includeIf.gitdir:/x/.path"), Setting::Include);
        assert_eq!(setting("core.worktree"), Setting::Place);
        assert_eq!(setting("trace2.eventTarget"), Setting::Output);
        assert_eq!(setting("rebase.updateRefs"), Setting::UpdatesRefs);
        assert_eq!(setting("submodule.lib.update"), Setting::BangCommand);
        for key in [
            "color.ui",
            "core.quotepath",
            "user.name",
            "protocol.https.allow",
        ] {
            assert_eq!(setting(key), Setting::Plain, "{key}");
        }
    }

    #[test]
    fn flags_and_empty_folders_run_nothing() {
        assert!(runs_nothing(Setting::FlagOrCommand, "false"));
        assert!(!runs_nothing(Setting::FlagOrCommand, "sh x"));
        assert!(runs_nothing(Setting::Programs, "/dev/null"));
        assert!(!runs_nothing(Setting::Programs, "/tmp/hooks"));
    }
}
