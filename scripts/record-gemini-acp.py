#!/usr/bin/env python3
"""Records `gemini --acp` (the real Gemini CLI) against `mock-agent model-api --api
google`, driven by a scripted ACP client, as a cassette of cassettes/gemini-acp/.

    scripts/record-gemini-acp.py OUT.cassette [--prompt TEXT] [--scenario FILE]
                                 [--load] [--bogus]

Needs `scripts/real-clis.sh gemini` (the pinned CLI under target/real-clis) and a
built mock-agent (target/debug/mock-agent, or $MOCK_AGENT). The client: initialize
(fs and terminal offered), authenticate with `gemini-api-key` (the key in
`_meta["api-key"]`, kept out of the cassette), session/new, one prompt (permission
requests answered `proceed_once`, fs requests served from the folder), then with
--bogus an unknown method, and stdin closed."""

import argparse
import json
import os
import pathlib
import queue
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--prompt", default="Run: echo hello")
    ap.add_argument("--scenario")
    ap.add_argument("--bogus", action="store_true")
    args = ap.parse_args()
    mock = os.environ.get("MOCK_AGENT") or str(ROOT / "target/debug/mock-agent")
    gemini = ROOT / "target/real-clis/gemini/node_modules/.bin/gemini"
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="gemini-acp-"))
    home, project = scratch / "home", scratch / "project"
    (home / ".gemini").mkdir(parents=True)
    project.mkdir()
    (project / "README.md").write_text("hi\n")
    (home / ".gemini/settings.json").write_text(json.dumps(
        {"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": False}}))
    api_argv = [mock, "model-api", "--api", "google", "--log", str(scratch / "api.log")]
    if args.scenario:
        api_argv += ["--scenario", args.scenario]
    api = subprocess.Popen(api_argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = api.stdout.readline().strip().split()[-1]
    env = dict(os.environ, HOME=str(home), GEMINI_API_KEY="k", GOOGLE_GEMINI_BASE_URL=base,
               GEMINI_CLI_TRUST_WORKSPACE="true", NO_COLOR="1")
    out = pathlib.Path(args.out).resolve()
    proc = subprocess.Popen(
        [mock, "record", "--out", str(out), "--redact-env", "GEMINI_API_KEY", "--redact-home", "--cli-version",
         "--", str(gemini), "--acp", "-m", "gemini-2.5-flash"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=project, env=env)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout] and lines.put(None), daemon=True).start()
    ids = iter(range(1, 100))

    def send(message):
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    def call(method, params, timeout=120):
        rid = next(ids)
        send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                continue
            if line is None:
                sys.exit("the agent ended early")
            m = json.loads(line)
            print(json.dumps(m)[:200], file=sys.stderr)
            if "method" in m and "id" in m:
                answer(m)
            elif m.get("id") == rid:
                return m
        sys.exit("no answer to %s" % method)

    def answer(req):
        method, p = req["method"], req.get("params", {})
        if method == "session/request_permission":
            opt = next(o for o in p["options"] if o["kind"] == "allow_once")
            result = {"outcome": {"outcome": "selected", "optionId": opt["optionId"]}}
        elif method == "fs/read_text_file":
            path = pathlib.Path(p["path"])
            result = {"content": path.read_text() if path.exists() else ""}
        elif method == "fs/write_text_file":
            pathlib.Path(p["path"]).write_text(p["content"])
            result = None
        else:
            send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32601, "message": "Method not found"}})
            return
        send({"jsonrpc": "2.0", "id": req["id"], "result": result})

    call("initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True},
                        "clientInfo": {"name": "record-gemini-acp", "version": "1.0"}})
    call("authenticate", {"methodId": "gemini-api-key", "_meta": {"api-key": "k"}})
    session = call("session/new", {"cwd": str(project), "mcpServers": []})["result"]["sessionId"]
    call("session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": args.prompt}]})
    if args.bogus:
        call("bogus/method", {})
        call("session/set_mode", {"sessionId": session, "modeId": "bogus"})
    proc.stdin.close()
    proc.wait(timeout=60)
    api.terminate()
    print("wrote %s (exit %s)" % (out, proc.returncode), file=sys.stderr)


if __name__ == "__main__":
    main()
