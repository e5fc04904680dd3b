#!/usr/bin/env bash
# Benchmark: the per-agent overhead of `git berth pipeline run` (one stage of 16 `shell` agents
# running `true`, each in its own worktree) over making the same 16 worktrees with `fleet up`
# and running the same commands there, on a repository of 20,000 small files (issue 20).
#
#   benches/pipeline.sh [DIR]          # DIR: where the scratch folder goes (default $TMPDIR or /tmp)
#   RUNS=5 AGENTS=16 benches/pipeline.sh /dev/shm
#
# The fleet's side is timed until every agent has exited (its supervisor recorded it), the
# pipeline's until `pipeline run` returns (every agent done). Both sides are taken down untimed
# between runs. Whole-process wall time in ms.
set -euo pipefail

BENCH=pipeline
source "$(dirname "$0")/lib.sh"
FILES=20000
DIRS=200
AGENTS=${AGENTS:-16}

extra() { :; }
bench_repo "$WORK/repo"
cd "$WORK/repo"

fleet=$WORK/fleet.toml pipeline=$WORK/pipeline.toml
{
    printf 'name = "benchf"\n\n[defaults]\ntype = "shell"\nbackground = true\nprompt = "true"\n'
    for ((i = 0; i < AGENTS; i++)); do printf '\n[[agents]]\nname = "a%d"\n' "$i"; done
} > "$fleet"
{
    printf 'name = "benchp"\n\n[defaults]\ntype = "shell"\nprompt = "true"\n\n[[stages]]\nname = "all"\n'
    for ((i = 0; i < AGENTS; i++)); do printf '\n[[stages.agents]]\nname = "a%d"\n' "$i"; done
} > "$pipeline"

all_exited() { git berth fleet ls benchf --json | python3 -c '
import json, sys
agents = json.load(sys.stdin)["fleets"][0]["agents"]
sys.exit(0 if agents and all(a["state"] == "exited" for a in agents) else 1)'; }
fleet_side() {
    git berth fleet up "$fleet" > /dev/null 2>&1
    until all_exited; do sleep 0.01; done
}
fleet_down() { git berth fleet down benchf > /dev/null 2>&1; }
pipeline_side() { git berth pipeline run "$pipeline" > /dev/null 2>&1; }
pipeline_down() {
    # The run's worktrees hold nothing of value: removed as any clean, merged worktree is.
    git berth clean -d > /dev/null 2>&1 || true
}

fleet_side; fleet_down; pipeline_side; pipeline_down
F=() P=()
for ((r = 0; r < RUNS; r++)); do
    sync
    if ((r % 2)); then
        F+=("$(ms fleet_side)"); fleet_down; sync; P+=("$(ms pipeline_side)"); pipeline_down
    else
        P+=("$(ms pipeline_side)"); pipeline_down; sync; F+=("$(ms fleet_side)"); fleet_down
    fi
done
fm=$(median "${F[@]}") pm=$(median "${P[@]}")
echo "machine: $(nproc) cores; $(df -T "$WORK" | awk 'NR==2 {print $2}') at $WORK"
echo "repository: $FILES files in $DIRS folders; $AGENTS agents; $RUNS runs"
echo "fleet up, until all exited:  ${F[*]} ms (median $fm)"
echo "pipeline run:                ${P[*]} ms (median $pm)"
awk -v p="$pm" -v f="$fm" -v n="$AGENTS" 'BEGIN { printf "ratio: %.2f of the fleet'"'"'s time; overhead %.1f ms an agent\n", p / f, (p - f) / n }'
