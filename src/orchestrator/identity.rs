//! Who may launch whom, and who each agent is. The topology (seed 000): the master is layer 0,
//! a layer-1 agent has a tab and a worktree of its own, a layer-2 agent is a split beside its
//! layer-1 parent in the parent's worktree; never deeper. Every agent gets its identity
//! variables and a session of its own, and never the two hatches, whatever its parent or the
//! terminal's own environment holds. Pure.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;

use crate::error::refuse_with_hint;
use crate::names::{self, env};

/// The deepest layer there is.
pub const MAX_DEPTH: u8 = 2;

/// Variables no spawned agent may inherit: the two hatches that open the primary checkout, and
/// the process a claim follows (an agent's claims follow the agent itself).
pub const REMOVED: [&str; 3] = [
    env::ALLOW_MAIN_WORKTREE,
    env::MASTER_SESSION,
    env::SESSION_PID,
];

/// The caller's layer from `BERTH_AGENT_LAYER`: unset or empty is a person, who counts as the
/// master (layer 0); anything but `0`, `1` or `2` is refused.
pub fn caller_layer(raw: Option<&str>) -> Result<u8> {
    match raw.map(str::trim) {
        None | Some("") | Some("0") => Ok(0),
        Some("1") => Ok(1),
        Some("2") => Ok(2),
        Some(other) => Err(refuse_with_hint(
            format!("{} is '{other}', not 0, 1 or 2", env::AGENT_LAYER),
            "unset it, or set it to the layer this session is",
        )),
    }
}

/// `layer1`, `spawn` and `feat` run from layer 0 (the master, or a person).
pub fn check_layer1(caller: u8, command: &str) -> Result<()> {
    if caller == 0 {
        return Ok(());
    }
    Err(refuse_with_hint(
        format!("{command} runs from the master (layer 0); this is a layer-{caller} agent"),
        if caller == 1 {
            format!(
                "ask the master for another tab, or split your own: {} layer2 <name>",
                names::TOOL
            )
        } else {
            "ask your layer-1 parent or the master".to_owned()
        },
    ))
}

/// A verdict `approve` and `ship` come from a person, the master or a pipeline's judge (layer 0),
/// never from an agent at layer 1 or 2: an agent would otherwise approve or land its own work,
/// or a helper the work of the agent that started it. `review reject` stays open to everyone.
pub fn check_lands(caller: u8, what: &str) -> Result<()> {
    if caller == 0 {
        return Ok(());
    }
    Err(refuse_with_hint(
        format!("{what} is for a person or the master; this is a layer-{caller} agent"),
        format!(
            "commit your work and tell the master it is ready; `{} review reject <name> --note \
             <why>` stays open to you",
            names::TOOL
        ),
    ))
}

/// `layer2` runs only where `BERTH_AGENT_LAYER` is exactly 1: a layer-2 agent of a layer-2
/// agent would be deeper than [`MAX_DEPTH`].
pub fn check_layer2(caller: u8) -> Result<()> {
    match caller {
        1 => Ok(()),
        0 => Err(refuse_with_hint(
            "layer2 splits a layer-1 agent's tab; this is layer 0 (the master, or a person)",
            format!(
                "start a layer-1 agent first: {} layer1 <name> <branch>",
                names::TOOL
            ),
        )),
        deeper => Err(refuse_with_hint(
            format!(
                "layer2 from a layer-{deeper} agent would be layer {}; agents go at most {MAX_DEPTH} deep",
                deeper + 1
            ),
            "ask your layer-1 parent to split its tab instead",
        )),
    }
}

/// `master` runs for a person (or a script), never for an agent berth spawned: that would hand
/// it the hatches.
pub fn check_master(caller_raw: Option<&str>) -> Result<()> {
    match caller_layer(caller_raw)? {
        0 => Ok(()),
        layer => Err(refuse_with_hint(
            format!("a layer-{layer} agent cannot become the master"),
            "the master is started by a person, in the primary checkout",
        )),
    }
}

/// An agent's own session id: `agent-<slug>`. The same name is the same session, so an agent
/// launched again (or a launch tried again) holds what it held.
pub fn session_id(slug: &str) -> String {
    format!("{}{slug}", names::AGENT_SESSION_PREFIX)
}

/// Who an agent is.
#[derive(Debug, Clone)]
pub struct Identity<'a> {
    pub name: &'a str,
    pub layer: u8,
    pub branch: &'a str,
    pub worktree: &'a Path,
    pub session: &'a str,
}

/// The environment an agent is given: its identity, what its runtime needs (`extra`), and the
/// caller's `PATH` (so it finds the runtime and `git berth` as the caller does, whatever the
/// terminal's server was started with).
pub fn environment(
    who: &Identity<'_>,
    extra: &[(String, String)],
    path: Option<&str>,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    out.insert(env::AGENT_LAYER.to_owned(), who.layer.to_string());
    out.insert(env::AGENT_BRANCH.to_owned(), who.branch.to_owned());
    out.insert(
        env::AGENT_WORKTREE.to_owned(),
        who.worktree.display().to_string(),
    );
    out.insert(env::AGENT_NAME.to_owned(), who.name.to_owned());
    out.insert(env::SESSION.to_owned(), who.session.to_owned());
    if let Some(path) = path {
        out.insert("PATH".to_owned(), path.to_owned());
    }
    for (key, value) in extra {
        out.insert(key.clone(), value.clone());
    }
    out
}

/// The program line that runs `argv` with exactly this environment on top of the terminal's,
/// the [`REMOVED`] variables and `unset` taken out first: `env -u ... K=V ... <argv>`. Whatever
/// launches it (a tmux pane, whose environment is the tmux server's, or a herdr pane's shell)
/// cannot hand the agent a hatch.
pub fn wrapped(vars: &BTreeMap<String, String>, unset: &[String], argv: &[String]) -> Vec<String> {
    let mut out = vec!["env".to_owned()];
    for name in REMOVED
        .iter()
        .copied()
        .chain(unset.iter().map(String::as_str))
    {
        out.push("-u".to_owned());
        out.push(name.to_owned());
    }
    out.extend(vars.iter().map(|(k, v)| format!("{k}={v}")));
    out.extend(argv.iter().cloned());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_counts_as_layer_0_and_odd_values_are_refused() {
        assert_eq!(caller_layer(None).unwrap(), 0);
        assert_eq!(caller_layer(Some("")).unwrap(), 0);
        assert_eq!(caller_layer(Some("1")).unwrap(), 1);
        assert!(caller_layer(Some("3")).is_err());
        assert!(caller_layer(Some("one")).is_err());
    }

    #[test]
    fn layer_1_comes_from_layer_0_and_layer_2_only_from_layer_1() {
        assert!(check_layer1(0, "layer1").is_ok());
        assert!(check_layer1(1, "layer1").is_err());
        assert!(check_layer1(2, "spawn").is_err());
        assert!(check_layer2(1).is_ok());
        let from_0 = crate::error::render(&check_layer2(0).unwrap_err()).0;
        assert!(from_0.contains("layer 0"), "{from_0}");
        let from_2 = crate::error::render(&check_layer2(2).unwrap_err()).0;
        assert!(from_2.contains("at most 2 deep"), "{from_2}");
        assert!(check_master(Some("1")).is_err());
        assert!(check_master(None).is_ok());
    }

    #[test]
    fn the_wrapper_removes_both_hatches_before_it_sets_the_identity() {
        let who = Identity {
            name: "a",
            layer: 1,
            branch: "berth/a",
            worktree: Path::new("/w/a"),
            session: "agent-a",
        };
        let vars = environment(&who, &[("X".into(), "1 2".into())], Some("/bin"));
        let argv = wrapped(
            &vars,
            &[],
            &["sh".to_owned(), "-c".to_owned(), "env".to_owned()],
        );
        assert_eq!(
            argv[..7],
            [
                "env",
                "-u",
                "BERTH_ALLOW_MAIN_WORKTREE",
                "-u",
                "BERTH_MASTER_SESSION",
                "-u",
                "BERTH_SESSION_PID"
            ]
        );
        for var in [
            "BERTH_AGENT_LAYER=1",
            "BERTH_AGENT_BRANCH=berth/a",
            "BERTH_AGENT_WORKTREE=/w/a",
            "BERTH_SESSION=agent-a",
            "PATH=/bin",
            "X=1 2",
        ] {
            assert!(argv.iter().any(|a| a == var), "{var} in {argv:?}");
        }
        assert_eq!(argv[argv.len() - 3..], ["sh", "-c", "env"]);
    }
}
