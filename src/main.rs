//! `git-berth`: parse, hand to the one dispatch (`cli::run`), exit with its code (a panic too, as
//! the bug it is). Nothing else.

use std::process::ExitCode;

fn main() -> ExitCode {
    // The guard runs before every tool call of every agent: parse only its own arguments, so
    // the rest of the command line is never built on its path.
    if std::env::args_os().nth(1).is_some_and(|a| a == "guard") {
        return ExitCode::from(berth::cli::guard(std::env::args_os().skip(1)));
    }
    berth::error::report_panics_as_bugs();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // A headless agent's supervisor, which berth starts itself: no manual to put in place.
    if berth::cli::is_supervise(&args) {
        return ExitCode::from(berth::cli::supervise(args));
    }
    // `git berth --help` is git running `man git-berth`, never this binary: every other run puts
    // the page where man looks for it, beside the binary, so it is there from the first run on.
    berth::commands::help::install_manual_quietly();
    let cli = match berth::cli::parse_from(args) {
        Ok(cli) => cli,
        Err(code) => return ExitCode::from(code),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    ExitCode::from(berth::cli::run(&cli, &mut out))
}
