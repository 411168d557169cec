#!/usr/bin/env python3
# claude_crashes_on_unknown.py: a BUGGY program on the Python Claude Agent SDK. It runs
# like claude_careful.py, but it dispatches every message through a table of the kinds
# it knows (assistant, user, result, and the system line `init`): a message of any other
# kind (a rate limit event, a system line such as `compact_boundary`, `status` or a
# future subtype, a stream event) is a KeyError that it does not catch, so it dies with
# a traceback and exit 1. Failures of the run itself are reported as the careful one
# does.
#
# Usage: claude_crashes_on_unknown.py [PROMPT]   (default "hi")

import asyncio
import sys

from claude_agent_sdk import SystemMessage

from claude_careful import main

KNOWN = {"AssistantMessage": "words", "UserMessage": "tool results", "ResultMessage": "the end", "init": "start"}


def dispatch(message):
    kind = message.subtype if type(message) is SystemMessage else type(message).__name__
    KNOWN[kind]  # BUG: an unknown kind raises KeyError, and nothing catches it


if __name__ == "__main__":
    try:
        text = asyncio.run(main(" ".join(sys.argv[1:]) or "hi", check=dispatch))
    except KeyError:
        raise  # the planted bug's traceback
    except Exception as error:  # the run's own failures, reported as claude_careful does
        print(f"consumer: agent failed: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
    print(text)
