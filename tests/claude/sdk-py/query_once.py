#!/usr/bin/env python3
"""A one-shot `query()` of the Python Claude Agent SDK, with a string prompt, against the
CLI at $CLAUDE_CLI. Prints one summary line per message (summary.py) and `done`; exit 0.
A run longer than 20 s prints `timeout` and exits 3 (a hang fails, never sticks)."""

import os
import sys

from claude_agent_sdk import ClaudeAgentOptions, query

import summary


async def main():
    options = ClaudeAgentOptions(cli_path=os.environ["CLAUDE_CLI"], model="sonnet", max_turns=3)
    async for message in query(prompt=" ".join(sys.argv[1:]) or "Say hi", options=options):
        summary.show(message)
    print("done")


summary.run(main)
