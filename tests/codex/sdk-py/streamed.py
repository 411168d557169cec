"""One turn streamed with `Thread.turn(...).stream()`: every notification's method."""

from openai_codex import Codex

from summary import config, out

with Codex(config()) as codex:
    thread = codex.thread_start()
    handle = thread.turn("Create made.txt and notes.md")
    for event in handle.stream():
        out(f"event {event.method}")
out("done")
