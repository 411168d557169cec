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

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import acp_careful  # noqa: E402
from acp_careful import AgentFailure  # noqa: E402


class ExtraRequests(acp_careful.Client):
    def run(self, prompt):
        try:
            cwd = os.getcwd()
        except OSError as err:
            raise AgentFailure("no working directory: %s" % err)
        init = self.call(
            "initialize",
            {
                "protocolVersion": 1,
                "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False},
                "clientInfo": {"name": "acp_extra_requests", "version": "1.0"},
            },
        )
        methods = init.get("authMethods") if isinstance(init, dict) else None
        if isinstance(methods, list) and methods and isinstance(methods[0], dict) and "id" in methods[0]:
            self.call("authenticate", {"methodId": methods[0]["id"]})
        result = self.call("session/new", {"cwd": cwd, "mcpServers": []})
        session_id = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(session_id, str) or not session_id:
            raise AgentFailure("session/new answered no sessionId")
        self.session_id = session_id
        early, self.early = self.early, []
        for params in early:
            self.show_update(params)
        for mode in ("ask", "agent"):
            self.call("session/set_mode", {"sessionId": session_id, "modeId": mode})
        try:
            self.call("_acme/ping", {"sessionId": session_id})
        except AgentFailure as err:
            if "answered an error" not in str(err):
                raise  # the agent ended: that is no extension's error
        result = self.call("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": prompt}]})
        self.end_line()
        stop = result.get("stopReason") if isinstance(result, dict) else None
        if stop != "end_turn":
            raise AgentFailure("the turn ended with stopReason %s" % json.dumps(stop))


if __name__ == "__main__":
    acp_careful.Client = ExtraRequests
    try:
        code = acp_careful.main()
    except BaseException:
        code = 1
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)
