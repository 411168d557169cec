//! The real Claude Agent SDKs, unmodified, drive the mock as `claude`: the programs of
//! tests/claude/sdk-py (Python `claude-agent-sdk`) and tests/claude/sdk-ts (TypeScript
//! `@anthropic-ai/claude-agent-sdk`), from the environments scripts/claude-sdks.sh
//! installs once at the pinned versions, with `cli_path` / `pathToClaudeCodeExecutable`
//! at a link named `claude` to the binary under test. Each program prints one summary
//! line per message it got (the same lines from both SDKs); the tests read those.

use std::process::Output;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::sdks::{Sdk, Sdks};
use crate::support::bin;

/// Installs the SDKs (once) or fails the test saying why, e.g. that a registry could
/// not be reached: nothing is skipped.
pub(crate) fn sdks() -> &'static Sdks {
    static SDKS: OnceLock<Sdks> = OnceLock::new();
    SDKS.get_or_init(|| Sdks::install("scripts/claude-sdks.sh", "the Claude Agent SDKs"))
}

/// A temporary folder holding `claude`, a link to the binary under test, where the
/// programs run (their working folder, so whatever the session writes lands there).
fn claude_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(bin(), dir.path().join("claude")).expect("symlink");
    dir
}

/// What a program printed, how it ended, and how long it took.
struct Run {
    output: Output,
    took: Duration,
}

impl Run {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    fn lines(&self) -> Vec<String> {
        self.stdout().lines().map(str::to_owned).collect()
    }

    fn report(&self) -> String {
        format!(
            "{} after {:?}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.output.status,
            self.took,
            self.stdout(),
            String::from_utf8_lossy(&self.output.stderr)
        )
    }
}

/// Runs the program `name` (without its extension) of `sdk` against the mock, with
/// `faults` in MOCK_AGENT_FAULTS.
fn run(sdk: Sdk, name: &str, faults: Option<&str>) -> Run {
    let dir = claude_dir();
    let mut command = sdks().program(sdk, "tests/claude", name, dir.path());
    command.env("CLAUDE_CLI", dir.path().join("claude"));
    if let Some(faults) = faults {
        command.env("MOCK_AGENT_FAULTS", faults);
    }
    let start = Instant::now();
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("runs the {sdk:?} program {name}: {e}"));
    Run {
        output,
        took: start.elapsed(),
    }
}

/// The one-shot query ran a whole turn: an init, the assistant's words, a successful
/// result last.
fn assert_one_shot(run: &Run) {
    let report = run.report();
    assert!(run.output.status.success(), "{report}");
    let lines = run.lines();
    assert_eq!(lines.first().map(String::as_str), Some("system init"), "{report}");
    assert!(lines.iter().any(|l| l.starts_with("assistant text ")), "{report}");
    let result = &lines[lines.len() - 2];
    assert!(
        result.starts_with("result success is_error=false num_turns="),
        "{report}"
    );
    assert_eq!(lines.last().map(String::as_str), Some("done"), "{report}");
}

#[test]
fn python_sdk_query_runs_a_turn_of_the_mock() {
    assert_one_shot(&run(Sdk::Python, "query_once", None));
}

/// Program `name` run by the TypeScript SDK passes `check`, and says what it says run
/// by the Python SDK.
fn assert_typescript_as_python(name: &str, check: fn(&Run)) {
    let ts = run(Sdk::TypeScript, name, None);
    check(&ts);
    let py = run(Sdk::Python, name, None);
    assert_eq!(
        ts.lines(),
        py.lines(),
        "TypeScript:\n{}\nPython:\n{}",
        ts.report(),
        py.report()
    );
}

#[test]
fn typescript_sdk_query_runs_a_turn_of_the_mock_as_python_sees_it() {
    assert_typescript_as_python("query_once", assert_one_shot);
}

/// The lines of turn `n` (after `turn n`, up to the next turn or `done`).
fn turn(lines: &[String], n: usize) -> Vec<String> {
    let start = format!("turn {n}");
    lines
        .iter()
        .skip_while(|l| **l != start)
        .skip(1)
        .take_while(|l| !l.starts_with("turn ") && *l != "done")
        .cloned()
        .collect()
}

/// Turn 1's permission request was allowed and the tool ran; turn 2's was denied, the
/// CLI told so in the tool result and listed the call in the result's denials.
fn assert_allow_then_deny(run: &Run) {
    let report = run.report();
    assert!(run.output.status.success(), "{report}");
    let lines = run.lines();
    assert_eq!(lines.last().map(String::as_str), Some("done"), "{report}");
    for (n, decision, is_error, denied) in [(1, "allow", false, "[]"), (2, "deny", true, "[Write]")] {
        let turn = turn(&lines, n);
        assert_eq!(
            turn.first().map(String::as_str),
            Some("system init"),
            "turn {n}\n{report}"
        );
        let asked = turn
            .iter()
            .position(|l| *l == format!("can_use_tool Write -> {decision}"))
            .unwrap_or_else(|| panic!("turn {n}: no {decision} of Write\n{report}"));
        let called = turn
            .iter()
            .position(|l| l == "assistant tool_use Write")
            .unwrap_or_else(|| panic!("turn {n}: no Write call\n{report}"));
        assert!(called < asked, "turn {n}: asked before the call\n{report}");
        // The next tool result is the Write's: run after an allow, an error after a deny.
        let answered = turn[asked..]
            .iter()
            .find(|l| l.starts_with("user tool_result "))
            .unwrap_or_else(|| panic!("turn {n}: no tool result after the answer\n{report}"));
        assert_eq!(
            *answered,
            format!("user tool_result is_error={is_error}"),
            "{report}"
        );
        let result = turn.last().expect("a line");
        assert!(
            result.starts_with("result success is_error=false ")
                && result.contains(&format!(" denied={denied} ")),
            "turn {n}: {result}\n{report}"
        );
    }
    let asked = lines.iter().filter(|l| l.starts_with("can_use_tool ")).count();
    assert_eq!(asked, 2, "one permission request a turn\n{report}");
}

#[test]
fn python_sdk_client_sees_the_allow_and_the_deny() {
    assert_allow_then_deny(&run(Sdk::Python, "client_permissions", None));
}

#[test]
fn typescript_sdk_streaming_query_sees_the_allow_and_the_deny_as_python_does() {
    assert_typescript_as_python("client_permissions", assert_allow_then_deny);
}

/// The program's last line is `raised ...` as expected, exit 1, the SDK's error within
/// a few seconds of the query's start (the program's own count: starting Python or
/// Node and importing the SDK take seconds of their own on a busy machine).
fn assert_raised(run: &Run, expected: &str) {
    let report = run.report();
    assert_eq!(run.output.status.code(), Some(1), "{report}");
    let last = run.lines().pop().unwrap_or_default();
    // `raised CLASS ... in=Ns: MESSAGE`, the seconds checked apart.
    let (before, after) = last.split_once(" in=").unwrap_or((&last, ""));
    let (seconds, message) = after.split_once("s: ").unwrap_or(("", ""));
    assert_eq!(format!("{before}: {message}"), expected, "{report}");
    let seconds: u64 = seconds.parse().unwrap_or_else(|_| panic!("no `in=Ns`\n{report}"));
    assert!(seconds <= 5, "the SDK took {seconds} s to raise\n{report}");
}

#[test]
fn python_sdk_raises_the_error_result_as_its_process_error() {
    let run = run(Sdk::Python, "failure", Some("not-logged-in"));
    assert_raised(
        &run,
        "raised ResultError process_error=true exit_code=1: Claude Code returned an error \
         result: Not logged in · Please run /login (exit code: 1)",
    );
    // The SDK yielded the error result before it raised.
    let lines = run.lines();
    let result = &lines[lines.len() - 2];
    assert!(
        result.starts_with("result success is_error=true ")
            && result.ends_with(" \"Not logged in · Please run /login\""),
        "{}",
        run.report()
    );
}

#[test]
fn typescript_sdk_throws_the_error_result() {
    let run = run(Sdk::TypeScript, "failure", Some("not-logged-in"));
    assert_raised(
        &run,
        "raised Error: Claude Code returned an error result: Not logged in · Please run /login",
    );
}

#[test]
fn both_sdks_raise_their_process_error_when_the_mock_dies_without_a_result() {
    let fault = "exit:code=1,at=result";
    assert_raised(
        &run(Sdk::Python, "failure", Some(fault)),
        "raised ProcessError process_error=true exit_code=1: Command failed with exit code 1 \
         (exit code: 1)",
    );
    let ts = run(Sdk::TypeScript, "failure", Some(fault));
    assert_raised(&ts, "raised Error: Claude Code process exited with code 1");
}
