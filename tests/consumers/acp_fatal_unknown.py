#!/usr/bin/env python3
# acp_fatal_unknown.py: a BUGGY client of `cursor-agent acp`. It runs one turn like
# acp_simple.py, but it dispatches session/update notifications through a table of
# the sessionUpdate kinds it knows: an update of any other kind (`unknown-update`, a
# kind a newer agent added) is a KeyError that it does not catch, so it dies with a
# traceback and a non-zero exit (its agent then sees end of file and exits). Unknown
# fields are ignored. Otherwise it behaves correctly.
#
# Usage: acp_fatal_unknown.py [PROMPT]   (default "Summarize the repo")

import sys

from acp_simple import SimpleClient, main


def ignore(update):
    pass


class FatalUnknown(SimpleClient):
    def on_update(self, update):
        # The kinds of the protocol's specification, and nothing else.
        handlers = {
            "agent_message_chunk": super().on_update,
            "agent_thought_chunk": ignore,
            "user_message_chunk": ignore,
            "tool_call": ignore,
            "tool_call_update": ignore,
            "plan": ignore,
            "available_commands_update": ignore,
            "current_mode_update": ignore,
        }
        handlers[update.get("sessionUpdate")](update)  # BUG: KeyError on a kind not in the table


if __name__ == "__main__":
    sys.exit(main(FatalUnknown))
