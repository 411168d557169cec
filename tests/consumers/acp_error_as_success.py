#!/usr/bin/env python3
# acp_error_as_success.py: a BUGGY client of `cursor-agent acp`. It runs one turn like
# acp_simple.py, but it only ever looks at a response's `result`: a JSON-RPC error
# response to session/new or session/prompt (`auth-required`,
# `session-services-failed`, `error:method=session/prompt`) reads as an empty
# result, and only a stopReason it knows to be bad fails the run, so an agent that
# answered an error is reported as a success: exit 0 (with an empty answer).
# (An error to initialize still fails it.) Otherwise it behaves correctly.
#
# Usage: acp_error_as_success.py [PROMPT]   (default "Summarize the repo")

import sys

from acp_simple import Failure, SimpleClient, main


BAD_STOPS = ("refusal", "max_tokens", "max_turn_requests", "cancelled")


class ErrorAsSuccess(SimpleClient):
    def result_of(self, method, message):
        if "error" in message and method == "initialize":
            return super().result_of(method, message)
        return message.get("result") or {}  # BUG: an error response reads as an empty result

    def check_stop(self, stop):
        if stop in BAD_STOPS:  # BUG (the same one): no stopReason at all passes
            raise Failure("the turn ended with stopReason %s" % stop)


if __name__ == "__main__":
    sys.exit(main(ErrorAsSuccess))
