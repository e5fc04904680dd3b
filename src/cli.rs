//! The command line: one variant per command, each command's arguments kept with its code in
//! `commands/`. The man page is generated from this definition.

use std::ffi::OsString;
use std::io::Write;

use anyhow::Result;
use clap::error::ErrorKind;
use clap::{CommandFactory as _, FromArgMatches as _, Parser, Subcommand};

use crate::commands;
use crate::error::Kind;
use crate::repo::Context;

/// Give every AI coding agent its own worktree and branch, and keep them all out of the primary
/// checkout.
#[derive(Debug, Parser)]
#[command(
    name = "git-berth",
    bin_name = "git berth",
    version,
    about = "One worktree and branch per coding agent, and nobody in the primary checkout",
    long_about = "git berth gives each AI coding agent (or person) its own linked worktree on its own \
branch, records which worktrees it made, and never deletes a worktree or branch that holds work \
found nowhere else.\n\nWorktrees live in ${XDG_DATA_HOME:-~/.local/share}/git-berth/<project>-<hash>/<name> \
unless `git config berth.worktreeBase <dir>` says otherwise; branches are named \
<berth.branchPrefix><name> (default berth/<name>).",
    after_help = "Start with: git berth add <name>, then cd \"$(git berth path <name>)\".\n\
A command's help: git berth help <command>. The manual: git berth --help (or man git-berth).",
    disable_help_subcommand = true
)]
pub struct Cli {
    /// Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]
    #[arg(long, global = true, value_name = "ID")]
    pub session: Option<String>,
    #[command(subcommand)]
    pub command: Command,
    /// The command was given `--json`: a failure is then said on stdout as JSON too.
    #[arg(skip)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a worktree on a new branch and print its path
    Add(commands::add::AddArgs),
    /// Show the managed worktrees: branch, base, ahead/behind, dirty, path
    #[command(visible_alias = "ls")]
    List(commands::list::ListArgs),
    /// Take a worktree for your session without creating one
    Claim(commands::claim::ClaimArgs),
    /// Give a worktree back so another session can claim it
    Release(commands::release::ReleaseArgs),
    /// Claim the paths a worktree will change (files, folders, globs), or give them back
    #[command(
        long_about = "Claim the paths a worktree will change, so that no other worktree's agent edits \
them (the guard blocks its edits and writes, never its reads).\n\n\
A path is a file, a folder (everything below it) or a glob (`src/api/**`, `src/*.rs`), relative to \
the repository root, or to the current folder when you stand below the root of a worktree and it \
is there. A glob is kept as written, so files added later match it too. A claim that overlaps what \
another live worktree owns is refused, naming that worktree and the paths.\n\n\
Ownership lasts while the worktree's claim is held: it ends when the worktree is removed, cleaned \
or shipped, when its holder's process is gone, or with `--release`."
    )]
    Own(commands::own::OwnArgs),
    // Its help, with the placeholders of --format, is on its arguments.
    StatusLine(commands::status_line::StatusLineArgs),
    /// Show who owns which paths: worktree, agent, paths, since (lapsed owners are left out)
    Owners(commands::owners::OwnersArgs),
    /// Print the path of a worktree
    Path(commands::path::PathArgs),
    /// Remove worktrees that hold no uncommitted or unmerged work
    #[command(visible_alias = "rm")]
    Remove(commands::remove::RemoveArgs),
    /// Remove the worktrees that are clean, landed and held by no other live session; say why each other stays
    Clean(commands::clean::CleanArgs),
    /// The merge-back overview: commits, dirty, unpushed, clean merge, and which worktrees conflict
    #[command(
        long_about = "The merge-back overview: for each managed worktree its own commits, \
uncommitted changes, unpushed commits and whether it merges cleanly into the trunk.\n\n\
The forecast: every two worktrees that change the same file are merged with each other in memory \
(nothing is written), and each pair is reported as a conflict, with the files and line ranges \
where the two collide, or as an overlap that merges cleanly. Land the pairs that conflict one \
after the other, rebasing the second."
    )]
    Collect(commands::collect::CollectArgs),
    // Its help, with how verdicts are bound and kept, is on its arguments.
    Review(commands::review::ReviewArgs),
    /// Forget worktrees whose folder is gone, drop stale admin entries, finish what a kill cut short
    Prune(commands::prune::PruneArgs),
    /// Land approved worktrees on the trunk, each gated on its merged result
    Ship(commands::ship::ShipArgs),
    /// Show every landing ship made
    Log(commands::log::LogArgs),
    /// Bring a worktree up to date with the hooks: ports, seeding, setup (adopts one berth did not make)
    Setup(commands::setup::SetupArgs),
    /// Write the worktree hooks (setup, teardown, ports, gate), or show those in force
    #[command(
        long_about = "Write the worktree hooks, or with no option show those in force and \
where each comes from.\n\n\
The hooks live in .worktree-hooks/ in the checkout: setup (run in each new worktree), teardown \
(run in the primary checkout when a worktree goes), ports (how many ports each worktree gets), \
seed (untracked paths of the primary, such as .env, copied into each new worktree; `<path> link` \
shares one on purpose) and gate (what ship runs on a landing's merged result). A new worktree runs \
the hooks of the commit it starts from: commit them, and the scripts they call. --local writes to \
<common dir>/worktree-hooks instead, for this clone only, where each replaces the committed one.\n\n\
Hooks that arrive with a clone or a pull run only once `git berth trust` has recorded their \
content; those install writes are trusted."
    )]
    Install(commands::install::InstallArgs),
    /// Trust this checkout's setup and teardown hooks so they may run
    #[command(long_about = "Trust this checkout's hooks so they may run.\n\n\
A hook runs only when its exact content is trusted: berth keeps the content hashes in \
<common dir>/berth/trust.toml, so a hook that a pull changes stops `add` (it never prompts) until \
you read it and run `git berth trust` again. --show lists each hook and whether it is trusted.")]
    Trust(commands::trust::TrustArgs),
    // The guard's help is on its arguments, so `guard --help` on its own path reads the same.
    Guard(commands::guard::GuardArgs),
    /// Wire the guard into a repository for each agent runtime
    Init(commands::init::InitArgs),
    /// Serve an agent runtime's worktree hooks (Claude Code's WorktreeCreate / WorktreeRemove)
    Hook(commands::hook::HookArgs),
    /// Serve the worktree tools to an agent runtime over MCP, on stdin and stdout
    #[command(
        long_about = "Serve the worktree tools to an agent runtime over the Model Context Protocol, \
on stdin and stdout: worktree_list (read-only), worktree_create, worktree_claim, worktree_release \
and worktree_remove, each answering in the JSON of the command of its name.\n\n\
A runtime starts it (`git berth init` registers it for each runtime that takes MCP servers); to \
try it by hand, pipe JSON-RPC lines into it. Its session is the agent that started it, so claims \
made through the tools and through the agent's shell commands are one session's. Started where \
neither the folder nor one of its child folders is a git repository, it offers no tools."
    )]
    Mcp(commands::mcp::McpArgs),
    // Its help, with how to install each script, is on its arguments.
    Completions(commands::completions::CompletionsArgs),
    /// Start the master agent (layer 0) in the primary checkout, hatches open
    Master(commands::master::MasterArgs),
    /// Dispatch an agent into a new tab and a worktree of its own (from the master)
    Layer1(commands::layer1::Layer1Args),
    /// Split a layer-1 agent's tab and launch a helper in its worktree (from a layer-1 agent)
    Layer2(commands::layer2::Layer2Args),
    /// Launch a named agent in a tab of its own; agents of one --worktree group share it
    Spawn(commands::spawn::SpawnArgs),
    /// Stop an agent gracefully and start it again, here or in another worktree
    Respawn(commands::respawn::RespawnArgs),
    /// Type text into an agent's pane, then Enter
    Send(commands::send::SendArgs),
    /// Stop agents berth launched (SIGTERM, then SIGKILL), freeing their worktrees
    Stop(commands::stop::StopArgs),
    /// Show every agent berth launched here: layer, runtime, pane, alive or gone
    Agents(commands::agents::AgentsArgs),
    // Its help, with the keys and the shell function, is on its arguments.
    Ui(commands::ui::UiArgs),
    /// Open a change: a worktree on feat/<branch>, with a shell tab there
    Feat(commands::feat::FeatArgs),
    // Its help, with where a fleet's state and logs live, is on its arguments.
    Fleet(commands::fleet::FleetArgs),
    // Its help, with where a run's record and logs live, is on its arguments.
    Pipeline(commands::pipeline::PipelineArgs),
    // Their help, with the presets and where a person's own live, is on their arguments.
    PrReview(commands::pipeline::PrReviewArgs),
    PrFix(commands::pipeline::PrFixArgs),
    /// Print a command's help, or with no command the list of commands
    Help(commands::help::HelpArgs),
}

// `git berth guard` alone: the guard's hot path parses with this, not the whole command line.
// Its help and errors read as those of `git berth guard` (a doc comment here would replace the
// guard's own help text, which lives on `GuardArgs`).
#[derive(Debug, Parser)]
#[command(
    name = "guard",
    bin_name = "git berth guard",
    disable_help_subcommand = true
)]
pub struct GuardCli {
    #[command(flatten)]
    pub args: commands::guard::GuardArgs,
}

/// `git berth fleet _supervise`: berth's own supervisor of a headless agent, parsed alone so
/// that it shows in no help, manual or completion script.
#[derive(Debug, Parser)]
#[command(
    name = "_supervise",
    bin_name = "git berth fleet _supervise",
    disable_help_subcommand = true
)]
pub struct SuperviseCli {
    #[command(flatten)]
    pub args: commands::fleet::SuperviseArgs,
}

/// Whether `args` (the whole command line) starts a headless agent's supervisor.
pub fn is_supervise(args: &[OsString]) -> bool {
    args.get(1).is_some_and(|a| a == "fleet")
        && args.get(2).is_some_and(|a| a == commands::fleet::SUPERVISE)
}

/// Run the supervisor `args` (the whole command line) asks for: its exit code.
pub fn supervise(args: Vec<OsString>) -> u8 {
    match SuperviseCli::try_parse_from(args.into_iter().skip(2)) {
        Ok(cli) => {
            let stdout = std::io::stdout();
            failed(
                commands::fleet::supervise(&cli.args),
                None,
                false,
                &mut Said::new(&mut stdout.lock()),
            )
        }
        Err(err) => usage(&err, Some("fleet"), false),
    }
}

/// Parses the command line. Help and the version print as clap prints them; a usage error prints
/// the one way every error does (`git berth: <what>`, then `hint:`) and gives exit code 2.
pub fn parse_from(args: Vec<OsString>) -> Result<Cli, u8> {
    let parsed = Cli::command()
        .try_get_matches_from(&args)
        .and_then(|matches| {
            let mut cli =
                Cli::from_arg_matches(&matches).map_err(|err| err.format(&mut Cli::command()))?;
            cli.json = asks_for_json(&matches);
            Ok(cli)
        });
    parsed.map_err(|err| {
        // The command the line names, for the hint: the first word that is one.
        let cmd = Cli::command();
        let named = args.iter().skip(1).find_map(|arg| cmd.find_subcommand(arg));
        usage(
            &err,
            named.map(|sub| sub.get_name()),
            json_on_the_line(&args),
        )
    })
}

/// Whether the command the matches end in was given `--json`.
fn asks_for_json(matches: &clap::ArgMatches) -> bool {
    match matches.subcommand() {
        Some((_, sub)) => asks_for_json(sub),
        None => matches.try_get_one::<bool>("json").ok().flatten() == Some(&true),
    }
}

/// Whether a line that does not parse gives `--json` (before any `--`) to a command that takes
/// it: its usage error is then JSON on stdout too.
fn json_on_the_line(args: &[OsString]) -> bool {
    let mut cmd = Cli::command();
    let mut given = false;
    for arg in args.iter().skip(1).take_while(|arg| *arg != "--") {
        if arg == "--json" {
            given = true;
        } else if let Some(sub) = cmd.find_subcommand(arg) {
            cmd = sub.clone();
        }
    }
    given && cmd.get_arguments().any(|a| a.get_id() == "json")
}

/// `git berth guard <args>` parsed alone (`args` starts at `guard`), its usage errors printed as
/// every other command's are. Their exit code, 2, is also a block: a guard call it cannot read
/// never lets the action through.
fn parse_guard(args: impl IntoIterator<Item = OsString>) -> Result<GuardCli, u8> {
    GuardCli::try_parse_from(args).map_err(|err| usage(&err, Some("guard"), false))
}

/// `git berth guard <args>`, parsed alone and run: its exit code.
pub fn guard(args: impl IntoIterator<Item = OsString>) -> u8 {
    match parse_guard(args) {
        Ok(guard) => code(commands::guard::run(&guard.args)),
        Err(code) => code,
    }
}

/// Print a parse error the way its kind asks (help and version as clap prints them, a usage
/// error as `git berth: <what>` and a hint, and with `json` as JSON on stdout too) and return its
/// exit code.
fn usage(err: &clap::Error, command: Option<&str>, json: bool) -> u8 {
    match err.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = err.print();
            code(err.exit_code())
        }
        _ => {
            let refusal = commands::help::usage_error(err, command);
            let stdout = std::io::stdout();
            failed(
                Err(refusal.into()),
                Some(Kind::Usage),
                json,
                &mut Said::new(&mut stdout.lock()),
            )
        }
    }
}

/// What a shell reports for a process that wrote to a closed pipe (128 + SIGPIPE), as git does.
pub const BROKEN_PIPE: u8 = Kind::BrokenPipe.exit_code();

/// The one dispatch: run the command, print its error the one way (`error::report`), and return
/// the exit code its kind gives ([`Kind::exit_code`]); 0 when done. The guard and `init` answer
/// with their own codes (2 is a guard block).
pub fn run(cli: &Cli, out: &mut dyn Write) -> u8 {
    let out = &mut Said::new(out);
    let result = match &cli.command {
        Command::Guard(args) => return code(commands::guard::run(args)),
        Command::Init(args) => return code(commands::init::run(args)),
        Command::Hook(args) => validated(cli).and_then(|()| commands::hook::run(args, out)),
        Command::Add(args) => context(cli).and_then(|ctx| commands::add::run(&ctx, args, out)),
        Command::List(args) => context(cli).and_then(|ctx| commands::list::run(&ctx, args, out)),
        Command::Path(args) => context(cli).and_then(|ctx| commands::path::run(&ctx, args, out)),
        Command::Remove(args) => {
            context(cli).and_then(|ctx| commands::remove::run(&ctx, args, out))
        }
        Command::Review(args) => {
            context(cli).and_then(|ctx| commands::review::run(&ctx, args, out))
        }
        Command::Prune(args) => context(cli).and_then(|ctx| commands::prune::run(&ctx, args, out)),
        Command::Ship(args) => context(cli).and_then(|ctx| commands::ship::run(&ctx, args, out)),
        Command::Log(args) => context(cli).and_then(|ctx| commands::log::run(&ctx, args, out)),
        Command::Claim(args) => context(cli).and_then(|ctx| commands::claim::run(&ctx, args, out)),
        Command::Setup(args) => context(cli).and_then(|ctx| commands::setup::run(&ctx, args, out)),
        Command::Install(args) => {
            context(cli).and_then(|ctx| commands::install::run(&ctx, args, out))
        }
        Command::Trust(args) => context(cli).and_then(|ctx| commands::trust::run(&ctx, args, out)),
        Command::Clean(args) => context(cli).and_then(|ctx| commands::clean::run(&ctx, args, out)),
        Command::Collect(args) => {
            context(cli).and_then(|ctx| commands::collect::run(&ctx, args, out))
        }
        Command::Release(args) => {
            context(cli).and_then(|ctx| commands::release::run(&ctx, args, out))
        }
        Command::Mcp(_) => validated(cli).and_then(|()| commands::mcp::run(cli.session.clone())),
        Command::Own(args) => context(cli).and_then(|ctx| commands::own::run(&ctx, args, out)),
        Command::StatusLine(args) => validated(cli)
            .and_then(|()| commands::status_line::run(cli.session.as_deref(), args, out)),
        Command::Owners(args) => {
            context(cli).and_then(|ctx| commands::owners::run(&ctx, args, out))
        }
        Command::Completions(args) => match args.output.shell() {
            Some(shell) => commands::completions::run(Cli::command(), shell, out),
            None if args.output == commands::completions::Output::Agents => {
                context(cli).and_then(|ctx| commands::completions::agents(&ctx, out))
            }
            None => context(cli).and_then(|ctx| commands::completions::worktrees(&ctx, out)),
        },
        Command::Master(args) => {
            context(cli).and_then(|ctx| commands::master::run(&ctx, args, out))
        }
        Command::Layer1(args) => {
            context(cli).and_then(|ctx| commands::layer1::run(&ctx, args, out))
        }
        Command::Layer2(args) => {
            context(cli).and_then(|ctx| commands::layer2::run(&ctx, args, out))
        }
        Command::Spawn(args) => context(cli).and_then(|ctx| commands::spawn::run(&ctx, args, out)),
        Command::Respawn(args) => {
            context(cli).and_then(|ctx| commands::respawn::run(&ctx, args, out))
        }
        Command::Send(args) => context(cli).and_then(|ctx| commands::send::run(&ctx, args, out)),
        Command::Stop(args) => context(cli).and_then(|ctx| commands::stop::run(&ctx, args, out)),
        Command::Agents(args) => {
            context(cli).and_then(|ctx| commands::agents::run(&ctx, args, out))
        }
        // The terminal first: a script or an agent is told that, wherever it stands.
        Command::Ui(args) => commands::ui::terminal()
            .and_then(|tty| context(cli).and_then(|ctx| commands::ui::run(&ctx, args, tty, out))),
        Command::Feat(args) => context(cli).and_then(|ctx| commands::feat::run(&ctx, args, out)),
        Command::Fleet(args) => context(cli).and_then(|ctx| commands::fleet::run(&ctx, args, out)),
        Command::Pipeline(args) => {
            context(cli).and_then(|ctx| commands::pipeline::run(&ctx, args, out))
        }
        Command::PrReview(args) => {
            context(cli).and_then(|ctx| commands::pipeline::run_pr_review(&ctx, args, out))
        }
        Command::PrFix(args) => {
            context(cli).and_then(|ctx| commands::pipeline::run_pr_fix(&ctx, args, out))
        }
        // `help nosuch` is a usage error, as `git berth nosuch` is.
        Command::Help(args) => {
            let result = commands::help::run(Cli::command(), args, out);
            return failed(result, Some(Kind::Usage), false, out);
        }
    };
    failed(result, None, cli.json, out)
}

/// The exit code of a command that ended with `result`; its error said on stderr, and with `json`
/// as one JSON object on stdout unless the command already printed its answer there. `usage`
/// makes any error but a closed pipe a usage error. A closed pipe is said nowhere.
fn failed(result: Result<()>, usage: Option<Kind>, json: bool, out: &mut Said<'_>) -> u8 {
    let _ = out.flush();
    let Err(err) = result else { return 0 };
    let kind = match crate::error::kind(&err) {
        Kind::BrokenPipe => return BROKEN_PIPE,
        kind => usage.unwrap_or(kind),
    };
    crate::error::report(&err);
    if json && !out.wrote {
        // The reader may be gone by now; stderr has said it all the same.
        let _ = crate::commands::write_json(out, &crate::error::json(&err, kind));
        let _ = out.flush();
    }
    kind.exit_code()
}

/// Stdout, noting whether anything was written to it, so that a failed `--json` command that
/// printed its report does not print a second JSON document after it.
struct Said<'a> {
    out: &'a mut dyn Write,
    wrote: bool,
}

impl<'a> Said<'a> {
    fn new(out: &'a mut dyn Write) -> Self {
        Said { out, wrote: false }
    }
}

impl Write for Said<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.wrote |= !buf.is_empty();
        self.out.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// `--session`, checked before anything else runs.
fn validated(cli: &Cli) -> Result<()> {
    match &cli.session {
        Some(id) => crate::session::validate(id),
        None => Ok(()),
    }
}

/// The repository the command works on, with the session the command line names.
fn context(cli: &Cli) -> Result<Context> {
    validated(cli)?;
    let mut ctx = Context::discover()?;
    ctx.session_flag = cli.session.clone();
    Ok(ctx)
}

fn code(code: i32) -> u8 {
    u8::try_from(code).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(words: &[&str]) -> Vec<OsString> {
        std::iter::once("git-berth")
            .chain(words.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn json_is_asked_for_by_the_command_the_line_ends_in() {
        let parsed = |words: &[&str]| parse_from(line(words)).map(|cli| cli.json);
        assert_eq!(parsed(&["review", "status", "--json"]), Ok(true));
        assert_eq!(parsed(&["layer1", "a", "feat/a", "--json"]), Ok(true));
        assert_eq!(parsed(&["list"]), Ok(false));
        assert_eq!(parsed(&["path", "a"]), Ok(false));
    }

    #[test]
    fn a_line_that_does_not_parse_asks_for_json_only_where_its_command_takes_it() {
        assert!(json_on_the_line(&line(&[
            "review", "approve", "--json", "--bogus"
        ])));
        assert!(!json_on_the_line(&line(&["path", "a", "--json"])));
        assert!(!json_on_the_line(&line(&["remove", "--", "--json"])));
        assert!(!json_on_the_line(&line(&["list", "--bogus"])));
    }

    #[test]
    fn a_failed_json_command_says_its_error_on_stdout_unless_it_printed_its_answer() {
        let mut stdout = Vec::new();
        let err = Err(crate::error::bug("lost track of hook setup"));
        assert_eq!(failed(err, None, true, &mut Said::new(&mut stdout)), 70);
        let said: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
        assert_eq!(said["error"]["kind"], "internal");

        let mut stdout = Vec::new();
        let mut out = Said::new(&mut stdout);
        writeln!(out, "{{\"refused\": 1}}").unwrap();
        let err = Err(crate::error::refuse("1 of 1 worktree(s) not landed: a"));
        assert_eq!(failed(err, None, true, &mut out), 1);
        assert_eq!(stdout, b"{\"refused\": 1}\n");
    }

    #[test]
    fn an_error_of_a_usage_path_is_a_usage_error_but_a_closed_pipe_stays_quiet() {
        let mut stdout = Vec::new();
        let mut out = Said::new(&mut stdout);
        let err = Err(crate::error::refuse("'nosuch' is not a git berth command"));
        assert_eq!(failed(err, Some(Kind::Usage), false, &mut out), 2);
        let closed = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        assert_eq!(
            failed(Err(closed.into()), Some(Kind::Usage), true, &mut out),
            141
        );
        assert!(stdout.is_empty());
    }
}
