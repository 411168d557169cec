#!/usr/bin/env python3
# claude_error_as_success.py: a BUGGY program on the Python Claude Agent SDK. It runs
# like claude_careful.py (permissions answered, the same watchdog), but it never looks
# at `is_error` and swallows the SDK's exceptions: an error result ("Not logged in"), a
# CLI that exits non-zero (ProcessError) or a broken line all end with exit 0, the
# failure printed as if it were the answer, or nothing printed at all.
#
# Usage: claude_error_as_success.py [PROMPT]   (default "hi")

import asyncio
import sys

from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

from claude_careful import allow, cli_path, main


async def lenient(prompt, seen):
    text = ""
    try:
        options = ClaudeAgentOptions(cli_path=cli_path(), can_use_tool=allow)
        async for message in query(prompt=prompt, options=options):
            seen()
            if isinstance(message, ResultMessage):
                text = message.result or ""  # BUG: is_error is never looked at
    except Exception:
        pass  # BUG: the SDK's error is swallowed: the run "succeeded"
    return text


if __name__ == "__main__":
    try:
        print(asyncio.run(main(" ".join(sys.argv[1:]) or "hi", body=lenient)))
    except Exception as error:  # only the watchdog's Failed gets here
        print(f"consumer: agent failed: {error}", file=sys.stderr)
        sys.exit(1)
