#!/usr/bin/env bash
# Benchmark: `git berth list` on a repository with 32 worktrees of a 5,000-file tree, against a
# shell loop that runs `git status --porcelain` in each worktree (what list replaces).
#
#   benches/list.sh [DIR]      # DIR: where the scratch folder goes (default: $TMPDIR or /tmp)
#
# RUNS (default 7, at least 5) timed runs per tool, order alternated; medians and the ratio
# berth/git are printed. Target (issue 3): at most 0.5.
set -euo pipefail

FILES=5000
DIRS=50
WORKTREES=32
RUNS=${RUNS:-7}
((RUNS >= 5)) || { echo "RUNS must be at least 5" >&2; exit 1; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
echo "building: cargo build --release --locked" >&2
(cd "$ROOT" && cargo build --release --locked --quiet)
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/git-berth

PARENT=${1:-${TMPDIR:-/tmp}}
WORK=$(mktemp -d "$PARENT/berth-list-bench.XXXXXX")
WORK=$(cd "$WORK" && pwd -P)
trap 'rm -rf "$WORK"' EXIT

export HOME=$WORK/home XDG_DATA_HOME=$WORK/data GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
export BERTH_SESSION=bench
mkdir -p "$HOME" "$XDG_DATA_HOME"
PATH=$(dirname "$BIN"):$PATH

REPO=$WORK/repo
mkdir -p "$REPO"
cd "$REPO"
git init -q -b main
for ((d = 0; d < DIRS; d++)); do
    mkdir -p "dir$d"
    for ((f = 0; f < FILES / DIRS; f++)); do
        printf 'file %d in dir %d\n' "$f" "$d" > "dir$d/f$f.txt"
    done
done
git add -A && git commit -qm "5,000 files" && git gc -q

for ((i = 0; i < WORKTREES; i++)); do
    "$BIN" add "wt$i" > /dev/null 2>&1
done
# A little of everything list must notice: a modified file, an untracked file, a commit.
echo change >> "$("$BIN" path wt0)/dir0/f0.txt"
touch "$("$BIN" path wt1)/untracked"
(cd "$("$BIN" path wt2)" && echo more >> dir1/f1.txt && git commit -qam more)
mapfile -t PATHS < <("$BIN" list --json | sed -n 's/^ *"path": "\(.*\)",$/\1/p')
((${#PATHS[@]} == WORKTREES)) || { echo "expected $WORKTREES worktrees, got ${#PATHS[@]}" >&2; exit 1; }

git_loop() { for p in "${PATHS[@]}"; do git -C "$p" status --porcelain > /dev/null; done; }
berth_list() { "$BIN" list > /dev/null; }

ms() { local t0 t1; t0=$(date +%s%N); "$@"; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

git_loop; berth_list   # warm the caches for both
G=() B=()
for ((r = 0; r < RUNS; r++)); do
    if ((r % 2)); then G+=("$(ms git_loop)"); B+=("$(ms berth_list)")
    else B+=("$(ms berth_list)"); G+=("$(ms git_loop)"); fi
done
gm=$(median "${G[@]}") bm=$(median "${B[@]}")
echo "machine: $(nproc) cores; $(df -T "$WORK" | awk 'NR==2 {print $2}') at $WORK"
echo "git status loop (ms): ${G[*]}  median $gm"
echo "git berth list (ms):  ${B[*]}  median $bm"
awk -v b="$bm" -v g="$gm" 'BEGIN {printf "ratio berth/git: %.2f (target at most 0.5)\n", b / g}'
