"""What the careful consumers of a CLI that writes one JSON event a line on stdout
(`codex_careful.py`, `gemini_careful.py`) share, so that each of their files holds only
how it starts its CLI and what it concludes from the events: the watchdog over stdout
read line by line in a reader thread while another drains stderr (`events`), the wait
for the CLI's exit within the run's time (`wait_exit`), and the ending (`finish`).

Not a consumer: imported by them (`from event_lines import Failed, events`); a program
modelled on one of them takes this file too.

- a line that is not a JSON object (a broken line, a last line cut before its newline)
  is skipped;
- nothing on stdout for CONSUMER_IDLE_TIMEOUT seconds (default 8), or a run longer than
  CONSUMER_TOTAL_TIMEOUT seconds (default 20), is failure, so a stalled CLI never hangs
  the program.
"""

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
    """A run that is no success; its message says why."""


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


def collect(stream, into):
    """Reads `stream` to its end, keeping its first MiB in the list `into`."""
    for chunk in iter(lambda: stream.read(65536), b""):
        if sum(len(c) for c in into) < (1 << 20):
            into.append(chunk)


def left(started):
    """The seconds the run that started at `started` (`time.monotonic()`) has left."""
    return TOTAL_TIMEOUT - (time.monotonic() - started)


def events(proc, started, check=None):
    """Each event of `proc`'s stdout, in order, until it ends; `check` sees each first
    (the planted bugs put theirs there). Raises Failed when the watchdog fires."""
    lines = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
    threading.Thread(target=collect, args=(proc.stderr, []), daemon=True).start()
    while True:
        remaining = left(started)
        if remaining <= 0:
            raise Failed(f"no end after {TOTAL_TIMEOUT}s")
        try:
            raw = lines.get(timeout=min(IDLE_TIMEOUT, remaining))
        except queue.Empty:
            raise Failed(f"silent for {IDLE_TIMEOUT}s")
        if raw is None:
            return
        if not raw.endswith(b"\n"):
            continue  # a line cut before its newline: stdout ends there
        event = parse_event(raw)
        if event is None:
            continue
        if check:
            check(event)
        yield event


def wait_exit(proc, started):
    """The CLI's exit code, once it exits within the run's time; else Failed."""
    try:
        return proc.wait(timeout=max(0.1, left(started)))
    except subprocess.TimeoutExpired:
        raise Failed("stdout ended but the CLI did not exit")


def finish(turn):
    """A consumer's ending: prints what `turn()` answers and a newline (exit 0), or one
    line starting `consumer: agent failed` on stderr and exits 1."""
    try:
        text = turn()
    except Failed as error:
        print(f"consumer: agent failed: {error}", file=sys.stderr)
        sys.exit(1)
    print(text)
