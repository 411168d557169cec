"""A chat bot that posts each of the agent's text segments as a message of its own
(as one real program does), never `result.result`. Correct: reports-success accepts
the segments in order."""
import json
import subprocess
import sys

agent = subprocess.Popen(
    ["cursor-agent", "-p", "--output-format", "stream-json", "Summarize the repo"],
    stdout=subprocess.PIPE,
)
ok = False
for raw in agent.stdout:
    try:
        event = json.loads(raw)
    except ValueError:
        continue
    if not isinstance(event, dict):
        continue
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
