#!/usr/bin/env python3
# codex_silent_on_unreadable.py: a BUGGY program driving `codex exec --json -` as
# codex_careful.py does, but its reader ends the stream at the first line it cannot read
# (as a reader loop that swallows the JSON error and closes its channel does), and the
# program then prints whatever answer it had, nothing, and exits 0: a run it could not
# read is told as a success with no answer.
#
# Usage: codex_silent_on_unreadable.py [PROMPT]   (default "hi")

import json
import sys
import threading

from codex_careful import spawn


def main():
    prompt = sys.argv[1] if len(sys.argv) > 1 else "hi"
    proc = spawn()
    threading.Thread(target=lambda: proc.stderr.read(), daemon=True).start()
    proc.stdin.write(prompt.encode("utf-8"))
    proc.stdin.close()
    answer, failed = "", False
    for raw in proc.stdout:
        try:
            event = json.loads(raw)
        except ValueError:
            break  # BUG: the stream "ended"; the turn is taken as done
        if event.get("type") == "turn.failed":
            failed = True
        item = event.get("item") or {}
        if event.get("type") == "item.completed" and item.get("type") == "agent_message":
            answer = item.get("text", "")
    proc.kill()
    proc.wait()
    if failed or (proc.returncode not in (0, -9) and not answer):
        print("consumer: agent failed", file=sys.stderr)
        sys.exit(1)
    print(answer)


if __name__ == "__main__":
    main()
