//! The guard returns a decision, quickly, on any text: random shell-like text built from the
//! pieces that trip scanners (quotes, substitutions, here-documents, `case`, nesting), and the
//! pathological inputs an attacker would send. A crash, a hang or a slow answer fails here, and
//! the real binary is checked to block (exit 2, not a signal) on the worst of them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use berth::guard::{Action, Decision, Hatches, Place, decide};

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

fn judge(command: &str, cwd: &str) -> (Decision, Duration) {
    let t = Instant::now();
    let d = decide(
        &Hatches::default(),
        &Action::command(command, cwd),
        Some(Path::new("/repo")),
        &mut probe,
    );
    (d, t.elapsed())
}

/// xorshift64*: a fixed seed, so a failure is the same failure on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

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

fn random_text(rng: &mut Rng, pieces: usize) -> String {
    let mut s = String::new();
    for _ in 0..pieces {
        s.push_str(PIECES[rng.below(PIECES.len())]);
    }
    s
}

#[test]
fn random_shell_text_always_gets_a_decision_within_the_bound() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut slowest = Duration::ZERO;
    for i in 0..4000 {
        let len = 1 + rng.below(if i % 50 == 0 { 4000 } else { 60 });
        let text = random_text(&mut rng, len);
        for cwd in [PRIMARY, LINKED] {
            let (_, took) = judge(&text, cwd);
            slowest = slowest.max(took);
            assert!(took < BOUND, "{took:?} on {text:?}");
        }
    }
    eprintln!("slowest random input: {slowest:?}");
}

#[test]
fn random_text_in_the_primary_is_never_allowed_unless_it_only_leaves() {
    // From the primary, anything that runs something must run it in a linked worktree; random
    // text without `cd` into one can only be allowed when it does nothing at all.
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for _ in 0..3000 {
        let len = 1 + rng.below(40);
        let text = random_text(&mut rng, len);
        let (d, _) = judge(&format!("{text}\ntouch PWNED"), PRIMARY);
        assert!(matches!(d, Decision::Block(_)), "allowed: {text:?}");
    }
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
