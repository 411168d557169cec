#!/usr/bin/env python3
# claude_hangs.py: a BUGGY program on the Python Claude Agent SDK. It runs like
# claude_careful.py but without its watchdog: it waits for the SDK's next message for as
# long as it takes, so a CLI that stalls (writes nothing more and does not exit) hangs
# it for ever. Otherwise it behaves correctly.
#
# Usage: claude_hangs.py [PROMPT]   (default "hi")

import asyncio
import sys

from claude_careful import run

if __name__ == "__main__":
    try:
        # BUG: no timeout around the run.
        text = asyncio.run(run(" ".join(sys.argv[1:]) or "hi", seen=lambda: None))
    except Exception as error:
        print(f"consumer: agent failed: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
    print(text)
