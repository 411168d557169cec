#!/usr/bin/env python3
# gemini_acp_never_answers.py: gemini_acp_careful.py with a planted bug: it never
# answers the agent's session/request_permission (the turn waits for ever). The
# harness must catch it with `answers-requests`.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gemini_acp_careful  # noqa: E402


class NeverAnswers(gemini_acp_careful.GeminiClient):
    def answer(self, request):
        if request.get("method") == "session/request_permission":
            return  # the bug
        super().answer(request)


if __name__ == "__main__":
    gemini_acp_careful.GeminiClient = NeverAnswers
    gemini_acp_careful.run_main()
