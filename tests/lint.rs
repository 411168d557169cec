//! `mock-agent lint`: the protocol checker on files, by line.

use crate::support::{mock, root};

#[test]
fn curated_cassettes_pass_with_their_warnings() {
    let mut files: Vec<String> = crate::support::curated()
        .iter()
        .map(|p| p.strip_prefix(root()).unwrap_or(p).display().to_string())
        .collect();
    files.sort();
    let output = mock().arg("lint").args(&files).output().expect("runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout));
}

#[test]
fn a_broken_protocol_fails_with_its_lines() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("broken.ndjson");
    let seed = std::fs::read_to_string(root().join("cassettes/seed-example.ndjson")).expect("seed");
    let lines: Vec<&str> = seed.lines().collect();
    // No user event, the read tool call never starts, and the result comes twice.
    let broken = [lines[0], lines[2], lines[3], lines[5], lines[9], lines[9]].join("\n") + "\n";
    std::fs::write(&path, broken).expect("writes");
    let output = mock()
        .current_dir(dir.path())
        .args(["lint", "broken.ndjson"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout), @r#"
    broken.ndjson:2: error: the second event is not the `user` event [one-user]
    broken.ndjson:4: error: tool call "toolu_vrtx_01NnjaR886UcE8whekg2MGJd" completed but never started [tool-call-pairs]
    broken.ndjson:5: error: result.result is "I'll read the README.md file and create a summary" but the assistant text is "I'll read the README.md file" [result-text]
    broken.ndjson:6: error: a second `result` (the first on line 5) [one-result]
    broken.ndjson: error: no `user` event [one-user]
    broken.ndjson: 5 error(s), 0 warning(s)
    "#);
}

#[test]
fn an_unreadable_file_is_the_mock_s_own_error() {
    let output = mock()
        .args([
            "lint",
            "cassettes/seed-example.ndjson",
            "cassettes/invalid/truncated.cassette",
        ])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(65));
    assert!(String::from_utf8_lossy(&output.stderr)
        .starts_with("mock-agent: cassettes/invalid/truncated.cassette:4:"));
    assert!(String::from_utf8_lossy(&output.stdout).contains("seed-example.ndjson: 0 error(s), 0 warning(s)"));
}
