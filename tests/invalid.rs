//! One snapshot per malformed file under `cassettes/invalid/`: each error message is
//! reviewed once and kept.

use predicates::prelude::*;

use crate::support::{mock, root, transcript};

#[test]
fn each_invalid_file_fails_with_a_located_error() {
    insta::glob!("../cassettes/invalid", "*.*", |path| {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let relative = format!("cassettes/invalid/{name}");
        let output = mock().args(["replay", &relative]).output().expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with(&format!("mock-agent: {relative}:")),
            "{stderr}"
        );
        assert!(stderr.contains("\nhelp: "), "says what to do: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(output.status.code(), Some(65), "{stderr}");

        // The same error when the program under test spawns it as the CLI.
        let as_cli = mock()
            .env("MOCK_AGENT_CASSETTE", &relative)
            .args(["-p", "hi"])
            .output()
            .expect("runs");
        assert_eq!(as_cli.status.code(), Some(65));
        assert_eq!(as_cli.stderr, output.stderr);

        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("snapshots/invalid");
        settings.set_prepend_module_to_snapshot(false);
        settings.set_input_file(path);
        settings.bind(|| insta::assert_snapshot!("error", transcript(&output)));
    });
}

#[test]
fn a_missing_file_is_its_own_error() {
    mock()
        .args(["replay", "cassettes/nope.cassette"])
        .assert()
        .code(66)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "mock-agent: cassettes/nope.cassette: cannot open: ",
        ));
    mock()
        .env("MOCK_AGENT_CASSETTE", root().join("nope.ndjson"))
        .args(["-p", "hi"])
        .assert()
        .code(66)
        .stdout("");
}

#[test]
fn the_pretty_printed_seed_block_fails_at_its_missing_comma() {
    let output = mock()
        .args(["replay", "cassettes/invalid/missing-comma.ndjson"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let text = std::fs::read_to_string(root().join("cassettes/invalid/missing-comma.ndjson")).expect("file");
    let line = text
        .lines()
        .position(|l| l.contains("\"totalLines\""))
        .expect("has totalLines")
        + 1;
    let column = text
        .lines()
        .nth(line - 1)
        .unwrap_or_default()
        .find('"')
        .unwrap_or(0)
        + 1;
    let place = format!("missing-comma.ndjson:{line}:{column}: invalid JSON: expected `,` or `}}`");
    assert!(stderr.contains(&place), "want {place} in {stderr}");
}
