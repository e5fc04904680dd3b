#!/bin/sh
# Median latency of the guard in a linked worktree over N runs (default 200): the seed's
# shell script (guard-reference.sh), `git-berth guard` run directly, and `git berth guard`
# through git. Usage: benches/guard.sh [path/to/git-berth] (default target/release/git-berth).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../target/release/git-berth}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
runs=${RUNS:-200}
[ -x "$bin" ] || { echo "git berth: no binary at $bin" >&2; echo "hint: cargo build --release" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com \
  GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
unset BERTH_ALLOW_MAIN_WORKTREE BERTH_MASTER_SESSION
git init -q -b main "$tmp/primary"
git -C "$tmp/primary" commit -q --allow-empty -m init
git -C "$tmp/primary" worktree add -q -b side "$tmp/linked"
mkdir -p "$tmp/linked/a/b/c" "$tmp/bin"
ln -s "$bin" "$tmp/bin/git-berth"
cd "$tmp/linked/a/b/c"

# Prints the median per-run wall time in microseconds of running "$@" $runs times, timed in
# batches of 10 so the clock's own cost (a `date` process) is spread thin.
median() {
  b=0
  : > "$tmp/times"
  while [ $b -lt $((runs / 10)) ]; do
    t0=$(date +%s%N)
    for _ in 1 2 3 4 5 6 7 8 9 10; do "$@" >/dev/null 2>&1 || true; done
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 10000 )) >> "$tmp/times"
    b=$((b + 1))
  done
  sort -n "$tmp/times" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

cmd='cargo test --workspace'
# What starting any program costs here (the two `date` calls around it included), taken off
# every figure so the ratios compare the guards' own work.
base=$(median /bin/true)
net() { echo $(( $1 > base ? $1 - base : 0 )); }
ref=$(net "$(median sh "$here/guard-reference.sh" "$cmd")")
direct=$(net "$(median "$bin" guard -- "$cmd")")
via_git=$(net "$(PATH="$tmp/bin:$PATH" median git berth guard -- "$cmd")")
echo "runs: $runs, command: $cmd, in a linked worktree; start-up baseline ${base} us taken off"
echo "seed shell script:    ${ref} us"
echo "git-berth guard:      ${direct} us  (ratio $(awk "BEGIN { printf \"%.3f\", $direct / $ref }"))"
echo "git berth guard:      ${via_git} us  (ratio $(awk "BEGIN { printf \"%.3f\", $via_git / $ref }"))"

# Large commands: a 64 KiB here-document of code (Claude Code writing a file through the shell)
# and a 64 KiB command naming 7,000 distinct paths, each judged where it lies. Median of 20
# single runs, in ms, start-up included.
code='fn f(x: &str) -> String { format!("{x}/../y") }'
{ echo "cat > big.rs <<'EOF'"; i=0; while [ $i -lt 1300 ]; do echo "$code"; i=$((i + 1)); done; echo EOF; } > "$tmp/heredoc"
{ printf 'touch'; i=0; while [ $i -lt 7000 ]; do printf ' d%s/f' $i; i=$((i + 1)); done; } > "$tmp/paths"
once() {
  : > "$tmp/times"
  for _ in $(seq 20); do
    t0=$(date +%s%N); "$bin" guard -- "$(cat "$1")" >/dev/null 2>&1 || true; t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000 )) >> "$tmp/times"
  done
  sort -n "$tmp/times" | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 1) / 2)] / 1000 }'
}
echo "64 KiB heredoc:       $(once "$tmp/heredoc") ms  ($(wc -c < "$tmp/heredoc") bytes)"
echo "7,000 named paths:    $(once "$tmp/paths") ms  ($(wc -c < "$tmp/paths") bytes)"
