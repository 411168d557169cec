#!/usr/bin/env python3
# claude_careful.py: a CORRECT program on the Python Claude Agent SDK (claude-agent-sdk),
# which spawns Claude Code's `claude` and talks stream-json to it.
#
# It shows what such a program must do to survive what mock-agent's Claude dialect does:
# - every permission request is answered: the `can_use_tool` callback allows each call
#   at once (a program that never answers leaves the CLI waiting for ever);
# - success only when a result arrived, is not an error, and the SDK raised nothing: an
#   error result, the SDK's ProcessError (the CLI exited non-zero), CLIJSONDecodeError
#   (a broken line), MessageParseError (a line missing a required field) or any other
#   exception is failure, reported with exit 1;
# - a watchdog: no message for CONSUMER_IDLE_TIMEOUT seconds (default 8), or a run longer
#   than CONSUMER_TOTAL_TIMEOUT seconds (default 20), is failure, so a stalled CLI never
#   hangs the program; the CLI is then terminated before the SDK closes (else the SDK's
#   own close waits 5 s after closing stdin, then terminates it itself);
# - messages and system subtypes it does not know (rate limits, compaction, task events,
#   future ones) are skipped, as the SDK skips unknown line types.
#
# Usage: claude_careful.py [PROMPT]   (default "hi")
# The CLI is $CLAUDE_CLI if set, else `claude` on PATH (never the SDK's bundled one).
# Prints the result's text and a newline on success (exit 0); on failure prints one line
# starting `consumer: agent failed` on stderr and exits 1.

import asyncio
import os
import shutil
import signal
import sys

from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    PermissionResultAllow,
    ResultMessage,
    TextBlock,
    query,
)

IDLE_TIMEOUT = float(os.environ.get("CONSUMER_IDLE_TIMEOUT", "8"))
TOTAL_TIMEOUT = float(os.environ.get("CONSUMER_TOTAL_TIMEOUT", "20"))


class Failed(Exception):
    pass


def cli_path():
    path = os.environ.get("CLAUDE_CLI") or shutil.which("claude")
    if not path:
        raise Failed("no CLI: set CLAUDE_CLI or put `claude` on PATH")
    return path


def stop_children():
    """Terminates this process's children (the CLI the SDK spawned)."""
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as f:
                pids = [int(p) for p in f.read().split()]
        except OSError:
            continue
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


async def allow(tool_name, tool_input, context):
    return PermissionResultAllow()


async def run(prompt, seen, can_use_tool=allow, check=None):
    """One query: the result's text, or Failed. `seen` is called on each message;
    `can_use_tool` answers permission requests; `check`, if given, sees each message
    first (the example consumers with planted bugs reuse this)."""
    options = ClaudeAgentOptions(cli_path=cli_path(), can_use_tool=can_use_tool)
    result = None
    words = []
    async for message in query(prompt=prompt, options=options):
        seen()
        if check is not None:
            check(message)
        if isinstance(message, AssistantMessage):
            words += [b.text for b in message.content if isinstance(b, TextBlock)]
        elif isinstance(message, ResultMessage):
            result = message
        # Anything else (system lines, rate limits, stream events) is not needed here.
    if result is None:
        raise Failed("the CLI ended without a result")
    if result.is_error:
        said = result.result or "; ".join(result.errors or []) or result.subtype
        raise Failed(f"error result ({result.subtype}): {said}")
    return result.result if result.result is not None else "".join(words)


async def main(prompt, body=run, **options):
    """Runs `body` (`run`, with `options`) under the watchdog. On a timeout the CLI is
    terminated first, so the SDK sees it end and returns at once; cancelling the SDK's
    iterator instead would wait for the SDK's own close (up to 10 s)."""
    loop = asyncio.get_running_loop()
    start = last = loop.time()

    def seen():
        nonlocal last
        last = loop.time()

    task = asyncio.ensure_future(body(prompt, seen, **options))
    while True:
        done, _ = await asyncio.wait({task}, timeout=0.1)
        if done:
            return task.result()
        now = loop.time()
        if now - last > IDLE_TIMEOUT:
            why = f"no message for {IDLE_TIMEOUT:g} s"
        elif now - start > TOTAL_TIMEOUT:
            why = f"the run took longer than {TOTAL_TIMEOUT:g} s"
        else:
            continue
        stop_children()
        done, _ = await asyncio.wait({task}, timeout=2)
        if not done:
            task.cancel()
        try:
            await task
        except BaseException:
            pass
        raise Failed(why)


def entry():
    prompt = " ".join(sys.argv[1:]) or "hi"
    try:
        text = asyncio.run(main(prompt))
    except Exception as error:  # any failure of the run, the SDK's errors included
        first = str(error).splitlines()[0] if str(error) else ""
        print(f"consumer: agent failed: {type(error).__name__}: {first}", file=sys.stderr)
        sys.exit(1)
    print(text)


if __name__ == "__main__":
    entry()
