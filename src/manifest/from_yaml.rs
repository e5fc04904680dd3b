//! YAML text into the position-carrying tree, through `serde-saphyr`'s `Spanned` values (line and
//! character column of each key and value). Booleans are YAML 1.2's (`true`, `false`): `yes`,
//! `no`, `on` and `off` stay strings, so `ssh: no` is refused, never read as a surprise. Pure.

use std::fmt;
use std::sync::Arc;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{MessageFormatter as _, Spanned, UserMessageFormatter};

use super::error::{ManifestError, Pos};
use super::tree::{Entry, Node, Value, printable};

/// The tree of a YAML document, or the parser's error at its line and column.
pub fn read(file: &Arc<str>, text: &str) -> Result<Node, ManifestError> {
    let options = serde_saphyr::options! {
        strict_booleans: true,
        with_snippet: false,
    };
    let spanned: Spanned<Raw> =
        serde_saphyr::from_str_with_options(text, options).map_err(|err| {
            let err = err.without_snippet();
            let pos = err.location().map_or(Pos::START, |at| pos(&at));
            let message = UserMessageFormatter.format_message(err);
            ManifestError {
                file: Some(file.clone()),
                pos: Some(pos),
                path: String::new(),
                message: format!("not valid YAML: {}", printable(&message)),
            }
        })?;
    Ok(node(spanned))
}

fn pos(at: &serde_saphyr::Location) -> Pos {
    // An empty document has no node to point at: its start stands in.
    Pos {
        line: u32::try_from(at.line()).unwrap_or(u32::MAX).max(1),
        col: u32::try_from(at.column()).unwrap_or(u32::MAX).max(1),
    }
}

fn node(spanned: Spanned<Raw>) -> Node {
    let value = match spanned.value {
        Raw::Null => Value::Null,
        Raw::Bool(b) => Value::Bool(b),
        Raw::Int(i) => Value::Int(i),
        Raw::Float(x) => Value::Float(x),
        Raw::Str(s) => Value::Str(s),
        Raw::List(items) => Value::List(items.into_iter().map(node).collect()),
        Raw::Map(entries) => Value::Map(
            entries
                .into_iter()
                .map(|(key, value)| Entry {
                    key_pos: pos(&key.referenced),
                    key: key.value,
                    value: node(value),
                })
                .collect(),
        ),
    };
    Node {
        pos: pos(&spanned.referenced),
        value,
    }
}

/// What `serde-saphyr` hands over, before positions are made plain.
enum Raw {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Spanned<Raw>>),
    Map(Vec<(Spanned<String>, Spanned<Raw>)>),
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Raw, D::Error> {
        deserializer.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_unit<E>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }

    fn visit_none<E>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Raw, D::Error> {
        Raw::deserialize(deserializer)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Raw, E> {
        Ok(Raw::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Raw, E> {
        Ok(Raw::Int(i))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Raw, E> {
        // Past i64 no field takes it as an integer; a number still says what was found.
        Ok(i64::try_from(u).map_or(Raw::Float(u as f64), Raw::Int))
    }

    fn visit_f64<E>(self, x: f64) -> Result<Raw, E> {
        Ok(Raw::Float(x))
    }

    fn visit_str<E>(self, s: &str) -> Result<Raw, E> {
        Ok(Raw::Str(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Raw, E> {
        Ok(Raw::Str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Raw::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            let value = map.next_value()?;
            entries.push((key, value));
        }
        Ok(Raw::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> Arc<str> {
        Arc::from("fleet.yaml")
    }

    fn top(text: &str) -> Vec<Entry> {
        match read(&file(), text).expect("parses").value {
            Value::Map(entries) => entries,
            other => panic!("not a map: {other:?}"),
        }
    }

    #[test]
    fn keys_and_values_keep_their_lines_and_columns() {
        let entries = top("name: x\nagents:\n  - name: a\n    retry: 3\n");
        assert_eq!(entries[1].key, "agents");
        let Value::List(agents) = &entries[1].value.value else {
            panic!("a list")
        };
        assert_eq!(agents[0].pos, Pos { line: 3, col: 5 });
        let Value::Map(agent) = &agents[0].value else {
            panic!("a map")
        };
        assert_eq!(agent[1].key, "retry");
        assert_eq!(agent[1].key_pos, Pos { line: 4, col: 5 });
        assert_eq!(agent[1].value.pos, Pos { line: 4, col: 12 });
        assert_eq!(agent[1].value.value, Value::Int(3));
    }

    #[test]
    fn only_true_and_false_are_booleans() {
        let entries = top("a: true\nb: no\nc: yes\nd: off\n");
        assert_eq!(entries[0].value.value, Value::Bool(true));
        for entry in &entries[1..] {
            assert!(matches!(entry.value.value, Value::Str(_)), "{entry:?}");
        }
    }

    #[test]
    fn quoted_numbers_are_strings_and_empty_values_are_null() {
        let entries = top("a: \"3\"\nb: 3\nc:\nd: ~\ne: 1.5\n");
        assert_eq!(entries[0].value.value, Value::Str("3".into()));
        assert_eq!(entries[1].value.value, Value::Int(3));
        assert_eq!(entries[2].value.value, Value::Null);
        assert_eq!(entries[3].value.value, Value::Null);
        assert_eq!(entries[4].value.value, Value::Float(1.5));
    }

    #[test]
    fn an_alias_reads_as_the_value_it_names() {
        let entries = top("a: &x hello\nb: *x\n");
        assert_eq!(entries[1].value.value, Value::Str("hello".into()));
        assert_eq!(entries[1].value.pos.line, 2);
    }

    #[test]
    fn a_syntax_error_names_its_line_and_column() {
        let err = read(&file(), "a: [1, 2\nb: 3\n").unwrap_err();
        assert_eq!(err.file.as_deref(), Some("fleet.yaml"));
        assert_eq!(err.pos, Some(Pos { line: 2, col: 2 }));
        assert!(err.message.starts_with("not valid YAML: "), "{err}");
    }

    #[test]
    fn a_key_written_twice_is_refused() {
        let err = read(&file(), "name: a\nname: b\n").unwrap_err();
        assert_eq!(err.pos, Some(Pos { line: 2, col: 1 }));
        assert!(err.message.contains("duplicate"), "{err}");
    }

    #[test]
    fn an_empty_document_is_null_at_its_start() {
        let tree = read(&file(), "").expect("parses");
        assert_eq!(tree.value, Value::Null);
        assert_eq!(tree.pos, Pos::START);
    }
}
