#!/usr/bin/env bash
# Benchmark: the cost that project hooks add to `git berth add`.
#
#   benches/hooks.sh [DIR]        # DIR: where the scratch folder goes (default: $TMPDIR or /tmp)
#   RUNS=15 benches/hooks.sh
#
# Two copies of one small repository: one with committed hooks (setup `true`, teardown `true`,
# ports 20), one without. Each run adds a worktree in each (the order alternates run by run) and
# removes it again, untimed. Shown: the median wall time of `add` in each, the difference (what
# berth adds: reading and trust-checking the hooks, reserving a port block with its probes,
# running setup), and the same difference less the hook's own runtime (`sh` running the setup
# hook by itself, less the cost of timing an empty command), and the median of each run's paired
# difference (steadier when other processes load the machine). Target (issue 4): under 10 ms.
set -euo pipefail

RUNS=${RUNS:-10}
if ! [[ $RUNS =~ ^[0-9]+$ ]] || ((RUNS < 5)); then
    echo "RUNS must be a number of at least 5 (got '$RUNS')" >&2
    exit 1
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}

echo "building: cargo build --release --locked" >&2
(cd "$ROOT" && cargo build --release --locked --quiet)
BUILT=$TARGET_DIR/release/git-berth
[[ -x $BUILT ]] || { echo "no binary at $BUILT" >&2; exit 1; }

PARENT=${1:-${TMPDIR:-/tmp}}
mkdir -p "$PARENT"
WORK=$(mktemp -d "$PARENT/berth-hooks-bench.XXXXXX")
WORK=$(cd "$WORK" && pwd -P)
trap 'rm -rf "$WORK"' EXIT

# A private copy of the binary, first on PATH, so a rebuild elsewhere cannot change it mid-run.
mkdir -p "$WORK/bin"
cp "$BUILT" "$WORK/bin/git-berth"
export PATH="$WORK/bin:$PATH"
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_COMMON_DIR \
    GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_CEILING_DIRECTORIES
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/.config XDG_DATA_HOME=$WORK/data
export GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 LC_ALL=C
export GIT_AUTHOR_NAME="Bench" GIT_AUTHOR_EMAIL="bench@example.invalid"
export GIT_COMMITTER_NAME="Bench" GIT_COMMITTER_EMAIL="bench@example.invalid"
mkdir -p "$HOME" "$XDG_DATA_HOME"

# The same small project twice (200 files in 10 folders); one of them gets hooks.
make_repo() { # dir
    mkdir -p "$1"
    (cd "$1" && for d in $(seq -w 0 9); do
        mkdir -p "d$d"
        for f in $(seq -w 0 19); do echo "file $d/$f" >"d$d/f$f.txt"; done
    done)
    git -C "$1" init -q -b main
    git -C "$1" config gc.auto 0
    git -C "$1" add -A
    git -C "$1" commit -q -m "200 files"
}
PLAIN=$WORK/plain
HOOKED=$WORK/hooked
make_repo "$PLAIN"
make_repo "$HOOKED"
(cd "$HOOKED" && git berth install --setup true --teardown true --ports 20 >/dev/null)
git -C "$HOOKED" add -A
git -C "$HOOKED" commit -q -m hooks
# A range of its own, away from the default, the tests' ranges and the ephemeral ports.
git -C "$HOOKED" config berth.portRange 65200-65299

LOG=$WORK/last.log
now_us() { echo "${EPOCHREALTIME/[.,]/}"; }
timed() { # dir cmd args... -> microseconds
    local dir=$1 start end
    shift
    start=$(now_us)
    if ! (cd "$dir" && "$@") >"$LOG" 2>&1; then
        echo "failed in $dir: $*" >&2
        cat "$LOG" >&2
        exit 1
    fi
    end=$(now_us)
    echo $((end - start))
}
quiet() { # dir cmd args...
    local dir=$1
    shift
    (cd "$dir" && "$@") >"$LOG" 2>&1 || { echo "failed in $dir: $*" >&2; cat "$LOG" >&2; exit 1; }
}

# Warm-up, and a check that the hooked add really got a block and ran its setup.
quiet "$HOOKED" git-berth add warm
ports=$(cd "$HOOKED" && git-berth list --json | tr -d ' \n' | grep -o '"ports":{"first":[0-9]*,"count":20}' || true)
setup=$(cd "$HOOKED" && git-berth list --json | tr -d ' \n' | grep -o '"setup":"done"' || true)
[[ -n $ports && -n $setup ]] || { echo "the hooked add got no block or no setup" >&2; exit 1; }
quiet "$HOOKED" git-berth remove warm
quiet "$PLAIN" git-berth add warm
quiet "$PLAIN" git-berth remove warm

declare -a WITH WITHOUT HOOK BASE
for ((run = 1; run <= RUNS; run++)); do
    if ((run % 2)); then order=(hooked plain); else order=(plain hooked); fi
    for which in "${order[@]}"; do
        if [[ $which == hooked ]]; then
            WITH+=("$(timed "$HOOKED" git-berth add "run$run")")
            quiet "$HOOKED" git-berth remove "run$run"
        else
            WITHOUT+=("$(timed "$PLAIN" git-berth add "run$run")")
            quiet "$PLAIN" git-berth remove "run$run"
        fi
    done
    HOOK+=("$(timed "$HOOKED" sh .worktree-hooks/setup)")
    # The timing's own cost (a subshell and a cd), to take off the hook's runtime.
    BASE+=("$(timed "$HOOKED" :)")
done

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END {
    if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ms() { awk -v us="$1" 'BEGIN { printf "%.1f", us / 1000 }'; }
m_with=$(median "${WITH[@]}")
m_without=$(median "${WITHOUT[@]}")
m_hook=$(awk -v h="$(median "${HOOK[@]}")" -v b="$(median "${BASE[@]}")" 'BEGIN { print h - b }')
diff_us=$(awk -v a="$m_with" -v b="$m_without" 'BEGIN { print a - b }')
cost_us=$(awk -v d="$diff_us" -v h="$m_hook" 'BEGIN { print d - h }')
# Each run's hooked add less its plain add, taken moments apart: steadier on a busy machine.
PAIRS=()
for ((i = 0; i < RUNS; i++)); do PAIRS+=($((WITH[i] - WITHOUT[i]))); done
m_pair=$(median "${PAIRS[@]}")

echo "machine:  $(nproc) cpus, kernel $(uname -r); $(git --version); work dir $WORK"
echo "runs:     $RUNS, add timed, remove untimed, order alternating"
echo "add with hooks (ms):    $(for v in "${WITH[@]}"; do printf '%s ' "$(ms "$v")"; done)"
echo "add without hooks (ms): $(for v in "${WITHOUT[@]}"; do printf '%s ' "$(ms "$v")"; done)"
echo
echo "median add, with hooks (setup true, teardown true, ports 20): $(ms "$m_with") ms"
echo "median add, without hooks:                                     $(ms "$m_without") ms"
echo "difference:                                                    $(ms "$diff_us") ms"
echo "setup hook's own runtime (median, sh .worktree-hooks/setup):   $(ms "$m_hook") ms"
verdict=$(awk -v c="$cost_us" 'BEGIN { print (c < 10000) ? "ok" : "MISSED" }')
echo "cost berth adds, hook runtime excluded:                        $(ms "$cost_us") ms (target < 10 ms: $verdict)"
echo "median of the runs' paired differences, hook runtime excluded: $(ms "$(awk -v p="$m_pair" -v h="$m_hook" 'BEGIN { print p - h }')") ms"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cpus"
