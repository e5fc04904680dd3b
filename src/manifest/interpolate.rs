//! `${key}` in a manifest's strings, replaced in one pass by the caller's lookup: `$${` writes a
//! literal `${`, and a `$` before anything else stays as it is. A `${` that does not close, or
//! that holds no name, is an error, never passed through: it is almost always a typo. Pure.

use super::tree::printable;

/// Why a string could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpandError {
    /// `${` with no `}` after it.
    Unclosed,
    /// `${...}` holding something no var or input can be named.
    NotAName(String),
    /// `${key}` that the lookup has no value for, and why.
    Unresolved { key: String, why: String },
}

impl std::fmt::Display for ExpandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExpandError::Unclosed => {
                f.write_str("'${' is not closed by '}'; write $${ for a literal ${")
            }
            ExpandError::NotAName(text) => write!(
                f,
                "'${{{}}}' does not name a var or input; write $${{ for a literal ${{",
                printable(text)
            ),
            ExpandError::Unresolved { key, why } => write!(f, "unresolved '${{{key}}}': {why}"),
        }
    }
}

/// Whether `${name}` can name `name`: letters, digits, `_` and `-`, starting with a letter or `_`.
pub fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `text` with every `${key}` replaced by `lookup(key)` (an `Err` says why a key has no value).
pub fn expand(
    text: &str,
    mut lookup: impl FnMut(&str) -> Result<String, String>,
) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar..];
        if let Some(tail) = after.strip_prefix("$${") {
            out.push_str("${");
            rest = tail;
        } else if let Some(tail) = after.strip_prefix("${") {
            let close = tail.find('}').ok_or(ExpandError::Unclosed)?;
            let key = &tail[..close];
            if !is_var_name(key) {
                return Err(ExpandError::NotAName(key.to_owned()));
            }
            let value = lookup(key).map_err(|why| ExpandError::Unresolved {
                key: key.to_owned(),
                why,
            })?;
            out.push_str(&value);
            rest = &tail[close + 1..];
        } else {
            out.push('$');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(key: &str) -> Result<String, String> {
        match key {
            "focus" => Ok("error handling".to_owned()),
            "dollar" => Ok("${focus}".to_owned()),
            _ => Err(format!("no var or input is named '{key}'")),
        }
    }

    #[test]
    fn var_names_are_what_a_reference_can_hold() {
        for good in ["repo", "pr", "_x", "focus-area", "a1"] {
            assert!(is_var_name(good), "{good}");
        }
        for bad in ["", "1a", "-a", "a b", "a.b", "a}", "é"] {
            assert!(!is_var_name(bad), "{bad}");
        }
    }

    #[test]
    fn keys_are_replaced_by_their_values() {
        assert_eq!(
            expand("Review ${focus} in this repo", vars).unwrap(),
            "Review error handling in this repo"
        );
        assert_eq!(
            expand("${focus}${focus}", vars).unwrap(),
            "error handlingerror handling"
        );
        assert_eq!(expand("no keys", vars).unwrap(), "no keys");
    }

    #[test]
    fn a_doubled_dollar_writes_a_literal_brace() {
        assert_eq!(expand("echo $${HOME}", vars).unwrap(), "echo ${HOME}");
        assert_eq!(
            expand("cost $5 and $HOME and $$", vars).unwrap(),
            "cost $5 and $HOME and $$"
        );
    }

    #[test]
    fn a_value_is_not_expanded_again() {
        assert_eq!(expand("${dollar}", vars).unwrap(), "${focus}");
    }

    #[test]
    fn an_unknown_key_is_named_with_the_reason() {
        let err = expand("Review ${focs}", vars).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unresolved '${focs}': no var or input is named 'focs'"
        );
    }

    #[test]
    fn an_unclosed_or_empty_reference_is_refused() {
        assert_eq!(
            expand("a ${focus", vars).unwrap_err(),
            ExpandError::Unclosed
        );
        assert_eq!(
            expand("a ${} b", vars).unwrap_err(),
            ExpandError::NotAName(String::new())
        );
        assert_eq!(
            expand("${a b}", vars).unwrap_err().to_string(),
            "'${a b}' does not name a var or input; write $${ for a literal ${"
        );
    }
}
