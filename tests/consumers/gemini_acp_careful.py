#!/usr/bin/env python3
# gemini_acp_careful.py: a CORRECT client of `gemini --acp` (Gemini CLI's Agent
# Client Protocol agent), built on acp_careful.py's client (read it: lines of any
# length, stderr drained, every request of the agent answered, unknown kinds and
# fields ignored, updates before session/new kept, no agent left running). What it
# does that Gemini CLI asks for besides:
# - it runs `<agent> --acp` in a process group of its own and ends the group: the real
#   CLI relaunches itself as a child and its parent ignores SIGTERM;
# - it authenticates with `gemini-api-key`, the key in `_meta["api-key"]`, when the
#   agent offers that method and GEMINI_API_KEY is set;
# - a permission request is answered with its allow_once option (`proceed_once`),
#   found by kind, not by id; the prompt result's `_meta.quota` is read, not required.
#
# Usage: gemini_acp_careful.py [PROMPT]   (default "Summarize the repo")
# The agent is GEMINI_AGENT if set, else `gemini` on PATH.
# Prints the agent's message text as it streams, then a newline; exit 0 on success.
# On failure prints one line `error: ...` on stderr and exits 1.

import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import acp_careful  # noqa: E402


class GeminiClient(acp_careful.Client):
    # The parent of the real CLI ignores SIGTERM: it runs in a group of its own, and
    # the whole group is ended.
    NEW_SESSION = True

    def __init__(self, argv):
        super().__init__(argv)
        self.tokens = None

    def run(self, prompt):
        cwd = acp_careful.working_directory()
        init = self.initialize("gemini_acp_careful")
        methods = init.get("authMethods") if isinstance(init, dict) else None
        offered = [m.get("id") for m in methods if isinstance(m, dict)] if isinstance(methods, list) else []
        key = os.environ.get("GEMINI_API_KEY")
        if key and "gemini-api-key" in offered:
            self.call("authenticate", {"methodId": "gemini-api-key", "_meta": {"api-key": key}})
        session_id = self.new_session(cwd)
        result = self.prompt(session_id, prompt)
        meta = result.get("_meta") if isinstance(result, dict) else None
        quota = meta.get("quota") if isinstance(meta, dict) else None
        if isinstance(quota, dict) and isinstance(quota.get("token_count"), dict):
            self.tokens = quota["token_count"]

    def end_agent(self):
        """Terminates the agent's whole group if the agent still runs, waits 1 s, and
        kills the group."""
        for sig, wait in ((signal.SIGTERM, 1), (signal.SIGKILL, 5)):
            if self.proc.poll() is not None:
                break
            try:
                os.killpg(self.proc.pid, sig)
                self.proc.wait(timeout=wait)
            except (OSError, subprocess.TimeoutExpired):
                pass


def main():
    return acp_careful.main(lambda: GeminiClient([os.environ.get("GEMINI_AGENT") or "gemini", "--acp"]))


def run_main():
    """Runs main() and exits with its code (the planted-bug clients call it too)."""
    acp_careful.run_main(main)


if __name__ == "__main__":
    run_main()
