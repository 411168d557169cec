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

#[test]
fn an_endless_line_is_refused_at_the_line_cap() {
    // `/dev/zero` is one line that never ends: refused once it passes the cap, not read
    // until memory runs out.
    let cap = harness::cassette::MAX_LINE_BYTES >> 20;
    for args in [&["replay", "/dev/zero"][..], &["-p", "hi"]] {
        let output = mock()
            .env("MOCK_AGENT_CASSETTE", "/dev/zero")
            .args(args)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(65), "{stderr}");
        assert!(output.stdout.is_empty());
        assert!(
            stderr.starts_with(&format!(
                "mock-agent: /dev/zero:1: invalid data: the line is longer than {cap} MiB"
            )),
            "{stderr}"
        );
        assert!(stderr.contains("\nhelp: "), "{stderr}");
    }
}

#[test]
fn a_file_with_no_event_is_refused_whatever_its_size_or_kind() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Larger than what is checked whole before replay: still refused before replay.
    let big = dir.path().join("big.log");
    let line = "[debug] not an event, and no JSON either\n";
    let size = harness::source::PREFLIGHT_LIMIT as usize + line.len();
    std::fs::write(&big, line.repeat(size / line.len() + 1)).expect("writes");
    let output = mock().arg("replay").arg(&big).output().expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(65), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing replayed");
    assert!(
        stderr.contains("no line of this file is a JSON event"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "one JSON event per line, as `cursor-agent -p --output-format stream-json` prints them"
        ),
        "{stderr}"
    );
    // A pipe is read once: it is replayed as it streams, and refused at its end.
    let output = mock()
        .args(["replay", "/dev/stdin"])
        .write_stdin("hello\nworld\n")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(65), "{stderr}");
    assert!(
        stderr.starts_with("mock-agent: /dev/stdin:1: invalid data: no line of this file is a JSON event"),
        "{stderr}"
    );
}
