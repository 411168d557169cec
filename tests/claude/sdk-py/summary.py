"""One line per message of the Python Claude Agent SDK, the same lines as
../sdk-ts/summary.mjs writes for the TypeScript SDK's messages (so a test can compare
the two SDKs' view of one mock session). Nothing that differs between runs (ids, uuids,
timings, costs) is printed. `run` runs a program's `main` under its watchdog."""

import asyncio
import json
import sys

from claude_agent_sdk import (
    AssistantMessage,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)


def _text(text):
    return json.dumps(text, ensure_ascii=False)


def _blocks(who, content):
    if isinstance(content, str):
        return [f"{who} text {_text(content)}"]
    lines = []
    for block in content:
        if isinstance(block, TextBlock):
            lines.append(f"{who} text {_text(block.text)}")
        elif isinstance(block, ThinkingBlock):
            lines.append(f"{who} thinking")
        elif isinstance(block, ToolUseBlock):
            lines.append(f"{who} tool_use {block.name}")
        elif isinstance(block, ToolResultBlock):
            lines.append(f"{who} tool_result is_error={str(bool(block.is_error)).lower()}")
        else:
            lines.append(f"{who} {type(block).__name__}")
    return lines


def lines(message):
    """The summary lines of one message the SDK yielded."""
    if isinstance(message, SystemMessage):
        return [f"system {message.subtype}"]
    if isinstance(message, AssistantMessage):
        return _blocks("assistant", message.content)
    if isinstance(message, UserMessage):
        return _blocks("user", message.content)
    if isinstance(message, ResultMessage):
        denied = ",".join(d.get("tool_name", "?") for d in message.permission_denials or [])
        text = message.result if message.result is not None else "; ".join(message.errors or [])
        return [
            f"result {message.subtype} is_error={str(message.is_error).lower()} "
            f"num_turns={message.num_turns} denied=[{denied}] {_text(text)}"
        ]
    # The line's type, as the TypeScript SDK shows it (RateLimitEvent: rate_limit_event).
    name = type(message).__name__.removesuffix("Message")
    wire = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
    return [f"other {wire}"]


def show(message):
    for line in lines(message):
        print(line, flush=True)


def run(main, seconds=20):
    """Runs the coroutine function `main` for at most `seconds`; past them, prints
    `timeout` and exits 3 (a hang fails, never sticks)."""
    try:
        asyncio.run(asyncio.wait_for(main(), seconds))
    except TimeoutError:
        print("timeout")
        sys.exit(3)
