//! Prompt templates for a fleet's `template` field: berth's own, built into the binary from
//! `share/prompts/templates/<name>.md`, and a person's in
//! `${XDG_CONFIG_HOME:-~/.config}/git-berth/templates/<name>.md`, which wins over berth's of the
//! same name. A template's `${key}`s are filled by the fleet's plan from `template_vars` and the
//! manifest's vars.

use std::path::{Path, PathBuf};

use crate::names;

/// The folder under the config home a person's templates live in.
const TEMPLATES_DIR: &str = "templates";

/// Berth's own templates: name and text.
const BUILT_IN: &[(&str, &str)] = &[
    (
        "fix-tests",
        include_str!("../../share/prompts/templates/fix-tests.md"),
    ),
    (
        "review",
        include_str!("../../share/prompts/templates/review.md"),
    ),
];

/// A template as found: its text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub text: String,
    /// Its file, or `built-in share/prompts/templates/<name>.md`.
    pub from: String,
}

/// Where berth's own template `name` is, as said in `--dry-run` and errors.
fn built_in_place(name: &str) -> String {
    format!("built-in share/prompts/templates/{name}.md")
}

/// The template `name`: the person's file under `config_home` when `read` finds it, else berth's
/// own. When neither has it, the places looked at; when the person's file cannot be read, why.
pub fn find(
    name: &str,
    config_home: Option<&Path>,
    read: &dyn Fn(&Path) -> Result<Option<String>, String>,
) -> Result<Template, String> {
    if crate::slug::slug(name).ok().as_deref() != Some(name) {
        return Err(format!(
            "'{name}' is not a template name: letters, digits, '.', '_' and '-' only"
        ));
    }
    let mut looked: Vec<String> = Vec::new();
    if let Some(home) = config_home {
        let path: PathBuf = home
            .join(names::DATA_DIR)
            .join(TEMPLATES_DIR)
            .join(format!("{name}.md"));
        match read(&path) {
            Ok(Some(text)) => {
                return Ok(Template {
                    text,
                    from: path.display().to_string(),
                });
            }
            Ok(None) => looked.push(path.display().to_string()),
            Err(why) => return Err(format!("cannot read {}: {why}", path.display())),
        }
    }
    if let Some((_, text)) = BUILT_IN.iter().find(|(n, _)| *n == name) {
        return Ok(Template {
            text: (*text).to_owned(),
            from: built_in_place(name),
        });
    }
    looked.push(built_in_place(name));
    Err(format!(
        "no template '{name}': looked at {}",
        looked.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_persons_template_wins_over_berths_and_a_missing_one_names_the_places_looked_at() {
        let none = |_: &Path| Ok(None);
        let review = find("review", Some(Path::new("/c")), &none).unwrap();
        assert!(review.text.contains("${focus}"), "{}", review.text);
        assert_eq!(review.from, "built-in share/prompts/templates/review.md");
        let mine = |p: &Path| Ok(Some(format!("mine at {}", p.display())));
        let review = find("review", Some(Path::new("/c")), &mine).unwrap();
        assert_eq!(review.text, "mine at /c/git-berth/templates/review.md");
        assert_eq!(
            find("nosuch", Some(Path::new("/c")), &none).unwrap_err(),
            "no template 'nosuch': looked at /c/git-berth/templates/nosuch.md, built-in \
             share/prompts/templates/nosuch.md"
        );
        assert!(
            find("../x", None, &none)
                .unwrap_err()
                .contains("not a template name")
        );
    }
}
