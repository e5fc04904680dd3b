//! The pipeline judge through its library API (the runner calls it; no command of its own):
//! candidates read from real worktrees, a program judge run with the prompt and the candidates'
//! JSON, its verdict read from its prose and recorded as review verdicts by the judge's session,
//! then `git berth ship` landing the winner through the gate and refusing the loser.

use crate::common;

use std::path::{Path, PathBuf};

use berth::judge::{self, Candidate};
use berth::landing::review;
use berth::repo::Context;
use berth::session::Session;
use common::{Sandbox, outputs};

/// A program judge: it checks that the candidates' JSON names both candidates and that the
/// prompt came last, then prints its verdict wrapped in prose, as a model would.
const JUDGE_SCRIPT: &str = r#"
test "$(grep -c '"name"' "$BERTH_JUDGE_CANDIDATES")" = 2 || { echo "bad candidates" >&2; exit 2; }
case "$1" in *'## Candidate "fast"'*) ;; *) echo "no prompt" >&2; exit 2;; esac
echo "Both work; fast is shorter."
echo '```json'
echo '{"winner": "fast", "ranking": ["fast", "slow"], "reasons": "smaller diff, same tests"}'
echo '```'
"#;

/// Two managed worktrees, `fast` and `slow`, each with a commit, as candidates from `main`.
fn two_candidates(sb: &Sandbox, repo: &Path) -> Vec<Candidate> {
    ["fast", "slow"]
        .iter()
        .map(|name| {
            let wt = sb.add(repo, &["--session", &format!("agent-{name}"), name]);
            sb.commit_file(&wt, &format!("{name}.rs"), &format!("fn {name}() {{}}\n"));
            Candidate {
                name: (*name).to_owned(),
                worktree: wt,
                branch: format!("berth/{name}"),
                base: "main".to_owned(),
                message: format!("{name} is done"),
            }
        })
        .collect()
}

fn context(repo: &Path) -> Context {
    Context::discover_from(repo).unwrap()
}

#[test]
fn a_program_judges_verdict_approves_the_winner_so_ship_lands_it_and_rejects_the_loser() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let candidates = two_candidates(&sb, &repo);
    let run_dir: PathBuf = sb.root.join("run");
    std::fs::create_dir_all(&run_dir).unwrap();
    let script = sb.root.join("judge.sh");
    std::fs::write(&script, JUDGE_SCRIPT).unwrap();
    sb.git(
        &repo,
        &[
            "config",
            "berth.judge.command",
            &format!("sh {}", script.display()),
        ],
    );

    let ctx = context(&repo);
    let entries: Vec<judge::Entry> = candidates
        .iter()
        .map(|c| judge::read(c, judge::DEFAULT_MAX_DIFF).unwrap())
        .collect();
    assert!(
        entries[0].diff.contains("+fn fast() {}"),
        "{}",
        entries[0].diff
    );
    let prompt = judge::prompt::render(Some("fewest lines"), &entries);
    let candidates_file = run_dir.join("candidates.json");
    judge::run::write_candidates(&candidates_file, &entries).unwrap();
    let command = judge::run::command(&ctx.repo).unwrap();
    let ran = judge::run::run(
        &command,
        &prompt,
        &run_dir,
        &candidates_file,
        &run_dir.join("judge.log"),
    )
    .unwrap();
    assert!(ran.status.success(), "{}", ran.stdout);
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let verdict = judge::verdict::parse(&ran.stdout, &names).unwrap();
    assert_eq!(verdict.winner, "fast");
    judge::verdict::keep(&run_dir, &verdict).unwrap();

    let session = judge::session("best-of-two", "r1");
    assert_eq!(session, "judge:best-of-two/r1");
    let given = judge::record(&ctx, &session, &verdict, &entries).unwrap();
    assert_eq!(given.len(), 2);
    assert_eq!(given[0].name, "fast", "the winner is recorded first");

    let status = sb.berth_json(&repo, &["review", "status", "--json"]);
    let row = |name: &str| {
        status["reviews"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(row("fast")["review"], "approved", "{status}");
    assert_eq!(row("slow")["review"], "rejected", "{status}");
    for name in ["fast", "slow"] {
        assert_eq!(row(name)["verdict"]["reviewer"], "judge:best-of-two/r1");
        assert_eq!(row(name)["verdict"]["note"], "smaller diff, same tests");
    }

    let out = sb.berth(&repo, &["ship", "fast", "--gate", "test -f fast.rs"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(
        repo.join("fast.rs").exists(),
        "the winner landed on the trunk"
    );
    let refused = sb.berth(&repo, &["ship", "slow"]);
    assert!(!refused.status.success());
    assert!(
        common::stderr(&refused).contains(
            "worktree 'slow' was rejected by judge:best-of-two/r1: smaller diff, same tests"
        ),
        "{}",
        outputs(&refused)
    );
    assert!(!repo.join("slow.rs").exists());
}

#[test]
fn a_candidate_that_moved_after_it_was_judged_gets_no_verdict() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let candidates = two_candidates(&sb, &repo);
    let entries: Vec<judge::Entry> = candidates
        .iter()
        .map(|c| judge::read(c, judge::DEFAULT_MAX_DIFF).unwrap())
        .collect();
    sb.commit_file(&candidates[0].worktree, "late.rs", "late\n");
    let verdict = judge::Verdict {
        winner: "fast".into(),
        ranking: vec![],
        reasons: "r".into(),
    };

    let err = judge::record(&context(&repo), "judge:p/r1", &verdict, &entries).unwrap_err();

    assert_eq!(
        err.to_string(),
        "cannot record the judge's verdict on candidate 'fast'"
    );
    assert!(
        format!("{err:#}").contains("worktree 'fast' moved to"),
        "{err:#}"
    );
    let status = sb.berth_json(&repo, &["review", "status", "fast", "--json"]);
    assert_eq!(status["reviews"][0]["review"], "unreviewed");
}

#[test]
fn a_named_reviewer_that_holds_the_claim_still_cannot_approve_its_own_work() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let candidates = two_candidates(&sb, &repo);
    let ctx = context(&repo);
    let author = Session {
        id: "agent-fast".into(),
        pid: std::process::id(),
        pid_start: None,
        explicit: true,
    };

    let err = review::give_as(&ctx, "fast", &author, true, "mine is best", None).unwrap_err();
    assert!(
        err.to_string()
            .contains("its author may not approve its own work"),
        "{err}"
    );
    let rejected = review::give_as(&ctx, "fast", &author, false, "not done", None).unwrap();
    assert_eq!(rejected.review, review::State::Rejected);
    let judge_session = Session {
        id: judge::session("p", "r1"),
        ..author
    };
    let head = sb.rev(&candidates[0].worktree, "HEAD");
    let approved = review::give_as(
        &ctx,
        "fast",
        &judge_session,
        true,
        "fine",
        Some(gix::ObjectId::from_hex(head.as_bytes()).unwrap()),
    )
    .unwrap();
    assert_eq!(approved.review, review::State::Approved);
}
