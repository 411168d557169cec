//! Generated sessions: valid for the checker, consistent across output formats,
//! labelled right under faults, written as cassettes that read back; and the bytes of
//! a seed, kept.

#![cfg(feature = "generate")]

use harness::dialects::cursor_print::check::Checker;
use harness::dialects::cursor_print::expect::Expectation;
use harness::generate::{faulted, from_seed, session, Session, SessionConfig};
use harness::scenario::Scenario;
use harness::{cassette, Frame, OutputFormat, RenderOptions, Stream};
use proptest::prelude::*;

use crate::shared::{cases, fnv1a, render};

fn check(session: &Session) -> harness::check::Report {
    let mut checker = Checker::new();
    for (i, line) in session.lines.iter().enumerate() {
        checker.line(i as u64 + 1, line.as_bytes());
    }
    checker.finish(Some(session.exit))
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
        let (stream, exit) = render(session.recording(), OutputFormat::StreamJson, partial);
        let (json, json_exit) = render(session.recording(), OutputFormat::Json, partial);
        let (text, text_exit) = render(session.recording(), OutputFormat::Text, partial);
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

    /// A fault that breaks an invariant, once it acts, is reported by the checker.
    #[test]
    fn faults_that_break_the_protocol_are_seen(
        session in session(SessionConfig::default().failures(0)),
        fault in prop::sample::select(BREAKING.to_vec()),
        after in 0usize..8,
    ) {
        let spec = fault.replace("{after}", &after.to_string());
        let faults = harness::dialects::cursor_print::faults::parse(&spec, harness::faults::FROM_ENV).map_err(|e| TestCaseError::fail(e.to_string()))?;
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
/// (A fault that loses the result alone ends the run as the real CLI ends a failure,
/// exit 1: with `exit:code=0`, the misbehaving agent, it breaks the protocol.)
const BREAKING: &[&str] = &[
    "drop:type=user",
    "drop:type=system",
    "drop:type=result;exit:code=0",
    "duplicate:at=tool_call",
    "duplicate:at=result",
    "duplicate:at=user",
    "noise:after={after}",
    "malformed:after={after}",
    "unknown-event:after={after}",
    "eof:at=result;exit:code=0",
    "eof:after={after};exit:code=0",
];

/// The bytes of a seed are kept: cassettes, snapshots and bug reports made from
/// generated sessions depend on them. A change here changes the sessions users have
/// saved; make it on purpose only, and say so in the changelog.
#[test]
fn the_bytes_of_a_seed_are_kept() {
    let configs = [
        ("default", SessionConfig::default(), 64),
        ("seeds", SessionConfig::seeds(), 64),
        ("events-6", SessionConfig::default().max_events(6), 64),
        ("failing", SessionConfig::default().failures(100), 64),
        ("large", SessionConfig::large(), 2),
    ];
    let mut digests = String::new();
    for (name, config, seeds) in configs {
        let mut bytes = Vec::new();
        for seed in 0..seeds {
            let session = from_seed(seed, &config);
            bytes.extend_from_slice(session.stdout().as_bytes());
            for line in &session.stderr {
                bytes.extend_from_slice(line.as_bytes());
                bytes.push(b'\n');
            }
            bytes.extend_from_slice(format!("{:?}\n", session.exit).as_bytes());
        }
        digests.push_str(&format!("{name}: {:016x}\n", fnv1a(&bytes)));
    }
    insta::assert_snapshot!(digests, @r"
    default: b18d6c080ed61cb8
    seeds: b42325cd39fb905f
    events-6: 7af6dc4a306edcac
    failing: b5fa85aa049c961d
    large: 6ac7c16e0efefff7
    ");
}
