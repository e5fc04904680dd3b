//! `git-berth`: parse, dispatch, and turn an error into its message and exit code. Nothing else.

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    let cli = berth::cli::Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match berth::commands::dispatch(&cli.command, &mut out) {
        Ok(()) => {
            let _ = out.flush();
            ExitCode::SUCCESS
        }
        Err(err) => {
            let _ = out.flush();
            let (line, hint) = berth::error::render(&err);
            eprintln!("{}: {line}", berth::names::TOOL);
            if let Some(hint) = hint {
                eprintln!("hint: {hint}");
            }
            ExitCode::from(1)
        }
    }
}
