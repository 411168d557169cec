"""Recording and replaying any dialect's CLI for one test's agent.

The binary's own shim records the default dialect's CLI (``cursor-agent``: the
library's cassettes matched by arguments and prompt, ``MOCK_AGENT_RECORD``). Every other
program (``claude``, ``codex``, ``gemini``: whatever ``mock-agent dialects`` lists) is
recorded here: the agent's executable of that name becomes a small script
(the binary's ``mock-agent record --script``, as the npm package's) that replays a cassette with
``mock-agent WORD`` or runs ``mock-agent record -- REAL ARGS``, as the record mode says.

A library holds one folder per program, ``LIBRARY/claude/1.cassette``,
``2.cassette``...: the test's N-th run of ``claude`` is the N-th cassette (the prompt
of an SDK's CLI comes on stdin, so runs are matched by their order, not their
arguments).
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Mapping, Optional, Union

#: What each record mode does with a run, for a library (``once``: ``record`` when the
#: library has no cassette of the program yet, else ``replay``) and for one cassette.
POLICY = {
    "none": "replay",
    "once": "missing",
    "new_episodes": "missing",
    "all": "record",
    "passthrough": "passthrough",
}

PathLike = Union[str, "os.PathLike[str]"]


def variable(program: str) -> str:
    """The variable that names the real CLI of ``program``: ``MOCK_AGENT_REAL_CLAUDE``,
    ``MOCK_AGENT_REAL_CURSOR_AGENT``."""
    return "MOCK_AGENT_REAL_" + "".join(c if c.isalnum() else "_" for c in program).upper()


def policy(mode: str, folder: Optional[Path]) -> str:
    """What a run does under ``mode``: ``replay``, ``record``, ``missing`` (record when
    the cassette is not there yet) or ``passthrough``. In a library, ``once`` records
    only into a folder with no cassette yet (as VCR's ``once``: a library that has
    cassettes is replayed, and a run it lacks is an error)."""
    if mode == "once" and folder is not None:
        return "replay" if any(folder.glob("*.cassette")) else "record"
    return POLICY[mode]


def find_real(
    program: str,
    *,
    given: Union[None, PathLike, Mapping[str, PathLike]],
    ours: bool,
    default: Optional[PathLike],
    named: Mapping[str, str],
    outer_path: str,
) -> Optional[str]:
    """The real CLI of ``program``: ``given`` (a path, when ``ours``: the program is the
    dialect's in use; or a mapping of programs to paths), else the ``MOCK_AGENT_REAL_*``
    variable of the test's environment (``named``), else ``default`` (pytest's
    ``--mock-agent-real``) when ``ours`` or when it is named as the program, else the
    program on the test's own ``PATH``."""
    if isinstance(given, Mapping):
        if program in given:
            return os.path.abspath(given[program])
    elif given is not None and ours:
        return os.path.abspath(given)
    if named.get(variable(program)):
        return os.path.abspath(named[variable(program)])
    if default is not None and (ours or Path(default).name == program):
        return os.path.abspath(default)
    return shutil.which(program, path=outer_path)


def write(
    bin_dir: Path,
    program: str,
    *,
    word: str,
    mock: str,
    real: Optional[str],
    mode: str,
    rule: str,
    body: str,
    cassette: Optional[Path] = None,
    folder: Optional[Path] = None,
) -> None:
    """Makes the agent's executable ``program`` the script that replays or records its
    runs (see the module's text), in place of the link to the mock: ``body``, as the
    binary gives it, under the lines that set its variables."""
    state = tempfile.mkdtemp(prefix=f"runs-{program}-", dir=bin_dir.parent)
    settings = {
        "program": program,
        "word": word,
        "mock": mock,
        "real": real or "",
        "policy": rule,
        "mode": mode,
        "cassette": str(cassette or ""),
        "folder": str(folder or ""),
        "state": state,
        "bindir": str(bin_dir),
        "variable": variable(program),
    }
    header = "".join(f"{name}={shlex.quote(value)}\n" for name, value in settings.items())
    path = bin_dir / program
    scratch = bin_dir / f".{program}.new"
    scratch.write_text(f"#!/bin/sh\n# mock-agent: {program}, recorded or replayed\n{header}{body}", encoding="utf-8")
    scratch.chmod(0o755)
    os.replace(scratch, path)


def link(bin_dir: Path, program: str, mock: str) -> None:
    """Makes the agent's executable ``program`` the mock itself again."""
    path = bin_dir / program
    if path.is_symlink():
        return
    if path.exists():
        path.unlink()
    os.symlink(mock, path)
