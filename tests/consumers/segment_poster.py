"""A chat bot that posts each of the agent's text segments as a message of its own
(as one real program does), never `result.result`. Correct: reports-success accepts
the segments in order."""
import sys

from print_mode import start, whole_lines

agent = start(stderr=None, prompt="Summarize the repo")
ok = False
for _, event in whole_lines(agent.stdout):
    if not isinstance(event, dict):
        continue  # not JSON, or not an object
    if event.get("type") == "assistant":
        text = "".join(
            block.get("text", "") for block in event.get("message", {}).get("content", [])
        )
        if text.strip():
            print(f"[bot] posted: {text.strip()}")
    elif event.get("type") == "result":
        ok = event.get("subtype") == "success" and not event.get("is_error")
code = agent.wait()
sys.exit(0 if ok and code == 0 else 1)
