#!/usr/bin/env python3
# hangs_without_result.py: a BUGGY consumer that waits for the `result` event. It reads
# stdout line by line, but when stdout ends WITHOUT a result (`eof`, `drop:type=result`,
# `signal:name=KILL`, `auth-required`, ...) it keeps waiting for one forever instead of
# reporting failure: it hangs, and only its caller's time limit ends it. When the result
# does arrive it checks the exit code and reports correctly.
#
# Usage: hangs_without_result.py [PROMPT]   (default "hi")

import json
import sys
import time

from print_mode import start


def main():
    proc = start()
    result = None
    for line in proc.stdout:
        try:
            event = json.loads(line.decode("utf-8"))
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "result":
            result = event
    while result is None:
        time.sleep(1)  # BUG: "the result will come": it never does
    code = proc.wait()
    if code != 0 or result.get("is_error") is True or not isinstance(result.get("result"), str):
        sys.stderr.write("consumer: agent failed: exit %d\n" % code)
        return 1
    sys.stdout.write(result["result"] + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
