//! The protocol side of `git berth mcp`: the five tools with their schemas and hints, the
//! standing instructions, and the stdio transport, through `rmcp`. Each call runs its
//! [`crate::tools`] function on tokio's blocking pool, so a slow one (a removal's teardown hook)
//! never stalls the connection; its result is the JSON text, or a tool error with berth's message.

use std::sync::Arc;

use anyhow::Result;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::Value;

use crate::tools::{self, CreateArgs, ListArgs, NameArgs, RemoveArgs, Scope};

/// The server: where it runs, whether it is quiet, and its tools (none when quiet).
#[derive(Clone)]
struct Berth {
    scope: Arc<Scope>,
    quiet: bool,
    tool_router: ToolRouter<Berth>,
}

#[tool_router]
impl Berth {
    fn new(scope: Scope, quiet: bool) -> Self {
        Berth {
            scope: Arc::new(scope),
            quiet,
            tool_router: if quiet {
                ToolRouter::new()
            } else {
                Self::tool_router()
            },
        }
    }

    /// Run `work` off the event loop and make its outcome the tool's result.
    async fn call(
        &self,
        work: impl FnOnce(&Scope) -> Result<Value> + Send + 'static,
    ) -> Result<CallToolResult, ErrorData> {
        let scope = Arc::clone(&self.scope);
        let done = tokio::task::spawn_blocking(move || work(&scope))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the tool stopped: {e}"), None))?;
        Ok(match done {
            Ok(value) => {
                let text = serde_json::to_string_pretty(&value)
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                CallToolResult::success(vec![ContentBlock::text(text)])
            }
            Err(err) => {
                let (message, hint) = berth::error::render(&err);
                let text = match hint {
                    Some(hint) => format!("error: {message}\nhint: {hint}"),
                    None => format!("error: {message}"),
                };
                CallToolResult::error(vec![ContentBlock::text(text)])
            }
        })
    }

    #[tool(
        description = "List this repository's worktrees: each one's status (available, claimed, \
                       stale), who holds it (\"self\" for you), base_commit and base_ref, \
                       head_commit, ahead/behind, dirty and review; plus repo_key and \
                       cwd_worktree (the worktree you are in, or null). Call it before deciding \
                       to create a worktree.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn worktree_list(
        &self,
        Parameters(args): Parameters<ListArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(move |scope| tools::list(scope, args)).await
    }

    #[tool(
        description = "Create a worktree (its own checkout on branch berth/<name>) claimed for \
                       you, or, when one of that name exists and nobody else holds it, claim and \
                       return it (reused: true). Refused when another live session holds it.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn worktree_create(
        &self,
        Parameters(args): Parameters<CreateArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(move |scope| tools::create(scope, args)).await
    }

    #[tool(
        description = "Claim an existing worktree for you without creating one. Nothing changes \
                       when you hold it already; a stale claim (its holder is gone) is taken over \
                       and says so (reclaimed_stale); refused when another live session holds it.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn worktree_claim(
        &self,
        Parameters(args): Parameters<NameArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(move |scope| tools::claim(scope, args)).await
    }

    #[tool(
        description = "Release your claim on a worktree so another agent can take it; the \
                       worktree stays. Clears a stale claim too; refused only when another live \
                       session holds it.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn worktree_release(
        &self,
        Parameters(args): Parameters<NameArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(move |scope| tools::release(scope, args)).await
    }

    #[tool(
        description = "Remove a worktree's checkout. Refused when it has uncommitted or unmerged \
                       work or another live session holds it, unless force is true (that work is \
                       then lost); its branch stays unless delete_branch is true. Remove only \
                       worktrees you made.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn worktree_remove(
        &self,
        Parameters(args): Parameters<RemoveArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(move |scope| tools::remove(scope, args)).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Berth {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.quiet {
            ServerCapabilities::default()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        let info = ServerConfig::new(capabilities).with_server_info(Implementation::new(
            berth::names::MCP_SERVER,
            env!("CARGO_PKG_VERSION"),
        ));
        if self.quiet {
            info
        } else {
            info.with_instructions(crate::INSTRUCTIONS.trim())
        }
    }
}

/// Serve until the client closes stdin.
pub async fn run(scope: Scope, quiet: bool) -> Result<()> {
    let service = Berth::new(scope, quiet)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| anyhow::anyhow!("the MCP connection did not start: {e}"))?;
    service
        .waiting()
        .await
        .map_err(|e| anyhow::anyhow!("the MCP server stopped: {e}"))?;
    Ok(())
}
