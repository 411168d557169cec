//! Replay is byte for byte: stdout and stderr as recorded, the recorded ending, and a
//! quiet end when the consumer stops reading.

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use harness::cassette::{self, Header, Invocation, Writer};
use harness::{Ending, Exit, Frame, Line, OutputFormat, Signal, Stream};

use crate::support::{bin, curated, mock};

/// The stdout and stderr bytes and the ending a recording holds.
fn recorded(path: &Path) -> (Vec<u8>, Vec<u8>, Exit, bool) {
    let reader = cassette::open(path).expect("opens");
    let partial = reader
        .header()
        .is_some_and(|h| h.invocation.stream_partial_output);
    let (mut out, mut err, mut exit) = (Vec::new(), Vec::new(), None);
    for frame in reader {
        match frame.expect("valid") {
            Frame::Line(line) => {
                let sink = if line.stream == Stream::Stdout {
                    &mut out
                } else {
                    &mut err
                };
                sink.extend_from_slice(&line.bytes);
                if line.newline {
                    sink.push(b'\n');
                }
            }
            Frame::End(end) => exit = Some(end.exit),
            other => panic!("no stalls in curated cassettes: {other:?}"),
        }
    }
    (out, err, exit.expect("an ending"), partial)
}

fn assert_ends(status: std::process::ExitStatus, exit: Exit, what: &str) {
    match exit {
        Exit::Code(code) => assert_eq!(status.code(), Some(code), "{what}"),
        Exit::Signal(signal) => assert_eq!(status.signal(), Some(signal.number()), "{what}"),
    }
}

#[test]
fn stream_json_replays_every_curated_recording_byte_for_byte() {
    let curated = curated();
    assert!(curated.len() >= 8, "the curated cassettes are there: {curated:?}");
    for path in curated {
        let (out, err, exit, partial) = recorded(&path);
        let mut cmd = mock();
        cmd.env("MOCK_AGENT_CASSETTE", &path)
            .args(["-p", "--output-format", "stream-json"]);
        if partial {
            cmd.arg("--stream-partial-output");
        }
        let output = cmd.arg("hi").output().expect("runs");
        if path.extension().is_some_and(|e| e == "ndjson") {
            // A capture is its own oracle.
            assert_eq!(output.stdout, std::fs::read(&path).expect("reads"), "{path:?}");
        }
        assert_eq!(output.stdout, out, "{path:?}");
        assert_eq!(output.stderr, err, "{path:?}");
        assert_ends(output.status, exit, &path.display().to_string());
    }
}

#[test]
fn a_capture_replays_as_the_file_it_is() {
    let capture = crate::support::root().join("cassettes/correcto.ndjson");
    let bytes = std::fs::read(&capture).expect("capture");
    mock()
        .arg("replay")
        .arg(&capture)
        .assert()
        .success()
        .stdout(bytes);
    // Cut in the middle of the last line: replayed as cut, and a failure.
    let dir = tempfile::tempdir().expect("temp dir");
    let cut = dir.path().join("cut.ndjson");
    let seed = crate::support::root().join("cassettes/seed-example.ndjson");
    let seed = std::fs::read(seed).expect("seed");
    std::fs::write(&cut, &seed[..seed.len() - 40]).expect("write");
    mock()
        .arg("replay")
        .arg(&cut)
        .assert()
        .code(1)
        .stdout(seed[..seed.len() - 40].to_vec())
        .stderr("");
}

fn write_cassette(path: &Path, format: Option<OutputFormat>, frames: &[Frame]) {
    let mut writer = Writer::create(
        path,
        &Header::new(Invocation {
            output_format: format,
            ..Invocation::default()
        }),
    )
    .expect("creates");
    for frame in frames {
        writer.write(frame).expect("writes");
    }
    writer.finish().expect("finishes");
}

#[test]
fn a_recorded_signal_is_how_the_mock_dies() {
    let dir = tempfile::tempdir().expect("temp dir");
    for signal in [
        Signal::Term,
        Signal::Kill,
        Signal::Segv,
        Signal::Abrt,
        Signal::Pipe,
        Signal::Int,
    ] {
        let path = dir.path().join("signal.cassette");
        let line = Line::stdout(
            Duration::ZERO,
            r#"{"type":"system","subtype":"init","session_id":"s"}"#,
        );
        let end = Frame::End(Ending {
            at: Duration::ZERO,
            exit: Exit::Signal(signal),
        });
        write_cassette(&path, None, &[Frame::Line(line), end]);
        let output = mock()
            .current_dir(dir.path())
            .arg("replay")
            .arg(&path)
            .output()
            .expect("runs");
        assert_eq!(output.status.signal(), Some(signal.number()), "{signal}");
        assert!(output.stdout.starts_with(b"{\"type\":\"system\""), "{signal}");
        assert!(!dir.path().join("core").exists(), "no core file");
    }
}

#[test]
fn a_consumer_that_stops_reading_gets_a_quiet_exit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("long.cassette");
    let mut frames: Vec<Frame> = (0..50_000)
        .map(|i| {
            Frame::Line(Line::stdout(
                Duration::ZERO,
                format!(r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"line {i}"}}]}},"session_id":"s"}}"#),
            ))
        })
        .collect();
    frames.push(Frame::End(Ending {
        at: Duration::ZERO,
        exit: Exit::Code(0),
    }));
    write_cassette(&path, None, &frames);
    let mut child = replaying(&path);
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("reads a line");
    assert!(first.contains("line 0"));
    // stdout is dropped here: the mock's next write hits a closed pipe.
    let output = child.wait_with_output().expect("waits");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

#[test]
fn a_recording_in_json_or_text_replays_in_its_own_format_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("text.cassette");
    let frames = [
        Frame::Line(Line::stdout(Duration::ZERO, "Read file")),
        Frame::Line(Line::stdout(Duration::from_millis(5), "Done.")),
        Frame::End(Ending {
            at: Duration::from_millis(6),
            exit: Exit::Code(0),
        }),
    ];
    write_cassette(&path, Some(OutputFormat::Text), &frames);
    mock()
        .args(["replay", "--output-format", "text"])
        .arg(&path)
        .assert()
        .success()
        .stdout("Read file\nDone.\n");
    let output = mock()
        .args(["replay", "--output-format", "json"])
        .arg(&path)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(65));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("recorded with `--output-format text`; it replays as text only"),
        "{stderr}"
    );
}

#[test]
fn partial_output_is_normalized_to_the_flag() {
    let path = crate::support::root().join("cassettes/partial-thinking.cassette");
    let lines = |partial: bool| {
        let mut cmd = mock();
        cmd.arg("replay").arg(&path);
        if partial {
            cmd.arg("--stream-partial-output");
        }
        let out = cmd.output().expect("runs");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.contains(r#""type":"assistant""#))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let with = lines(true);
    let without = lines(false);
    assert!(with.len() > without.len(), "deltas only with the flag");
    // Without the flag: the whole segments, which are the closing lines recorded.
    for segment in &without {
        assert!(with.contains(segment));
    }
    // The seed example has no deltas: with the flag, deltas are made from its text.
    let seed = mock()
        .args(["-p", "--stream-partial-output", "x"])
        .output()
        .expect("runs");
    let seed = String::from_utf8_lossy(&seed.stdout);
    let deltas = seed
        .lines()
        .filter(|l| l.contains(r#""type":"assistant""#) && l.contains("timestamp_ms"));
    let text: String = deltas
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("json")["message"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(text, "I'll read the README.md file and create a summary");
}

#[test]
fn the_fast_reader_reads_what_the_full_reader_reads() {
    let read = |path: &Path, fast: bool| -> Vec<Frame> {
        let reader = cassette::open(path).expect("opens");
        let reader = if fast { reader.fast() } else { reader };
        reader.map(|f| f.expect("valid")).collect()
    };
    let dir = tempfile::tempdir().expect("temp dir");
    for path in curated() {
        assert_eq!(read(&path, false), read(&path, true), "{path:?}");
        // The same stdout as a bare capture: times come from `timestamp_ms`.
        let stdout = recorded(&path).0;
        if !stdout.is_empty() {
            let capture = dir.path().join("capture.ndjson");
            std::fs::write(&capture, stdout).expect("writes");
            assert_eq!(
                read(&capture, false),
                read(&capture, true),
                "{path:?} as a capture"
            );
        }
    }
}

#[test]
fn a_long_run_of_assistant_lines_is_let_go_unchanged() {
    // More than `MAX_HELD_BYTES` of whole segments in a capture (which does not say how
    // it was recorded, so segments are normalized): replayed as they are.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("run.ndjson");
    let line = |i: usize| {
        format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"segment {i} {}"}}]}},"session_id":"s"}}"#,
            "x".repeat(200)
        )
    };
    let mut text: String = (0..25_000).map(|i| line(i) + "\n").collect();
    text.push_str(r#"{"type":"result","subtype":"success","is_error":false,"result":"","session_id":"s"}"#);
    text.push('\n');
    assert!(text.len() > harness::dialects::cursor_print::render::segments::MAX_HELD_BYTES);
    std::fs::write(&path, &text).expect("writes");
    mock().arg("replay").arg(&path).assert().success().stdout(text);
}

#[test]
fn a_recorded_close_and_stall_replay_as_they_ran() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("closed.cassette");
    let frames = [
        Frame::Line(Line::stdout(
            Duration::ZERO,
            r#"{"type":"system","subtype":"init","session_id":"s"}"#,
        )),
        Frame::CloseStdout { at: Duration::ZERO },
        Frame::Stall {
            at: Duration::ZERO,
            duration: Some(Duration::from_millis(300)),
        },
        Frame::Line(Line::stderr(Duration::ZERO, "still here")),
        Frame::End(Ending {
            at: Duration::ZERO,
            exit: Exit::Code(0),
        }),
    ];
    write_cassette(&path, None, &frames);
    let read: Vec<Frame> = cassette::open(&path)
        .expect("opens")
        .map(|f| f.expect("valid"))
        .collect();
    assert_eq!(read, frames);
    let mut child = replaying(&path);
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().expect("stdout"), &mut stdout)
        .expect("reads to the end");
    assert_eq!(
        stdout,
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n"
    );
    assert!(
        child.try_wait().expect("polls").is_none(),
        "stdout ended while the mock stalls"
    );
    let output = child.wait_with_output().expect("waits");
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stderr), "still here\n");
}

#[test]
fn a_cassette_can_come_from_a_pipe() {
    let cassette = crate::support::root().join("cassettes/shell-command.cassette");
    let (out, _, _, _) = recorded(&cassette);
    let output = mock()
        .args(["replay", "/dev/stdin"])
        .write_stdin(std::fs::read(&cassette).expect("reads"))
        .output()
        .expect("runs");
    assert_eq!(output.stdout, out);
    crate::support::assert_said(&output, 0);
}

#[test]
fn a_capture_keeps_its_lines_and_its_ending() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("twice.ndjson");
    let seed =
        std::fs::read_to_string(crate::support::root().join("cassettes/seed-example.ndjson")).expect("seed");
    let lines: Vec<&str> = seed.lines().collect();
    // Two whole segments alike are two segments, not a delta and its closing line; a
    // blank last line (an editor's) does not make the run a failure.
    let assistant = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"OK"}]},"session_id":"c6b62c6f-7ead-4fd6-9922-e952131177ff"}"#;
    let text = format!(
        "{}\n{}\n{}\n{assistant}\n{assistant}\n{}\n\n",
        lines[0], lines[1], lines[2], lines[9]
    );
    std::fs::write(&path, &text).expect("writes");
    mock()
        .arg("replay")
        .arg(&path)
        .assert()
        .success()
        .stdout(text.clone());
    let json = mock()
        .args(["replay", "--output-format", "json"])
        .arg(&path)
        .output()
        .expect("runs");
    assert!(json.status.success());
    assert_eq!(String::from_utf8_lossy(&json.stdout), format!("{}\n", lines[9]));
}

#[test]
fn resume_changes_the_session_id_and_nothing_else() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("numbers.ndjson");
    let text = concat!(
        r#"{"type":"system","subtype":"init","n":1.50,"big":12345678901234567890123,"u":"caf\u00e9 \/ x","session_id":"old"}"#,
        "\n",
        r#"{"type":"result","subtype":"success","is_error":false,"result":"","session_id":"old"}"#,
        "\n"
    );
    std::fs::write(&path, text).expect("writes");
    mock()
        .args(["replay", "--resume", "new"])
        .arg(&path)
        .assert()
        .success()
        .stdout(text.replace(r#""session_id":"old""#, r#""session_id":"new""#));
}

#[test]
fn a_closed_stderr_is_no_crash() {
    use std::os::unix::process::ExitStatusExt;
    // Every message goes to a stderr nobody reads: the mock still ends with its code.
    for args in [
        &["replay", "cassettes/nope.cassette"][..],
        &["-p", "--formatt"],
        &["faults"],
    ] {
        let status = Command::new(bin())
            .current_dir(crate::support::root())
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                drop(child.stderr.take());
                child.wait()
            })
            .expect("runs");
        assert_eq!(status.signal(), None, "{args:?}");
        assert!(
            status.code().is_some_and(|c| c != 134 && c != 101),
            "{args:?}: {status:?}"
        );
    }
}

/// Runs `mock-agent -p x` with these faults on `cassette` (the default session when
/// `None`), reads `read` bytes of its stdout (all of them when `None`) and closes the
/// pipe; returns how it ended and its stderr.
fn close_after(
    cassette: Option<&Path>,
    faults: &str,
    read: Option<usize>,
) -> (std::process::ExitStatus, Vec<u8>) {
    use std::io::Read;
    let mut cmd = Command::new(bin());
    harness::run::child::without_mock_env(&mut cmd);
    if let Some(path) = cassette {
        cmd.env("MOCK_AGENT_CASSETTE", path);
    }
    let mut child = cmd
        .env("MOCK_AGENT_FAULTS", faults)
        .args(["-p", "x"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    // stderr is drained meanwhile: a flood must not block the mock.
    let mut stderr = child.stderr.take().expect("stderr");
    let drain = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stderr.read_to_end(&mut bytes).map(|_| bytes)
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let mut buf = vec![0u8; 4096];
    let mut total = 0;
    while read.is_none_or(|n| total < n) {
        let want = read.map_or(buf.len(), |n| (n - total).min(buf.len()));
        match stdout.read(&mut buf[..want]) {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => panic!("reads stdout: {e}"),
        }
    }
    drop(stdout);
    let status = child.wait().expect("waits");
    let stderr = drain.join().expect("drains").expect("reads stderr");
    (status, stderr)
}

#[test]
fn a_consumer_that_closes_stdout_at_once_gets_a_quiet_exit() {
    // `mock-agent -p x | (exec 0<&-; sleep .2)`: nothing is read at all.
    let (status, stderr) = close_after(None, "", Some(0));
    assert_eq!(status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&stderr), "");
}

#[test]
fn a_closed_stdout_keeps_the_planned_ending_and_stderr() {
    // `huge` makes the output larger than a pipe holds: the mock is still writing when
    // the consumer has read one byte and gone (`| head -c 1`).
    let huge = "huge:bytes=100000,after=1";
    let (status, stderr) = close_after(None, huge, Some(1));
    assert_eq!(status.code(), Some(0), "{}", String::from_utf8_lossy(&stderr));
    assert_eq!(String::from_utf8_lossy(&stderr), "");

    let (status, _) = close_after(None, &format!("{huge};exit:code=3"), Some(1));
    assert_eq!(status.code(), Some(3));

    let (status, _) = close_after(None, &format!("{huge};signal:name=TERM"), Some(1));
    assert_eq!(status.signal(), Some(Signal::Term.number()));

    let (status, stderr) = close_after(None, &format!("{huge};stderr:text=still here"), Some(1));
    assert_eq!(status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&stderr), "still here\n");

    // A recording's own stderr and failure, after the consumer has gone.
    let lost = crate::support::root().join("cassettes/connection-lost.cassette");
    let (_, recorded_stderr, recorded_exit, _) = recorded(&lost);
    let (status, stderr) = close_after(Some(&lost), huge, Some(1));
    assert_ends(status, recorded_exit, "connection-lost");
    assert_eq!(stderr, recorded_stderr);
}

mod closing {
    //! Whenever the consumer closes stdout, the mock ends as it would have ended with
    //! a consumer that read everything.

    use std::os::unix::process::ExitStatusExt;

    use harness::generate::{from_seed, SessionConfig};
    use proptest::prelude::*;

    use super::close_after;

    /// Faults that change the ending, the stderr or the size of the output.
    const FAULTS: &[&str] = &[
        "",
        "exit:code=3",
        "signal:name=TERM,at=result",
        "signal:name=KILL,after=2,byte=5",
        "eof:after=3",
        "stderr:text=boom",
        "stderr-flood:bytes=100000",
        "huge:bytes=200000,after=1",
        "drop:type=result",
        "close-stdout:after=2",
        "stall:ms=1,after=1",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::roundtrip::cases(24)))]

        #[test]
        fn the_ending_does_not_depend_on_when_the_consumer_leaves(
            seed in any::<u64>(),
            fault in prop::sample::select(FAULTS),
            read in prop_oneof![Just(0usize), 0usize..300, 0usize..300_000],
        ) {
            let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
            let path = dir.path().join("session.cassette");
            from_seed(seed, &SessionConfig::default())
                .write_cassette(&path)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let (all, _) = close_after(Some(&path), fault, None);
            let (early, stderr) = close_after(Some(&path), fault, Some(read));
            let stderr = String::from_utf8_lossy(&stderr);
            prop_assert_eq!(early.code(), all.code(), "{} after {} bytes: {}", fault, read, stderr);
            prop_assert_eq!(early.signal(), all.signal(), "{} after {} bytes", fault, read);
            prop_assert!(!stderr.contains("mock-agent:"), "{}", stderr);
        }
    }
}

mod copying {
    //! A bare capture that nothing asks to change is replayed as a copy of its bytes;
    //! it gives what reading it line by line gives, deltas and endings included.

    use std::path::Path;

    use harness::cassette::{
        copy_capture, copy_cassette, CassetteCopied, Copied, Header, Invocation, Recording, Writer,
    };
    use harness::dialects::cursor_print::source::{copyable, Copyable};
    use harness::frames::{Ending, Exit, Frame, Frames, Line, Stream};
    use harness::generate::{session, SessionConfig};
    use harness::scenario::Scenario;
    use harness::OutputFormat;
    use harness::{RenderOptions, Source};
    use proptest::prelude::*;

    /// The stdout bytes and the ending of frames planned for a plain replay.
    fn perform(frames: Frames, out: &mut Vec<u8>) -> Exit {
        perform_as("capture", None, frames, out)
    }

    /// The stdout bytes and the ending of the rest of a cassette recorded in
    /// `stream-json` without `--stream-partial-output`, planned for a plain replay.
    fn perform_cassette(frames: Frames, out: &mut Vec<u8>) -> Exit {
        perform_as("cassette", Some(false), frames, out)
    }

    /// The stdout bytes and the ending of the recording `name` of `frames`, planned for
    /// a plain replay.
    fn perform_as(
        name: &str,
        stream_partial_output: Option<bool>,
        frames: Frames,
        out: &mut Vec<u8>,
    ) -> Exit {
        let recording = Recording {
            name: name.into(),
            header: None,
            stream_partial_output,
            frames,
        };
        let plan = Scenario::new(RenderOptions::default())
            .plan(recording)
            .expect("plans");
        let mut exit = None;
        for frame in plan.frames {
            match frame.expect("valid") {
                Frame::Line(line) if line.stream == Stream::Stdout => {
                    out.extend_from_slice(&line.bytes);
                    if line.newline {
                        out.push(b'\n');
                    }
                }
                Frame::End(end) => exit = Some(end.exit),
                _ => {}
            }
        }
        exit.expect("an ending")
    }

    /// A cassette as a copy, and frame by frame from where it stops.
    fn copy_cassette_of(path: &Path) -> (Vec<u8>, Exit) {
        let Some(Copyable::Cassette(reader)) = copyable(path).expect("checks") else {
            panic!("a cassette");
        };
        let mut out = Vec::new();
        match copy_cassette(*reader, &mut out).expect("copies") {
            CassetteCopied::End { exit, stdout_closed } => {
                assert!(!stdout_closed);
                (out, exit)
            }
            CassetteCopied::Stopped { rest, stdout_closed } => {
                assert!(!stdout_closed);
                let exit = perform_cassette(rest, &mut out);
                (out, exit)
            }
        }
    }

    /// Frames a cassette may hold besides the stdout events.
    fn extra_frame() -> impl Strategy<Value = Frame> {
        let at = std::time::Duration::ZERO;
        prop_oneof![
            Just(Frame::Line(Line::stderr(
                at,
                "RetriableError: [unavailable] upstream"
            ))),
            Just(Frame::Line(Line::stdout(at, "[debug] not an event"))),
            Just(Frame::Line(Line::stdout(
                at,
                r#"{"type":"x","t\u0065xt":"an escape"}"#
            ))),
            Just(Frame::Stall {
                at,
                duration: Some(std::time::Duration::from_millis(1)),
            }),
        ]
    }

    /// Line by line, as every other replay.
    fn read(path: &Path) -> (Vec<u8>, Exit) {
        let recording = Source::Cassette(path.to_owned()).open("x").expect("opens");
        let mut out = Vec::new();
        let exit = perform(recording.frames, &mut out);
        (out, exit)
    }

    /// As a copy, and line by line from where it stops.
    fn copy(path: &Path) -> (Vec<u8>, Exit) {
        let file = harness::dialects::cursor_print::source::capture_file(path)
            .expect("checks")
            .expect("a capture");
        let mut out = Vec::new();
        match copy_capture(path, file, &mut out).expect("copies") {
            Copied::End { exit, stdout_closed } => {
                assert!(!stdout_closed);
                (out, exit)
            }
            Copied::Stopped(rest) => {
                let exit = perform(rest, &mut out);
                (out, exit)
            }
        }
    }

    /// Lines a capture may hold besides its events.
    fn extra() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(String::new()),
            Just("   ".to_owned()),
            Just("[debug] not an event".to_owned()),
            // A delta whose type and key are escaped.
            Just(r#"{"type":"\u0061ssistant","message":{"role":"assistant","content":[{"type":"text","text":"hi "}]},"session_id":"s","timestamp\u005fms":7}"#.to_owned()),
            Just(r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi "}]},"session_id":"s","timestamp\u005fms":7}"#.to_owned()),
            Just(r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi "}]},"session_id":"s","timestamp_ms":7}"#.to_owned()),
            Just(r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi "}]},"session_id":"s","model_call_id":"m","timestamp_ms":7}"#.to_owned()),
            Just(r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi "}]},"session_id":"s","timestamp_ms":7,"x":{"model_call_id":"m"}}"#.to_owned()),
            Just(r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi "}]},"session_id":"s"}"#.to_owned()),
            // Longer than a block of the copy.
            (0usize..2).prop_map(|n| format!(
                r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"{}"}}]}},"session_id":"s"{}}}"#,
                "x".repeat(harness::cassette::COPY_BLOCK + 10),
                if n == 0 { "" } else { r#","timestamp_ms":9"# }
            )),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::roundtrip::cases(96)))]

        #[test]
        fn a_copy_is_what_reading_line_by_line_gives(
            session in session(SessionConfig::default()),
            extras in prop::collection::vec((any::<prop::sample::Index>(), extra()), 0..4),
            cut in prop::option::of(1usize..80),
        ) {
            let mut lines = session.lines.clone();
            for (at, line) in extras {
                let at = at.index(lines.len() + 1);
                lines.insert(at, line);
            }
            let mut text = lines.join("\n") + "\n";
            if let Some(cut) = cut {
                // A stream cut off in its last line.
                text.truncate(text.len().saturating_sub(cut).max(1));
            }
            let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
            let path = dir.path().join("capture.ndjson");
            std::fs::write(&path, &text).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let checked = harness::dialects::cursor_print::source::capture_file(&path);
            prop_assume!(checked.is_ok(), "a capture cut in a way that is an error");
            prop_assert_eq!(copy(&path), read(&path));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::roundtrip::cases(64)))]

        #[test]
        fn a_copied_cassette_is_what_reading_it_frame_by_frame_gives(
            session in session(SessionConfig::default()),
            extras in prop::collection::vec((any::<prop::sample::Index>(), extra_frame()), 0..4),
            times in prop::collection::vec(0u64..3, 1..8),
        ) {
            let mut frames: Vec<Frame> = session
                .lines
                .iter()
                .map(|line| Frame::Line(Line::stdout(std::time::Duration::ZERO, line.clone())))
                .collect();
            for (at, frame) in extras {
                let at = at.index(frames.len() + 1);
                frames.insert(at, frame);
            }
            frames.push(Frame::End(Ending {
                at: std::time::Duration::ZERO,
                exit: session.exit,
            }));
            // Times that stay, or rise by a fraction of a millisecond or by whole ones.
            let mut at = std::time::Duration::ZERO;
            let frames: Vec<Frame> = frames
                .into_iter()
                .enumerate()
                .map(|(i, frame)| {
                    match times[i % times.len()] {
                        0 => {}
                        1 => at += std::time::Duration::from_micros(1_250),
                        _ => at += std::time::Duration::from_millis(7),
                    }
                    frame.with_at(at)
                })
                .collect();
            let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
            let path = dir.path().join("session.cassette");
            let header = Header::new(Invocation {
                output_format: Some(OutputFormat::StreamJson),
                ..Invocation::default()
            });
            let mut writer = Writer::create(&path, &header).map_err(|e| TestCaseError::fail(e.to_string()))?;
            for frame in &frames {
                writer.write(frame).map_err(|e| TestCaseError::fail(e.to_string()))?;
            }
            writer.finish().map_err(|e| TestCaseError::fail(e.to_string()))?;
            let recording = Source::Cassette(path.clone()).open("x").expect("opens");
            prop_assert_eq!(recording.stream_partial_output, Some(false));
            let mut out = Vec::new();
            let exit = perform_cassette(recording.frames, &mut out);
            prop_assert_eq!(copy_cassette_of(&path), (out, exit));
        }
    }

    #[test]
    fn a_cassette_larger_than_a_copy_block_replays_byte_for_byte() {
        // A curated session's frames 400 times over, each time later, then its end.
        let curated = crate::support::root().join("cassettes/shell-command.cassette");
        let reader = harness::cassette::open(&curated).expect("opens");
        let header = reader.header().cloned().expect("a header");
        let frames: Vec<Frame> = reader.map(|f| f.expect("valid")).collect();
        let (end, body) = frames.split_last().expect("frames");
        let span = end.at() + std::time::Duration::from_millis(1);
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("big.cassette");
        let mut writer = Writer::create(&path, &header).expect("creates");
        for round in 0..400u32 {
            for frame in body {
                writer
                    .write(&frame.clone().with_at(frame.at() + span * round))
                    .expect("writes");
            }
        }
        writer.write(&end.clone().with_at(span * 400)).expect("writes");
        writer.finish().expect("finishes");
        let (stdout, stderr, exit, partial) = super::recorded(&path);
        assert!(!partial && stdout.len() > 2 * harness::cassette::COPY_BLOCK);
        let run = crate::support::mock()
            .arg("replay")
            .arg(&path)
            .output()
            .expect("runs");
        assert!(run.stdout == stdout, "the same bytes");
        assert_eq!(
            String::from_utf8_lossy(&run.stderr),
            String::from_utf8_lossy(&stderr)
        );
        super::assert_ends(run.status, exit, "big.cassette");
        assert_eq!(copy_cassette_of(&path).0, stdout);
    }

    #[test]
    fn deltas_are_left_out_of_a_copy_as_of_any_replay() {
        let cassette = crate::support::root().join("cassettes/partial-thinking.cassette");
        let (stdout, _, _, partial) = super::recorded(&cassette);
        assert!(partial, "recorded with --stream-partial-output");
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("partial.ndjson");
        std::fs::write(&path, &stdout).expect("writes");
        let (copied, exit) = copy(&path);
        assert_eq!((copied.clone(), exit), read(&path));
        assert!(copied.len() < stdout.len(), "the deltas are gone");
        let through_the_binary = crate::support::mock()
            .arg("replay")
            .arg(&path)
            .output()
            .expect("runs");
        assert_eq!(through_the_binary.stdout, copied);
    }
}

#[test]
fn a_copied_capture_keeps_its_ending_when_the_consumer_leaves() {
    // Larger than a pipe holds, so that the copy is still writing when the consumer goes.
    let dir = tempfile::tempdir().expect("temp dir");
    let seed =
        std::fs::read_to_string(crate::support::root().join("cassettes/seed-example.ndjson")).expect("seed");
    let lines: Vec<&str> = seed.lines().collect();
    let body = lines[2..lines.len() - 1].join("\n") + "\n";
    for (name, last, code) in [("ok", lines[lines.len() - 1], 0), ("cut", lines[2], 1)] {
        let path = dir.path().join(format!("{name}.ndjson"));
        let text = format!("{}\n{}\n{}{last}\n", lines[0], lines[1], body.repeat(2_000));
        std::fs::write(&path, text).expect("writes");
        for read in [Some(0), Some(1), Some(70_000), None] {
            let (status, stderr) = close_after(Some(&path), "", read);
            assert_eq!(status.code(), Some(code), "{name} after {read:?} bytes");
            assert_eq!(String::from_utf8_lossy(&stderr), "", "{name}");
        }
    }
}

#[test]
fn the_client_s_recorded_lines_are_never_written_on_replay() {
    // A two-way recording (Claude Code's, here) replayed by print mode's executor:
    // what the recorded client sent is not the agent's output, on no stream.
    let cassette = crate::support::root().join("cassettes/claude/default.cassette");
    let out = std::process::Command::new(crate::support::bin())
        .args(["-p", "hi"])
        .env("MOCK_AGENT_CASSETTE", &cassette)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stderr.contains("\"control_request\""), "{stderr}");
    assert!(!stdout.contains("\"type\": \"user\""), "{stdout}");
}

/// `mock-agent replay PATH`, its stdout and stderr piped to the test.
fn replaying(path: &std::path::Path) -> std::process::Child {
    Command::new(bin())
        .arg("replay")
        .arg(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns")
}
