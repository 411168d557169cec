//! Generated sessions through the binary: `generate`, `MOCK_AGENT_GENERATE`, saved
//! cassettes replayed. (The strategies' own properties are the harness's tests,
//! `harness/tests/generate.rs`.)

use harness::generate::{from_seed, session, SessionConfig};
use harness::OutputFormat;
use proptest::prelude::*;

use crate::roundtrip::cases;
use crate::roundtrip::shared::{fnv1a, render};
use crate::support::mock;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(200)))]

    /// A generated session written as a cassette replays byte for byte through the
    /// binary, with its stderr and its exit.
    #[test]
    fn generated_cassettes_replay_byte_for_byte(session in session(SessionConfig::default())) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let path = dir.path().join("generated.cassette");
        session.write_cassette(&path).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut cmd = mock();
        cmd.arg("replay").arg(&path);
        if session.stream_partial_output {
            cmd.arg("--stream-partial-output");
        }
        let output = cmd.output().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(String::from_utf8_lossy(&output.stdout), session.stdout());
        let stderr: String = session.stderr.iter().map(|l| format!("{l}\n")).collect();
        prop_assert_eq!(String::from_utf8_lossy(&output.stderr), stderr);
        prop_assert_eq!(output.status.code(), match session.exit { harness::Exit::Code(c) => Some(c), _ => None });
    }
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    let first = mock().args(["generate", "--seed", "42"]).output().expect("runs");
    let again = mock().args(["generate", "--seed", "42"]).output().expect("runs");
    let other = mock().args(["generate", "--seed", "43"]).output().expect("runs");
    assert_eq!(first.stdout, again.stdout);
    assert_eq!(first.stderr, again.stderr);
    assert_ne!(first.stdout, other.stdout);
    // The library gives the same session (rendered without `--stream-partial-output`).
    let session = from_seed(42, &SessionConfig::default());
    assert_eq!(
        String::from_utf8_lossy(&first.stdout),
        render(session.recording(), OutputFormat::StreamJson, false).0
    );
    // A fixed seed's bytes are stable across versions of the machine, not only runs:
    // its digest is kept here.
    insta::assert_snapshot!(format!("{:016x}", fnv1a(&first.stdout)), @"e7edbbf3e51c280e");
}

#[test]
fn generated_sessions_serve_as_the_cli_and_save_as_cassettes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let generated = mock()
        .args(["generate", "--seed", "9", "--output-format", "json"])
        .output()
        .expect("runs");
    let served = mock()
        .env("MOCK_AGENT_GENERATE", "9")
        .args(["-p", "--output-format", "json", "hi"])
        .output()
        .expect("runs");
    assert_eq!(generated.stdout, served.stdout);
    assert_eq!(generated.status.code(), served.status.code());

    let path = dir.path().join("nine.cassette");
    mock()
        .args([
            "generate",
            "--seed",
            "9",
            "--fault",
            "eof:after=3,byte=7",
            "--out",
        ])
        .arg(&path)
        .assert()
        .success()
        .stdout("");
    let faulted = mock()
        .args(["generate", "--seed", "9", "--fault", "eof:after=3,byte=7"])
        .output()
        .expect("runs");
    let replayed = mock().arg("replay").arg(&path).output().expect("runs");
    assert_eq!(replayed.stdout, faulted.stdout);
    assert_eq!(replayed.status.code(), faulted.status.code());
}

#[test]
fn profiles_and_sizes() {
    for seed in 0..20 {
        let seeds = from_seed(seed, &SessionConfig::seeds());
        for line in &seeds.lines {
            for word in [
                "thinking",
                "timestamp_ms",
                "model_call_id",
                "usage",
                "shellToolCall",
            ] {
                assert!(
                    !line.contains(&format!("\"{word}\"")),
                    "seeds profile holds {word}: {line}"
                );
            }
        }
        let small = from_seed(seed, &SessionConfig::default().max_events(6));
        assert!(small.lines.len() <= 6, "{}", small.stdout());
    }
    let large = from_seed(1, &SessionConfig::large());
    assert!(large.stdout().len() > 2_000, "{}", large.stdout().len());
    let output = mock()
        .args(["generate", "--seed", "3", "--profile", "seeds", "--events", "5"])
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&output.stdout).lines().count() <= 5);
    mock()
        .args(["generate", "--seed", "3", "--profile", "nope"])
        .assert()
        .code(64)
        .stderr(predicates::str::starts_with("mock-agent: invalid value 'nope'"));
    mock()
        .env("MOCK_AGENT_GENERATE", "x")
        .args(["-p", "hi"])
        .assert()
        .code(64)
        .stderr(predicates::str::starts_with(
            "mock-agent: MOCK_AGENT_GENERATE:1:1:",
        ));
}

#[test]
fn a_generated_failure_ends_where_the_real_cli_stops() {
    // An error found before any output (the login, the model) has no output before
    // it; out of usage comes after `init` and `user`; a lost connection there or later.
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..300 {
        for config in [SessionConfig::default(), SessionConfig::seeds()] {
            let session = from_seed(seed, &config);
            let Some(message) = session.stderr.first() else {
                continue;
            };
            let lines = session.lines.len();
            let (kind, holds) = if message.starts_with("Authentication required")
                || message.starts_with("Cannot use this model")
            {
                ("before output", lines == 0)
            } else if message.starts_with("ActionRequiredError") {
                ("after user", lines == 2)
            } else {
                ("connection", lines >= 2)
            };
            assert!(
                holds,
                "seed {seed}: {lines} lines before {message:?}\n{}",
                session.stdout()
            );
            seen.insert(kind);
        }
    }
    assert_eq!(seen.len(), 3, "every kind of failure drawn: {seen:?}");
    // The seed the issue names ended a whole stream as `unknown-model`.
    let output = mock()
        .args(["generate", "--seed", "42", "--profile", "seeds"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("Cannot use this model") || stderr.contains("Authentication required") {
        assert!(
            output.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&output.stdout)
        );
    }
}
