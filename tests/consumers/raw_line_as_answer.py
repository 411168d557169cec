#!/usr/bin/env python3
# raw_line_as_answer.py: a BUGGY consumer that shows its user the agent's raw `result`
# line (the JSON of the event) instead of the answer in it. Everything else is right:
# stderr is drained, stdout read to the end, a missing result, a non-zero exit or a
# signal is a failure (exit 1). The answer's words are inside the line it prints, but
# JSON-escaped, between JSON fields: `reports-success` must not take that for the answer.
#
# Usage: raw_line_as_answer.py [PROMPT]   (default "hi")

import subprocess
import sys
import threading

from print_mode import start, whole_lines


def main():
    proc = start(stderr=subprocess.PIPE)
    drain = threading.Thread(target=proc.stderr.read, daemon=True)
    drain.start()
    shown = None
    for raw, event in whole_lines(proc.stdout):
        if isinstance(event, dict) and event.get("type") == "result" and event.get("is_error") is not True:
            shown = raw.decode("utf-8").rstrip("\r\n")  # BUG: the raw line, not event["result"]
    code = proc.wait()
    drain.join(timeout=2)
    if code != 0 or shown is None:
        sys.stderr.write("consumer: agent failed (exit %d)\n" % code)
        return 1
    sys.stdout.write(shown + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
