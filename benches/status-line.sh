#!/usr/bin/env bash
# Benchmark: `git berth status-line` on a repository with 32 worktrees of a 5,000-file tree,
# against `git berth list` on the same repository (which opens every checkout for its dirtiness
# and drift; status-line reads only the registry, the claims and the review refs).
#
#   benches/status-line.sh [DIR]   # DIR: where the scratch folder goes (default: $TMPDIR or /tmp)
#
# RUNS (default 7, at least 5) timed runs per command, order alternated after a warm-up; medians
# (in ms, to 0.1 ms) and the ratio status-line/list are printed. Target (issue 23): status-line
# under 10 ms.
set -euo pipefail

WORKTREES=32
BENCH=status-line
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bench_repo "$WORK/repo"
for ((i = 0; i < WORKTREES; i++)); do
    "$BIN" add "wt$i" > /dev/null 2>&1
done
# What the counts look at: a worktree another session holds, commits waiting for a review, one
# of them approved by another session, one free worktree.
(cd "$("$BIN" path wt1)" && echo more >> dir1/f1.txt && git commit -qam more)
(cd "$("$BIN" path wt2)" && echo more >> dir2/f2.txt && git commit -qam more)
BERTH_SESSION=reviewer "$BIN" review approve wt2 > /dev/null 2>&1
"$BIN" release wt3 > /dev/null 2>&1
BERTH_SESSION=other BERTH_SESSION_PID=$$ "$BIN" claim wt3 > /dev/null 2>&1
"$BIN" release wt4 > /dev/null 2>&1
echo "segment: $("$BIN" status-line)"
[[ $("$BIN" status-line --format '{total}') == "$WORKTREES" ]] || { echo "expected $WORKTREES worktrees" >&2; exit 1; }

# Wall time of one run of "$@", in microseconds.
us() { local t0 t1; t0=$(date +%s%N); "$@"; t1=$(date +%s%N); echo $(((t1 - t0) / 1000)); }
line_side() { "$BIN" status-line > /dev/null; }
list_side() { "$BIN" list > /dev/null; }

line_side; list_side
L=() T=()
for ((r = 0; r < RUNS; r++)); do
    if ((r % 2)); then L+=("$(us line_side)"); T+=("$(us list_side)")
    else T+=("$(us list_side)"); L+=("$(us line_side)"); fi
done
lm=$(median "${L[@]}") tm=$(median "${T[@]}")
echo "machine: $(nproc) cores; $(df -T "$WORK" | awk 'NR==2 {print $2}') at $WORK"
echo "git berth status-line (us): ${L[*]}  median $lm"
echo "git berth list (us):        ${T[*]}  median $tm"
awk -v l="$lm" -v t="$tm" 'BEGIN {printf "status-line %.1f ms, list %.1f ms, ratio status-line/list: %.3f (target: status-line under 10 ms)\n", l / 1000, t / 1000, l / t}'
