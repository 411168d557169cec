//! `MOCK_AGENT_JOURNAL`: one JSON line per invocation, so a test can check how its
//! program called the agent.

use harness::journal::{self, ExitRecord};
use harness::OutputFormat;

use crate::support::mock;

#[test]
fn each_invocation_appends_what_it_was_asked_and_how_it_ended() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("journal.jsonl");
    mock()
        .env("MOCK_AGENT_JOURNAL", &path)
        .args(["-p", "--model", "gpt-5", "fix it"])
        .assert()
        .success();
    mock()
        .env("MOCK_AGENT_JOURNAL", &path)
        .args(["-p", "--output-format", "json"])
        .write_stdin("from stdin\n")
        .assert()
        .success();
    mock()
        .env("MOCK_AGENT_JOURNAL", &path)
        .args(["-p", "--bogus"])
        .assert()
        .code(1);
    mock()
        .env("MOCK_AGENT_JOURNAL", &path)
        .env("MOCK_AGENT_CASSETTE", "cassettes/invalid/no-end.cassette")
        .args(["-p", "--stream-partial-output", "x"])
        .assert()
        .code(65);

    let entries = journal::read(&path).expect("journal");
    assert_eq!(entries.len(), 4);
    let [argv, stdin, bad_flag, bad_cassette] = &entries[..] else {
        panic!("four entries: {entries:?}")
    };
    assert_eq!(argv.argv, ["-p", "--model", "gpt-5", "fix it"]);
    assert_eq!(argv.prompt.as_deref(), Some("fix it"));
    assert_eq!(argv.stdin, None);
    assert_eq!(argv.output_format, Some(OutputFormat::StreamJson));
    assert_eq!(argv.source.as_deref(), Some("default"));
    assert_eq!(argv.exit, ExitRecord::Code(0));
    assert!(argv.started_at_ms <= argv.ended_at_ms);
    assert!(argv.cwd.as_deref().is_some_and(|cwd| !cwd.is_empty()));

    assert_eq!(stdin.prompt.as_deref(), Some("from stdin"));
    assert_eq!(stdin.stdin.as_deref(), Some("from stdin\n"));
    assert_eq!(stdin.output_format, Some(OutputFormat::Json));

    assert_eq!(bad_flag.exit, ExitRecord::Code(1));
    assert_eq!(bad_flag.prompt, None);

    assert_eq!(bad_cassette.exit, ExitRecord::Code(65));
    assert!(bad_cassette.stream_partial_output);
    assert_eq!(
        bad_cassette.source.as_deref(),
        Some("cassettes/invalid/no-end.cassette")
    );
    assert!(bad_cassette
        .error
        .as_deref()
        .is_some_and(|e| e.contains("no-end.cassette:")));
    assert!(entries.windows(2).all(|w| w[0].pid != w[1].pid));
}

#[test]
fn concurrent_invocations_write_whole_lines() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("journal.jsonl");
    let children: Vec<_> = (0..8)
        .map(|i| {
            std::process::Command::new(crate::support::bin())
                .env("MOCK_AGENT_JOURNAL", &path)
                .args(["-p", &format!("prompt {i}")])
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("spawns")
        })
        .collect();
    for mut child in children {
        assert!(child.wait().expect("waits").success());
    }
    let mut prompts: Vec<String> = journal::read(&path)
        .expect("every line parses")
        .into_iter()
        .filter_map(|e| e.prompt)
        .collect();
    prompts.sort();
    assert_eq!(prompts, (0..8).map(|i| format!("prompt {i}")).collect::<Vec<_>>());
}

#[test]
fn an_unwritable_journal_is_the_mock_s_own_error() {
    mock()
        .env("MOCK_AGENT_JOURNAL", "/nonexistent-dir/journal.jsonl")
        .args(["-p", "hi"])
        .assert()
        .code(73)
        .stderr(predicates::str::contains(
            "mock-agent: cannot append to the journal /nonexistent-dir/journal.jsonl",
        ));
}
