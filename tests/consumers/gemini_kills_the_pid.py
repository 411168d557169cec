#!/usr/bin/env python3
# gemini_kills_the_pid.py: a BUGGY program driving `gemini -o stream-json -p` as
# gemini_careful.py does, but when the CLI goes silent it stops it as one would stop
# any child: SIGTERM to its pid, then waits for it. Gemini CLI's pid is a relaunching
# parent that ignores SIGTERM and waits for its child, so the program waits for ever.
#
# Usage: gemini_kills_the_pid.py [PROMPT]   (default "hi")

import sys

import gemini_careful


def terminate_and_wait(proc):
    proc.terminate()  # BUG: the parent ignores it; the group must be killed
    proc.wait()


gemini_careful.stop = terminate_and_wait

if __name__ == "__main__":
    gemini_careful.main()
