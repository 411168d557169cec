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
