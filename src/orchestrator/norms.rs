//! The worktree norms every spawned agent gets as standing instructions: one template,
//! `share/prompts/worktree-norms.md`, built into the binary, with `{name}`, `{branch}`, `{path}`
//! and `{layer}` filled in. Pure.

use std::path::Path;

const TEMPLATE: &str = include_str!("../../share/prompts/worktree-norms.md");

/// The norms for an agent of `layer` in the worktree `name` at `path` on `branch`. Each
/// placeholder is filled once, left to right: a value that holds `{path}` is not filled again.
pub fn render(name: &str, branch: &str, path: &Path, layer: u8) -> String {
    let path = path.display().to_string();
    let layer = layer.to_string();
    let values = [
        ("{name}", name),
        ("{branch}", branch),
        ("{path}", path.as_str()),
        ("{layer}", layer.as_str()),
    ];
    let mut out = String::with_capacity(TEMPLATE.len() + 256);
    let mut rest = TEMPLATE;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match values.iter().find(|(key, _)| rest.starts_with(key)) {
            Some((key, value)) => {
                out.push_str(value);
                rest = &rest[key.len()..];
            }
            None => {
                out.push('{');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_norms_name_the_worktree_its_branch_its_path_and_the_layer() {
        let text = render("auth", "berth/auth", Path::new("/w/auth"), 1);
        assert!(text.contains("`auth`"), "{text}");
        assert!(text.contains("`berth/auth`"), "{text}");
        assert!(text.contains("`/w/auth`"), "{text}");
        assert!(text.contains("layer-1"), "{text}");
        for placeholder in ["{name}", "{branch}", "{path}", "{layer}"] {
            assert!(!text.contains(placeholder), "{placeholder} left in {text}");
        }
    }

    #[test]
    fn a_value_that_looks_like_a_placeholder_is_not_filled_again() {
        let text = render("{path}", "b", Path::new("/w/x"), 2);
        assert!(text.contains("`{path}`"), "{text}");
    }
}
