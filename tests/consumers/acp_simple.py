#!/usr/bin/env python3
# acp_simple.py: the plain ACP client the buggy example clients are made of, each
# overriding one method with its one bug. On its own it is correct: it runs one turn
# of `cursor-agent acp` (initialize, session/new, session/prompt), answers the
# agent's requests (allow_once for permissions), prints the turn's
# agent_message_chunk text, exits 0 on stopReason end_turn and 1 (`error: ...`) on
# anything else, and stops its agent at the end. (acp_careful.py is the careful
# client of the examples, written out in full.)
#
# Usage: acp_simple.py [PROMPT]   (default "Summarize the repo")

import json
import os
import queue
import subprocess
import sys
import threading

IDLE_TIMEOUT = float(os.environ.get("CONSUMER_IDLE_TIMEOUT", "8"))


class Failure(Exception):
    pass


class SimpleClient:
    def __init__(self, prompt):
        self.prompt = prompt
        self.lines = queue.Queue()
        self.next_id = 1
        self.session = None
        self.early = []

    # --- what the buggy clients override ----------------------------------------

    def spawn(self, agent):
        return subprocess.Popen([agent, "acp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def read(self):
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(None)  # the end of the agent's stdout

    def next_line(self):
        try:
            line = self.lines.get(timeout=IDLE_TIMEOUT)
        except queue.Empty:
            raise Failure("no message from the agent for %gs" % IDLE_TIMEOUT)
        if line is None:
            raise Failure("the agent's stdout ended")
        return line

    def answer(self, message):
        """The client's answer to a request of the agent's."""
        if message["method"] == "session/request_permission":
            options = [o for o in (message.get("params") or {}).get("options") or [] if isinstance(o, dict)]
            chosen = next((o for o in options if o.get("kind") == "allow_once"), options[0] if options else None)
            outcome = {"outcome": "selected", "optionId": chosen.get("optionId")} if chosen else {"outcome": "cancelled"}
            return {"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": outcome}}
        if message["method"] == "cursor/ask_question":
            return {"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": {"outcome": "skipped"}}}
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}}

    def on_update(self, update):
        if update.get("sessionUpdate") == "agent_message_chunk":
            content = update.get("content")
            if isinstance(content, dict) and isinstance(content.get("text"), str):
                sys.stdout.write(content["text"])
                sys.stdout.flush()

    def result_of(self, method, message):
        if "error" in message:
            raise Failure("%s answered an error: %s" % (method, json.dumps(message["error"])))
        return message.get("result") or {}

    def check_stop(self, stop):
        if stop != "end_turn":
            raise Failure("the turn ended with stopReason %s" % stop)

    def give_up(self):
        self.stop_agent()

    # --- the rest --------------------------------------------------------------

    def send(self, message):
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            pass  # the agent is gone: the next read says so

    def update(self, params):
        update = params.get("update")
        if params.get("sessionId") == self.session and isinstance(update, dict):
            self.on_update(update)

    def call(self, method, params):
        request_id = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            try:
                message = json.loads(self.next_line().decode("utf-8", "replace"))
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            method_in = message.get("method")
            if isinstance(method_in, str) and "id" in message:
                reply = self.answer(message)
                if reply is not None:
                    self.send(reply)
            elif method_in == "session/update" and isinstance(message.get("params"), dict):
                if self.session is None:
                    self.early.append(message["params"])
                else:
                    self.update(message["params"])
            elif method_in is None and type(message.get("id")) is int and message["id"] == request_id:
                return self.result_of(method, message)

    def stop_agent(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def run(self):
        agent = os.environ.get("CURSOR_AGENT") or "cursor-agent"
        try:
            self.proc = self.spawn(agent)
        except OSError as err:
            sys.stderr.write("error: cannot start %s: %s\n" % (agent, err))
            return 1
        threading.Thread(target=self.read, daemon=True).start()
        try:
            self.call("initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}})
            result = self.call("session/new", {"cwd": os.getcwd(), "mcpServers": []})
            self.session = result.get("sessionId") if isinstance(result, dict) else None
            for params in self.early:
                self.update(params)
            result = self.call("session/prompt", {"sessionId": self.session, "prompt": [{"type": "text", "text": self.prompt}]})
            sys.stdout.write("\n")
            self.check_stop(result.get("stopReason") if isinstance(result, dict) else None)
        except Failure as err:
            sys.stderr.write("error: %s\n" % err)
            self.give_up()
            return 1
        self.stop_agent()
        return 0


def main(client_class):
    prompt = sys.argv[1] if len(sys.argv) > 1 else "Summarize the repo"
    return client_class(prompt).run()


if __name__ == "__main__":
    sys.exit(main(SimpleClient))
