#!/usr/bin/env python3
# acp_waits_forever.py: a BUGGY client of `cursor-agent acp`. It runs one turn like
# acp_simple.py, but its reader thread simply ends at the end of the agent's stdout
# without telling anyone, and the main loop waits for the response to its request
# with no time limit. When the agent dies mid-turn (`crash:at=tool_call`,
# `crash-while-asking`, `eof:...`), it keeps waiting for the prompt's response for
# ever: it hangs, and only its caller's time limit ends it. When the agent stays
# alive it behaves correctly (but a silent agent hangs it too: no idle timeout).
#
# Usage: acp_waits_forever.py [PROMPT]   (default "Summarize the repo")

import sys

from acp_simple import SimpleClient, main


class WaitsForever(SimpleClient):
    def read(self):
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.put(line)
        # BUG: at end of file the thread just ends; nobody tells call() the agent is gone

    def next_line(self):
        return self.lines.get()  # BUG: no idle timeout, and no end of file: waits for ever


if __name__ == "__main__":
    sys.exit(main(WaitsForever))
