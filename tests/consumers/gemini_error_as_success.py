#!/usr/bin/env python3
# gemini_error_as_success.py: a BUGGY program driving `gemini -o stream-json -p` as
# gemini_careful.py does, but it trusts the exit code alone: an exit 0 is success,
# whatever the lines said. Gemini CLI exits 0 on an empty answer (a `result` with
# `"status":"error"`) and when its relaunched child is killed (no `result` at all), so
# both are printed as answers.
#
# Usage: gemini_error_as_success.py [PROMPT]   (default "hi")

import sys

import gemini_careful

seen = {"text": "", "tool": False}


def keep(event):
    if event.get("type") == "message" and event.get("role") == "assistant":
        if seen["tool"]:
            seen["text"], seen["tool"] = "", False
        seen["text"] += event.get("content") or ""
    elif event.get("type") == "tool_use":
        seen["tool"] = True


if __name__ == "__main__":
    try:
        print(gemini_careful.run("stream-json", " ".join(sys.argv[1:]) or "hi", keep))
    except gemini_careful.Failed as error:
        if "exited with" in str(error) and "exited with 0" not in str(error):
            print(f"consumer: agent failed: {error}", file=sys.stderr)
            sys.exit(1)
        print(seen["text"])  # BUG: an exit 0 is taken as success
    sys.exit(0)
