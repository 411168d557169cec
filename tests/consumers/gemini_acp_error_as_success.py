#!/usr/bin/env python3
# gemini_acp_error_as_success.py: gemini_acp_careful.py with a planted bug: a JSON-RPC
# error answering session/prompt is taken for a finished turn (exit 0). The harness
# must catch it with `reports-failure`.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gemini_acp_careful  # noqa: E402
from acp_careful import AgentFailure  # noqa: E402


class ErrorAsSuccess(gemini_acp_careful.GeminiClient):
    def call(self, method, params):
        try:
            return super().call(method, params)
        except AgentFailure:
            if method != "session/prompt":
                raise
            return {"stopReason": "end_turn"}  # the bug


if __name__ == "__main__":
    gemini_acp_careful.GeminiClient = ErrorAsSuccess
    gemini_acp_careful.run_main()
