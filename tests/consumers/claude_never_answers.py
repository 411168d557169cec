#!/usr/bin/env python3
# claude_never_answers.py: a BUGGY program on the Python Claude Agent SDK. It runs like
# claude_careful.py (the same watchdog), but its `can_use_tool` callback never returns:
# a permission request of the CLI is never answered, so the CLI waits, the turn never
# ends, and the watchdog gives up (exit 1). Runs that ask nothing succeed.
#
# Usage: claude_never_answers.py [PROMPT]   (default "hi")

import asyncio
import sys

from claude_careful import main


async def never(tool_name, tool_input, context):
    await asyncio.Event().wait()  # BUG: nothing ever sets it: no answer


if __name__ == "__main__":
    try:
        text = asyncio.run(main(" ".join(sys.argv[1:]) or "hi", can_use_tool=never))
    except Exception as error:
        print(f"consumer: agent failed: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
    print(text)
