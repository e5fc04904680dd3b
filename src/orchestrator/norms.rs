//! The worktree norms every spawned agent gets as standing instructions: one template,
//! `share/prompts/worktree-norms.md`, built into the binary, with `{name}`, `{branch}`, `{path}`
//! and `{layer}` filled in; a fleet's agent that runs outside any checkout gets
//! `share/prompts/outside-norms.md` instead. Pure.

use std::path::Path;

const TEMPLATE: &str = include_str!("../../share/prompts/worktree-norms.md");
const OUTSIDE: &str = include_str!("../../share/prompts/outside-norms.md");

/// The norms for an agent of `layer` in the worktree `name` at `path` on `branch`. Each
/// placeholder is filled once, left to right: a value that holds `{path}` is not filled again.
pub fn render(name: &str, branch: &str, path: &Path, layer: u8) -> String {
    fill(TEMPLATE, name, branch, path, layer)
}

/// The norms for an agent of `layer` that works in the folder `path`, outside any checkout.
pub fn render_outside(path: &Path, layer: u8) -> String {
    fill(OUTSIDE, "", "", path, layer)
}

fn fill(template: &str, name: &str, branch: &str, path: &Path, layer: u8) -> String {
    let path = path.display().to_string();
    let layer = layer.to_string();
    let values = [
        ("{name}", name),
        ("{branch}", branch),
        ("{path}", path.as_str()),
        ("{layer}", layer.as_str()),
    ];
    crate::template::fill(template, &values)
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
    fn an_agent_outside_any_checkout_is_told_its_folder_and_no_branch() {
        let text = render_outside(Path::new("/r/.git/berth/fleets/f/shared"), 1);
        assert!(text.contains("`/r/.git/berth/fleets/f/shared`"), "{text}");
        assert!(!text.contains('{'), "{text}");
    }

    #[test]
    fn a_value_that_looks_like_a_placeholder_is_not_filled_again() {
        let text = render("{path}", "b", Path::new("/w/x"), 2);
        assert!(text.contains("`{path}`"), "{text}");
    }
}
