//! The real Codex SDKs, unmodified, drive the mock as `codex`: the programs of
//! tests/codex/sdk-py (Python `openai-codex`, which runs `codex app-server`) and
//! tests/codex/sdk-ts (TypeScript `@openai/codex-sdk`, which runs `codex exec
//! --experimental-json`), from the environments scripts/codex-sdks.sh installs once at
//! the pinned versions, with `CodexConfig.codex_bin` / `codexPathOverride` at a link
//! named `codex` to the binary under test and a `CODEX_HOME` of each test's own. Each
//! program prints one summary line per thing the SDK gave it; the tests read those.
//! Then `mock-agent test --dialect codex` on programs built on the TypeScript SDK
//! (tests/consumers/codex_sdk_*.mjs): the careful one passes every matrix case, each
//! planted bug is caught by its property (the Python SDK's are in codex_app_server.rs).

use std::path::Path;
use std::process::Output;
use std::sync::OnceLock;

use crate::sdks::{Sdk, Sdks};
use crate::support::{bin, root};

/// Installs the SDKs (once) or fails the test saying why: nothing is skipped.
fn sdks() -> &'static Sdks {
    static SDKS: OnceLock<Sdks> = OnceLock::new();
    SDKS.get_or_init(|| Sdks::install("scripts/codex-sdks.sh", "the Codex SDKs"))
}

/// The Python SDK's python (the consumers of tests/consumers/codex_sdk_*.py run by it).
pub(crate) fn python() -> &'static Path {
    &sdks().python
}

/// What a program printed and how it ended.
struct Run(Output);

impl Run {
    fn lines(&self) -> Vec<String> {
        String::from_utf8_lossy(&self.0.stdout)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn report(&self) -> String {
        format!(
            "{}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.0.status,
            String::from_utf8_lossy(&self.0.stdout),
            String::from_utf8_lossy(&self.0.stderr)
        )
    }

    fn has(&self, line: &str) -> bool {
        self.lines().iter().any(|l| l == line)
    }
}

/// Runs the program `name` of `sdk` against the mock in a folder of its own (its
/// working folder and `CODEX_HOME`), with `faults` in MOCK_AGENT_FAULTS.
fn run(sdk: Sdk, name: &str, faults: Option<&str>) -> Run {
    let dir = tempfile::tempdir().expect("temp dir");
    let codex = dir.path().join("codex");
    std::os::unix::fs::symlink(bin(), &codex).expect("symlink");
    let mut command = sdks().program(sdk, "tests/codex", name, dir.path());
    command
        .env("CODEX_CLI", &codex)
        .env("CODEX_HOME", dir.path().join("codex-home"));
    if let Some(faults) = faults {
        command.env("MOCK_AGENT_FAULTS", faults);
    }
    Run(command
        .output()
        .unwrap_or_else(|e| panic!("runs the {sdk:?} program {name}: {e}")))
}

const FINAL: &str = "final Created made.txt and notes.md.";

#[test]
fn python_sdk_runs_a_turn_of_the_app_server() {
    let run = run(Sdk::Python, "run_once", None);
    let report = run.report();
    assert!(run.0.status.success(), "{report}");
    assert_eq!(
        run.lines(),
        [
            "server codex_python_sdk/0.163.0",
            "item userMessage",
            "item reasoning",
            "item agentMessage",
            "item commandExecution completed",
            "item fileChange completed",
            "item agentMessage",
            "status completed",
            FINAL,
            "usage input=30 output=12",
            "done"
        ],
        "{report}"
    );
}

#[test]
fn python_sdk_streams_the_turn_s_notifications_in_order() {
    let run = run(Sdk::Python, "streamed", None);
    let report = run.report();
    assert!(run.0.status.success(), "{report}");
    let lines = run.lines();
    assert_eq!(
        lines.first().map(String::as_str),
        Some("event turn/started"),
        "{report}"
    );
    let at = |l: &str| {
        lines
            .iter()
            .position(|x| x == l)
            .unwrap_or_else(|| panic!("no {l}\n{report}"))
    };
    assert!(
        at("event item/agentMessage/delta") < at("event thread/tokenUsage/updated"),
        "{report}"
    );
    assert_eq!(lines[lines.len() - 2], "event turn/completed", "{report}");
}

#[test]
fn python_sdk_raises_a_failed_turn_as_its_own_error() {
    let run = run(Sdk::Python, "failure", Some("turn-failed"));
    let report = run.report();
    assert_eq!(run.0.status.code(), Some(1), "{report}");
    let last = run.lines().pop().unwrap_or_default();
    assert!(
        last.starts_with("raised RuntimeError in=")
            && last.ends_with("Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying."),
        "{report}"
    );
    // A server that dies mid-turn: the SDK's stream ends without `turn/completed`.
    let run = self::run(Sdk::Python, "failure", Some("exit:code=1,at=agentMessage"));
    let last = run.lines().pop().unwrap_or_default();
    assert!(last.starts_with("raised "), "{}", run.report());
}

#[test]
fn python_sdk_resumes_a_thread_in_a_new_server() {
    let run = run(Sdk::Python, "resume", None);
    let report = run.report();
    assert!(run.0.status.success(), "{report}");
    for line in [
        "first input=30",
        "resumed same=True",
        "second input=60 last=10",
        FINAL,
        "done",
    ] {
        assert!(run.has(line), "no `{line}`\n{report}");
    }
}

#[test]
fn python_sdk_approvals_accepted_run_and_declined_do_not() {
    let run = run(Sdk::Python, "approvals", None);
    let report = run.report();
    assert!(run.0.status.success(), "{report}");
    let lines = run.lines();
    let turn2 = lines.iter().position(|l| l == "turn 2").expect("a second turn");
    let (first, second) = lines.split_at(turn2);
    for (turn, decision, status) in [(first, "accept", "completed"), (second, "decline", "declined")] {
        for method in [
            "item/commandExecution/requestApproval",
            "item/fileChange/requestApproval",
        ] {
            let asked = format!("asked {method} -> {decision}");
            assert!(turn.contains(&asked), "no `{asked}`\n{report}");
        }
        for item in ["commandExecution", "fileChange"] {
            let line = format!("item {item} {status}");
            assert!(turn.contains(&line), "no `{line}`\n{report}");
        }
        assert!(turn.contains(&"turn status completed".to_owned()), "{report}");
    }
}

#[test]
fn typescript_sdk_runs_a_turn_of_exec() {
    let run = run(Sdk::TypeScript, "run_once", None);
    let report = run.report();
    assert!(run.0.status.success(), "{report}");
    assert_eq!(
        run.lines(),
        [
            "item reasoning",
            "item agent_message",
            "item command_execution completed",
            "item file_change completed",
            "item agent_message",
            "thread set",
            FINAL,
            "usage input=30 output=12",
            "done"
        ],
        "{report}"
    );
}

#[test]
fn typescript_sdk_streams_the_events() {
    let run = run(Sdk::TypeScript, "streamed", None);
    let report = run.report();
    assert!(run.0.status.success(), "{report}");
    let lines = run.lines();
    assert_eq!(
        lines[..2],
        ["event thread.started", "event turn.started"],
        "{report}"
    );
    assert!(run.has("event item.started command_execution"), "{report}");
    assert_eq!(lines[lines.len() - 2], "event turn.completed", "{report}");
}

#[test]
fn typescript_sdk_throws_a_failed_turn_as_its_own_error() {
    let run = run(Sdk::TypeScript, "failure", Some("rate-limited"));
    let report = run.report();
    assert_eq!(run.0.status.code(), Some(1), "{report}");
    let last = run.lines().pop().unwrap_or_default();
    assert!(
        last.starts_with("raised Error in=") && last.contains("429 Too Many Requests"),
        "{report}"
    );
}

#[test]
fn typescript_sdk_resumes_the_thread_with_its_running_usage() {
    let run = run(Sdk::TypeScript, "resume", None);
    let report = run.report();
    assert!(run.0.status.success(), "{report}");
    for line in [
        "first input=30",
        "second input=60",
        "third input=90 same=true",
        "done",
    ] {
        assert!(run.has(line), "no `{line}`\n{report}");
    }
}

/// `mock-agent test --dialect codex` on a TypeScript SDK program of tests/consumers.
fn test_ts(script: &str, extra: &[&str]) -> Output {
    let consumer = format!(
        "CODEX_SDK_NODE_MODULES={} CONSUMER_TOTAL_TIMEOUT=5 node {}",
        sdks().node_modules.display(),
        crate::support::consumer_path(script)
    );
    crate::support::test_dialect("codex", &consumer, extra, &[])
}

#[test]
fn the_careful_typescript_sdk_program_passes_every_matrix_case() {
    let cassettes = root().join("cassettes/codex");
    let out = test_ts(
        "codex_sdk_careful.mjs",
        &[
            "--generated",
            "1",
            "--cassettes",
            cassettes.to_str().expect("utf-8"),
        ],
    );
    let report = crate::support::said(&out);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert!(report.contains(" 0 failed"), "{report}");
}

#[test]
fn each_planted_typescript_sdk_bug_is_caught_by_its_property() {
    // The Python SDK's planted bugs (tests/conformance.rs) written again in TypeScript,
    // each but the one that never answers.
    let scripts: Vec<(String, &str, &str)> = crate::conformance::planted("codex-app-server")
        .iter()
        .filter(|(script, ..)| *script != "codex_sdk_never_answers.py")
        .map(|&(script, filter, property)| (script.replace(".py", ".mjs"), filter, property))
        .collect();
    let caught: Vec<_> = scripts.iter().map(|(s, f, p)| (s.as_str(), *f, *p)).collect();
    assert_eq!(caught.len(), 3, "{caught:?}");
    crate::support::assert_each_caught(test_ts, &caught);
}
