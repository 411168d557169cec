#!/usr/bin/env python3
# fatal_non_json.py: a BUGGY consumer that calls json.loads on every stdout line and
# does not catch the error: any line that is not JSON (a `noise` line, a `malformed`
# line, a last line cut mid-line by `eof:byte=N`, a blank line) crashes it with a
# Python traceback. Otherwise it checks the result and the exit code correctly.
#
# Usage: fatal_non_json.py [PROMPT]   (default "hi")

import json
import subprocess
import sys


def main():
    prompt = sys.argv[1] if len(sys.argv) > 1 else "hi"
    proc = subprocess.Popen(
        ["cursor-agent", "-p", "--output-format", "stream-json", prompt],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    answer = None
    for line in proc.stdout:
        event = json.loads(line)  # BUG: raises (uncaught) on a line that is not JSON
        if event.get("type") == "result" and not event.get("is_error"):
            answer = event.get("result")
    code = proc.wait()
    if code != 0 or answer is None:
        sys.stderr.write("consumer: agent failed: exit %d, %s\n" % (code, "result" if answer is not None else "no result"))
        return 1
    sys.stdout.write(answer + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
