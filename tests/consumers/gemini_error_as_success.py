#!/usr/bin/env python3
# gemini_error_as_success.py: a BUGGY program driving `gemini --skip-trust -o stream-json
# -p PROMPT` that trusts the exit code alone: exit 0 is success, whatever the lines said,
# and any other exit is failure. Gemini CLI exits 0 on an empty answer (a `result` with
# `"status":"error"`) and when its relaunched child is killed (no `result` at all), so
# both are printed as answers. (It stops the CLI as gemini_careful.py does: the group,
# after CONSUMER_TOTAL_TIMEOUT seconds, default 7.)
#
# Usage: gemini_error_as_success.py [PROMPT]   (default "hi")

import json
import os
import signal
import subprocess
import sys
import threading


def main():
    prompt = " ".join(sys.argv[1:]) or "hi"
    proc = subprocess.Popen(
        [os.environ.get("GEMINI_CLI", "gemini"), "--skip-trust", "-o", "stream-json", "-p", prompt],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    text, after_tool = "", False
    stopped = threading.Event()

    def watchdog():
        stopped.set()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    timer = threading.Timer(float(os.environ.get("CONSUMER_TOTAL_TIMEOUT", "7")), watchdog)
    timer.start()
    try:
        for raw in proc.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            if event.get("type") == "tool_use":
                after_tool = True
            elif event.get("type") == "message" and event.get("role") == "assistant":
                if after_tool:
                    text, after_tool = "", False
                text += event.get("content") or ""
        code = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        code = 1
    finally:
        timer.cancel()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
    if code != 0 or stopped.is_set():
        print(f"consumer: agent failed: exit {code}", file=sys.stderr)
        return 1
    print(text)  # BUG: an exit 0 is taken as success, the result line unread
    return 0


if __name__ == "__main__":
    sys.exit(main())
