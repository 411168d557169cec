#!/usr/bin/env python3
# fatal_non_json.py: a BUGGY consumer that calls json.loads on every stdout line and
# does not catch the error: any line that is not JSON (a `noise` line, a `malformed`
# line, a last line cut mid-line by `eof:byte=N`, a blank line) crashes it with a
# Python traceback. Otherwise it checks the result and the exit code correctly.
#
# Usage: fatal_non_json.py [PROMPT]   (default "hi")

import json
import sys

from print_mode import finish, start


def main():
    proc = start()
    # BUG: json.loads raises (uncaught) on a line that is not JSON
    return finish(proc, (json.loads(line) for line in proc.stdout))


if __name__ == "__main__":
    sys.exit(main())
