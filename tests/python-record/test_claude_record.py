"""A program on the Python Claude Agent SDK whose test records the real Claude Code
once and replays it from then on, as its author writes it: ``record="once"`` on one
cassette, and a library of cassettes under pytest's ``--record-mode``.

tests/pytest.rs runs this file twice. The first time the real Claude Code is reachable
(``MOCK_AGENT_REAL_CLAUDE``, running against ``mock-agent model-api --api anthropic``
at ``MODEL_API_URL``) and the cassettes, in ``RECORD_CASSETTES``, do not exist yet: the
runs are recorded. The second time neither the real CLI nor the model API is there:
the runs are replayed, and the replayed answer is judged by the cassette's case.
"""

import asyncio
import os
import time
from pathlib import Path

import pytest
from claude_agent_sdk import ClaudeAgentOptions, PermissionResultAllow, ResultMessage, query

CASSETTES = Path(os.environ["RECORD_CASSETTES"])


async def allow(tool_name, tool_input, context):
    return PermissionResultAllow()


async def ask(prompt: str, cli: str, env: dict, cwd: Path) -> str:
    """The program under test: the agent's answer, or an error."""
    options = ClaudeAgentOptions(cli_path=cli, can_use_tool=allow, env=env, cwd=cwd)
    async for message in query(prompt=prompt, options=options):
        if isinstance(message, ResultMessage):
            if message.is_error:
                raise RuntimeError(message.subtype)
            return message.result or ""
    raise RuntimeError("no result")


def run(mock_agent, tmp_path: Path) -> str:
    """The program, with what the real Claude Code needs to run offline: a home of its
    own and the model API's address (a closed port when there is none)."""
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": os.environ.get("MODEL_API_URL", "http://127.0.0.1:9"),
        "ANTHROPIC_API_KEY": "sk-ant-test-not-in-the-cassette",
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    mock_agent.patch_environ()  # the SDK spawns the CLI with this process's environment
    work = tmp_path / "work"
    work.mkdir()
    return asyncio.run(asyncio.wait_for(ask("Do what the script says.", mock_agent.bin("claude"), env, work), 120))


def journal(mock_agent):
    """The agent's journal once the CLI the SDK stopped has written it (the SDK ends the
    CLI when the program stops reading; the mock journals as it exits): at most 5 s."""
    deadline = time.monotonic() + 5
    while not mock_agent.journal() and time.monotonic() < deadline:
        time.sleep(0.05)
    return mock_agent.journal()


def test_one_cassette_is_recorded_once_then_replayed(mock_agent, tmp_path):
    cassette = CASSETTES / "ask.cassette"
    mock_agent.use(dialect="claude", cassette=cassette, record="once")
    recording = mock_agent.case is None
    answer = run(mock_agent, tmp_path)
    print("ONE", "RECORDED" if recording else "REPLAYED", len(journal(mock_agent)), repr(answer))
    if not recording:
        (entry,) = mock_agent.journal()
        assert entry["source"] == str(cassette)
        # The program concluded what the recorded run says a correct one concludes.
        assert mock_agent.case.broken(0, answer + "\n", mock=mock_agent.binary) == []


@pytest.mark.mock_agent_library(str(CASSETTES / "library"))
def test_a_library_follows_the_record_mode(mock_agent, tmp_path):
    answer = run(mock_agent, tmp_path)
    print("LIBRARY", mock_agent.record, len(journal(mock_agent)), repr(answer))
