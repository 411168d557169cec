#!/usr/bin/env python3
# acp_ignores_unoffered.py: a BUGGY client of `cursor-agent acp`: acp_careful.py's Client,
# except that it answers only the requests it expects (session/request_permission,
# cursor/ask_question) and drops any other without a word: it offered no files and no
# terminal, so it reckons the agent will never ask for them. JSON-RPC wants an answer
# to every request; an agent that asks anyway (the `unoffered-tools` fault) waits for
# ever, and the turn hangs (caught by `answers-requests`).
#
# Usage: acp_ignores_unoffered.py [PROMPT]   (default "Summarize the repo")

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import acp_careful  # noqa: E402


class IgnoresUnoffered(acp_careful.Client):
    def answer(self, request):
        if request.get("method") in ("session/request_permission", "cursor/ask_question"):
            super().answer(request)


if __name__ == "__main__":
    acp_careful.Client = IgnoresUnoffered
    acp_careful.run_main()
