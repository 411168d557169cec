#!/usr/bin/env python3
# gemini_crashes_on_unknown.py: a BUGGY program driving `gemini -o stream-json -p` as
# gemini_careful.py does, but it treats the event types it knows as the only ones:
# any other `type` raises (a traceback, exit 1).
#
# Usage: gemini_crashes_on_unknown.py [PROMPT]   (default "hi")

import gemini_careful

KNOWN = {"init", "message", "tool_use", "tool_result", "error", "result"}


def strict(event):
    if event.get("type") not in KNOWN:
        raise ValueError(f"unknown event type: {event.get('type')}")  # BUG


if __name__ == "__main__":
    gemini_careful.main(strict)
