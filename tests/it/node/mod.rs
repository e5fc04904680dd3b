//! Loading the TypeScript adapters `git berth init` installs under plain node: node is found
//! (or the test says why it is skipped), and the few type annotations the adapters use are taken
//! out, leaving JavaScript. An adapter that grows another annotation fails to load here.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// Where node is, or `None` after printing why the calling test is skipped.
pub fn node() -> Option<PathBuf> {
    let o = Command::new("sh")
        .args(["-c", "command -v node"])
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    if o.status.success() && !path.as_os_str().is_empty() {
        return Some(path);
    }
    super::common::skip(
        "node",
        "node is not on PATH, so the runtime adapters cannot be loaded",
    );
    None
}

/// An installed adapter as a module node can load.
pub fn as_module(ts: &str) -> String {
    ts.lines()
        .filter(|l| !l.starts_with("import type"))
        .collect::<Vec<_>>()
        .join("\n")
        .replace(": Plugin", "")
        .replace(": ExtensionAPI", "")
        .replace(": string[]", "")
}
