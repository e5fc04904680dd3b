//! What a user sees, pinned: help and every error message, as `trycmd` cases in `tests/cmd/`.
//! Each case runs the real binary (and real git, and sh for setup) in its own sandbox folder.
//! Refresh the expected text after a deliberate change with: TRYCMD=overwrite cargo test --test it cli::

use std::path::PathBuf;

fn which(program: &str) -> PathBuf {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{program} is not on PATH"))
}

#[test]
fn cli_cases() {
    let home = std::env::temp_dir().join(format!("berth-trycmd-{}", std::process::id()));
    std::fs::create_dir_all(home.join("data")).unwrap();
    trycmd::TestCases::new()
        .register_bin("git", which("git"))
        .register_bin("sh", which("sh"))
        .env("HOME", home.display().to_string())
        .env("XDG_DATA_HOME", home.join("data").display().to_string())
        .env("XDG_CONFIG_HOME", home.join("config").display().to_string())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("SHELL", "/bin/sh")
        .env("GIT_AUTHOR_NAME", "Test Author")
        .env("GIT_AUTHOR_EMAIL", "author@example.com")
        .env("GIT_COMMITTER_NAME", "Test Committer")
        .env("GIT_COMMITTER_EMAIL", "committer@example.com")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C")
        .case("tests/cmd/*.trycmd")
        .run();
    let _ = std::fs::remove_dir_all(home);
}
