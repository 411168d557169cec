#!/usr/bin/env python3
# acp_crashes_at_exit.py: a BUGGY client of `cursor-agent acp`. It runs one turn
# like acp_simple.py, then dies of an uncaught exception whatever the turn did: its
# bug is its own, in every case, the clean one too. An unknown update is not what
# breaks it, and `ignores-unknown` must not say so when the clean case shows it.
#
# Usage: acp_crashes_at_exit.py [PROMPT]   (default "Summarize the repo")

from acp_simple import SimpleClient, main


if __name__ == "__main__":
    main(SimpleClient)
    raise RuntimeError("the report could not be saved")  # BUG: in every case
