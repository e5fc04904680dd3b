#!/usr/bin/env bash
# Benchmark: `git berth mcp` on a repository with 32 worktrees of a 5,000-file tree.
#   1. worktree_list through a running server (the call alone: request written to answer read)
#      against `git berth list --json` run as a process, as an agent without the server does;
#   2. the server's start: spawning `git berth mcp` to its initialize answer.
#
#   benches/mcp.sh [DIR]      # DIR: where the scratch folder goes (default: $TMPDIR or /tmp)
#
# RUNS (default 7, at least 5) timed runs of each, alternated; medians and ratios are printed.
set -euo pipefail

WORKTREES=32
BENCH=mcp
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bench_repo "$WORK/repo"
for ((i = 0; i < WORKTREES; i++)); do
    "$BIN" add "wt$i" > /dev/null 2>&1
done
echo change >> "$("$BIN" path wt0)/dir0/f0.txt"

python3 - "$BIN" "$RUNS" "$WORKTREES" <<'PY'
import json, statistics, subprocess, sys, time

binary, runs, worktrees = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}}}

def start():
    p = subprocess.Popen([binary, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
    return p

def ask(p, message):
    p.stdin.write(json.dumps(message) + "\n")
    p.stdin.flush()
    while True:
        answer = json.loads(p.stdout.readline())
        if answer.get("id") == message["id"]:
            return answer

def stop(p):
    p.stdin.close()
    p.wait()

starts, calls, processes = [], [], []
server = start()
ask(server, INIT)
server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
for n in range(1, runs + 1):
    t0 = time.perf_counter()
    p = start()
    ask(p, INIT)
    starts.append((time.perf_counter() - t0) * 1000)
    stop(p)

    t0 = time.perf_counter()
    answer = ask(server, {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                          "params": {"name": "worktree_list", "arguments": {}}})
    calls.append((time.perf_counter() - t0) * 1000)
    listed = json.loads(answer["result"]["content"][0]["text"])
    assert len(listed["worktrees"]) == worktrees, listed

    t0 = time.perf_counter()
    out = subprocess.run([binary, "list", "--json"], capture_output=True, check=True)
    processes.append((time.perf_counter() - t0) * 1000)
    assert len(json.loads(out.stdout)["worktrees"]) == worktrees
stop(server)

def show(label, xs):
    print(f"{label:<40} {' '.join(f'{x:.1f}' for x in xs)}  median {statistics.median(xs):.1f} ms")
    return statistics.median(xs)

c = show("worktree_list through the server:", calls)
l = show("git berth list --json as a process:", processes)
s = show("server start to its initialize answer:", starts)
print(f"ratio worktree_list / list --json: {c / l:.2f}")
print(f"ratio server start / list --json:  {s / l:.2f}")
PY
