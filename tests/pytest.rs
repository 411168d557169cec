//! The pytest plugin (python/mock_agent) on the example consumers: tests/python/ run
//! by pytest, from a virtual environment scripts/python-env.sh makes once, with the
//! plugin from the source tree and the binary under test.

use std::process::Command;

use crate::support::{bin, root};

/// The python of the suite's virtual environment (pytest pinned there).
fn python() -> String {
    let made = Command::new(root().join("scripts/python-env.sh"))
        .output()
        .expect("runs scripts/python-env.sh");
    let stdout = String::from_utf8_lossy(&made.stdout);
    assert!(
        made.status.success(),
        "scripts/python-env.sh failed ({}): {}{}",
        made.status,
        stdout,
        String::from_utf8_lossy(&made.stderr)
    );
    stdout.trim().to_owned()
}

#[test]
fn the_pytest_plugin_runs_the_example_consumers() {
    let bin_dir = bin().parent().expect("the binary's folder").to_owned();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let mut pytest = Command::new(python());
    harness::run::child::without_mock_env(&mut pytest)
        .current_dir(root())
        .args(["-m", "pytest", "-p", "mock_agent.pytest_plugin", "-p", "pytester"])
        .args(["-p", "no:cacheprovider", "-q", "tests/python"])
        .env("PYTHONPATH", root().join("python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("MOCK_AGENT_BIN", bin())
        .env("PATH", path);
    let ran = pytest.output().expect("runs pytest");
    let stdout = String::from_utf8_lossy(&ran.stdout);
    let report = format!("{stdout}{}", String::from_utf8_lossy(&ran.stderr));
    assert!(ran.status.success(), "pytest failed ({}):\n{report}", ran.status);
    // Every test passed: none skipped, none expected to fail.
    let summary = stdout.lines().last().unwrap_or_default();
    let passed = summary
        .split(" passed in ")
        .next()
        .and_then(|n| n.parse::<usize>().ok());
    assert!(passed.is_some_and(|n| n > 41), "{summary}\n{report}");
}

/// pytest, from the Claude Agent SDK's environment (scripts/claude-sdks.sh, pytest
/// pinned there too), on tests/python-sdk with the plugin and the binary under test;
/// `bug` planted. Its exit status and summary, and the ids of the failed tests.
fn pytest_sdk(bug: &str) -> (bool, String, Vec<String>) {
    let mut pytest = Command::new(&crate::claude_sdks::sdks().python);
    harness::run::child::without_mock_env(&mut pytest)
        .current_dir(root())
        .args(["-m", "pytest", "-p", "mock_agent.pytest_plugin"])
        .args(["-p", "no:cacheprovider", "-q", "-rf", "tests/python-sdk"])
        .env("PYTHONPATH", root().join("python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("MOCK_AGENT_BIN", bin())
        .env("PLANTED_BUG", bug);
    let ran = pytest.output().expect("runs pytest");
    let stdout = String::from_utf8_lossy(&ran.stdout).into_owned();
    let failed = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("FAILED "))
        .filter_map(|l| l.split_once('[').and_then(|(_, id)| id.split_once(']')))
        .map(|(id, _)| id.to_owned())
        .collect();
    let report = format!("{stdout}{}", String::from_utf8_lossy(&ran.stderr));
    (ran.status.success(), report, failed)
}

/// A program on the real Python Claude Agent SDK, tested as its author writes the
/// test: every case of Claude Code's matrix a test (`mock_agent_cases(dialect=
/// "claude")`), the SDK given `mock_agent.bin("claude")`. The careful program passes
/// every case; with its bug planted (an error result taken for an answer), exactly
/// the cases that end in an error result fail.
#[test]
fn a_claude_agent_sdk_program_is_tested_over_the_matrix_with_pytest() {
    let listed = crate::support::mock_std()
        .args(["cases", "--dialect", "claude", "--json"])
        .output()
        .expect("runs");
    let cases = String::from_utf8_lossy(&listed.stdout).lines().count();
    assert!(cases > 10, "{cases} cases");
    let (passed, report, _) = pytest_sdk("");
    assert!(passed, "{report}");
    assert!(report.contains(&format!("{cases} passed")), "{report}");
    let (passed, report, mut failed) = pytest_sdk("error-as-success");
    assert!(!passed, "{report}");
    failed.sort();
    assert_eq!(
        failed,
        [
            "default/error-result",
            "default/invalid-api-key",
            "default/max-turns",
            "default/not-logged-in"
        ],
        "{report}"
    );
}
