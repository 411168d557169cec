//! The harness for ACP clients proves itself on example clients: the careful one
//! copes with server mode's whole matrix, and each one with a classic bug is caught
//! by the property named for it.

use std::time::Duration;

use harness::run::{self, CaseSource, Consumer, Matrix, MockBinary, Properties, Runner};

use crate::support::{bin, root};

fn run_all(consumer: &Consumer, cases: &[run::Case], jobs: usize) -> Vec<run::CaseResult> {
    let mock = MockBinary::new(bin());
    Runner::new(consumer, &mock)
        .jobs(jobs)
        .run_all(cases, |_| {})
        .expect("runs")
}

fn client(script: &str, timeout: u64) -> Consumer {
    let path = root().join("tests/consumers").join(script);
    Consumer::new(format!("python3 {}", path.display()))
        .timeout(Duration::from_secs(timeout))
        // The careful client gives up on an agent silent this long.
        .env("CONSUMER_IDLE_TIMEOUT", "3")
}

/// The properties each case broke, by case name.
fn broken(consumer: &Consumer, filter: &str) -> Vec<(String, Vec<String>)> {
    let mut matrix = Matrix::acp(Vec::new());
    matrix.filter = Some(filter.to_owned());
    let cases = matrix.cases(false).expect("cases");
    assert!(!cases.is_empty(), "no case matches {filter}");
    let results = run_all(consumer, &cases, 2);
    results
        .iter()
        .map(|r| {
            let names = r
                .verdicts
                .iter()
                .filter(|v| !v.held)
                .map(|v| v.name.clone())
                .collect();
            (r.case.name.clone(), names)
        })
        .collect()
}

#[test]
fn the_careful_acp_client_copes_with_the_whole_matrix() {
    // Every case of the default conversation, each record (the conversation told
    // readably) kept as a snapshot ...
    run::assert_matrix(
        &client("acp_careful.py", 20),
        &Matrix::acp(Vec::new()),
        &Properties::new(),
        &MockBinary::new(bin()),
        &root().join("tests/snapshots/acp_consumers/careful"),
    );
    // ... and every property held with a recorded print-mode session served over ACP
    // (a shell command that asks permission) and a generated one.
    let mut matrix = Matrix::acp(vec![root().join("cassettes/shell-command.cassette")]).generated(1);
    matrix.default_session = false;
    let cases = matrix.cases(false).expect("cases");
    let results = run_all(&client("acp_careful.py", 20), &cases, 2);
    let summary = run::Summary::new(&results, &[]);
    assert!(summary.passed(), "{summary}");
    assert!(cases.iter().any(|c| c.source == CaseSource::Generated(0)));
}

#[test]
fn each_classic_acp_bug_is_caught_by_its_property() {
    let expectations: &[(&str, &str, &str)] = &[
        ("acp_never_answers.py", "default/clean", "answers-requests"),
        (
            "acp_fatal_unknown.py",
            "default/unknown-update",
            "ignores-unknown",
        ),
        (
            "acp_error_as_success.py",
            "default/error@prompt",
            "reports-failure",
        ),
        ("acp_waits_forever.py", "default/crash@mid-turn", "ends"),
        ("acp_leaves_agent.py", "default/error@prompt", "no-leftover"),
    ];
    for (script, case, property) in expectations {
        let found = broken(&client(script, 3), case);
        assert!(
            found
                .iter()
                .any(|(name, broken)| name == case && broken.iter().any(|b| b == property)),
            "{script} on {case}: broke {found:?}, expected {property}"
        );
    }
    // And the careful client breaks none of them there.
    for (_, case, _) in expectations {
        let found = broken(&client("acp_careful.py", 20), case);
        assert!(found.iter().all(|(_, broken)| broken.is_empty()), "{found:?}");
    }
}

#[test]
fn mock_agent_test_acp_runs_the_matrix_against_a_client() {
    let consumer = format!(
        "python3 {}",
        root().join("tests/consumers/acp_error_as_success.py").display()
    );
    let output = crate::support::mock()
        .args([
            "test",
            "--acp",
            "--consumer",
            &consumer,
            "--filter",
            "error@prompt",
            "--timeout",
            "5",
        ])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(harness::exit_codes::CASES_FAILED));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("default/error@prompt") && stdout.contains("reports-failure"),
        "{stdout}"
    );
    assert!(stdout.contains("1 cases: 0 passed, 1 failed"), "{stdout}");
}
