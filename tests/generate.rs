//! Generated sessions: the strategies' properties, and `generate` through the binary.

use harness::check::Checker;
use harness::expect::Expectation;
use harness::generate::{faulted, from_seed, session, Session, SessionConfig};
use harness::scenario::Scenario;
use harness::{cassette, Frame, OutputFormat, RenderOptions, Stream};
use proptest::prelude::*;

use crate::roundtrip::cases;
use crate::support::mock;

fn check(session: &Session) -> harness::check::Report {
    let mut checker = Checker::new();
    for (i, line) in session.lines.iter().enumerate() {
        checker.line(i as u64 + 1, line.as_bytes());
    }
    checker.finish(Some(session.exit))
}

/// Renders a session as the mock would for these options: stdout text and exit.
fn render(session: &Session, format: OutputFormat, partial: bool) -> (String, harness::Exit) {
    let options = RenderOptions::new(format)
        .stream_partial_output(partial)
        .now_ms(1);
    let frames = harness::render::render(session.recording(), &options).expect("renders");
    let (mut out, mut exit) = (String::new(), None);
    for frame in frames {
        match frame.expect("frame") {
            Frame::Line(line) if line.stream == Stream::Stdout => {
                out.push_str(&String::from_utf8_lossy(&line.bytes));
                out.push('\n');
            }
            Frame::End(end) => exit = Some(end.exit),
            _ => {}
        }
    }
    (out, exit.expect("an end"))
}

fn any_config() -> impl Strategy<Value = SessionConfig> {
    prop_oneof![
        Just(SessionConfig::default()),
        Just(SessionConfig::seeds()),
        Just(SessionConfig::default().max_events(12)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(1000)))]

    /// Every generated session is valid: the checker finds no error.
    #[test]
    fn generated_sessions_pass_the_checker(session in any_config().prop_flat_map(session)) {
        let report = check(&session);
        prop_assert!(report.passes(), "{:#?}\n{}", report.findings, session.stdout());
        prop_assert_eq!(session.answer().is_some(), session.exit.success());
    }

    /// The json and text renderings agree with the stream, with the flag given or not.
    #[test]
    fn output_formats_agree(session in session(SessionConfig::default()), partial in any::<bool>()) {
        let (stream, exit) = render(&session, OutputFormat::StreamJson, partial);
        let (json, json_exit) = render(&session, OutputFormat::Json, partial);
        let (text, text_exit) = render(&session, OutputFormat::Text, partial);
        prop_assert_eq!(exit, session.exit);
        prop_assert_eq!(json_exit, exit);
        prop_assert_eq!(text_exit, exit);
        match session.answer() {
            Some(answer) => {
                let result = stream.lines().rfind(|l| l.starts_with(r#"{"type":"result""#)).unwrap_or_default();
                prop_assert_eq!(json, format!("{result}\n"));
                let last = format!("{}\n", answer.strip_suffix('\n').unwrap_or(&answer));
                prop_assert!(text.ends_with(&last), "{} does not end with {}", text, last);
            }
            None => prop_assert_eq!(json, ""),
        }
        // Either way the stream is valid for the checker, deltas counted once.
        let mut checker = Checker::new();
        for (i, line) in stream.lines().enumerate() {
            checker.line(i as u64 + 1, line.as_bytes());
        }
        let report = checker.finish(Some(exit));
        prop_assert!(report.passes(), "{:#?}\n{stream}", report.findings);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(200)))]

    /// A generated session written as a cassette reads back as its frames.
    #[test]
    fn generated_sessions_round_trip_through_cassettes(session in session(SessionConfig::default())) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let path = dir.path().join("generated.cassette");
        session.write_cassette(&path).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let read: Vec<Frame> = cassette::open(&path)
            .map_err(|e| TestCaseError::fail(e.to_string()))?
            .collect::<Result<_, _>>()
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(read, session.frames());
    }

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

    /// A fault that breaks an invariant, once it acts, is reported by the checker.
    #[test]
    fn faults_that_break_the_protocol_are_seen(
        session in session(SessionConfig::default().failures(0)),
        fault in prop::sample::select(BREAKING.to_vec()),
        after in 0usize..8,
    ) {
        let spec = fault.replace("{after}", &after.to_string());
        let faults = harness::faults::parse(&spec, harness::faults::FROM_ENV).map_err(|e| TestCaseError::fail(e.to_string()))?;
        // Rendered as recorded, so that only the fault changes the stream.
        let options = RenderOptions::new(OutputFormat::StreamJson).stream_partial_output(session.stream_partial_output);
        let mut scenario = Scenario::new(options);
        scenario.faults = faults;
        let plan = scenario.plan(session.recording()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut checker = Checker::new();
        let mut exit = None;
        let mut stdout = String::new();
        for (i, frame) in plan.frames.enumerate() {
            match frame.map_err(|e| TestCaseError::fail(e.to_string()))? {
                Frame::Line(line) if line.stream == Stream::Stdout => {
                    checker.line(i as u64 + 1, &line.bytes);
                    stdout.push_str(&String::from_utf8_lossy(&line.bytes));
                    stdout.push('\n');
                }
                Frame::End(end) => exit = Some(end.exit),
                _ => {}
            }
        }
        let report = checker.finish(exit);
        // A fault placed past the end changes nothing, and breaks nothing.
        let changed = stdout != session.stdout();
        prop_assert!(!changed || !report.findings.is_empty(), "{spec} went unseen:\n{stdout}");
    }

    /// A case labelled a success holds the session's answer; a failed session is never one.
    #[test]
    fn labels_follow_the_stream(case in faulted(SessionConfig::default(), 3)) {
        match &case.expect {
            Expectation::Success { answer } => prop_assert_eq!(Some(answer.clone()), case.session.answer()),
            Expectation::Failure => {}
        }
        if !case.session.exit.success() {
            prop_assert_eq!(&case.expect, &Expectation::Failure);
        }
        // Without faults, the label is the session's own outcome.
        if case.faults.is_empty() {
            let own = match case.session.answer() {
                Some(answer) => Expectation::Success { answer },
                None => Expectation::Failure,
            };
            prop_assert_eq!(&case.expect, &own);
        }
    }
}

/// Faults that break a rule of the protocol whenever they act on a successful run.
const BREAKING: &[&str] = &[
    "drop:type=user",
    "drop:type=system",
    "drop:type=result",
    "duplicate:at=tool_call",
    "duplicate:at=result",
    "duplicate:at=user",
    "noise:after={after}",
    "malformed:after={after}",
    "unknown-event:after={after}",
    "eof:at=result",
    "eof:after={after}",
];

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
        render(&session, OutputFormat::StreamJson, false).0
    );
    // A fixed seed's bytes are stable across versions of the machine, not only runs:
    // its digest is kept here.
    insta::assert_snapshot!(format!("{:016x}", fnv1a(&first.stdout)), @"e7edbbf3e51c280e");
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    })
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
