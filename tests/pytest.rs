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

/// pytest, from the Claude Agent SDK's environment, on tests/python-record with the
/// cassettes in `cassettes`, `args` and `env` given.
fn pytest_record(
    cassettes: &std::path::Path,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> (bool, String) {
    let mut pytest = Command::new(&crate::claude_sdks::sdks().python);
    harness::run::child::without_mock_env(&mut pytest)
        .current_dir(root())
        .args(["-m", "pytest", "-p", "mock_agent.pytest_plugin"])
        .args(["-p", "no:cacheprovider", "-q", "-s", "tests/python-record"])
        .args(args)
        .env("PYTHONPATH", root().join("python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("MOCK_AGENT_BIN", bin())
        .env("RECORD_CASSETTES", cassettes);
    for (name, value) in env {
        pytest.env(name, value);
    }
    let ran = pytest.output().expect("runs pytest");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    (ran.status.success(), report)
}

/// The answer a line `PREFIX ... 'ANSWER'` of the inner tests printed.
fn printed<'a>(report: &'a str, prefix: &str) -> &'a str {
    report
        .lines()
        .find_map(|l| l.find(prefix).map(|at| &l[at..]))
        .unwrap_or_else(|| panic!("no line {prefix}: {report}"))
}

/// The record modes record any dialect: a program on the real Python Claude Agent SDK
/// runs the real Claude Code (scripts/real-clis.sh, against the scripted model API,
/// offline) through the test's `claude`, which records it, once into one cassette and
/// once into a library under `--record-mode=once`; the second run of the same tests
/// replays both, with neither the real CLI nor the model API reachable, and gives the
/// program the recorded answers.
#[test]
fn a_claude_agent_sdk_test_records_the_real_claude_code_once_then_replays_it() {
    use mock_agent::model_api::{Api, Scenario, Server};
    let Some(real) = crate::model_api::real("claude") else {
        return;
    };
    let cassettes = tempfile::tempdir().expect("a folder");
    let server = Server::start(Api::Anthropic, Scenario::builtin()).expect("serves the Messages API");
    let (passed, recorded) = pytest_record(
        cassettes.path(),
        &["--record-mode=once"],
        &[
            ("MOCK_AGENT_REAL_CLAUDE", real.as_os_str()),
            ("MODEL_API_URL", server.base_url().as_ref()),
        ],
    );
    assert!(passed, "{recorded}");
    let asked = server.requests().iter().filter(|r| r.step.is_some()).count();
    assert!(
        asked >= 2,
        "each of the two runs reached the model API: {asked}\n{recorded}"
    );
    drop(server);
    let one = printed(&recorded, "ONE ");
    assert!(one.starts_with("ONE RECORDED 0 '"), "{recorded}");
    let library = printed(&recorded, "LIBRARY ");
    assert!(library.starts_with("LIBRARY once 0 '"), "{recorded}");
    let files = [
        cassettes.path().join("ask.cassette"),
        cassettes.path().join("library/claude/1.cassette"),
    ];
    for file in &files {
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}\n{recorded}", file.display()));
        assert!(text.contains("\"dialect\":\"claude\""), "{text}");
        assert!(
            !text.contains("sk-ant-test-not-in-the-cassette"),
            "the key is in {}",
            file.display()
        );
    }

    // Offline: no real CLI, no model API; the same answers, from the cassettes.
    let (passed, replayed) = pytest_record(cassettes.path(), &[], &[]);
    assert!(passed, "{replayed}");
    let answer = |line: &str| line.split_once(" '").map(|(_, a)| a.to_owned());
    assert_eq!(
        printed(&replayed, "ONE ").strip_prefix("ONE REPLAYED 1"),
        one.strip_prefix("ONE RECORDED 0"),
        "{replayed}"
    );
    assert_eq!(
        answer(printed(&replayed, "LIBRARY ")),
        answer(library),
        "{replayed}"
    );
    assert!(
        printed(&replayed, "LIBRARY ").starts_with("LIBRARY none 1 '"),
        "{replayed}"
    );
    // A run the library lacks is an error, not a silent pass.
    std::fs::remove_file(&files[1]).expect("removes");
    let (passed, missed) = pytest_record(cassettes.path(), &[], &[]);
    assert!(!passed, "{missed}");
    assert!(missed.contains("1 failed, 1 passed"), "{missed}");
}
