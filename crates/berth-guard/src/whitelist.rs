//! The bootstrap whitelist: the few verbs that let an agent stranded in the primary checkout
//! leave it or look around. Matching is anchored and exact over the raw command text; it must
//! never tokenize or unquote, so no shell metacharacter can ride along with an allowed verb, and
//! no allowed verb may run a program of the agent's choosing.

/// berth's own way out: make, find or take a worktree, or look at them.
const BERTH_VERBS: &[&str] = &["add", "list", "ls", "path", "collect", "claim"];

/// The seed allows at most this many arguments after the verb.
const MAX_ARGS: usize = 16;

/// True when `command` is exactly a whitelisted verb followed by up to 16 arguments, each
/// separated by one space and drawn from the seed's alphabet `[a-zA-Z0-9._=/@:+-]`, and for
/// worktrunk's `wt`, only arguments that move the agent out or look (see [`wt_args_allowed`]).
pub fn is_whitelisted(command: &str) -> bool {
    if let Some(rest) = command.strip_prefix("wt ") {
        return match plain_words(rest) {
            Some(words) => wt_args_allowed(&words),
            None => false,
        };
    }
    // `git berth` is two words in the command, so it costs no argument slot.
    match command
        .strip_prefix(crate::names::TOOL)
        .and_then(|r| r.strip_prefix(' '))
        .and_then(plain_words)
    {
        Some(words) => BERTH_VERBS.contains(&words[0]),
        None => false,
    }
}

/// The verb and its arguments, when they are one space apart, at most 16 arguments, and each
/// drawn from the seed's alphabet; `None` otherwise.
fn plain_words(rest: &str) -> Option<Vec<&str>> {
    let words: Vec<&str> = rest.split(' ').collect();
    // An empty piece means two spaces in a row or a trailing space: the seed's regex refuses
    // both.
    let plain = words
        .iter()
        .all(|w| !w.is_empty() && w.bytes().all(is_arg_byte));
    (plain && words.len() <= MAX_ARGS + 1).then_some(words)
}

/// worktrunk's verbs, each with the only arguments it may take. The seed also let through
/// `config`, `diff`, `log` and `step`, but `wt step for-each -- <cmd>` runs a program and
/// `wt step commit|squash|rebase|push` rewrite the checkout, `wt config` changes what later
/// verbs run, and none of them gets an agent out; `merge` and `remove` were never in.
///
/// `wt switch` runs a program with `-x <program>` or `--execute[=]<program>` (also clustered,
/// `-cx <program>`), passes on whatever follows `--` to it, approves the project's hooks with
/// `-y`/`--yes`, and reads other config with `--config <path>`, `--config-set <toml>` or `-C
/// <dir>`; `--clobber` deletes a folder. So only what creates or names the worktree passes:
/// `-c`/`--create`, `-b`/`--base <base>`, `--base=<base>`, `--no-hooks`, and one branch. `wt
/// list` passes with `--branches`, `--remotes` and `--format <f>`, never `--full` (it runs the
/// configured LLM command); `wt path` and `wt which` with one plain name at most.
fn wt_args_allowed(words: &[&str]) -> bool {
    let (verb, args) = (words[0], &words[1..]);
    match verb {
        "switch" => switch_args_allowed(args),
        "list" => list_args_allowed(args),
        "path" | "which" => args.len() <= 1 && args.iter().all(|a| !a.starts_with('-')),
        _ => false,
    }
}

fn switch_args_allowed(args: &[&str]) -> bool {
    let mut branch = false;
    // worktrunk requires a branch with `--create` and `--base`; without one it opens its picker.
    let mut needs_branch = false;
    let mut rest = args.iter();
    while let Some(&arg) = rest.next() {
        match arg {
            "--no-hooks" => {}
            "-c" | "--create" => needs_branch = true,
            "-b" | "--base" => {
                needs_branch = true;
                if !rest.next().is_some_and(|v| is_value(v)) {
                    return false;
                }
            }
            // `-` alone is worktrunk's "previous worktree", a place to go like any branch.
            _ if !arg.starts_with('-') || arg == "-" => {
                if branch {
                    return false;
                }
                branch = true;
            }
            _ => match arg.strip_prefix("--base=") {
                Some(v) if !v.is_empty() => needs_branch = true,
                _ => return false,
            },
        }
    }
    branch || !needs_branch
}

fn list_args_allowed(args: &[&str]) -> bool {
    let mut rest = args.iter();
    while let Some(&arg) = rest.next() {
        match arg {
            "--branches" | "--remotes" => {}
            "--format" => {
                if !rest.next().is_some_and(|v| is_value(v)) {
                    return false;
                }
            }
            _ => match arg.strip_prefix("--format=") {
                Some(v) if is_value(v) => {}
                _ => return false,
            },
        }
    }
    true
}

/// An option's value that the option parser cannot take for another option.
fn is_value(v: &str) -> bool {
    !v.is_empty() && !v.starts_with('-')
}

fn is_arg_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'=' | b'/' | b'@' | b':' | b'+' | b'-')
}

#[cfg(test)]
mod tests {
    use super::is_whitelisted;

    fn all_pass(cmds: &[&str]) {
        for cmd in cmds {
            assert!(is_whitelisted(cmd), "{cmd:?}");
        }
    }

    fn none_pass(cmds: &[&str]) {
        for cmd in cmds {
            assert!(!is_whitelisted(cmd), "{cmd:?}");
        }
    }

    #[test]
    fn the_wt_verbs_that_move_the_agent_out_or_look_pass_with_plain_arguments() {
        all_pass(&[
            "wt switch feat/x",
            "wt switch -c feat/x",
            "wt switch --create feat/x --base main",
            "wt switch -c feat/x -b main",
            "wt switch --base=feat/x@v1:base+1 -c fix",
            "wt switch -c temp --no-hooks",
            "wt switch pr:123",
            "wt switch -",
            "wt switch",
            "wt list",
            "wt list --branches --remotes",
            "wt list --format=json",
            "wt list --format json",
            "wt path",
            "wt path feat/x",
            "wt which",
            "wt which foo",
        ]);
    }

    #[test]
    fn berths_way_out_passes_with_plain_arguments() {
        all_pass(&[
            "git berth add auth",
            "git berth add auth --base main",
            "git berth list",
            "git berth ls --json",
            "git berth path auth",
            "git berth collect",
            "git berth claim auth",
        ]);
    }

    #[test]
    fn excluded_verbs_do_not_pass() {
        none_pass(&[
            "wt merge main",
            "wt remove x",
            "wt step commit",
            "wt step squash",
            "wt step rebase",
            "wt step push",
            "wt step for-each -- make",
            "wt config show",
            "wt config create",
            "wt diff main",
            "wt log --oneline",
            "wt hook pre-merge",
            "git berth remove auth",
            "git berth rm auth",
            "git berth clean",
            "git berth release auth",
            "git berth init",
            "git berth guard",
            "git berth ship",
            "git berth ship auth",
            "git berth ship --all-approved",
            "git berth review approve auth",
            "git berth review status",
            "git berth",
            "wt",
            "git status",
            "git-berth add x",
        ]);
    }

    #[test]
    fn wt_switch_options_that_run_a_program_never_pass() {
        none_pass(&[
            "wt switch x -x claude",
            "wt switch -x claude x",
            "wt switch -xclaude x",
            "wt switch -cx claude x",
            "wt switch -cxclaude x",
            "wt switch --execute claude x",
            "wt switch --execute=claude x",
            "wt switch -c x --execute=sh",
            "wt switch x -- a",
            "wt switch x --",
            "wt switch -- x",
        ]);
    }

    #[test]
    fn wt_options_that_approve_hooks_read_other_config_or_delete_never_pass() {
        none_pass(&[
            "wt switch -c x -y",
            "wt switch -c x --yes",
            "wt switch -yc x",
            "wt switch x --config /tmp/c.toml",
            "wt switch x --config=/tmp/c.toml",
            "wt switch x --config-set post-start.x=true",
            "wt switch x -C /tmp",
            "wt switch x -C/tmp",
            "wt -C /tmp switch x",
            "wt switch x --clobber",
            "wt switch x --no-cd",
            "wt switch --prs",
            "wt list --full",
            "wt list --config /tmp/c.toml",
            "wt list --config-set list.full=true",
            "wt list -y",
            "wt which --config /tmp/c.toml",
            "wt path -C /tmp",
        ]);
    }

    #[test]
    fn wt_arguments_must_have_the_shape_each_verb_expects() {
        none_pass(&[
            "wt switch a b",
            "wt switch -c",
            "wt switch -b",
            "wt switch x --base",
            "wt switch x --base -x",
            "wt switch x -b --execute=sh",
            "wt switch x --base=",
            "wt switch --create=feat/x",
            "wt list statusline",
            "wt list --format",
            "wt list --format -x",
            "wt list --format=",
            "wt path a b",
            "wt path --x",
            "wt which a b",
        ]);
    }

    #[test]
    fn sixteen_arguments_pass_and_seventeen_do_not() {
        let sixteen = format!("git berth add{}", " a".repeat(16));
        let seventeen = format!("git berth add{}", " a".repeat(17));
        assert!(is_whitelisted(&sixteen));
        assert!(!is_whitelisted(&seventeen));
        assert!(!is_whitelisted(&format!("wt switch{}", " a".repeat(17))));
        assert!(!is_whitelisted(&format!(
            "wt list{}",
            " --branches".repeat(17)
        )));
    }

    #[test]
    fn spacing_other_than_single_spaces_never_matches() {
        none_pass(&[
            "",
            " wt list",
            "wt list ",
            "wt  list",
            "wt\tlist",
            "wt list\n",
            "wt switch a  b",
            "git  berth add x",
            "git berth add x ",
            "git berth  add x",
        ]);
    }

    #[test]
    fn metacharacters_quotes_and_non_ascii_never_match() {
        none_pass(&[
            "wt switch foo; rm -rf /",
            "wt switch foo && rm -rf /",
            "wt switch foo | sh",
            "wt switch foo > x",
            "wt switch $(rm -rf /)",
            "wt switch `rm -rf /`",
            "wt switch 'foo'",
            "wt switch \"foo\"",
            "wt switch fo\\o",
            "wt switch f*",
            "wt switch ~/x",
            "wt switch fö",
            "git berth add x;rm",
            "git berth add x#",
            "git berth add x,y",
        ]);
    }
}
