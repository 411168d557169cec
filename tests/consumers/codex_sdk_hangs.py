#!/usr/bin/env python3
# codex_sdk_hangs.py: a BUGGY program on the Python SDK (`openai-codex`): it waits for
# the turn with no watchdog, so a server that stalls (or a stream cut where the SDK
# waits on) hangs it for ever. mock-agent catches it with `ends` (the case's timeout).

import os
import shutil

from openai_codex import Codex, CodexConfig

with Codex(CodexConfig(codex_bin=os.environ.get("CODEX_CLI") or shutil.which("codex"))) as codex:
    print(codex.thread_start().run("hi").final_response, flush=True)  # BUG: no timeout
