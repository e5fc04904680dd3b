//! The program tables: which programs only read, which wrap another command, which are shells
//! or interpreters, which copy, and which variables configure git or name its editor. Plain
//! data and pure lookups over a command's words: nothing here walks, resolves or emits.

use super::words::Arg;

/// Programs that only read the paths they are given (with the flags in `writes_with` they
/// write, and then count as writers).
const READERS: &[&str] = &[
    "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag", "diff", "cmp",
    "ls", "tree", "wc", "stat", "du", "find", "fd", "realpath", "readlink", "basename", "dirname",
    "echo", "printf", "pwd", "test", "[", "[[", "true", "false", "which", "type", "jq", "file",
];

/// Flags that make a reader write or run something.
fn reader_writes(program: &str, arg: &str) -> bool {
    match program {
        "find" => matches!(
            arg,
            "-delete"
                | "-exec"
                | "-execdir"
                | "-ok"
                | "-okdir"
                | "-fprint"
                | "-fprint0"
                | "-fprintf"
                | "-fls"
        ),
        "fd" => matches!(arg, "-x" | "--exec" | "-X" | "--exec-batch"),
        "rg" => arg == "--pre" || arg.starts_with("--pre="),
        "tree" => arg == "-o" || arg.starts_with("-o"),
        "printf" => arg == "-v",
        "file" => arg == "-C",
        _ => false,
    }
}

/// Shells whose `-c <text>` (or standard input) is a script we can read.
pub(super) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox", "fish",
];

/// Interpreters that run a script given inline (`-c`, `-e`) or on standard input.
pub(super) const INTERPRETERS: &[&str] = &[
    "python",
    "python3",
    "python2",
    "node",
    "nodejs",
    "perl",
    "ruby",
    "php",
    "lua",
    "deno",
    "bun",
    "Rscript",
    "osascript",
    "tclsh",
    "awk",
    "gawk",
    "mawk",
    "nawk",
];

/// Words that wrap a command and run it (after their own options).
pub(super) const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "env",
    "nice",
    "nohup",
    "timeout",
    "stdbuf",
    "setsid",
    "ionice",
    "chrt",
    "taskset",
    "xargs",
    "parallel",
    "exec",
    "command",
    "builtin",
    "time",
    "unbuffer",
    "chronic",
    "caffeinate",
    "flock",
    "strace",
    "ltrace",
    "watch",
    "script",
    "su",
    "runuser",
    "sg",
];

/// Wrapper options that take the next word as their value.
pub(super) fn wrapper_takes_value(wrapper: &str, opt: &str) -> bool {
    match wrapper {
        "sudo" => matches!(
            opt,
            "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-r" | "-t" | "-U" | "-T" | "-R"
        ),
        "env" => matches!(
            opt,
            "-u" | "-C" | "-S" | "--unset" | "--chdir" | "--split-string"
        ),
        "nice" => matches!(opt, "-n" | "--adjustment"),
        "timeout" => matches!(opt, "-s" | "-k" | "--signal" | "--kill-after"),
        "stdbuf" => matches!(opt, "-i" | "-o" | "-e"),
        "ionice" => matches!(opt, "-c" | "-n" | "-p" | "-P" | "-u"),
        "taskset" | "chrt" => false,
        "xargs" => matches!(
            opt,
            "-I" | "-n"
                | "-P"
                | "-d"
                | "-E"
                | "-L"
                | "-s"
                | "-a"
                | "--arg-file"
                | "--delimiter"
                | "--max-args"
                | "--max-procs"
                | "--max-lines"
                | "--max-chars"
        ),
        "parallel" => matches!(opt, "-j" | "-S" | "--jobs" | "-a" | "--arg-file"),
        "exec" => matches!(opt, "-a"),
        "flock" => matches!(opt, "-w" | "--timeout" | "-E" | "--conflict-exit-code"),
        "strace" | "ltrace" => matches!(opt, "-o" | "-e" | "-p" | "-s" | "-u" | "-E"),
        "watch" => matches!(opt, "-n" | "--interval" | "-d"),
        "su" | "runuser" => matches!(opt, "-s" | "--shell" | "-g" | "-G" | "-u"),
        _ => false,
    }
}

/// Options of a wrapper whose value is shell text run as a command.
pub(super) fn wrapper_text_option(wrapper: &str, opt: &str) -> bool {
    match wrapper {
        "env" => matches!(opt, "-S" | "--split-string"),
        "script" | "su" | "runuser" | "flock" | "sg" => matches!(opt, "-c" | "--command"),
        _ => false,
    }
}

/// Variables that make git (or the pager and editor it starts) run a program or read other
/// configuration: with one set in the command, no git command only reads.
pub(super) fn configures_git(name: &str) -> bool {
    (name.starts_with("GIT_") && !GIT_PLACE_VARIABLES.contains(&name))
        || matches!(
            name,
            "PAGER" | "EDITOR" | "VISUAL" | "LESSOPEN" | "LESSCLOSE"
        )
}

/// Git's variables that point it at another repository or work tree.
pub(super) const GIT_PLACE_VARIABLES: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
];

/// Variables the shell itself gives values while it runs: the last word of the command before
/// (`$_`), what `read`, `mapfile`, `getopts` and `[[ =~ ]]` found, the folder `cd` left.
pub(super) const SET_BY_THE_SHELL: &[&str] = &[
    "_",
    "REPLY",
    "MAPFILE",
    "OPTARG",
    "BASH_REMATCH",
    "OLDPWD",
    "DIRSTACK",
];

/// Variables that name the program git runs to edit text (a rebase's todo list among it).
pub(super) const EDITOR_VARIABLES: &[&str] =
    &["GIT_SEQUENCE_EDITOR", "GIT_EDITOR", "VISUAL", "EDITOR"];

/// An editor that leaves the text as git wrote it.
pub(super) fn is_no_op_editor(program: &str) -> bool {
    matches!(
        program.trim(),
        "true" | ":" | "cat" | "/bin/true" | "/usr/bin/true"
    )
}

/// A program known to only read what it is given, used without a flag that writes. Where a
/// flag could make it write, an argument only the shell knows might be that flag.
pub(super) fn is_reader(program: &str, rest: &[Arg]) -> bool {
    READERS.contains(&program)
        && !rest.iter().any(|a| match a.text.as_deref() {
            Some(t) => reader_writes(program, t),
            None => has_writing_flags(program),
        })
}

/// A reader some flag makes write (`find -delete`, `rg --pre`): handed words it cannot see, it
/// may write.
pub(super) fn has_writing_flags(program: &str) -> bool {
    matches!(program, "find" | "fd" | "rg" | "tree" | "printf" | "file")
}

/// For programs that copy (and leave their sources alone): `Some(destination)`, or
/// `Some(None)` when the destination only the shell knows. `None` for any other program.
pub(super) fn copy_destination(program: &str, rest: &[Arg]) -> Option<Option<String>> {
    if !matches!(program, "cp" | "install" | "rsync" | "scp") {
        return None;
    }
    let texts: Vec<Option<&str>> = rest.iter().map(|a| a.text.as_deref()).collect();
    if texts
        .iter()
        .any(|t| t.is_some_and(|t| t.starts_with("--remove-source") || t == "-l" || t == "--link"))
    {
        // Moving or hard-linking: the sources are touched too.
        return None;
    }
    let mut i = 0;
    let mut last = None;
    let mut operands = 0;
    while i < texts.len() {
        match texts[i] {
            Some("-t") | Some("--target-directory") => {
                return Some(texts.get(i + 1).copied().flatten().map(str::to_string));
            }
            Some(t) if t.starts_with("--target-directory=") => {
                return Some(Some(t["--target-directory=".len()..].to_string()));
            }
            Some(t) if t.starts_with("-t") && t.len() > 2 => {
                return Some(Some(t[2..].to_string()));
            }
            Some(t) if t.starts_with('-') && t.len() > 1 => {
                // install's `-m 644`, `-o u`, `-g g` and rsync's `-e ssh` take a value.
                if matches!(
                    (program, t),
                    ("install", "-m" | "-o" | "-g") | ("rsync", "-e")
                ) {
                    i += 1;
                }
            }
            t => {
                last = Some(t);
                operands += 1;
            }
        }
        i += 1;
    }
    if operands < 2 {
        return Some(last.flatten().map(str::to_string).filter(|_| operands == 1));
    }
    Some(last.flatten().map(str::to_string))
}

/// Where `find`'s (or `fd`'s) `-exec` starts among its arguments.
pub(super) fn exec_at(program: &str, rest: &[Arg]) -> Option<usize> {
    let flags: &[&str] = match program {
        "find" => &["-exec", "-execdir", "-ok", "-okdir"],
        "fd" | "fdfind" => &["-x", "--exec", "-X", "--exec-batch"],
        _ => return None,
    };
    rest.iter()
        .position(|a| a.text.as_deref().is_some_and(|t| flags.contains(&t)))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{fx, runs, writes};

    #[test]
    fn readers_name_paths_freely_and_writers_name_them_as_writes() {
        assert_eq!(fx("cat ../p/x"), vec![runs("/w", "cat", true)]);
        assert_eq!(
            fx("touch ../p/x"),
            vec![runs("/w", "touch", false), writes("/p/x", "`touch`")]
        );
        assert_eq!(
            fx("cp ../p/.env .env"),
            vec![runs("/w", "cp", false), writes("/w/.env", "`cp`")]
        );
    }
}
