#!/usr/bin/env python3
# codex_sdk_crashes_on_unknown.py: a BUGGY program on the Python SDK (`openai-codex`):
# it streams the turn and treats a notification or an item it does not know as fatal,
# though the SDK hands them over on purpose (the protocol grows). mock-agent catches it
# with `ignores-unknown`.

import os
import shutil
import sys

from openai_codex import Codex, CodexConfig

KNOWN_ITEMS = {"userMessage", "agentMessage", "reasoning", "commandExecution", "fileChange", "webSearch", "mcpToolCall"}

answer = ""
with Codex(CodexConfig(codex_bin=os.environ.get("CODEX_CLI") or shutil.which("codex"))) as codex:
    handle = codex.thread_start().turn("hi")
    for event in handle.stream():
        payload = event.payload
        kind = type(payload).__name__
        if kind == "UnknownNotification":
            # BUG: an unknown notification (or an item the SDK's models reject) is fatal
            raise SystemExit(f"consumer: unknown notification {event.method}: {getattr(payload, 'params', '')}")
        if event.method == "item/completed":
            item = getattr(payload.item, "root", payload.item)
            if getattr(item, "type", None) == "agentMessage":
                answer = item.text
        if event.method == "turn/completed":
            if payload.turn.status.value != "completed":
                sys.stderr.write("consumer: agent failed\n")
                sys.exit(1)
            break
print(answer, flush=True)
