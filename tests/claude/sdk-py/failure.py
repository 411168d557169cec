#!/usr/bin/env python3
"""A one-shot `query()` against a CLI at $CLAUDE_CLI that fails (the test sets
MOCK_AGENT_FAULTS). Prints one summary line per message (summary.py), then how the run
ended: `raised CLASS process_error=true|false exit_code=N in=Ts: MESSAGE` (exit 1), or
`no error` (exit 0) when the SDK raised nothing; a run longer than 20 s prints `timeout`
and exits 3, so a hang fails and never sticks."""

import asyncio
import os
import sys
import time

from claude_agent_sdk import ClaudeAgentOptions, ProcessError, query

import summary


async def main():
    options = ClaudeAgentOptions(cli_path=os.environ["CLAUDE_CLI"])
    async for message in query(prompt="Say hi", options=options):
        summary.show(message)


start = time.monotonic()
try:
    asyncio.run(asyncio.wait_for(main(), float(os.environ.get("SDK_TIMEOUT", "20"))))
except TimeoutError:
    print("timeout")
    sys.exit(3)
except Exception as error:  # the SDK's error is the point of the program
    seconds = time.monotonic() - start
    message = str(error).splitlines()[0] if str(error) else ""
    print(
        f"raised {type(error).__name__} process_error={str(isinstance(error, ProcessError)).lower()} "
        f"exit_code={getattr(error, 'exit_code', None)} in={seconds:.0f}s: {message}"
    )
    sys.exit(1)
print("no error")
