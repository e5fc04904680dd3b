//! `git berth completions bash|zsh|fish`: shell completion scripts made from the clap definition,
//! so they never lag the command line. The bash one plugs into git's own completion (`git berth
//! <TAB>` calls `_git_berth`); zsh's and fish's are clap_complete's, with worktree and live agent
//! names filled in at TAB time by `git berth completions worktrees|agents` (hidden values, not in
//! the help or the manual), which read the registry alone: no status, no graph.

use std::fmt::Write as _;
use std::io::Write;

use anyhow::Result;
use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgAction, Command};

use crate::names;
use crate::registry::Store;
use crate::repo::Context;

/// Print the completion script for bash, zsh or fish
///
/// bash: `git berth completions bash > ~/.local/share/bash-completion/completions/git-berth`; git's
/// completion loads it the first time you type `git berth <TAB>` (without the bash-completion
/// package, source the file from ~/.bashrc after git's own completion instead).
///
/// zsh: `git berth completions zsh > ~/.zfunc/_git-berth`, with `fpath=(~/.zfunc $fpath)` before
/// `compinit` in ~/.zshrc; zsh's git completion then calls it for `git berth <TAB>`.
///
/// fish: `git berth completions fish > ~/.config/fish/completions/git-berth.fish`; fish's git
/// completion hands `git berth <TAB>` to it.
///
/// Worktree names are completed from the repository's registry (the worktrees berth manages).
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to write the script for
    #[arg(value_enum, value_name = "SHELL")]
    pub output: Output,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    Bash,
    Zsh,
    Fish,
    /// Not a shell: the managed worktrees' names, one a line, which the scripts complete from.
    #[value(hide = true)]
    Worktrees,
    /// Not a shell: the names of the agents berth launched that still run, one a line.
    #[value(hide = true)]
    Agents,
}

/// The shells a script is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    pub const ALL: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

    /// The file name the script is installed under, as `share/completions/` keeps it.
    pub fn file_name(self) -> &'static str {
        match self {
            Shell::Bash => "git-berth.bash",
            Shell::Zsh => "_git-berth",
            Shell::Fish => "git-berth.fish",
        }
    }
}

impl Output {
    /// The shell a script is asked for; `None` for the worktree names.
    pub fn shell(self) -> Option<Shell> {
        match self {
            Output::Bash => Some(Shell::Bash),
            Output::Zsh => Some(Shell::Zsh),
            Output::Fish => Some(Shell::Fish),
            Output::Worktrees | Output::Agents => None,
        }
    }
}

/// Writes the script for `shell`. `cmd` is the whole command line (`cli::Cli`).
pub fn run(cmd: Command, shell: Shell, out: &mut dyn Write) -> Result<()> {
    out.write_all(script(shell, cmd).as_bytes())?;
    Ok(())
}

/// The managed worktrees' names, one a line, for the scripts: no git status, only the registry.
pub fn worktrees(ctx: &Context, out: &mut dyn Write) -> Result<()> {
    let registry = Store::new(ctx.state_dir()).load()?;
    for record in registry.worktrees.iter().filter(|r| r.creating.is_none()) {
        writeln!(out, "{}", record.name)?;
    }
    Ok(())
}

/// The names of the live agents berth launched, one a line, for the scripts (`send`, `respawn`).
pub fn agents(ctx: &Context, out: &mut dyn Write) -> Result<()> {
    for agent in Store::new(ctx.state_dir()).agents()? {
        if agent.alive() {
            writeln!(out, "{}", agent.name)?;
        }
    }
    Ok(())
}

/// The commands whose name argument is a new worktree's, so existing names are not offered.
const NEW_NAME: &[&str] = &["add"];

/// What the positional words of a command are, for every shell's script.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Words {
    /// Names of managed worktrees, asked of `git berth completions worktrees` at TAB time.
    Worktrees,
    /// Names of live agents, asked of `git berth completions agents` at TAB time.
    Agents,
    /// The commands of `git berth` (what `help` explains).
    Commands,
    /// The command's own subcommands (`hook worktree-create`).
    Subcommands(Vec<String>),
    /// A fixed set of values (`completions bash`).
    Values(Vec<String>),
}

/// The positional words of `cmd`, when anything better than file names can be offered.
fn positional_words(cmd: &Command) -> Option<Words> {
    if cmd.get_name() == "help" {
        return Some(Words::Commands);
    }
    let subcommands: Vec<String> = visible_commands(cmd)
        .into_iter()
        .map(str::to_owned)
        .collect();
    if !subcommands.is_empty() {
        return Some(Words::Subcommands(subcommands));
    }
    let arg = cmd.get_positionals().find(|a| !a.is_hide_set())?;
    arg_words(cmd, arg)
}

/// The words of each positional of `cmd` in order, when they differ from one position to the
/// next (`layer1 <name> <branch> [<runtime>]`); empty when the first one's words serve them all.
fn positions(cmd: &Command) -> Vec<Option<Words>> {
    if cmd.has_subcommands() || cmd.get_name() == "help" {
        return Vec::new();
    }
    let words: Vec<Option<Words>> = cmd
        .get_positionals()
        .filter(|a| !a.is_hide_set())
        .map(|a| arg_words(cmd, a))
        .collect();
    if words.windows(2).all(|pair| pair[0] == pair[1]) {
        return Vec::new();
    }
    words
}

/// What one positional of `cmd` takes, when anything better than file names can be offered.
fn arg_words(cmd: &Command, arg: &Arg) -> Option<Words> {
    match arg.get_id().as_str() {
        "name" | "names" if !NEW_NAME.contains(&cmd.get_name()) => Some(Words::Worktrees),
        "agent" | "agents" => Some(Words::Agents),
        _ => {
            let values = possible_values(arg);
            (!values.is_empty()).then_some(Words::Values(values))
        }
    }
}

/// An argument's possible values a person may type (hidden ones left out).
fn possible_values(arg: &Arg) -> Vec<String> {
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_owned())
        .collect();
    // The orchestrator's runtime (`master <runtime>`, `spawn --runtime`) is checked by berth, so
    // its error can name the runtimes; clap knows no values for it.
    if values.is_empty() && arg.get_id() == "runtime" && arg.get_value_delimiter().is_none() {
        return crate::orchestrator::runtime::Runtime::names()
            .into_iter()
            .map(str::to_owned)
            .collect();
    }
    values
}

/// The commands a person may type, with their aliases.
fn visible_commands(cmd: &Command) -> Vec<&str> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set())
        .flat_map(|s| std::iter::once(s.get_name()).chain(s.get_visible_aliases()))
        .collect()
}

/// A command's name and visible aliases.
fn spellings(cmd: &Command) -> Vec<&str> {
    std::iter::once(cmd.get_name())
        .chain(cmd.get_visible_aliases())
        .collect()
}

/// The words after `git berth` that print the worktree names.
const WORKTREES_WORDS: &str = "completions worktrees";

/// The words after `git berth` that print the live agents' names.
const AGENTS_WORDS: &str = "completions agents";

/// The call that prints the worktree names, as the zsh and fish scripts run it.
fn worktrees_call() -> String {
    format!("{} {WORKTREES_WORDS} 2>/dev/null", names::TOOL)
}

/// The call that prints the live agents' names, as the zsh and fish scripts run it.
fn agents_call() -> String {
    format!("{} {AGENTS_WORDS} 2>/dev/null", names::TOOL)
}

/// The completion script for `shell`, made from `cmd`.
pub fn script(shell: Shell, cmd: Command) -> String {
    let mut cmd = cmd;
    cmd.set_bin_name(names::BIN);
    cmd.build();
    match shell {
        Shell::Bash => bash(&cmd),
        Shell::Zsh => zsh(&cmd),
        Shell::Fish => fish(&cmd),
    }
}

fn generated(shell: clap_complete::Shell, cmd: &Command) -> String {
    let mut cmd = cmd.clone();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, names::BIN, &mut buf);
    String::from_utf8(buf).expect("clap_complete writes UTF-8")
}

/// clap_complete's zsh function `_git-berth`, which zsh's git completion calls for `git berth`.
/// Where a command takes worktree names or command names, clap_complete is handed a placeholder
/// value, and the list it writes is replaced by the function that makes it at TAB time.
fn zsh(cmd: &Command) -> String {
    const WORKTREES: &str = "__berth_worktrees__";
    const AGENTS: &str = "__berth_agents__";
    const COMMANDS: &str = "__berth_commands__";
    // Each positional that takes worktree, agent or command names is given a marker value,
    // replaced below by the function that offers them; one with known values, those values.
    fn mark(cmd: clap::Command) -> clap::Command {
        let first = positional_words(&cmd);
        let words: Vec<(String, Option<Vec<&'static str>>)> = cmd
            .get_positionals()
            .enumerate()
            .map(|(at, arg)| {
                let words = if at == 0 {
                    first.clone()
                } else {
                    arg_words(&cmd, arg)
                };
                let values = match words {
                    Some(Words::Worktrees) => Some(vec![WORKTREES]),
                    Some(Words::Agents) => Some(vec![AGENTS]),
                    Some(Words::Commands) => Some(vec![COMMANDS]),
                    // Values clap knows it writes itself; the runtimes berth checks it does not.
                    Some(Words::Values(_)) if arg.get_possible_values().is_empty() => {
                        Some(crate::orchestrator::runtime::Runtime::names())
                    }
                    _ => None,
                };
                (arg.get_id().to_string(), values)
            })
            .collect();
        // Every positional is changed, in order: a changed argument goes to the end of the
        // list, and zsh is told the positionals in the list's order.
        let mut cmd = cmd;
        for (id, values) in words {
            cmd = cmd.mut_arg(id, |arg| match values {
                Some(values) => arg.value_parser(PossibleValuesParser::new(values)),
                None => arg,
            });
        }
        let nested: Vec<String> = cmd
            .get_subcommands()
            .map(|s| s.get_name().to_owned())
            .collect();
        for name in nested {
            cmd = cmd.mut_subcommand(name, mark);
        }
        cmd
    }
    let text = generated(clap_complete::Shell::Zsh, &mark(cmd.clone()))
        .replace(&format!("({WORKTREES})"), "_git-berth_worktrees")
        .replace(&format!("({AGENTS})"), "_git-berth_agents")
        .replace(&format!("({COMMANDS})"), "_git-berth_commands");
    // The helpers go before the script's last lines, which may run the completion at once.
    let helper = |what: &str, call: String| {
        format!(
            "(( $+functions[_git-berth_{what}s] )) ||
_git-berth_{what}s() {{
    local -a {what}s
    {what}s=(${{(f)\"$({call})\"}})
    _describe -t {what}s '{what}' {what}s
}}

"
        )
    };
    let helper = helper("worktree", worktrees_call()) + &helper("agent", agents_call());
    let tail = "if [ \"$funcstack[1]\" = \"_git-berth\" ]";
    match text.rfind(tail) {
        Some(at) => format!("{}{helper}{}", &text[..at], &text[at..]),
        None => format!("{text}\n{helper}"),
    }
}

/// The fish function that tells which positional of a command is being completed.
const FISH_POSITION: &str = r#"# Whether the word being completed is the positional at index $argv[2] after the command
# spelled as one of the words of $argv[1]; option words do not count.
function __fish_git_berth_position
    set -l seen 0
    set -l n 0
    for token in (commandline -opc)[2..-1]
        if test $seen = 0
            contains -- $token (string split ' ' -- $argv[1]); and set seen 1
        else if not string match -q -- '-*' $token
            set n (math $n + 1)
        end
    end
    test $n = $argv[2]
end
"#;

/// clap_complete's fish completions for `git-berth` (fish's git completion hands `git berth`
/// to them), and the positional words it leaves out.
fn fish(cmd: &Command) -> String {
    let mut text = generated(clap_complete::Shell::Fish, cmd);
    let using = format!("__fish_{}_using_subcommand", names::BIN.replace('-', "_"));
    text.push_str("\n# Positional words: worktree names from the registry, commands, values.\n");
    text.push_str(FISH_POSITION);
    let fish_words = |cmd: &Command, words: Option<Words>| match words {
        Some(Words::Worktrees) => Some(format!("({})", worktrees_call())),
        Some(Words::Agents) => Some(format!("({})", agents_call())),
        Some(Words::Commands) => Some(visible_commands(cmd).join(" ")),
        Some(Words::Values(values)) => Some(values.join(" ")),
        // clap_complete completes subcommands itself.
        Some(Words::Subcommands(_)) | None => None,
    };
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let spelled = spellings(sub).join(" ");
        let positions = positions(sub);
        if !positions.is_empty() {
            for (at, words) in positions.into_iter().enumerate() {
                let Some(words) = fish_words(cmd, words) else {
                    continue;
                };
                let _ = writeln!(
                    text,
                    "complete -c {bin} -n \"{using} {spelled}; and __fish_git_berth_position \
                     '{spelled}' {at}\" -f -a \"{words}\"",
                    bin = names::BIN,
                );
            }
            continue;
        }
        let Some(words) = fish_words(cmd, positional_words(sub)) else {
            continue;
        };
        let _ = writeln!(
            text,
            "complete -c {bin} -n \"{using} {spelled}\" -f -a \"{words}\"",
            bin = names::BIN,
        );
    }
    // A command's own commands (`review approve`): their words once one is on the line.
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        for nested in sub.get_subcommands().filter(|s| !s.is_hide_set()) {
            let words = match positional_words(nested) {
                Some(Words::Worktrees) => format!("({})", worktrees_call()),
                Some(Words::Agents) => format!("({})", agents_call()),
                Some(Words::Values(values)) => values.join(" "),
                _ => continue,
            };
            let _ = writeln!(
                text,
                "complete -c {bin} -n \"{using} {spellings}; and __fish_seen_subcommand_from \
                 {nested}\" -f -a \"{words}\"",
                bin = names::BIN,
                spellings = spellings(sub).join(" "),
                nested = spellings(nested).join(" "),
            );
        }
    }
    text
}

/// A small `_git_berth` for git's bash completion (git-completion.bash): the commands, each
/// command's long options, the values an option takes where they are known, worktree names.
fn bash(cmd: &Command) -> String {
    let mut s = format!(
        "\
# bash completion for git berth, through git's own completion: `git berth <TAB>` calls
# _git_berth. Generated by `git berth completions bash`; regenerate rather than edit.
#
# Install: git berth completions bash > ~/.local/share/bash-completion/completions/git-berth
# (git's completion loads it on the first `git berth <TAB>`), or, without the bash-completion
# package, source this file from ~/.bashrc after git's completion.

_git_berth ()
{{
\tlocal commands=\"{commands}\"
\tlocal command
\tcommand=\"$(__git_find_on_cmdline \"$commands\")\"

\t# The value of an option: `--opt <TAB>` and `--opt=<TAB>`.
\tlocal option=\"$prev\" value=\"$cur\"
\tcase \"$cur\" in
\t--*=*) option=\"${{cur%%=*}}\" value=\"${{cur#*=}}\" ;;
\tesac
\tcase \"$command,$option\" in
",
        commands = visible_commands(cmd).join(" ")
    );
    for arg in cmd.get_arguments().filter(|a| a.is_global_set()) {
        if let (Some(long), Some(values)) = (arg.get_long(), bash_value(arg)) {
            let _ = writeln!(s, "\t*,--{long}) {values}; return ;;");
        }
    }
    let subs: Vec<&Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    let patterns = |sub: &Command, suffix: &str| -> String {
        let spelled: Vec<String> = spellings(sub)
            .iter()
            .map(|p| format!("{p},{suffix}"))
            .collect();
        spelled.join("|")
    };
    for sub in &subs {
        for arg in sub
            .get_arguments()
            .filter(|a| !a.is_hide_set() && !a.is_global_set())
        {
            if let (Some(long), Some(values)) = (arg.get_long(), bash_value(arg)) {
                let _ = writeln!(
                    s,
                    "\t{}) {values}; return ;;",
                    patterns(sub, &format!("--{long}"))
                );
            }
        }
    }
    s.push_str(
        "\
\t*,--*) case \"$cur\" in --*=*) return ;; esac ;;
\tesac

\tcase \"$command,$cur\" in
",
    );
    let _ = writeln!(
        s,
        "\t,--*) __gitcomp \"{}\" ;;",
        long_options(cmd).join(" ")
    );
    s.push_str("\t,*) __gitcomp \"$commands\" ;;\n");
    for sub in &subs {
        // A command with commands of its own completes all its words in one branch.
        if let Some(branch) = bash_nested(sub) {
            let _ = writeln!(s, "\t{}){branch} ;;", patterns(sub, "*"));
            continue;
        }
        let _ = writeln!(
            s,
            "\t{}) __gitcomp \"{}\" ;;",
            patterns(sub, "--*"),
            long_options(sub).join(" ")
        );
    }
    for sub in subs.iter().filter(|sub| bash_nested(sub).is_none()) {
        if let Some(branch) = bash_positions(sub) {
            let _ = writeln!(s, "\t{}){branch} ;;", patterns(sub, "*"));
            continue;
        }
        let words = match bash_words(sub) {
            Some(words) => words,
            // Nothing offered: bash falls back to file names, as git's completion sets it up.
            None => continue,
        };
        let _ = writeln!(s, "\t{}) {words} ;;", patterns(sub, "*"));
    }
    let _ = write!(
        s,
        "\
\tesac
}}

# The index of the positional word being completed after the command on the line ($1): words
# that are neither options nor the value of an option given apart (one of $2, `--backend tmux`).
__git_berth_position ()
{{
\tlocal i n=0 seen= skip=
\tfor ((i = 1; i < cword; i++)); do
\t\tif [ -z \"$seen\" ]; then
\t\t\t[ \"${{words[i]}}\" = \"$1\" ] && seen=y
\t\telif [ -n \"$skip\" ]; then
\t\t\tskip=
\t\telse
\t\t\tcase \"${{words[i]}}\" in
\t\t\t--*=*|-) ;;
\t\t\t-*) case \" $2 \" in *\" ${{words[i]}} \"*) skip=y ;; esac ;;
\t\t\t*) n=$((n + 1)) ;;
\t\t\tesac
\t\tfi
\tdone
\techo \"$n\"
}}

# `git-berth <TAB>` as well, through the same helpers, where git's completion is loaded.
if ! declare -F __git_complete >/dev/null && declare -F _completion_loader >/dev/null; then
\t_completion_loader git
fi
if declare -F __git_complete >/dev/null; then
\t__git_complete {bin} _git_berth
fi
",
        bin = names::BIN
    );
    s
}

/// For a command whose positionals take different words (`layer1 <name> <branch> [<runtime>]`),
/// the body of its case branch: the position being completed decides what is offered.
fn bash_positions(cmd: &Command) -> Option<String> {
    let positions = positions(cmd);
    if positions.is_empty() {
        return None;
    }
    // Options whose value may come as the next word, which is then no positional.
    let valued: Vec<String> = cmd
        .get_arguments()
        .filter(|a| takes_value(a) && !a.is_positional())
        .flat_map(|a| {
            let long = a.get_long().map(|l| format!("--{l}"));
            let short = a.get_short().map(|c| format!("-{c}"));
            long.into_iter().chain(short)
        })
        .collect();
    let mut s = format!(
        "\n\t\tcase \"$(__git_berth_position \"$command\" \"{}\")\" in",
        valued.join(" ")
    );
    for (at, words) in positions.into_iter().enumerate() {
        if let Some(words) = words.and_then(|w| bash_words_for(&w)) {
            let _ = write!(s, "\n\t\t{at}) {words} ;;");
        }
    }
    s.push_str("\n\t\tesac");
    Some(s)
}

/// The bash that completes `cmd`'s positional words, if anything better than file names.
fn bash_words(cmd: &Command) -> Option<String> {
    bash_words_for(&positional_words(cmd)?)
}

/// The bash that offers `words`.
fn bash_words_for(words: &Words) -> Option<String> {
    // `__git` runs git as the command line does (`git -C <dir>`), quietly.
    let tool = names::TOOL.trim_start_matches("git ");
    Some(match words {
        Words::Worktrees => format!("__gitcomp_nl \"$(__git {tool} {WORKTREES_WORDS})\""),
        Words::Agents => format!("__gitcomp_nl \"$(__git {tool} {AGENTS_WORDS})\""),
        Words::Commands => "__gitcomp \"$commands\"".to_owned(),
        Words::Subcommands(words) | Words::Values(words) => {
            format!("__gitcomp \"{}\"", words.join(" "))
        }
    })
}

/// For a command with commands of its own (`review approve`), the body of its one case branch:
/// the nested command on the line decides the options and words offered.
fn bash_nested(cmd: &Command) -> Option<String> {
    let nested: Vec<&Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    if nested.is_empty() {
        return None;
    }
    let names = visible_commands(cmd).join(" ");
    let mut s = format!(
        "\n\t\tlocal nested=\"$(__git_find_on_cmdline \"{names}\")\"\n\t\tcase \"$nested,$cur\" in\n\
         \t\t,--*) __gitcomp \"{}\" ;;\n\t\t,*) __gitcomp \"{names}\" ;;\n",
        long_options(cmd).join(" ")
    );
    for sub in nested {
        let spelled = spellings(sub).join("|");
        let _ = writeln!(
            s,
            "\t\t{}) __gitcomp \"{}\" ;;",
            spellings(sub)
                .iter()
                .map(|p| format!("{p},--*"))
                .collect::<Vec<_>>()
                .join("|"),
            long_options(sub).join(" ")
        );
        if let Some(words) = bash_words(sub) {
            let _ = writeln!(s, "\t\t{}) {words} ;;", spelled.replace('|', ",*|") + ",*");
        }
    }
    s.push_str("\t\tesac");
    Some(s)
}

/// Does this argument take a value?
fn takes_value(arg: &Arg) -> bool {
    matches!(arg.get_action(), ArgAction::Set | ArgAction::Append)
}

/// `--name` for a flag, `--name=` for an option that takes a value (git's completion then adds
/// no space), and `--help`; hidden ones left out.
fn long_options(cmd: &Command) -> Vec<String> {
    let mut options: Vec<String> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| {
            let long = a.get_long()?;
            Some(format!("--{long}{}", if takes_value(a) { "=" } else { "" }))
        })
        .collect();
    if !options.iter().any(|o| o == "--help") {
        options.push("--help".to_owned());
    }
    options
}

/// How bash completes an option's value: its possible values, refs for a revision or branch, or
/// nothing (`--setup <cmd>`). `None` for a flag.
fn bash_value(arg: &Arg) -> Option<String> {
    if !takes_value(arg) {
        return None;
    }
    let values = possible_values(arg);
    let value_name = arg
        .get_value_names()
        .and_then(|n| n.first())
        .map(|n| n.as_str().to_owned())
        .unwrap_or_default();
    Some(if !values.is_empty() {
        format!("__gitcomp \"{}\" \"\" \"$value\"", values.join(" "))
    } else if arg.get_value_delimiter() == Some(',') && arg.get_id() == "runtime" {
        // `init --runtime claude,co<TAB>`: a comma list; the word after the last comma completes.
        let runtimes: Vec<&str> = crate::guard::runtime::Runtime::ALL
            .iter()
            .map(|r| r.name())
            .collect();
        format!(
            "__gitcomp \"{}\" \"${{value%\"${{value##*,}}\"}}\" \"${{value##*,}}\"",
            runtimes.join(" ")
        )
    } else if matches!(value_name.as_str(), "REV" | "BRANCH") {
        "__git_complete_refs --cur=\"$value\"".to_owned()
    } else {
        ":".to_owned()
    })
}
