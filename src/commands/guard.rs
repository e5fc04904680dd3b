//! `git berth guard`: gathers the effects (environment, working directory, stdin, the
//! filesystem probe) around the pure decision in `crate::guard` and answers in the caller's
//! form. It must never exit 0 on an error: every failure on the way blocks.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::guard::runtime::{self, Reply, Request, Runtime};
use crate::guard::{Block, Decision, Hatches, Why, decide_in, probe};

/// Decide whether an agent's next action may run (exit 0 allow, 2 block)
///
/// The trunk guard. Agent runtimes run it before every tool call (`git berth init` wires it in),
/// and it decides from the call and the file system alone: whatever would write in the primary
/// checkout is blocked, and so is, from any worktree, a git command that writes the trunk or
/// pushes to it: only `git berth ship` moves the trunk, after `git berth review`. A block exits
/// 2 with the reason and the way out on stderr; everything else is allowed (exit 0, nothing
/// printed). Any failure on the way, a crash or three seconds without an answer, is a block too.
///
/// Try it by hand: `git berth guard -- rm -rf src` in the primary checkout is blocked, and the same
/// in a linked worktree is allowed. `BERTH_ALLOW_MAIN_WORKTREE=1` (a person working in the primary)
/// and `BERTH_MASTER_SESSION=1` (the orchestrating agent) let everything through.
#[derive(clap::Args, Debug, Clone)]
pub struct GuardArgs {
    /// Read this runtime's hook JSON on stdin (the tool call) and answer in its form
    #[arg(long, value_enum)]
    pub runtime: Option<Runtime>,

    /// The shell command the agent is about to run (several words are joined with spaces); with
    /// none, an edit is judged by where the guard runs
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// What the guard reads from the world, gathered in one place so tests can supply it.
pub struct Inputs {
    pub hatches: Hatches,
    /// The process's working directory; `None` when it cannot be read (which blocks).
    pub cwd: Option<PathBuf>,
    pub home: Option<PathBuf>,
    /// `CDPATH`, which sends a relative `cd` elsewhere.
    pub cdpath: Option<String>,
    /// Hook JSON, read only with `--runtime`; `Err` carries why stdin could not be read.
    pub stdin: Option<Result<String, String>>,
    /// `BERTH_SESSION`: the caller's session, whose worktrees are its own.
    pub session: Option<String>,
}

impl Inputs {
    pub fn from_process(args: &GuardArgs) -> Inputs {
        let stdin = args.runtime.map(|_| {
            let mut buf = String::new();
            std::io::stdin()
                .read_to_string(&mut buf)
                .map(|_| buf)
                .map_err(|e| format!("cannot read stdin: {e}"))
        });
        Inputs {
            hatches: Hatches {
                allow_main_worktree: std::env::var(crate::names::env::ALLOW_MAIN_WORKTREE).ok(),
                master_session: std::env::var(crate::names::env::MASTER_SESSION).ok(),
            },
            cwd: std::env::current_dir().ok(),
            home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            cdpath: std::env::var("CDPATH").ok(),
            stdin,
            session: std::env::var(crate::names::env::SESSION)
                .ok()
                .filter(|s| !s.is_empty()),
        }
    }
}

/// How long the guard may think before it blocks anyway: under the shortest hook timeout `init`
/// writes (Gemini's 5 s), so a runtime never sees a guard that did not answer.
pub const DEADLINE: std::time::Duration = std::time::Duration::from_secs(3);

/// Runs the guard on this process's environment, prints the answer, returns the exit code
/// (0 allow, 2 block; for `--runtime copilot` a block is 0 with deny JSON on stdout). Whatever
/// else happens (a panic, a stall past [`DEADLINE`]) ends the process with a block.
pub fn run(args: &GuardArgs) -> i32 {
    fail_closed(args.runtime);
    let reply = answer(args, Inputs::from_process(args));
    // A reply that cannot be written still blocks by its exit code where the runtime honours
    // one; nothing more can be done for it.
    let _ = std::io::stdout().write_all(reply.stdout.as_bytes());
    let _ = std::io::stderr().write_all(reply.stderr.as_bytes());
    reply.code
}

/// Any outcome but a decision is a block: a panic (release builds abort on one) and a guard
/// still thinking at the deadline both print the runtime's deny form and exit with its code.
fn fail_closed(runtime: Option<Runtime>) {
    let block = move |what: &str| -> ! {
        let reply = runtime::reply(
            runtime,
            &Decision::Block(Block::Failed {
                what: what.to_string(),
            }),
        );
        let _ = std::io::stdout().write_all(reply.stdout.as_bytes());
        let _ = std::io::stderr().write_all(reply.stderr.as_bytes());
        std::process::exit(reply.code)
    };
    std::panic::set_hook(Box::new(move |info| {
        block(&format!("the guard failed: {info}"));
    }));
    let _ = std::thread::Builder::new()
        .name("deadline".into())
        .spawn(move || {
            std::thread::sleep(DEADLINE);
            block(&format!(
                "the guard took longer than {} s",
                DEADLINE.as_secs()
            ));
        });
}

/// The whole guard over supplied inputs, with the real filesystem probe.
pub fn answer(args: &GuardArgs, inputs: Inputs) -> Reply {
    let mut locator = probe::Locator::default();
    answer_with(args, inputs, &mut |p| locator.locate(p))
}

/// The whole guard over supplied inputs and probe: the seam the tests drive.
pub fn answer_with(
    args: &GuardArgs,
    inputs: Inputs,
    probe: &mut dyn FnMut(&Path) -> std::io::Result<probe::Place>,
) -> Reply {
    // The hatches come first in the seed's order, before any JSON is read.
    if let Some(why) = crate::guard::hatch(&inputs.hatches) {
        return runtime::reply(args.runtime, &Decision::Allow(why));
    }
    let decision = match request(args, &inputs) {
        Ok(Request::ReadOnly) => Decision::Allow(Why::ReadOnlyTool),
        Ok(Request::Act(action)) => {
            let env = crate::guard::shell::Env {
                home: inputs.home.as_deref(),
                cdpath: inputs.cdpath.as_deref(),
                session: inputs.session.as_deref(),
                agent: Some(crate::process::holder_pid),
                exits: true,
            };
            decide_in(&inputs.hatches, &action, env, probe)
        }
        Err(what) => Decision::Block(Block::Failed { what }),
    };
    runtime::reply(args.runtime, &decision)
}

fn request(args: &GuardArgs, inputs: &Inputs) -> Result<Request, String> {
    let cwd = inputs
        .cwd
        .clone()
        .ok_or("cannot read the current directory")?;
    let Some(rt) = args.runtime else {
        return Ok(Request::Act(crate::guard::Action::command(
            args.command.join(" "),
            cwd,
        )));
    };
    if !args.command.is_empty() {
        return Err(format!(
            "--runtime {} reads the command from stdin; got a command as well",
            rt.name()
        ));
    }
    let json = match &inputs.stdin {
        Some(Ok(text)) => text,
        Some(Err(e)) => return Err(e.clone()),
        None => return Err("no hook JSON on stdin".into()),
    };
    runtime::parse(rt, json, &cwd, inputs.home.as_deref())
}
