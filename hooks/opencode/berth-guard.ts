// git berth's trunk guard for OpenCode, installed by `git berth init`.
// Hands every tool call that could change something to `git berth guard --runtime opencode`
// and throws (which blocks the call) on a block or on any failure to run the guard.
//
// It knows which agent each session runs. The guard of the master agent's calls runs with
// the master hatch set; the guard of any other agent's calls runs with both hatches taken
// out of its environment, even when OpenCode itself was started with them (by
// `git berth master`, say), so switching agents in the master's OpenCode, or a subagent the
// master starts, never inherits the right to work in the primary checkout. A subagent's
// session is never the master's, whatever its agent is called: an agent cannot hand itself
// the hatch by starting a subagent named master.
import type { Plugin } from "@opencode-ai/plugin"
import { spawnSync } from "node:child_process"

const GUARD: string[] = @GUARD_ARGV@
const MASTER_AGENT = @MASTER_AGENT@
const ALLOW_HATCH = @ALLOW_HATCH@
const MASTER_HATCH = @MASTER_HATCH@

// Tools that cannot change anything skip the guard; any other tool, including ones this
// file has never heard of, is judged.
const READ_ONLY = new Set([
  "read", "grep", "glob", "list", "webfetch", "websearch", "todowrite", "todoread",
  "task", "skill", "question", "lsp", "plan", "codesearch",
])

export const BerthGuard: Plugin = async ({ directory, worktree }) => {
  // The agent each session last ran, as OpenCode reported it. A session not seen yet counts
  // as not the master: the hatches are only ever given, never assumed.
  const agents = new Map()
  const children = new Set()
  const remember = (sessionID, agent) => {
    if (typeof sessionID === "string" && typeof agent === "string" && agent !== "") {
      agents.set(sessionID, agent)
    }
  }
  const guardEnv = (sessionID) => {
    const env = { ...process.env }
    if (agents.get(sessionID) === MASTER_AGENT && !children.has(sessionID)) {
      env[MASTER_HATCH] = "1"
    } else {
      delete env[ALLOW_HATCH]
      delete env[MASTER_HATCH]
    }
    return env
  }
  return {
    // A user message names the agent that answers it (also after a switch with Tab).
    "chat.message": async (input, output) => {
      remember(input.sessionID, input.agent ?? output?.message?.agent)
    },
    // Every call to the model names its agent, subagents' sessions included.
    "chat.params": async (input) => {
      remember(input.sessionID, input.agent)
    },
    event: async ({ event }) => {
      const info = event?.properties?.info
      if (event?.type === "message.updated" && info) {
        remember(info.sessionID, info.agent ?? info.mode)
      } else if ((event?.type === "session.created" || event?.type === "session.updated") && info?.parentID) {
        children.add(info.id)
      } else if (event?.type === "session.deleted" && info) {
        agents.delete(info.id)
        children.delete(info.id)
      }
    },
    "tool.execute.before": async (input, output) => {
      if (READ_ONLY.has(input.tool)) return
      const payload = JSON.stringify({ tool: input.tool, args: output.args, directory, worktree })
      const r = spawnSync(GUARD[0], GUARD.slice(1), {
        cwd: directory,
        input: payload,
        encoding: "utf8",
        env: guardEnv(input.sessionID),
        timeout: 10000,
      })
      if (r.error) throw new Error(`${GUARD.join(" ")} could not run, so the call is blocked: ${r.error.message}`)
      if (r.status === 0) return
      throw new Error((r.stderr || "").trim() || `blocked by ${GUARD.join(" ")} (exit ${r.status})`)
    },
  }
}
