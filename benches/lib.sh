# Shared by the benchmarks that need a large repository (sourced, not run): the release build,
# a scratch folder removed on exit with its own HOME, and the 5,000-file repository.
#
# After sourcing: BIN (the release binary, also first on PATH), WORK (the scratch folder), and
# the functions bench_repo, ms and median.

FILES=5000
DIRS=50
RUNS=${RUNS:-7}
((RUNS >= 5)) || { echo "RUNS must be at least 5" >&2; exit 1; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
echo "building: cargo build --release --locked" >&2
(cd "$ROOT" && cargo build --release --locked --quiet)
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/git-berth

PARENT=${1:-${TMPDIR:-/tmp}}
WORK=$(mktemp -d "$PARENT/berth-$BENCH-bench.XXXXXX")
WORK=$(cd "$WORK" && pwd -P)
trap 'rm -rf "$WORK"' EXIT

export HOME=$WORK/home XDG_DATA_HOME=$WORK/data GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
export BERTH_SESSION=bench
mkdir -p "$HOME" "$XDG_DATA_HOME"
PATH=$(dirname "$BIN"):$PATH

# A repository at $1 on main: 5,000 one-line files in 50 folders, and what `extra` writes (run in
# it, if given), committed once and packed.
bench_repo() {
    mkdir -p "$1"
    cd "$1"
    git init -q -b main
    for ((d = 0; d < DIRS; d++)); do
        mkdir -p "dir$d"
        for ((f = 0; f < FILES / DIRS; f++)); do
            printf 'file %d in dir %d\n' "$f" "$d" > "dir$d/f$f.txt"
        done
    done
    if declare -F extra > /dev/null; then extra; fi
    # No automatic gc in the background: it would refuse the packing below.
    git add -A && git -c gc.auto=0 commit -qm "$FILES files" && git gc -q
}

ms() { local t0 t1; t0=$(date +%s%N); "$@"; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# Time `git_side` and `berth_side` RUNS times each, order alternated after a warm-up of both;
# sets G and B (the times, ms) and gm and bm (their medians).
race() {
    git_side; berth_side
    G=() B=()
    for ((r = 0; r < RUNS; r++)); do
        if ((r % 2)); then G+=("$(ms git_side)"); B+=("$(ms berth_side)")
        else B+=("$(ms berth_side)"); G+=("$(ms git_side)"); fi
    done
    gm=$(median "${G[@]}") bm=$(median "${B[@]}")
    echo "machine: $(nproc) cores; $(df -T "$WORK" | awk 'NR==2 {print $2}') at $WORK"
}
