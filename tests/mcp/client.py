"""A real MCP client no one here wrote (the official Python SDK, `mcp` on PyPI) against
`git berth mcp`: connect over stdio, list the tools, create a worktree, list the worktrees.
Prints one JSON object with what it saw; the Rust test checks it.

Usage: python client.py <git-berth binary> <repository folder>
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client


async def main(binary: str, folder: str) -> None:
    params = StdioServerParameters(command=binary, args=["mcp"], cwd=folder)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            created = await session.call_tool("worktree_create", {"name": "from-python"})
            listed = await session.call_tool("worktree_list", {})
            print(json.dumps({
                "instructions": init.instructions,
                "tools": sorted(t.name for t in tools.tools),
                "read_only": [t.name for t in tools.tools
                              if t.annotations and t.annotations.read_only_hint],
                "created_error": created.is_error,
                "created": json.loads(created.content[0].text),
                "listed": json.loads(listed.content[0].text),
            }))


asyncio.run(main(sys.argv[1], sys.argv[2]))
