#!/usr/bin/env python3
# codex_sdk_careful.py: a CORRECT program built on OpenAI's Python SDK (`openai-codex`),
# which drives `codex app-server` (JSON-RPC over stdio). Run with the SDK's python
# (scripts/codex-sdks.sh py).
#
# What it does to survive mock-agent's `codex-app-server` dialect:
# - the binary is $CODEX_CLI if set, else `codex` on PATH (CodexConfig.codex_bin);
# - approvals are answered: commands and patches accepted (the SDK's default handler);
# - success only when `Thread.run` returns a completed turn: the answer is its
#   `final_response`; any error the SDK raises (a failed turn, the server gone, a line
#   it cannot read) is failure, with its message;
# - a watchdog: a run longer than CONSUMER_TOTAL_TIMEOUT seconds (default 10) is
#   failure, so a stalled server never hangs the program; the server is closed (stdin
#   closed, SIGTERM, then SIGKILL: the SDK's `close()`) on every way out.
#
# Prints the final message and a newline on success (exit 0); on failure prints one line
# starting `consumer: agent failed` on stderr and exits 1.

import os
import shutil
import sys
import threading

from openai_codex import Codex, CodexConfig

TOTAL_TIMEOUT = float(os.environ.get("CONSUMER_TOTAL_TIMEOUT", "10"))


def binary():
    return os.environ.get("CODEX_CLI") or shutil.which("codex") or "codex"


def fail(message):
    sys.stderr.write(f"consumer: agent failed: {message}\n")
    sys.stderr.flush()
    os._exit(1)


def main():
    done = {}

    def work():
        try:
            with Codex(CodexConfig(codex_bin=binary())) as codex:
                done["codex"] = codex
                thread = codex.thread_start()
                result = thread.run(sys.argv[1] if len(sys.argv) > 1 else "hi")
                done["answer"] = result.final_response or ""
        except BaseException as error:  # the SDK's own errors, whatever their class
            done["error"] = f"{type(error).__name__}: {error}"

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(TOTAL_TIMEOUT)
    if worker.is_alive():
        if "codex" in done:
            done["codex"].close()
        fail(f"no answer within {TOTAL_TIMEOUT:g} s")
    if "error" in done:
        fail(done["error"].splitlines()[0] if done["error"] else "error")
    sys.stdout.write(done["answer"] + "\n")
    sys.stdout.flush()
    os._exit(0)


main()
