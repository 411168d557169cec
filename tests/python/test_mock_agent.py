"""The pytest plugin of mock-agent on the project's example consumers (tests/consumers/).

Run by tests/pytest.rs (the plugin from the source tree) and by
scripts/pip-install-check.sh (the plugin of `pip install .`), with `-p pytester`.
The tests of one agent's settings not reaching the next test run in file order.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mock_agent import MockAgentError, binary, cases, mock_agent_cases

ROOT = Path(__file__).resolve().parents[2]
CONSUMERS = ROOT / "tests" / "consumers"
# The careful consumers give up on an agent silent this long (the matrix's finite
# stall is 2 s).
IDLE = {"CONSUMER_IDLE_TIMEOUT": "3"}

# The agents of the tests that ran, in order: a later test checks it is not an
# earlier one's.
SEEN = []


def consumer(agent, script, *args, **env):
    """Runs an example consumer with the agent's environment (and `env`)."""
    return agent.run(
        [sys.executable, str(CONSUMERS / script), *args],
        env={**agent.env, **IDLE, **env},
    )


def test_a_fault_fails_this_tests_agent(mock_agent):
    mock_agent.use(faults="connection-lost")
    mock_agent.patch_environ()
    SEEN.append(mock_agent)
    done = consumer(mock_agent, "careful.py", "fix the bug")
    assert done.returncode == 1, done
    assert b"consumer: agent failed" in done.stderr
    # In the test's own process too: os.environ is this test's agent's.
    direct = subprocess.run(["cursor-agent", "-p", "hi"], capture_output=True, check=False)
    assert direct.returncode == 1
    (first, second) = mock_agent.journal()
    assert first["prompt"] == "fix the bug"
    # The preset, as the faults it is made of, each of which acted.
    assert first["faults"] and all(fault["fired"] for fault in first["faults"])
    assert second["argv"] == ["-p", "hi"]
    assert second["exit"] == {"code": 1}


def test_a_case_is_judged_in_a_patched_environ_without_naming_the_mock(mock_agent, monkeypatch):
    # patch_environ() takes MOCK_AGENT_BIN out of os.environ with the agent's settings;
    # with no mock-agent on PATH either, the case still finds the binary to judge with.
    (case,) = cases(dialect="claude", filter="default/clean")
    mock_agent.use(case=case)
    mock_agent.patch_environ()
    assert "MOCK_AGENT_BIN" not in os.environ
    monkeypatch.setenv("PATH", str(mock_agent.bin_dir) + os.pathsep + os.defpath)
    assert binary() == mock_agent.binary
    assert case.broken(0, b"", b"") == ["reports-success"]


def test_the_next_test_gets_a_clean_agent(mock_agent):
    # The test before ran first, with its fault, and patched os.environ.
    assert [a.directory for a in SEEN] and SEEN[0] is not mock_agent
    assert "MOCK_AGENT_FAULTS" not in os.environ and "MOCK_AGENT_JOURNAL" not in os.environ
    assert str(SEEN[0].bin_dir) not in os.environ["PATH"]
    assert str(SEEN[0].bin_dir) not in mock_agent.env["PATH"]
    assert "MOCK_AGENT_FAULTS" not in mock_agent.env
    done = consumer(mock_agent, "careful.py", "fix the bug")
    assert done.returncode == 0, done
    (entry,) = mock_agent.journal()
    assert entry["faults"] == [] and entry["exit"] == {"code": 0}
    assert entry["source"] == "default"
    assert entry["argv"][:3] == ["-p", "--output-format", "stream-json"]


def test_use_replaces_what_the_agent_does(mock_agent):
    cassette = ROOT / "cassettes" / "shell-command.cassette"
    mock_agent.use(cassette=cassette, timing="fixed=1", seed=7)
    assert mock_agent.settings["MOCK_AGENT_TIMING"] == "fixed=1"
    assert mock_agent.settings["MOCK_AGENT_SEED"] == "7"
    done = consumer(mock_agent, "careful.py")
    assert done.returncode == 0, done
    assert mock_agent.journal()[-1]["source"] == str(cassette)
    # A later use() starts from the defaults: no cassette, no timing.
    mock_agent.use(faults=["exit:code=1"])
    assert "MOCK_AGENT_CASSETTE" not in mock_agent.env
    assert "MOCK_AGENT_TIMING" not in mock_agent.env
    assert consumer(mock_agent, "careful.py").returncode == 1
    assert mock_agent.journal()[-1]["source"] == "default"
    with pytest.raises(MockAgentError, match="no such file"):
        mock_agent.use(cassette=ROOT / "cassettes" / "nope.cassette")


def test_the_listed_cases_are_the_matrix_of_mock_agent_test():
    found = cases()
    assert len(found) == 40
    assert len({case.name for case in found}) == 40
    (eof,) = [case for case in found if case.name == "default/eof@mid-line"]
    assert eof.env == {"MOCK_AGENT_FAULTS": "eof:after=3,byte=10"}
    assert not eof.succeeds and eof.answer is None
    (clean,) = [case for case in found if case.name == "default/clean"]
    assert clean.succeeds and clean.answer and clean.segments
    assert len(cases(acp=True, filter="crash")) == 3
    shell = ROOT / "cassettes" / "shell-command.cassette"
    (given,) = cases(faults=["quota"], default=False, cassettes=[shell])
    assert given.name == "shell-command/given" and not given.succeeds
    assert given.env == {"MOCK_AGENT_CASSETTE": str(shell), "MOCK_AGENT_FAULTS": "quota"}
    with pytest.raises(MockAgentError, match="--fault"):
        cases(faults=["no-such-fault"])


# The careful consumer copes with every case of the matrix: a test per case.
@pytest.mark.parametrize("case", mock_agent_cases())
def test_careful_copes_with(mock_agent, case):
    mock_agent.use(case=case)
    done = consumer(mock_agent, "careful.py")
    # Judged by `mock-agent judge`, with the agent's journal: every property but
    # `no-leftover` (which only `mock-agent test` sees) is judged, and held.
    verdict = mock_agent.judge(done)
    assert verdict["broken"] == [], (verdict, done)
    assert [p["name"] for p in verdict["unjudged"]] == ["no-leftover"], verdict
    # Where the agent succeeds, it read the agent's stdout to the end (the journal says).
    assert ("reads-to-end" in verdict["held"]) == case.succeeds, verdict


# A consumer that ignores the agent's exit code is caught on each case where the
# agent fails, and only there (the marker form: the case comes with the fixture).
@pytest.mark.mock_agent_cases(filter="eof@")
def test_ignores_exit_is_caught_where_the_agent_fails(mock_agent, mock_agent_case):
    assert mock_agent.case is mock_agent_case
    done = consumer(mock_agent, "ignores_exit.py")
    expected = [] if mock_agent_case.succeeds else ["reports-failure"]
    assert mock_agent_case.broken(done.returncode, done.stdout, done.stderr) == expected
    assert mock_agent.broken(done) == expected


# A consumer that prints the agent's raw `result` line as the answer: the answer's
# words are in its stdout and it exits 0, so a check for the answer in stdout passes
# it; `mock-agent judge` reads stdout as its user does (the agent's JSON events left
# out), as `mock-agent test` does, and catches it.
@pytest.mark.mock_agent_cases(filter="default/clean")
def test_a_raw_json_line_printed_as_the_answer_is_caught(mock_agent):
    case = mock_agent.case
    done = consumer(mock_agent, "raw_line_as_answer.py")
    assert done.returncode == 0 and case.answer.encode() in done.stdout, done
    assert mock_agent.broken(done) == ["reports-success"]
    verdict = case.judge(done.returncode, done.stdout, done.stderr)
    assert verdict["case"] == "default/clean"
    assert verdict["seen"] == "exit code 0"
    assert verdict["expected"] == f"success: {json.dumps(case.answer)}"
    assert verdict["shown"].strip() == "", verdict
    (broken,) = verdict["broken"]
    assert broken["name"] == "reports-success"
    assert broken["detail"].startswith(
        "the agent succeeded, but the consumer's stdout holds its answer only inside the agent's own JSON it passed on"
    ), broken
    # Without the journal, what it tells is not judged, and said so.
    assert {p["name"] for p in verdict["unjudged"]} == {"no-leftover", "reads-to-end"}


def test_judging_needs_a_case_and_says_what_is_wrong(mock_agent):
    with pytest.raises(MockAgentError, match="needs the case"):
        mock_agent.judge(consumer(mock_agent, "careful.py"))
    (case,) = cases(filter="default/signal-kill@mid-stream")
    # A consumer killed by a signal (subprocess's negative returncode).
    assert case.broken(-9, b"", b"") == ["no-crash"]
    assert "ends" in case.judge(None, timed_out=3)["broken"][0]["name"]
    with pytest.raises(MockAgentError, match="timed_out"):
        case.judge(None)


@pytest.mark.mock_agent_cases(acp=True, filter="crash")
def test_the_careful_acp_client_copes_with(mock_agent):
    done = consumer(mock_agent, "acp_careful.py")
    assert mock_agent.broken(done) == [], done


def plugin_name(config):
    """The name the plugin is loaded under: `mock_agent` (entry point) or the module."""
    import mock_agent.pytest_plugin as plugin

    return config.pluginmanager.get_name(plugin)


def test_record_modes_are_pytest_options(pytester, pytestconfig):
    # The "real" CLI: the mock itself, which gets no MOCK_AGENT_* setting from the shim
    # and so plays its default session.
    real = binary()
    pytester.makepyfile(
        test_inner="""
        import pytest

        @pytest.mark.mock_agent_library
        def test_asks(mock_agent):
            mock_agent.use(timing="instant")  # the marker's library stays
            done = mock_agent.run(["cursor-agent", "-p", "--output-format", "json", "fix the bug"])
            print("STDERR", done.stderr.decode())
            assert done.returncode == 0
            (entry,) = mock_agent.journal()
            print("SOURCE", entry["source"], "RECORD", mock_agent.record)
        """
    )
    run = lambda *args: pytester.runpytest_subprocess(  # noqa: E731
        "-p", plugin_name(pytestconfig), "-s", *args
    )
    # none (the default): the library has nothing, so the agent fails.
    missed = run()
    missed.assert_outcomes(failed=1)
    missed.stdout.fnmatch_lines(["*STDERR mock-agent: no cassette in */agent-cassettes/test_inner/test_asks *"])
    # once: records the run with the real CLI ...
    recorded = run("--record-mode=once", f"--mock-agent-real={real}")
    recorded.assert_outcomes(passed=1)
    library = pytester.path / "agent-cassettes" / "test_inner" / "test_asks"
    recorded.stdout.fnmatch_lines([f"SOURCE {library}/*.cassette RECORD once"])
    assert len(list(library.glob("*.cassette"))) == 1
    # ... and from then on replays it, without the real CLI.
    replayed = run("--record-mode=none", "--mock-agent-real=/bin/false")
    replayed.assert_outcomes(passed=1)
    replayed.stdout.fnmatch_lines([f"SOURCE {library}/*.cassette RECORD none"])


def test_the_agent_answers_to_every_dialect_the_binary_lists(mock_agent):
    from mock_agent import dialects

    listed = dialects()
    names = [d.name for d in listed]
    assert names[:3] == ["cursor-print", "cursor-acp", "claude"], names
    for dialect in listed:
        for program in dialect.programs:
            path = Path(mock_agent.bin(program))
            assert path.parent == mock_agent.bin_dir and os.path.realpath(path) == os.path.realpath(binary())
    # The mock answers as `claude` on the test's PATH: a Claude Code run.
    done = mock_agent.run(["claude", "-p", "hi", "--output-format", "json"], env=mock_agent.env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["type"] == "result"
    with pytest.raises(MockAgentError, match="no executable `gemini-pro`"):
        mock_agent.bin("gemini-pro")


def test_cases_of_another_dialect_are_listed_by_name():
    claude = cases(dialect="claude", filter="clean")
    assert [c.name for c in claude] == ["default/clean"]
    assert claude[0].dialect == "claude" and claude[0].succeeds


def test_a_case_of_a_huge_line_is_judged():
    # Its answer is a megabyte: too long for a command line (E2BIG) as --case-json.
    (case,) = cases(acp=True, filter="default/huge-1m")
    assert len(case.record()) > 1 << 20
    assert case.broken(0, b"", b"") == ["reports-success"]


def test_use_names_the_dialect_and_the_agent_is_judged_without_a_case(mock_agent):
    mock_agent.use(dialect="claude", faults="not-logged-in")
    assert mock_agent.case.name == "default/given" and mock_agent.case.dialect == "claude"
    assert not mock_agent.case.succeeds
    # The program here is `claude -p` itself: it fails, as a correct program reports.
    done = mock_agent.run(["claude", "-p", "hi", "--output-format", "json"])
    assert done.returncode == 1, done.stderr
    assert mock_agent.broken(done) == []
    mock_agent.use(dialect="codex", generate=3)
    assert mock_agent.case.name == "generated-3/given" and mock_agent.case.succeeds
    with pytest.raises(MockAgentError, match="the dialects are cursor-print, cursor-acp"):
        mock_agent.use(dialect="claud")
    with pytest.raises(MockAgentError, match="no-such-fault"):
        mock_agent.use(dialect="codex", faults="no-such-fault")


def stand_in_reals(directory):
    """A folder of "real" CLIs that are the mock itself under each program's name: run
    by `mock-agent record` with none of the agent's settings, each plays its dialect's
    default session."""
    directory.mkdir()
    for program in ("claude", "codex", "gemini"):
        (directory / program).symlink_to(binary())
    return directory


def test_one_cassette_of_any_dialect_is_recorded_once_then_replayed(mock_agent, tmp_path):
    reals = stand_in_reals(tmp_path / "real")
    cassette = tmp_path / "cassettes" / "ask.cassette"
    # Not there yet: the run is recorded from the real CLI, so there is no case yet.
    mock_agent.use(dialect="claude", cassette=cassette, record="once", real=reals / "claude")
    assert mock_agent.record == "once" and mock_agent.case is None
    done = mock_agent.run(["claude", "-p", "hi", "--output-format", "stream-json", "--verbose"])
    assert done.returncode == 0, done.stderr
    recorded = json.loads(done.stdout.splitlines()[-1])
    assert recorded["type"] == "result"
    assert mock_agent.journal() == []  # the real CLI ran, not the mock
    header = json.loads(cassette.read_text(encoding="utf-8").splitlines()[0])
    assert header["invocation"]["dialect"] == "claude", header
    # There: replayed, with no real CLI to reach, and judged by the cassette's case.
    mock_agent.use(dialect="claude", cassette=cassette, record="once", real="/nonexistent/claude")
    assert mock_agent.case is not None and mock_agent.case.succeeds
    done = mock_agent.run(["claude", "-p", "hi", "--output-format", "stream-json", "--verbose"])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["result"] == recorded["result"]
    (entry,) = mock_agent.journal()
    assert entry["source"] == str(cassette)
    # The answer shown as a program shows it: the case is the cassette's.
    assert mock_agent.case.broken(0, recorded["result"] + "\n") == []
    # all: recorded again, from the real CLI.
    mock_agent.use(dialect="claude", cassette=cassette, record="all", real="/nonexistent/claude")
    done = mock_agent.run(["claude", "-p", "hi", "--output-format", "stream-json", "--verbose"])
    assert done.returncode == 66, done
    assert done.stderr.startswith(b"mock-agent: "), done.stderr
    assert b"/nonexistent/claude" in done.stderr
    assert cassette.is_file()  # a recording that failed leaves the cassette as it was
    # use() without record: the mock itself again.
    mock_agent.use()
    assert os.path.realpath(mock_agent.bin("claude")) == os.path.realpath(binary())


def test_a_library_keeps_each_run_of_each_cli_in_order(mock_agent, tmp_path):
    reals = stand_in_reals(tmp_path / "real")
    library = tmp_path / "library"
    reals_by_program = {p: reals / p for p in ("codex", "gemini")}
    mock_agent.use(library=library, record="once", real=reals_by_program)
    codex = ["codex", "exec", "--json", "fix the bug"]
    gemini = ["gemini", "-p", "hi", "--output-format", "json"]
    trusted = {**mock_agent.env, "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    for argv in (codex, codex, gemini):
        done = mock_agent.run(argv, env=trusted)
        assert done.returncode == 0, done.stderr
    assert sorted(p.relative_to(library).as_posix() for p in library.rglob("*.cassette")) == [
        "codex/1.cassette",
        "codex/2.cassette",
        "gemini/1.cassette",
    ]
    assert mock_agent.journal() == []
    # none: each run plays its cassette, in order; one more run is a miss.
    mock_agent.use(library=library, record="none")
    trusted = {**mock_agent.env, "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    for argv in (codex, gemini, codex):
        assert mock_agent.run(argv, env=trusted).returncode == 0
    sources = [entry["source"] for entry in mock_agent.journal()]
    assert sources == [str(library / "codex/1.cassette"), str(library / "gemini/1.cassette"), str(library / "codex/2.cassette")]
    missed = mock_agent.run(codex)
    assert missed.returncode == 66
    assert missed.stderr.decode().startswith(
        f"mock-agent: no cassette {library}/codex/3.cassette for run 3 of `codex` in this test (record mode none replays only)\nhelp: "
    )
    # once, in a library that has runs of codex: replayed, never recorded again.
    mock_agent.use(library=library, record="once", real={"codex": "/bin/false"})
    assert mock_agent.run(codex).returncode == 0
    assert mock_agent.run(codex).returncode == 0
    assert mock_agent.run(codex).returncode == 66
    # new_episodes: what the library lacks is recorded.
    mock_agent.use(library=library, record="new_episodes", real=reals_by_program)
    for _ in range(3):
        assert mock_agent.run(codex).returncode == 0
    assert (library / "codex" / "3.cassette").is_file()


def test_the_real_cli_is_found_by_its_variable_or_on_path(tmp_path):
    from mock_agent import MockAgent

    reals = stand_in_reals(tmp_path / "real")
    cassette = tmp_path / "c.cassette"
    lonely = MockAgent(tmp_path / "a", base_env={"PATH": "/usr/bin:/bin"})
    lonely.use(dialect="gemini", cassette=cassette, record="once")
    done = lonely.run(["gemini", "-p", "hi"])
    assert done.returncode == 64
    assert done.stderr.decode().splitlines()[1].startswith(
        "help: put the real gemini on the PATH the test starts with, set MOCK_AGENT_REAL_GEMINI=PATH"
    )
    named = MockAgent(tmp_path / "b", base_env={"PATH": "/usr/bin:/bin", "MOCK_AGENT_REAL_GEMINI": str(reals / "gemini")})
    named.use(dialect="gemini", cassette=cassette, record="once")
    done = named.run(["gemini", "-p", "hi"], env={**named.env, "GEMINI_CLI_TRUST_WORKSPACE": "true"})
    assert done.returncode == 0, done.stderr
    assert cassette.is_file()
    on_path = MockAgent(tmp_path / "c", base_env={"PATH": f"{reals}:/usr/bin:/bin"})
    on_path.use(dialect="codex", cassette=tmp_path / "d.cassette", record="once")
    assert on_path.run(["codex", "exec", "hi"]).returncode == 0
    assert (tmp_path / "d.cassette").is_file()
    with pytest.raises(MockAgentError, match="needs a cassette or a library"):
        on_path.use(dialect="codex", record="once")


def stand_in_mock(path, script):
    """A `mock-agent` at `path` that is the binary under test but for `record --script`,
    which runs the shell lines `script`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "#!/bin/sh\n"
        f'if [ "$1 $2" = "record --script" ]; then\n{script}\nfi\n'
        f'exec "{binary()}" "$@"\n'
    )
    path.chmod(0o755)
    return str(path)


def test_the_record_script_is_the_binarys(tmp_path):
    """The script that records or replays a program's runs is what the binary gives
    (`mock-agent record --script`), asked once per binary; a binary that gives none
    (one older than the package) is a clear error."""
    from mock_agent import MockAgent

    mock = stand_in_mock(tmp_path / "new" / "mock-agent", "echo 'echo FROM THE BINARY'; exit 0")
    agent = MockAgent(tmp_path / "a", mock=mock)
    agent.use(dialect="claude", cassette=tmp_path / "c.cassette", record="all", real="/bin/false")
    assert (agent.bin_dir / "claude").read_text().endswith("\necho FROM THE BINARY\n")
    assert agent.run(["claude", "-p", "hi"]).stdout == b"FROM THE BINARY\n"
    # The binary's own: the script records with it.
    ours = MockAgent(tmp_path / "b")
    ours.use(dialect="claude", cassette=tmp_path / "c.cassette", record="all", real="/bin/false")
    assert "exec \"$mock\" record --no-progress" in (ours.bin_dir / "claude").read_text()
    old = stand_in_mock(
        tmp_path / "old" / "mock-agent",
        "echo \"error: unexpected argument '--script' found\" >&2; exit 64",
    )
    with pytest.raises(MockAgentError, match=r"(?s)^mock-agent: .*/old/mock-agent gives no script .*`mock-agent record --script`: error: unexpected argument '--script' found\)\nhelp: "):
        MockAgent(tmp_path / "c", mock=old).use(dialect="claude", cassette=tmp_path / "c.cassette", record="all")


def test_a_directory_of_cassettes_is_one_error(mock_agent):
    folder = ROOT / "cassettes" / "claude"
    count = len(list(folder.glob("*.cassette")))
    assert count > 1
    with pytest.raises(MockAgentError) as raised:
        mock_agent.use(dialect="claude", cassette=folder)
    message = str(raised.value)
    assert message.startswith(
        f"mock-agent: use(dialect='claude', cassette='{folder}'): a directory of {count} cassette(s), and the agent plays one\nhelp: "
    ), message
    assert "mock_agent_cases(dialect='claude', cassettes=[DIR])" in message


def test_the_record_modes_of_pytest_record_claude_too(pytester, pytestconfig, tmp_path):
    reals = stand_in_reals(tmp_path / "real")
    pytester.makepyfile(
        test_inner="""
        import pytest

        @pytest.mark.mock_agent_library
        def test_asks(mock_agent):
            done = mock_agent.run(["claude", "-p", "hi", "--output-format", "stream-json", "--verbose"])
            print("STDERR", done.stderr.decode())
            assert done.returncode == 0
            print("RUNS", len(mock_agent.journal()), "RECORD", mock_agent.record)
        """
    )
    run = lambda *args: pytester.runpytest_subprocess(  # noqa: E731
        "-p", plugin_name(pytestconfig), "-s", *args
    )
    library = pytester.path / "agent-cassettes" / "test_inner" / "test_asks"
    missed = run()
    missed.assert_outcomes(failed=1)
    missed.stdout.fnmatch_lines([f"*STDERR mock-agent: no cassette {library}/claude/1.cassette for run 1 of `claude`*"])
    # --mock-agent-real names claude by its file name.
    recorded = run("--record-mode=once", f"--mock-agent-real={reals / 'claude'}")
    recorded.assert_outcomes(passed=1)
    recorded.stdout.fnmatch_lines(["RUNS 0 RECORD once"])
    assert (library / "claude" / "1.cassette").is_file()
    replayed = run("--record-mode=none", "--mock-agent-real=/bin/false")
    replayed.assert_outcomes(passed=1)
    replayed.stdout.fnmatch_lines(["RUNS 1 RECORD none"])
