#!/usr/bin/env python3
"""The guard's added latency from owned paths (`git berth own`, issue 21): 200 mixed calls, as
an agent's hook runs them (`git-berth guard --runtime claude` with Claude Code's JSON on stdin),
from a linked worktree `b`, in two repositories laid out alike: one whose owners file lists 50
patterns that the worktree `a` owns (folders, files and globs, held by this script's own live
process), one with no owners file. The calls: edits, writes and multi-edits of files (some of them
owned, so blocked), reads, and shell commands that read or write. Each call runs RUNS times
(default 7) in each repository, the two alternating so drift falls on both alike; a call's figure
is the median of its runs. The report gives the mean and the median over the calls of each
figure, as wall time and as the CPU time the guard process used (user + system, from wait4), and
the difference per call.

Usage: benches/guard-owners.py [path/to/git-berth] (default target/release/git-berth).
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = int(os.environ.get("RUNS", "7"))
CALLS = 200
PATTERNS = 50


def git(*args):
    subprocess.run(["git", *args], check=True, capture_output=True)


def world(base):
    """A primary checkout and linked worktrees `a` and `b`, each with src/m<i>/f.rs files."""
    primary = base / "primary"
    git("init", "-q", "-b", "main", str(primary))
    for i in range(20):
        d = primary / "src" / f"m{i}"
        d.mkdir(parents=True)
        (d / "f.rs").write_text("fn f() {}\n")
    (primary / "docs").mkdir()
    (primary / "docs" / "guide.md").write_text("# guide\n")
    git("-C", str(primary), "add", "-A")
    git("-C", str(primary), "commit", "-q", "-m", "init")
    a, b = base / "a", base / "b"
    git("-C", str(primary), "worktree", "add", "-q", "-b", "a", str(a))
    git("-C", str(primary), "worktree", "add", "-q", "-b", "b", str(b))
    return primary, a, b


def start_time(pid):
    """Field 22 of /proc/<pid>/stat, as the guard reads it."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return text.rsplit(")", 1)[1].split()[19]


def owners_file(primary, a):
    """50 patterns `a` owns: folders src/m0/..src/m9/, files, and globs."""
    pid = os.getpid()
    head = f"{pid} {start_time(pid)} {a}"
    patterns = [f"src/m{i}/" for i in range(10)]
    patterns += [f"src/owned{i}.rs" for i in range(20)]
    patterns += [f"gen/g{i}/**/*.rs" for i in range(15)]
    patterns += [f"docs/part{i}/*.md" for i in range(5)]
    assert len(patterns) == PATTERNS
    lines = ["# git berth: owned paths (pid, start time, worktree folder, tab, pattern)"]
    lines += [f"{head}\t{p}" for p in patterns]
    state = primary / ".git" / "berth"
    state.mkdir(parents=True, exist_ok=True)
    (state / "owners.guard").write_text("\n".join(lines) + "\n")


def calls(b):
    """200 mixed hook inputs from `b`: (tool, tool_input), its paths relative to `b`'s root."""
    kinds = []
    for i in range(CALLS):
        m = i % 20  # m0..m9 are owned by `a`: those edits are blocked.
        k = i % 10
        if k == 0:
            kinds.append(("Edit", {"file_path": f"src/m{m}/f.rs", "old_string": "fn", "new_string": "pub fn"}))
        elif k == 1:
            kinds.append(("Write", {"file_path": f"src/m{m}/new{i}.rs", "content": "x"}))
        elif k == 2:
            kinds.append(("MultiEdit", {"file_path": f"src/m{m}/f.rs", "edits": [{"old_string": "fn", "new_string": "pub fn"}]}))
        elif k == 3:
            kinds.append(("Read", {"file_path": f"src/m{m}/f.rs"}))
        elif k == 4:
            kinds.append(("Bash", {"command": "cargo test --workspace"}))
        elif k == 5:
            kinds.append(("Bash", {"command": f"sed -i s/fn/pub/ src/m{m}/f.rs"}))
        elif k == 6:
            kinds.append(("Bash", {"command": f"echo x > out{i}.txt && cat src/m{m}/f.rs"}))
        elif k == 7:
            kinds.append(("Bash", {"command": "git status && git diff --stat"}))
        elif k == 8:
            kinds.append(("Write", {"file_path": f"docs/notes{i}.md", "content": "x"}))
        else:
            kinds.append(("Bash", {"command": f"grep -rn fn src/m{m} | head"}))
    out = []
    for tool, inp in kinds:
        inp = dict(inp)
        if "file_path" in inp:
            inp["file_path"] = str(b / inp["file_path"])
        out.append((tool, inp))
    return out


def once(binary, cwd, env, tool, tool_input):
    payload = json.dumps(
        {
            "session_id": "bench",
            "cwd": str(cwd),
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
        }
    ).encode()
    t0 = time.perf_counter()
    p = subprocess.Popen(
        [binary, "guard", "--runtime", "claude"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    p.stdin.write(payload)
    p.stdin.close()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    return wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000, os.waitstatus_to_exitcode(status)


def main():
    binary = str(Path(sys.argv[1]).resolve()) if len(sys.argv) > 1 else str(
        HERE.parent / "target" / "release" / "git-berth"
    )
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t).resolve()
        env = {
            "HOME": str(tmp),
            "XDG_DATA_HOME": str(tmp / "data"),
            "PATH": os.environ["PATH"],
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "b",
            "GIT_AUTHOR_EMAIL": "b@example.com",
            "GIT_COMMITTER_NAME": "b",
            "GIT_COMMITTER_EMAIL": "b@example.com",
        }
        os.environ.update(env)
        (tmp / "none").mkdir()
        (tmp / "owned").mkdir()
        _, _, b_none = world(tmp / "none")
        primary, a, b_owned = world(tmp / "owned")
        owners_file(primary, a)
        inputs = {"none": calls(b_none), "owned": calls(b_owned)}
        figures = {"none": [], "owned": []}
        blocked = {"none": 0, "owned": 0}
        for i in range(CALLS):
            runs = {"none": [], "owned": []}
            for _ in range(RUNS):
                for case, b in (("none", b_none), ("owned", b_owned)):
                    tool, inp = inputs[case][i]
                    runs[case].append(once(binary, b, env, tool, inp))
            for case in runs:
                r = runs[case]
                figures[case].append(
                    (statistics.median(x[0] for x in r), statistics.median(x[1] for x in r))
                )
                blocked[case] += r[0][2] != 0
        print(f"{binary}\n{CALLS} mixed calls from a linked worktree, {RUNS} runs each, per call:")
        for case, label in (("none", "no owners file"), ("owned", f"{PATTERNS} owned patterns")):
            walls = [f[0] for f in figures[case]]
            cpus = [f[1] for f in figures[case]]
            print(
                f"  {label:<20} wall mean {statistics.mean(walls):.3f} ms, median "
                f"{statistics.median(walls):.3f} ms; cpu mean {statistics.mean(cpus):.3f} ms, "
                f"median {statistics.median(cpus):.3f} ms; {blocked[case]} of {CALLS} blocked"
            )
        dw = [o[0] - n[0] for o, n in zip(figures["owned"], figures["none"])]
        dc = [o[1] - n[1] for o, n in zip(figures["owned"], figures["none"])]
        print(
            f"  added per call:      wall mean {statistics.mean(dw):+.3f} ms, median "
            f"{statistics.median(dw):+.3f} ms; cpu mean {statistics.mean(dc):+.3f} ms, median "
            f"{statistics.median(dc):+.3f} ms"
        )


if __name__ == "__main__":
    main()
