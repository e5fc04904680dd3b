//! Review presets: the pipelines `pr-review` and `pr-fix` run, found by name. Berth's own are
//! built into the binary from `share/pipelines/reviews/<name>.yaml`; a person's
//! `${XDG_CONFIG_HOME:-~/.config}/git-berth/pipelines/reviews/<name>.{toml,yaml}` wins over
//! berth's of the same name. Also where a forge publishes a pull request's head. Pure: reading
//! a person's file is the caller's.

use std::path::{Path, PathBuf};

use crate::names;

/// The preset `pr-review` runs when none is named.
pub const DEFAULT_PRESET: &str = "dual";

/// The preset `pr-fix` runs.
pub const FIX_PRESET: &str = "fix";

/// Berth's own presets: name and text.
const BUILT_IN: &[(&str, &str)] = &[
    (
        "claude",
        include_str!("../../share/pipelines/reviews/claude.yaml"),
    ),
    (
        "codex",
        include_str!("../../share/pipelines/reviews/codex.yaml"),
    ),
    (
        "dual",
        include_str!("../../share/pipelines/reviews/dual.yaml"),
    ),
    (
        "fix",
        include_str!("../../share/pipelines/reviews/fix.yaml"),
    ),
];

/// The extensions a person's preset may have, in the order they are looked for.
const EXTENSIONS: &[&str] = &["toml", "yaml", "yml"];

/// A preset as found: its text and the name it is parsed (and its errors said) under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preset {
    pub text: String,
    /// Its file, or `built-in share/pipelines/reviews/<name>.yaml`.
    pub from: String,
}

/// The folder a person's presets live in, under `config_home`.
pub fn user_dir(config_home: &Path) -> PathBuf {
    config_home
        .join(names::DATA_DIR)
        .join(names::PIPELINES_DIR)
        .join(names::REVIEW_PRESETS_DIR)
}

/// The preset `name`: the person's file under `config_home` when `read` finds one, else
/// berth's own. `listed` gives the names of the person's presets, for the error that says
/// which presets there are when neither has `name`; when the person's file cannot be read, why.
pub fn find(
    name: &str,
    config_home: Option<&Path>,
    read: &dyn Fn(&Path) -> Result<Option<String>, String>,
    listed: &dyn Fn(&Path) -> Vec<String>,
) -> Result<Preset, String> {
    let mut theirs = Vec::new();
    if crate::slug::slug(name).ok().as_deref() == Some(name) {
        if let Some(home) = config_home {
            let dir = user_dir(home);
            for ext in EXTENSIONS {
                let path = dir.join(format!("{name}.{ext}"));
                match read(&path) {
                    Ok(Some(text)) => {
                        return Ok(Preset {
                            text,
                            from: path.display().to_string(),
                        });
                    }
                    Ok(None) => {}
                    Err(why) => return Err(format!("cannot read {}: {why}", path.display())),
                }
            }
            theirs = listed(&dir);
        }
        if let Some((_, text)) = BUILT_IN.iter().find(|(n, _)| *n == name) {
            return Ok(Preset {
                text: (*text).to_owned(),
                from: format!("built-in share/pipelines/reviews/{name}.yaml"),
            });
        }
    }
    let mut all: Vec<String> = BUILT_IN.iter().map(|(n, _)| (*n).to_owned()).collect();
    all.extend(theirs);
    all.sort();
    all.dedup();
    Err(format!(
        "no review preset '{name}': the presets are {}",
        all.join(", ")
    ))
}

/// The names of the presets in `dir` (files ending in one of the preset extensions), from the
/// names of its files.
pub fn preset_names(files: &[String]) -> Vec<String> {
    files
        .iter()
        .filter_map(|f| {
            let (stem, ext) = f.rsplit_once('.')?;
            (EXTENSIONS.contains(&ext) && !stem.is_empty()).then(|| stem.to_owned())
        })
        .collect()
}

/// Where a forge publishes pull request `number`'s head, in the order to try them: GitHub's
/// `refs/pull/<n>/head` and GitLab's `refs/merge-requests/<n>/head`, GitLab's first when the
/// remote's URL names GitLab.
pub fn head_refs(remote_url: &str, number: u64) -> [String; 2] {
    let github = format!("refs/pull/{number}/head");
    let gitlab = format!("refs/merge-requests/{number}/head");
    if remote_url.to_ascii_lowercase().contains("gitlab") {
        [gitlab, github]
    } else {
        [github, gitlab]
    }
}

/// The local ref `pr-review` fetches pull request `number`'s head into.
pub fn local_ref(number: u64) -> String {
    format!("{}{number}", names::PR_HEAD_REFS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_persons_preset_wins_and_an_unknown_one_lists_every_preset() {
        let none = |_: &Path| Ok(None);
        let nothing = |_: &Path| Vec::new();
        let dual = find("dual", Some(Path::new("/c")), &none, &nothing).unwrap();
        assert!(dual.text.contains("name: pr-review-dual"), "{}", dual.text);
        assert_eq!(dual.from, "built-in share/pipelines/reviews/dual.yaml");
        let mine = |p: &Path| {
            Ok(p.extension()
                .is_some_and(|e| e == "yaml")
                .then(|| format!("mine at {}", p.display())))
        };
        let dual = find("dual", Some(Path::new("/c")), &mine, &nothing).unwrap();
        assert_eq!(
            dual.text,
            "mine at /c/git-berth/pipelines/reviews/dual.yaml"
        );
        let listed = |_: &Path| vec!["strict".to_owned()];
        assert_eq!(
            find("nosuch", Some(Path::new("/c")), &none, &listed).unwrap_err(),
            "no review preset 'nosuch': the presets are claude, codex, dual, fix, strict"
        );
        assert!(
            find("../x", None, &none, &nothing)
                .unwrap_err()
                .starts_with("no review preset '../x'")
        );
    }

    #[test]
    fn every_built_in_preset_parses_as_a_pipeline_with_repo_and_pr_inputs() {
        for (name, text) in BUILT_IN {
            let file = format!("{name}.yaml");
            let p = crate::manifest::parse_pipeline(&file, text)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let inputs: Vec<&str> = p.inputs.iter().map(|i| i.name.value.as_str()).collect();
            assert_eq!(inputs, ["repo", "pr"], "{name}");
        }
    }

    #[test]
    fn gitlab_remotes_try_merge_requests_first() {
        assert_eq!(
            head_refs("git@github.com:o/r.git", 7),
            ["refs/pull/7/head", "refs/merge-requests/7/head"]
        );
        assert_eq!(
            head_refs("https://gitlab.example.com/o/r.git", 7)[0],
            "refs/merge-requests/7/head"
        );
        assert_eq!(local_ref(7), "refs/berth/pr/7");
        assert_eq!(
            preset_names(&["a.yaml".into(), "b.toml".into(), "c.md".into()]),
            ["a", "b"]
        );
    }
}
