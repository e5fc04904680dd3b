//! The one tree both syntaxes are read into: maps, lists and scalars, each with the line and
//! column it was written at. The schema walks this tree by hand, so every message and field path
//! is berth's own, whichever syntax the manifest is in. Pure: text in, tree out.

use super::error::Pos;

/// A value and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub pos: Pos,
    pub value: Value,
}

/// A key of a map, where the key was written, and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_pos: Pos,
    pub value: Node,
}

/// What a node holds. Maps keep their entries in the order they were written.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// YAML's `null`, `~` or an empty value; TOML has none.
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// A TOML date or time, kept as written: no field takes one.
    Datetime(String),
    List(Vec<Node>),
    Map(Vec<Entry>),
}

impl Value {
    /// The value as an error names what was found instead of what a field takes:
    /// `the string 'yes'`, `the integer 3`, `a list`.
    pub fn describe(&self) -> String {
        match self {
            Value::Null => "nothing (null)".to_owned(),
            Value::Bool(b) => format!("the bool {b}"),
            Value::Int(i) => format!("the integer {i}"),
            Value::Float(x) => format!("the number {x}"),
            Value::Str(s) => format!("the string '{}'", shorten(s)),
            Value::Datetime(d) => format!("the date {d}"),
            Value::List(_) => "a list".to_owned(),
            Value::Map(_) => "a map".to_owned(),
        }
    }
}

/// A string as an error quotes it: control characters escaped, and cut after 40 characters.
pub fn shorten(s: &str) -> String {
    const MAX: usize = 40;
    let mut out = printable(&s.chars().take(MAX).collect::<String>());
    if s.chars().count() > MAX {
        out.push_str("...");
    }
    out
}

/// Text as an error line shows it: control characters (a line break, an escape sequence)
/// written as escapes, everything else as it is.
pub fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Byte offsets of a text turned into lines and columns (columns in characters).
pub struct LineIndex<'a> {
    text: &'a str,
    /// The byte offset each line starts at.
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { text, starts }
    }

    /// The line and column of byte `offset` (an offset past the end is the end).
    pub fn pos(&self, offset: usize) -> Pos {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let col = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        Pos {
            line: to_u32(line),
            col: to_u32(col + 1),
        }
    }
}

/// A count as a position holds it; no manifest has four billion lines.
pub fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_offsets_become_lines_and_character_columns() {
        let index = LineIndex::new("ab\ncé d\n\nx");
        assert_eq!(index.pos(0), Pos { line: 1, col: 1 });
        assert_eq!(index.pos(2), Pos { line: 1, col: 3 });
        assert_eq!(index.pos(3), Pos { line: 2, col: 1 });
        // `é` is two bytes but one column.
        assert_eq!(index.pos(7), Pos { line: 2, col: 4 });
        assert_eq!(index.pos(9), Pos { line: 3, col: 1 });
        assert_eq!(index.pos(10), Pos { line: 4, col: 1 });
        assert_eq!(index.pos(99), Pos { line: 4, col: 2 });
    }

    #[test]
    fn found_values_are_described_in_words() {
        assert_eq!(Value::Str("yes".into()).describe(), "the string 'yes'");
        assert_eq!(Value::Int(3).describe(), "the integer 3");
        assert_eq!(Value::List(vec![]).describe(), "a list");
        assert_eq!(Value::Null.describe(), "nothing (null)");
        assert_eq!(
            Value::Str("a\n".repeat(30)).describe(),
            format!("the string '{}...'", "a\\n".repeat(20))
        );
    }
}
