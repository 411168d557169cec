#!/usr/bin/env python3
# codex_careful.py: a CORRECT program that drives OpenAI's Codex CLI as the TypeScript SDK
# (@openai/codex-sdk) does: `codex exec --json -`, the prompt on stdin (stdin closed at
# once), one JSON event a line on stdout.
#
# What it does to survive mock-agent's `codex` dialect:
# - stdout is read line by line in a reader thread while another thread drains stderr, so
#   a chatty stderr never blocks the CLI;
# - a line that is not a JSON object (a broken line, a last line cut before its newline)
#   is skipped, as are event and item types it does not know;
# - success only when `turn.completed` arrived, no `turn.failed` came, and the CLI exited
#   0: the answer is the last `agent_message` (the SDK's `finalResponse`); a
#   `turn.failed`, a non-zero exit or death by a signal is failure, with the error's
#   message;
# - a watchdog: nothing on stdout for CONSUMER_IDLE_TIMEOUT seconds (default 8), or a run
#   longer than CONSUMER_TOTAL_TIMEOUT seconds (default 20), is failure, so a stalled CLI
#   never hangs the program; the CLI is killed and reaped on every way out.
#
# (The reading and the watchdog are event_lines.py's, beside it.)
#
# Usage: codex_careful.py [PROMPT]   (default "hi")
# The CLI is $CODEX_CLI if set, else `codex` on PATH.
# Prints the final message and a newline on success (exit 0); on failure prints one line
# starting `consumer: agent failed` on stderr and exits 1.

import os
import subprocess
import sys
import time

from event_lines import Failed, events, finish, wait_exit

__all__ = ["Failed", "main", "run", "spawn"]


def spawn():
    """`codex exec --json --skip-git-repo-check -`, every stream piped."""
    cli = os.environ.get("CODEX_CLI", "codex")
    return subprocess.Popen(
        [cli, "exec", "--json", "--skip-git-repo-check", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def run(prompt, check=None):
    """Runs one turn; returns the final message, or raises Failed. `check` sees each
    event first (the planted bugs put theirs there)."""
    proc = spawn()
    try:
        try:
            proc.stdin.write(prompt.encode("utf-8"))
            proc.stdin.close()
        except BrokenPipeError:
            pass
        started = time.monotonic()
        answer, completed, failure = None, False, None
        for event in events(proc, started, check):
            kind = event.get("type")
            item = event.get("item") if isinstance(event.get("item"), dict) else {}
            if kind == "item.completed" and item.get("type") == "agent_message":
                answer = item.get("text")
            elif kind == "turn.completed":
                completed = True
            elif kind == "turn.failed":
                error = event.get("error") or {}
                failure = error.get("message") if isinstance(error, dict) else str(error)
                failure = failure or "turn failed"
        code = wait_exit(proc, started)
        if failure is not None:
            raise Failed(failure)
        if code != 0:
            raise Failed(f"the CLI exited with {code}")
        if not completed:
            raise Failed("no turn.completed")
        return answer or ""
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def main(check=None):
    finish(lambda: run(" ".join(sys.argv[1:]) or "hi", check))


if __name__ == "__main__":
    main()
