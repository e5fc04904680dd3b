# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_git_berth_global_optspecs
    string join \n session= h/help V/version
end

function __fish_git_berth_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_git_berth_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_git_berth_using_subcommand
    set -l cmd (__fish_git_berth_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c git-berth -n "__fish_git_berth_needs_command" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_needs_command" -s V -l version -d 'Print version'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "add" -d 'Create a worktree on a new branch and print its path'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "list" -d 'Show the managed worktrees: branch, base, ahead/behind, dirty, path'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "ls" -d 'Show the managed worktrees: branch, base, ahead/behind, dirty, path'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "claim" -d 'Take a worktree for your session without creating one'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "release" -d 'Give a worktree back so another session can claim it'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "own" -d 'Claim the paths a worktree will change (files, folders, globs), or give them back'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "status-line" -d 'Print the compact worktree segment for a status bar (tmux, starship, Claude Code)'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "owners" -d 'Show who owns which paths: worktree, agent, paths, since (lapsed owners are left out)'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "path" -d 'Print the path of a worktree'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "remove" -d 'Remove worktrees that hold no uncommitted or unmerged work'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "rm" -d 'Remove worktrees that hold no uncommitted or unmerged work'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "clean" -d 'Remove the worktrees that are clean, landed and held by no other live session; say why each other stays'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "collect" -d 'The merge-back overview: commits, dirty, unpushed, clean merge, and which worktrees conflict'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "review" -d 'Approve or reject a worktree\'s head, or show where reviews stand'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "prune" -d 'Forget worktrees whose folder is gone, drop stale admin entries, finish what a kill cut short'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "ship" -d 'Land approved worktrees on the trunk, each gated on its merged result'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "log" -d 'Show every landing ship made'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "setup" -d 'Bring a worktree up to date with the hooks: ports, seeding, setup (adopts one berth did not make)'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "install" -d 'Write the worktree hooks (setup, teardown, ports, gate), or show those in force'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "trust" -d 'Trust this checkout\'s setup and teardown hooks so they may run'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "guard" -d 'Decide whether an agent\'s next action may run (exit 0 allow, 2 block)'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "init" -d 'Wire the guard into a repository for each agent runtime'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "hook" -d 'Serve an agent runtime\'s worktree hooks (Claude Code\'s WorktreeCreate / WorktreeRemove)'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "mcp" -d 'Serve the worktree tools to an agent runtime over MCP, on stdin and stdout'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "completions" -d 'Print the completion script for bash, zsh or fish'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "master" -d 'Start the master agent (layer 0) in the primary checkout, hatches open'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "layer1" -d 'Dispatch an agent into a new tab and a worktree of its own (from the master)'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "layer2" -d 'Split a layer-1 agent\'s tab and launch a helper in its worktree (from a layer-1 agent)'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "spawn" -d 'Launch a named agent in a tab of its own; agents of one --worktree group share it'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "respawn" -d 'Stop an agent gracefully and start it again, here or in another worktree'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "send" -d 'Type text into an agent\'s pane, then Enter'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "stop" -d 'Stop agents berth launched (SIGTERM, then SIGKILL), freeing their worktrees'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "agents" -d 'Show every agent berth launched here: layer, runtime, pane, alive or gone'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "ui" -d 'A live panel of every worktree: select one to go there, or to see its diff'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "feat" -d 'Open a change: a worktree on feat/<branch>, with a shell tab there'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "fleet" -d 'Start many agents from one manifest, list them, take them down'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "pipeline" -d 'Run a pipeline of agents in stages, with a judge that picks the best'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "pr-review" -d 'Review a pull request with agents, and post the review as its comment'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "pr-fix" -d 'Fix what a pull request\'s reviews ask for, with an agent at its head'
complete -c git-berth -n "__fish_git_berth_needs_command" -f -a "help" -d 'Print a command\'s help, or with no command the list of commands'
complete -c git-berth -n "__fish_git_berth_using_subcommand add" -l base -d 'Commit or branch the new branch starts from [default: HEAD of the worktree you are in]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand add" -l branch -d 'Check out this existing branch instead of creating <berth.branchPrefix><name>' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand add" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand add" -l no-reuse -d 'Refuse a name that already exists instead of reusing its worktree'
complete -c git-berth -n "__fish_git_berth_using_subcommand add" -l no-setup -d 'Do not seed files or run the setup hook now (`git berth setup <name>` does it later)'
complete -c git-berth -n "__fish_git_berth_using_subcommand add" -l json -d 'Print a JSON object instead of the path'
complete -c git-berth -n "__fish_git_berth_using_subcommand add" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand list" -l status -d 'Show only worktrees in this state (the one you stand in is always shown)' -r -f -a "available\t''
claimed\t''
stale\t''"
complete -c git-berth -n "__fish_git_berth_using_subcommand list" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand list" -l all -d 'Also show the primary checkout and linked worktrees berth did not make'
complete -c git-berth -n "__fish_git_berth_using_subcommand list" -l json -d 'Print JSON: {"worktrees": [...]}, one object per worktree'
complete -c git-berth -n "__fish_git_berth_using_subcommand list" -l full -d 'Add each worktree\'s port block, review, owned paths, last commit and whether its work has landed on the trunk'
complete -c git-berth -n "__fish_git_berth_using_subcommand list" -l mine -d 'Show only worktrees your session holds (the one you stand in is always shown)'
complete -c git-berth -n "__fish_git_berth_using_subcommand list" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand ls" -l status -d 'Show only worktrees in this state (the one you stand in is always shown)' -r -f -a "available\t''
claimed\t''
stale\t''"
complete -c git-berth -n "__fish_git_berth_using_subcommand ls" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand ls" -l all -d 'Also show the primary checkout and linked worktrees berth did not make'
complete -c git-berth -n "__fish_git_berth_using_subcommand ls" -l json -d 'Print JSON: {"worktrees": [...]}, one object per worktree'
complete -c git-berth -n "__fish_git_berth_using_subcommand ls" -l full -d 'Add each worktree\'s port block, review, owned paths, last commit and whether its work has landed on the trunk'
complete -c git-berth -n "__fish_git_berth_using_subcommand ls" -l mine -d 'Show only worktrees your session holds (the one you stand in is always shown)'
complete -c git-berth -n "__fish_git_berth_using_subcommand ls" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand claim" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand claim" -l json -d 'Print a JSON object'
complete -c git-berth -n "__fish_git_berth_using_subcommand claim" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand release" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand release" -l json -d 'Print a JSON object'
complete -c git-berth -n "__fish_git_berth_using_subcommand release" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand own" -l worktree -d 'The worktree that owns them [default: the one you stand in]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand own" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand own" -l release -d 'Give the paths back (all the worktree owns when none are named)'
complete -c git-berth -n "__fish_git_berth_using_subcommand own" -l json -d 'Print a JSON object'
complete -c git-berth -n "__fish_git_berth_using_subcommand own" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand status-line" -l format -d 'Print this template instead, its placeholders replaced by the counts (see below)' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand status-line" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand status-line" -l json -d 'Print the counts as JSON: {"total", "yours", "review", "claimed", "available", "stale"}'
complete -c git-berth -n "__fish_git_berth_using_subcommand status-line" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand owners" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand owners" -l json -d 'Print JSON: {"owners": [...]}, one object per worktree'
complete -c git-berth -n "__fish_git_berth_using_subcommand owners" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand path" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand path" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand remove" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand remove" -s f -l force -d 'Remove even with uncommitted changes or unmerged commits (never a locked worktree)'
complete -c git-berth -n "__fish_git_berth_using_subcommand remove" -s d -l delete-branch -d 'Delete the branch too (still refused when unmerged, unless --force)'
complete -c git-berth -n "__fish_git_berth_using_subcommand remove" -l json -d 'Print JSON: {"removed": [{"name", "path", "branch", "branch_deleted"}], "kept": [{"name", "path", "branch", "reason"}]}'
complete -c git-berth -n "__fish_git_berth_using_subcommand remove" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand rm" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand rm" -s f -l force -d 'Remove even with uncommitted changes or unmerged commits (never a locked worktree)'
complete -c git-berth -n "__fish_git_berth_using_subcommand rm" -s d -l delete-branch -d 'Delete the branch too (still refused when unmerged, unless --force)'
complete -c git-berth -n "__fish_git_berth_using_subcommand rm" -l json -d 'Print JSON: {"removed": [{"name", "path", "branch", "branch_deleted"}], "kept": [{"name", "path", "branch", "reason"}]}'
complete -c git-berth -n "__fish_git_berth_using_subcommand rm" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand clean" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand clean" -s n -l dry-run -d 'Say what would be removed and kept, change nothing'
complete -c git-berth -n "__fish_git_berth_using_subcommand clean" -s d -l delete-branch -d 'Delete the branches of the worktrees it removes (they are landed: nothing is lost)'
complete -c git-berth -n "__fish_git_berth_using_subcommand clean" -l json -d 'Print JSON: {"worktrees": [...], "branches": [...], "removed": n, "would_remove": n, "kept": n, "dry_run": bool}'
complete -c git-berth -n "__fish_git_berth_using_subcommand clean" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand collect" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand collect" -l json -d 'Print JSON: {"trunk", "worktrees": [...], "conflicts": [...], "forecast": {"conflicts", "overlaps"}}'
complete -c git-berth -n "__fish_git_berth_using_subcommand collect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and not __fish_seen_subcommand_from approve reject status" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and not __fish_seen_subcommand_from approve reject status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and not __fish_seen_subcommand_from approve reject status" -f -a "approve" -d 'Approve a worktree\'s head commit, so that it may land'
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and not __fish_seen_subcommand_from approve reject status" -f -a "reject" -d 'Reject a worktree\'s head commit, saying why'
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and not __fish_seen_subcommand_from approve reject status" -f -a "status" -d 'Show the review of every worktree, or of one'
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from approve" -l note -d 'What you checked, kept with the verdict' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from approve" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from approve" -l json -d 'Print the verdict written as a JSON object'
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from approve" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from reject" -l note -d 'Why, for the author to act on' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from reject" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from reject" -l json -d 'Print the verdict written as a JSON object'
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from reject" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from status" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from status" -l json -d 'Print JSON: {"reviews": [...]}, one object per worktree'
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand prune" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand prune" -s n -l dry-run -d 'Say what would be pruned, change nothing'
complete -c git-berth -n "__fish_git_berth_using_subcommand prune" -l json -d 'Print JSON: {"admin", "forget", "free", "finish", "agents", "branches": [...], "dry_run": bool}'
complete -c git-berth -n "__fish_git_berth_using_subcommand prune" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand ship" -l strategy -d 'How the branch lands: one new commit (squash), a merge commit, or a fast-forward' -r -f -a "squash\t''
merge\t''
ff\t''"
complete -c git-berth -n "__fish_git_berth_using_subcommand ship" -l gate -d 'Command that must pass on the merged result first [default: git config berth.gate, else the gate hook from `install --gate`]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand ship" -s m -l message -d 'The landing commit\'s message [default: squash: the first commit\'s subject and every commit\'s subject listed; merge: "Merge branch ..."]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand ship" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand ship" -l all-approved -d 'Land every approved worktree, those that overlap no other first'
complete -c git-berth -n "__fish_git_berth_using_subcommand ship" -l keep -d 'Keep the worktree, its branch and its ports after it landed'
complete -c git-berth -n "__fish_git_berth_using_subcommand ship" -l dry-run -d 'Print what would land, in which order, and the conflicts forecast; change nothing'
complete -c git-berth -n "__fish_git_berth_using_subcommand ship" -l push -d 'Then push the trunk to its remote (with the git program)'
complete -c git-berth -n "__fish_git_berth_using_subcommand ship" -l history -d 'Print the landing log instead (as `git berth log`)'
complete -c git-berth -n "__fish_git_berth_using_subcommand ship" -l json -d 'Print JSON: {"trunk", "dry_run", "order", "forecast", "worktrees": [...], "landed", "would_land", "refused"}'
complete -c git-berth -n "__fish_git_berth_using_subcommand ship" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand log" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand log" -l json -d 'Print JSON: {"landings": [{"worktree", "branch", "trunk", "old_tip", "new_tip", "strategy", "reviewer", "gate", "time"}]}'
complete -c git-berth -n "__fish_git_berth_using_subcommand log" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand setup" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand setup" -l json -d 'Print JSON: {"name", "path", "branch", "setup", "ports"}'
complete -c git-berth -n "__fish_git_berth_using_subcommand setup" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand install" -l setup -d 'Command the setup hook runs in each new worktree' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand install" -l teardown -d 'Command the teardown hook runs in the primary checkout when a worktree goes' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand install" -l ports -d 'How many ports each worktree gets (1-1000)' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand install" -l gate -d 'Command `ship` runs on each landing\'s merged result, in a scratch worktree, before the trunk moves' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand install" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand install" -l local -d 'Write to <common dir>/worktree-hooks, for this clone only, instead of .worktree-hooks'
complete -c git-berth -n "__fish_git_berth_using_subcommand install" -l json -d 'Print JSON: {"written": [paths], "hooks": [{"name", "value", "location", "committed"}]}'
complete -c git-berth -n "__fish_git_berth_using_subcommand install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand trust" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand trust" -l show -d 'Only show each hook and whether it is trusted'
complete -c git-berth -n "__fish_git_berth_using_subcommand trust" -l json -d 'Print JSON: {"hooks": [{"name", "state", "hash", "location"}], "newly_trusted": n}'
complete -c git-berth -n "__fish_git_berth_using_subcommand trust" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand guard" -l runtime -d 'Read this runtime\'s hook JSON on stdin (the tool call) and answer in its form' -r -f -a "claude\t''
codex\t''
gemini\t''
cursor\t''
copilot\t''
opencode\t''
pi\t''"
complete -c git-berth -n "__fish_git_berth_using_subcommand guard" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand guard" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand init" -l runtime -d 'Comma list of runtimes: claude, codex, gemini, cursor, copilot, opencode, pi (default: claude,opencode,pi)' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand init" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand init" -l worktrees -d 'Also make Claude Code create and remove its worktrees through berth'
complete -c git-berth -n "__fish_git_berth_using_subcommand init" -l with-orchestrator -d 'Also write the master agent\'s definition for each runtime in --runtime that has one: .claude/agents/master.md (claude; no Write, Edit, MultiEdit or NotebookEdit tool), .opencode/agent/master.md (opencode; edit and write denied), .pi/prompts/master.md (pi; the rule in words). codex, gemini, cursor and copilot get none'
complete -c git-berth -n "__fish_git_berth_using_subcommand init" -l force -d 'Overwrite berth\'s files and hook entries that differ from what this version installs'
complete -c git-berth -n "__fish_git_berth_using_subcommand init" -l no-mcp -d 'Leave out berth\'s MCP server (git berth mcp). Without this flag init registers it in the project configuration of each runtime that takes MCP servers (.mcp.json for claude and copilot, .codex/config.toml, .gemini/settings.json, .cursor/mcp.json, opencode.json) and lets Claude Code run worktree_list without asking; pi takes none and is skipped'
complete -c git-berth -n "__fish_git_berth_using_subcommand init" -l uninstall -d 'Take out exactly what init added, leaving every other key and hook as it was: from every runtime where berth\'s entries are found, unless --runtime names some. A master definition goes only while it is as init wrote it; a changed one is kept, with a warning'
complete -c git-berth -n "__fish_git_berth_using_subcommand init" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand hook; and not __fish_seen_subcommand_from worktree-create worktree-remove" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand hook; and not __fish_seen_subcommand_from worktree-create worktree-remove" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand hook; and not __fish_seen_subcommand_from worktree-create worktree-remove" -f -a "worktree-create" -d 'Claude Code\'s WorktreeCreate: read its JSON on stdin, add the worktree, print its path'
complete -c git-berth -n "__fish_git_berth_using_subcommand hook; and not __fish_seen_subcommand_from worktree-create worktree-remove" -f -a "worktree-remove" -d 'Claude Code\'s WorktreeRemove: read its JSON on stdin, remove the worktree unless it holds work'
complete -c git-berth -n "__fish_git_berth_using_subcommand hook; and __fish_seen_subcommand_from worktree-create" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand hook; and __fish_seen_subcommand_from worktree-create" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand hook; and __fish_seen_subcommand_from worktree-remove" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand hook; and __fish_seen_subcommand_from worktree-remove" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand mcp" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand completions" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand master" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand master" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand layer1" -l prompt -d 'The agent\'s first message: its task' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand layer1" -l backend -d 'The terminal to open it in [default: herdr inside herdr, else tmux]' -r -f -a "tmux\t'A tmux window (a split for layer 2): in the caller\'s session, else a detached one'
herdr\t'A herdr tab (a split for layer 2), when berth runs inside herdr'
none\t'No terminal: print the command to run, or run it here (`--here`)'"
complete -c git-berth -n "__fish_git_berth_using_subcommand layer1" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand layer1" -l here -d 'Run the agent in this terminal instead of a new tab or split'
complete -c git-berth -n "__fish_git_berth_using_subcommand layer1" -l json -d 'Print the agent\'s record as JSON instead of its worktree\'s path'
complete -c git-berth -n "__fish_git_berth_using_subcommand layer1" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand layer2" -l prompt -d 'The agent\'s first message: its task' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand layer2" -l backend -d 'The terminal to open it in [default: herdr inside herdr, else tmux]' -r -f -a "tmux\t'A tmux window (a split for layer 2): in the caller\'s session, else a detached one'
herdr\t'A herdr tab (a split for layer 2), when berth runs inside herdr'
none\t'No terminal: print the command to run, or run it here (`--here`)'"
complete -c git-berth -n "__fish_git_berth_using_subcommand layer2" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand layer2" -l here -d 'Run the agent in this terminal instead of a new tab or split'
complete -c git-berth -n "__fish_git_berth_using_subcommand layer2" -l json -d 'Print the agent\'s record as JSON instead of its worktree\'s path'
complete -c git-berth -n "__fish_git_berth_using_subcommand layer2" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand spawn" -l worktree -d 'The worktree it works in, made if missing and shared with every agent that names it [default: one named after the agent]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand spawn" -l runtime -d 'The runtime: opencode (default), claude, codex, pi or shell' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand spawn" -l prompt -d 'The agent\'s first message: its task' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand spawn" -l backend -d 'The terminal to open it in [default: herdr inside herdr, else tmux]' -r -f -a "tmux\t'A tmux window (a split for layer 2): in the caller\'s session, else a detached one'
herdr\t'A herdr tab (a split for layer 2), when berth runs inside herdr'
none\t'No terminal: print the command to run, or run it here (`--here`)'"
complete -c git-berth -n "__fish_git_berth_using_subcommand spawn" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand spawn" -l here -d 'Run the agent in this terminal instead of a new tab or split'
complete -c git-berth -n "__fish_git_berth_using_subcommand spawn" -l json -d 'Print the agent\'s record as JSON instead of its worktree\'s path'
complete -c git-berth -n "__fish_git_berth_using_subcommand spawn" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand respawn" -l worktree -d 'The worktree to move it to, made if missing [default: where it was]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand respawn" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand respawn" -l json -d 'Print the agent\'s record as JSON instead of its worktree\'s path'
complete -c git-berth -n "__fish_git_berth_using_subcommand respawn" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand send" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand send" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand stop" -l grace -d 'How long each agent gets to end after SIGTERM before SIGKILL (`30s`, `2m`) [default: 10s]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand stop" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand stop" -l all -d 'Stop every live agent berth launched for this repository'
complete -c git-berth -n "__fish_git_berth_using_subcommand stop" -l json -d 'Print JSON: {"agents": [{"name", "pid", "worktree", "outcome"}]}'
complete -c git-berth -n "__fish_git_berth_using_subcommand stop" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand agents" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand agents" -l json -d 'Print JSON: {"agents": [...]}, one object per agent'
complete -c git-berth -n "__fish_git_berth_using_subcommand agents" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand ui" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand ui" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand feat" -l backend -d 'The terminal to open the shell tab in [default: the one berth runs in, if any]' -r -f -a "tmux\t'A tmux window (a split for layer 2): in the caller\'s session, else a detached one'
herdr\t'A herdr tab (a split for layer 2), when berth runs inside herdr'
none\t'No terminal: print the command to run, or run it here (`--here`)'"
complete -c git-berth -n "__fish_git_berth_using_subcommand feat" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand feat" -l json -d 'Print a JSON object instead of the path'
complete -c git-berth -n "__fish_git_berth_using_subcommand feat" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and not __fish_seen_subcommand_from up ls down clean" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and not __fish_seen_subcommand_from up ls down clean" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and not __fish_seen_subcommand_from up ls down clean" -f -a "up" -d 'Start every agent of a manifest, each in its worktree, all at once'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and not __fish_seen_subcommand_from up ls down clean" -f -a "ls" -d 'Show the fleets and their agents: running, exited with its code, or gone'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and not __fish_seen_subcommand_from up ls down clean" -f -a "down" -d 'Stop a fleet\'s agents and remove its worktrees that are clean and merged'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and not __fish_seen_subcommand_from up ls down clean" -f -a "clean" -d 'Remove a fleet\'s kept worktrees that are clean and merged by now'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from up" -l var -d 'Give the manifest\'s input or var KEY this value (repeatable)' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from up" -l backend -d 'The terminal interactive agents open in [default: herdr inside herdr, else tmux]' -r -f -a "tmux\t'A tmux window (a split for layer 2): in the caller\'s session, else a detached one'
herdr\t'A herdr tab (a split for layer 2), when berth runs inside herdr'
none\t'No terminal: print the command to run, or run it here (`--here`)'"
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from up" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from up" -s n -l dry-run -d 'Print the whole plan (agents, worktrees, branches, command lines, variables, what each field became) and change nothing'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from up" -l json -d 'Print JSON: the fleet as `fleet ls --json` shows it (with --dry-run, the plan)'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from up" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from ls" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from ls" -l json -d 'Print JSON: {"fleets": [...]}, each with its agents and kept worktrees'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from down" -l grace -d 'How long each agent gets to end after SIGTERM before SIGKILL (`30s`, `2m`) [default: 10s]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from down" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from down" -l json -d 'Print JSON: {"fleet", "agents": [...], "worktrees": [...]}'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from down" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from clean" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from clean" -l json -d 'Print JSON: {"fleets": [{"fleet", "worktrees": [...]}]}'
complete -c git-berth -n "__fish_git_berth_using_subcommand fleet; and __fish_seen_subcommand_from clean" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and not __fish_seen_subcommand_from run show runs inspect" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and not __fish_seen_subcommand_from run show runs inspect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and not __fish_seen_subcommand_from run show runs inspect" -f -a "run" -d 'Run a pipeline: stages in order, each stage\'s agents in parallel, then its judge'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and not __fish_seen_subcommand_from run show runs inspect" -f -a "show" -d 'Print the expanded plan (stages, agents, worktrees, prompts) and change nothing'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and not __fish_seen_subcommand_from run show runs inspect" -f -a "runs" -d 'List the runs: pipeline, id, state, when it started, how long it took'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and not __fish_seen_subcommand_from run show runs inspect" -f -a "inspect" -d 'Show one run: its stages, agents, exit codes, times, logs and verdict'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from run" -l var -d 'Give the manifest\'s input or var KEY this value (repeatable)' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from run" -l resume -d 'Run again only what failed or never ran in run ID, in the same worktrees' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from run" -s j -l jobs -d 'How many agents run at once [default: the number of cores]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from run" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from run" -l json -d 'Print each change as one JSON object a line, then the run\'s record'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from show" -l var -d 'Give the manifest\'s input or var KEY this value (repeatable)' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from show" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from show" -l json -d 'Print the plan as JSON'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from runs" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from runs" -l json -d 'Print JSON: {"runs": [...]}'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from runs" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from inspect" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from inspect" -l json -d 'Print the run\'s record (run.json) as JSON'
complete -c git-berth -n "__fish_git_berth_using_subcommand pipeline; and __fish_seen_subcommand_from inspect" -s h -l help -d 'Print help'
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-review" -l preset -d 'The preset to run: dual, claude, codex, fix, or one of your own' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-review" -l pr -d 'The pull request\'s number [default: the current branch\'s, as gh finds it]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-review" -l var -d 'Give the preset\'s input or var KEY this value (repeatable)' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-review" -s j -l jobs -d 'How many agents run at once [default: the number of cores]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-review" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-review" -l json -d 'Print each change as one JSON object a line, then the run\'s record'
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-review" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-fix" -l pr -d 'The pull request\'s number [default: the current branch\'s, as gh finds it]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-fix" -l var -d 'Give the preset\'s input or var KEY this value (repeatable)' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-fix" -s j -l jobs -d 'How many agents run at once [default: the number of cores]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-fix" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-fix" -l json -d 'Print each change as one JSON object a line, then the run\'s record'
complete -c git-berth -n "__fish_git_berth_using_subcommand pr-fix" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-berth -n "__fish_git_berth_using_subcommand help" -l session -d 'Session that holds claims [default: $BERTH_SESSION, else the agent process, as <user>@<host>:<pid>]' -r
complete -c git-berth -n "__fish_git_berth_using_subcommand help" -s h -l help -d 'Print help'

# Positional words: worktree names from the registry, commands, values.
# Whether the word being completed is the positional at index $argv[2] after the command
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
complete -c git-berth -n "__fish_git_berth_using_subcommand claim" -f -a "(git berth completions worktrees 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand release" -f -a "(git berth completions worktrees 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand path" -f -a "(git berth completions worktrees 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand remove rm" -f -a "(git berth completions worktrees 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand ship" -f -a "(git berth completions worktrees 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand setup" -f -a "(git berth completions worktrees 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand completions" -f -a "bash zsh fish"
complete -c git-berth -n "__fish_git_berth_using_subcommand master" -f -a "opencode claude codex pi shell"
complete -c git-berth -n "__fish_git_berth_using_subcommand layer1; and __fish_git_berth_position 'layer1' 0" -f -a "(git berth completions worktrees 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand layer1; and __fish_git_berth_position 'layer1' 2" -f -a "opencode claude codex pi shell"
complete -c git-berth -n "__fish_git_berth_using_subcommand layer2; and __fish_git_berth_position 'layer2' 0" -f -a "(git berth completions worktrees 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand layer2; and __fish_git_berth_position 'layer2' 1" -f -a "opencode claude codex pi shell"
complete -c git-berth -n "__fish_git_berth_using_subcommand spawn; and __fish_git_berth_position 'spawn' 0" -f -a "(git berth completions worktrees 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand respawn" -f -a "(git berth completions agents 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand send; and __fish_git_berth_position 'send' 0" -f -a "(git berth completions agents 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand stop" -f -a "(git berth completions agents 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand help" -f -a "add list ls claim release own status-line owners path remove rm clean collect review prune ship log setup install trust guard init hook mcp completions master layer1 layer2 spawn respawn send stop agents ui feat fleet pipeline pr-review pr-fix help"
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from approve" -f -a "(git berth completions worktrees 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from reject" -f -a "(git berth completions worktrees 2>/dev/null)"
complete -c git-berth -n "__fish_git_berth_using_subcommand review; and __fish_seen_subcommand_from status" -f -a "(git berth completions worktrees 2>/dev/null)"
