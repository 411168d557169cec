"""The mock agent of one test: its own ``cursor-agent`` and ``agent`` on a private
``PATH``, its settings (``MOCK_AGENT_*``) in an environment of its own, and its journal.

Nothing here changes ``os.environ`` unless asked (:meth:`MockAgent.patch_environ`, undone
at the end of the test by the pytest fixture), so one test's settings never reach the
next one.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from . import recording

__all__ = [
    "Case",
    "MockAgent",
    "MockAgentError",
    "RECORD_MODES",
    "binary",
    "cases",
]

#: The record modes of the shim (``MOCK_AGENT_RECORD``), as VCR names them.
RECORD_MODES = ("none", "once", "new_episodes", "all", "passthrough")

#: The variable that names the binary, as for the Rust harness (``harness::run::mock_binary``).
BIN_VARIABLE = "MOCK_AGENT_BIN"

PathLike = Union[str, "os.PathLike[str]"]


class MockAgentError(Exception):
    """The mock cannot be found, or a setting of it is wrong."""


# The binary of the agent whose environment is in ``os.environ`` now
# (:meth:`MockAgent.patch_environ`, which takes ``MOCK_AGENT_BIN`` out of it with every
# ``MOCK_AGENT_*`` setting): set and undone by pytest's monkeypatch with the rest.
_PATCHED_BINARY: Optional[str] = None


def binary() -> str:
    """The ``mock-agent`` binary: ``MOCK_AGENT_BIN``, else the one of the agent whose
    environment :meth:`MockAgent.patch_environ` put in ``os.environ``, else the one
    ``pip install`` put beside this interpreter, else ``mock-agent`` on ``PATH``."""
    named = os.environ.get(BIN_VARIABLE) or _PATCHED_BINARY
    if named:
        if not os.access(named, os.X_OK):
            raise MockAgentError(
                f"mock-agent: {BIN_VARIABLE}={named} is no executable file\n"
                "help: point it at a built binary (target/debug/mock-agent), or unset it"
            )
        return os.path.abspath(named)
    exe = "mock-agent.exe" if sys.platform == "win32" else "mock-agent"
    beside = Path(sysconfig.get_path("scripts")) / exe
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("mock-agent")
    if found:
        return os.path.abspath(found)
    raise MockAgentError(
        "mock-agent: cannot find the mock-agent binary\n"
        f"help: `pip install .` in the repository installs it; or set {BIN_VARIABLE}=PATH, "
        "or put it on PATH"
    )


@dataclasses.dataclass(frozen=True)
class Case:
    """One case of the matrix (``mock-agent cases --json``): what the agent plays, and
    what a correct consumer concludes from it."""

    #: The stable name, e.g. ``default/eof@mid-line``: the test id.
    name: str
    #: The dialect (:func:`dialects`): ``cursor-print`` (``cursor-agent -p``),
    #: ``cursor-acp`` (``cursor-agent acp``), ``claude``, ...
    dialect: str
    #: The output format the consumer is to use.
    format: str
    #: The faults, ``;``-separated as in ``MOCK_AGENT_FAULTS``; empty for none.
    faults: str
    #: The ``MOCK_AGENT_*`` settings that play the case.
    env: Mapping[str, str]
    #: What a correct consumer concludes: whether the agent succeeded.
    succeeds: bool
    #: ``result.result`` when the run succeeds.
    answer: Optional[str]
    #: The assistant's text segments in order, when the run succeeds.
    segments: Sequence[str]
    #: Whether either conclusion is right: a fault breaks what the consumer's SDK can
    #: read (a malformed or huge line, a missing field), so the SDK itself may raise or
    #: skip the line; a test must not hold the consumer to :attr:`succeeds` there.
    either: bool = False

    def record(self) -> str:
        """The case as the line ``mock-agent cases --json`` printed for it."""
        return json.dumps(
            {
                "name": self.name,
                "dialect": self.dialect,
                "format": self.format,
                "faults": self.faults,
                "env": dict(self.env),
                "succeeds": self.succeeds,
                "either": self.either,
                "answer": self.answer,
                "segments": list(self.segments),
            }
        )

    def judge(
        self,
        returncode: Optional[int],
        stdout: Union[str, bytes] = b"",
        stderr: Union[str, bytes] = b"",
        *,
        journal: Optional[PathLike] = None,
        timed_out: Optional[float] = None,
        mock: Optional[str] = None,
    ) -> Dict[str, Any]:
        """The verdict of ``mock-agent judge`` on a run of a consumer in this case: each
        property as ``mock-agent test`` judges it, by the same code. ``returncode`` as
        :mod:`subprocess` gives it (negative: killed by that signal), or ``None`` with
        ``timed_out`` (the seconds the consumer had before it was killed); its
        ``stdout`` and ``stderr``; ``journal``, the agent's journal of the run
        (``MockAgent.journal_path``), without which ``reads-to-end`` and
        ``answers-requests`` are not judged. ``no-leftover`` never is (only
        ``mock-agent test`` sees the processes a consumer leaves running).

        A dict: ``case``, ``expected`` (what a correct consumer concludes), ``seen``
        (how this one ended), ``shown`` (its stdout as its user reads it: the agent's
        own JSON events and noise lines left out), ``held`` (names), ``broken``
        (``name`` and ``detail``, why), ``unjudged`` (``name`` and ``why``)."""
        if timed_out is not None:
            end = ["--timed-out", str(float(timed_out))]
        elif returncode is None:
            raise MockAgentError("mock-agent: judge(returncode=None) needs timed_out=SECONDS")
        elif returncode < 0:
            end = ["--signal", str(-returncode)]
        else:
            end = ["--exit", str(returncode)]
        with tempfile.TemporaryDirectory(prefix="mock-agent-judge-") as scratch:
            # The case as a file: a case of a huge line is too long for a command line.
            case_file = Path(scratch) / "case.json"
            case_file.write_text(self.record(), encoding="utf-8")
            argv = [mock or binary(), "judge", "--case-file", str(case_file), *end, "--json"]
            for name, text in (("stdout", stdout), ("stderr", stderr)):
                path = Path(scratch) / name
                path.write_bytes(text.encode("utf-8") if isinstance(text, str) else bytes(text))
                argv += ["--" + name, str(path)]
            if journal is not None:
                argv += ["--journal", os.path.abspath(journal)]
            done = _own(argv)
        if done.returncode not in (0, 100):
            raise MockAgentError(done.stderr.decode("utf-8", "replace").rstrip() or f"{argv}: exit {done.returncode}")
        verdict: Dict[str, Any] = json.loads(done.stdout.decode("utf-8"))
        return verdict

    def broken(self, returncode: Optional[int], *output: Union[str, bytes], **run: Any) -> List[str]:
        """The names of the properties a consumer broke in this case (see :meth:`judge`,
        which also says why), as ``mock-agent test`` names them: ``[]`` when it held
        every one judged. Its arguments are :meth:`judge`'s: ``returncode``, then
        ``stdout`` and ``stderr``, and the keywords ``journal``, ``timed_out`` and
        ``mock``."""
        verdict = self.judge(returncode, *output, **run)
        return [entry["name"] for entry in verdict["broken"]]


@dataclasses.dataclass(frozen=True)
class Dialect:
    """A dialect the mock stands in for, as ``mock-agent dialects --json`` lists it."""

    #: What ``--dialect`` (and ``dialect=``) takes, e.g. ``claude``.
    name: str
    #: What it is, in a few words.
    title: str
    #: The executables it answers to (``claude``; ``cursor-agent`` and ``agent``).
    programs: Sequence[str]
    #: Whether the agent reads the client's messages.
    conversation: bool
    #: The word of ``mock-agent WORD ARGS`` that runs its CLI (``claude``, ``agent``).
    word: str = ""


_DIALECTS: Dict[str, List[Dialect]] = {}


def dialects(mock: Optional[str] = None) -> List[Dialect]:
    """The dialects the ``mock-agent`` binary stands in for (``mock-agent dialects
    --json``), asked once per binary."""
    path = mock or binary()
    if path not in _DIALECTS:
        done = _own([path, "dialects", "--json"])
        if done.returncode != 0:
            raise MockAgentError(
                done.stderr.decode("utf-8", "replace").rstrip()
                or f"{path} dialects --json: exit {done.returncode}"
            )
        known = {f.name for f in dataclasses.fields(Dialect)}
        _DIALECTS[path] = [
            Dialect(**{k: v for k, v in json.loads(line).items() if k in known})
            for line in done.stdout.decode("utf-8").splitlines()
        ]
    return _DIALECTS[path]


_SCRIPTS: Dict[str, str] = {}


def record_script(mock: Optional[str] = None) -> str:
    """The body of the script that records or replays a program's runs
    (:func:`recording.write`), as the ``mock-agent`` binary gives it (``mock-agent
    record --script``), asked once per binary."""
    path = mock or binary()
    if path not in _SCRIPTS:
        body, why = "", "it printed nothing"
        try:
            done = _own([path, "record", "--script"])
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            if done.returncode == 0:
                body = done.stdout.decode("utf-8")
            else:
                why = said[0] if said else f"exit {done.returncode}"
        except OSError as error:
            why = f"cannot run it: {error}"
        if not body.strip():
            raise MockAgentError(
                f"mock-agent: {path} gives no script to record or replay a program's runs "
                f"(`mock-agent record --script`: {why})\n"
                "help: this package needs a mock-agent binary of its own release: install it "
                f"again, or point {BIN_VARIABLE} at a newer one"
            )
        _SCRIPTS[path] = body
    return _SCRIPTS[path]


def _own(argv: List[str]) -> "subprocess.CompletedProcess[bytes]":
    """Runs one of the mock's own commands to its end, none of a test's settings in its
    environment, its output captured."""
    return subprocess.run(argv, env=_without_settings(), stdin=subprocess.DEVNULL, capture_output=True, check=False)


def _without_settings() -> Dict[str, str]:
    """This process's environment without ``MOCK_AGENT_*``: the mock's own commands
    get none of a test's settings."""
    return {k: v for k, v in os.environ.items() if not k.startswith("MOCK_AGENT_")}


def cases(
    *,
    cassettes: Iterable[PathLike] = (),
    acp: bool = False,
    dialect: Optional[str] = None,
    generated: int = 0,
    default: bool = True,
    formats: Iterable[str] = (),
    faults: Iterable[str] = (),
    filter: Union[None, str, Iterable[str]] = None,  # noqa: A002 - the flag's name
    mock: Optional[str] = None,
) -> List[Case]:
    """The cases of the matrix, as ``mock-agent test`` runs them (``mock-agent cases``):
    every source (the default session unless ``default=False``, each cassette of
    ``cassettes``, files or directories, generated sessions ``0..generated``) with each
    fault of the matrix, or with ``faults`` only; ``filter`` keeps the cases whose name
    contains it (several: the cases any of them keeps). ``dialect`` names the dialect of
    the matrix (see :func:`dialects`; ``acp=True`` is short for ``dialect="cursor-acp"``)."""
    argv = [mock or binary(), "cases", "--json"]
    for path in cassettes:
        argv += ["--cassettes", os.path.abspath(path)]
    if acp:
        argv.append("--acp")
    if dialect is not None:
        argv += ["--dialect", dialect]
    if generated:
        argv += ["--generated", str(int(generated))]
    if not default:
        argv.append("--no-default")
    for fmt in formats:
        argv += ["--format", fmt]
    for spec in faults:
        argv += ["--fault", spec]
    for text in [filter] if isinstance(filter, str) else filter or ():
        argv += ["--filter", text]
    done = _own(argv)
    if done.returncode != 0:
        raise MockAgentError(done.stderr.decode("utf-8", "replace").rstrip() or f"{argv}: exit {done.returncode}")
    found = []
    for line in done.stdout.decode("utf-8").splitlines():
        fields = json.loads(line)
        known = {f.name for f in dataclasses.fields(Case)}
        found.append(Case(**{k: v for k, v in fields.items() if k in known}))
    return found


class MockAgent:
    """The agent of one test. ``env`` is the environment to run the program under test
    with: ``PATH`` starts with a directory of its own where the mock answers to every
    executable of every dialect it stands in for (``cursor-agent``, ``agent``,
    ``claude``, ...: :func:`dialects`), and the ``MOCK_AGENT_*`` settings are this
    test's alone. :meth:`bin` gives one's path, for a program that takes it (an SDK's
    ``cli_path``)."""

    def __init__(
        self,
        directory: PathLike,
        mock: Optional[str] = None,
        base_env: Optional[Mapping[str, str]] = None,
        monkeypatch: Any = None,
    ):
        self.directory = Path(directory)
        self.binary = mock or binary()
        self.bin_dir = self.directory / "bin"
        self.bin_dir.mkdir(parents=True, exist_ok=True)
        #: The dialects the mock stands in for.
        self.dialects = dialects(self.binary)
        for name in sorted({p for d in self.dialects for p in d.programs}):
            link = self.bin_dir / name
            if not link.exists():
                os.symlink(self.binary, link)
        #: The journal: one JSON line per invocation of the agent.
        self.journal_path = self.directory / "journal.jsonl"
        base = dict(os.environ if base_env is None else base_env)
        self._outside = {k: v for k, v in base.items() if not k.startswith("MOCK_AGENT_")}
        # The real CLIs named by the test's environment (MOCK_AGENT_REAL_CLAUDE=PATH).
        self._named_reals = {k: v for k, v in base.items() if k.startswith("MOCK_AGENT_REAL_")}
        #: The ``PATH`` the test started with, without the mock's directory.
        self.outer_path = self._outside.get("PATH", os.defpath)
        #: The case in use (:meth:`use` with ``case=``), if any.
        self.case: Optional[Case] = None
        #: The record mode in use, if any, and its library or its one cassette.
        self.record: Optional[str] = None
        self.library: Optional[Path] = None
        self.cassette: Optional[Path] = None
        #: The record mode of :meth:`use` with a library and no ``record`` (pytest's
        #: ``--record-mode``; else ``none``), and the real CLI it runs.
        self.default_record: Optional[str] = None
        self.default_real: Optional[PathLike] = None
        #: The library of :meth:`use` with no ``library`` (the ``mock_agent_library``
        #: marker's), if any.
        self.default_library: Optional[PathLike] = None
        #: The environment to run the program under test with.
        self.env: Dict[str, str] = {}
        self._settings: Dict[str, str] = {}
        self._monkeypatch = monkeypatch
        self._patched = False
        self.use()

    def use(
        self,
        *,
        case: Optional[Case] = None,
        cassette: Optional[PathLike] = None,
        faults: Union[None, str, Iterable[str]] = None,
        timing: Optional[str] = None,
        generate: Optional[int] = None,
        seed: Optional[int] = None,
        library: Optional[PathLike] = None,
        record: Optional[str] = None,
        real: Union[None, PathLike, Mapping[str, PathLike]] = None,
        dialect: Optional[str] = None,
        **settings: Any,
    ) -> "MockAgent":
        """Says what this test's agent does from now on; what is not named is the
        default (the built-in default session, no fault, ``instant``).

        ``case``: a case of :func:`cases` (its cassette or generated session and its
        faults; ``faults`` given too are added). ``cassette``: a cassette or capture to
        replay. ``faults``: a fault spec, or several (``mock-agent faults`` lists them).
        ``timing``: ``MOCK_AGENT_TIMING``. ``generate``: the seed of a generated session.
        ``seed``: ``MOCK_AGENT_SEED``. Other keywords are further variables:
        ``account="..."`` is ``MOCK_AGENT_ACCOUNT``.

        Recording (any dialect): ``cassette`` with ``record`` (a mode of
        :data:`RECORD_MODES`) records the dialect's run into the cassette from the real
        CLI, or replays it: ``once`` and ``new_episodes`` record when the file is not
        there yet and replay it from then on, ``all`` records every run, ``none`` replays
        only, ``passthrough`` runs the real CLI and keeps nothing. ``library``: a
        directory of cassettes every CLI replays from and records into as ``record``
        says (default: pytest's ``--record-mode``, else ``none``); default: the
        ``mock_agent_library`` marker's, else none. Cursor's runs are matched by their
        arguments and prompt (the binary's shim); each other program's runs are kept in
        order, ``LIBRARY/claude/1.cassette``, ``2.cassette``..., and under ``once`` a
        folder that has cassettes is replayed only. ``real``: the real CLI the record
        modes run: a path, the dialect's; or a mapping of programs to paths; default:
        ``MOCK_AGENT_REAL_<PROGRAM>`` of the test's environment
        (``MOCK_AGENT_REAL_CLAUDE``), else ``--mock-agent-real`` for the dialect in use
        (or the program it is named as), else the program on the test's own ``PATH``.
        A run being recorded has no case (:attr:`case` is ``None``) until it is replayed
        from its cassette; nor has a program's run from a library (which cassette it
        plays is known only as it runs): judge it by ``cases(cassettes=[FILE])``.

        ``dialect``: the dialect the program drives (a name of :func:`dialects`, e.g.
        ``claude``); without ``case``, the case of that dialect this agent plays (its
        source and faults, as ``mock-agent cases --fault`` makes it) is then
        :attr:`case`, so :meth:`judge` knows what a correct program concludes. A name
        no dialect has, or faults that are none of the dialect's, are an error."""
        env: Dict[str, str] = {}
        fault_list: List[str] = []
        if case is not None:
            env.update(case.env)
            if case.faults:
                fault_list.append(case.faults)
        chosen = self._dialect(dialect if dialect is not None else case.dialect if case is not None else None)
        mode = self._mode(record) if record is not None else None
        rule = recording.policy(mode, None) if mode is not None and library is None else None
        if cassette is not None and rule in (None, "replay"):
            if not Path(cassette).exists():
                raise MockAgentError(
                    f"mock-agent: use(cassette={str(cassette)!r}): no such file\n"
                    "help: give the path of a .cassette or .ndjson file, absolute or from the current directory"
                    + ("" if mode is None else f"; or record it: use(cassette=..., record='once')")
                )
        if cassette is not None and rule is None:
            env["MOCK_AGENT_CASSETTE"] = os.path.abspath(cassette)
        if isinstance(faults, str):
            fault_list.append(faults)
        elif faults is not None:
            fault_list.extend(faults)
        fault_list = [f for f in fault_list if f.strip()]
        if fault_list:
            env["MOCK_AGENT_FAULTS"] = ";".join(fault_list)
        if timing is not None:
            env["MOCK_AGENT_TIMING"] = timing
        if generate is not None:
            env["MOCK_AGENT_GENERATE"] = str(int(generate))
        if seed is not None:
            env["MOCK_AGENT_SEED"] = str(int(seed))
        self.record, self.library, self.cassette = None, None, None
        for program in self._programs():
            recording.link(self.bin_dir, program, self.binary)
        # Whether the runs of the dialect in use are recorded or replayed by the script
        # of recording.py, so that the case they play is not known here.
        scripted = False
        if library is None:
            library = self.default_library
        if library is not None:
            mode = mode or self._mode(self.default_record or "none")
            self.record, self.library = mode, Path(library).absolute()
            # The default dialect's CLI: the binary's own shim.
            shim = self.dialects[0]
            env["MOCK_AGENT_RECORD"] = mode
            env["MOCK_AGENT_LIBRARY"] = str(self.library)
            real_cli = self._real(shim.programs[0], real, ours=chosen.programs == shim.programs)
            if real_cli is not None:
                env["MOCK_AGENT_REAL"] = real_cli
            # Every other CLI: a folder of the library each.
            for other in self.dialects:
                for program in other.programs:
                    if program in shim.programs or (self.bin_dir / program).is_file() and not (self.bin_dir / program).is_symlink():
                        continue
                    folder = self.library / program
                    recording.write(
                        self.bin_dir,
                        program,
                        word=other.word,
                        mock=self.binary,
                        body=record_script(self.binary),
                        real=self._real(program, real, ours=program in chosen.programs),
                        mode=mode,
                        rule=recording.policy(mode, folder),
                        folder=folder,
                    )
            scripted = not set(chosen.programs) & set(shim.programs)
        elif mode is not None:
            if cassette is None or rule is None:
                raise MockAgentError(
                    "mock-agent: use(record=...) needs a cassette or a library of cassettes\n"
                    "help: use(dialect=..., cassette=FILE, record='once') records the run into FILE "
                    "the first time and replays it from then on; use(library=DIR, record=...) keeps every run"
                )
            self.record, self.cassette = mode, Path(cassette).absolute()
            for program in chosen.programs:
                recording.write(
                    self.bin_dir,
                    program,
                    word=chosen.word,
                    mock=self.binary,
                    body=record_script(self.binary),
                    real=self._real(program, real, ours=True),
                    mode=mode,
                    rule=rule,
                    cassette=self.cassette,
                )
            scripted = not (rule == "replay" or rule == "missing" and self.cassette.exists())
        for key, value in settings.items():
            name = key if key.startswith("MOCK_AGENT_") else "MOCK_AGENT_" + re.sub(r"\W", "_", key).upper()
            env[name] = str(value)
        env["MOCK_AGENT_JOURNAL"] = str(self.journal_path)
        if dialect is not None and case is None and not scripted:
            case = self._case_of(dialect, cassette, generate, ";".join(fault_list))
        self.case = case
        self._settings = env
        self.env = dict(self._outside)
        self.env.update(env)
        self.env["PATH"] = str(self.bin_dir) + os.pathsep + self.outer_path
        if self._patched:
            self._set_environ()
        return self

    def _dialect(self, name: Optional[str]) -> Dialect:
        """The dialect named so (default: the binary's default dialect)."""
        if name is None:
            return self.dialects[0]
        for known in self.dialects:
            if known.name == name:
                return known
        names = ", ".join(d.name for d in self.dialects)
        raise MockAgentError(f"mock-agent: use(dialect={name!r}): no such dialect\nhelp: the dialects are {names}")

    @staticmethod
    def _mode(mode: str) -> str:
        if mode not in RECORD_MODES:
            raise MockAgentError(
                f"mock-agent: record mode {mode!r} is none of {', '.join(RECORD_MODES)}\n"
                "help: `none` replays only; `once` records what the library lacks"
            )
        return mode

    def _programs(self) -> List[str]:
        return sorted({p for d in self.dialects for p in d.programs})

    def _real(self, program: str, given: Any, *, ours: bool) -> Optional[str]:
        """The real CLI of ``program`` (:func:`recording.find_real`)."""
        return recording.find_real(
            program,
            given=given,
            ours=ours,
            default=self.default_real,
            named=self._named_reals,
            outer_path=self.outer_path,
        )

    def _case_of(self, dialect: str, cassette: Optional[PathLike], generate: Optional[int], faults: str) -> Case:
        """The case of ``dialect`` with this source and these faults."""
        names = [d.name for d in self.dialects]
        if dialect not in names:
            raise MockAgentError(
                f"mock-agent: use(dialect={dialect!r}): no such dialect\nhelp: the dialects are {', '.join(names)}"
            )
        if cassette is not None:
            source: Dict[str, Any] = {"cassettes": [cassette], "default": False}
        elif generate is not None:
            source = {"generated": int(generate) + 1, "default": False, "filter": f"generated-{int(generate)}/"}
        else:
            source = {}
        found = cases(dialect=dialect, faults=[faults], mock=self.binary, **source)
        if len(found) == 1:
            return found[0]
        if cassette is not None and Path(cassette).is_dir():
            raise MockAgentError(
                f"mock-agent: use(dialect={dialect!r}, cassette={str(cassette)!r}): a directory of "
                f"{len(found)} cassette(s), and the agent plays one\n"
                "help: give one file of it (use(cassette=DIR/NAME.cassette)); to run the program on "
                f"each, take the cases of the directory: mock_agent_cases(dialect={dialect!r}, "
                "cassettes=[DIR]), or use(case=...) with each of cases(...)"
            )
        raise MockAgentError(
            f"mock-agent: use(dialect={dialect!r}): {len(found)} cases of `mock-agent cases` where one was "
            f"expected (source {source or 'default'}, faults {faults!r})\n"
            "help: give use() one cassette or one generated seed; this is a bug in mock-agent if you did"
        )

    @property
    def settings(self) -> Dict[str, str]:
        """This test's ``MOCK_AGENT_*`` settings."""
        return dict(self._settings)

    def bin(self, program: str) -> str:
        """The path of the mock as ``program`` (``claude``, ``cursor-agent``), for a
        program that is given its agent's path rather than finding it on ``PATH``
        (``ClaudeAgentOptions(cli_path=mock_agent.bin("claude"))``); while its runs are
        recorded or replayed (:meth:`use` with ``record``), the script that does so."""
        link = self.bin_dir / program
        if program not in self._programs() or not link.exists():
            names = ", ".join(self._programs())
            raise MockAgentError(f"mock-agent: no executable `{program}`; the mock answers to {names}")
        return str(link)

    def find_real(self) -> Optional[str]:
        """The real ``cursor-agent`` on the test's own ``PATH``, if there is one."""
        return shutil.which("cursor-agent", path=self.outer_path)

    def journal(self) -> List[Dict[str, Any]]:
        """Each invocation of the agent so far, parsed (README, "The journal")."""
        try:
            text = self.journal_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def run(self, args: Sequence[str], **kwargs: Any) -> "subprocess.CompletedProcess[bytes]":
        """``subprocess.run`` of the program under test with :attr:`env`; stdout and
        stderr captured, no stdin, a 60-second timeout, unless said otherwise."""
        kwargs.setdefault("env", self.env)
        kwargs.setdefault("capture_output", True)
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        kwargs.setdefault("timeout", 60)
        return subprocess.run(list(args), check=False, **kwargs)

    def judge(self, done: "subprocess.CompletedProcess[bytes]") -> Dict[str, Any]:
        """:meth:`Case.judge` of a run of the program under test (``done``, as
        :meth:`run` returns it) in this test's case (:meth:`use` with ``case=``), with
        this agent's journal (every run of the agent in this test so far)."""
        if self.case is None:
            raise MockAgentError(
                "mock-agent: judge() needs the case the agent plays\n"
                "help: use(case=...) first (the mock_agent_cases marker does), or call case.judge(...); "
                "a run the real CLI makes while it is recorded has no case until it is replayed"
            )
        return self.case.judge(
            done.returncode,
            done.stdout or b"",
            done.stderr or b"",
            journal=self.journal_path,
            mock=self.binary,
        )

    def broken(self, done: "subprocess.CompletedProcess[bytes]") -> List[str]:
        """The names of the properties the run ``done`` broke (see :meth:`judge`)."""
        return [entry["name"] for entry in self.judge(done)["broken"]]

    def patch_environ(self) -> None:
        """Keeps ``os.environ`` equal to :attr:`env` until the end of the test (through
        pytest's ``monkeypatch``, which restores it), later :meth:`use` calls too: for a
        program under test that runs in the test's own process and spawns
        ``cursor-agent`` with the environment it inherits."""
        if self._monkeypatch is None:
            raise MockAgentError(
                "mock-agent: patch_environ() needs pytest's monkeypatch, to undo it\n"
                "help: use the `mock_agent` fixture, or pass env=agent.env to the program"
            )
        self._patched = True
        # Without MOCK_AGENT_BIN in os.environ, what finds the binary (Case.judge,
        # Case.broken, cases()) finds this agent's.
        self._monkeypatch.setattr(sys.modules[__name__], "_PATCHED_BINARY", self.binary)
        self._set_environ()

    def _set_environ(self) -> None:
        for name in list(os.environ):
            if name not in self.env:
                self._monkeypatch.delenv(name)
        for name, value in self.env.items():
            self._monkeypatch.setenv(name, value)
