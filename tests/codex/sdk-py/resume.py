"""A thread resumed by a second server process: the usage goes on from the first."""

from openai_codex import Codex

from summary import config, out

with Codex(config()) as codex:
    thread = codex.thread_start()
    first = thread.run("Create made.txt and notes.md")
    out(f"first input={first.usage.total.input_tokens}")
    thread_id = thread.id
with Codex(config()) as codex:
    thread = codex.thread_resume(thread_id)
    out(f"resumed same={thread.id == thread_id}")
    second = thread.run("Go on")
    out(f"second input={second.usage.total.input_tokens} last={second.usage.last.input_tokens}")
    out(f"final {second.final_response}")
out("done")
