#!/usr/bin/env python3
# codex_sdk_never_answers.py: a BUGGY program on the Python SDK (`openai-codex`): its
# approval handler waits on a person who is never asked, so the server's approval
# request gets no answer and the turn never ends (a watchdog gives up after
# CONSUMER_TOTAL_TIMEOUT seconds). mock-agent catches it with `answers-requests`.

import os
import shutil
import sys
import threading

from openai_codex import CodexConfig
from openai_codex.client import CodexClient

TOTAL_TIMEOUT = float(os.environ.get("CONSUMER_TOTAL_TIMEOUT", "5"))


def handler(method, params):
    threading.Event().wait()  # BUG: nobody ever decides
    return {"decision": "accept"}


clients = []


def work():
    config = CodexConfig(codex_bin=os.environ.get("CODEX_CLI") or shutil.which("codex"))
    with CodexClient(config, approval_handler=handler) as client:
        clients.append(client)
        client.initialize()
        thread = client.thread_start({}).thread.id
        turn = client.turn_start(thread, "hi").turn.id
        client.wait_for_turn_completed(turn)


worker = threading.Thread(target=work, daemon=True)
worker.start()
worker.join(TOTAL_TIMEOUT)
if worker.is_alive():
    for client in clients:
        client.close()
    sys.stderr.write("consumer: agent failed: no answer\n")
    os._exit(1)
os._exit(0)
