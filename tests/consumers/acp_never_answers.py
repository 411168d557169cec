#!/usr/bin/env python3
# acp_never_answers.py: a BUGGY client of `cursor-agent acp`. It runs one turn like
# acp_simple.py, but it NEVER answers session/request_permission: it only shows the
# request and goes on waiting for the prompt's response, which cannot come while the
# agent waits for the answer. Trusting the agent to finish the turn, it has no idle
# timeout: the turn waits for ever and only its caller's time limit ends it. Without
# a permission request (or with none reaching it) it behaves correctly.
#
# Usage: acp_never_answers.py [PROMPT]   (default "Summarize the repo")

import sys

from acp_simple import Failure, SimpleClient, main


class NeverAnswers(SimpleClient):
    def answer(self, message):
        if message["method"] == "session/request_permission":
            return None  # BUG: never answered, the agent waits for ever
        return super().answer(message)

    def next_line(self):
        line = self.lines.get()  # BUG: trusting the agent, no idle timeout
        if line is None:
            raise Failure("the agent's stdout ended")
        return line


if __name__ == "__main__":
    sys.exit(main(NeverAnswers))
