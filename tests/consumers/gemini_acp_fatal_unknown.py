#!/usr/bin/env python3
# gemini_acp_fatal_unknown.py: gemini_acp_careful.py's client with a planted bug: it
# looks each sessionUpdate kind up in a table of the spec's kinds, and a kind it does
# not know raises KeyError, which ends the run as a failure (`error: internal error:
# KeyError(...)`, exit 1) where the turn succeeded. The harness must catch it with
# `ignores-unknown`; every other case it passes, as gemini_acp_careful.py does.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gemini_acp_careful  # noqa: E402


def ignore(update):
    pass


class FatalUnknown(gemini_acp_careful.GeminiClient):
    def on_update(self, params):
        update = params.get("update") if isinstance(params, dict) else None
        kind = update.get("sessionUpdate") if isinstance(update, dict) else None
        handlers = dict.fromkeys(
            ["agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "tool_call",
             "tool_call_update", "plan", "available_commands_update", "current_mode_update"],
            ignore,
        )
        handlers[kind](update)  # BUG: KeyError on a kind not in the table
        super().on_update(params)


if __name__ == "__main__":
    # gemini_acp_careful.py's main, with this client: the bug is the only difference.
    gemini_acp_careful.GeminiClient = FatalUnknown
    gemini_acp_careful.run_main()
