"""The pytest plugin of mock-agent (the ``pytest11`` entry point ``mock_agent``; from a
source tree, ``-p mock_agent.pytest_plugin``).

- The fixture ``mock_agent``: a :class:`~mock_agent.agent.MockAgent` of the test's own,
  every dialect's executables (``cursor-agent``, ``agent``, ``claude``, ... as
  ``mock-agent dialects`` lists them) first on ``mock_agent.env["PATH"]``, and
  ``mock_agent.bin("claude")`` their paths.
- The marker ``mock_agent_cases(**kwargs)``: the test runs once per case of the matrix
  (keywords of :func:`mock_agent.cases`), each case a test id of its own, the case in
  use by the test's agent and in the fixture ``mock_agent_case``.
- The marker ``mock_agent_library(path=None)``: the test's agent replays every CLI's
  runs from a library of cassettes (default ``agent-cassettes/MODULE/TEST`` beside the
  test file) and records into it as ``--record-mode`` says (``none``, the default,
  replays only): Cursor's by the binary's shim, each other program's in a folder of
  its own (``claude/1.cassette``, ...).
- ``--record-mode MODE`` and ``--mock-agent-real PATH`` (the real CLI the record modes
  run for the dialect a test names, or for the program it is named as; else
  ``MOCK_AGENT_REAL_<PROGRAM>``, else the program on the ``PATH`` pytest runs with).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

from .agent import RECORD_MODES, Case, MockAgent, cases

_CASES_CACHE: Dict[Tuple[Tuple[str, Any], ...], List[Case]] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mock-agent", "mock-agent: a stand-in for the agent CLIs (cursor-agent, claude, codex, gemini)")
    group.addoption(
        "--record-mode",
        dest="mock_agent_record_mode",
        choices=RECORD_MODES,
        default=None,
        help="what the agent of tests marked mock_agent_library does on a cassette "
        "the library lacks: none (an error, the default), once, new_episodes, all, passthrough",
    )
    group.addoption(
        "--mock-agent-real",
        dest="mock_agent_real",
        metavar="PATH",
        default=None,
        help="the real CLI the record modes run, for the dialect a test names in use() or the "
        "program it is named as (claude); default: MOCK_AGENT_REAL_<PROGRAM>, else the program on PATH",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "mock_agent_cases(**kwargs): run the test once per case of mock-agent's matrix "
        "(keywords of mock_agent.cases: cassettes, acp, dialect, generated, default, formats, faults, filter)",
    )
    config.addinivalue_line(
        "markers",
        "mock_agent_library(path=None): the agent replays from this library of cassettes "
        "and records into it as --record-mode says",
    )


def mock_agent_cases(**kwargs: Any) -> List[Any]:
    """The cases of the matrix (keywords of :func:`mock_agent.cases`) as
    ``pytest.param``\\ s whose ids are the cases' names, for ``pytest.mark.parametrize``."""
    return [pytest.param(case, id=case.name) for case in _cases(kwargs)]


def _cases(kwargs: Dict[str, Any]) -> List[Case]:
    key = tuple(sorted((k, tuple(v) if isinstance(v, (list, tuple)) else v) for k, v in kwargs.items()))
    if key not in _CASES_CACHE:
        _CASES_CACHE[key] = cases(**kwargs)
    return _CASES_CACHE[key]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("mock_agent_cases")
    if marker is None:
        return
    if marker.args:
        raise pytest.UsageError(
            f"mock-agent: {metafunc.definition.nodeid}: mock_agent_cases takes keywords only "
            "(cassettes=..., filter=...)"
        )
    if "mock_agent_case" not in metafunc.fixturenames:
        raise pytest.UsageError(
            f"mock-agent: {metafunc.definition.nodeid}: mock_agent_cases needs the mock_agent "
            "(or mock_agent_case) fixture"
        )
    found = _cases(dict(marker.kwargs))
    metafunc.parametrize("mock_agent_case", found, ids=[case.name for case in found])


@pytest.fixture
def mock_agent_case(request: pytest.FixtureRequest) -> Optional[Case]:
    """The case of the matrix this test runs (marker ``mock_agent_cases``), else None."""
    return getattr(request, "param", None)


def _library(request: pytest.FixtureRequest) -> Optional[Path]:
    marker = request.node.get_closest_marker("mock_agent_library")
    if marker is None:
        return None
    path = marker.kwargs.get("path", marker.args[0] if marker.args else None)
    module = Path(request.path)
    if path is None:
        return module.parent / "agent-cassettes" / module.stem / request.node.originalname
    path = Path(path)
    return path if path.is_absolute() else module.parent / path


@pytest.fixture
def mock_agent(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mock_agent_case: Optional[Case],
) -> Iterator[MockAgent]:
    """This test's agent: ``mock_agent.env`` is the environment to run the program under
    test with (``mock_agent.run(argv)`` does), ``mock_agent.use(...)`` says what the
    agent does, ``mock_agent.journal()`` what it was asked; nothing outlives the test."""
    agent = MockAgent(tmp_path / "mock-agent", monkeypatch=monkeypatch)
    agent.default_record = request.config.getoption("mock_agent_record_mode")
    agent.default_real = request.config.getoption("mock_agent_real")
    settings: Dict[str, Any] = {}
    if mock_agent_case is not None:
        settings["case"] = mock_agent_case
    agent.default_library = _library(request)
    agent.use(**settings)
    yield agent
