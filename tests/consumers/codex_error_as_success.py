#!/usr/bin/env python3
# codex_error_as_success.py: a BUGGY program driving `codex exec --json -` as
# codex_careful.py does, but it takes whatever it read as the answer: a `turn.failed`, a
# non-zero exit, a run with no `turn.completed` are all printed as success (the last
# agent message, or nothing), exit 0.
#
# Usage: codex_error_as_success.py [PROMPT]   (default "hi")

import sys

import codex_careful

last = {"text": ""}


def keep(event):
    item = event.get("item") if isinstance(event.get("item"), dict) else {}
    if event.get("type") == "item.completed" and item.get("type") == "agent_message":
        last["text"] = item.get("text") or ""


if __name__ == "__main__":
    try:
        print(codex_careful.run(" ".join(sys.argv[1:]) or "hi", keep))
    except codex_careful.Failed:
        print(last["text"])  # BUG: a failed run is reported as an answer
    sys.exit(0)
