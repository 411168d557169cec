#!/usr/bin/env python3
# one_object_per_read.py: a BUGGY consumer that reads stdout with os.read(fd, 65536)
# and assumes each read returns exactly one JSON object (json.loads(chunk)). It breaks
# (uncaught exception, traceback) as soon as several lines arrive in one read
# (`coalesce`, or simply a fast agent: a pipe joins writes) or a line is split across
# reads (`chunk:size=7`, a line over 64 KiB). It only works when the agent writes one
# line at a time slowly enough (e.g. MOCK_AGENT_TIMING=fixed=20).
#
# Usage: one_object_per_read.py [PROMPT]   (default "hi")

import json
import os
import sys

from print_mode import finish, start


def reads(fd):
    """One event a read of `fd`, to its end."""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        yield json.loads(chunk)  # BUG: a read is not a line; raises on 2 lines or half a line


def main():
    proc = start()
    return finish(proc, reads(proc.stdout.fileno()))


if __name__ == "__main__":
    sys.exit(main())
