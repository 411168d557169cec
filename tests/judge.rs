//! `mock-agent judge`: a run made elsewhere judged as `mock-agent test` judges its own.
//! Each run of example consumers through the runner is judged again by the binary,
//! from its exit, saved streams and journal: the same verdicts, but `no-leftover`,
//! which only the runner can tell.

use std::path::Path;
use std::time::Duration;

use harness::run::{self, Case, CaseResult, Consumer, Matrix, MockBinary, Runner, Status};

use crate::support::{bin, install_as_cursor_agent, mock, root};

fn python(script: &str, timeout: u64) -> Consumer {
    let path = root().join("tests/consumers").join(script);
    Consumer::new(format!("python3 {}", path.display()))
        .timeout(Duration::from_secs(timeout))
        .env("CONSUMER_IDLE_TIMEOUT", "3")
}

/// The cases of `matrix` whose name ends with one of `labels`.
fn cases(matrix: Matrix, labels: &[&str]) -> Vec<Case> {
    let cases: Vec<Case> = matrix
        .cases(false)
        .expect("cases")
        .into_iter()
        .filter(|c| labels.iter().any(|l| c.name.ends_with(&format!("/{l}"))))
        .collect();
    assert_eq!(cases.len(), labels.len(), "{labels:?}");
    cases
}

/// `mock-agent judge --json` of a run the runner made: its exit, its streams and its
/// journal saved to files in `dir`, the case named by `case` (flags).
fn judge(result: &CaseResult, case: &[&str], dir: &Path) -> (serde_json::Value, Option<i32>) {
    let outcome = &result.outcome;
    let (stdout, stderr, journal) = (dir.join("stdout"), dir.join("stderr"), dir.join("journal"));
    std::fs::write(&stdout, &outcome.stdout).expect("writes");
    std::fs::write(&stderr, &outcome.stderr).expect("writes");
    let lines: String = outcome
        .journal
        .iter()
        .map(|e| serde_json::to_string(e).expect("an entry") + "\n")
        .collect();
    std::fs::write(&journal, lines).expect("writes");
    let end = match outcome.status {
        Status::Exited(code) => vec!["--exit".to_owned(), code.to_string()],
        Status::Signaled(signal) => vec!["--signal".to_owned(), signal.to_string()],
        Status::TimedOut => vec!["--timed-out".to_owned(), "3".to_owned()],
    };
    let output = mock()
        .arg("judge")
        .args(case)
        .args(end)
        .arg("--stdout")
        .arg(&stdout)
        .arg("--stderr")
        .arg(&stderr)
        .arg("--journal")
        .arg(&journal)
        .arg("--json")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let verdict = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{e}: {text}{}", String::from_utf8_lossy(&output.stderr)));
    (verdict, output.status.code())
}

/// The runner's verdicts, and the judge's, of each run of `consumer` on `cases`, are
/// the same; how many cases broke a property.
fn agree(consumer: &Consumer, cases: &[Case], acp: bool) -> usize {
    let results = Runner::new(consumer, &MockBinary::new(bin()))
        .jobs(2)
        .run_all(cases, |_| {})
        .expect("runs");
    let dir = tempfile::tempdir().expect("temp dir");
    let mut broken_somewhere = 0;
    for result in &results {
        let name = result.case.name.as_str();
        let flags = if acp {
            vec!["--case", name, "--acp"]
        } else {
            vec!["--case", name]
        };
        let (verdict, code) = judge(result, &flags, dir.path());
        let runner: Vec<(String, String)> = result
            .verdicts
            .iter()
            .filter(|v| !v.held && v.name != "no-leftover")
            .map(|v| (v.name.clone(), v.detail.clone()))
            .collect();
        let judged: Vec<(String, String)> = verdict["broken"]
            .as_array()
            .expect("broken")
            .iter()
            .map(|b| {
                (
                    b["name"].as_str().unwrap().to_owned(),
                    b["detail"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        assert_eq!(
            judged,
            runner,
            "{name}: {verdict}\n{}",
            run::report::record(result)
        );
        let held: Vec<&str> = result
            .verdicts
            .iter()
            .filter(|v| v.held && v.name != "no-leftover")
            .map(|v| v.name.as_str())
            .collect();
        let judged_held: Vec<&str> = verdict["held"]
            .as_array()
            .expect("held")
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(judged_held, held, "{name}: {verdict}");
        assert_eq!(verdict["unjudged"][0]["name"], "no-leftover", "{name}: {verdict}");
        assert_eq!(code, Some(if runner.is_empty() { 0 } else { 100 }), "{name}");
        broken_somewhere += usize::from(!runner.is_empty());
    }
    broken_somewhere
}

#[test]
fn judge_agrees_with_the_runner_on_buggy_print_mode_consumers() {
    let labels = [
        "clean",
        "eof@mid-line",
        "signal-kill@mid-stream",
        "noise@mid-stream",
        "exit-1@after-success",
        "quota",
    ];
    let matrix = Matrix::standard(Vec::new());
    // The buggy ones break properties on some of these cases (the judge sees them),
    // the careful one on none.
    for (script, broken) in [
        ("ignores_exit.py", 4),
        ("raw_line_as_answer.py", 2),
        ("careful.py", 0),
    ] {
        let found = agree(&python(script, 6), &cases(matrix.clone(), &labels), false);
        assert_eq!(found, broken, "{script}");
    }
    // A consumer that stops reading early: `reads-to-end`, told by the journal.
    let head = Consumer::new("cursor-agent -p hi | head -n 1");
    assert_eq!(agree(&head, &cases(matrix, &["clean"]), false), 1);
}

#[test]
fn judge_agrees_with_the_runner_on_buggy_acp_clients() {
    let matrix = Matrix::acp(Vec::new());
    // Never answering a permission request: `ends` and `answers-requests`, from the
    // journal of a run that timed out.
    let never = agree(
        &python("acp_never_answers.py", 3),
        &cases(matrix.clone(), &["clean"]),
        true,
    );
    assert_eq!(never, 1);
    // An error taken for success; and what a correct client concludes depends on the
    // requests it sent (`authenticate-hangs`: `Case::lived`, from the journal).
    let labels = ["error@prompt", "authenticate-hangs", "crash@mid-turn"];
    assert!(
        agree(
            &python("acp_error_as_success.py", 6),
            &cases(matrix, &labels),
            true
        ) > 0
    );
}

#[test]
fn a_raw_json_line_printed_as_the_answer_is_caught() {
    // The consumer prints the agent's raw `result` line: the answer's words are in its
    // stdout, and it exits 0, which the pytest plugin's own judging once took for the
    // answer shown.
    let installed = install_as_cursor_agent();
    let path = format!(
        "{}:{}",
        installed.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = std::process::Command::new("python3")
        .arg(root().join("tests/consumers/raw_line_as_answer.py"))
        .env("PATH", path)
        .env_remove("MOCK_AGENT_FAULTS")
        .output()
        .expect("runs");
    assert_eq!(run.status.code(), Some(0));
    let listed = mock()
        .args(["cases", "--json", "--filter", "default/clean"])
        .output()
        .expect("runs");
    let line = String::from_utf8_lossy(&listed.stdout).trim().to_owned();
    let case: serde_json::Value = serde_json::from_str(&line).expect("a case");
    let answer = case["answer"].as_str().expect("an answer");
    assert!(
        String::from_utf8_lossy(&run.stdout).contains(answer),
        "the words are there"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let stdout = dir.path().join("stdout");
    std::fs::write(&stdout, &run.stdout).expect("writes");
    let judged = mock()
        .args(["judge", "--case-json", &line, "--exit", "0", "--stdout"])
        .arg(&stdout)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&judged.stdout);
    assert_eq!(judged.status.code(), Some(100), "{text}");
    assert!(
        text.contains(
            "FAIL reports-success: the agent succeeded, but the consumer's stdout holds its answer only inside the agent's own JSON it passed on"
        ),
        "{text}"
    );
    assert!(text.contains("shown (its stdout as its user reads it"), "{text}");
    assert!(text.contains("--   reads-to-end: not judged"), "{text}");
}

#[test]
fn judge_says_what_is_wrong_with_its_command_line() {
    let run = |args: &[&str]| {
        let output = mock().arg("judge").args(args).output().expect("runs");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, stderr) = run(&["--case", "default/eof", "--exit", "0"]);
    assert_eq!(code, Some(64));
    assert!(
        stderr.contains("no case of the matrix is named so")
            && stderr.contains("did you mean default/eof@before-init"),
        "{stderr}"
    );
    let (code, stderr) = run(&["--case", "default/clean", "--signal", "NOPE"]);
    assert_eq!(code, Some(64));
    assert!(stderr.contains("--signal NOPE: no such signal"), "{stderr}");
    let (code, stderr) = run(&["--case-json", "{}", "--acp", "--exit", "0"]);
    assert_eq!(code, Some(64));
    assert!(stderr.contains("go with --case NAME"), "{stderr}");
    let (code, stderr) = run(&[
        "--case",
        "default/clean",
        "--exit",
        "0",
        "--stdout",
        "/nonexistent/out",
    ]);
    assert_eq!(code, Some(66));
    assert!(
        stderr.starts_with("mock-agent: /nonexistent/out: cannot read the consumer's stdout"),
        "{stderr}"
    );
    let (code, stderr) = run(&["--case", "default/clean"]);
    assert_eq!(code, Some(64));
    assert!(stderr.contains("--exit"), "{stderr}");
}
