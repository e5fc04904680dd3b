//! `git-berth`: parse, dispatch, and turn an error into its message and exit code. Nothing else.

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    // The guard runs before every tool call of every agent: parse only its own arguments, so
    // the rest of the command line is never built on its path.
    if std::env::args_os().nth(1).is_some_and(|a| a == "guard") {
        let guard = berth::cli::GuardCli::parse_from(std::env::args_os().skip(1));
        return exit_code(berth::commands::guard::run(&guard.args));
    }
    let cli = berth::cli::Cli::parse();
    // The guard runs before every tool call of every agent: it answers with its own exit code
    // and opens no repository unless its decision needs one. `init` prints its own errors.
    match &cli.command {
        berth::cli::Command::Guard(args) => return exit_code(berth::commands::guard::run(args)),
        berth::cli::Command::Init(args) => return exit_code(berth::commands::init::run(args)),
        _ => {}
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match berth::commands::dispatch(&cli, &mut out) {
        Ok(()) => {
            let _ = out.flush();
            ExitCode::SUCCESS
        }
        Err(err) if berth::error::is_broken_pipe(&err) => ExitCode::from(BROKEN_PIPE),
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

/// What a shell reports for a process that wrote to a closed pipe (128 + SIGPIPE), as git does.
const BROKEN_PIPE: u8 = 141;

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
