// git berth's trunk guard for Pi, installed by `git berth init`.
// Hands every tool call that could change something to `git berth guard --runtime pi` and
// returns a block on a block or on any failure to run the guard.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { spawnSync } from "node:child_process"

const GUARD: string[] = @GUARD_ARGV@

// Tools that cannot change anything skip the guard; any other tool is judged.
const READ_ONLY = new Set(["read", "grep", "find", "ls"])

export default function berthGuard(pi: ExtensionAPI) {
  pi.on("tool_call", async (event, ctx) => {
    if (READ_ONLY.has(event.toolName)) return undefined
    const payload = JSON.stringify({ tool: event.toolName, input: event.input, cwd: ctx.cwd })
    const r = spawnSync(GUARD[0], GUARD.slice(1), {
      cwd: ctx.cwd,
      input: payload,
      encoding: "utf8",
      timeout: 10000,
    })
    if (r.error) {
      return { block: true, reason: `${GUARD.join(" ")} could not run, so the call is blocked: ${r.error.message}` }
    }
    if (r.status === 0) return undefined
    return { block: true, reason: (r.stderr || "").trim() || `blocked by ${GUARD.join(" ")} (exit ${r.status})` }
  })
}
