#!/usr/bin/env python3
# ignores_exit.py: a BUGGY consumer that concatenates the assistant text it sees, prints
# it and always exits 0. It never looks for the `result` event nor at the agent's exit
# code, so it reports success (exit 0) when the agent failed: `eof` (no result),
# `exit:code=1`, `signal:name=KILL`, `auth-required`... It skips non-JSON lines and
# reads stdout to the end, so on a successful run it prints the right answer.
#
# Usage: ignores_exit.py [PROMPT]   (default "hi")

import json
import sys

from print_mode import start


def main():
    proc = start()
    text = []
    for line in proc.stdout:
        try:
            event = json.loads(line.decode("utf-8"))
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "assistant":
            message = event.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and isinstance(block.get("text"), str):
                    text.append(block["text"])
    proc.wait()  # BUG: the exit code is never looked at
    sys.stdout.write("".join(text) + "\n")
    return 0  # BUG: always success


if __name__ == "__main__":
    sys.exit(main())
