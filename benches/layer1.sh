#!/usr/bin/env bash
# Benchmark: `git berth layer1` from the command to the agent running in its own tmux window,
# against the same step done by hand: `git worktree add -b` then `tmux new-window -c`, on a
# generated repository of 20,000 small files in 200 folders (one commit, packed).
#
#   benches/layer1.sh [DIR]        # DIR: where the scratch folder goes (default: $TMPDIR or /tmp)
#   RUNS=9 benches/layer1.sh /dev/shm
#
# Both sides run inside a private tmux server (its own socket in the scratch folder) as a
# person in its first pane would: `$TMUX` and `$TMUX_PANE` are set. The agent is the `shell`
# runtime set to `sleep 600`, so both sides start the same program in the new window. Timed,
# whole-process wall time in ms:
#   hand    git worktree add -q -b hand/<n> <path> && tmux new-window -d -c <path> -- sleep 600
#   berth   git berth layer1 b<n> feat/b<n> shell      (worktree, claim, norms, window, record)
# The order alternates run by run; each run waits (QUIET_WAIT seconds at most, default 120) for
# the machine to be idle, an untimed `sync` precedes each command, and after each run the windows
# are closed and both worktrees removed, untimed. RUNS (default 7, at least 5). Target (issue
# 13): berth's whole step costs less than the hand-made pair (ratio below 1).
set -euo pipefail

BENCH=layer1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FILES=20000
DIRS=200
command -v tmux >/dev/null || { echo "tmux is not installed" >&2; exit 1; }

# The repository: 20,000 files in 200 folders, as benches/add_remove.sh makes them.
echo "generating $FILES files in $DIRS folders" >&2
REPO=$WORK/repo
# No automatic gc in the background of the commit: bench_repo packs the repository itself.
extra() { git config gc.auto 0; }
bench_repo "$REPO" >/dev/null
cd "$REPO"
git config berth.runtime.shell.command "sleep 600"
count=$(git ls-files | wc -l)
[[ $count == "$FILES" ]] || { echo "repository has $count files, not $FILES" >&2; exit 1; }

# A private tmux server, killed (with every agent in it) when the benchmark ends.
SOCK=$WORK/tmux.sock
PANE=$(tmux -S "$SOCK" -f /dev/null new-session -d -s bench -c "$REPO" -P -F '#{pane_id}')
trap 'tmux -S "$SOCK" kill-server 2>/dev/null || true; rm -rf "$WORK"' EXIT
export TMUX="$SOCK,$$,0" TMUX_PANE=$PANE
mkdir -p "$WORK/wt"

now_us() { local t=${EPOCHREALTIME/[.,]/}; echo "$t"; }
timed() { # cmd args... : wall time in ms, output to $WORK/last.log
    local start end
    sync
    start=$(now_us)
    "$@" >"$WORK/last.log" 2>&1 || { echo "failed: $*" >&2; cat "$WORK/last.log" >&2; exit 1; }
    end=$(now_us)
    echo $(((end - start + 500) / 1000))
}
by_hand() { # n
    git worktree add -q -b "hand/$1" "$WORK/wt/hand-$1" &&
        tmux -S "$SOCK" new-window -d -n "hand-$1" -c "$WORK/wt/hand-$1" -- sleep 600
}
by_berth() { # n
    git berth layer1 "b$1" "feat/b$1" shell
}
# Close both windows and remove both worktrees, untimed; checks that each side did the work.
tidy() { # n
    local wt pane
    wt=$(git berth path "b$1")
    [[ $(git -C "$wt" ls-files | wc -l) == "$FILES" ]] || { echo "berth: index incomplete" >&2; exit 1; }
    pane=$(git berth agents --json | awk -F'"' -v n="b$1" '$2 == "name" { hit = ($4 == n) } hit && $2 == "pane" { print $4; exit }')
    [[ $(tmux -S "$SOCK" display-message -p -t "$pane" '#{pane_current_path}') == "$wt" ]] ||
        { echo "berth: the agent's pane is not in its worktree" >&2; exit 1; }
    tmux -S "$SOCK" kill-pane -t "$pane"
    tmux -S "$SOCK" kill-window -t "hand-$1"
    while git berth agents --json | grep -q '"status": "alive"'; do sleep 0.05; done
    git berth remove "b$1" >/dev/null 2>&1
    git worktree remove --force "$WORK/wt/hand-$1"
}

# How busy the CPUs are (percent, over 0.4 s), and a wait of at most QUIET_WAIT seconds (default
# 120; 0 disables it) for the machine to fall below 15% before a run: a run beside another
# engineer's compiler measures the compiler.
busy_pct() {
    local u1 t1 u2 t2
    read -r u1 t1 < <(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat)
    sleep 0.4
    read -r u2 t2 < <(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat)
    echo $(((u2 - u1) * 100 / ((t2 - t1) > 0 ? (t2 - t1) : 1)))
}
quiet() {
    local pct until=$((SECONDS + ${QUIET_WAIT:-120}))
    while pct=$(busy_pct) && ((pct >= 15 && SECONDS < until)); do sleep 1; done
    echo "$pct"
}

echo "warm-up" >&2
timed by_hand warm >/dev/null
timed by_berth warm >/dev/null
tidy warm

H=() B=() BUSY=()
for ((r = 1; r <= RUNS; r++)); do
    BUSY+=("$(quiet)")
    if ((r % 2)); then
        H+=("$(timed by_hand "$r")"); B+=("$(timed by_berth "$r")")
    else
        B+=("$(timed by_berth "$r")"); H+=("$(timed by_hand "$r")")
    fi
    tidy "$r"
    echo "  run $r/$RUNS: hand ${H[-1]} ms, berth ${B[-1]} ms (machine ${BUSY[-1]}% busy before)" >&2
done
hm=$(median "${H[@]}") bm=$(median "${B[@]}")

echo "machine: $(nproc) cores; $(df -T "$WORK" | awk 'NR==2 {print $2}') at $WORK; $(tmux -V); $(git --version)"
echo "repository: $FILES files in $DIRS folders, one commit, packed"
echo
echo "| run | busy before | hand: git worktree add -b + tmux new-window (ms) | git berth layer1 (ms) | berth/hand |"
echo "|---|---|---|---|---|"
R=()
for ((r = 0; r < RUNS; r++)); do
    R+=("$(awk -v b="${B[r]}" -v h="${H[r]}" 'BEGIN { printf "%.2f", b / h }')")
    echo "| $((r + 1)) | ${BUSY[r]}% | ${H[r]} | ${B[r]} | ${R[r]} |"
done
echo "| median | | $hm | $bm | $(median "${R[@]}") |"
echo
awk -v b="$bm" -v h="$hm" -v p="$(median "${R[@]}")" 'BEGIN { r = b / h
    printf "ratio berth/hand: %.2f of the medians, %.2f the median of the runs (%s; target: below 1)\n", r, p,
        (r < 1) ? "ok" : "MISSED" }'
