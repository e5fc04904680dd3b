#!/usr/bin/env bash
# Benchmark: `git berth ship` of one approved worktree against the same landing by hand, on a
# generated repository of 20,000 small files in 200 folders (one commit, packed).
#
#   benches/ship.sh [DIR]            # DIR: where the scratch folder goes (default: /dev/shm if
#   RUNS=9 benches/ship.sh /tmp      # present, else $TMPDIR or /tmp)
#
# Each run first makes, untimed, one worktree per tool with one commit that changes three files
# and adds one (berth's approved by a reviewer), then times, whole-process wall time in ms:
#   git          in the primary: git merge --squash <branch>; git commit; git worktree remove
#                <path>; git branch -D <branch>
#   berth-gate   git berth ship <name> --gate true   (the gate runs in a scratch worktree of the
#                merged result, brought up and removed: a checkout of all 20,000 files and back)
#   berth        git berth ship <name>               (no gate configured)
# The tools' order is rotated each run; the primary checkout has the trunk checked out, so every
# landing also brings it along. Environment: RUNS (timed runs, default 7, at least 5); KEEP=1
# keeps the scratch folder.
set -euo pipefail

FILES=20000
DIRS=200
RUNS=${RUNS:-7}
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

DEFAULT_PARENT=${TMPDIR:-/tmp}
[[ -d /dev/shm && -w /dev/shm ]] && DEFAULT_PARENT=/dev/shm
PARENT=${1:-$DEFAULT_PARENT}
mkdir -p "$PARENT"
WORK=$(mktemp -d "$PARENT/berth-ship-bench.XXXXXX")
WORK=$(cd "$WORK" && pwd -P)
cleanup() {
    if [[ ${KEEP:-0} == 1 ]]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# A copy of the build, first on PATH: the shared target dir may be rebuilt meanwhile.
mkdir -p "$WORK/bin"
cp "$BUILT" "$WORK/bin/git-berth"
export PATH="$WORK/bin:$PATH"
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_COMMON_DIR \
    GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_CEILING_DIRECTORIES BERTH_SESSION
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/.config XDG_DATA_HOME=$WORK/data
export GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 LC_ALL=C
export GIT_AUTHOR_NAME="Bench Author" GIT_AUTHOR_EMAIL="author@example.invalid"
export GIT_COMMITTER_NAME="Bench Committer" GIT_COMMITTER_EMAIL="committer@example.invalid"
mkdir -p "$HOME" "$XDG_DATA_HOME" "$WORK/wt"

REPO=$WORK/repo
LOG=$WORK/last.log
echo "generating $FILES files in $DIRS folders in $REPO" >&2
mkdir -p "$REPO"
(cd "$REPO" && awk -v files="$FILES" -v dirs="$DIRS" 'BEGIN {
    srand(20000)
    per = files / dirs
    for (d = 0; d < dirs; d++) {
        dir = sprintf("d%03d", d)
        system("mkdir -p " dir)
        for (f = 0; f < per; f++) {
            path = sprintf("%s/f%03d.txt", dir, f)
            print "// " path > path
            lines = 1 + int(rand() * rand() * 100)
            for (l = 0; l < lines; l++)
                printf "%08x %08x line %d\n", rand() * 4294967295, rand() * 4294967295, l > path
            close(path)
        }
    }
}')
git -C "$REPO" init -q -b main
git -C "$REPO" config gc.auto 0
git -C "$REPO" config maintenance.auto false
git -C "$REPO" add -A
git -C "$REPO" commit -q -m "20,000 files in 200 folders"
git -C "$REPO" gc -q
[[ $(git -C "$REPO" ls-files | wc -l) == "$FILES" ]] || { echo "repository incomplete" >&2; exit 1; }

# One commit of work in the checkout $1: three files changed, one added; $2 keeps them apart.
work() { # checkout n
    local n=$2 k
    for k in 0 1 2; do
        echo "change $n" >> "$1/d$(printf %03d $(((n * 3 + k) % DIRS)))/f007.txt"
    done
    echo "new $n" > "$1/new-$n.txt"
    git -C "$1" add -A
    git -C "$1" commit -q -m "work $n"
}

# A worktree ready to land for `tool`, run label `n`: made, committed, approved (berth's).
REVIEWER_PID=
prepare() { # tool n
    case $1 in
        git)
            git -C "$REPO" worktree add -q -b "hand-$2" "$WORK/wt/hand-$2"
            work "$WORK/wt/hand-$2" "$2"
            ;;
        *)
            local path
            path=$(cd "$REPO" && git berth add "$1-$2" 2>"$LOG") || { cat "$LOG" >&2; exit 1; }
            work "$path" "$2"
            (cd "$REPO" && BERTH_SESSION=reviewer BERTH_SESSION_PID=$REVIEWER_PID \
                git berth review approve "$1-$2" >"$LOG" 2>&1) || { cat "$LOG" >&2; exit 1; }
            ;;
    esac
}
land() { # tool n
    case $1 in
        git)
            git merge -q --squash "hand-$2" &&
                git commit -q -m "hand-$2" &&
                git worktree remove "$WORK/wt/hand-$2" &&
                git branch -q -D "hand-$2"
            ;;
        berth-gate) git berth ship "$1-$2" --gate true ;;
        berth) git berth ship "$1-$2" ;;
    esac
}
now_us() { local t=${EPOCHREALTIME/[.,]/}; echo "$t"; }
timed() { # tool n
    local start end
    sync
    start=$(now_us)
    if ! (cd "$REPO" && land "$@") >"$LOG" 2>&1; then
        echo "failed: land $*" >&2
        cat "$LOG" >&2
        exit 1
    fi
    end=$(now_us)
    echo $(((end - start + 500) / 1000))
}
# After a landing: the trunk has the work, the primary is clean, the worktree and branch are gone.
check() { # tool n
    [[ -z $(git -C "$REPO" status --porcelain) ]] || { echo "$1: primary not clean" >&2; exit 1; }
    [[ $(git -C "$REPO" show "main:new-$2.txt") == "new $2" ]] || { echo "$1: not landed" >&2; exit 1; }
    [[ $(git -C "$REPO" worktree list | wc -l) == 1 ]] || { echo "$1: worktree left" >&2; exit 1; }
    [[ $(git -C "$REPO" branch | wc -l) == 1 ]] || { echo "$1: branch left" >&2; exit 1; }
}

sleep 600 &
REVIEWER_PID=$!
trap 'kill $REVIEWER_PID 2>/dev/null; cleanup' EXIT

TOOLS=(git berth-gate berth)
declare -A T
n=0
echo "warm-up" >&2
for tool in "${TOOLS[@]}"; do
    n=$((n + 1)); prepare "$tool" "$n"; timed "$tool" "$n" >/dev/null; check "$tool" "$n"
done
for ((run = 1; run <= RUNS; run++)); do
    for ((k = 0; k < ${#TOOLS[@]}; k++)); do
        tool=${TOOLS[(run - 1 + k) % ${#TOOLS[@]}]}
        n=$((n + 1))
        prepare "$tool" "$n"
        T[$tool,$run]=$(timed "$tool" "$n")
        check "$tool" "$n"
    done
    echo "  run $run/$RUNS done" >&2
done

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "machine: $(nproc) cores; $(df -T "$WORK" | awk 'NR==2 {print $2}') at $WORK; $FILES files"
printf '%-11s' tool; for ((run = 1; run <= RUNS; run++)); do printf '%7s' "r$run"; done; printf '%9s\n' median
for tool in "${TOOLS[@]}"; do
    times=()
    printf '%-11s' "$tool"
    for ((run = 1; run <= RUNS; run++)); do times+=("${T[$tool,$run]}"); printf '%7s' "${T[$tool,$run]}"; done
    printf '%9s\n' "$(median "${times[@]}")"
done
g=$(median $(for ((r = 1; r <= RUNS; r++)); do echo "${T[git,$r]}"; done))
for tool in berth-gate berth; do
    b=$(median $(for ((r = 1; r <= RUNS; r++)); do echo "${T[$tool,$r]}"; done))
    awk -v b="$b" -v g="$g" -v t="$tool" 'BEGIN { printf "%s / git by hand: %.2f\n", t, b / g }'
done
