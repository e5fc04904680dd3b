//! Running a setup or teardown hook: its exact bytes with `sh -c`, in its own process group, so
//! that a timeout or Ctrl-C stops everything it started, and so that the group dies with berth
//! even when berth is killed (a parent-death signal for the leader, a sentinel for the group).
//! Trust is checked before, by the caller.

use std::ffi::OsStr;
use std::fmt;
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use rustix::process::Signal;

use super::read::{Hook, Source};
use crate::process::group_alive;
use crate::{clock, error, names};

/// `sh -c` takes the script as one argument, and Linux caps one argument at 128 KiB.
const MAX_SCRIPT_BYTES: usize = 100 * 1024;
/// How often a running hook is checked for Ctrl-C; its exit is seen at once.
const POLL: Duration = Duration::from_millis(25);

/// `berth.hookTimeout` (`None` when unset), default 15m; a value that does not read, or zero, is an
/// error naming the key.
pub fn timeout(configured: Option<&str>) -> Result<Duration> {
    let raw = configured.unwrap_or(names::DEFAULT_HOOK_TIMEOUT);
    match clock::parse_duration(raw) {
        Some(secs) if secs > 0 => Ok(Duration::from_secs(secs)),
        _ => Err(error::misconfigured(
            format!(
                "{} is '{raw}', not a duration above zero",
                names::config::HOOK_TIMEOUT
            ),
            format!(
                "git config {} {}",
                names::config::HOOK_TIMEOUT,
                names::DEFAULT_HOOK_TIMEOUT
            ),
        )),
    }
}

/// How a hook run failed. Returned inside the `anyhow::Error` of [`run`], so a caller can
/// `downcast_ref::<Failed>()` to record it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    pub hook: &'static str,
    pub how: Failure,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// It exited with this code.
    Exit(i32),
    /// It was ended by this signal, not by berth.
    Signal(i32),
    /// It ran past the timeout; its process group was stopped.
    TimedOut(Duration),
    /// Ctrl-C (or TERM, HUP) reached berth; its process group was stopped.
    Interrupted,
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hook = self.hook;
        match &self.how {
            Failure::Exit(code) => write!(f, "hook {hook} failed with exit code {code}"),
            Failure::Signal(sig) => write!(f, "hook {hook} was killed by signal {sig}"),
            Failure::TimedOut(after) => {
                write!(f, "hook {hook} timed out after {}", human(*after))
            }
            Failure::Interrupted => write!(f, "hook {hook} was interrupted"),
        }
    }
}

impl std::error::Error for Failed {}

fn human(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        clock::format_duration(d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// Run a setup or teardown hook: its exact content (the bytes trust was checked on) with
/// `sh -c`, `$0` naming the hook, in `cwd`, with berth's environment minus any inherited
/// `WORKTREE_*` and repository-locating `GIT_*` variables, plus `WORKTREE_HOOK` and `env`. Its
/// output goes to berth's stderr, its stdin is null, and it runs in its own process group: past
/// `timeout`, or on Ctrl-C, the whole group gets TERM, then KILL after
/// [`names::HOOK_KILL_GRACE_SECS`], and the run fails. Processes the hook leaves behind after it
/// exits by itself are its own business and are not stopped; while it runs, the group dies with
/// berth, however berth ends ([`Sentinel`]). Trust is not checked here: call
/// [`ensure_trusted`](super::trust::ensure_trusted) before anything is created.
pub fn run(hook: &Hook, cwd: &Path, env: &[(&str, String)], timeout: Duration) -> Result<()> {
    // The hook is not in the terminal's foreground group, so Ctrl-C reaches berth alone (and a
    // second time when `git` forwards it); catch every such signal while the hook runs, so that
    // berth always lives to stop the group. The handler goes again when this returns.
    let _handler = gix::interrupt::init_handler_default(usize::MAX)
        .map_err(crate::git::gix_err)
        .context("cannot catch Ctrl-C while a hook runs")?
        .auto_deregister();
    run_with(
        hook,
        cwd,
        env,
        timeout,
        Duration::from_secs(names::HOOK_KILL_GRACE_SECS),
        &gix::interrupt::is_triggered,
    )
}

/// [`run`] with the grace between TERM and KILL given, and `stop` asked while the hook runs
/// (true stops it as Ctrl-C does). Installs no signal handler.
pub fn run_with(
    hook: &Hook,
    cwd: &Path,
    env: &[(&str, String)],
    timeout: Duration,
    grace: Duration,
    stop: &dyn Fn() -> bool,
) -> Result<()> {
    let failed = |how| {
        anyhow::Error::new(Failed {
            hook: hook.name,
            how,
        })
    };
    if !hook.is_script() {
        return Err(error::refuse(format!(
            "hook {} is read, never run",
            hook.location()
        )));
    }
    if hook.content.len() > MAX_SCRIPT_BYTES || hook.content.contains(&0) {
        return Err(error::refuse_with_hint(
            format!(
                "hook {} is not a shell script of at most {} KiB",
                hook.location(),
                MAX_SCRIPT_BYTES / 1024
            ),
            "keep the hook short: let it run a script of the project",
        ));
    }
    if stop() {
        return Err(failed(Failure::Interrupted));
    }
    let arg0 = match &hook.source {
        Source::Committed(_) => format!("{}/{}", names::HOOKS_DIR, hook.name),
        Source::Checkout(path) | Source::Local(path) => path.display().to_string(),
    };
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(OsStr::from_bytes(&hook.content))
        .arg(arg0)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .stderr(std::io::stderr())
        .process_group(0);
    for var in INHERITED_UNWANTED
        .iter()
        .chain(crate::git::LOCATION_VARIABLES)
    {
        cmd.env_remove(var);
    }
    super::pre_exec::die_with_parent(&mut cmd);
    cmd.env(names::hook_env::HOOK, hook.name);
    for (key, value) in env {
        cmd.env(key, value);
    }
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start hook {} in {}", hook.location(), cwd.display()))?;
    // The child's pid is its process group's id (`process_group(0)`).
    let group = child.id() as i32;
    let _sentinel = Sentinel::start(group);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let started = Instant::now();
    loop {
        let left = timeout.saturating_sub(started.elapsed());
        match rx.recv_timeout(left.min(POLL)) {
            Ok(status) => {
                let status =
                    status.with_context(|| format!("cannot wait for hook {}", hook.location()))?;
                return judge(status).map_err(failed);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                // The waiting thread sends before it ends, so only a bug closes the channel first.
                return Err(error::bug(format!(
                    "lost track of hook {}",
                    hook.location()
                )));
            }
        }
        if stop() {
            stop_group(group, grace, &rx);
            return Err(failed(Failure::Interrupted));
        }
        if started.elapsed() >= timeout {
            stop_group(group, grace, &rx);
            return Err(failed(Failure::TimedOut(timeout)));
        }
    }
}

/// Variables that must not leak into a hook: the caller's `WORKTREE_*` (berth run from another
/// worktree's hook); git's location variables ([`crate::git::LOCATION_VARIABLES`]) go too.
const INHERITED_UNWANTED: &[&str] = &[
    names::hook_env::NAME,
    names::hook_env::PATH,
    names::hook_env::BRANCH,
    names::hook_env::BASE,
    names::hook_env::PRIMARY,
    names::hook_env::HOOK,
    names::hook_env::PORT,
    names::hook_env::PORTS,
];

/// Kills a hook's whole process group if berth ends before the hook does: the parent-death
/// signal reaches the leader alone, and what the leader started would run on, reparented. A
/// small `sh`, in a process group of its own (so Ctrl-C at the terminal does not end it first),
/// reads a pipe whose only writer is berth: berth writes a line when the hook is done
/// ([`Sentinel::stand_down`], also on drop); end of file without one means berth is gone, and
/// the sentinel kills the group. Best effort: where it cannot start, the leader still dies with
/// berth.
struct Sentinel {
    child: Option<Child>,
}

impl Sentinel {
    fn start(group: i32) -> Self {
        let child = Command::new("sh")
            .arg("-c")
            .arg(r#"read -r done || kill -KILL -"$1" 2>/dev/null"#)
            .arg("berth-hook-sentinel")
            .arg(group.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .ok();
        Sentinel { child }
    }

    /// The hook is done (or stopped by berth): the sentinel leaves the group alone and exits.
    fn stand_down(&mut self) {
        if let Some(mut child) = self.child.take() {
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(b"done\n");
            }
            let _ = child.wait();
        }
    }
}

impl Drop for Sentinel {
    fn drop(&mut self) {
        self.stand_down();
    }
}

fn judge(status: ExitStatus) -> Result<(), Failure> {
    match (status.code(), status.signal()) {
        (Some(0), _) => Ok(()),
        (Some(code), _) => Err(Failure::Exit(code)),
        (None, Some(sig)) => Err(Failure::Signal(sig)),
        (None, None) => Err(Failure::Exit(-1)),
    }
}

/// TERM the group, wait up to `grace` for it to be gone, then KILL whatever is left. Waits for
/// the leader to be reaped, so no zombie of ours outlives the run.
fn stop_group(group: i32, grace: Duration, leader: &mpsc::Receiver<std::io::Result<ExitStatus>>) {
    signal_group(group, Signal::TERM);
    let until = Instant::now() + grace;
    let mut reaped = false;
    loop {
        reaped = reaped || leader.try_recv().is_ok();
        if reaped && !group_alive(group) {
            return;
        }
        if Instant::now() >= until {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    signal_group(group, Signal::KILL);
    if !reaped {
        let _ = leader.recv_timeout(Duration::from_secs(5));
    }
}

fn signal_group(group: i32, signal: Signal) {
    // A group already gone is what stopping it wants.
    if let Some(group) = crate::process::positive(group) {
        let _ = rustix::process::kill_process_group(group, signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::testing::{checkout_hook, scratch};
    use crate::hooks::{quote, script};
    use std::fs;

    /// Running, by the project's one liveness rule (a zombie is gone).
    fn running(pid: i32) -> bool {
        crate::process::alive(pid as u32, None)
    }

    fn wait_for_file(path: &Path) -> String {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(text) = fs::read_to_string(path)
                && text.ends_with('\n')
            {
                return text;
            }
            assert!(Instant::now() < until, "{} never appeared", path.display());
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn a_hook_gets_its_environment_and_working_directory() {
        let dir = scratch("env");
        let cwd = dir.join("worktree");
        fs::create_dir_all(&cwd).unwrap();
        let out = dir.join("out");
        let command = format!(
            "printf '%s|%s|%s|%s\\n' \"$WORKTREE_NAME\" \"$WORKTREE_HOOK\" \"$(pwd -P)\" \"$0\" > {}",
            quote(out.to_str().unwrap())
        );
        let hook = checkout_hook("setup", &script(&command));
        run(
            &hook,
            &cwd,
            &[(names::hook_env::NAME, "auth".into())],
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!(
            fs::read_to_string(&out).unwrap(),
            format!("auth|setup|{}|sh\n", cwd.display())
        );
    }

    #[test]
    fn a_failing_hook_is_reported_with_its_exit_code() {
        let dir = scratch("exit");
        let hook = checkout_hook("teardown", &script("exit 3"));
        let err = run(&hook, &dir, &[], Duration::from_secs(30)).unwrap_err();
        assert_eq!(
            err.downcast_ref::<Failed>(),
            Some(&Failed {
                hook: "teardown",
                how: Failure::Exit(3)
            })
        );
        assert_eq!(err.to_string(), "hook teardown failed with exit code 3");
    }

    #[test]
    fn a_hook_past_its_timeout_is_stopped_with_everything_it_started() {
        let dir = scratch("timeout");
        let pid_file = dir.join("pid");
        let hook = checkout_hook(
            "setup",
            &format!(
                "sleep 30 &\necho $! > {}\nsleep 30\n",
                quote(pid_file.to_str().unwrap())
            ),
        );
        let started = Instant::now();
        let err = run_with(
            &hook,
            &dir,
            &[],
            Duration::from_millis(300),
            Duration::from_secs(5),
            &|| false,
        )
        .unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "TERM alone should stop sleep"
        );
        assert_eq!(err.to_string(), "hook setup timed out after 300ms");
        assert!(
            running(std::process::id() as i32),
            "the check sees a live process"
        );
        let pid: i32 = wait_for_file(&pid_file).trim().parse().unwrap();
        let until = Instant::now() + Duration::from_secs(2);
        while running(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!running(pid), "the hook's background child {pid} survived");
    }

    #[test]
    fn a_hook_that_ignores_term_is_killed_after_the_grace() {
        let dir = scratch("kill");
        let pid_file = dir.join("pid");
        let hook = checkout_hook(
            "teardown",
            &format!(
                "trap '' TERM\nsleep 30 &\necho $! > {}\nwait\n",
                quote(pid_file.to_str().unwrap())
            ),
        );
        let grace = Duration::from_millis(400);
        let started = Instant::now();
        let err = run_with(&hook, &dir, &[], Duration::from_millis(300), grace, &|| {
            false
        })
        .unwrap_err();
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(300) + grace,
            "killed before the grace: {took:?}"
        );
        assert!(took < Duration::from_secs(5), "{took:?}");
        assert!(matches!(
            err.downcast_ref::<Failed>().unwrap().how,
            Failure::TimedOut(_)
        ));
        let pid: i32 = wait_for_file(&pid_file).trim().parse().unwrap();
        let until = Instant::now() + Duration::from_secs(2);
        while running(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!running(pid), "the TERM-proof child {pid} survived");
    }

    #[test]
    fn an_interrupt_stops_the_hook_and_counts_as_failed() {
        let dir = scratch("interrupt");
        let pid_file = dir.join("pid");
        let hook = checkout_hook(
            "setup",
            &format!(
                "sleep 30 &\necho $! > {}\n: > {}\nwait\n",
                quote(pid_file.to_str().unwrap()),
                quote(dir.join("started").to_str().unwrap())
            ),
        );
        let started_file = dir.join("started");
        let started = Instant::now();
        let err = run_with(
            &hook,
            &dir,
            &[],
            Duration::from_secs(60),
            Duration::from_secs(5),
            &move || started_file.exists(),
        )
        .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(err.to_string(), "hook setup was interrupted");
        let pid: i32 = wait_for_file(&pid_file).trim().parse().unwrap();
        let until = Instant::now() + Duration::from_secs(2);
        while running(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!running(pid));
    }

    /// A process group of its own running two `sleep`s (the leader and one it started), and the
    /// pid of the one it started.
    fn a_group_of_two() -> (Child, i32) {
        let mut leader = Command::new("sh")
            .arg("-c")
            .arg("sleep 30 & echo $!; wait")
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(leader.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        (leader, line.trim().parse().unwrap())
    }

    fn gone_within(pid: i32, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        while running(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        !running(pid)
    }

    #[test]
    fn the_sentinel_kills_the_whole_group_when_berth_goes_without_a_word() {
        let (mut leader, started) = a_group_of_two();
        let mut sentinel = Sentinel::start(leader.id() as i32);
        // What berth's death does to the pipe: its write end closes, nothing written.
        drop(sentinel.child.as_mut().unwrap().stdin.take());
        sentinel.child.take().unwrap().wait().unwrap();
        leader.wait().unwrap();
        assert!(
            gone_within(started, Duration::from_secs(2)),
            "what the hook started dies too"
        );
    }

    #[test]
    fn a_sentinel_that_stands_down_leaves_the_group_alone() {
        let (mut leader, started) = a_group_of_two();
        let group = leader.id() as i32;
        Sentinel::start(group).stand_down();
        assert!(running(leader.id() as i32) && running(started));
        signal_group(group, Signal::KILL);
        leader.wait().unwrap();
    }

    #[test]
    fn the_timeout_reads_from_config_with_a_default() {
        assert_eq!(timeout(None).unwrap(), Duration::from_secs(15 * 60));
        assert_eq!(timeout(Some("90s")).unwrap(), Duration::from_secs(90));
        for bad in ["soon", "0", "5x"] {
            let err = timeout(Some(bad)).unwrap_err();
            let kind = crate::error::kind(&err);
            assert_eq!(kind, crate::error::Kind::Configuration, "{err}");
            assert!(err.to_string().contains("berth.hookTimeout"), "{err}");
        }
        let failed = Failed {
            hook: "setup",
            how: Failure::TimedOut(timeout(None).unwrap()),
        };
        assert_eq!(failed.to_string(), "hook setup timed out after 15m");
    }

    #[test]
    fn ports_and_seed_are_never_run() {
        let dir = scratch("not-run");
        let err = run(
            &checkout_hook("ports", "20\n"),
            &dir,
            &[],
            Duration::from_secs(5),
        );
        assert!(err.unwrap_err().to_string().contains("never run"));
    }
}
