#!/usr/bin/env python3
"""A `ClaudeSDKClient` session of two turns with a `can_use_tool` callback, against the
CLI at $CLAUDE_CLI: the first permission request is allowed, every later one denied
("Not now"). Prints `turn N`, a line per request the callback got
(`can_use_tool TOOL -> allow|deny`), one summary line per message (summary.py) and
`done`; exit 0. A run longer than 20 s prints `timeout` and exits 3."""

import os

from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    PermissionResultAllow,
    PermissionResultDeny,
)

import summary

asked = []


async def can_use_tool(tool_name, tool_input, context):
    asked.append(tool_name)
    if len(asked) == 1:
        print(f"can_use_tool {tool_name} -> allow", flush=True)
        return PermissionResultAllow()
    print(f"can_use_tool {tool_name} -> deny", flush=True)
    return PermissionResultDeny(message="Not now")


async def main():
    options = ClaudeAgentOptions(
        cli_path=os.environ["CLAUDE_CLI"], can_use_tool=can_use_tool, permission_mode="default"
    )
    async with ClaudeSDKClient(options=options) as client:
        for turn, prompt in enumerate(["Write the summary", "Write it again"], start=1):
            print(f"turn {turn}", flush=True)
            await client.query(prompt)
            async for message in client.receive_response():
                summary.show(message)
    print("done")


summary.run(main)
