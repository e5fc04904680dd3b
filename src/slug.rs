//! Worktree names become one safe path and ref component. Pure: no filesystem, no git.
//! A name that cannot become a safe slug is refused with the slug shown, never repaired silently.

/// Longest slug accepted: far below the 255-byte file name limit, leaving room for suffixes.
const MAX_LEN: usize = 200;

/// Why a name cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlugError {
    pub name: String,
    pub slug: String,
    pub reason: &'static str,
}

impl std::fmt::Display for SlugError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid worktree name '{}': its slug '{}' {}",
            self.name.escape_debug(),
            self.slug,
            self.reason
        )
    }
}

impl std::error::Error for SlugError {}

/// Map every character outside `[A-Za-z0-9._-]` to `-`, then refuse what git or the filesystem
/// could not take as one component.
pub fn slug(name: &str) -> Result<String, SlugError> {
    let slug: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let reason = if slug.is_empty() {
        Some("is empty")
    } else if slug.chars().all(|c| c == '.') {
        Some("is all dots")
    } else if slug.starts_with('-') {
        Some("starts with '-'")
    } else if slug.starts_with('.') {
        Some("starts with '.'")
    } else if slug.ends_with('.') {
        Some("ends with '.'")
    } else if slug.ends_with(".lock") {
        Some("ends in '.lock'")
    } else if slug.contains("..") {
        Some("contains '..'")
    } else if slug.len() > MAX_LEN {
        Some("is longer than 200 characters")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(SlugError {
            name: name.to_owned(),
            slug,
            reason,
        }),
        None => Ok(slug),
    }
}

#[cfg(test)]
mod tests {
    use super::slug;

    #[test]
    fn safe_names_pass_through_unchanged() {
        assert_eq!(slug("auth-fix_2.v1").unwrap(), "auth-fix_2.v1");
    }

    #[test]
    fn slashes_spaces_and_unicode_become_dashes() {
        assert_eq!(slug("feat/login page").unwrap(), "feat-login-page");
        assert_eq!(slug("café").unwrap(), "caf-");
        assert_eq!(slug("a\tb\nc").unwrap(), "a-b-c");
    }

    #[test]
    fn a_name_that_would_escape_the_base_dir_is_refused() {
        assert_eq!(slug("..").unwrap_err().reason, "is all dots");
        assert_eq!(slug("a..b").unwrap_err().reason, "contains '..'");
        assert_eq!(slug("../etc").unwrap_err().slug, "..-etc");
    }

    #[test]
    fn names_git_cannot_take_as_a_ref_component_are_refused() {
        for bad in ["", ".", "...", "-x", "/x", ".hidden", "x.", "x.lock"] {
            assert!(slug(bad).is_err(), "{bad:?} should be refused");
        }
        assert!(slug(&"a".repeat(201)).is_err());
        assert!(slug(&"a".repeat(200)).is_ok());
    }

    #[test]
    fn the_error_shows_the_slug() {
        let err = slug("/x").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid worktree name '/x': its slug '-x' starts with '-'"
        );
    }
}
