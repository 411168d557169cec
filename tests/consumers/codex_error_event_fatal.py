#!/usr/bin/env python3
# codex_error_event_fatal.py: a BUGGY program driving `codex exec --json -` as
# codex_careful.py does, but it takes any top-level `error` event for the turn's failure,
# as npm ai-sdk-provider-codex-cli 2.2.1 does (its exec model keeps the first `error`
# event's message and fails the call with it, even after `turn.completed` and exit 0).
# The real CLI writes `{"type":"error","message":"Reconnecting... 1/5 (...)"}` for a
# retried request and then completes the turn: this program reports a failure there.
#
# Usage: codex_error_event_fatal.py [PROMPT]   (default "hi")

import codex_careful


def fatal(event):
    if event.get("type") == "error":  # BUG: a retry's notice is no failure
        raise codex_careful.Failed(event.get("message") or "error")


if __name__ == "__main__":
    codex_careful.main(fatal)
