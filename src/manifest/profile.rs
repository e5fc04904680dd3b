//! Profiles: saved agent fields, `profile = "<name>"` read from
//! `${XDG_CONFIG_HOME:-~/.config}/git-berth/profiles/<name>.{toml,yaml,yml}`. The paths are
//! computed here and the files read only through the caller's [`Files`], so tests give fakes.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::agent::{self, AgentFields, Role};
use super::error::{Located, ManifestError};
use super::walk::Walk;
use crate::names;

/// The folder under berth's config folder that holds profiles.
pub const PROFILES_DIR: &str = "profiles";

/// The extensions a profile may have, in the order they are looked for.
pub const EXTENSIONS: &[&str] = &["toml", "yaml", "yml"];

/// How the caller reads a file: `Ok(None)` when there is none, `Err` with the reason (as a person
/// reads it) when there is one that cannot be read.
pub trait Files {
    fn read(&self, path: &Path) -> Result<Option<String>, String>;
}

impl<F: Fn(&Path) -> Result<Option<String>, String>> Files for F {
    fn read(&self, path: &Path) -> Result<Option<String>, String> {
        self(path)
    }
}

/// `${XDG_CONFIG_HOME:-~/.config}`: a relative `XDG_CONFIG_HOME` is ignored, as the XDG base
/// directory specification says. `None` when neither is known.
pub fn config_home(xdg_config_home: Option<&OsStr>, home: Option<&Path>) -> Option<PathBuf> {
    xdg_config_home
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.map(|h| h.join(".config")))
}

/// The paths profile `name` may be at, in the order they are looked for.
pub fn profile_paths(config_home: &Path, name: &str) -> Vec<PathBuf> {
    let dir = config_home.join(names::DATA_DIR).join(PROFILES_DIR);
    EXTENSIONS
        .iter()
        .map(|ext| dir.join(format!("{name}.{ext}")))
        .collect()
}

/// A profile as read: its name, its file, and its fields (whose places name that file).
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: String,
    pub file: PathBuf,
    pub fields: AgentFields,
}

/// The profile a `profile` field names (`path` is that field's path, for the error). A profile
/// found at none of its paths, or at more than one, is an error naming the paths.
pub fn load(
    name: &Located<String>,
    path: &str,
    config_home: Option<&Path>,
    files: &dyn Files,
) -> Result<Profile, ManifestError> {
    let missing = |why: String| {
        ManifestError::at(
            &name.at,
            path,
            format!("no profile '{}': {why}", name.value),
        )
    };
    let Some(config_home) = config_home else {
        return Err(missing(
            "cannot find the config folder: neither XDG_CONFIG_HOME nor HOME is set".to_owned(),
        ));
    };
    let candidates = profile_paths(config_home, &name.value);
    let mut found = Vec::new();
    for candidate in &candidates {
        match files.read(candidate) {
            Ok(Some(text)) => found.push((candidate, text)),
            Ok(None) => {}
            Err(why) => {
                return Err(ManifestError::at(
                    &name.at,
                    path,
                    format!("cannot read profile {}: {why}", candidate.display()),
                ));
            }
        }
    }
    match found.as_slice() {
        [] => {
            let looked: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
            Err(missing(format!("looked at {}", looked.join(", "))))
        }
        [(file, text)] => {
            let fields = parse(&Arc::from(file.display().to_string()), text)?;
            Ok(Profile {
                name: name.value.clone(),
                file: file.to_path_buf(),
                fields,
            })
        }
        [(first, _), (second, _), ..] => Err(ManifestError::at(
            &name.at,
            path,
            format!(
                "profile '{}' is both {} and {}; keep one",
                name.value,
                first.display(),
                second.display()
            ),
        )),
    }
}

/// The agent fields of a profile's text; `file` names it (its extension says the syntax).
pub fn parse(file: &Arc<str>, text: &str) -> Result<AgentFields, ManifestError> {
    let tree = super::syntax::read_tree(file, text)?;
    let walk = Walk { file: file.clone() };
    agent::read(&walk, &tree, "", Role::Profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_folder_is_xdg_config_home_or_dot_config() {
        let home = Path::new("/home/ada");
        assert_eq!(
            config_home(Some(OsStr::new("/xdg")), Some(home)),
            Some(PathBuf::from("/xdg"))
        );
        assert_eq!(
            config_home(None, Some(home)),
            Some(PathBuf::from("/home/ada/.config"))
        );
        assert_eq!(
            config_home(Some(OsStr::new("relative")), Some(home)),
            Some(PathBuf::from("/home/ada/.config"))
        );
        assert_eq!(config_home(None, None), None);
    }

    #[test]
    fn a_profile_is_looked_for_as_toml_then_yaml() {
        let paths = profile_paths(Path::new("/c"), "reviewer");
        assert_eq!(
            paths,
            [
                PathBuf::from("/c/git-berth/profiles/reviewer.toml"),
                PathBuf::from("/c/git-berth/profiles/reviewer.yaml"),
                PathBuf::from("/c/git-berth/profiles/reviewer.yml"),
            ]
        );
    }
}
