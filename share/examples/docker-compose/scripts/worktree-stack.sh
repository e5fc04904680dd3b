#!/bin/sh
# Each worktree its own Docker Compose stack, on its own ports: the project's setup and teardown
# hooks run this (with git berth, or by hand: see README.md).
#
#   sh scripts/worktree-stack.sh up     in the worktree: its ports and project name into its .env,
#                                       then its stack up
#   sh scripts/worktree-stack.sh down   anywhere, the primary checkout included: that worktree's
#                                       stack and volumes down, and nothing else
#
# The stack is the Compose project "<primary folder>-<clone>-wt-<worktree name>", <clone> being 8
# hex digits from the primary's path, passed as -p to every call: never the primary checkout's own
# project (Compose names that after its folder), nor another clone's worktree of the same name.
set -eu

: "${WORKTREE_NAME:?is not set: run this as a worktree hook, or give the worktree name by hand}"

# Lower case, and any character Compose does not allow in a project name as '-'.
slug() {
    printf '%s' "$1" | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9_-' '-' | sed 's/^[-_]*//'
}

primary=${WORKTREE_PRIMARY:-$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")}
primary=$(cd "$primary" && pwd -P)
clone=$(printf '%08x' "$(printf '%s' "$primary" | cksum | cut -d ' ' -f 1)")
base=$(slug "$(basename "$primary")")
name=$(slug "$WORKTREE_NAME")
if [ -z "$name" ]; then
    echo "worktree-stack: '$WORKTREE_NAME' leaves nothing for a Compose project name" >&2
    exit 2
fi
project="${base:-project}-$clone-wt-$name"

case "${1:-}" in
up)
    : "${WORKTREE_PORT:?is not set: the ports hook asks for 2 ports, the web and the database}"
    db_port=$((WORKTREE_PORT + 1))
    # Rewrite .env through a new file, so a .env seeded from the primary stays the worktree's own
    # even if it was linked, and running setup again changes nothing. Compose reads .env, so a
    # plain `docker compose ...` in the worktree later finds the same project and ports.
    (
        umask 077
        {
            if [ -f .env ]; then
                grep -v -e '^COMPOSE_PROJECT_NAME=' -e '^WORKTREE_PORT=' -e '^DB_PORT=' .env || true
            fi
            printf 'COMPOSE_PROJECT_NAME=%s\nWORKTREE_PORT=%s\nDB_PORT=%s\n' \
                "$project" "$WORKTREE_PORT" "$db_port"
        } >.env.worktree-stack
    )
    mv .env.worktree-stack .env
    docker compose -p "$project" up -d
    ;;
down)
    # Teardown runs in the primary checkout; the worktree's own compose file, while it is there,
    # also names the volumes only it declared.
    if [ -n "${WORKTREE_PATH:-}" ] && [ -d "$WORKTREE_PATH" ]; then
        cd "$WORKTREE_PATH"
    fi
    docker compose -p "$project" down -v --remove-orphans
    ;;
*)
    echo "usage: sh scripts/worktree-stack.sh up|down" >&2
    exit 2
    ;;
esac
