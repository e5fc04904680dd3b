#!/usr/bin/env bash
# Benchmark: `git berth list` on a repository with 32 worktrees of a 5,000-file tree, against a
# shell loop that runs `git status --porcelain` in each worktree (what list replaces).
#
#   benches/list.sh [DIR]      # DIR: where the scratch folder goes (default: $TMPDIR or /tmp)
#
# RUNS (default 7, at least 5) timed runs per tool, order alternated; medians and the ratio
# berth/git are printed. Target (issue 3): at most 0.5.
set -euo pipefail

WORKTREES=32
BENCH=list
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bench_repo "$WORK/repo"
for ((i = 0; i < WORKTREES; i++)); do
    "$BIN" add "wt$i" > /dev/null 2>&1
done
# A little of everything list must notice: a modified file, an untracked file, a commit.
echo change >> "$("$BIN" path wt0)/dir0/f0.txt"
touch "$("$BIN" path wt1)/untracked"
(cd "$("$BIN" path wt2)" && echo more >> dir1/f1.txt && git commit -qam more)
mapfile -t PATHS < <("$BIN" list --json | sed -n 's/^ *"path": "\(.*\)",$/\1/p')
((${#PATHS[@]} == WORKTREES)) || { echo "expected $WORKTREES worktrees, got ${#PATHS[@]}" >&2; exit 1; }

git_side() { for p in "${PATHS[@]}"; do git -C "$p" status --porcelain > /dev/null; done; }
berth_side() { "$BIN" list > /dev/null; }

race
echo "git status loop (ms): ${G[*]}  median $gm"
echo "git berth list (ms):  ${B[*]}  median $bm"
awk -v b="$bm" -v g="$gm" 'BEGIN {printf "ratio berth/git: %.2f (target at most 0.5)\n", b / g}'
