//! The bootstrap whitelist: the few read-only verbs that let an agent stranded in the primary
//! checkout leave it. Matching is anchored and exact over the raw command text; it must never
//! tokenize or unquote, so no shell metacharacter can ride along with an allowed verb.

/// The seed's worktrunk verbs; `merge` and `remove` are left out on purpose.
const WT_VERBS: &[&str] = &[
    "switch", "list", "path", "which", "config", "diff", "log", "step",
];

/// berth's own way out: make, find or take a worktree, or look at them.
const BERTH_VERBS: &[&str] = &["add", "list", "ls", "path", "collect", "claim"];

/// The seed allows at most this many arguments after the verb.
const MAX_ARGS: usize = 16;

/// True when `command` is exactly a whitelisted verb followed by up to 16 arguments, each
/// separated by one space and drawn from the seed's alphabet `[a-zA-Z0-9._=/@:+-]`.
pub fn is_whitelisted(command: &str) -> bool {
    if let Some(rest) = command.strip_prefix("wt ") {
        return verb_and_args(rest.split(' '), WT_VERBS);
    }
    // `git berth` is two words in the command, so it costs no argument slot.
    match command
        .strip_prefix(crate::names::TOOL)
        .and_then(|r| r.strip_prefix(' '))
    {
        Some(rest) => verb_and_args(rest.split(' '), BERTH_VERBS),
        None => false,
    }
}

fn verb_and_args<'a>(mut words: impl Iterator<Item = &'a str>, verbs: &[&str]) -> bool {
    let Some(verb) = words.next() else {
        return false;
    };
    if !verbs.contains(&verb) {
        return false;
    }
    let mut count = 0;
    for arg in words {
        // An empty piece means two spaces in a row or a trailing space: the seed's regex
        // refuses both.
        if arg.is_empty() || !arg.bytes().all(is_arg_byte) {
            return false;
        }
        count += 1;
        if count > MAX_ARGS {
            return false;
        }
    }
    true
}

fn is_arg_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'=' | b'/' | b'@' | b':' | b'+' | b'-')
}

#[cfg(test)]
mod tests {
    use super::is_whitelisted;

    #[test]
    fn the_seeds_wt_verbs_pass_with_plain_arguments() {
        for cmd in [
            "wt switch -c feat/x",
            "wt list",
            "wt path",
            "wt which foo",
            "wt config show",
            "wt diff main",
            "wt log --oneline",
            "wt step commit",
            "wt switch --create=feat/x@v1:base+1",
        ] {
            assert!(is_whitelisted(cmd), "{cmd}");
        }
    }

    #[test]
    fn berths_way_out_passes_with_plain_arguments() {
        for cmd in [
            "git berth add auth",
            "git berth add auth --base main",
            "git berth list",
            "git berth ls --json",
            "git berth path auth",
            "git berth collect",
            "git berth claim auth",
        ] {
            assert!(is_whitelisted(cmd), "{cmd}");
        }
    }

    #[test]
    fn excluded_verbs_do_not_pass() {
        for cmd in [
            "wt merge main",
            "wt remove x",
            "git berth remove auth",
            "git berth rm auth",
            "git berth clean",
            "git berth release auth",
            "git berth init",
            "git berth guard",
            "git berth",
            "wt",
            "git status",
            "git-berth add x",
        ] {
            assert!(!is_whitelisted(cmd), "{cmd}");
        }
    }

    #[test]
    fn sixteen_arguments_pass_and_seventeen_do_not() {
        let sixteen = format!("wt switch{}", " a".repeat(16));
        let seventeen = format!("wt switch{}", " a".repeat(17));
        assert!(is_whitelisted(&sixteen));
        assert!(!is_whitelisted(&seventeen));
    }

    #[test]
    fn spacing_other_than_single_spaces_never_matches() {
        for cmd in [
            "",
            " wt list",
            "wt list ",
            "wt  list",
            "wt\tlist",
            "wt list\n",
            "wt switch a  b",
            "git  berth add x",
        ] {
            assert!(!is_whitelisted(cmd), "{cmd:?}");
        }
    }

    #[test]
    fn metacharacters_quotes_and_non_ascii_never_match() {
        for cmd in [
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
        ] {
            assert!(!is_whitelisted(cmd), "{cmd:?}");
        }
    }
}
