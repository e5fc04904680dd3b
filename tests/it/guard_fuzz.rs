//! The guard's pure core under properties: the scanner, the effects it derives and `decide` with
//! an injected probe, fed generated shell-like text. Whatever the text, nothing panics and an
//! answer comes within the bound; a blocked command stays blocked however harmlessly it is
//! wrapped; reading in a linked worktree passes and writing the primary from one does not; the
//! same input always gets the same answer. Pathological inputs and the real binary close it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use berth::guard::scan::{Tok, scan, value};
use berth::guard::{Action, Decision, Effect, Hatches, Place, decide, effects_of};
use proptest::prelude::*;
use proptest::sample::select;

const PRIMARY: &str = "/repo/primary";
const LINKED: &str = "/repo/linked";

/// Far above what any input here needs in a debug build; a quadratic path blows through it.
const BOUND: Duration = Duration::from_secs(3);

fn probe(path: &Path) -> std::io::Result<Place> {
    Ok(if path.starts_with(PRIMARY) {
        Place::Primary {
            root: PRIMARY.into(),
        }
    } else if path.starts_with(LINKED) {
        Place::Linked {
            root: LINKED.into(),
            primary: Some(PRIMARY.into()),
        }
    } else {
        Place::Outside
    })
}

fn decide_action(action: &Action) -> Decision {
    decide(
        &Hatches::default(),
        action,
        Some(Path::new("/repo")),
        &mut probe,
    )
}

fn judge(command: &str, cwd: &str) -> (Decision, Duration) {
    let t = Instant::now();
    let d = decide_action(&Action::command(command, cwd));
    (d, t.elapsed())
}

fn blocked(command: &str, cwd: &str) -> bool {
    matches!(judge(command, cwd).0, Decision::Block(_))
}

/// The pieces that trip scanners: quotes, substitutions, here-documents, `case`, nesting.
const PIECES: &[&str] = &[
    "$(",
    ")",
    "`",
    "'",
    "\"",
    "${",
    "}",
    "{",
    "(",
    " ",
    " ",
    " ",
    "\n",
    ";",
    "&&",
    "||",
    "|",
    "&",
    ">",
    ">>",
    "<",
    "2>&1",
    "<<EOF\n",
    "\nEOF\n",
    "<<'EOF'\n",
    "<<-X\n",
    "\tX\n",
    "<<<",
    "\\",
    "#",
    ">(",
    "<(",
    "case x in a)",
    ";;",
    "esac",
    "cd a",
    "cd ..",
    "cd ../primary",
    "touch x",
    "../primary/x",
    "/repo/primary",
    "sh -c ",
    "bash -s",
    "eval ",
    "xargs ",
    "git -C ../primary ",
    "git -c alias.x=",
    "env -C",
    "HOME=",
    "CDPATH=",
    "$x",
    "${x:-'}'}",
    "*",
    "~",
    "~+",
    "for i in 1 2; do ",
    "done",
    "f() { ",
    "if true; then ",
    "fi",
    "$'\\''",
    "python3 -c ",
    "awk '",
    "coproc ",
    "time -p ",
    "alias c=cd",
    "read GIT_DIR",
    "printf -v ",
    "é",
    "\0",
    "\r",
    "((",
    "))",
    "[[ ",
    " ]]",
    "=(",
    "@(",
    "!",
];

/// Text glued from `pieces` of [`PIECES`] and, now and then, any characters at all.
fn shell_text(pieces: std::ops::Range<usize>) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        8 => select(PIECES).prop_map(String::from),
        1 => "\\PC{1,4}",
    ];
    proptest::collection::vec(piece, pieces).prop_map(|v| v.concat())
}

/// Nobody knows the real bound of the guard on a slow machine; it only has to be far from
/// quadratic. The inputs here are small enough that the bound is a generous ceiling.
fn decided_in_time(text: &str) -> Result<(), TestCaseError> {
    for cwd in [PRIMARY, LINKED] {
        let (_, took) = judge(text, cwd);
        prop_assert!(took < BOUND, "{took:?} from {cwd} on {text:?}");
    }
    Ok(())
}

/// A name a person would give a file or folder.
fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,6}(\\.[a-z]{1,3})?"
}

/// A relative path of one to three names.
fn rel_path() -> impl Strategy<Value = String> {
    proptest::collection::vec(name(), 1..4).prop_map(|v| v.join("/"))
}

/// `text` as the shell would be handed it: bare, in single quotes or in double quotes.
fn quoted(text: String) -> impl Strategy<Value = String> {
    let single = format!("'{}'", text.replace('\'', r"'\''"));
    let double = format!("\"{text}\"");
    select(vec![text, single, double])
}

/// A path in the primary checkout, spelled from the linked worktree beside it.
fn primary_path() -> impl Strategy<Value = String> {
    let spelling = select(vec![
        "../primary/",
        "/repo/primary/",
        "./../primary/",
        "../linked/../primary/",
        "/repo/linked/../primary/",
        "../primary/./",
    ]);
    (spelling, rel_path())
        .prop_map(|(s, p)| format!("{s}{p}"))
        .prop_flat_map(quoted)
}

/// A command that writes `path` (already quoted).
const WRITERS: &[&str] = &[
    "touch {}",
    "rm -f {}",
    "rm -rf {}",
    "echo x > {}",
    "echo x >> {}",
    "printf x > {}",
    ": > {}",
    "cp a {}",
    "cp -r src {}",
    "mv a {}",
    "sed -i s/a/b/ {}",
    "tee {} < a",
    "echo x | tee -a {}",
    "mkdir -p {}",
    "ln -s a {}",
    "truncate -s0 {}",
    "install -m 644 a {}",
    "chmod 600 {}",
    "echo x 2> {}",
    "cat a &> {}",
];

fn primary_write() -> impl Strategy<Value = String> {
    (select(WRITERS), primary_path()).prop_map(|(w, p)| w.replace("{}", &p))
}

/// The attack corpora's commands that the guard blocks from the linked worktree under this
/// file's probe (the trunk's attacks need real branches, which only the sandbox test has).
fn corpus_blocked() -> &'static [String] {
    static CORPUS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        let text = [
            include_str!("../fixtures/guard/attacks-from-linked.txt"),
            include_str!("../fixtures/guard/injection-from-linked.txt"),
        ]
        .concat();
        crate::guard_sandbox::fixture_lines(&text, PRIMARY, LINKED)
            .into_iter()
            .filter(|c| blocked(c, LINKED))
            .collect()
    })
}

fn blocked_command() -> impl Strategy<Value = String> {
    prop_oneof![primary_write(), select(corpus_blocked().to_vec())]
}

/// Ways to wrap a command that change nothing it does.
#[derive(Debug, Clone, Copy)]
enum Wrap {
    AfterTrue,
    Subshell,
    Group,
    ThenTrue,
    AfterCdDot,
    AfterCdDotSeq,
    IfTrue,
    OnceLoop,
}

impl Wrap {
    /// `x` wrapped; a command of several lines (a here-document's delimiter must stay alone on
    /// its line) is wrapped on lines of its own.
    fn around(self, x: &str) -> String {
        let lines = x.contains('\n');
        match self {
            Wrap::AfterTrue => format!("true && {x}"),
            Wrap::Subshell if lines => format!("(\n{x}\n)"),
            Wrap::Subshell => format!("( {x} )"),
            Wrap::Group if lines => format!("{{\n{x}\n}}"),
            Wrap::Group => format!("{{ {x}; }}"),
            Wrap::ThenTrue if lines => format!("{x}\ntrue"),
            Wrap::ThenTrue => format!("{x}; true"),
            Wrap::AfterCdDot => format!("cd . && {x}"),
            Wrap::AfterCdDotSeq => format!("cd .; {x}"),
            Wrap::IfTrue if lines => format!("if true; then\n{x}\nfi"),
            Wrap::IfTrue => format!("if true; then {x}; fi"),
            Wrap::OnceLoop if lines => format!("for _ in 1; do\n{x}\ndone"),
            Wrap::OnceLoop => format!("for _ in 1; do {x}; done"),
        }
    }
}

fn wraps() -> impl Strategy<Value = Vec<Wrap>> {
    let wrap = select(vec![
        Wrap::AfterTrue,
        Wrap::Subshell,
        Wrap::Group,
        Wrap::ThenTrue,
        Wrap::AfterCdDot,
        Wrap::AfterCdDotSeq,
        Wrap::IfTrue,
        Wrap::OnceLoop,
    ]);
    proptest::collection::vec(wrap, 1..4)
}

/// A command that only reads, with arguments a person might give it; paths may be in the
/// primary checkout, which reading from elsewhere leaves alone.
fn read_only() -> impl Strategy<Value = String> {
    let path = prop_oneof![
        3 => rel_path(),
        1 => rel_path().prop_map(|p| format!("../primary/{p}")),
        1 => rel_path().prop_map(|p| format!("{PRIMARY}/{p}")),
        1 => Just(".".to_string()),
    ]
    .prop_flat_map(quoted);
    let paths = proptest::collection::vec(path, 1..4).prop_map(|v| v.join(" "));
    let pattern = "[a-zA-Z .*_-]{1,12}".prop_map(|p| format!("'{p}'"));
    let flag = |flags: &'static [&'static str]| {
        proptest::collection::vec(select(flags), 0..3).prop_map(|v| v.join(" "))
    };
    let one = prop_oneof![
        (flag(&["-l", "-a", "-la", "-R", "-1", "-h"]), paths.clone())
            .prop_map(|(f, p)| format!("ls {f} {p}")),
        paths.clone().prop_map(|p| format!("cat {p}")),
        (
            flag(&["-n", "-r", "-i", "-rn", "-l", "-c", "-E"]),
            pattern,
            paths.clone()
        )
            .prop_map(|(f, pat, p)| format!("grep {f} {pat} {p}")),
        (1..50u32, paths.clone()).prop_map(|(n, p)| format!("head -n {n} {p}")),
        paths.clone().prop_map(|p| format!("wc -l {p}")),
        flag(&["-s", "--short", "--porcelain", "-b", "-uno"])
            .prop_map(|f| format!("git status {f}")),
        (
            flag(&[
                "--oneline",
                "-n 5",
                "-p",
                "--stat",
                "--all",
                "main",
                "side",
                "HEAD~1"
            ]),
            proptest::option::of(paths.clone()),
        )
            .prop_map(|(f, p)| match p {
                Some(p) => format!("git log {f} -- {p}"),
                None => format!("git log {f}"),
            }),
        select(vec!["status", "log --oneline", "diff --stat", "status -s"])
            .prop_map(|v| format!("git -C ../primary {v}")),
    ];
    let tail = select(vec![
        "",
        " | head",
        " | wc -l",
        " | grep -c x",
        " 2>/dev/null",
    ]);
    let piece = (one, tail).prop_map(|(c, t)| format!("{c}{t}"));
    (
        proptest::collection::vec(piece, 1..4),
        select(vec![" && ", "; ", "\n", " || "]),
    )
        .prop_map(|(v, sep)| v.join(sep))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn shell_like_text_is_scanned_and_decided_within_the_bound_without_a_panic(
        text in shell_text(1..60)
    ) {
        let _ = scan(&text, 0);
        let _ = effects_of(&Action::command(text.as_str(), LINKED), Default::default());
        decided_in_time(&text)?;
    }

    #[test]
    fn shell_like_text_in_the_primary_followed_by_a_write_is_blocked(text in shell_text(1..40)) {
        // From the primary, anything that runs something must run it in a linked worktree;
        // random text without `cd` into one can only be allowed when it does nothing at all.
        let command = format!("{text}\ntouch PWNED");
        prop_assert!(blocked(&command, PRIMARY), "allowed: {command:?}");
    }

    #[test]
    fn the_same_text_gets_the_same_effects_and_the_same_decision(text in shell_text(1..40)) {
        for cwd in [PRIMARY, LINKED] {
            let action = Action::command(text.as_str(), cwd);
            let once = effects_of(&action, Default::default());
            prop_assert_eq!(&once, &effects_of(&action, Default::default()));
            prop_assert_eq!(decide_action(&action), decide_action(&action));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn long_shell_like_text_is_decided_within_the_bound(text in shell_text(500..4000)) {
        decided_in_time(&text)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_quoted_word_scans_as_one_word_whose_value_is_the_text(text in "[^\u{0}]{0,16}") {
        let single = format!("'{}'", text.replace('\'', r"'\''"));
        let toks = scan(&single, 0).map_err(|e| TestCaseError::fail(e.0))?;
        prop_assert_eq!(toks.len(), 1, "{:?}", toks);
        let Tok::Word(w) = &toks[0] else {
            return Err(TestCaseError::fail(format!("not a word: {toks:?}")));
        };
        prop_assert_eq!(value(w), Some(text));
    }

    #[test]
    fn a_file_a_writer_names_is_a_written_path_where_the_agent_stands(
        dir in proptest::option::of(rel_path()),
        file in rel_path(),
        writer in select(WRITERS),
    ) {
        let command = match &dir {
            Some(d) => format!("cd {d} && {}", writer.replace("{}", &file)),
            None => writer.replace("{}", &file),
        };
        let base = Path::new(LINKED).join(dir.as_deref().unwrap_or(""));
        let effects = effects_of(&Action::command(command.as_str(), LINKED), Default::default())
            .map_err(TestCaseError::fail)?;
        let want = base.join(&file);
        prop_assert!(
            effects.iter().any(|e| matches!(e, Effect::Writes { path, .. } if *path == want)),
            "{command}: no write of {} in {effects:#?}", want.display()
        );
    }

    #[test]
    fn a_blocked_command_stays_blocked_however_harmlessly_it_is_wrapped(
        command in blocked_command(),
        wraps in wraps(),
    ) {
        prop_assume!(blocked(&command, LINKED));
        // `cd . && cd -` goes back where the agent stands: alone, `cd -` is blocked only for
        // want of a folder the command itself left.
        prop_assume!(!(command.contains("cd -") || command.contains("popd"))
            || !wraps.iter().any(|w| matches!(w, Wrap::AfterCdDot)));
        let wrapped = wraps.iter().fold(command.clone(), |x, w| w.around(&x));
        prop_assert!(blocked(&wrapped, LINKED), "allowed: {wrapped:?} (alone, {command:?} blocks)");
    }

    #[test]
    fn reading_in_a_linked_worktree_is_allowed(command in read_only()) {
        let (d, _) = judge(&command, LINKED);
        prop_assert!(matches!(d, Decision::Allow(_)), "{command:?}: {d:?}");
    }

    #[test]
    fn a_write_into_the_primary_from_a_linked_worktree_is_blocked(
        command in primary_write(),
        file in rel_path(),
    ) {
        prop_assert!(blocked(&command, LINKED), "allowed: {command:?}");
        let edit = Action::edit(vec![Path::new(PRIMARY).join(&file)], LINKED);
        prop_assert!(matches!(decide_action(&edit), Decision::Block(_)), "edit of {file}");
    }
}

/// After a reserved word (`{ X; }`, `if true; then X; fi`, `for _ in 1; do X; done`) the pass
/// before the walk still finds the command: `read` giving a variable a value, `hash -p` and
/// `shopt -s cdable_vars` (found by the wrapping property).
#[test]
fn a_reserved_word_does_not_hide_read_hash_and_shopt_from_the_guard() {
    let mut allowed = Vec::new();
    for c in [
        "{ read -r p <<< ../primary/PWN; touch \"$p\"; }",
        "if true; then read -r p <<< ../primary/PWN; touch \"$p\"; fi",
        "for _ in 1; do read -r p <<< ../primary/PWN; touch \"$p\"; done",
        "{ hash -p /usr/bin/touch cat; cat ../primary/PWN; }",
        "if true; then hash -p /usr/bin/touch cat; cat ../primary/PWN; fi",
        "{ shopt -s cdable_vars; pp=$(dirname \"$PWD\")/primary; cd pp && touch PWN; }",
        "if true; then shopt -s cdable_vars; pp=$(dirname \"$PWD\")/primary; cd pp && touch PWN; fi",
    ] {
        if !blocked(c, LINKED) {
            allowed.push(c);
        }
    }
    assert!(allowed.is_empty(), "allowed: {allowed:#?}");
}

fn pathological() -> Vec<(String, String)> {
    let kb = |piece: &str, bytes: usize| piece.repeat(bytes / piece.len().max(1));
    vec![
        (
            "a quoted heredoc of 30,000 `$(`".into(),
            format!("cat <<'EOF'\n{}\nEOF\ntouch PWNED", "$(".repeat(30_000)),
        ),
        (
            "30,000 nested `$(`".into(),
            format!("echo {}", "$(".repeat(30_000)),
        ),
        (
            "30,000 nested and closed `$(`".into(),
            format!("echo {}{}", "$(".repeat(30_000), ")".repeat(30_000)),
        ),
        (
            "20,000 nested backticks".into(),
            format!("echo {}", "\\`".repeat(20_000)),
        ),
        (
            "400 `cd a; `".into(),
            format!("{}touch ../primary/x", "cd a; ".repeat(400)),
        ),
        (
            "4,000 `cd a && `".into(),
            format!(
                "{}touch /repo/primary/../primary/x",
                "cd a && ".repeat(4000)
            ),
        ),
        (
            "10,000 `${`".into(),
            format!("echo {}", "${x:-".repeat(10_000)),
        ),
        (
            "64 KB of words".into(),
            format!("touch {}", kb("a1 b2 c3 ", 64 * 1024)),
        ),
        (
            "64 KB of distinct paths".into(),
            format!(
                "touch {}",
                (0..8000).map(|i| format!("d{i}/f ")).collect::<String>()
            ),
        ),
        (
            "64 KB heredoc of code".into(),
            format!(
                "cat > src/big.rs <<'EOF'\n{}EOF\n",
                kb(
                    "fn f(x: &str) -> String { format!(\"{x}/../y\") }\n",
                    64 * 1024
                )
            ),
        ),
        (
            "10,000 heredocs on one line".into(),
            format!("cat {}\n{}", "<<E ".repeat(10_000), "E\n".repeat(10_000)),
        ),
        (
            "10,000 lines each with a here-document".into(),
            format!("{}touch ../primary/x", "cat <<E\nx\nE\n".repeat(10_000)),
        ),
        (
            "20,000 wrappers".into(),
            format!("{}touch ../primary/x", "nohup ".repeat(20_000)),
        ),
        (
            "10,000 `sh -c` levels of quoting".into(),
            format!("{}touch x", "sh -c ".repeat(10_000)),
        ),
        (
            "a pipeline of 5,000 xargs".into(),
            format!("echo ../primary/x{}", " | xargs touch".repeat(5_000)),
        ),
        (
            "10,000 case arms".into(),
            format!("case x in {} esac", "a) cd a;; ".repeat(10_000)),
        ),
    ]
}

#[test]
fn pathological_inputs_are_decided_within_the_bound_and_writes_into_the_primary_block() {
    for (what, text) in pathological() {
        for cwd in [PRIMARY, LINKED] {
            let (d, took) = judge(&text, cwd);
            assert!(took < BOUND, "{what} from {cwd}: {took:?}");
            if cwd == PRIMARY || text.contains("../primary") {
                assert!(
                    matches!(d, Decision::Block(_)),
                    "{what} from {cwd}: allowed"
                );
            }
        }
    }
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-berth"))
}

#[test]
fn the_binary_blocks_with_exit_2_on_the_worst_inputs_never_a_crash() {
    let base = std::env::temp_dir().join(format!("berth-fuzz-{}", std::process::id()));
    let primary = base.join("primary");
    std::fs::create_dir_all(&primary).unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(&primary)
            .env("HOME", &base)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    for (what, text) in pathological() {
        let t = Instant::now();
        let out = Command::new(bin())
            .args(["guard", "--", &text])
            .current_dir(&primary)
            .env("HOME", &base)
            .env("XDG_DATA_HOME", base.join("data"))
            .env_remove("BERTH_ALLOW_MAIN_WORKTREE")
            .env_remove("BERTH_MASTER_SESSION")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{what}: {:?}", out.status);
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("blocked"), "{what}");
        // A block the guard decided, not one its panic hook or deadline made for it.
        assert!(
            !said.contains("the guard failed") && !said.contains("took longer"),
            "{what}: {said}"
        );
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "{what}: {:?}",
            t.elapsed()
        );
    }
    let _ = std::fs::remove_dir_all(&base);
}
