#!/usr/bin/env python3
# codex_sdk_error_as_success.py: a BUGGY program on the Python SDK (`openai-codex`):
# whatever `Thread.run` raises is swallowed and the run reported as a success with an
# empty answer. mock-agent catches it with `reports-failure` on every failing case.

import os
import shutil
import sys

from openai_codex import Codex, CodexConfig

answer = ""
try:
    with Codex(CodexConfig(codex_bin=os.environ.get("CODEX_CLI") or shutil.which("codex"))) as codex:
        answer = codex.thread_start().run("hi").final_response or ""
except Exception:
    pass  # BUG: a failure is not an answer
print(answer, flush=True)
os._exit(0)
