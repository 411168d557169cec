"""One turn through the SDK's `CodexClient`, as the curated app-server cassettes were
recorded from the real Codex: `thread/start` with the policy of argv 1 (`default`: none),
every approval answered with the decision of argv 2."""

import os
import sys

from openai_codex.client import CodexClient

from summary import config, out

policy, decision = sys.argv[1], sys.argv[2]
asked = []


def handler(method, params):
    asked.append(method)
    return {"decision": decision}


with CodexClient(config(), approval_handler=handler) as client:
    client.initialize()
    params = {"model": "gpt-5.5"}
    if policy != "default":
        params.update({"approvalPolicy": policy, "sandbox": "workspace-write"})
    thread = client.thread_start(params).thread.id
    turn = client.turn_start(thread, "Do what the script says.").turn.id
    done = client.wait_for_turn_completed(turn)
    out(f"status {done.turn.status.value} asked {len(asked)}")
