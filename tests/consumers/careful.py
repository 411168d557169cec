#!/usr/bin/env python3
# careful.py: a CORRECT consumer of `cursor-agent -p --output-format stream-json`.
#
# It demonstrates everything a consumer must do to survive the faults mock-agent injects:
# - stdout is read line by line in a reader thread while another thread drains stderr,
#   so a huge stderr (stderr-flood) never deadlocks either side;
# - lines of any length are read whole (no cap), `\r` is stripped, blank lines, lines
#   that are not JSON objects (noise, malformed, invalid UTF-8) and a last line cut
#   before its newline are skipped; unknown event types and unknown fields are ignored;
# - success only when a `result` event with `is_error` not true arrived (on a complete
#   line) AND the agent exited 0; no result, a non-zero exit or death by a signal
#   (negative returncode) is failure;
# - it reads stdout to the end even after the result (never closes the pipe early);
# - a watchdog: if the agent writes nothing for IDLE_TIMEOUT seconds, or the run takes
#   longer than TOTAL_TIMEOUT seconds, the agent is killed and the run is a failure, so a
#   stalled agent never hangs the consumer;
# - the agent is never left running: every exit path kills and reaps it.
#
# Usage: careful.py [PROMPT]   (default "hi")
# Prints result.result and a newline on success (exit 0); on failure prints one line
# starting `consumer: agent failed` on stderr and exits 1.

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

IDLE_TIMEOUT = float(os.environ.get("CONSUMER_IDLE_TIMEOUT", "8"))
TOTAL_TIMEOUT = float(os.environ.get("CONSUMER_TOTAL_TIMEOUT", "20"))

# The top-level fields the harness reads; a line that repeats one of them is no event.
_KNOWN_KEYS = frozenset(
    ["type", "subtype", "session_id", "timestamp_ms", "model_call_id", "message", "tool_call", "result", "is_error"]
)


class _Interrupted(Exception):
    pass


class _Obj(dict):
    """A JSON object that remembers whether a key appeared twice."""

    duplicated = frozenset()


def _pairs(pairs):
    obj = _Obj(pairs)
    if len(obj) != len(pairs):
        seen, dups = set(), set()
        for key, _ in pairs:
            (dups if key in seen else seen).add(key)
        obj.duplicated = frozenset(dups)
    return obj


def _reject_constant(name):
    raise ValueError("not JSON: " + name)


def parse_event(raw):
    """The event of a complete stdout line (without its newline), or None when the line
    is not a JSON object."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    stripped = raw.strip(b" \t\r\n")
    if not stripped.startswith(b"{"):
        return None  # blank, noise, or a JSON value that is not an object
    try:
        text = raw.decode("utf-8")  # strict: invalid UTF-8 is no event
        event = json.loads(text, object_pairs_hook=_pairs, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(event, dict) or event.duplicated & _KNOWN_KEYS:
        return None
    return event


def result_answer(event):
    """(is_result, answer) for an event: answer is the text of a successful result, or
    None when the result carries no usable text. Error results are (False, None)."""
    if event.get("type") != "result" or event.get("is_error") is True:
        return False, None
    answer = event.get("result")
    if not isinstance(answer, str):
        return True, None
    try:
        answer.encode("utf-8")  # a lone surrogate (\ud800) cannot be printed
    except UnicodeEncodeError:
        return True, None
    return True, answer


def _drain(stream, tail):
    """Reads a stream to its end, keeping the last few KiB (for the failure message)."""
    try:
        while True:
            chunk = stream.read(65536)
            if not chunk:
                break
            tail[0] = (tail[0] + chunk)[-4096:]
    except (OSError, ValueError):
        pass


def _read_lines(stream, lines):
    """Puts every stdout line (bytes, with its newline when it had one) on the queue,
    then None at end of file."""
    try:
        while True:
            line = stream.readline()  # no size limit: lines of any length
            if not line:
                break
            lines.put(line)
    except (OSError, ValueError):
        pass
    finally:
        lines.put(None)


def _stderr_hint(tail):
    text = tail[0].decode("utf-8", "replace").strip().splitlines()
    return (": " + text[-1].strip()[:200]) if text else ""


def run(prompt):
    """Runs the agent; returns (answer, None) on success, (None, reason) on failure."""
    argv = ["cursor-agent", "-p", "--output-format", "stream-json", prompt]
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as err:
        return None, "cannot start cursor-agent: %s" % err
    err_tail = [b""]
    try:
        lines = queue.Queue()
        threads = [
            threading.Thread(target=_drain, args=(proc.stderr, err_tail), daemon=True),
            threading.Thread(target=_read_lines, args=(proc.stdout, lines), daemon=True),
        ]
        for thread in threads:
            thread.start()

        start = time.monotonic()
        last = start
        answer, got_result = None, False
        while True:
            now = time.monotonic()
            wait = min(last + IDLE_TIMEOUT, start + TOTAL_TIMEOUT) - now
            if wait <= 0:
                return None, "no output for %gs (or over %gs in all); killed the agent" % (IDLE_TIMEOUT, TOTAL_TIMEOUT)
            try:
                line = lines.get(timeout=wait)
            except queue.Empty:
                continue
            if line is None:
                break  # end of stdout
            last = time.monotonic()
            if not line.endswith(b"\n"):
                continue  # the last line, cut before its newline: not a whole event
            event = parse_event(line[:-1])
            if event is None:
                continue
            is_result, text = result_answer(event)
            if is_result:
                got_result, answer = True, text

        # stdout is at its end: the agent should exit now.
        wait = max(0.0, min(IDLE_TIMEOUT, start + TOTAL_TIMEOUT - time.monotonic()))
        try:
            code = proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None, "the agent closed stdout but did not exit; killed it"
        threads[0].join(timeout=2)  # the rest of stderr, for the message

        if code < 0:
            return None, "killed by signal %d%s" % (-code, _stderr_hint(err_tail))
        if code != 0:
            return None, "exit code %d%s" % (code, _stderr_hint(err_tail))
        if not got_result:
            return None, "no result event%s" % _stderr_hint(err_tail)
        if answer is None:
            return None, "the result event has no result text"
        return answer, None
    finally:
        # Never leave the agent running, whatever happened above.
        if proc.poll() is None:
            try:
                proc.kill()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def _on_signal(signum, _frame):
    raise _Interrupted("interrupted by signal %d" % signum)


def main():
    prompt = sys.argv[1] if len(sys.argv) > 1 else "hi"
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _on_signal)
    try:
        answer, reason = run(prompt)
    except (_Interrupted, KeyboardInterrupt) as err:
        answer, reason = None, str(err) or "interrupted"
    if answer is None:
        sys.stderr.write("consumer: agent failed: %s\n" % reason)
        return 1
    try:
        sys.stdout.buffer.write(answer.encode("utf-8") + b"\n")
        sys.stdout.buffer.flush()
    except OSError as err:
        sys.stderr.write("consumer: agent succeeded but the answer could not be written: %s\n" % err)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (_Interrupted, KeyboardInterrupt):
        # A signal between run() and exit: the agent is already reaped.
        sys.stderr.write("consumer: agent failed: interrupted\n")
        sys.exit(1)
