"""A turn that fails: `Thread.run` raises the SDK's own error."""

from openai_codex import Codex

from summary import config, out, raised

try:
    with Codex(config()) as codex:
        thread = codex.thread_start()
        result = thread.run("Create made.txt and notes.md")
        out(f"final {result.final_response}")
except Exception as error:  # the SDK's own error, whatever its class
    raised(error)
out("done")
