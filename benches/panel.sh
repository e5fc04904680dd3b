#!/usr/bin/env bash
# Benchmark: `git berth ui`'s first full frame on a repository with 32 worktrees of a 5,000-file
# tree, against `git berth list` on the same repository; then the panel's CPU use over a minute
# of idling (utime + stime from /proc/<pid>/stat, in clock ticks).
#
#   benches/panel.sh [DIR]     # DIR: where the scratch folder goes (default: $TMPDIR or /tmp)
#
# The panel needs a terminal: both sides run in a pane of a private tmux server, the panel with
# BERTH_UI_EXIT_AFTER_FIRST_FRAME=1 (it leaves right after drawing its first frame). RUNS
# (default 7, at least 5) runs per side, order alternated; medians and the ratio ui/list printed.
# IDLE (default 60) seconds of idling are measured.
set -euo pipefail

WORKTREES=32
BENCH=panel
IDLE=${IDLE:-60}
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v tmux > /dev/null || { echo "tmux is needed" >&2; exit 1; }

bench_repo "$WORK/repo"
for ((i = 0; i < WORKTREES; i++)); do
    "$BIN" add "wt$i" > /dev/null 2>&1
done
echo change >> "$("$BIN" path wt0)/dir0/f0.txt"
(cd "$("$BIN" path wt2)" && echo more >> dir1/f1.txt && git commit -qam more)

SOCK=$WORK/tmux.sock
T() { tmux -S "$SOCK" "$@"; }
trap 'T kill-server 2> /dev/null || true; rm -rf "$WORK"' EXIT

# The timing loop, run in the pane so that the panel has its terminal.
cat > "$WORK/race.sh" << 'INNER'
ms() { local t0 t1; t0=$(date +%s%N); "$@"; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
list() { git berth list > /dev/null; }
ui() { BERTH_UI_EXIT_AFTER_FIRST_FRAME=1 git berth ui > /dev/null; }
list; ui
L=() U=()
for ((r = 0; r < RUNS; r++)); do
    if ((r % 2)); then L+=("$(ms list)"); U+=("$(ms ui)"); else U+=("$(ms ui)"); L+=("$(ms list)"); fi
done
echo "${L[*]}" > "$OUT.list"
echo "${U[*]}" > "$OUT.ui"
INNER
T -f /dev/null new-session -d -s bench -x 200 -y 50 -c "$WORK/repo" \
    "RUNS=$RUNS OUT=$WORK/times bash $WORK/race.sh; sleep 1"
for ((w = 0; w < 600; w++)); do [[ -s $WORK/times.ui ]] && break; sleep 0.5; done
read -ra L < "$WORK/times.list"
read -ra U < "$WORK/times.ui"
lm=$(median "${L[@]}") um=$(median "${U[@]}")
echo "machine: $(nproc) cores; $(df -T "$WORK" | awk 'NR==2 {print $2}') at $WORK"
echo "git berth list (ms):          ${L[*]}  median $lm"
echo "git berth ui first frame (ms): ${U[*]}  median $um"
awk -v u="$um" -v l="$lm" 'BEGIN {printf "ratio ui/list: %.2f\n", u / l}'

# Idle: the panel open, nothing changing.
T new-window -d -n idle -c "$WORK/repo" "git berth ui"
# The race is over: the one git-berth process left is the panel (git runs it as a child).
panel=
for ((w = 0; w < 100; w++)); do
    panel=$(pgrep -n -x git-berth || true)
    [[ -n $panel ]] && break
    sleep 0.1
done
[[ -n $panel ]] || { echo "the panel did not start" >&2; exit 1; }
sleep 3
ticks() { awk '{print $14 + $15}' "/proc/$panel/stat"; }
before=$(ticks)
sleep "$IDLE"
after=$(ticks)
hz=$(getconf CLK_TCK)
awk -v t=$((after - before)) -v hz="$hz" -v s="$IDLE" \
    'BEGIN {printf "idle panel: %d ticks (%.2f s CPU) in %d s: %.3f%% of a core\n", t, t / hz, s, 100 * t / hz / s}'
