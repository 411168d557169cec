#!/usr/bin/env python3
# stderr_after_stdout.py: a BUGGY consumer that reads ALL of stdout first
# (proc.stdout.read()) and only then stderr, with both as pipes. When the agent writes
# more than the pipe buffer (64 KiB on Linux) on stderr before it finishes stdout, the
# agent blocks writing stderr while this consumer blocks reading stdout: a deadlock
# (fault `stderr-flood:bytes=1000000`). Everything else it does correctly.
#
# Usage: stderr_after_stdout.py [PROMPT]   (default "hi")

import json
import subprocess
import sys

from print_mode import start


def main():
    proc = start(stderr=subprocess.PIPE)
    out = proc.stdout.read()  # BUG: nobody reads stderr meanwhile
    err = proc.stderr.read()
    code = proc.wait()

    answer = None
    for line in out.split(b"\n")[:-1]:  # complete lines only
        try:
            event = json.loads(line.decode("utf-8"))
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "result" and event.get("is_error") is not True:
            answer = event.get("result") if isinstance(event.get("result"), str) else None
    if code != 0 or answer is None:
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        sys.stderr.write("consumer: agent failed: exit %d, %s %s\n" % (
            code, "result" if answer is not None else "no result", last[0][:200]))
        return 1
    sys.stdout.write(answer + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
