#!/usr/bin/env python3
"""Latency of the guard per input, as an agent's hook runs it: `git-berth guard --runtime claude`
with the runtime's JSON on stdin, from a linked worktree beside its primary.

Inputs: every line of the attack fixtures (tests/fixtures/guard/: the issue 10 attacks, the
injections and each round 4 class but the sibling worktrees', which need a second live session),
and five large commands: `touch` of about 64 KB and of
about 248 KB of new names (37,000), `touch` of 20,000 files that exist, `touch` of 29,000 paths
each in a folder not there yet (248 KB), and a 248 KB quoted here-document. Each input runs RUNS times (default 5); its figure is the median of those. The
report gives, per group, the median and the worst of the inputs' figures, as wall time and as
the CPU time the guard process used (user + system, from wait4).

Usage: benches/guard-inputs.py [path/to/git-berth ...] (default target/release/git-berth).
Several binaries are measured in turn on the same inputs, for a before and after.
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
FIXTURES = HERE.parent / "tests" / "fixtures" / "guard"
RUNS = int(os.environ.get("RUNS", "5"))
ATTACK_FILES = [
    "attacks-from-linked.txt",
    "injection-from-linked.txt",
    "round4-runtime-values.txt",
    "round4-git-programs.txt",
    "round4-script-then-run.txt",
    "round4-trunk-state.txt",
    "round4-links-outputs.txt",
    "round4-approve-ship.txt",
]


def git(*args, cwd=None):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def world(tmp):
    primary, linked = tmp / "primary", tmp / "linked"
    git("init", "-q", "-b", "main", str(primary))
    git("-C", str(primary), "commit", "-q", "--allow-empty", "-m", "init")
    git("-C", str(primary), "worktree", "add", "-q", "-b", "berth/x", str(linked))
    (linked / "src").mkdir()
    (linked / "list").write_text("../primary/PWN\n")
    existing = linked / "many"
    existing.mkdir()
    for i in range(20_000):
        (existing / f"f{i}").touch()
    return primary, linked


def attack_lines(primary, linked):
    """Each fixture's attack lines (before its `# Must pass` header), placeholders filled."""
    lines = []
    for name in ATTACK_FILES:
        text = (FIXTURES / name).read_text()
        text = text.split("\n# Must pass")[0]
        for line in text.splitlines():
            if not line.strip() or line.startswith("# "):
                continue
            line = line.replace("@PRIMARY@", str(primary)).replace("@LINKED@", str(linked))
            lines.append(line.replace("\\n", "\n"))
    return lines


def large_commands():
    def touch(count, prefix="a"):
        return "touch " + " ".join(f"{prefix}{i}" for i in range(count))

    heredoc = "cat > out.txt <<'EOF'\n" + ("x" * 99 + "\n") * 2480 + "EOF"
    return [
        ("touch, 64 KB of new names", touch(9_800)),
        ("touch, 248 KB of new names (37,000)", touch(37_000)),
        ("touch, 20,000 existing files", "cd many && " + touch(20_000, "f")),
        (
            "touch, 248 KB of paths in 29,000 new folders",
            "touch " + " ".join(f"d{i}/f" for i in range(29_000)),
        ),
        ("quoted here-document, 248 KB", heredoc),
    ]


def once(binary, linked, env, command):
    payload = json.dumps(
        {
            "session_id": "bench",
            "cwd": str(linked),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
    ).encode()
    t0 = time.perf_counter()
    p = subprocess.Popen(
        [binary, "guard", "--runtime", "claude"],
        cwd=linked,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    p.stdin.write(payload)
    p.stdin.close()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000, p.returncode


def measure(binary, linked, env, command):
    runs = [once(binary, linked, env, command) for _ in range(RUNS)]
    return (
        statistics.median(r[0] for r in runs),
        statistics.median(r[1] for r in runs),
        runs[0][2],
    )


def main():
    binaries = [str(Path(b).resolve()) for b in sys.argv[1:]] or [
        str(HERE.parent / "target" / "release" / "git-berth")
    ]
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
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
        primary, linked = world(tmp)
        attacks = attack_lines(primary, linked)
        large = large_commands()
        print(f"{len(attacks)} attack lines, {len(large)} large commands, {RUNS} runs each")
        for binary in binaries:
            print(f"\n{binary}")
            figures = [measure(binary, linked, env, c) for c in attacks]
            walls = [f[0] for f in figures]
            cpus = [f[1] for f in figures]
            blocked = sum(1 for f in figures if f[2] != 0)
            worst = attacks[walls.index(max(walls))]
            print(
                f"  attack lines: wall median {statistics.median(walls):.2f} ms, "
                f"worst {max(walls):.2f} ms; cpu median {statistics.median(cpus):.2f} ms, "
                f"worst {max(cpus):.2f} ms; {blocked} of {len(attacks)} blocked"
            )
            print(f"    worst: {worst[:100]!r}")
            for name, command in large:
                wall, cpu, code = measure(binary, linked, env, command)
                verdict = "blocked" if code else "allowed"
                print(f"  {name}: wall {wall:.1f} ms, cpu {cpu:.1f} ms ({verdict})")


if __name__ == "__main__":
    main()
