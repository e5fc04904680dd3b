//! JSON settings files init shares with the user and other tools: parse them, merge berth's
//! entries in, take exactly those out again. Pure; it never drops a key or hook that is not berth's.

use serde_json::Value;

use crate::error::{Kind, Refusal};

pub(crate) fn parse_object(path: &str, bytes: Option<&[u8]>) -> Result<Value, Refusal> {
    let Some(bytes) = bytes else {
        return Ok(Value::Object(Default::default()));
    };
    let misread = |what: String| Refusal::new(what).kind(Kind::Configuration);
    let doc: Value = serde_json::from_slice(bytes)
        .map_err(|e| misread(format!("{path} does not parse ({e}); it was left as it is")))?;
    if !doc.is_object() {
        return Err(misread(format!(
            "{path} is not a JSON object; it was left as it is"
        )));
    }
    Ok(doc)
}

pub(crate) fn to_bytes(doc: &Value) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(doc).unwrap_or_default();
    s.push('\n');
    s.into_bytes()
}

/// True when `v` runs one of berth's commands anywhere inside it.
pub(crate) fn is_ours(v: &Value, ours: &[String]) -> bool {
    match v {
        Value::Object(map) => map.iter().any(|(k, v)| match v {
            Value::String(s) if matches!(k.as_str(), "command" | "bash" | "powershell") => {
                ours.contains(s)
            }
            other => is_ours(other, ours),
        }),
        Value::Array(items) => items.iter().any(|i| is_ours(i, ours)),
        _ => false,
    }
}

/// Adds the fragment's top-level keys that are missing, and its entries under `hooks.<event>`
/// that are not there yet. A berth entry that differs is replaced when it is one of `earlier`
/// (as an earlier version wrote it) or with `force`, and refused otherwise.
pub(crate) fn merge_into(
    doc: &mut Value,
    fragment: &Value,
    earlier: &[(String, Value)],
    force: bool,
) -> Result<(), String> {
    let (Some(doc), Some(frag)) = (doc.as_object_mut(), fragment.as_object()) else {
        return Err("is not a JSON object".into());
    };
    for (key, value) in frag {
        if key != "hooks" {
            doc.entry(key.clone()).or_insert_with(|| value.clone());
            continue;
        }
        let hooks = doc
            .entry("hooks")
            .or_insert_with(|| Value::Object(Default::default()));
        let Some(hooks) = hooks.as_object_mut() else {
            return Err("its `hooks` is not an object".into());
        };
        let Some(events) = value.as_object() else {
            continue;
        };
        for (event, entries) in events {
            let list = hooks
                .entry(event.clone())
                .or_insert_with(|| Value::Array(Vec::new()));
            let Some(list) = list.as_array_mut() else {
                return Err(format!("its `hooks.{event}` is not a list"));
            };
            for entry in entries.as_array().into_iter().flatten() {
                if list.contains(entry) {
                    continue;
                }
                // Only an entry running this very command stands in the way; another
                // runtime's berth entry in a shared file is left alone.
                let commands = commands_in(entry);
                let same = list.iter().position(|e| is_ours(e, &commands));
                let upgrade = |old: &Value| earlier.iter().any(|(e, v)| e == event && v == old);
                match same {
                    Some(i) if upgrade(&list[i]) => list[i] = entry.clone(),
                    Some(_) if !force => {
                        return Err(format!(
                            "a different `{}` entry is already under `hooks.{event}`",
                            commands.join(", ")
                        ));
                    }
                    Some(i) => list[i] = entry.clone(),
                    None => list.push(entry.clone()),
                }
            }
        }
    }
    Ok(())
}

fn commands_in(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    match v {
                        Value::String(s)
                            if matches!(k.as_str(), "command" | "bash" | "powershell") =>
                        {
                            if !out.contains(s) {
                                out.push(s.clone());
                            }
                        }
                        other => walk(other, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    walk(v, &mut out);
    out
}

/// Takes berth's handlers out of `hooks.<event>`; a group left with no handler goes, then an
/// event left empty, then `hooks` itself. Returns whether anything was removed.
pub(crate) fn remove_ours(doc: &mut Value, ours: &[String]) -> bool {
    let Some(hooks) = doc.get_mut("hooks").and_then(Value::as_object_mut) else {
        return false;
    };
    let mut removed = false;
    let mut emptied = Vec::new();
    for (event, list) in hooks.iter_mut() {
        let Some(list) = list.as_array_mut() else {
            continue;
        };
        let before = list.len();
        list.retain_mut(|entry| {
            if let Some(handlers) = entry.get_mut("hooks").and_then(Value::as_array_mut) {
                let n = handlers.len();
                handlers.retain(|h| !is_ours(h, ours));
                if handlers.len() != n {
                    removed = true;
                    return !handlers.is_empty();
                }
                return true;
            }
            !is_ours(entry, ours)
        });
        if list.len() != before {
            removed = true;
            if list.is_empty() {
                emptied.push(event.clone());
            }
        }
    }
    for event in emptied {
        hooks.shift_remove(&event);
    }
    if removed && hooks.is_empty() {
        doc.as_object_mut().map(|o| o.shift_remove("hooks"));
    }
    removed
}
