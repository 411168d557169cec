#!/usr/bin/env python3
# live_display.py: a CORRECT consumer that shows the answer live, as a terminal display
# does: with `--stream-partial-output`, each text delta is printed as it arrives (the
# line that repeats a finished segment is not printed again), and a line of the agent's
# that is not JSON is shown as it came, between the parts of the answer. Success when a
# `result` arrived and the agent exited 0 (exit 0); otherwise a message on stderr and
# exit 1. Stderr is drained, stdout read to the end.
#
# Usage: live_display.py [PROMPT]   (default "hi")

import subprocess
import sys
import threading

from print_mode import NOT_JSON, start, whole_lines


def main():
    proc = start(stderr=subprocess.PIPE, flags=["--stream-partial-output"])
    drain = threading.Thread(target=proc.stderr.read, daemon=True)
    drain.start()
    out = sys.stdout.buffer
    got_result = False
    segment = ""  # the text of the segment being streamed
    for raw, event in whole_lines(proc.stdout):
        if event is NOT_JSON:
            out.write(raw)  # the agent's own line, shown as it came
            out.flush()
            continue
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        if kind == "assistant":
            blocks = (event.get("message") or {}).get("content") or []
            text = "".join(b.get("text", "") for b in blocks if isinstance(b, dict))
            if "timestamp_ms" in event and "model_call_id" not in event:
                segment += text  # a delta
                out.write(text.encode("utf-8", "replace"))
                out.flush()
            elif text == segment:
                segment = ""  # the finished segment, already shown
            else:
                segment = ""  # a whole segment (no deltas came)
                out.write(text.encode("utf-8", "replace"))
                out.flush()
        elif kind == "result" and event.get("is_error") is not True:
            got_result = True
    code = proc.wait()
    drain.join(timeout=2)
    out.write(b"\n")
    if code != 0 or not got_result:
        sys.stderr.write("display: agent failed (exit %d)\n" % code)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
