#!/usr/bin/env python3
"""A `ClaudeSDKClient` turn with a `PreToolUse` hook on `Write` and a `PostToolUse` hook
on every tool, against the CLI at $CLAUDE_CLI, edits accepted (`acceptEdits`). Each hook
prints the event it got (`hook PreToolUse Write`, `hook PostToolUse Write response=...`:
the first 60 characters of the tool's `tool_response` content) and returns `{}`; one
summary line per message (summary.py) and `done`; exit 0. A run longer than 20 s prints
`timeout` and exits 3."""

import json
import os

from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, HookMatcher

import summary


async def pre(input_data, tool_use_id, context):
    same = input_data.get("tool_use_id") == tool_use_id
    print(f"hook {input_data['hook_event_name']} {input_data['tool_name']} id_matches={same}", flush=True)
    return {}


async def post(input_data, tool_use_id, context):
    response = input_data.get("tool_response")
    content = response.get("content", "") if isinstance(response, dict) else json.dumps(response)
    same = input_data.get("tool_use_id") == tool_use_id
    print(
        f"hook {input_data['hook_event_name']} {input_data['tool_name']} id_matches={same} "
        f"response={str(content)[:60]}",
        flush=True,
    )
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "seen"}}


async def main():
    options = ClaudeAgentOptions(
        cli_path=os.environ["CLAUDE_CLI"],
        permission_mode="acceptEdits",
        hooks={
            "PreToolUse": [HookMatcher(matcher="Write", hooks=[pre])],
            "PostToolUse": [HookMatcher(matcher=None, hooks=[post])],
        },
    )
    async with ClaudeSDKClient(options=options) as client:
        await client.query("Read README.md and create a summary")
        async for message in client.receive_response():
            summary.show(message)
    print("done")


summary.run(main)
