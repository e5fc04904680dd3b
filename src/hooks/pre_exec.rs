//! The one place berth writes `unsafe`: code that runs in a hook's child between `fork` and
//! `exec`, which std only offers through the unsafe `CommandExt::pre_exec`. Everything else
//! reaches the kernel through rustix's safe calls; nothing may be added here that has a safe way.
#![allow(
    unsafe_code,
    reason = "std offers the step between fork and exec only as unsafe"
)]

use std::process::Command;

/// On Linux, the leader gets SIGKILL when berth's thread that started it ends (a kill of berth
/// included, which no handler of berth's sees). If berth died before that was set, the leader
/// ends itself at once.
pub(super) fn die_with_parent(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{
            Signal, getpid, getppid, kill_process, set_parent_process_death_signal,
        };
        use std::os::unix::process::CommandExt as _;

        let parent = std::process::id();
        // SAFETY: `pre_exec` is unsafe because the closure runs in a forked copy of a process
        // that may have other threads, where only async-signal-safe calls are sound. This one
        // allocates nothing, takes no lock and touches no shared state: it makes three system
        // calls (prctl, getppid, kill), which rustix issues directly, and compares integers.
        unsafe {
            cmd.pre_exec(move || {
                set_parent_process_death_signal(Some(Signal::KILL))?;
                if getppid().map(|p| p.as_raw_nonzero().get() as u32) != Some(parent) {
                    kill_process(getpid(), Signal::KILL)?;
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}
