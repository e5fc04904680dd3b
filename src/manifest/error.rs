//! The one error a manifest gives: where (file, line, column), which field (its path from the top,
//! `agents[1].retry`), and what is wrong. The caller adds the `git berth: ` prefix; nothing here
//! prints.

use std::fmt;
use std::sync::Arc;

use crate::error::{Kind, Refusal};

/// A line and column in a manifest, both counted from 1; the column counts characters, not bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl Pos {
    /// The start of a document: where an error about the whole file points.
    pub const START: Pos = Pos { line: 1, col: 1 };
}

/// A position in a named file: where a value was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Place {
    /// The file as the caller named it (what the person typed, or a profile's full path).
    pub file: Arc<str>,
    pub pos: Pos,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.pos.line, self.pos.col)
    }
}

/// A value with the place it was written, so a later error can point at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<T> {
    pub value: T,
    pub at: Place,
}

/// What is wrong with a manifest or a profile, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestError {
    /// The file, when the error is about one; a `--var` from the command line has none.
    pub file: Option<Arc<str>>,
    /// Where in the file; none when the file as a whole is at fault (its name, say).
    pub pos: Option<Pos>,
    /// The field's path from the top (`agents[1].retry`); empty when the error is about no field.
    pub path: String,
    pub message: String,
}

impl ManifestError {
    /// An error about the value written at `at`, in the field `path`.
    pub fn at(at: &Place, path: &str, message: impl Into<String>) -> ManifestError {
        ManifestError {
            file: Some(at.file.clone()),
            pos: Some(at.pos),
            path: path.to_owned(),
            message: message.into(),
        }
    }

    /// An error about a file as a whole.
    pub fn file(file: &Arc<str>, message: impl Into<String>) -> ManifestError {
        ManifestError {
            file: Some(file.clone()),
            pos: None,
            path: String::new(),
            message: message.into(),
        }
    }

    /// An error about something given on the command line (`path` is then `--var key`).
    pub fn cli(path: &str, message: impl Into<String>) -> ManifestError {
        ManifestError {
            file: None,
            pos: None,
            path: path.to_owned(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            f.write_str(file)?;
            if let Some(pos) = self.pos {
                write!(f, ":{}:{}", pos.line, pos.col)?;
            }
            f.write_str(": ")?;
        }
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ManifestError {}

impl From<ManifestError> for Refusal {
    /// A manifest that does not hold is a file berth reads that is wrong: a configuration error.
    fn from(err: ManifestError) -> Refusal {
        Refusal::new(err.to_string()).kind(Kind::Configuration)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_reads_file_line_column_path_then_message() {
        let at = Place {
            file: Arc::from("fleet.yaml"),
            pos: Pos { line: 12, col: 5 },
        };
        let err = ManifestError::at(&at, "agents[1].retry", "refused");
        assert_eq!(err.to_string(), "fleet.yaml:12:5: agents[1].retry: refused");
    }

    #[test]
    fn parts_that_are_not_known_are_left_out() {
        let file = ManifestError::file(&Arc::from("fleet.json"), "not a manifest");
        assert_eq!(file.to_string(), "fleet.json: not a manifest");
        let cli = ManifestError::cli("--var model", "reserved");
        assert_eq!(cli.to_string(), "--var model: reserved");
    }
}
