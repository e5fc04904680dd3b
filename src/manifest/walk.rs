//! Typed reads out of the tree of one file: a string, a bool, a list of strings, a map, each
//! refused with the file, line, column, field path and the type wanted when the tree holds
//! something else. Unknown keys are named with the nearest known one. Pure.

use std::sync::Arc;

use super::error::{Located, ManifestError, Place, Pos};
use super::tree::{Entry, Node, Value};

/// Reads typed values out of one file's tree; every error names the file.
pub struct Walk {
    pub file: Arc<str>,
}

impl Walk {
    pub fn place(&self, pos: Pos) -> Place {
        Place {
            file: self.file.clone(),
            pos,
        }
    }

    pub fn error(&self, pos: Pos, path: &str, message: impl Into<String>) -> ManifestError {
        ManifestError::at(&self.place(pos), path, message)
    }

    /// `expected <wanted>, found <what the node holds>`, at the node.
    pub fn mismatch(&self, node: &Node, path: &str, wanted: &str) -> ManifestError {
        let found = node.value.describe();
        self.error(node.pos, path, format!("expected {wanted}, found {found}"))
    }

    pub fn string(&self, node: &Node, path: &str) -> Result<Located<String>, ManifestError> {
        match &node.value {
            Value::Str(s) => Ok(self.located(node, s.clone())),
            _ => Err(self.mismatch(node, path, "a string")),
        }
    }

    /// A string that may not be empty (a name, a path, a ref).
    pub fn text(&self, node: &Node, path: &str) -> Result<Located<String>, ManifestError> {
        let s = self.string(node, path)?;
        if s.value.trim().is_empty() {
            return Err(self.error(node.pos, path, "may not be empty"));
        }
        Ok(s)
    }

    /// A string, or a number taken as the text it was written as (`3`, `2.5`): vars and input
    /// defaults are text, and `count: 3` means the text `3`.
    pub fn scalar_text(&self, node: &Node, path: &str) -> Result<Located<String>, ManifestError> {
        match &node.value {
            Value::Str(s) => Ok(self.located(node, s.clone())),
            Value::Int(i) => Ok(self.located(node, i.to_string())),
            Value::Float(x) => Ok(self.located(node, x.to_string())),
            _ => Err(self.mismatch(node, path, "a string")),
        }
    }

    pub fn boolean(&self, node: &Node, path: &str) -> Result<Located<bool>, ManifestError> {
        match node.value {
            Value::Bool(b) => Ok(self.located(node, b)),
            _ => Err(self.mismatch(node, path, "a bool (true or false)")),
        }
    }

    pub fn list<'n>(&self, node: &'n Node, path: &str) -> Result<&'n [Node], ManifestError> {
        match &node.value {
            Value::List(items) => Ok(items),
            _ => Err(self.mismatch(node, path, "a list")),
        }
    }

    pub fn map<'n>(&self, node: &'n Node, path: &str) -> Result<&'n [Entry], ManifestError> {
        match &node.value {
            Value::Map(entries) => Ok(entries),
            _ => Err(self.mismatch(node, path, "a map of fields")),
        }
    }

    /// A list of non-empty strings, each with its place.
    pub fn strings(
        &self,
        node: &Node,
        path: &str,
    ) -> Result<Located<Vec<Located<String>>>, ManifestError> {
        let items = match &node.value {
            Value::List(items) => items,
            _ => return Err(self.mismatch(node, path, "a list of strings")),
        };
        let items = items
            .iter()
            .enumerate()
            .map(|(i, item)| self.text(item, &index(path, i)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.located(node, items))
    }

    pub fn located<T>(&self, node: &Node, value: T) -> Located<T> {
        Located {
            value,
            at: self.place(node.pos),
        }
    }

    /// An unknown key, named with the nearest of `known` when one is close.
    pub fn unknown(&self, entry: &Entry, path: &str, known: &[&str]) -> ManifestError {
        let message = match nearest(&entry.key, known.iter().copied()) {
            Some(near) => format!("unknown field; did you mean '{near}'?"),
            None => format!("unknown field; the fields here are {}", known.join(", ")),
        };
        self.error(entry.key_pos, path, message)
    }
}

/// `parent.key`, or `key` at the top.
pub fn child(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// `parent[i]`.
pub fn index(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

/// The candidate closest to `word` when it is close enough to be a slip of the keyboard: at most
/// a third of the word's letters changed (and at least one allowed).
pub fn nearest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == *cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_of_the_keyboard_finds_the_field_meant() {
        let known = ["prompt", "profile", "repo", "repos"];
        assert_eq!(nearest("promt", known.iter().copied()), Some("prompt"));
        assert_eq!(nearest("profil", known.iter().copied()), Some("profile"));
        assert_eq!(nearest("retry", known.iter().copied()), None);
        assert_eq!(nearest("x", known.iter().copied()), None);
    }

    #[test]
    fn edit_distance_counts_insertions_deletions_and_changes() {
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("same", "same"), 0);
    }

    #[test]
    fn field_paths_read_as_written() {
        assert_eq!(child("", "name"), "name");
        assert_eq!(child(&index("agents", 1), "retry"), "agents[1].retry");
    }
}
