//! Faults through the binary: one snapshot per fault and preset of the exact bytes,
//! stderr and ending; signals, stalls and closed pipes observed from outside.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::Duration;

use harness::dialects::cursor_print::faults::catalogue;
use harness::journal;

use crate::support::{mock, mock_std, transcript};

/// Each case: a name, the fault spec, and the output format, on the default
/// session. Every fault and preset of the catalogue has at least one case here or in
/// `CASSETTE_CASES`.
#[rustfmt::skip]
const CASES: &[(&str, &str, &str)] = &[
    ("eof-cut-mid-line", "eof:after=3,byte=10", "stream-json"),
    ("eof-default-before-result", "eof", "stream-json"),
    ("eof-json", "eof", "json"),
    ("eof-text", "eof", "text"),
    // Only a misbehaving agent exits 0 without a result: asked for with `exit`.
    ("eof-exit-0-misbehaving", "eof;exit:code=0", "stream-json"),
    ("eof-exit-0-misbehaving-json", "eof;exit:code=0", "json"),
    ("stderr-at-result", "stderr:text=\"warning: slow\",at=result", "stream-json"),
    ("stderr-flood", "stderr-flood:bytes=300", "stream-json"),
    ("exit-after-success", "exit:code=3", "stream-json"),
    ("exit-json", "exit:code=3", "json"),
    ("signal-mid-line", "signal:name=SEGV,after=2,byte=5", "stream-json"),
    ("stall-short", "stall:ms=50,after=1", "stream-json"),
    ("close-stdout", "close-stdout:after=2", "stream-json"),
    ("close-stdout-json-at-end", "close-stdout:at=end", "json"),
    ("stall-inside-result-json", "stall:ms=1,at=result,byte=1", "json"),
    ("stall-inside-result-text", "stall:ms=1,at=result,byte=1", "text"),
    ("malformed", "malformed:after=1", "stream-json"),
    ("noise", "noise:text=\"[debug] hello\",after=0", "stream-json"),
    ("noise-json", "noise", "json"),
    ("drop-result", "drop:type=result", "stream-json"),
    ("drop-result-json", "drop:type=result", "json"),
    ("duplicate-tool-call", "duplicate:at=tool_call", "stream-json"),
    ("unknown-event", "unknown-event:at=result", "stream-json"),
    ("unknown-field", "unknown-field", "stream-json"),
    ("unknown-field-once", "unknown-field:after=1", "stream-json"),
    ("chunk-size", "chunk:size=7", "stream-json"),
    ("chunk-random", "chunk:random", "stream-json"),
    ("coalesce", "coalesce", "stream-json"),
    ("huge", "huge:bytes=600,at=result", "stream-json"),
    ("crlf", "crlf", "stream-json"),
    ("crlf-text", "crlf", "text"),
    ("invalid-utf8", "invalid-utf8", "stream-json"),
    ("composed", "noise:after=0;eof:at=tool_call;stderr:text=boom;exit:code=2", "stream-json"),
    ("auth-required", "auth-required", "stream-json"),
    ("auth-required-json", "auth-required", "json"),
    ("trust-required", "trust-required", "stream-json"),
    ("quota", "quota", "stream-json"),
    ("quota-text", "quota", "text"),
    ("unknown-model", "unknown-model:model=gpt-9", "stream-json"),
    ("session-in-use", "session-in-use", "stream-json"),
    ("connection-lost", "connection-lost", "stream-json"),
];

/// Cases on a curated cassette: name, spec, format, cassette.
const CASSETTE_CASES: &[(&str, &str, &str, &str)] = &[
    (
        "reorder-parallel",
        "reorder",
        "stream-json",
        "cassettes/parallel-tools.cassette",
    ),
    (
        "reorder-parallel-text",
        "reorder",
        "text",
        "cassettes/parallel-tools.cassette",
    ),
    (
        "eof-partial",
        "eof:at=tool_call",
        "stream-json",
        "cassettes/partial-thinking.cassette",
    ),
];

/// The settings of a snapshot in `snapshots/faults/`, with how the run was made as
/// its info.
fn settings(info: &str) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/faults");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_info(&info);
    settings
}

/// One snapshot in `snapshots/faults/` of a run of the default session.
fn snapshot(name: &str, info: &str, output: &std::process::Output) {
    let mut settings = settings(info);
    // Events the faults insert carry the clock when the stream has no timestamps.
    settings.add_filter(r#""timestamp_ms":\d+"#, r#""timestamp_ms":"[now]""#);
    settings.bind(|| insta::assert_snapshot!(name, transcript(output)));
}

#[test]
fn every_fault_and_preset_has_a_case() {
    let specs = CASES
        .iter()
        .map(|c| c.1)
        .chain(CASSETTE_CASES.iter().map(|c| c.1));
    let names: Vec<&str> = specs
        .flat_map(|spec| spec.split(';'))
        .map(|item| item.split(':').next().unwrap_or_default())
        .collect();
    for entry in catalogue() {
        assert!(names.contains(&entry.name), "no case for `{}`", entry.name);
    }
}

#[test]
fn faults_on_curated_cassettes() {
    for (name, spec, format, cassette) in CASSETTE_CASES {
        let output = mock()
            .env("MOCK_AGENT_FAULTS", spec)
            .env("MOCK_AGENT_CASSETTE", cassette)
            .args(["-p", "--output-format", format, "x"])
            .output()
            .expect("runs");
        settings(&format!(
            "MOCK_AGENT_FAULTS={spec} MOCK_AGENT_CASSETTE={cassette} --output-format {format}"
        ))
        .bind(|| insta::assert_snapshot!(*name, transcript(&output)));
    }
}

#[test]
fn huge_makes_a_line_of_exactly_that_size_still_json() {
    for bytes in [65_537usize, 1_048_577] {
        let output = mock()
            .env("MOCK_AGENT_FAULTS", format!("huge:bytes={bytes}"))
            .args(["-p", "x"])
            .output()
            .expect("runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let line = stdout
            .lines()
            .find(|l| l.contains("mock_padding"))
            .expect("a huge line");
        assert_eq!(line.len(), bytes);
        let event: serde_json::Value = serde_json::from_str(line).expect("valid JSON");
        assert_eq!(event["type"], "result");
    }
}

#[test]
fn each_fault_gives_exact_output() {
    for (name, spec, format) in CASES {
        let output = mock()
            .env("MOCK_AGENT_FAULTS", spec)
            .args([
                "-p",
                "--output-format",
                format,
                "Read README.md and create a summary",
            ])
            .output()
            .expect("runs");
        snapshot(
            name,
            &format!("MOCK_AGENT_FAULTS={spec} --output-format {format}"),
            &output,
        );
    }
}

#[test]
fn the_same_fault_through_replay_flags() {
    let via_env = mock()
        .env(
            "MOCK_AGENT_FAULTS",
            "eof:after=3,byte=10;stderr:text=x;exit:code=1",
        )
        .env("MOCK_AGENT_CASSETTE", "cassettes/seed-example.ndjson")
        .args(["-p", "x"])
        .output()
        .expect("runs");
    let via_flags = mock()
        .args([
            "replay",
            "cassettes/seed-example.ndjson",
            "--fault",
            "eof:after=3,byte=10",
        ])
        .args(["--fault", "stderr:text=x;exit:code=1"])
        .output()
        .expect("runs");
    assert_eq!(via_env.stdout, via_flags.stdout);
    assert_eq!(via_env.stderr, via_flags.stderr);
    assert_eq!(via_env.status.code(), Some(1));
    assert_eq!(via_flags.status.code(), Some(1));
}

#[test]
fn a_bad_fault_spec_is_the_mock_s_own_error() {
    let output = mock()
        .env("MOCK_AGENT_FAULTS", "eof:after=1;stall:ms=soon")
        .args(["-p", "x"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(64));
    assert!(output.stdout.is_empty());
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stderr), @r"
    mock-agent: MOCK_AGENT_FAULTS:1:19: invalid data: `ms=soon`: ms is milliseconds
      |
    1 | eof:after=1;stall:ms=soon
      |                   ^
    help: `mock-agent faults` lists every fault with an example
    ");
    let output = mock()
        .args(["replay", "cassettes/seed-example.ndjson", "--fault", "nope"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&output.stderr)
        .starts_with("mock-agent: --fault:1:1: invalid data: unknown fault `nope`"));
}

#[test]
fn faults_lists_every_fault_with_an_example() {
    let output = mock().arg("faults").output().expect("runs");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    for entry in catalogue() {
        assert!(
            text.contains(entry.name) && text.contains(entry.example),
            "{}",
            entry.name
        );
        // Every example is itself a valid spec.
        harness::dialects::cursor_print::faults::parse(entry.example, harness::faults::FROM_ENV)
            .expect(entry.example);
    }
}

/// `faults --dialect NAME` lists that dialect's section alone, under its heading;
/// an unknown name is an error that lists the dialects.
#[test]
fn faults_of_one_dialect_list_its_section_alone() {
    for dialect in harness::dialects::ALL {
        let output = mock()
            .args(["faults", "--dialect", dialect.name()])
            .output()
            .expect("runs");
        assert!(output.status.success(), "{}", dialect.name());
        let text = String::from_utf8_lossy(&output.stdout);
        let names: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with(' ') && !l.ends_with("in MOCK_AGENT_FAULTS:"))
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        let wanted: Vec<&str> = dialect.catalogue().iter().map(|e| e.name).collect();
        assert_eq!(names, wanted, "{}", dialect.name());
        let headings = text
            .lines()
            .filter(|l| l.ends_with("in MOCK_AGENT_FAULTS:"))
            .count();
        assert!(headings <= 1, "{}: {text}", dialect.name());
    }
    let output = mock()
        .args(["faults", "--dialect", "nope"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(64));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("mock-agent: ") && stderr.contains("codex-app-server"),
        "{stderr}"
    );
}

fn spawn(faults: &str, journal: Option<&std::path::Path>) -> std::process::Child {
    let mut cmd = mock_std();
    cmd.env("MOCK_AGENT_FAULTS", faults).args(["-p", "hi"]);
    if let Some(path) = journal {
        cmd.env("MOCK_AGENT_JOURNAL", path);
    }
    // stdin is a pipe that the test keeps open, as a careless consumer does.
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns")
}

/// Waits for `child`, which must end by SIGTERM, as its journal `journal_path` must
/// say: the journal's entries.
#[track_caller]
fn ended_by_sigterm(child: &mut std::process::Child, journal_path: &std::path::Path) -> Vec<journal::Entry> {
    let status = child.wait().expect("waits");
    assert_eq!(status.signal(), Some(15));
    let entries = journal::read(journal_path).expect("journal");
    assert_eq!(entries[0].signal.as_deref(), Some("TERM"));
    assert_eq!(entries[0].exit, journal::ExitRecord::Signal("TERM".into()));
    entries
}

fn term(child: &std::process::Child) {
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("signals");
}

/// A journaled run blocked on a full pipe (a consumer that stopped reading) still
/// ends on SIGTERM, by it, and its journal says so.
#[test]
fn a_mock_blocked_on_a_full_pipe_ends_on_sigterm_and_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal_path = dir.path().join("journal.jsonl");
    let mut child = spawn("huge:bytes=4000000,after=1", Some(&journal_path));
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("reads");
    assert!(line.starts_with('{'), "{line}");
    // The 4 MB line fills the pipe, and nobody reads it any more.
    std::thread::sleep(Duration::from_millis(100));
    term(&child);
    ended_by_sigterm(&mut child, &journal_path);
}

#[test]
fn a_stalled_mock_ends_at_once_on_sigterm_and_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal_path = dir.path().join("journal.jsonl");
    let mut child = spawn("stall:after=2", Some(&journal_path));
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    for _ in 0..2 {
        line.clear();
        stdout.read_line(&mut line).expect("reads");
        assert!(line.starts_with('{'), "{line}");
    }
    term(&child);
    // How fast it ends is the timing benchmark's (SIGTERM latency), not a test's:
    // here, that it ends by the signal at all, with the stall unfinished.
    let entries = ended_by_sigterm(&mut child, &journal_path);
    assert_eq!(
        entries[0].faults,
        vec![journal::FaultRecord {
            name: "stall".into(),
            fired: true
        }]
    );
}

#[test]
fn a_timed_stall_holds_the_rest_back() {
    // Held back: with a stall longer than the test, only the line before it is out
    // when the mock is ended. (When the wait ends is the executor's paused-time tests'.)
    let mut child = spawn("stall:ms=600000,after=1", None);
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("reads");
    assert!(line.starts_with('{'), "{line}");
    term(&child);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("reads to the end");
    assert_eq!(rest, "", "nothing after the stall's place");
    assert_eq!(child.wait().expect("waits").signal(), Some(15));
    // A stall that ends lets the rest through, and the run ends as recorded.
    let output = mock()
        .env("MOCK_AGENT_FAULTS", "stall:ms=1,after=1")
        .args(["-p", "hi"])
        .output()
        .expect("runs");
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 10);
}

#[test]
fn close_stdout_gives_end_of_file_while_the_process_lives() {
    let mut child = spawn("close-stdout:after=2;stall", None);
    let mut stdout = child.stdout.take().expect("stdout");
    let mut all = String::new();
    stdout.read_to_string(&mut all).expect("reads to end of file");
    assert_eq!(all.lines().count(), 2);
    assert!(
        child.try_wait().expect("polls").is_none(),
        "still running after stdout closed"
    );
    term(&child);
    assert_eq!(child.wait().expect("waits").signal(), Some(15));
}

#[test]
fn a_consumer_that_reads_stderr_first_meets_a_flood() {
    // The careful way (both streams at once, as `output()` does) gets every byte.
    let output = mock()
        .env("MOCK_AGENT_FAULTS", "stderr-flood:bytes=1000000")
        .args(["-p", "hi"])
        .output()
        .expect("runs");
    assert!(output.status.success());
    assert_eq!(output.stderr.len(), 1_000_000);
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 10);
}

#[test]
fn a_signal_fault_is_how_the_process_dies() {
    for (name, number) in [("KILL", 9), ("TERM", 15), ("SEGV", 11), ("ABRT", 6)] {
        let output = mock()
            .env("MOCK_AGENT_FAULTS", format!("signal:name={name},after=1"))
            .args(["-p", "hi"])
            .output()
            .expect("runs");
        assert_eq!(output.status.signal(), Some(number), "{name}");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout).lines().count(),
            1,
            "{name}"
        );
    }
}

#[test]
fn the_journal_says_which_faults_acted_and_when_the_pipe_closed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("journal.jsonl");
    // stdin is a pipe whose writer is closed before the mock starts: an inherited
    // stdin (`cargo test`'s, under CI an open pipe) would make the answer depend on
    // the machine.
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(writer);
    let output = mock_std()
        .env("MOCK_AGENT_JOURNAL", &path)
        .env("MOCK_AGENT_FAULTS", "eof:after=50;noise:at=telemetry")
        .env("MOCK_AGENT_SEED", "7")
        .args(["-p", "hi"])
        .stdin(reader)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let entry = &journal::read(&path).expect("journal")[0];
    assert_eq!(entry.seed, 7);
    assert_eq!(
        entry.faults,
        vec![
            journal::FaultRecord {
                name: "eof".into(),
                fired: true
            },
            journal::FaultRecord {
                name: "noise".into(),
                fired: true
            },
        ],
        "placements never reached act at the end"
    );
    assert_eq!(entry.stdin_open, Some(false), "the consumer closed stdin");

    // A consumer that stops reading: the journal has the time of EPIPE.
    let mut child = spawn("stall:ms=200,after=1", Some(&path));
    let mut first = [0u8; 1];
    child
        .stdout
        .as_mut()
        .expect("stdout")
        .read_exact(&mut first)
        .expect("reads");
    drop(child.stdout.take());
    // `wait` would close stdin first: keep it open until the mock has ended.
    let stdin = child.stdin.take();
    child.wait().expect("waits");
    drop(stdin);
    let entry = &journal::read(&path).expect("journal")[1];
    assert_eq!(entry.stdin_open, Some(true), "the consumer left stdin open");
    assert!(entry.stdout_closed);
    assert!(entry.stdout_closed_at_ms.is_some_and(|ms| ms >= 200), "{entry:?}");
}

/// A fault on events that the output format leaves out did not act: the journal says
/// `fired` exactly when the consumer's output differs from the run without it.
#[test]
fn a_fault_the_format_leaves_out_did_not_fire() {
    // On the default session; `after=5` is the first completed tool call. The formats
    // in order: stream-json, json, text.
    let cases: &[(&str, [bool; 3])] = &[
        ("duplicate", [true, false, false]),
        ("duplicate:after=5", [true, false, true]),
        ("unknown-event", [true, false, false]),
        ("unknown-event:at=result", [true, false, false]),
        ("huge:bytes=600", [true, true, false]),
        ("huge:bytes=600,after=1", [true, false, false]),
        ("unknown-field", [true, true, false]),
        ("drop:type=assistant", [true, false, false]),
        ("drop:type=result", [true, true, true]),
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("journal.jsonl");
    let mut entries = 0;
    for (spec, expected) in cases {
        for (format, expected) in ["stream-json", "json", "text"].into_iter().zip(expected) {
            let run = |faults: &str| {
                mock()
                    .env("MOCK_AGENT_JOURNAL", &journal)
                    .env("MOCK_AGENT_FAULTS", faults)
                    .args(["-p", "--output-format", format, "hi"])
                    .output()
                    .expect("runs")
            };
            let plain = run("");
            let faulted = run(spec);
            entries += 2;
            let entry = journal::read(&journal).expect("journal").remove(entries - 1);
            let fired = entry.faults.iter().map(|f| f.fired).collect::<Vec<_>>();
            assert_eq!(fired, vec![*expected], "{spec} in {format}");
            let changed = (&plain.stdout, &plain.stderr, plain.status.code())
                != (&faulted.stdout, &faulted.stderr, faulted.status.code());
            assert_eq!(
                changed, *expected,
                "{spec} in {format}: fired is what reached the consumer"
            );
        }
    }
}

mod compose {
    //! Faults compose without panics, in any order and any number.

    use harness::dialects::cursor_print::faults::{catalogue, parse};
    use harness::faults::FROM_ENV;
    use harness::frames::Frame;
    use harness::scenario::Scenario;
    use harness::{OutputFormat, RenderOptions, Source};
    use proptest::prelude::*;

    /// One fault: a catalogue example, or a fault with a random placement.
    fn fault() -> impl Strategy<Value = String> {
        let examples: Vec<String> = catalogue()
            .iter()
            .map(|e| e.example.to_owned())
            // A stall for ever waits for a signal; the executor is not run here, but keep it short.
            .filter(|e| !e.starts_with("close-stdout:at=result;stall"))
            .collect();
        let placed = (
            prop::sample::select(vec![
                "eof",
                "signal:name=TERM",
                "stall:ms=1",
                "close-stdout",
                "malformed",
                "noise",
                "duplicate",
                "unknown-event",
                "unknown-field",
                "huge:bytes=300",
                "invalid-utf8",
                "stderr:text=x",
                "stderr-flood:bytes=10",
            ]),
            prop_oneof![
                (0usize..14).prop_map(|n| format!("after={n}")),
                prop::sample::select(vec![
                    "system",
                    "user",
                    "assistant",
                    "tool_call",
                    "result",
                    "thinking",
                    "nope",
                    "end"
                ])
                .prop_map(|t| format!("at={t}")),
            ],
            prop::option::of(0usize..400),
        )
            .prop_map(|(name, place, byte)| {
                let cut = ["eof", "signal", "stall", "close-stdout"]
                    .iter()
                    .any(|c| name.starts_with(c));
                let sep = if name.contains(':') { "," } else { ":" };
                match byte.filter(|_| cut) {
                    Some(k) => format!("{name}{sep}{place},byte={k}"),
                    None => format!("{name}{sep}{place}"),
                }
            });
        prop_oneof![prop::sample::select(examples), placed]
    }

    fn scenario() -> impl Strategy<Value = (Vec<String>, OutputFormat, bool, Option<&'static str>)> {
        (
            prop::collection::vec(fault(), 0..5),
            prop::sample::select(OutputFormat::ALL.to_vec()),
            any::<bool>(),
            prop::sample::select(vec![
                None,
                Some("cassettes/parallel-tools.cassette"),
                Some("cassettes/partial-thinking.cassette"),
                Some("cassettes/connection-lost.cassette"),
            ]),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::roundtrip::cases(512)))]

        /// Any composition plans and runs to one end frame, with times in order.
        #[test]
        fn faults_compose_without_panics((specs, format, partial, cassette) in scenario()) {
            let mut scenario = Scenario::new(RenderOptions::new(format).stream_partial_output(partial).now_ms(1));
            for spec in &specs {
                scenario.faults.extend(parse(spec, FROM_ENV).map_err(|e| TestCaseError::fail(e.to_string()))?);
            }
            let source = match cassette {
                Some(path) => Source::Cassette(crate::support::root().join(path)),
                None => Source::Default,
            };
            let recording = source.open("x").map_err(|e| TestCaseError::fail(e.to_string()))?;
            let plan = scenario.plan(recording).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let frames: Vec<Frame> = plan.frames.collect::<Result<_, _>>().map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(matches!(frames.last(), Some(Frame::End(_))), "{specs:?}: {frames:?}");
            prop_assert_eq!(frames.iter().filter(|f| matches!(f, Frame::End(_))).count(), 1);
            prop_assert!(frames.windows(2).all(|w| w[0].at() <= w[1].at()));
            prop_assert_eq!(plan.applied.report().len(), scenario.faults.len());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::roundtrip::cases(24)))]

        /// Through the binary: no panic, and an ending the mock can have.
        #[test]
        fn the_binary_survives_any_composition((specs, format, _, _) in scenario()) {
            let specs: Vec<String> = specs.into_iter().filter(|s| !s.starts_with("stall") && !s.contains(";stall")).collect();
            let output = crate::support::mock()
                .env("MOCK_AGENT_FAULTS", specs.join(";"))
                .args(["-p", "--output-format", format.as_str(), "x"])
                .output()
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let stderr = String::from_utf8_lossy(&output.stderr);
            prop_assert!(!stderr.contains("panicked"), "{stderr}");
            prop_assert!(!stderr.contains("mock-agent:"), "{specs:?}: {stderr}");
        }
    }
}

/// What a run of the mock does on stdout and stderr and how it ends, planned (the
/// default session, faults applied, no timing): stdout, stderr, exit.
fn planned(
    spec: &str,
    format: harness::OutputFormat,
    source: &harness::Source,
) -> (String, String, harness::Exit) {
    use harness::scenario::Scenario;
    use harness::{Frame, RenderOptions, Stream};
    let mut scenario = Scenario::new(RenderOptions::new(format));
    scenario.faults =
        harness::dialects::cursor_print::faults::parse(spec, harness::faults::FROM_ENV).expect("parses");
    let plan = scenario.plan(source.open("hi").expect("opens")).expect("plans");
    let (mut stdout, mut stderr, mut exit) = (String::new(), String::new(), None);
    let mut closed = false;
    for frame in plan.frames {
        match frame.expect("a frame") {
            Frame::CloseStdout { .. } => closed = true,
            Frame::Line(line) => {
                let text =
                    String::from_utf8_lossy(&line.bytes).into_owned() + if line.newline { "\n" } else { "" };
                match line.stream {
                    Stream::Stdout if !closed => stdout.push_str(&text),
                    Stream::Stderr => stderr.push_str(&text),
                    _ => {}
                }
            }
            Frame::End(end) => exit = Some(end.exit),
            _ => {}
        }
    }
    (stdout, stderr, exit.expect("an end"))
}

#[test]
fn every_fault_of_the_matrix_ends_as_the_real_cli_in_every_format() {
    use harness::OutputFormat;
    // The real CLI ends a run either with its result and exit 0, or with a message on
    // stderr and exit 1 (or by a signal); never exit 0 without a result.
    let sources = [
        harness::Source::Default,
        harness::Source::Cassette(crate::support::root().join("cassettes/partial-thinking.cassette")),
    ];
    for source in &sources {
        for (label, spec) in harness::dialects::cursor_print::dialect::standard_faults() {
            let clean = planned("", OutputFormat::Json, source).0;
            for format in [OutputFormat::StreamJson, OutputFormat::Json, OutputFormat::Text] {
                let (stdout, stderr, exit) = planned(&spec, format, source);
                let case = format!("{label} ({spec}) in {format}");
                match exit {
                    harness::Exit::Code(0) => {
                        let result = match format {
                            OutputFormat::Text => planned(&spec, OutputFormat::StreamJson, source).0,
                            _ => stdout.clone(),
                        };
                        let has_result = result
                            .lines()
                            .any(|l| l.trim_end().starts_with(r#"{"type":"result""#))
                            || (format == OutputFormat::Json && stdout.trim_end() == clean.trim_end());
                        assert!(has_result, "{case}: exit 0 without a result:\n{stdout}");
                    }
                    // An `exit` fault decides how the run ends, on purpose.
                    harness::Exit::Code(code) if !spec.contains("exit:") => {
                        assert!(
                            !stderr.trim().is_empty(),
                            "{case}: exit {code} and nothing on stderr"
                        );
                    }
                    _ => {}
                }
            }
        }
    }
}

#[test]
fn a_misbehaving_agent_is_asked_for_and_named() {
    use harness::run::{Case, CaseSource};
    use harness::OutputFormat;
    for format in [OutputFormat::StreamJson, OutputFormat::Json, OutputFormat::Text] {
        let (stdout, stderr, exit) = planned("eof;exit:code=0", format, &harness::Source::Default);
        assert_eq!(exit, harness::Exit::Code(0), "{format}");
        assert!(
            stderr.is_empty() && !stdout.contains(r#""type":"result""#),
            "{format}: {stdout}{stderr}"
        );
    }
    let real = Case::new(
        CaseSource::Default,
        OutputFormat::StreamJson,
        "eof",
        "default/eof".into(),
    )
    .expect("case");
    assert_eq!(real.name, "default/eof");
    let asked = Case::new(
        CaseSource::Default,
        OutputFormat::StreamJson,
        "eof;exit:code=0",
        "default/eof-exit-0".into(),
    )
    .expect("case");
    assert_eq!(asked.name, "default/eof-exit-0+misbehaving-agent");
    assert_eq!(
        asked.expect,
        harness::dialects::cursor_print::expect::Expectation::Failure
    );
    // `mock-agent faults` says which fault asks for it.
    let listed = mock().arg("faults").output().expect("runs");
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains("misbehaving agent (never the real CLI, only when asked for): `exit:code=0`"),
        "{listed}"
    );
}

#[test]
fn a_fault_that_changes_no_byte_nor_the_exit_expects_what_the_clean_run_expects() {
    use harness::dialects::cursor_print::expect::expectation_of;
    use harness::scenario::Scenario;
    use harness::{OutputFormat, RenderOptions};
    let frames = |spec: &str, source: &harness::Source| {
        let mut scenario = Scenario::new(RenderOptions::new(OutputFormat::StreamJson));
        scenario.faults =
            harness::dialects::cursor_print::faults::parse(spec, harness::faults::FROM_ENV).expect("parses");
        let plan = scenario.plan(source.open("hi").expect("opens")).expect("plans");
        plan.frames.collect::<Result<Vec<_>, _>>().expect("frames")
    };
    let sources = [
        harness::Source::Default,
        harness::Source::Cassette(crate::support::root().join("cassettes/partial-thinking.cassette")),
    ];
    let mut same = 0;
    for source in &sources {
        let clean = frames("", source);
        let clean_run = planned("", OutputFormat::StreamJson, source);
        for fault in [
            "stall:ms=1",
            "close-stdout",
            "eof",
            "signal:name=TERM",
            "duplicate",
            "huge:bytes=10",
        ] {
            for place in ["at=result", "at=assistant", "at=tool_call", "after=1", "at=end"] {
                for byte in [None, Some(0), Some(1), Some(40), Some(100_000)] {
                    let byte = byte.map(|k| format!(",byte={k}")).unwrap_or_default();
                    let sep = if fault.contains(':') { "," } else { ":" };
                    let spec = format!("{fault}{sep}{place}{byte}");
                    let Ok(_) =
                        harness::dialects::cursor_print::faults::parse(&spec, harness::faults::FROM_ENV)
                    else {
                        continue; // a key the fault does not take
                    };
                    if planned(&spec, OutputFormat::StreamJson, source) == clean_run {
                        same += 1;
                        assert_eq!(
                            expectation_of(&frames(&spec, source)),
                            expectation_of(&clean),
                            "{spec}: the clean run's bytes and exit, another expectation"
                        );
                    }
                }
            }
        }
    }
    assert!(same > 20, "{same} cases write the clean run's bytes");
}
