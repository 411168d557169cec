#!/usr/bin/env python3
# acp_leaves_agent.py: a BUGGY client of `cursor-agent acp`. It runs one turn like
# acp_simple.py and reports every failure correctly (error: ..., exit 1), but when
# it gives up (idle timeout, a JSON-RPC error, a bad stopReason, the agent's stdout
# ending) it just exits: it neither closes the agent's stdin nor kills nor waits for
# the agent, which keeps running after it (an orphan in the client's process group).
# On success it stops and reaps the agent correctly.
#
# Usage: acp_leaves_agent.py [PROMPT]   (default "Summarize the repo")

import os
import subprocess
import sys

from acp_simple import SimpleClient, main


class LeavesAgent(SimpleClient):
    def spawn(self, agent):
        # The agent's stdin is a pipe whose write end the agent inherits too
        # (pass_fds), the way a client that spawns with inherited descriptors leaks it:
        # the agent never sees end of file on its stdin, even after this client is
        # gone. It stays in this client's process group.
        stdin_read, stdin_write = os.pipe()
        proc = subprocess.Popen(
            [agent, "acp"],
            stdin=stdin_read,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            pass_fds=(stdin_write,),
            start_new_session=False,
        )
        os.close(stdin_read)
        proc.stdin = os.fdopen(stdin_write, "wb")
        return proc

    def give_up(self):
        pass  # BUG: gives up without closing the agent's stdin, killing or waiting for it

    def stop_agent(self):
        # Success: the agent holds its own copy of its stdin, so it sees no end of
        # file: terminate it, then reap it.
        self.proc.stdin.close()
        self.proc.terminate()
        self.proc.wait()


if __name__ == "__main__":
    sys.exit(main(LeavesAgent))
