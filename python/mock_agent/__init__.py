"""mock-agent for Python tests: a stand-in for the ``cursor-agent`` CLI.

``pip install .`` in the mock-agent repository installs the ``mock-agent`` binary and
this package, whose pytest plugin (:mod:`mock_agent.pytest_plugin`) gives each test
its own agent (the ``mock_agent`` fixture). See README.md, "Python quick start".
"""

from __future__ import annotations

from typing import Any, List

from .agent import RECORD_MODES, Case, Dialect, MockAgent, MockAgentError, binary, cases, dialects

__all__ = [
    "Case",
    "Dialect",
    "MockAgent",
    "MockAgentError",
    "RECORD_MODES",
    "binary",
    "cases",
    "dialects",
    "mock_agent_cases",
]


def mock_agent_cases(**kwargs: Any) -> List[Any]:
    """The cases of the matrix (keywords of :func:`cases`) as ``pytest.param``\\ s
    named after the cases, for ``@pytest.mark.parametrize("case", ...)``."""
    from .pytest_plugin import mock_agent_cases as params

    return params(**kwargs)
