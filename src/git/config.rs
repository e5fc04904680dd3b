//! How berth opens repositories: `git -c` values and an identity fallback reach every repository
//! gix opens, including those it opens internally for a new worktree.

use std::path::Path;

use anyhow::Context as _;

use crate::names;

/// Options for every repository berth opens.
pub fn open_options() -> gix::open::Options {
    let cli = std::env::var(names::env::GIT_CONFIG_PARAMETERS)
        .map(|raw| parse_config_parameters(&raw))
        .unwrap_or_default();
    gix::open::Options::default()
        .config_overrides([
            // Compare file times to the nanosecond, as git does where the filesystem records
            // them; otherwise every file written in the index's second is read and hashed.
            // `whole_seconds_unless_ctime_is_trusted` takes it back where that is not safe.
            "gitoxide.core.useNsec=true".to_owned(),
            format!(
                "gitoxide.committer.nameFallback={}",
                names::COMMITTER_NAME_FALLBACK
            ),
            format!(
                "gitoxide.committer.emailFallback={}",
                names::COMMITTER_EMAIL_FALLBACK
            ),
        ])
        .cli_overrides(cli)
}

/// Nanosecond file times are safe only while a change to a file always shows in its ctime. With
/// core.trustctime off, a file rewritten at its old size and given back its mtime inside the
/// index's second shows nowhere but in the racy test, and that test must then go by whole seconds,
/// as git does when built without USE_NSEC (the default). gix takes both the stat comparison and
/// the racy test from one switch, so both go by the second here; files in the index's second are
/// then read and hashed, never trusted.
pub fn whole_seconds_unless_ctime_is_trusted(repo: &mut gix::Repository) -> anyhow::Result<()> {
    let stat = repo.stat_options().map_err(crate::git::gix_err)?;
    if stat.use_nsec && !stat.trust_ctime {
        repo.config_snapshot_mut()
            .set_value(&gix::config::tree::gitoxide::Core::USE_NSEC, "false")
            .map_err(crate::git::gix_err)?;
    }
    Ok(())
}

/// Open the repository of the checkout at `path`, ready for the dirty checks of `status` and
/// `quick`: file times compared as [`whole_seconds_unless_ctime_is_trusted`] allows.
pub fn open(path: &Path) -> anyhow::Result<gix::Repository> {
    open_opts(path, open_options())
}

/// [`open`] with other open options (tests open isolated from the user's git config).
pub fn open_opts(path: &Path, options: gix::open::Options) -> anyhow::Result<gix::Repository> {
    let mut repo = gix::open_opts(path, options)
        .map_err(crate::git::gix_err)
        .with_context(|| format!("cannot open worktree {}", path.display()))?;
    whole_seconds_unless_ctime_is_trusted(&mut repo)?;
    Ok(repo)
}

/// Parse `GIT_CONFIG_PARAMETERS` as git writes it: single-quoted words separated by spaces, either
/// `'key=value'` (older git) or `'key'='value'` (git 2.31 and later), with `'\''` for a quote.
/// gix 0.91 does not read this variable, so `git -c key=value berth ...` would be lost without it.
pub fn parse_config_parameters(raw: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = raw.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let Some(mut entry) = quoted(&mut chars) else {
            break;
        };
        if chars.peek() == Some(&'=') {
            chars.next();
            entry.push('=');
            if let Some(value) = quoted(&mut chars) {
                entry.push_str(&value);
            }
        } else if !entry.contains('=') {
            // `git -c key` means "key = true", as git reads a bare key.
            entry.push_str("=true");
        }
        out.push(entry);
    }
    out
}

/// One single-quoted word; `\'` between quoted parts is a literal quote, as git's `sq_quote` writes.
fn quoted(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<String> {
    if chars.peek() != Some(&'\'') {
        return None;
    }
    chars.next();
    let mut word = String::new();
    loop {
        match chars.next()? {
            '\'' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                    word.push(chars.next()?);
                    if chars.peek() == Some(&'\'') {
                        chars.next();
                        continue;
                    }
                }
                return Some(word);
            }
            c => word.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_config_parameters;

    #[test]
    fn new_style_key_and_value_are_quoted_apart() {
        assert_eq!(
            parse_config_parameters("'berth.trunk'='dev' 'core.x'='a b'"),
            ["berth.trunk=dev", "core.x=a b"]
        );
    }

    #[test]
    fn old_style_pairs_and_bare_keys_are_read() {
        assert_eq!(
            parse_config_parameters("'berth.trunk=dev' 'core.flag'"),
            ["berth.trunk=dev", "core.flag=true"]
        );
    }

    #[test]
    fn an_embedded_quote_survives() {
        assert_eq!(
            parse_config_parameters(r"'user.name'='O'\''Brien'"),
            ["user.name=O'Brien"]
        );
    }

    #[test]
    fn garbage_yields_nothing_rather_than_a_wrong_value() {
        assert!(parse_config_parameters("not quoted").is_empty());
        assert!(parse_config_parameters("").is_empty());
    }
}
