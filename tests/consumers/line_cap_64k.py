#!/usr/bin/env python3
# line_cap_64k.py: a BUGGY consumer that caps a line at 64 KiB: it reads with
# readline(65536), so a longer line comes back as a 65536-byte piece without its
# newline, which it takes for the whole line. That piece is not valid JSON, and it
# takes a broken event for a broken agent: it kills the agent and reports failure
# (exit 1). So a successful run holding a line over 64 KiB (`huge:bytes=70000`) is
# wrongly reported as failed. With lines under 64 KiB it behaves correctly (other
# non-JSON lines, such as noise, are skipped).
#
# Usage: line_cap_64k.py [PROMPT]   (default "hi")

import json
import sys

from print_mode import report, start

LINE_CAP = 65536


def main():
    proc = start()
    answer = None
    while True:
        line = proc.stdout.readline(LINE_CAP)  # BUG: a longer line is cut in pieces
        if not line:
            break
        try:
            event = json.loads(line.decode("utf-8"))
        except ValueError:
            if len(line) == LINE_CAP and not line.endswith(b"\n"):
                # BUG: a full-size read is taken for a whole (broken) event line
                proc.kill()
                proc.wait()
                sys.stderr.write("consumer: agent failed: an event line is not valid JSON\n")
                return 1
            continue  # a noise line
        if isinstance(event, dict) and event.get("type") == "result" and event.get("is_error") is not True:
            answer = event.get("result") if isinstance(event.get("result"), str) else None
    code = proc.wait()
    return report(code, answer)


if __name__ == "__main__":
    sys.exit(main())
