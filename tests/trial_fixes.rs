//! What the trial of public programs found wrong in the runner, through `mock-agent
//! test` and `cases` as users run them: a crash whose exception message spans lines,
//! `--filter` given twice, `--format` that could not act, and a case whose fault never
//! acted for the consumer (not applicable, neither passed nor failed).

use std::process::Output;

use harness::exit_codes;

use crate::support::mock_std;

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr)
}

/// `mock-agent test ARGS`, and everything it printed.
fn test(args: &[&str]) -> (Output, String) {
    let output = mock_std().arg("test").args(args).output().expect("runs");
    let report = text(&output);
    (output, report)
}

/// `mock-agent test ARGS` (the case `FILTER` of `DIALECT`, the consumer `CONSUMER`:
/// `[DIALECT, FILTER, CONSUMER]`), asserted to exit `code` and to say each of `said`;
/// everything it printed.
fn test_says([dialect, filter, consumer]: [&str; 3], code: i32, said: &[&str]) -> String {
    let (output, report) = test(&["--dialect", dialect, "--filter", filter, "--consumer", consumer]);
    assert_eq!(output.status.code(), Some(code), "{report}");
    for words in said {
        assert!(report.contains(words), "`{words}` in:\n{report}");
    }
    report
}

/// `mock-agent test --dialect claude` with each of `filters`, `extra` and `consumer`,
/// and everything it printed.
fn test_claude(filters: &[&str], consumer: &str, extra: &[&str]) -> (Output, String) {
    let mut args = vec!["--dialect", "claude"];
    for filter in filters {
        args.extend(["--filter", filter]);
    }
    args.extend(extra);
    args.extend(["--consumer", consumer]);
    test(&args)
}

/// A program that runs Claude Code, reads its answer, then dies of an uncaught
/// exception whose message spans lines (the traceback's last line is not the
/// exception's).
#[test]
fn an_uncaught_exception_whose_message_spans_lines_breaks_no_crash() {
    for (language, died) in [
        (
            "Python",
            "python3 -c 'raise RuntimeError(\"line one\\nline two\")'",
        ),
        ("Node.js", "node -e 'throw \"line one\\nline two\"'"),
    ] {
        let consumer = format!("claude -p hi --output-format stream-json --verbose > /dev/null && {died}");
        let (output, report) = test_claude(&["default/clean"], &consumer, &[]);
        assert_eq!(
            output.status.code(),
            Some(exit_codes::CASES_FAILED),
            "{language}: {report}"
        );
        assert!(
            report.contains(&format!("no-crash: died of an uncaught {language} exception")),
            "{language}: {report}"
        );
    }
    // The same traceback logged by a program that goes on and says so itself, in a case
    // where the agent failed: it reported the failure, and did not crash.
    let handled = "claude -p hi --output-format stream-json --verbose > /dev/null || \
                   { python3 -c 'import traceback\ntry:\n  raise RuntimeError(\"line one\\nline two\")\nexcept RuntimeError:\n  traceback.print_exc()'; \
                   echo 'bot: the agent failed; told the user' >&2; exit 1; }";
    let (output, report) = test_claude(&["default/not-logged-in"], handled, &[]);
    assert_eq!(output.status.code(), Some(0), "{report}");
    assert!(report.contains("1 case: 1 passed"), "{report}");
}

/// `--filter A --filter B` runs the cases either keeps, in `test` as in `cases`.
#[test]
fn filter_given_twice_runs_the_union() {
    let listed = mock_std()
        .args(["cases", "--dialect", "claude"])
        .args(["--filter", "default/clean", "--filter", "default/not-logged-in"])
        .output()
        .expect("runs");
    let names = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(listed.status.success(), "{}", text(&listed));
    let first: Vec<&str> = names
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or_default())
        .collect();
    assert_eq!(first, ["default/clean", "default/not-logged-in"], "{names}");
    let careful = "out=$(claude -p hi --output-format json) || { echo 'bot: agent failed' >&2; exit 1; }; \
                   printf %s \"$out\" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d[\"result\"]); sys.exit(d[\"is_error\"])'";
    let (output, report) = test_claude(&["default/clean", "default/not-logged-in"], careful, &[]);
    assert_eq!(output.status.code(), Some(0), "{report}");
    assert!(report.contains("running 2 cases"), "{report}");
    assert!(report.contains("2 cases: 2 passed, 0 failed"), "{report}");
    // A filter that keeps nothing is named with the others.
    let (output, report) = test_claude(&["nothing-a", "nothing-b"], "true", &[]);
    assert_eq!(output.status.code(), Some(exit_codes::USAGE), "{report}");
    assert!(
        report.contains("--filter nothing-a, --filter nothing-b matches none"),
        "{report}"
    );
}

/// `--format` is the format the consumer asks for, handed to it as `{format}`: without
/// the placeholder it could change nothing, and is refused, saying what to do; so are
/// several formats for a dialect whose cases do not come in formats.
#[test]
fn format_that_cannot_act_is_refused() {
    for (args, said) in [
        (
            &[
                "--format",
                "json",
                "--consumer",
                "claude -p hi --output-format stream-json",
            ][..],
            "--format json: the consumer's command has no `{format}`",
        ),
        (
            &[
                "--format",
                "json",
                "--format",
                "text",
                "--consumer",
                "claude -p hi --output-format {format}",
            ][..],
            "--format json --format text: the cases of --dialect claude do not come in formats",
        ),
    ] {
        let (output, report) = test(&[&["--dialect", "claude"][..], args].concat());
        assert_eq!(output.status.code(), Some(exit_codes::USAGE), "{report}");
        assert!(report.starts_with("mock-agent: "), "{report}");
        assert!(report.contains(said) && report.contains("help: "), "{report}");
    }
}

/// A case whose fault never acted for this consumer (Gemini's `unknown-event` writes
/// no event line under `-o json`) tested nothing beyond the clean case: it is not
/// applicable, in the summary line, in JUnit (`skipped`, with why) and in the HTML
/// report, and fails nothing.
#[test]
fn a_case_whose_fault_never_acted_is_not_applicable() {
    let dir = tempfile::tempdir().expect("temp dir");
    let junit = dir.path().join("junit.xml");
    let html = dir.path().join("report.html");
    let consumer = "GEMINI_CLI_TRUST_WORKSPACE=true gemini -p hi -o json | \
                    python3 -c 'import json, sys; print(json.load(sys.stdin)[\"response\"])'";
    let (output, report) = test(&[
        "--dialect",
        "gemini",
        "--filter",
        "default/clean",
        "--filter",
        "default/unknown-event",
        &format!("--junit={}", junit.display()),
        &format!("--report={}", html.display()),
        "--consumer",
        consumer,
    ]);
    assert_eq!(output.status.code(), Some(0), "{report}");
    assert!(
        report.contains("2 cases: 1 passed, 0 failed, 1 not applicable"),
        "{report}"
    );
    assert!(report.contains("not applicable (no verdict"), "{report}");
    assert!(report.contains("the fault unknown never acted"), "{report}");
    let xml = std::fs::read_to_string(&junit).expect("junit");
    assert!(xml.contains("skipped=\"1\""), "{xml}");
    assert!(
        xml.contains("<skipped message=\"not applicable: the fault unknown never acted"),
        "{xml}"
    );
    let page = std::fs::read_to_string(&html).expect("report");
    assert!(page.contains("1 not applicable"), "{page}");
    assert!(page.contains("<strong>not applicable:</strong>"), "{page}");
}

/// A fault that never acted in any of the agent's runs is told so in words that say
/// it of each: "none of the agent's 2 runs had a place for its act" (PyPI
/// `gemini-cli-agent` runs `gemini --version` first; the words were "any of ... had
/// no place").
#[test]
fn a_fault_that_acted_in_none_of_the_runs_says_none() {
    let consumer = "gemini --version > /dev/null && GEMINI_CLI_TRUST_WORKSPACE=true gemini -p hi -o json | \
                    python3 -c 'import json, sys; print(json.load(sys.stdin)[\"response\"])'";
    let none = "the fault unknown never acted: none of the agent's 2 runs had a place for its act \
                (each ended before, or its output format has none)";
    test_says(
        ["gemini", "default/unknown-event", consumer],
        exit_codes::OK,
        &[none],
    );
}

/// A program killed at its time limit after it had printed the answer is told so: it
/// was slow to exit (or to start, on a loaded machine), not waiting for the agent.
#[test]
fn a_timeout_after_the_answer_says_the_answer_was_printed() {
    let slow = "claude -p hi --output-format json | \
                python3 -c 'import json, sys; print(json.load(sys.stdin)[\"result\"], flush=True)' && sleep 30";
    let (output, report) = test_claude(&["default/clean"], slow, &["--timeout", "2"]);
    assert_eq!(output.status.code(), Some(exit_codes::CASES_FAILED), "{report}");
    assert!(
        report.contains("ends: still running after") && report.contains("it had printed the answer"),
        "{report}"
    );
    // One that never printed it is not told so.
    let (_, report) = test_claude(
        &["default/clean"],
        "claude -p hi --output-format json > /dev/null; sleep 30",
        &["--timeout", "2"],
    );
    assert!(
        report.contains("ends: still running after") && !report.contains("it had printed the answer"),
        "{report}"
    );
}

/// A program that resolves the link it was given and runs its target (the `mock-agent`
/// binary itself, as some SDK apps do to find a CLI's companion files) still gets the
/// case's CLI: `mock-agent test` tells it which in `MOCK_AGENT_CLI`. Before, the mock
/// run by its own name stood in for Cursor's CLI and refused `exec` and `app-server`.
#[test]
fn a_program_that_runs_the_target_of_the_agent_s_link_gets_the_case_s_cli() {
    // Without `--json`, stdout holds the final message alone: the answer shown.
    let consumer = r#""$(readlink -f "$(command -v codex)")" exec --skip-git-repo-check hi"#;
    let (output, report) = test(&[
        "--dialect",
        "codex",
        "--filter",
        "default/clean",
        "--consumer",
        consumer,
    ]);
    assert_eq!(output.status.code(), Some(exit_codes::OK), "{report}");
    assert!(report.contains("1 passed"), "{report}");
    // One case is run one at a time, whatever `--jobs` (2 by default) allows.
    assert!(report.contains("running 1 case, 1 at a time"), "{report}");
    // And server mode: the mock run by its own name as `app-server` is Codex's.
    let output = mock_std()
        .args(["app-server", "--listen", "stdio://"])
        .env("MOCK_AGENT_CLI", "codex")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(exit_codes::OK), "{}", text(&output));
}

/// `MOCK_AGENT_CLI` that names no CLI is an error of the mock's own, not a silent
/// fallback to Cursor's CLI.
#[test]
fn a_cli_setting_that_names_no_cli_is_an_error_that_says_what_to_set() {
    let output = mock_std()
        .args(["exec", "--json", "hi"])
        .env("MOCK_AGENT_CLI", "codx")
        .output()
        .expect("runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(exit_codes::USAGE), "{said}");
    assert!(said.starts_with("mock-agent: MOCK_AGENT_CLI=`codx`"), "{said}");
    assert!(said.contains("codex"), "{said}");
}

/// A program whose output is the agent's own JSON, passed on (`claude -p
/// --output-format json` printed as it came): `reports-success` says that the answer is
/// there only inside the agent's JSON, and how to switch the check off, not that it is
/// missing. A case whose fault never acted and that broke only what the clean case
/// broke is not applicable (the failure is told once, on the clean case); without the
/// clean case in the run, it still fails.
#[test]
fn the_agent_s_json_passed_on_is_told_as_such_and_told_once() {
    let consumer = "claude -p --output-format json hi";
    // One at a time, and two at once (the case with the fault may end first): the
    // progress line tells the case as the summary does, not as failed first.
    for jobs in ["1", "2"] {
        let (output, report) = test_claude(
            &["default/clean", "default/malformed"],
            consumer,
            &["--jobs", jobs],
        );
        assert_eq!(output.status.code(), Some(exit_codes::CASES_FAILED), "{report}");
        assert!(
            report.contains("holds its answer only inside the agent's own JSON it passed on"),
            "{report}"
        );
        assert!(report.contains("--off reports-success"), "{report}");
        assert!(report.contains("1 not applicable"), "{report}");
        assert!(
            report.contains("it broke only what default/clean broke (told there)"),
            "{report}"
        );
        assert!(report.contains("n/a  default/malformed"), "{report}");
        assert!(!report.contains("FAIL default/malformed"), "{report}");
    }
    let (output, report) = test_claude(&["default/malformed"], consumer, &[]);
    assert_eq!(output.status.code(), Some(exit_codes::CASES_FAILED), "{report}");
}

/// One rule for every dialect: a program that prints the agent's own JSON (its events
/// or its document, as they came or re-serialized) instead of the answer gets the
/// verdict and the message Claude Code's gets. Before, only objects with a `type` and
/// a `session_id` were told apart, so codex exec's lines and Gemini CLI's `json`
/// document and `stream-json` events passed on passed.
#[test]
fn the_agent_s_json_passed_on_is_told_the_same_for_every_dialect() {
    let reserialized =
        "| python3 -c 'import json, sys; [print(json.dumps(json.loads(l))) for l in sys.stdin]'";
    for (dialect, consumer) in [
        ("claude", "claude -p --output-format json hi".to_owned()),
        ("codex", "codex exec --json --skip-git-repo-check hi".to_owned()),
        (
            "codex",
            format!("codex exec --json --skip-git-repo-check hi {reserialized}"),
        ),
        ("gemini", "gemini -p hi -o json --skip-trust".to_owned()),
        ("gemini", "gemini -p hi -o stream-json --skip-trust".to_owned()),
        (
            "gemini",
            format!("gemini -p hi -o stream-json --skip-trust {reserialized}"),
        ),
    ] {
        let (output, report) = test(&[
            "--dialect",
            dialect,
            "--filter",
            "default/clean",
            "--consumer",
            &consumer,
        ]);
        assert_eq!(
            output.status.code(),
            Some(exit_codes::CASES_FAILED),
            "{consumer}: {report}"
        );
        assert!(
            report.contains(
                "reports-success: the agent succeeded, but the consumer's stdout holds its answer only inside \
                 the agent's own JSON it passed on"
            ),
            "{consumer}: {report}"
        );
        assert!(report.contains("--off reports-success"), "{consumer}: {report}");
    }
}

/// A program that reads the agent's stdout to its end and only then its stderr, both
/// piped, deadlocks with an agent that floods stderr: `ends` says so, and does not
/// send the user after a longer `--timeout`, which never helps.
#[test]
fn a_stderr_deadlock_is_told_as_one_not_as_a_slow_program() {
    let consumer = "python3 -c 'import subprocess; \
        p = subprocess.Popen([\"claude\", \"-p\", \"hi\", \"--output-format\", \"stream-json\", \"--verbose\"], \
        stdout=subprocess.PIPE, stderr=subprocess.PIPE); p.stdout.read(); p.stderr.read(); p.wait()'";
    let (output, report) = test_claude(&["default/stderr-flood"], consumer, &["--timeout", "5"]);
    assert_eq!(output.status.code(), Some(exit_codes::CASES_FAILED), "{report}");
    assert!(report.contains("the agent wrote a flood of stderr"), "{report}");
    assert!(!report.contains("passes with a longer --timeout"), "{report}");
}

/// `invalid-utf8` puts its bytes inside a string of the line, however the capture is
/// spaced (a capture written by `json.dumps` has `"text": "`): the line stays JSON but
/// for its UTF-8, which is the fault; it never breaks the line's syntax.
#[test]
fn invalid_utf8_keeps_a_spaced_line_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let capture = dir.path().join("spaced.ndjson");
    std::fs::write(
        &capture,
        concat!(
            r#"{"type": "system", "subtype": "init", "session_id": "s1", "model": "m"}"#,
            "\n",
            r#"{"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}, "session_id": "s1"}"#,
            "\n",
            r#"{"type": "result", "subtype": "success", "is_error": false, "result": "hi", "session_id": "s1"}"#,
            "\n",
        ),
    )
    .expect("writes");
    let output = mock_std()
        .args(["agent", "-p", "--output-format", "stream-json", "x"])
        .env("MOCK_AGENT_CASSETTE", &capture)
        .env("MOCK_AGENT_FAULTS", "invalid-utf8")
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", text(&output));
    let broken = output
        .stdout
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .filter(|line| std::str::from_utf8(line).is_err())
        .map(|line| {
            let lossy = String::from_utf8_lossy(line);
            serde_json::from_str::<serde_json::Value>(&lossy)
                .unwrap_or_else(|e| panic!("not JSON but for its UTF-8 ({e}): {lossy}"));
        })
        .count();
    assert!(broken > 0, "no line lost its UTF-8: {}", text(&output));
}

/// A program still waiting when it is killed, after the agent it ran had ended by
/// itself: `ends` says the agent had ended and how, not that the agent was silent.
#[test]
fn a_program_that_waits_on_an_agent_that_has_ended_is_told_so() {
    let consumer = "claude -p hi --output-format stream-json --verbose > /dev/null; sleep 30";
    let (output, report) = test_claude(&["default/clean"], consumer, &["--timeout", "3"]);
    assert_eq!(output.status.code(), Some(exit_codes::CASES_FAILED), "{report}");
    assert!(
        report.contains("the agent had ended (exited 0) and the program went on waiting")
            && report.contains("did not notice the agent's end"),
        "{report}"
    );
    assert!(!report.contains("gives up on a silent agent"), "{report}");
}

/// A fuzz failure's replay line keeps the flags that say how the consumer was run and
/// judged (`--mock-env`, `--timeout`, `--off`, `--failure-when-*`): run as printed, the
/// case breaks what it broke in the fuzz run (without `--mock-env`, a program that finds
/// the agent by that variable alone is "not run"). Found by trial on PyPI
/// `codex-sdk-python`, run with `--mock-env`.
#[test]
fn a_fuzz_failure_s_replay_line_runs_the_consumer_as_the_fuzz_run_did() {
    let dir = tempfile::tempdir().expect("temp dir");
    let consumer = r#"test -n "$AGENT" || exit 3; "$AGENT" -p hi > /dev/null; exit 0"#;
    let output = mock_std()
        .args(["fuzz", "--cases", "10", "--seed", "1", "--mock-env", "AGENT"])
        .args([
            "--timeout",
            "5",
            "--off",
            "ends",
            "--failure-when-exit",
            "7",
            "--out",
        ])
        .arg(dir.path())
        .args(["--consumer", consumer])
        .output()
        .expect("runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(exit_codes::CASES_FAILED), "{said}");
    let replay = said
        .lines()
        .find_map(|line| line.strip_prefix("replay it: mock-agent "))
        .unwrap_or_else(|| panic!("a replay line: {said}"));
    assert!(
        replay.contains("--mock-env AGENT --timeout 5 --off ends --failure-when-exit 7 --consumer"),
        "{replay}"
    );
    let replayed = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("\"$MOCK\" {replay}"))
        .env("MOCK", crate::support::bin())
        .output()
        .expect("runs the replay line");
    let report = text(&replayed);
    assert_eq!(replayed.status.code(), Some(exit_codes::CASES_FAILED), "{report}");
    let broke = said
        .lines()
        .skip_while(|line| !line.starts_with("a case failed"))
        .nth(1)
        .and_then(|line| line.trim().split(':').next())
        .unwrap_or_else(|| panic!("a broken property: {said}"));
    assert!(report.contains(&format!("{broke}: ")), "{broke}: {report}");
}

/// `fuzz`'s progress marks a case the mock was not part of `SKIP`, as `test` does, not
/// `ok`: the run then stops, "not run".
#[test]
fn fuzz_marks_a_case_the_mock_was_not_part_of_as_skipped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = mock_std()
        .args(["fuzz", "--cases", "2", "--out"])
        .arg(dir.path())
        .args(["--", "true"])
        .output()
        .expect("runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(exit_codes::CASES_NOT_RUN), "{said}");
    assert!(said.contains("/2] SKIP"), "{said}");
    assert!(!said.contains("] ok"), "{said}");
}

/// A program that always skips permissions, tested as root outside a sandbox: Claude
/// Code refuses before anything of the case (as the real CLI does), so the case tested
/// nothing of the program: not run, with what to do (`IS_SANDBOX=1`, only `1`), not
/// failed (npm `ralphy-cli`: 19 of 19 cases failed `valid-arguments`). With
/// `IS_SANDBOX=1` it passes.
#[test]
fn a_refusal_to_skip_permissions_as_root_is_not_run_with_what_to_do() {
    let consumer = "claude --dangerously-skip-permissions -p hi";
    let run = |sandbox: &str| {
        let output = mock_std()
            .args(["test", "--dialect", "claude", "--filter", "default/clean"])
            .args(["--consumer", consumer])
            .env("IS_SANDBOX", sandbox)
            .env_remove("CLAUDE_CODE_BUBBLEWRAP")
            .output()
            .expect("runs");
        let said = text(&output);
        (output, said)
    };
    let (output, said) = run("yes");
    if nix::unistd::Uid::current().is_root() {
        assert_eq!(output.status.code(), Some(exit_codes::CASES_NOT_RUN), "{said}");
        assert!(
            said.contains("the agent refused to skip permissions as root"),
            "{said}"
        );
        assert!(said.contains("set `IS_SANDBOX=1`"), "{said}");
        assert!(
            said.contains("(the tests' environment has `IS_SANDBOX=yes`)"),
            "{said}"
        );
        assert!(said.contains("set `CLAUDE_CODE_BUBBLEWRAP=1` instead"), "{said}");
        assert!(!said.contains("valid-arguments"), "{said}");
    } else {
        assert_eq!(output.status.code(), Some(0), "{said}");
    }
    let (output, said) = run("1");
    assert_eq!(output.status.code(), Some(0), "{said}");
}

/// `unoffered-tools` acts when the agent sends a request the client's `initialize`
/// did not offer, not when it reads that `initialize`: for a client that sends only
/// `initialize` (PyPI `agent-run-supervisor`'s `agents doctor`) it never acted, and
/// its case is not applicable, as `stop-reason`'s is; it was told `ok`.
#[test]
fn unoffered_tools_acts_when_an_unoffered_request_is_sent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let client = dir.path().join("init_only.py");
    std::fs::write(
        &client,
        "import json, subprocess, sys\n\
         p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)\n\
         p.stdin.write(json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', \
         'params': {'protocolVersion': 1, 'clientCapabilities': {}}}) + '\\n')\n\
         p.stdin.flush()\n\
         print(json.loads(p.stdout.readline())['result']['protocolVersion'])\n\
         p.stdin.close()\n\
         p.wait()\n",
    )
    .expect("writes the client");
    let consumer = format!("python3 {} gemini --acp", client.display());
    let said = [
        "1 case: 0 passed, 0 failed, 1 not applicable",
        "the fault unoffered-tools never acted",
    ];
    test_says(
        ["gemini-acp", "default/unoffered-tools", &consumer],
        exit_codes::OK,
        &said,
    );
}

/// `mock-agent test` run in a folder deleted under it cannot run the consumer there:
/// exit 69 (as docs/exit-codes.md says), with why and what to do, not a "not run"
/// case that blames the program.
#[test]
fn a_test_run_in_a_deleted_folder_cannot_run_the_consumer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let gone = dir.path().join("gone");
    std::fs::create_dir(&gone).expect("mkdir");
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"cd "$1" && rmdir "$1" && exec "$2" test --filter default/clean --consumer 'echo hi'"#)
        .args([
            "sh",
            &gone.display().to_string(),
            &crate::support::bin().display().to_string(),
        ])
        .output()
        .expect("runs");
    let said = text(&output);
    assert_eq!(output.status.code(), Some(exit_codes::CANNOT_RUN), "{said}");
    assert!(
        said.contains("mock-agent: cannot run `echo hi`: the folder it runs in is gone"),
        "{said}"
    );
}

/// `--help` of `test`, `fuzz` and `judge` names every property `--off` takes, and the
/// mock's own help lists the agent CLIs it stands in for, each one's word.
#[test]
fn the_help_names_every_property_and_every_cli() {
    for command in ["test", "fuzz", "judge"] {
        let output = mock_std().args([command, "--help"]).output().expect("runs");
        let help = text(&output);
        // The paragraph of `--off`: from its flag to the next flag.
        let off = help.split("--off <PROPERTY>").nth(1).unwrap_or_default();
        let off = off.split("\n      --").next().unwrap_or_default();
        for property in harness::run::Property::ALL {
            assert!(
                off.contains(property.name()),
                "{command} --help: {property}\n{off}"
            );
        }
    }
    let help = text(&mock_std().arg("--help").output().expect("runs"));
    for word in ["agent", "claude", "codex", "gemini"] {
        assert!(help.contains(&format!("\n  {word} ")), "{word}:\n{help}");
    }
    assert!(help.contains("--dialect codex, codex-app-server"), "{help}");
}

/// A command line the agent's CLI refuses is told apart from the verdict: the verdict
/// says the CLI's words (the same in every case the mistake breaks, so "by cause"
/// groups them), and a line of the case shows the arguments, quoted, a line break as
/// `\n`, long ones cut (npm `ralphy-cli` passes a prompt of 20 lines and a path of the
/// case's own: 21 causes, each a screenful).
#[test]
fn refused_arguments_are_shown_apart_and_their_cases_grouped() {
    let consumer = r#"codex exec --json --full-auto --cd "$(dirname "$MOCK_AGENT_JOURNAL")" "$(printf 'first line\nsecond line')""#;
    let (output, report) = test(&[
        "--dialect",
        "codex",
        "--filter",
        "default/clean",
        "--filter",
        "default/unauthorized",
        "--consumer",
        consumer,
    ]);
    assert_eq!(output.status.code(), Some(exit_codes::CASES_FAILED), "{report}");
    assert!(
        report.contains(
            "2 cases break valid-arguments: the agent refused the program's arguments and ran nothing (exit 2)"
        ),
        "{report}"
    );
    assert!(
        report.contains("the arguments it refused: exec --json --full-auto --cd /"),
        "{report}"
    );
    assert!(report.contains(r"'first line\nsecond line'"), "{report}");
}

/// A program that shows the answer on its stderr is told so: the answer is not in its
/// stdout, it is on its stderr (PyPI `agentic-coding-harness` streams the text there
/// by design), with how to switch the check off for such a program.
#[test]
fn an_answer_shown_on_stderr_is_told_as_such() {
    let consumer = r#"cursor-agent -p hi --output-format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["result"], file=sys.stderr)'"#;
    let said = [
        "its answer is not in the consumer's stdout: it is on its stderr",
        "`--off reports-success`",
    ];
    test_says(
        ["cursor-print", "default/clean", consumer],
        exit_codes::CASES_FAILED,
        &said,
    );
}

/// A program whose stdout stops at exactly a pipe's size, without the answer, is told
/// what that marks: writes to a pipe not flushed before the program exited (Node.js's
/// `process.exit()` with writes pending; the example client of npm
/// `@agentclientprotocol/sdk` does so).
#[test]
fn stdout_cut_at_a_pipe_s_size_is_told_as_unflushed_writes() {
    let consumer =
        r#"cursor-agent -p hi > /dev/null; python3 -c 'import sys; sys.stdout.write("x" * 65536)'"#;
    let said = ["its stdout stops at exactly 65536 bytes, a pipe's size"];
    test_says(
        ["cursor-print", "default/clean", consumer],
        exit_codes::CASES_FAILED,
        &said,
    );
}

/// A program that gives `codex exec -C` a folder that is not there where the test
/// runs it stopped the agent before the case began: not run, with what to do (it was
/// judged a success missed). One that runs `codex exec` outside a Git repository, in a
/// folder it deletes once the agent has ended, is still told it stopped at the Git
/// check: the journal, not the folder's state when the case is judged, tells it.
#[test]
fn codex_stopped_before_the_case_by_its_folder_is_not_run() {
    let missing = "codex exec --json --skip-git-repo-check -C /no/such/folder hi";
    let said = ["the folder the program gives `codex exec -C` (/no/such/folder) is not there"];
    test_says(
        ["codex", "default/clean", missing],
        exit_codes::CASES_NOT_RUN,
        &said,
    );
    let scratch = r#"d=$(mktemp -d); codex exec --json -C "$d" hi; rc=$?; rmdir "$d"; exit $rc"#;
    let said = ["Git-repository check"];
    test_says(
        ["codex", "default/clean", scratch],
        exit_codes::CASES_NOT_RUN,
        &said,
    );
}
