//! Which syntax a manifest or profile is in, told by its file's extension, and its text read
//! into the one tree both syntaxes share. Pure.

use std::path::Path;
use std::sync::Arc;

use super::error::ManifestError;
use super::{from_toml, from_yaml, tree};

/// The two syntaxes of a manifest or profile, told apart by the file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Toml,
    Yaml,
}

impl Syntax {
    /// The syntax a file's extension says, or `None` when it says neither.
    pub fn of(file: &str) -> Option<Syntax> {
        match Path::new(file).extension()?.to_str()? {
            "toml" => Some(Syntax::Toml),
            "yaml" | "yml" => Some(Syntax::Yaml),
            _ => None,
        }
    }
}

/// The tree of `text`, in the syntax `file`'s extension says.
pub fn read_tree(file: &Arc<str>, text: &str) -> Result<tree::Node, ManifestError> {
    match Syntax::of(file) {
        Some(Syntax::Toml) => from_toml::read(file, text),
        Some(Syntax::Yaml) => from_yaml::read(file, text),
        None => Err(ManifestError::file(
            file,
            "a manifest is TOML (.toml) or YAML (.yaml, .yml); name the file so",
        )),
    }
}
