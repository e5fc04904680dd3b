#!/bin/sh
# The seed's trunk guard (require-worktree.sh) decision order in plain sh, kept only as the
# yardstick for benches/guard.sh. It is not installed anywhere and decides nothing for berth.
cmd="$1"
[ "${BERTH_ALLOW_MAIN_WORKTREE:-}" = 1 ] && exit 0
[ "${BERTH_MASTER_SESSION:-}" = 1 ] && exit 0
if printf '%s' "$cmd" | grep -Eq '^wt (switch|list|path|which|config|diff|log|step)( [a-zA-Z0-9._=/@:+-]+){0,16}$'; then
  exit 0
fi
top=$(git rev-parse --show-toplevel 2>/dev/null) || exit 0
[ -f "$top/.git" ] && exit 0
if [ -d "$top/.git" ]; then
  echo "the primary checkout is protected: wt switch -c <branch>" >&2
  exit 2
fi
exit 2
