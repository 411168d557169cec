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
# Usage: codex_careful.py [PROMPT]   (default "hi")
# The CLI is $CODEX_CLI if set, else `codex` on PATH.
# Prints the final message and a newline on success (exit 0); on failure prints one line
# starting `consumer: agent failed` on stderr and exits 1.

import json
import os
import queue
import subprocess
import sys
import threading
import time

IDLE_TIMEOUT = float(os.environ.get("CONSUMER_IDLE_TIMEOUT", "8"))
TOTAL_TIMEOUT = float(os.environ.get("CONSUMER_TOTAL_TIMEOUT", "20"))


class Failed(Exception):
    pass


def parse_event(raw):
    """The event of a complete stdout line, or None when it is not a JSON object."""
    try:
        event = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return event if isinstance(event, dict) else None


def _pump(stream, lines):
    for raw in iter(stream.readline, b""):
        lines.put(raw)
    lines.put(None)


def _drain(stream):
    for _ in iter(lambda: stream.read(65536), b""):
        pass


def run(prompt, check=None):
    """Runs one turn; returns the final message, or raises Failed. `check` sees each
    event first (the planted bugs put theirs there)."""
    cli = os.environ.get("CODEX_CLI", "codex")
    proc = subprocess.Popen(
        [cli, "exec", "--json", "--skip-git-repo-check", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        try:
            proc.stdin.write(prompt.encode("utf-8"))
            proc.stdin.close()
        except BrokenPipeError:
            pass
        lines = queue.Queue()
        threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
        threading.Thread(target=_drain, args=(proc.stderr,), daemon=True).start()
        started = time.monotonic()
        answer, completed, failure = None, False, None
        while True:
            left = TOTAL_TIMEOUT - (time.monotonic() - started)
            if left <= 0:
                raise Failed(f"no end after {TOTAL_TIMEOUT}s")
            try:
                raw = lines.get(timeout=min(IDLE_TIMEOUT, left))
            except queue.Empty:
                raise Failed(f"silent for {IDLE_TIMEOUT}s")
            if raw is None:
                break
            if not raw.endswith(b"\n"):
                continue  # a line cut before its newline: stdout ends there
            event = parse_event(raw)
            if event is None:
                continue
            if check:
                check(event)
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
        try:
            code = proc.wait(timeout=max(0.1, TOTAL_TIMEOUT - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            raise Failed("stdout ended but the CLI did not exit")
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
    prompt = " ".join(sys.argv[1:]) or "hi"
    try:
        text = run(prompt, check)
    except Failed as error:
        print(f"consumer: agent failed: {error}", file=sys.stderr)
        sys.exit(1)
    print(text)


if __name__ == "__main__":
    main()
