#!/usr/bin/env bash
# Benchmark: `git berth collect` and its pairwise conflict forecast on 16 worktrees of a
# 5,000-file tree (benches/list.sh's repository) that all change two files in common: each pair
# conflicts on one line of conflict.txt and overlaps harmlessly in shared.txt, so all 120 pairs
# are merged in memory and every one has a conflict to place. Against it: a shell loop of
# `git merge-tree --write-tree` over the same 120 pairs (the forecast alone, done by git).
#
#   benches/collect.sh [DIR]   # DIR: where the scratch folder goes (default: $TMPDIR or /tmp)
#
# RUNS (default 7, at least 5) timed runs per tool, order alternated; medians are printed.
# Budget (issue 12, item 5): collect under 1000 ms.
set -euo pipefail

WORKTREES=16
BENCH=collect
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

extra() {
    for ((l = 1; l <= 40 * WORKTREES; l++)); do echo "shared line $l"; done > shared.txt
    for ((l = 1; l <= 20; l++)); do echo "conflict line $l"; done > conflict.txt
}
bench_repo "$WORK/repo"
for ((i = 0; i < WORKTREES; i++)); do
    wt=$("$BIN" add "wt$i" 2> /dev/null)
    # Its own line of shared.txt (40 lines from every other: a clean overlap), line 10 of
    # conflict.txt (every other rewrites it too: a conflict), and a file of its own.
    sed -i "s/^shared line $((40 * i + 20))\$/shared line by wt$i/" "$wt/shared.txt"
    sed -i "s/^conflict line 10\$/conflict line 10 by wt$i/" "$wt/conflict.txt"
    echo "wt$i" > "$wt/dir$i/own.txt"
    git -C "$wt" add -A && git -C "$wt" commit -qm "wt$i: its change"
done

PAIRS=()
for ((i = 0; i < WORKTREES; i++)); do
    for ((j = i + 1; j < WORKTREES; j++)); do PAIRS+=("berth/wt$i berth/wt$j"); done
done
conflicts=$("$BIN" collect --json | grep -c '"lines"' || true)
((conflicts == ${#PAIRS[@]})) || { echo "expected ${#PAIRS[@]} conflicts, got $conflicts" >&2; exit 1; }

git_side() {
    for pair in "${PAIRS[@]}"; do
        # shellcheck disable=SC2086 # two branch names
        git merge-tree --write-tree --name-only $pair > /dev/null || true
    done
}
berth_side() { "$BIN" collect > /dev/null; }

race
echo "worktrees: $WORKTREES, pairs merged: ${#PAIRS[@]}, each with a conflict and an overlap"
echo "git merge-tree loop over the pairs (ms): ${G[*]}  median $gm"
echo "git berth collect (ms):                  ${B[*]}  median $bm"
echo "collect: $bm ms (budget: under 1000 ms)"
