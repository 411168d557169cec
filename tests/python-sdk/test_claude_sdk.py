"""A program built on the Python Claude Agent SDK, tested with the mock_agent fixture
as its author would: every case of Claude Code's matrix (``mock_agent_cases`` with
``dialect="claude"``) is a test, the SDK is given the mock as its CLI
(``cli_path=mock_agent.bin("claude")``), and the test asserts what the case says a
correct program concludes (``mock_agent_case.succeeds``, ``.answer``), except where
either conclusion is right (``mock_agent_case.either``: a line the SDK itself cannot
read, on which it raises).

The program under test is ``ask`` below: it allows every tool, takes only a result
that is not an error as success, and gives up on an agent that has not answered in ``TIMEOUT`` seconds.
With ``PLANTED_BUG=error-as-success`` it takes an error result for an answer (it
stops reading at the result, so the SDK never sees the CLI's exit code): the suite
(tests/pytest.rs) runs this file both ways and expects the bug to fail exactly the
cases where the agent ends with an error result.
"""

import asyncio
import os
import signal

import pytest
from claude_agent_sdk import ClaudeAgentOptions, PermissionResultAllow, ResultMessage, query

#: Seconds before the program gives up on the agent (the matrix stalls 2 s once).
TIMEOUT = 8.0


class AgentFailed(Exception):
    pass


async def allow(tool_name, tool_input, context):
    return PermissionResultAllow()


async def ask(prompt: str, cli: str) -> str:
    """The program under test: the agent's answer, or AgentFailed."""

    async def run() -> str:
        options = ClaudeAgentOptions(cli_path=cli, can_use_tool=allow)
        async for message in query(prompt=prompt, options=options):
            if isinstance(message, ResultMessage):
                # The answer is in: the program stops reading here.
                if message.is_error and os.environ.get("PLANTED_BUG") != "error-as-success":
                    raise AgentFailed(message.subtype)
                return message.result or ""
        raise AgentFailed("no result")

    task = asyncio.ensure_future(run())
    done, _ = await asyncio.wait({task}, timeout=TIMEOUT)
    if not done:
        # Stop the CLI first, so that the SDK's iterator ends at once.
        for pid in children():
            os.kill(pid, signal.SIGTERM)
        task.cancel()
        raise AgentFailed("no answer in time")
    return task.result()


def children():
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as f:
                yield from (int(p) for p in f.read().split())
        except OSError:
            continue


@pytest.mark.mock_agent_cases(dialect="claude")
def test_ask_concludes_what_the_agent_did(mock_agent, mock_agent_case):
    mock_agent.patch_environ()  # the SDK spawns the CLI with this process's environment
    try:
        answer = asyncio.run(ask("Summarize README.md", mock_agent.bin("claude")))
    except Exception as error:  # the SDK's own errors are a failure the program saw
        assert not mock_agent_case.succeeds or mock_agent_case.either, f"{mock_agent_case.name}: the run succeeded, the program said {error!r}"
    else:
        assert mock_agent_case.succeeds or mock_agent_case.either, (
            f"{mock_agent_case.name}: the agent failed, the program answered {answer!r}"
        )
        assert answer == mock_agent_case.answer or mock_agent_case.either
