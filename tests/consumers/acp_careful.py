#!/usr/bin/env python3
# acp_careful.py: a CORRECT client of `cursor-agent acp` (the Agent Client Protocol:
# JSON-RPC 2.0, one message per line, both directions over the agent's stdin/stdout).
#
# It runs one turn: initialize, session/new, session/prompt, and shows everything a
# client must do to survive the faults mock-agent injects in server mode:
# - stdout is read line by line in a reader thread (lines of any length), stderr is
#   drained by another (a flood never deadlocks the agent); lines that are not JSON
#   objects are skipped, unknown methods, sessionUpdate kinds and fields are ignored;
# - every request of the agent is answered, whatever type its id has (0, "a7", null):
#   session/request_permission selects the allow_once option (else the first),
#   cursor/ask_question is skipped, anything else gets error -32601;
# - updates that arrive before session/new has answered are kept, then shown once
#   the session id is known;
# - success only when session/prompt answers stopReason end_turn; a JSON-RPC error to
#   any of its requests, any other stopReason, the agent's stdout ending or the agent
#   exiting before the turn ended, or no message for CONSUMER_IDLE_TIMEOUT seconds
#   (default 8) is failure;
# - the agent is never left running: its stdin is closed at the end, and it is
#   terminated (then killed) when it does not exit; on failure it is terminated at
#   once, before its stdin is closed (so it ends by the signal, the same every run).
#
# Usage: acp_careful.py [PROMPT]   (default "Summarize the repo")
# The agent is CURSOR_AGENT if set, else `cursor-agent` on PATH, run as `<agent> acp`.
# Prints the agent's message text as it streams, then a newline; exit 0 on success.
# On failure prints one line `error: ...` on stderr and exits 1.

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time


def _idle_timeout():
    try:
        value = float(os.environ.get("CONSUMER_IDLE_TIMEOUT", "8"))
    except ValueError:
        return 8.0
    return value if value > 0 else 8.0


IDLE_TIMEOUT = _idle_timeout()


class AgentFailure(Exception):
    pass


class _Interrupted(Exception):
    pass


def _read_lines(stream, lines):
    """Puts every stdout line (bytes) on the queue, then None at end of file."""
    try:
        while True:
            line = stream.readline()  # no size limit
            if not line:
                break
            lines.put(line)
    except (OSError, ValueError):
        pass
    finally:
        lines.put(None)


def _drain(stream, tail):
    """Reads stderr to its end, keeping the last few KiB for the error message."""
    try:
        while True:
            chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
            if not chunk:
                break
            tail[0] = (tail[0] + chunk)[-4096:]
    except (OSError, ValueError):
        pass


def parse_message(line):
    """The JSON object of a line, or None for anything else (noise, a cut line...)."""
    try:
        message = json.loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, dict) else None


def _same_id(got, sent):
    # Our ids are ints; True == 1 in Python, so compare the type too.
    return type(got) is int and got == sent


def _describe_error(error):
    if isinstance(error, dict):
        text = "%s %s" % (error.get("code"), error.get("message"))
        data = error.get("data")
        if data is not None:
            text += " " + json.dumps(data)[:200]
        return text
    return json.dumps(error)[:200]


def _permission_outcome(params):
    options = params.get("options") if isinstance(params, dict) else None
    if not isinstance(options, list):
        options = []
    options = [o for o in options if isinstance(o, dict) and "optionId" in o]
    if not options:
        return {"outcome": "cancelled"}
    chosen = next((o for o in options if o.get("kind") == "allow_once"), options[0])
    return {"outcome": "selected", "optionId": chosen["optionId"]}


def working_directory():
    """The folder the client works in, for session/new."""
    try:
        return os.getcwd()
    except OSError as err:
        raise AgentFailure("no working directory: %s" % err)


class Client:
    # Whether the agent runs in a process group (a session) of its own.
    NEW_SESSION = False

    def __init__(self, argv):
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=self.NEW_SESSION,
            )
        except OSError as err:
            raise AgentFailure("cannot start %s: %s" % (argv[0], err))
        self.lines = queue.Queue()
        self.err_tail = [b""]
        self.err_thread = threading.Thread(target=_drain, args=(self.proc.stderr, self.err_tail), daemon=True)
        self.err_thread.start()
        threading.Thread(target=_read_lines, args=(self.proc.stdout, self.lines), daemon=True).start()
        self.next_id = 1
        self.session_id = None
        self.early = []  # session/update params that came before session/new answered
        self.text_written = False

    # --- output -------------------------------------------------------------------

    def write_text(self, text):
        try:
            sys.stdout.buffer.write(text.encode("utf-8", "replace"))
            sys.stdout.buffer.flush()
        except (OSError, ValueError) as err:
            raise AgentFailure("cannot write the answer: %s" % err)
        self.text_written = True

    def end_line(self):
        self.write_text("\n")
        self.text_written = False

    # --- the agent's state ---------------------------------------------------------

    def _agent_status(self):
        """`exit code N` / `killed by signal N` / `still running`, with stderr's last line."""
        try:
            code = self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "still running"
        self.err_thread.join(timeout=0.5)
        status = ("killed by signal %d" % -code) if code < 0 else ("exit code %d" % code)
        text = self.err_tail[0].decode("utf-8", "replace").strip().splitlines()
        if text:
            status += ": " + text[-1].strip()[:200]
        return status

    # --- sending and receiving -----------------------------------------------------

    def send(self, message):
        data = (json.dumps(message) + "\n").encode("utf-8")
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (OSError, ValueError):
            # The agent is gone or closed its stdin: what it wrote before says more,
            # and the next receive reports its end.
            pass

    def receive(self):
        """The next JSON object from the agent. Raises AgentFailure at end of stdout, when
        the agent has exited, or after IDLE_TIMEOUT seconds without a line."""
        deadline = time.monotonic() + IDLE_TIMEOUT
        exited_at = None
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise AgentFailure("no message from the agent for %gs; killed it" % IDLE_TIMEOUT)
            if exited_at is None and self.proc.poll() is not None:
                exited_at = now  # give the reader a moment for what it already wrote
            if exited_at is not None and now - exited_at > 1:
                raise AgentFailure("the agent exited before the turn ended (%s)" % self._agent_status())
            try:
                line = self.lines.get(timeout=min(deadline - now, 0.25))
            except queue.Empty:
                continue
            if line is None:
                self.lines.put(None)  # stays at end of file
                raise AgentFailure("the agent's stdout ended before the turn ended (%s)" % self._agent_status())
            deadline = time.monotonic() + IDLE_TIMEOUT
            message = parse_message(line)
            if message is not None:
                return message

    def call(self, method, params):
        """Sends a request and handles what comes until its response: its result, or
        AgentFailure on an error response."""
        request_id = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if "method" in message:
                if not isinstance(message["method"], str):
                    continue
                if "id" in message:
                    self.answer(message)
                elif message["method"] == "session/update":
                    self.on_update(message.get("params"))
                continue  # other notifications: ignored
            if "id" not in message:
                continue
            if _same_id(message["id"], request_id) or (message["id"] is None and "error" in message):
                if "error" in message:
                    raise AgentFailure("%s answered an error: %s" % (method, _describe_error(message["error"])))
                if "result" in message:
                    return message["result"]
            # a response to nothing we are waiting for: ignored

    def answer(self, request):
        """Answers a request of the agent, echoing its id whatever its type."""
        method, params = request["method"], request.get("params")
        if method == "session/request_permission":
            result = {"outcome": _permission_outcome(params)}
        elif method == "cursor/ask_question":
            result = {"outcome": {"outcome": "skipped"}}
        else:
            error = {"code": -32601, "message": "Method not found: %s" % method}
            self.send({"jsonrpc": "2.0", "id": request["id"], "error": error})
            return
        self.send({"jsonrpc": "2.0", "id": request["id"], "result": result})

    def on_update(self, params):
        if not isinstance(params, dict):
            return
        if self.session_id is None:
            self.early.append(params)  # shown once session/new tells us our session id
        else:
            self.show_update(params)

    def show_update(self, params):
        if params.get("sessionId") != self.session_id:
            return
        update = params.get("update")
        if not isinstance(update, dict) or update.get("sessionUpdate") != "agent_message_chunk":
            return  # thoughts, tool calls, plans, kinds we do not know: not shown
        content = update.get("content")
        if isinstance(content, dict) and content.get("type") == "text" and isinstance(content.get("text"), str):
            self.write_text(content["text"])

    # --- the turn ------------------------------------------------------------------

    def run(self, prompt):
        cwd = working_directory()
        self.initialize("acp_careful")
        session_id = self.new_session(cwd)
        self.prompt(session_id, prompt)

    def initialize(self, name):
        """`initialize`, offering no files and no terminal: its result."""
        return self.call(
            "initialize",
            {
                "protocolVersion": 1,
                "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False},
                "clientInfo": {"name": name, "version": "1.0"},
            },
        )

    def new_session(self, cwd):
        """`session/new`: its sessionId; the updates that came before it are shown."""
        result = self.call("session/new", {"cwd": cwd, "mcpServers": []})
        session_id = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(session_id, str) or not session_id:
            raise AgentFailure("session/new answered no sessionId")
        self.session_id = session_id
        early, self.early = self.early, []
        for params in early:
            self.show_update(params)
        return session_id

    def prompt(self, session_id, prompt):
        """`session/prompt`, its text shown as it streams: its result, which must end
        the turn with stopReason end_turn."""
        result = self.call("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": prompt}]})
        self.end_line()  # the turn is over
        stop = result.get("stopReason") if isinstance(result, dict) else None
        if stop != "end_turn":
            raise AgentFailure("the turn ended with stopReason %s" % json.dumps(stop))
        return result

    def stop(self, graceful):
        """When graceful, closes the agent's stdin and waits 2 s for it to exit. Then
        terminates it, waits 1 s, and kills it; its stdin is closed last on failure,
        so that an agent given up on ends by the signal, not by going on with what
        the end of its stdin lets it do (which would race the signal)."""
        if graceful:
            self.close_stdin()
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        self.end_agent()
        self.close_stdin()

    def end_agent(self):
        """Terminates the agent if it still runs, waits 1 s, and kills it."""
        if self.proc.poll() is None:
            try:
                self.proc.terminate()
                self.proc.wait(timeout=1)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if self.proc.poll() is None:
            try:
                self.proc.kill()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass

    def close_stdin(self):
        try:
            self.proc.stdin.close()
        except (OSError, ValueError):
            pass


_interrupted = [False]


def _on_signal(signum, _frame):
    if not _interrupted[0]:
        _interrupted[0] = True
        raise _Interrupted("interrupted by signal %d" % signum)


def main(start=lambda: Client([os.environ.get("CURSOR_AGENT") or "cursor-agent", "acp"])):
    """Runs one turn with the client `start` makes (it starts the agent): 0 on success,
    else 1 and one line `error: ...` on stderr."""
    prompt = sys.argv[1] if len(sys.argv) > 1 else "Summarize the repo"
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _on_signal)
    client, reason = None, None
    try:
        client = start()
        client.run(prompt)
    except AgentFailure as err:
        reason = str(err)
    except (_Interrupted, KeyboardInterrupt) as err:
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
    except (_Interrupted, KeyboardInterrupt):
        if client is not None:
            client.stop(graceful=False)
        reason = reason or "interrupted"
    if reason is not None:
        sys.stderr.write("error: %s\n" % reason)
        sys.stderr.flush()
        return 1
    return 0


def run_main(main=main):
    """Runs `main` and exits with its code (the clients built on this one call it too)."""
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
