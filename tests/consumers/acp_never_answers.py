#!/usr/bin/env python3
# acp_never_answers.py: a BUGGY client of `cursor-agent acp`. It runs one turn like
# acp_careful.py, but it NEVER answers session/request_permission: it only shows the
# request and goes on waiting for the prompt's response, which cannot come while the
# agent waits for the answer. Trusting the agent to finish the turn, it has no idle
# timeout: the turn waits for ever and only its caller's time limit ends it. Without
# a permission request (or with none reaching it) it behaves correctly.
#
# Usage: acp_never_answers.py [PROMPT]   (default "Summarize the repo")

import json
import os
import subprocess
import sys
import threading
import queue


class Failure(Exception):
    pass


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

    def show(params):
        update = params.get("update") if params.get("sessionId") == state["session"] else None
        content = update.get("content") if isinstance(update, dict) and update.get("sessionUpdate") == "agent_message_chunk" else None
        if isinstance(content, dict) and isinstance(content.get("text"), str):
            sys.stdout.write(content["text"])
            sys.stdout.flush()

    def call(method, params):
        request_id = state["next"]
        state["next"] += 1
        send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            line = lines.get()  # no idle timeout
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
                    sys.stderr.write("[permission asked: %s]\n" % json.dumps(message.get("params"))[:120])
                    continue  # BUG: never answered, the agent waits for ever
                if method_in == "cursor/ask_question":
                    send({"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": {"outcome": "skipped"}}})
                else:
                    send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
            elif method_in == "session/update" and isinstance(message.get("params"), dict):
                if state["session"] is None:
                    state["early"].append(message["params"])
                else:
                    show(message["params"])
            elif method_in is None and type(message.get("id")) is int and message["id"] == request_id:
                if "error" in message:
                    raise Failure("%s answered an error: %s" % (method, json.dumps(message["error"])))
                return message.get("result")

    try:
        call("initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}})
        result = call("session/new", {"cwd": os.getcwd(), "mcpServers": []})
        state["session"] = result.get("sessionId") if isinstance(result, dict) else None
        for params in state["early"]:
            show(params)
        result = call("session/prompt", {"sessionId": state["session"], "prompt": [{"type": "text", "text": prompt}]})
        sys.stdout.write("\n")
        stop = result.get("stopReason") if isinstance(result, dict) else None
        if stop != "end_turn":
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
