"""Approvals under the `untrusted` policy, with the SDK's `CodexClient` and an approval
handler: the first turn's requests accepted, the second's declined."""

from openai_codex.client import CodexClient

from summary import config, item_line, out

decisions = iter(["accept", "accept", "decline", "decline"])
# The handler runs on the SDK's reader thread: what it saw is printed with the turn.
asked = []


def handler(method, params):
    decision = next(decisions, "decline")
    asked.append(f"asked {method} -> {decision}")
    return {"decision": decision}


with CodexClient(config(), approval_handler=handler) as client:
    client.initialize()
    started = client.thread_start({"approvalPolicy": "untrusted", "sandbox": "workspace-write"})
    thread_id = started.thread.id
    for n in (1, 2):
        out(f"turn {n}")
        turn = client.turn_start(thread_id, "Create made.txt and notes.md")
        client.register_turn_notifications(turn.turn.id)
        while True:
            note = client.next_turn_notification(turn.turn.id)
            if note.method == "item/completed":
                out(item_line(note.payload.item))
            if note.method == "turn/completed":
                for line in asked:
                    out(line)
                asked.clear()
                out(f"turn status {note.payload.turn.status.value}")
                break
out("done")
