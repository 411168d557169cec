#!/usr/bin/env python3
# gemini_agentabi.py: a program built on agentabi 0.4.0 (PyPI, unmodified; installed by
# scripts/gemini-consumers.sh) as its README shows it: run_sync(prompt) on the
# `gemini_cli` agent, the result's status and text. agentabi's GeminiNativeProvider
# spawns `gemini -o stream-json --approval-mode yolo -p PROMPT` and parses its lines.
#
# This program adds nothing to agentabi's verdict: it prints `result_text` and exits 0
# when agentabi says "success", else prints the errors on stderr and exits 1. What the
# harness finds is agentabi's.
#
# Usage: gemini_agentabi.py [PROMPT]   (default "hi")
# AGENTABI_TIMEOUT: the task's `timeout` in seconds (agentabi kills the CLI's pid then).

import os
import sys
import warnings

from agentabi import run_sync

warnings.simplefilter("ignore", DeprecationWarning)


def main():
    prompt = " ".join(sys.argv[1:]) or "hi"
    kwargs = {}
    if os.environ.get("AGENTABI_TIMEOUT"):
        kwargs["timeout"] = float(os.environ["AGENTABI_TIMEOUT"])
    result = run_sync(prompt, agent="gemini_cli", **kwargs)
    if result.get("status") == "success":
        print(result.get("result_text", ""))
        return 0
    print(f"consumer: agent failed: {result.get('errors')}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
