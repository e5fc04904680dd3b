// git berth's trunk guard for OpenCode, installed by `git berth init`.
// Hands every tool call that could change something to `git berth guard --runtime opencode`
// and throws (which blocks the call) on a block or on any failure to run the guard.
import type { Plugin } from "@opencode-ai/plugin"
import { spawnSync } from "node:child_process"

const GUARD: string[] = @GUARD_ARGV@

// Tools that cannot change anything skip the guard; any other tool, including ones this
// file has never heard of, is judged.
const READ_ONLY = new Set([
  "read", "grep", "glob", "list", "webfetch", "websearch", "todowrite", "todoread",
  "task", "skill", "question", "lsp", "plan", "codesearch",
])

export const BerthGuard: Plugin = async ({ directory, worktree }) => ({
  "tool.execute.before": async (input, output) => {
    if (READ_ONLY.has(input.tool)) return
    const payload = JSON.stringify({ tool: input.tool, args: output.args, directory, worktree })
    const r = spawnSync(GUARD[0], GUARD.slice(1), {
      cwd: directory,
      input: payload,
      encoding: "utf8",
      timeout: 10000,
    })
    if (r.error) throw new Error(`${GUARD.join(" ")} could not run, so the call is blocked: ${r.error.message}`)
    if (r.status === 0) return
    throw new Error((r.stderr || "").trim() || `blocked by ${GUARD.join(" ")} (exit ${r.status})`)
  },
})
