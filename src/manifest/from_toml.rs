//! TOML text into the position-carrying tree, through the `toml` crate's spanned parse values
//! (byte offsets, turned into lines and columns here). Pure: no file is read.

use std::sync::Arc;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::error::{ManifestError, Pos};
use super::tree::{Entry, LineIndex, Node, Value};

/// The tree of a TOML document, or the parser's error at its line and column.
pub fn read(file: &Arc<str>, text: &str) -> Result<Node, ManifestError> {
    let index = LineIndex::new(text);
    let table = DeTable::parse(text).map_err(|err| {
        let pos = err.span().map_or(Pos::START, |span| index.pos(span.start));
        let message = err.message().lines().next().unwrap_or("").trim();
        ManifestError {
            file: Some(file.clone()),
            pos: Some(pos),
            path: String::new(),
            message: format!("not valid TOML: {message}"),
        }
    })?;
    let pos = index.pos(table.span().start);
    Ok(Node {
        pos,
        value: map(&index, table.into_inner()),
    })
}

fn node(index: &LineIndex<'_>, value: Spanned<DeValue<'_>>) -> Node {
    let pos = index.pos(value.span().start);
    let value = match value.into_inner() {
        DeValue::String(s) => Value::Str(s.into_owned()),
        DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
            Ok(n) => Value::Int(n),
            // The parser only lets through what fits TOML's 64-bit integers; keep any other
            // spelling as a number so that a field taking an integer still says what it found.
            Err(_) => Value::Float(i.as_str().parse().unwrap_or(f64::NAN)),
        },
        DeValue::Float(x) => Value::Float(x.as_str().parse().unwrap_or(f64::NAN)),
        DeValue::Boolean(b) => Value::Bool(b),
        DeValue::Datetime(d) => Value::Datetime(d.to_string()),
        DeValue::Array(items) => {
            Value::List(items.into_iter().map(|item| node(index, item)).collect())
        }
        DeValue::Table(table) => map(index, table),
    };
    Node { pos, value }
}

/// A table's entries in the order they were written (the parser keeps them sorted by key).
fn map(index: &LineIndex<'_>, table: DeTable<'_>) -> Value {
    let mut entries: Vec<(usize, Entry)> = table
        .into_iter()
        .map(|(key, value)| {
            let start = key.span().start;
            let entry = Entry {
                key_pos: index.pos(start),
                key: key.into_inner().into_owned(),
                value: node(index, value),
            };
            (start, entry)
        })
        .collect();
    entries.sort_by_key(|(start, _)| *start);
    Value::Map(entries.into_iter().map(|(_, entry)| entry).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> Arc<str> {
        Arc::from("fleet.toml")
    }

    #[test]
    fn keys_keep_the_order_and_place_they_were_written_in() {
        let tree = read(
            &file(),
            "name = \"x\"\n[defaults]\ntype = \"claude\"\nssh = true\n",
        )
        .expect("parses");
        let Value::Map(top) = tree.value else {
            panic!("a map")
        };
        assert_eq!(top[0].key, "name");
        assert_eq!(top[1].key, "defaults");
        assert_eq!(top[1].key_pos, Pos { line: 2, col: 2 });
        let Value::Map(defaults) = &top[1].value.value else {
            panic!("a map")
        };
        let keys: Vec<&str> = defaults.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["type", "ssh"]);
        assert_eq!(defaults[1].value.pos, Pos { line: 4, col: 7 });
        assert_eq!(defaults[1].value.value, Value::Bool(true));
    }

    #[test]
    fn every_scalar_kind_is_read() {
        let tree = read(
            &file(),
            "a = 0x10\nb = 1.5\nc = 1979-05-27\nd = [1, 'two']\n",
        )
        .expect("parses");
        let Value::Map(top) = tree.value else {
            panic!("a map")
        };
        assert_eq!(top[0].value.value, Value::Int(16));
        assert_eq!(top[1].value.value, Value::Float(1.5));
        assert_eq!(top[2].value.value, Value::Datetime("1979-05-27".into()));
        let Value::List(items) = &top[3].value.value else {
            panic!("a list")
        };
        assert_eq!(items[1].value, Value::Str("two".into()));
        assert_eq!(items[1].pos, Pos { line: 4, col: 9 });
    }

    #[test]
    fn a_syntax_error_names_its_line_and_column() {
        let err = read(&file(), "name = \"x\"\nagents = [1,\nb = 2\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "fleet.toml:3:3: not valid TOML: unexpected `=` in array, expected value, `]`"
        );
    }
}
