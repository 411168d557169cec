#!/usr/bin/env python3
# gemini_careful.py: a CORRECT program that drives Google's Gemini CLI headless:
# `gemini --skip-trust -o FORMAT -p PROMPT` (FORMAT stream-json, the default, or json),
# stdin closed at once.
#
# What it does to survive mock-agent's `gemini` dialect:
# - the CLI runs in a process group of its own (a new session): Gemini CLI relaunches
#   itself, and its parent ignores SIGTERM and SIGINT, so stopping it means killing the
#   group, never the pid alone; the group is killed and the CLI reaped on every way out;
# - stream-json: stdout is read line by line in a reader thread while another thread
#   drains stderr; a line that is not a JSON object, or of a type it does not know, is
#   skipped; success only when a `result` with `"status":"success"` arrived and the CLI
#   exited 0 (an empty answer ends with a `result` `error` and exit 0; a killed child
#   ends with no `result` and exit 0): the answer is the text after the last tool call,
#   as json mode's `response`;
# - json: the one document on stdout (pretty-printed, no final newline); success only
#   when it parses, has no `error` and the CLI exited 0; a failure's document is on
#   stderr, and its message is shown;
# - a watchdog: nothing on stdout for CONSUMER_IDLE_TIMEOUT seconds (default 8) in
#   stream-json, or a run longer than CONSUMER_TOTAL_TIMEOUT seconds (default 20), is
#   failure, so a stalled CLI never hangs the program.
#
# (The stream-json reading and the watchdog are event_lines.py's, beside it.)
#
# Usage: gemini_careful.py [FORMAT] [PROMPT]   (defaults: stream-json, "hi")
# The CLI is $GEMINI_CLI if set, else `gemini` on PATH.
# Prints the answer and a newline on success (exit 0); on failure prints one line
# starting `consumer: agent failed` on stderr and exits 1.

import json
import os
import signal
import subprocess
import sys
import threading
import time

from event_lines import TOTAL_TIMEOUT, Failed, collect, events, finish, left, wait_exit

__all__ = ["Failed", "main", "run", "stop"]
FORMATS = ("stream-json", "json")


def kill_group(proc):
    """Stops the CLI and everything it started: its whole process group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def stop(proc):
    """How a run that must end is ended (the planted bugs put theirs here)."""
    kill_group(proc)


def spawn(fmt, prompt):
    cli = os.environ.get("GEMINI_CLI", "gemini")
    return subprocess.Popen(
        [cli, "--skip-trust", "-o", fmt, "-p", prompt],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def run_stream(proc, check, started):
    rounds, result = [""], None
    for event in events(proc, started, check):
        kind = event.get("type")
        if kind == "message" and event.get("role") == "assistant":
            content = event.get("content")
            rounds[-1] += content if isinstance(content, str) else ""
        elif kind == "tool_use" and rounds[-1]:
            rounds.append("")
        elif kind == "result":
            result = event
    code = wait_exit(proc, started)
    if result is None:
        raise Failed(f"no result line (the CLI exited with {code})")
    if result.get("status") != "success":
        error = result.get("error") if isinstance(result.get("error"), dict) else {}
        raise Failed(error.get("message") or "the run ended with an error result")
    if code != 0:
        raise Failed(f"the CLI exited with {code}")
    return rounds[-1]


def run_json(proc, started):
    out, err = [], []
    readers = [
        threading.Thread(target=collect, args=(proc.stdout, out), daemon=True),
        threading.Thread(target=collect, args=(proc.stderr, err), daemon=True),
    ]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(timeout=max(0.1, left(started)))
        if reader.is_alive():
            raise Failed(f"no end after {TOTAL_TIMEOUT}s")
    code = wait_exit(proc, started)
    text = b"".join(out).decode("utf-8", "replace")
    try:
        document = json.loads(text)
    except ValueError:
        document = None
    if not isinstance(document, dict):
        said = b"".join(err).decode("utf-8", "replace").strip().splitlines()
        raise Failed(f"no JSON answer (exit {code}): {said[-1] if said else 'nothing said'}")
    if document.get("error"):
        error = document["error"]
        raise Failed(error.get("message") if isinstance(error, dict) else str(error))
    if code != 0:
        raise Failed(f"the CLI exited with {code}")
    response = document.get("response")
    return response if isinstance(response, str) else ""


def run(fmt, prompt, check=None):
    """Runs one prompt; returns the answer, or raises Failed. `check` sees each
    stream-json event first (the planted bugs put theirs there)."""
    proc = spawn(fmt, prompt)
    started = time.monotonic()
    try:
        if fmt == "json":
            return run_json(proc, started)
        return run_stream(proc, check, started)
    finally:
        if proc.poll() is None:
            stop(proc)
        # Whatever the CLI left in its group goes too (a relaunched child).
        kill_group(proc)
        proc.wait()


def main(check=None):
    args = sys.argv[1:]
    fmt = args.pop(0) if args and args[0] in FORMATS else "stream-json"
    finish(lambda: run(fmt, " ".join(args) or "hi", check))


if __name__ == "__main__":
    main()
