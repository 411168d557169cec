#!/usr/bin/env python3
# codex_crashes_on_unknown.py: a BUGGY program driving `codex exec --json -` as
# codex_careful.py does, but it dispatches every item through a table of the item types
# it knows: an item of any other type (one the CLI adds in a later version) is a KeyError
# that nothing catches, so it dies with a traceback and exit 1.
#
# Usage: codex_crashes_on_unknown.py [PROMPT]   (default "hi")

import codex_careful

KNOWN = {
    "agent_message": "words",
    "reasoning": "thoughts",
    "command_execution": "a command",
    "file_change": "a patch",
    "error": "a warning",
}


def dispatch(event):
    item = event.get("item")
    if isinstance(item, dict):
        KNOWN[item.get("type")]  # BUG: an unknown item type raises KeyError


if __name__ == "__main__":
    codex_careful.main(dispatch)
