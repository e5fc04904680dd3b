//! Registering berth's MCP server (`git berth mcp`) in each runtime's project configuration, and
//! taking it out again. Pure: it works on a file's contents as the planner hands them over, and
//! adds or removes only the one server entry it writes (and, for Claude Code, the one allow-list
//! entry), leaving every other key as it was.

use serde_json::Value;

use crate::guard::runtime::Runtime;
use crate::names;

/// Where a runtime reads a project's MCP servers, and in what form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A JSON file; the server is one entry of the object found by following `table`.
    Json {
        path: &'static str,
        table: &'static [&'static str],
    },
    /// Codex's TOML config: berth appends its own table as text and takes exactly that out.
    CodexToml { path: &'static str },
}

impl Target {
    /// The file, relative to the checkout.
    pub fn path(&self) -> &'static str {
        match self {
            Target::Json { path, .. } | Target::CodexToml { path } => path,
        }
    }
}

/// Where `r` reads a project's MCP servers; `None` for a runtime that takes none.
pub fn target(r: Runtime) -> Option<Target> {
    const SERVERS: &[&str] = &["mcpServers"];
    match r {
        // Copilot CLI reads the same project `.mcp.json` as Claude Code.
        Runtime::Claude | Runtime::Copilot => Some(Target::Json {
            path: ".mcp.json",
            table: SERVERS,
        }),
        Runtime::Cursor => Some(Target::Json {
            path: ".cursor/mcp.json",
            table: SERVERS,
        }),
        Runtime::Gemini => Some(Target::Json {
            path: ".gemini/settings.json",
            table: SERVERS,
        }),
        Runtime::Opencode => Some(Target::Json {
            path: "opencode.json",
            table: &["mcp"],
        }),
        Runtime::Codex => Some(Target::CodexToml {
            path: ".codex/config.toml",
        }),
        Runtime::Pi => None,
    }
}

/// OpenCode 2's own form: its servers under `mcp.servers`.
const OPENCODE_V2: &[&str] = &["mcp", "servers"];

/// The table to put the server in, given the file as it is: OpenCode 2 reads both its own
/// `mcp.servers` and OpenCode 1's `mcp.<name>`, so the plain `mcp` is written unless the file
/// already keeps its servers under `mcp.servers` (an object that is not itself a server, which
/// always has a `type`).
pub fn table_for(table: &'static [&'static str], doc: &Value) -> &'static [&'static str] {
    let v2 = doc
        .pointer("/mcp/servers")
        .and_then(Value::as_object)
        .is_some_and(|o| !o.contains_key("type"));
    if table == ["mcp"] && v2 {
        OPENCODE_V2
    } else {
        table
    }
}

/// The command line that starts the server: the tool's words, then `mcp`.
fn argv() -> Vec<String> {
    let mut argv: Vec<String> = names::TOOL.split(' ').map(str::to_string).collect();
    argv.push("mcp".into());
    argv
}

/// The server entry as `r` expects it.
pub fn entry(r: Runtime) -> Value {
    let argv = argv();
    if r == Runtime::Opencode {
        return serde_json::json!({ "type": "local", "command": argv, "enabled": true });
    }
    serde_json::json!({ "command": argv[0], "args": argv[1..] })
}

/// The permission rule that lets Claude Code run the read-only tool without asking.
pub fn claude_allow_rule() -> String {
    format!("mcp__{}__{}", names::MCP_SERVER, names::MCP_READ_ONLY_TOOL)
}

/// What taking an entry out found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    Removed,
    Absent,
    /// An entry of berth's name is there, but not as berth wrote it: it was left.
    Changed,
}

/// Adds the server under `table`. Returns whether `doc` changed; refuses a different entry of
/// the same name unless `force`, which replaces it.
pub fn add_server(
    doc: &mut Value,
    table: &[&str],
    entry: &Value,
    force: bool,
) -> Result<bool, String> {
    let mut at = doc;
    let mut where_ = String::new();
    for key in table {
        where_ = if where_.is_empty() {
            (*key).to_string()
        } else {
            format!("{where_}.{key}")
        };
        let Some(obj) = at.as_object_mut() else {
            return Err(format!("its `{where_}` is not an object"));
        };
        at = obj
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    let Some(servers) = at.as_object_mut() else {
        return Err(format!("its `{where_}` is not an object"));
    };
    match servers.get(names::MCP_SERVER) {
        Some(v) if v == entry => Ok(false),
        Some(_) if !force => Err(format!(
            "a different `{}` server is already under `{where_}`",
            names::MCP_SERVER
        )),
        _ => {
            servers.insert(names::MCP_SERVER.into(), entry.clone());
            Ok(true)
        }
    }
}

/// Takes the server out of `table` when it is as berth wrote it (or in any form, with `force`),
/// then the objects on the way that are left empty.
pub fn remove_server(doc: &mut Value, table: &[&str], entry: &Value, force: bool) -> Taken {
    let Some((last, path)) = table.split_last() else {
        return Taken::Absent;
    };
    let mut at = &mut *doc;
    for key in path {
        match at.get_mut(*key) {
            Some(v) => at = v,
            None => return Taken::Absent,
        }
    }
    let Some(servers) = at.get_mut(*last).and_then(Value::as_object_mut) else {
        return Taken::Absent;
    };
    match servers.get(names::MCP_SERVER) {
        None => return Taken::Absent,
        Some(v) if v != entry && !force => return Taken::Changed,
        Some(_) => {}
    }
    servers.shift_remove(names::MCP_SERVER);
    prune(doc, table);
    Taken::Removed
}

/// Adds `rule` to `permissions.allow`. Returns whether `doc` changed.
pub fn add_allow(doc: &mut Value, rule: &str) -> Result<bool, String> {
    let Some(obj) = doc.as_object_mut() else {
        return Err("is not a JSON object".into());
    };
    let perms = obj
        .entry("permissions")
        .or_insert_with(|| Value::Object(Default::default()));
    let Some(perms) = perms.as_object_mut() else {
        return Err("its `permissions` is not an object".into());
    };
    let allow = perms
        .entry("allow")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Some(allow) = allow.as_array_mut() else {
        return Err("its `permissions.allow` is not a list".into());
    };
    if allow.iter().any(|v| v.as_str() == Some(rule)) {
        return Ok(false);
    }
    allow.push(Value::from(rule));
    Ok(true)
}

/// Takes `rule` out of `permissions.allow`, then the list and `permissions` if left empty.
pub fn remove_allow(doc: &mut Value, rule: &str) -> bool {
    let Some(allow) = doc
        .pointer_mut("/permissions/allow")
        .and_then(Value::as_array_mut)
    else {
        return false;
    };
    let before = allow.len();
    allow.retain(|v| v.as_str() != Some(rule));
    if allow.len() == before {
        return false;
    }
    prune(doc, &["permissions", "allow"]);
    true
}

/// Drops the value at the end of `keys` when it is an empty object or list, then each object
/// above it left empty.
fn prune(doc: &mut Value, keys: &[&str]) {
    for depth in (1..=keys.len()).rev() {
        let (last, path) = keys[..depth].split_last().unwrap_or((&"", &[]));
        let mut at = &mut *doc;
        for key in path {
            match at.get_mut(*key) {
                Some(v) => at = v,
                None => return,
            }
        }
        let Some(obj) = at.as_object_mut() else {
            return;
        };
        let empty = match obj.get(*last) {
            Some(Value::Object(o)) => o.is_empty(),
            Some(Value::Array(a)) => a.is_empty(),
            _ => false,
        };
        if !empty {
            return;
        }
        obj.shift_remove(*last);
    }
}

/// The table berth appends to Codex's config. JSON strings and lists of plain words are valid
/// TOML too.
pub fn codex_block() -> String {
    let argv = argv();
    format!(
        "{}\ncommand = {}\nargs = {}\n",
        codex_header(),
        Value::from(argv[0].clone()),
        Value::from(argv[1..].to_vec())
    )
}

fn codex_header() -> String {
    format!("[mcp_servers.{}]", names::MCP_SERVER)
}

/// Codex's config with berth's table appended: `Ok(None)` when it is already there, refused
/// when a table of berth's name is there in another form.
pub fn add_codex(text: &str) -> Result<Option<String>, String> {
    let block = codex_block();
    if text.contains(&block) {
        return Ok(None);
    }
    let header = codex_header();
    let quoted = format!("[mcp_servers.\"{}\"]", names::MCP_SERVER);
    if text
        .lines()
        .any(|l| l.trim() == header || l.trim() == quoted)
    {
        return Err(format!(
            "a different `{header}` table is already there; remove it by hand"
        ));
    }
    let mut out = text.to_string();
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(&block);
    Ok(Some(out))
}

/// Codex's config with berth's table taken out (with the blank line init put before it); the
/// new text, or what was found instead.
pub fn remove_codex(text: &str) -> Result<String, Taken> {
    let block = codex_block();
    let Some(at) = text.find(&block) else {
        let header = codex_header();
        return Err(if text.lines().any(|l| l.trim() == header) {
            Taken::Changed
        } else {
            Taken::Absent
        });
    };
    let mut start = at;
    if text[..at].ends_with("\n\n") {
        start -= 1;
    }
    Ok(format!("{}{}", &text[..start], &text[at + block.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runtime_but_pi_has_a_target() {
        for r in Runtime::ALL {
            assert_eq!(target(r).is_none(), r == Runtime::Pi, "{}", r.name());
        }
    }

    #[test]
    fn the_entries_start_git_berth_mcp() {
        assert_eq!(
            entry(Runtime::Claude),
            serde_json::json!({"command": "git", "args": ["berth", "mcp"]})
        );
        assert_eq!(
            entry(Runtime::Opencode),
            serde_json::json!({"type": "local", "command": ["git", "berth", "mcp"], "enabled": true})
        );
        assert_eq!(
            codex_block(),
            "[mcp_servers.git-berth]\ncommand = \"git\"\nargs = [\"berth\",\"mcp\"]\n"
        );
        assert_eq!(claude_allow_rule(), "mcp__git-berth__worktree_list");
    }

    #[test]
    fn a_server_added_then_removed_leaves_the_document_as_it_was() {
        let original = serde_json::json!({"mcpServers": {"theirs": {"command": "x"}}, "k": 1});
        let mut doc = original.clone();
        let e = entry(Runtime::Cursor);
        assert_eq!(add_server(&mut doc, &["mcpServers"], &e, false), Ok(true));
        assert_eq!(add_server(&mut doc, &["mcpServers"], &e, false), Ok(false));
        assert_eq!(
            remove_server(&mut doc, &["mcpServers"], &e, false),
            Taken::Removed
        );
        assert_eq!(doc, original);
        let mut empty = serde_json::json!({});
        add_server(&mut empty, &["mcpServers"], &e, false).expect("add");
        remove_server(&mut empty, &["mcpServers"], &e, false);
        assert_eq!(empty, serde_json::json!({}));
    }

    #[test]
    fn a_changed_server_is_refused_without_force_and_kept_by_remove() {
        let mut doc = serde_json::json!({"mcpServers": {"git-berth": {"command": "other"}}});
        let e = entry(Runtime::Gemini);
        assert!(add_server(&mut doc.clone(), &["mcpServers"], &e, false).is_err());
        assert_eq!(
            remove_server(&mut doc, &["mcpServers"], &e, false),
            Taken::Changed
        );
        assert_eq!(
            remove_server(&mut doc.clone(), &["mcpServers"], &e, true),
            Taken::Removed
        );
        assert_eq!(add_server(&mut doc, &["mcpServers"], &e, true), Ok(true));
    }

    #[test]
    fn the_allow_rule_goes_in_and_out_beside_the_users_own() {
        let original = serde_json::json!({"permissions": {"allow": ["Bash(ls)"]}});
        let mut doc = original.clone();
        assert_eq!(add_allow(&mut doc, &claude_allow_rule()), Ok(true));
        assert_eq!(add_allow(&mut doc, &claude_allow_rule()), Ok(false));
        assert!(remove_allow(&mut doc, &claude_allow_rule()));
        assert_eq!(doc, original);
        let mut bare = serde_json::json!({});
        add_allow(&mut bare, &claude_allow_rule()).expect("add");
        remove_allow(&mut bare, &claude_allow_rule());
        assert_eq!(bare, serde_json::json!({}));
    }

    #[test]
    fn opencode_follows_a_file_already_in_opencode_2s_form() {
        let v1 = serde_json::json!({"mcp": {"docs": {"type": "local", "command": ["d"]}}});
        assert_eq!(table_for(&["mcp"], &v1), ["mcp"]);
        let v2 =
            serde_json::json!({"mcp": {"servers": {"docs": {"type": "local", "command": ["d"]}}}});
        assert_eq!(table_for(&["mcp"], &v2), ["mcp", "servers"]);
        let named = serde_json::json!({"mcp": {"servers": {"type": "local", "command": ["d"]}}});
        assert_eq!(table_for(&["mcp"], &named), ["mcp"]);
        assert_eq!(table_for(&["mcpServers"], &v2), ["mcpServers"]);
    }

    #[test]
    fn codex_table_is_appended_once_and_taken_out_exactly() {
        let theirs = "model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs\"\n";
        let added = add_codex(theirs).expect("add").expect("changed");
        assert!(added.starts_with(theirs));
        assert_eq!(add_codex(&added), Ok(None));
        assert_eq!(remove_codex(&added).as_deref(), Ok(theirs));
        let fresh = add_codex("").expect("add").expect("changed");
        assert_eq!(remove_codex(&fresh).as_deref(), Ok(""));
        assert_eq!(remove_codex(theirs), Err(Taken::Absent));
        let other = "[mcp_servers.git-berth]\ncommand = \"mine\"\n";
        assert!(add_codex(other).is_err());
        assert_eq!(remove_codex(other), Err(Taken::Changed));
    }
}
