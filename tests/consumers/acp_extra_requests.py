#!/usr/bin/env python3
# acp_extra_requests.py: a CORRECT client of `cursor-agent acp` of another shape than
# acp_careful.py, whose Client it is with one method overridden: before its turn it
# also calls `authenticate` (the agent's first auth method), `session/set_mode`
# (ask, then back to agent) and an extension method (`_acme/ping`, which the agent
# may not know: an error to it is shrugged off), as editors and orchestrators do.
# Everything else (reading, answering, routing updates by sessionId, failing, stopping
# the agent) is acp_careful.py's.
#
# Usage: acp_extra_requests.py [PROMPT]   (default "Summarize the repo")

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import acp_careful  # noqa: E402
from acp_careful import AgentFailure  # noqa: E402


class ExtraRequests(acp_careful.Client):
    def run(self, prompt):
        cwd = acp_careful.working_directory()
        init = self.initialize("acp_extra_requests")
        methods = init.get("authMethods") if isinstance(init, dict) else None
        if isinstance(methods, list) and methods and isinstance(methods[0], dict) and "id" in methods[0]:
            self.call("authenticate", {"methodId": methods[0]["id"]})
        session_id = self.new_session(cwd)
        for mode in ("ask", "agent"):
            self.call("session/set_mode", {"sessionId": session_id, "modeId": mode})
        try:
            self.call("_acme/ping", {"sessionId": session_id})
        except AgentFailure as err:
            if "answered an error" not in str(err):
                raise  # the agent ended: that is no extension's error
        self.prompt(session_id, prompt)

if __name__ == "__main__":
    acp_careful.Client = ExtraRequests
    acp_careful.run_main()
