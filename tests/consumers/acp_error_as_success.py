#!/usr/bin/env python3
# acp_error_as_success.py: a BUGGY client of `cursor-agent acp`. It runs one turn like
# acp_careful.py, but it only ever looks at a response's `result`: a JSON-RPC error
# response to session/new or session/prompt (`auth-required`,
# `session-services-failed`, `error:method=session/prompt`) reads as an empty
# result, and only a stopReason it knows to be bad fails the run, so an agent that
# answered an error is reported as a success: exit 0 (with an empty answer).
# (An error to initialize still fails it.) Otherwise it behaves correctly.
#
# Usage: acp_error_as_success.py [PROMPT]   (default "Summarize the repo")

import json
import os
import queue
import subprocess
import sys
import threading

IDLE_TIMEOUT = float(os.environ.get("CONSUMER_IDLE_TIMEOUT", "8"))


class Failure(Exception):
    pass


def show_chunk(update):
    content = update.get("content")
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        sys.stdout.write(content["text"])
        sys.stdout.flush()


BAD_STOPS = ("refusal", "max_tokens", "max_turn_requests", "cancelled")


def main():
    prompt = sys.argv[1] if len(sys.argv) > 1 else "Summarize the repo"
    agent = os.environ.get("CURSOR_AGENT") or "cursor-agent"
    try:
        proc = subprocess.Popen([agent, "acp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError as err:
        sys.stderr.write("error: cannot start %s: %s\n" % (agent, err))
        return 1
    lines = queue.Queue()

    def read():
        for line in iter(proc.stdout.readline, b""):
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    state = {"next": 1, "session": None, "early": []}

    def send(message):
        try:
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()
        except OSError:
            raise Failure("cannot write to the agent")

    def on_update(params):
        update = params.get("update")
        if params.get("sessionId") == state["session"] and isinstance(update, dict):
            if update.get("sessionUpdate") == "agent_message_chunk":
                show_chunk(update)

    def call(method, params):
        request_id = state["next"]
        state["next"] += 1
        send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            try:
                line = lines.get(timeout=IDLE_TIMEOUT)
            except queue.Empty:
                raise Failure("no message from the agent for %gs" % IDLE_TIMEOUT)
            if line is None:
                raise Failure("the agent's stdout ended")
            try:
                message = json.loads(line.decode("utf-8", "replace"))
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            method_in = message.get("method")
            if isinstance(method_in, str) and "id" in message:
                if method_in == "session/request_permission":
                    options = [o for o in (message.get("params") or {}).get("options") or [] if isinstance(o, dict)]
                    chosen = next((o for o in options if o.get("kind") == "allow_once"), options[0] if options else None)
                    outcome = {"outcome": "selected", "optionId": chosen.get("optionId")} if chosen else {"outcome": "cancelled"}
                    send({"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": outcome}})
                elif method_in == "cursor/ask_question":
                    send({"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": {"outcome": "skipped"}}})
                else:
                    send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
            elif method_in == "session/update" and isinstance(message.get("params"), dict):
                if state["session"] is None:
                    state["early"].append(message["params"])
                else:
                    on_update(message["params"])
            elif method_in is None and type(message.get("id")) is int and message["id"] == request_id:
                if "error" in message and method == "initialize":
                    raise Failure("%s answered an error: %s" % (method, json.dumps(message["error"])))
                return message.get("result") or {}  # BUG: an error response reads as an empty result

    try:
        call("initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}})
        result = call("session/new", {"cwd": os.getcwd(), "mcpServers": []})
        state["session"] = result.get("sessionId") if isinstance(result, dict) else None
        for params in state["early"]:
            on_update(params)
        result = call("session/prompt", {"sessionId": state["session"], "prompt": [{"type": "text", "text": prompt}]})
        sys.stdout.write("\n")
        stop = result.get("stopReason") if isinstance(result, dict) else None
        if stop in BAD_STOPS:  # BUG (the same one): no stopReason at all passes
            raise Failure("the turn ended with stopReason %s" % stop)
        code = 0
    except Failure as err:
        sys.stderr.write("error: %s\n" % err)
        code = 1
    proc.stdin.close()
    try:
        proc.wait(timeout=2 if code == 0 else 0)
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return code


if __name__ == "__main__":
    sys.exit(main())
