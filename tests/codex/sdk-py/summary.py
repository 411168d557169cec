"""What the programs print, one line a thing the SDK gave them (shared by them all)."""

import os
import sys
import time

from openai_codex import CodexConfig

START = time.monotonic()


def config() -> CodexConfig:
    """The SDK's configuration: the mock, linked as `codex`, is the binary it runs."""
    return CodexConfig(codex_bin=os.environ["CODEX_CLI"])


def out(line: str) -> None:
    print(line, flush=True)


def raised(error: BaseException) -> None:
    """The SDK's own error, as the last line: its class, how long it took, its message."""
    seconds = int(time.monotonic() - START)
    first = str(error).splitlines()[0] if str(error) else ""
    out(f"raised {type(error).__name__} in={seconds}s: {first}")
    sys.exit(1)


def item_line(item) -> str:
    """An item of a result, by its type (and status, where it has one)."""
    item = getattr(item, "root", item)
    kind = getattr(item, "type", type(item).__name__)
    kind = getattr(kind, "value", kind)
    status = getattr(item, "status", None)
    status = getattr(status, "value", status)
    return f"item {kind}" + (f" {status}" if status is not None else "")
