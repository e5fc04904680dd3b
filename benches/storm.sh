#!/usr/bin/env bash
# Storm: 8 sessions at once on one repository for two minutes, random SIGKILLs, a slow teardown
# hook, packed refs; then the invariants of issue 24, each PASS or FAIL (exit 1 on any FAIL).
#
#   benches/storm.sh [DIR]                      # DIR: where the scratch folder goes (default:
#   BIN=target/debug/git-berth DURATION=30 benches/storm.sh   # /dev/shm if present, else /tmp)
#
# Environment: DURATION (seconds of storm, default 120); WORKERS (default 8); KILL_PCT (percent
# of berth calls run under `timeout -s KILL <0.05-1.5 s>`, default 25); NAMES (worktree names the
# workers share, default 16); SEED (default: the clock); BIN (a git-berth binary to use; unset:
# `cargo build --release` and its binary); KEEP=1 keeps the scratch folder (it is kept anyway
# when an invariant fails, for the evidence).
#
# Each worker is one session (BERTH_SESSION=w<N>, BERTH_SESSION_PID its own pid) looping random
# operations: add, commit a file of its own in a worktree (each commit recorded as work made),
# review approve, ship (a name or --all-approved), remove, remove --delete-branch, clean, prune,
# setup, list --json, claim, release, and the race of issue 24 item 2: ship or remove in the
# background and, while its teardown sleeps, a commit or an untracked file in that worktree. A
# monitor samples the trunk and runs `git pack-refs --all` now and then. Afterwards, with no kill:
# `git berth prune`, then
#   (a) no work lost: every recorded commit's file is on the trunk or in some branch's tip, or the
#       commit is reachable from a branch; every recorded untracked file is still in its folder;
#   (b) no lock left: no `*.lock` in the common dir or the data dir but berth's own flock files;
#   (c) every command works: add, commit, approve, ship, remove, claim, release of a fresh
#       worktree, approve of every worktree left, list/review status/log/collect --json parse,
#       git worktree list, git status, git fsck;
#   (d) the trunk only moved forward (every sampled head and every reflog entry is an ancestor of
#       the next) and no two port blocks in ports.toml overlap;
#   (e) nothing orphaned: no branch under berth/ without a worktree that holds only landed work,
#       no registry record without its git worktree, no ship scratch worktree left.
set -uo pipefail

DURATION=${DURATION:-120}
WORKERS=${WORKERS:-8}
KILL_PCT=${KILL_PCT:-25}
NAMES=${NAMES:-16}
SEED=${SEED:-$(date +%s)}
for knob in DURATION WORKERS KILL_PCT NAMES SEED; do
    [[ ${!knob} =~ ^[0-9]+$ ]] || { echo "$knob must be a number (got '${!knob}')" >&2; exit 2; }
done

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -z ${BIN:-} ]]; then
    echo "building: cargo build --release --locked" >&2
    (cd "$ROOT" && cargo build --release --locked --quiet) || exit 1
    BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/git-berth
fi
[[ -x $BIN ]] || { echo "no binary at $BIN" >&2; exit 1; }

DEFAULT_PARENT=${TMPDIR:-/tmp}
[[ -d /dev/shm && -w /dev/shm ]] && DEFAULT_PARENT=/dev/shm
PARENT=${1:-$DEFAULT_PARENT}
mkdir -p "$PARENT"
WORK=$(mktemp -d "$PARENT/berth-storm.XXXXXX")
WORK=$(cd "$WORK" && pwd -P)
FAILS=0
cleanup() {
    if [[ ${KEEP:-0} == 1 ]] || ((FAILS > 0)); then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# A copy of the binary, first on PATH: the target dir may be rebuilt meanwhile.
mkdir -p "$WORK/bin"
cp "$BIN" "$WORK/bin/git-berth"
B=$WORK/bin/git-berth
export PATH="$WORK/bin:$PATH"
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_COMMON_DIR \
    GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_CEILING_DIRECTORIES BERTH_SESSION BERTH_SESSION_PID \
    BERTH_AGENT_LAYER BERTH_MASTER_SESSION BERTH_ALLOW_MAIN_WORKTREE
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/.config XDG_DATA_HOME=$WORK/data
export GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 LC_ALL=C
export GIT_AUTHOR_NAME="Storm Author" GIT_AUTHOR_EMAIL="author@example.invalid"
export GIT_COMMITTER_NAME="Storm Committer" GIT_COMMITTER_EMAIL="committer@example.invalid"
mkdir -p "$HOME" "$XDG_DATA_HOME" "$WORK/log"

REPO=$WORK/repo
WT=$WORK/wt
LOG=$WORK/log
TIMELINE=$LOG/timeline     # end-ms worker kind name rc first-error-line [start-ms], one per operation
WORKLOG=$LOG/work          # ms worker sha file name: commits made
DIRTYLOG=$LOG/dirty        # ms worker path file: untracked files written
TEARDOWNS=$LOG/teardown    # start|end ms name: the teardown hook's own record
TRUNKLOG=$LOG/trunk        # ms sha: the trunk's head, sampled
: >"$TIMELINE"; : >"$WORKLOG"; : >"$DIRTYLOG"; : >"$TEARDOWNS"; : >"$TRUNKLOG"
now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }

# 1. The repository: a trunk with some files, the hooks committed and trusted, refs packed.
echo "repository in $REPO (seed $SEED, $WORKERS workers, ${DURATION}s, ${KILL_PCT}% of calls under a kill)" >&2
mkdir -p "$REPO/src"
for ((i = 0; i < 40; i++)); do printf 'line %d\n' $(seq 1 20) >"$REPO/src/f$i.txt"; done
git -C "$REPO" init -q -b main
git -C "$REPO" config gc.auto 0
git -C "$REPO" config maintenance.auto false
git -C "$REPO" config berth.selfReview true
git -C "$REPO" config berth.worktreeBase "$WT"
git -C "$REPO" add -A
git -C "$REPO" commit -q -m "40 files"
# The teardown sleeps 0.2 to 0.9 s and says when it ran, so a loss can be set against it.
(cd "$REPO" && "$B" install --ports 20 \
    --teardown "echo \"start \$(date +%s%3N) \$WORKTREE_NAME\" >> $TEARDOWNS; sleep 0.\$(( \$\$ % 8 + 2 )); echo \"end \$(date +%s%3N) \$WORKTREE_NAME\" >> $TEARDOWNS" \
    >/dev/null 2>&1) || { echo "install failed" >&2; exit 1; }
git -C "$REPO" add -A
git -C "$REPO" commit -q -m "worktree hooks"
(cd "$REPO" && "$B" trust >/dev/null 2>&1) || { echo "trust failed" >&2; exit 1; }
git -C "$REPO" pack-refs --all
COMMON=$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir)

# 2. The storm.
END_MS=$(($(now_ms) + DURATION * 1000))

# One berth call, under a kill after a random delay for KILL_PCT of them; records the outcome
# (rc 137: killed) in the timeline and returns berth's exit code. Output goes to $OUT.
OUT=
call() { # kind name args...
    local kind=$1 name=$2 rc err start
    shift 2
    start=$(now_ms)
    OUT=$LOG/out.$W.$BASHPID
    if ((RANDOM % 100 < KILL_PCT)); then
        local ms=$((50 + RANDOM % 1450))
        timeout -s KILL "$((ms / 1000)).$(printf %03d $((ms % 1000)))" "$B" "$@" >"$OUT" 2>"$OUT.err"
    else
        "$B" "$@" >"$OUT" 2>"$OUT.err"
    fi
    rc=$?
    err=$(grep -m1 '^git berth:' "$OUT.err" || grep -m1 -v '^hint:' "$OUT.err")
    err=$(tr '\t' ' ' <<<"$err" | cut -c1-300)
    ((rc == 0)) && err=
    grep -q panicked "$OUT.err" && err="PANIC: $(grep -m1 panicked "$OUT.err")"
    printf '%s\tw%s\t%s\t%s\t%s\t%s\t%s\n' "$(now_ms)" "$W" "$kind" "$name" "$rc" "$err" "$start" >>"$TIMELINE"
    return $rc
}

# Commit a file of this worker's own in the worktree at $1 and record it as work made.
SEQ=0
commit_in() { # path name how
    local p=$1 f sha
    SEQ=$((SEQ + 1))
    f=work-w$W-$SEQ.txt
    [[ -f $p/.git ]] || return 1
    echo "w$W $SEQ $3" >"$p/$f" 2>/dev/null || return 1
    if git -C "$p" add -- "$f" 2>/dev/null && git -C "$p" commit -q -m "$f" -- "$f" >/dev/null 2>&1; then
        sha=$(git -C "$p" log -1 --format=%H -- "$f" 2>/dev/null)
        printf '%s\tw%s\t%s\t%s\t%s\t%s\n' "$(now_ms)" "$W" "$sha" "$f" "$2" "$3" >>"$WORKLOG"
        printf '%s\tw%s\tcommit-%s\t%s\t0\t\n' "$(now_ms)" "$W" "$3" "$2" >>"$TIMELINE"
        return 0
    fi
    rm -f "$p/$f" 2>/dev/null
    printf '%s\tw%s\tcommit-%s\t%s\t1\t\n' "$(now_ms)" "$W" "$3" "$2" >>"$TIMELINE"
    return 1
}

pick_name() { echo "n$((RANDOM % NAMES))"; }
# A name whose folder exists, most of the time.
pick_existing() {
    local all=("$WT"/n*)
    if [[ -e ${all[0]} ]] && ((RANDOM % 10 < 8)); then basename "${all[RANDOM % ${#all[@]}]}"; else pick_name; fi
}

# The race of item 2: ship or remove in the background, and while its teardown sleeps, work in
# that worktree (a commit, or an untracked file).
race() {
    local name kind bg p f
    # Mostly a name of this worker's own, so that no other session's claim refuses the race.
    if ((RANDOM % 10 < 7)); then name=w$W-r$((RANDOM % 3)); else name=$(pick_name); fi
    p=$WT/$name
    # What an earlier race left untracked is committed first (as work made), or ship refuses.
    local left
    left=$([[ -f $p/.git ]] && git -C "$p" ls-files --others --exclude-standard 2>/dev/null)
    if [[ -n $left ]] && git -C "$p" add -A 2>/dev/null && git -C "$p" commit -q -m tidy >/dev/null 2>&1; then
        for f in $left; do
            printf '%s\tw%s\t%s\t%s\t%s\t%s\n' "$(now_ms)" "$W" "$(git -C "$p" rev-parse HEAD)" "$f" "$name" tidy
        done >>"$WORKLOG"
    fi
    if ((RANDOM % 2)); then
        kind=ship
        [[ -d $p ]] || call add "$name" add "$name" || return
        commit_in "$p" "$name" plain || return
        call approve "$name" review approve "$name" || return
        (KILL_PCT=0 call race-ship "$name" ship "$name") &
    else
        kind=remove
        [[ -d $p ]] || call add "$name" add "$name" || return
        (KILL_PCT=0 call race-remove "$name" remove "$name") &
    fi
    bg=$!
    sleep "0.$(printf %03d $((150 + RANDOM % 700)))"
    if ((RANDOM % 2)); then
        commit_in "$p" "$name" "during-$kind"
    else
        SEQ=$((SEQ + 1))
        f=untracked-w$W-$SEQ.txt
        if [[ -f $p/.git ]] && echo "w$W $SEQ" >"$p/$f" 2>/dev/null; then
            printf '%s\tw%s\t%s\t%s\t%s\n' "$(now_ms)" "$W" "$p" "$f" "during-$kind" >>"$DIRTYLOG"
        fi
    fi
    wait "$bg"
}

worker() {
    W=$1
    export BERTH_SESSION=w$W BERTH_SESSION_PID=$BASHPID
    RANDOM=$((SEED + W * 7919))
    local r name
    cd "$REPO" || exit 1
    while (($(now_ms) < END_MS)); do
        r=$((RANDOM % 100))
        if ((r < 14)); then
            name=$(pick_name); call add "$name" add "$name"
        elif ((r < 34)); then
            name=$(pick_existing); [[ -d $WT/$name ]] && commit_in "$WT/$name" "$name" plain
        elif ((r < 46)); then
            name=$(pick_existing); call approve "$name" review approve "$name"
        elif ((r < 54)); then
            name=$(pick_existing); call ship "$name" ship "$name"
        elif ((r < 56)); then
            call ship-all - ship --all-approved
        elif ((r < 60)); then
            name=$(pick_existing); call remove "$name" remove "$name"
        elif ((r < 63)); then
            name=$(pick_existing); call remove-delete-branch "$name" remove --delete-branch "$name"
        elif ((r < 65)); then
            call clean - clean
        elif ((r < 66)); then
            call clean-delete-branch - clean --delete-branch
        elif ((r < 69)); then
            call prune - prune
        elif ((r < 72)); then
            name=$(pick_existing); call setup "$name" setup "$name"
        elif ((r < 80)); then
            if call list - list --json && ! jq -e .worktrees "$OUT" >/dev/null 2>&1; then
                printf '%s\tw%s\tlist-unparsable\t-\t1\t%s\n' "$(now_ms)" "$W" "$(head -c 200 "$OUT")" >>"$TIMELINE"
            fi
        elif ((r < 84)); then
            name=$(pick_existing); call claim "$name" claim "$name"
        elif ((r < 88)); then
            name=$(pick_existing); call release "$name" release "$name"
        else
            race
        fi
    done
}

monitor() {
    local last= head next_pack=0
    while [[ ! -e $LOG/stop ]]; do
        head=$(git -C "$REPO" rev-parse -q --verify refs/heads/main 2>/dev/null)
        if [[ -n $head && $head != "$last" ]]; then printf '%s\t%s\n' "$(now_ms)" "$head" >>"$TRUNKLOG"; last=$head; fi
        if (($(now_ms) > next_pack)); then
            git -C "$REPO" pack-refs --all 2>/dev/null && echo x >>"$LOG/packs"
            next_pack=$(($(now_ms) + 4000 + RANDOM % 4000))
        fi
        sleep 0.2
    done
}

START=$(now_ms)
monitor &
MONITOR=$!
PIDS=()
# A worker's stderr (bash's "Killed" reports among it) goes to its own log.
for ((w = 1; w <= WORKERS; w++)); do worker "$w" 2>"$LOG/worker.$w.err" & PIDS+=($!); done
for pid in "${PIDS[@]}"; do wait "$pid"; done
touch "$LOG/stop"
wait "$MONITOR"
STORM_MS=$(($(now_ms) - START))
sleep 1.5 # hooks of killed calls run on by themselves up to 0.9 s
echo "storm over after $((STORM_MS / 1000)) s; checking" >&2

# 3. The invariants, with no kill.
export BERTH_SESSION=after BERTH_SESSION_PID=$$
cd "$REPO" || exit 1
result() { # PASS|FAIL name [evidence file, also on stdin, when FAIL]
    if [[ $1 == FAIL ]]; then FAILS=$((FAILS + 1)); fi
    RESULTS+=("$1  $2")
    echo "$1  $2"
    if [[ $1 == FAIL ]]; then sed 's/^/      /' | head -40; echo "      (all of it: $3)"; fi
}
RESULTS=()
PRUNE_OUT=$("$B" prune 2>&1); PRUNE_RC=$?
echo "prune after the storm: exit $PRUNE_RC" >&2
[[ $PRUNE_RC == 0 ]] || echo "$PRUNE_OUT" | head -5 >&2

# (a) No work lost.
TRUNK_FILES=$LOG/trunk-files
REF_FILES=$LOG/ref-files
git ls-tree -r --name-only refs/heads/main >"$TRUNK_FILES"
git for-each-ref --format='%(refname)' refs/heads | while read -r ref; do
    git ls-tree -r --name-only "$ref"
done | sort -u >"$REF_FILES"
lost=$LOG/lost
: >"$lost"
# The calls on worktree $1 (and those on every worktree, but list) that ended between $2 and $3 ms.
calls_of() { # name from to
    awk -F'\t' -v n="$1" -v a="$2" -v b="$3" -v z="$START" '($4 == n || ($4 == "-" && $3 != "list")) && $1 >= a && $1 <= b {
        printf "        %s ms %s %s: rc %s %s\n", ($7 ? sprintf("+%d..+%d", $7 - z, $1 - z) : sprintf("+%d", $1 - z)), $2, $3, $5, $6}' "$TIMELINE"
}
# The calls that could have run a teardown of worktree $1 (or taken a lock) at the time $2 (ms):
# those on it or on every worktree that were running then.
running_at() { # name ms
    awk -F'\t' -v n="$1" -v t="$2" -v z="$START" '$7 != "" && ($4 == n || n == "" || ($4 == "-" && $3 != "list")) && $7 <= t && t <= $1 {
        printf "        running then: +%d..+%d ms %s %s %s: rc %s %s\n", $7 - z, $1 - z, $2, $3, $4, $5, $6}' "$TIMELINE"
}
# What happened to worktree $1 around the time $2 (ms): the teardowns that ran, who ran them, and
# the calls on it.
around() { # name ms
    local s e
    while read -r s e; do
        echo "        teardown of $1 +$((s - START))..+$((e - START)) ms (the write at +$(($2 - START)) ms: $(
            if (($2 < s)); then echo before; elif (($2 <= e)); then echo during; else echo after; fi) it)"
        running_at "$1" "$s"
    done < <(awk -v n="$1" -v t="$2" '$3 == n && $1 == "start" {s = $2}
        $3 == n && $1 == "end" && $2 >= t - 3000 && s <= t + 3000 {print s, $2}' "$TEARDOWNS")
    calls_of "$1" $(($2 - 2000)) $(($2 + 2000)) | head -12
    echo "        worktree folder now: $([[ -d $WT/$1 ]] && echo "exists (made again)" || echo gone)"
}
while IFS=$'\t' read -r ms w sha f name how; do
    grep -qxF "$f" "$REF_FILES" && continue
    reached=
    for ref in $(git for-each-ref --format='%(refname)' refs/heads); do
        if git merge-base --is-ancestor "$sha" "$ref" 2>/dev/null; then reached=$ref; break; fi
    done
    [[ -n $reached ]] && continue
    obj=absent; git cat-file -e "$sha^{commit}" 2>/dev/null && obj=present
    echo "commit $sha ($f, $how, by $w at +$((ms - START)) ms) in $name: on no branch (object $obj)"
    around "$name" "$ms"
done <"$WORKLOG" >>"$lost"
while IFS=$'\t' read -r ms w path f how; do
    [[ -e $path/$f ]] && continue
    grep -qxF "$f" "$REF_FILES" && continue
    name=$(basename "$path")
    echo "untracked $path/$f ($how, by $w at +$((ms - START)) ms): deleted"
    around "$name" "$ms"
done <"$DIRTYLOG" >>"$lost"
made=$(wc -l <"$WORKLOG"); untracked=$(wc -l <"$DIRTYLOG")
if [[ -s $lost ]]; then
    result FAIL "(a) no work lost: $(grep -c '^commit' "$lost") of $made commits and $(grep -c '^untracked' "$lost") of $untracked untracked files lost" "$lost" <"$lost"
else
    result PASS "(a) no work lost: $made commits ($(grep -cP '\tduring-' "$WORKLOG") during a teardown), $untracked untracked files, all kept"
fi

# (b) No lock left: berth's own flock files stay (crates/berth-guard/src/names.rs: REGISTRY_LOCK, LANDINGS_LOCK,
# SHIP_LOCK, PORTS_LOCK; src/hooks/trust.rs: trust.lock); anything else is a lock a dead holder left.
OWN_LOCKS="$COMMON/berth/registry.lock $COMMON/berth/landings.lock $COMMON/berth/trust.lock $COMMON/berth/ship/ship.lock $XDG_DATA_HOME/git-berth/ports.lock"
left=$(find "$COMMON" "$XDG_DATA_HOME" -name '*.lock' 2>/dev/null | while read -r l; do
    [[ " $OWN_LOCKS " == *" $l "* ]] && continue
    made=$(stat -c %.3Y "$l"); made=$((${made/./} + 0))
    echo "$l ($(stat -c %s "$l") bytes, made at +$((made - START)) ms); the calls killed while running then:"
    running_at "" "$made" | grep 'rc 137'
done)
[[ -e $COMMON/berth/ship/index-lock-held ]] && left+=$'\n'"$COMMON/berth/ship/index-lock-held (ship's marker)"
left=$(sed '/^$/d' <<<"$left")
if [[ -n $left ]]; then echo "$left" >"$LOG/locks-left"; result FAIL "(b) no lock left after prune: $(grep -c '^/' <<<"$left") left" "$LOG/locks-left" <<<"$left"
else result PASS "(b) no lock left after prune"; fi

# (c) Every command works after.
broken=$LOG/broken
: >"$broken"
must() { # what command...
    local what=$1 out rc
    shift
    out=$("$@" 2>&1)
    rc=$?
    if ((rc != 0)); then
        echo "$what: exit $rc: $(head -c 600 <<<"$out" | tr '\n' ' ')" >>"$broken"
        return 1
    fi
    printf '%s' "$out"
}
for json in "list --json" "review status --json" "log --json" "collect --json"; do
    # shellcheck disable=SC2086
    out=$(must "git berth $json" "$B" $json) && { jq -e . >/dev/null 2>&1 <<<"$out" || echo "git berth $json: not JSON: $(head -c 200 <<<"$out")" >>"$broken"; }
done
must "git worktree list" git worktree list >/dev/null
must "git status" git status --porcelain >/dev/null
must "git fsck --no-dangling" git fsck --no-dangling >/dev/null
if p=$(must "git berth add after-check" "$B" add after-check); then
    p=$(tail -1 <<<"$p")
    echo after >"$p/after-check.txt"
    must "commit in after-check" git -C "$p" add after-check.txt >/dev/null
    must "commit in after-check" git -C "$p" commit -q -m after-check >/dev/null
    must "git berth release after-check" "$B" release after-check >/dev/null
    must "git berth claim after-check" "$B" claim after-check >/dev/null
    must "git berth review approve after-check" "$B" review approve after-check >/dev/null
    must "git berth ship after-check" "$B" ship after-check >/dev/null &&
        { git cat-file -e main:after-check.txt 2>/dev/null || echo "ship after-check: file not on the trunk" >>"$broken"; }
fi
must "git berth add after-remove" "$B" add after-remove >/dev/null &&
    must "git berth remove --delete-branch after-remove" "$B" remove --delete-branch after-remove >/dev/null
# Every worktree the storm left can still be approved (a left review lock would refuse it).
for p in "$WT"/n*; do
    [[ -d $p ]] || continue
    name=$(basename "$p")
    ahead=$(git -C "$p" rev-list --count main..HEAD 2>/dev/null || echo 0)
    ((ahead > 0)) || continue
    must "git berth review approve $name (left by the storm)" "$B" review approve "$name" >/dev/null
done
if [[ -s $broken ]]; then result FAIL "(c) every command works after: $(wc -l <"$broken") broke" "$broken" <"$broken"
else result PASS "(c) every command works after (add, commit, claim, release, approve, ship, remove, approve of each worktree left, list/review status/log/collect --json, worktree list, status, fsck)"; fi

# (d) The trunk only moved forward; no port block shared.
backward=$LOG/backward
: >"$backward"
prev=
while IFS=$'\t' read -r ms sha; do
    [[ -n $prev ]] && ! git merge-base --is-ancestor "$prev" "$sha" 2>/dev/null &&
        echo "sampled at +$((ms - START)) ms: $prev -> $sha is not forward" >>"$backward"
    prev=$sha
done <"$TRUNKLOG"
git reflog show --format='%H %gs' refs/heads/main | awk '{print $1}' | tac >"$LOG/reflog"
prev=
while read -r sha; do
    [[ -n $prev ]] && ! git merge-base --is-ancestor "$prev" "$sha" 2>/dev/null &&
        echo "reflog: $prev -> $sha is not forward ($(git reflog show --format='%H %gs' refs/heads/main | grep "^$sha" | head -1 | cut -d' ' -f2-))" >>"$backward"
    prev=$sha
done <"$LOG/reflog"
PORTS=$XDG_DATA_HOME/git-berth/ports.toml
if [[ -f $PORTS ]]; then
    awk '/^first = / {f = $3} /^units = / {print f, f + $3 * 10 - 1}' "$PORTS" | sort -n |
        awk 'NR > 1 && $1 <= last {print "port blocks overlap: " lf "-" last " and " $1 "-" $2} {if ($2 > last) {last = $2; lf = $1}}' >>"$backward"
fi
if [[ -s $backward ]]; then result FAIL "(d) trunk only forward, no port block shared" "$backward" <"$backward"
else result PASS "(d) trunk only forward ($(wc -l <"$TRUNKLOG") heads sampled, $(wc -l <"$LOG/reflog") reflog entries), no port block shared ($(grep -c '^first = ' "$PORTS" 2>/dev/null || echo 0) blocks)"; fi

# (e) Nothing orphaned.
orphans=$LOG/orphans
: >"$orphans"
WT_BRANCHES=$(git worktree list --porcelain | awk '/^branch / {print $2}')
# A plain `remove` or `clean` keeps the branch by design: a branch is orphaned only when none
# succeeded since its worktree's last `add`.
for ref in $(git for-each-ref --format='%(refname)' refs/heads/berth/); do
    grep -qxF "$ref" <<<"$WT_BRANCHES" && continue
    git diff --quiet --diff-filter=AM refs/heads/main "$ref" 2>/dev/null || continue
    name=${ref#refs/heads/berth/}
    awk -F'\t' -v n="$name" '$5 == 0 && $4 == n && $3 == "add" {added = $1}
        $5 == 0 && (($4 == n && ($3 == "remove" || $3 == "race-remove")) || $3 == "clean") {kept = $1}
        END {exit !(kept && kept >= added)}' "$TIMELINE" && continue
    echo "branch ${ref#refs/heads/} has no worktree, holds only landed work, and no plain remove or clean kept it; its last calls:"
    calls_of "$name" 0 "$(now_ms)" | tail -6
done >>"$orphans"
WT_PATHS=$(git worktree list --porcelain | awk '/^worktree / {print $2}')
grep -F "/_ship-" <<<"$WT_PATHS" | sed 's/^/ship scratch worktree left: /' >>"$orphans"
if out=$("$B" list --json 2>/dev/null); then
    jq -r '.worktrees[] | select(.kind == "managed") | .path' <<<"$out" | while read -r p; do
        grep -qxF "$p" <<<"$WT_PATHS" || echo "registry record without a git worktree: $p" >>"$orphans"
    done
fi
if [[ -s $orphans ]]; then result FAIL "(e) nothing orphaned: $(grep -c '^[a-z]' "$orphans")" "$orphans" <"$orphans"
else result PASS "(e) nothing orphaned (every berth/ branch without a worktree holds unlanded work)"; fi

# 4. The summary.
echo
echo "storm: $WORKERS sessions, $((STORM_MS / 1000)) s, seed $SEED, binary $BIN"
calls=$(awk -F'\t' '$3 !~ /^commit-/ && $3 != "list-unparsable"' "$TIMELINE" | wc -l)
kills=$(awk -F'\t' '$5 == 137' "$TIMELINE" | wc -l)
landings=$("$B" log --json 2>/dev/null | jq 'if type == "array" then length else (.landings | length) end' 2>/dev/null || echo "?")
echo "berth calls: $calls; SIGKILLed: $kills; landings: $landings; trunk moves: $(($(wc -l <"$LOG/reflog") - 2)); pack-refs: $(cat "$LOG/packs" 2>/dev/null | wc -l); commits made: $made"
echo "operations (kind: total, ok, refused, killed):"
awk -F'\t' '{t[$3]++; if ($5 == 0) ok[$3]++; else if ($5 == 137) k[$3]++; else no[$3]++}
    END {for (x in t) printf "  %-22s %6d %6d %6d %6d\n", x, t[x], ok[x], no[x], k[x]}' "$TIMELINE" | sort
echo "most frequent refusals (count, kind, first line):"
awk -F'\t' '$5 != 0 && $5 != 137 && $6 != "" {m = $6; gsub(/[0-9a-f]{7,40}/, "<sha>", m); gsub(/n[0-9]+/, "<n>", m); gsub(/w[0-9]+/, "<w>", m); gsub(/[0-9]+/, "<#>", m); c[$3 "\t" substr(m, 1, 160)]++}
    END {for (x in c) printf "  %5d  %s\n", c[x], x}' "$TIMELINE" | sort -rn | head -25
locked=$(awk -F'\t' '$5 != 0 && $5 != 137 && tolower($6) ~ /lock/' "$TIMELINE" | sort -n)
if [[ -n $locked ]]; then
    echo "refusals naming a lock file: $(wc -l <<<"$locked"), from +$((($(head -1 <<<"$locked" | cut -f1) - START) / 1000)) s to +$((($(tail -1 <<<"$locked" | cut -f1) - START) / 1000)) s; the first:"
    head -3 <<<"$locked" | cut -f2-6 | sed 's/^/  /'
else
    echo "refusals naming a lock file: 0"
fi
panics=$(grep -c PANIC "$TIMELINE")
echo "panics: $panics"
echo "invariants:"
printf '  %s\n' "${RESULTS[@]}"
((panics == 0)) || { echo "FAIL  no panic" ; FAILS=$((FAILS + 1)); }
((FAILS == 0)) || { echo "$FAILS invariant(s) failed; logs in $LOG" >&2; exit 1; }
