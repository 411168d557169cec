"""One turn with `Thread.run`: the items, the final response, the usage."""

from openai_codex import Codex

from summary import config, item_line, out

with Codex(config()) as codex:
    out(f"server {codex.metadata.userAgent.split(' ')[0]}")
    thread = codex.thread_start()
    result = thread.run("Create made.txt and notes.md")
    for item in result.items:
        out(item_line(item))
    out(f"status {result.status.value}")
    out(f"final {result.final_response}")
    out(f"usage input={result.usage.total.input_tokens} output={result.usage.total.output_tokens}")
out("done")
