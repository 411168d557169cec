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

import json
import os
import queue
import signal
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import acp_careful  # noqa: E402
from acp_careful import AgentFailure  # noqa: E402


class GeminiClient(acp_careful.Client):
    def __init__(self, argv):
        # The parent of the real CLI ignores SIGTERM: it runs in a group of its own,
        # and the whole group is ended.
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as err:
            raise AgentFailure("cannot start %s: %s" % (argv[0], err))
        self.lines = queue.Queue()
        self.err_tail = [b""]
        self.err_thread = threading.Thread(
            target=acp_careful._drain, args=(self.proc.stderr, self.err_tail), daemon=True
        )
        self.err_thread.start()
        threading.Thread(target=acp_careful._read_lines, args=(self.proc.stdout, self.lines), daemon=True).start()
        self.next_id = 1
        self.session_id = None
        self.early = []  # session/update params that came before session/new answered
        self.text_written = False
        self.tokens = None

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
                "clientInfo": {"name": "gemini_acp_careful", "version": "1.0"},
            },
        )
        methods = init.get("authMethods") if isinstance(init, dict) else None
        offered = [m.get("id") for m in methods if isinstance(m, dict)] if isinstance(methods, list) else []
        key = os.environ.get("GEMINI_API_KEY")
        if key and "gemini-api-key" in offered:
            self.call("authenticate", {"methodId": "gemini-api-key", "_meta": {"api-key": key}})
        result = self.call("session/new", {"cwd": cwd, "mcpServers": []})
        session_id = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(session_id, str) or not session_id:
            raise AgentFailure("session/new answered no sessionId")
        self.session_id = session_id
        early, self.early = self.early, []
        for params in early:
            self.show_update(params)
        result = self.call("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": prompt}]})
        self.end_line()  # the turn is over
        stop = result.get("stopReason") if isinstance(result, dict) else None
        if stop != "end_turn":
            raise AgentFailure("the turn ended with stopReason %s" % json.dumps(stop))
        meta = result.get("_meta") if isinstance(result, dict) else None
        quota = meta.get("quota") if isinstance(meta, dict) else None
        if isinstance(quota, dict) and isinstance(quota.get("token_count"), dict):
            self.tokens = quota["token_count"]

    def stop(self, graceful):
        if graceful:
            self.close_stdin()
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        for sig, wait in ((signal.SIGTERM, 1), (signal.SIGKILL, 5)):
            if self.proc.poll() is not None:
                break
            try:
                os.killpg(self.proc.pid, sig)
                self.proc.wait(timeout=wait)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.close_stdin()


def main():
    prompt = sys.argv[1] if len(sys.argv) > 1 else "Summarize the repo"
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, acp_careful._on_signal)
    agent = os.environ.get("GEMINI_AGENT") or "gemini"
    client, reason = None, None
    try:
        client = GeminiClient([agent, "--acp"])
        client.run(prompt)
    except AgentFailure as err:
        reason = str(err)
    except (acp_careful._Interrupted, KeyboardInterrupt) as err:
        reason = str(err) or "interrupted"
    except Exception as err:  # a bug of ours: still no traceback, still no agent left
        reason = "internal error: %r" % err
    try:
        if client is not None:
            if reason is not None and client.text_written:
                try:
                    client.end_line()
                except AgentFailure:
                    pass
            client.stop(graceful=reason is None)
    except (acp_careful._Interrupted, KeyboardInterrupt):
        if client is not None:
            client.stop(graceful=False)
        reason = reason or "interrupted"
    if reason is not None:
        sys.stderr.write("error: %s\n" % reason)
        sys.stderr.flush()
        return 1
    return 0


def run_main():
    """Runs main() and exits with its code (the planted-bug clients call it too)."""
    try:
        code = main()
    except BaseException:  # a signal at the very end: the agent is already reaped
        code = 1
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


if __name__ == "__main__":
    run_main()
