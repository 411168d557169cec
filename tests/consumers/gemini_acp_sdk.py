#!/usr/bin/env python3
# gemini_acp_sdk.py: a client of `gemini --acp` written on the Python ACP SDK (PyPI
# `agent-client-protocol`, unmodified; scripts/acp-clients.sh installs the pinned one),
# the way the SDK's examples/gemini.py drives Gemini CLI: it spawns the agent, offers
# fs and terminal in initialize, authenticates with `gemini-api-key` (the key in
# `_meta["api-key"]`) when GEMINI_API_KEY is set, opens a session and sends one prompt,
# approving each permission request with its first allow_* option.
#
# Usage: gemini_acp_sdk.py [PROMPT]   (the agent: $ACP_GEMINI_BIN, else `gemini`)
# Prints one line per event: `update KIND`, `permission OPTION_IDS -> CHOSEN`,
# `stop REASON`, `quota IN OUT`, then the answer's text; exit 0 on end_turn. On an
# error prints `error: ...` on stderr and exits 1.

import asyncio
import os
import sys

from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    RequestPermissionResponse,
)


class Client:
    def __init__(self):
        self.text = []

    async def request_permission(self, options, session_id, tool_call, **kwargs):
        ids = [o.option_id for o in options]
        chosen = next((o for o in options if o.kind in ("allow_once", "allow_always")), None)
        print("permission %s -> %s" % (",".join(ids), chosen.option_id if chosen else "cancelled"), flush=True)
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen.option_id))

    async def session_update(self, session_id, update, **kwargs):
        kind = getattr(update, "session_update", type(update).__name__)
        print("update %s" % kind, flush=True)
        if kind == "agent_message_chunk":
            content = getattr(update, "content", None)
            text = getattr(content, "text", None)
            if isinstance(text, str):
                self.text.append(text)

    async def read_text_file(self, path, session_id, limit=None, line=None, **kwargs):
        print("fs read", flush=True)
        try:
            with open(path, encoding="utf-8") as f:
                return {"content": f.read()}
        except OSError:
            return {"content": ""}

    async def write_text_file(self, content, path, session_id, **kwargs):
        print("fs write", flush=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
        return None

    async def create_terminal(self, *args, **kwargs):
        print("terminal/create", flush=True)
        raise RequestError.method_not_found("terminal/create")

    async def ext_method(self, method, params):
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method, params):
        return None

    def on_connect(self, conn):
        pass


async def main(prompt):
    agent = os.environ.get("ACP_GEMINI_BIN") or "gemini"
    client = Client()
    # The SDK spawns the agent with a trimmed environment (PATH, HOME, ...): the
    # variables Gemini CLI reads are passed on, and the mock's settings with them.
    env = {k: v for k, v in os.environ.items() if k.startswith(("GEMINI_", "GOOGLE_", "MOCK_AGENT_"))}
    async with spawn_agent_process(client, agent, "--acp", env=env) as (conn, process):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
            ),
            client_info=Implementation(name="gemini_acp_sdk", title="SDK example", version="1.0"),
        )
        methods = [m.id for m in (init.auth_methods or [])]
        print("auth %s" % ",".join(methods), flush=True)
        key = os.environ.get("GEMINI_API_KEY")
        if key and "gemini-api-key" in methods:
            await conn.authenticate(method_id="gemini-api-key", **{"api-key": key})
        session = await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
        result = await conn.prompt(session_id=session.session_id, prompt=[text_block(prompt)])
        print("stop %s" % result.stop_reason, flush=True)
        meta = result.field_meta or {}
        tokens = (meta.get("quota") or {}).get("token_count") or {}
        if tokens:
            print("quota %s %s" % (tokens.get("input_tokens"), tokens.get("output_tokens")), flush=True)
        print("".join(client.text), flush=True)
        return 0 if result.stop_reason == "end_turn" else 1


if __name__ == "__main__":
    try:
        code = asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "Summarize the repo"))
    except Exception as err:  # what the SDK raised: a JSON-RPC error, the agent gone
        sys.stderr.write("error: %s\n" % (err,))
        code = 1
    sys.stdout.flush()
    os._exit(code)
