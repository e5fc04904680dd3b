#!/usr/bin/env bash
# Benchmark: `git berth add` / `git berth remove` against `git worktree add -b` / `git worktree
# remove`, on a generated repository of 20,000 small files in 200 folders (one commit, packed).
#
#   benches/add_remove.sh [DIR]        # DIR: where the scratch folder goes (default: $TMPDIR or /tmp)
#   RUNS=9 benches/add_remove.sh /dev/shm
#
# Environment: RUNS (timed runs, default 7, at least 5); KEEP=1 keeps the scratch folder;
# QUIET_WAIT (seconds, default 60): before each run, wait up to this long for the other processes
# on the machine to leave the CPUs idle (busy below 15% over half a second); 0 disables it. The
# table shows how busy the machine was just before each run; runs next to a busy machine are noise.
#
# Three tools are timed, whole-process wall time in ms:
#   git         git worktree add -b <branch> <path>   /  git worktree remove <path>
#   berth       git berth add <name>                  /  git berth remove <name>   (through git)
#   berth-bin   git-berth add <name>                  /  git-berth remove <name>   (binary direct)
# The order of the tools is rotated each run, all adds of a run come before its removes, and an
# untimed `sync` precedes every timed command, so writeback of one tool's files is not billed to
# the next. Each tool first does one untimed add and remove (warm-up): on ext4 mounted with
# `discard`, whatever creates files first after a bulk delete pays seconds that belong to nobody.
# Targets (issue 2): add at most 0.6 of git's time, remove at most 0.7; the main figure is `berth`.
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

# 1. The release build.
echo "building: cargo build --release --locked" >&2
(cd "$ROOT" && cargo build --release --locked --quiet)
BUILT=$TARGET_DIR/release/git-berth
[[ -x $BUILT ]] || { echo "no binary at $BUILT" >&2; exit 1; }

# 2. Scratch folder, isolated from the user's git setup.
PARENT=${1:-${TMPDIR:-/tmp}}
mkdir -p "$PARENT"
WORK=$(mktemp -d "$PARENT/berth-bench.XXXXXX")
WORK=$(cd "$WORK" && pwd -P)
cleanup() {
    if [[ ${KEEP:-0} == 1 ]]; then
        echo "kept $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

# A copy of the fresh build, first in PATH: the shared target dir may be rebuilt by someone else
# while this runs, and the binary must not change under the timed runs.
mkdir -p "$WORK/bin"
cp "$BUILT" "$WORK/bin/git-berth"
export PATH="$WORK/bin:$TARGET_DIR/release:$PATH"

unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_COMMON_DIR \
    GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_CEILING_DIRECTORIES
export HOME=$WORK/home
export XDG_CONFIG_HOME=$HOME/.config
export XDG_DATA_HOME=$WORK/data
export GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="Bench Author" GIT_AUTHOR_EMAIL="author@example.invalid"
export GIT_COMMITTER_NAME="Bench Committer" GIT_COMMITTER_EMAIL="committer@example.invalid"
export GIT_TERMINAL_PROMPT=0 LC_ALL=C
mkdir -p "$HOME" "$XDG_DATA_HOME" "$WORK/wt"

resolved=$(command -v git-berth)
[[ $resolved == "$WORK/bin/git-berth" ]] || { echo "git-berth resolves to $resolved" >&2; exit 1; }

REPO=$WORK/repo
LOG=$WORK/last.log

echo "generating $FILES files in $DIRS folders in $REPO" >&2
mkdir -p "$REPO"
# Small text files of varied size (about 60 B to 4.5 KB, skewed small), all different.
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
                printf "%08x %08x %08x %08x line %d\n", rand() * 4294967295, rand() * 4294967295,
                    rand() * 4294967295, rand() * 4294967295, l > path
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
count=$(git -C "$REPO" ls-files | wc -l)
[[ $count == "$FILES" ]] || { echo "repository has $count files, not $FILES" >&2; exit 1; }
size_kb=$(du -sk --apparent-size --exclude=.git "$REPO" | cut -f1)

# Adding and removing, by tool. $2 is the run's label; paths and branches differ per tool and run.
wt_path() { # tool label
    case $1 in
        git) echo "$WORK/wt/git-$2" ;;
        *) echo "$BERTH_BASE/$1-$2" ;;
    esac
}
do_add() { # tool label
    case $1 in
        git) git worktree add -q -b "bench/git-$2" "$(wt_path git "$2")" ;;
        berth) git berth add "berth-$2" ;;
        berth-bin) git-berth add "berth-bin-$2" ;;
    esac
}
do_remove() { # tool label
    case $1 in
        git) git worktree remove "$(wt_path git "$2")" ;;
        berth) git berth remove "berth-$2" ;;
        berth-bin) git-berth remove "berth-bin-$2" ;;
    esac
}

# Milliseconds of wall time of one command, run in the repository, output to $LOG.
now_us() { local t=${EPOCHREALTIME/[.,]/}; echo "$t"; }
timed() { # cmd args...
    local start end
    sync
    start=$(now_us)
    if ! (cd "$REPO" && "$@") >"$LOG" 2>&1; then
        echo "failed: $*" >&2
        cat "$LOG" >&2
        exit 1
    fi
    end=$(now_us)
    echo $(((end - start + 500) / 1000))
}

TOOLS=(git berth berth-bin)

# Percent of all CPUs busy over half a second, from /proc/stat.
cpu_busy() {
    local a b
    a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
    sleep 0.5
    b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
    awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " "); busy = y[1] - x[1]; idle = y[2] - x[2]
        printf "%d", (busy + idle) ? 100 * busy / (busy + idle) : 0 }'
}
# Wait (up to QUIET_WAIT seconds) for an idle machine; prints the last busy percentage.
wait_quiet() {
    local busy deadline=$((SECONDS + ${QUIET_WAIT:-60}))
    while busy=$(cpu_busy) && ((busy >= 15 && SECONDS < deadline)); do sleep 2; done
    echo "$busy"
}

# 3. Warm-up: one untimed add and remove per tool, checked to do the same work.
echo "warm-up" >&2
probe=$(cd "$REPO" && git berth add probe 2>"$LOG") || { cat "$LOG" >&2; exit 1; }
BERTH_BASE=$(dirname "$probe")
[[ $(df --output=source "$BERTH_BASE" | tail -n 1) == $(df --output=source "$WORK/wt" | tail -n 1) ]] ||
    { echo "berth worktrees ($BERTH_BASE) and git's are on different filesystems" >&2; exit 1; }
(cd "$REPO" && git berth remove probe >"$LOG" 2>&1) || { cat "$LOG" >&2; exit 1; }
for tool in "${TOOLS[@]}"; do
    timed do_add "$tool" warm >/dev/null
    path=$(wt_path "$tool" warm)
    [[ $(git -C "$path" ls-files | wc -l) == "$FILES" ]] || { echo "$tool: index incomplete" >&2; exit 1; }
    [[ $(find "$path" -path "$path/.git" -prune -o -type f -print | wc -l) == "$FILES" ]] ||
        { echo "$tool: checkout incomplete in $path" >&2; exit 1; }
    branch=$(git -C "$path" symbolic-ref --short HEAD)
    [[ -z $(git -C "$path" status --porcelain) ]] || { echo "$tool: $path is not clean" >&2; exit 1; }
    [[ $(git -C "$path" rev-parse HEAD) == $(git -C "$REPO" rev-parse HEAD) ]] ||
        { echo "$tool: $path is not at HEAD" >&2; exit 1; }
    echo "  $tool: $path on $branch, $FILES files, clean" >&2
    timed do_remove "$tool" warm >/dev/null
    [[ ! -e $path ]] || { echo "$tool: $path still exists after remove" >&2; exit 1; }
done

# 4. Timed runs.
declare -A T # T[op,tool,run] = ms
ORDERS=() BUSY=()
for ((run = 1; run <= RUNS; run++)); do
    order=()
    for ((k = 0; k < ${#TOOLS[@]}; k++)); do
        order+=("${TOOLS[(run - 1 + k) % ${#TOOLS[@]}]}")
    done
    ORDERS[run]="${order[*]}"
    BUSY[run]=$(wait_quiet)
    for tool in "${order[@]}"; do T[add,$tool,$run]=$(timed do_add "$tool" "$run"); done
    for tool in "${order[@]}"; do T[rm,$tool,$run]=$(timed do_remove "$tool" "$run"); done
    echo "  run $run/$RUNS done (${order[*]}; machine ${BUSY[run]}% busy before)" >&2
done

# 5. Report.
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
column_of() { # op tool
    local r
    for ((r = 1; r <= RUNS; r++)); do echo "${T[$1,$2,$r]}"; done
}
declare -A MED
for op in add rm; do
    for tool in "${TOOLS[@]}"; do MED[$op,$tool]=$(column_of "$op" "$tool" | median); done
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { print (r <= t) ? "ok" : "MISSED" }'; }

fs_type=$(df -T "$WORK" | awk 'NR == 2 { print $2 }')
echo
echo "machine:    $(nproc) cpus ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'))," \
    "$(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)"
echo "filesystem: $fs_type; $(df -T "$WORK" | awk 'NR == 2 { print $1 " on " $7 }')," \
    "options: $(awk -v m="$(df --output=target "$WORK" | tail -n 1)" '$2 == m { o = $4 } END { print o }' /proc/mounts)"
echo "work dir:   $WORK"
echo "repository: $FILES files in $DIRS folders, $((size_kb / 1024)) MB of file content, one commit, packed"
source_state="not a git checkout"
if head=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); then
    source_state="commit $head"
    git -C "$ROOT" diff --quiet HEAD -- src Cargo.toml Cargo.lock ||
        source_state+=", with uncommitted changes in src"
    [[ -z $(git -C "$ROOT" ls-files --others --exclude-standard -- src) ]] ||
        source_state+=", with untracked files in src"
fi
echo "tools:      $(git --version); git-berth $(git-berth --version 2>/dev/null | awk '{ print $NF }')" \
    "built from $ROOT ($source_state)"
echo "load:       $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min, at the end)"
echo
echo "Wall time in ms; berth = 'git berth' (through git), berth-bin = 'git-berth' (direct);"
echo "busy = share of the CPUs used by other processes just before the run."
echo
printf '| %-6s | %-24s | %5s | %7s | %7s | %9s | %7s | %7s | %9s |\n' \
    run order busy "git add" "berth" "berth-bin" "git rm" "berth" "berth-bin"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' -------- -------------------------- ------- --------- --------- \
    ----------- --------- --------- -----------
for ((run = 1; run <= RUNS; run++)); do
    printf '| %-6s | %-24s | %4s%% | %7s | %7s | %9s | %7s | %7s | %9s |\n' "$run" "${ORDERS[run]}" "${BUSY[run]}" \
        "${T[add,git,$run]}" "${T[add,berth,$run]}" "${T[add,berth-bin,$run]}" \
        "${T[rm,git,$run]}" "${T[rm,berth,$run]}" "${T[rm,berth-bin,$run]}"
done
printf '| %-6s | %-24s | %5s | %7s | %7s | %9s | %7s | %7s | %9s |\n' median "" "" \
    "${MED[add,git]}" "${MED[add,berth]}" "${MED[add,berth-bin]}" \
    "${MED[rm,git]}" "${MED[rm,berth]}" "${MED[rm,berth-bin]}"
echo
add_ratio=$(ratio "${MED[add,berth]}" "${MED[add,git]}")
rm_ratio=$(ratio "${MED[rm,berth]}" "${MED[rm,git]}")
echo "| ratio berth/git | git berth | git-berth | target |"
echo "|---|---|---|---|"
echo "| add    | $add_ratio ($(verdict "$add_ratio" 0.6)) | $(ratio "${MED[add,berth-bin]}" "${MED[add,git]}") | <= 0.60 |"
echo "| remove | $rm_ratio ($(verdict "$rm_ratio" 0.7)) | $(ratio "${MED[rm,berth-bin]}" "${MED[rm,git]}") | <= 0.70 |"
