#!/usr/bin/env bash
# Benchmark: `git berth fleet up` of 16 `shell` agents, each in its own worktree, against 16
# `git worktree add -b` in a row, on a repository of 20,000 small files in 200 folders (one
# commit, packed). Issue 19's goal: fleet up under 0.3 of git's time, since berth makes the
# worktrees in parallel.
#
#   benches/fleet.sh [DIR]          # DIR: where the scratch folder goes (default $TMPDIR or /tmp)
#   RUNS=5 AGENTS=16 benches/fleet.sh /dev/shm
#
# Each run starts from no worktree: git's side adds the 16 worktrees one after another; berth's
# side runs `git berth fleet up` (16 background agents whose prompt is `true`) and is timed until
# the command returns, every worktree made and every agent started. Between runs both are taken
# down untimed (`git worktree remove`, `git berth fleet down`). Whole-process wall time in ms.
set -euo pipefail

BENCH=fleet
source "$(dirname "$0")/lib.sh"
FILES=20000
DIRS=200
AGENTS=${AGENTS:-16}

extra() { :; }
bench_repo "$WORK/repo"
cd "$WORK/repo"

manifest=$WORK/fleet.toml
{
    printf 'name = "bench"\n\n[defaults]\ntype = "shell"\nbackground = true\nprompt = "true"\n'
    for ((i = 0; i < AGENTS; i++)); do printf '\n[[agents]]\nname = "a%d"\n' "$i"; done
} > "$manifest"

git_side() {
    for ((i = 0; i < AGENTS; i++)); do git worktree add -q -b "g$i" "$WORK/git/g$i"; done
}
git_down() {
    for ((i = 0; i < AGENTS; i++)); do git worktree remove --force "$WORK/git/g$i"; done
    for ((i = 0; i < AGENTS; i++)); do git branch -q -D "g$i"; done
}
berth_side() { git berth fleet up "$manifest" > /dev/null; }
berth_down() { git berth fleet down bench > /dev/null 2>&1; }

# Warm-up of both, then RUNS timed runs each, the order alternated.
git_side; git_down; berth_side; berth_down
G=() B=()
for ((r = 0; r < RUNS; r++)); do
    sync
    if ((r % 2)); then
        G+=("$(ms git_side)"); git_down; sync; B+=("$(ms berth_side)"); berth_down
    else
        B+=("$(ms berth_side)"); berth_down; sync; G+=("$(ms git_side)"); git_down
    fi
done
gm=$(median "${G[@]}") bm=$(median "${B[@]}")
# The processor time (user + system) of one more run of each: making a worktree is mostly the
# kernel creating its files, so no side can go below its processor time shared over the cores.
cpu_ms() {
    local out=$WORK/cpu
    { TIMEFORMAT='%U %S'; time "$@" 2> /dev/null; } 2> "$out"
    awk '{ printf "%d", ($1 + $2) * 1000 }' "$out"
}
gc=$(cpu_ms git_side); git_down
bc=$(cpu_ms berth_side); berth_down
echo "machine: $(nproc) cores; $(df -T "$WORK" | awk 'NR==2 {print $2}') at $WORK"
echo "repository: $FILES files in $DIRS folders; $AGENTS worktrees; $RUNS runs"
echo "git worktree add -b x$AGENTS: ${G[*]} ms (median $gm)"
echo "git berth fleet up:          ${B[*]} ms (median $bm)"
awk -v b="$bm" -v g="$gm" 'BEGIN { printf "ratio: %.2f of git'"'"'s time (goal: under 0.3)\n", b / g }'
echo "processor time of one run: git $gc ms, berth $bc ms ($((gc / AGENTS)) and $((bc / AGENTS)) ms a worktree)"
awk -v bc="$bc" -v g="$gm" -v n="$(nproc)" 'BEGIN { printf "floor: berth on all %d cores at once would still take %.2f of git'"'"'s time\n", n, bc / n / g }'
