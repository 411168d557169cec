//! Timing and step mode through the binary. No wall-clock time is asserted here: when
//! each line is due is the clock's (`harness::timing::Clock`), and the executor's
//! keeping of it is shown on paused time (`mock_agent::execute`'s and
//! `mock_agent::dialects::cursor_acp`'s tests). Here: a timed run writes what an instant one does,
//! a huge scale waits rather than panics, step mode releases one line per byte, and a
//! signal ends a run in every state (the only time bound here: a generous one, since a
//! mock that misses the signal never ends).

use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsFd;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::{bin, mock, mock_std};

/// Stdout of a run of the default session with `MOCK_AGENT_TIMING=timing`.
fn stdout_with(cassette: Option<&str>, timing: Option<&str>) -> Vec<u8> {
    let mut cmd = mock();
    if let Some(cassette) = cassette {
        cmd.env("MOCK_AGENT_CASSETTE", cassette);
    }
    if let Some(timing) = timing {
        cmd.env("MOCK_AGENT_TIMING", timing);
    }
    let output = cmd.args(["-p", "x"]).output().expect("runs");
    assert!(output.status.success(), "{timing:?}: {output:?}");
    output.stdout
}

#[test]
fn recorded_timing_writes_what_instant_replay_does() {
    // shell-command.cassette ends at t=3120 ms or so: at scale 0.1 a run of 300 ms.
    let cassette = Some("cassettes/shell-command.cassette");
    let instant = stdout_with(cassette, None);
    assert!(!instant.is_empty());
    assert_eq!(stdout_with(cassette, Some("recorded,scale=0.1")), instant);
    assert_eq!(
        stdout_with(cassette, Some("recorded,scale=0.02,jitter=2")),
        instant
    );
}

#[test]
fn fixed_and_first_byte_keep_every_line_and_its_order() {
    // Ten lines: the first at 100 ms, then one every 20 ms (the schedule itself is
    // `harness::timing`'s unit tests').
    let instant = stdout_with(None, None);
    assert_eq!(instant.iter().filter(|b| **b == b'\n').count(), 10);
    assert_eq!(stdout_with(None, Some("fixed=20,first-byte=100")), instant);
}

/// Sends SIGTERM to `child`.
fn term(child: &std::process::Child) {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("a pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("signals");
}

/// A run that waits for ever: still running after a while, it ends by SIGTERM, the
/// way any waiting run does, and says nothing of a panic.
fn waits_until_terminated(mut child: std::process::Child) {
    // A panic (the bug: exit 134) comes at once; give it time to.
    std::thread::sleep(Duration::from_millis(300));
    assert!(child.try_wait().expect("polls").is_none(), "it waits");
    term(&child);
    let status = child.wait().expect("waits");
    assert_eq!(status.signal(), Some(15), "{status:?}");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr).expect("reads");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// The mock on `cassette` with `MOCK_AGENT_TIMING=scale=1e300`, its streams piped.
fn at_a_huge_scale(cassette: &str, args: &[&str]) -> std::process::Child {
    let mut cmd = mock_std();
    cmd.env("MOCK_AGENT_CASSETTE", cassette)
        .env("MOCK_AGENT_TIMING", "scale=1e300")
        .args(args);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().expect("spawns")
}

#[test]
fn a_huge_scale_waits_and_never_panics_in_print_mode() {
    let mut child = at_a_huge_scale("cassettes/shell-command.cassette", &["-p", "x"]);
    // The line recorded at 0 ms comes at once; the next, 3 ms x 1e300 later.
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("reads");
    assert!(line.contains(r#""subtype":"init""#), "{line}");
    waits_until_terminated(child);
}

#[test]
fn a_huge_scale_waits_and_never_panics_in_server_mode() {
    let mut child = at_a_huge_scale("cassettes/acp/edit.cassette", &["acp"]);
    // The answer to `initialize` is recorded 38 ms after it: 38 ms x 1e300 later.
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#;
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "{initialize}").expect("writes");
    let stdout = child.stdout.take().expect("stdout");
    waits_until_terminated(child);
    drop(stdin);
    let mut written = String::new();
    std::io::Read::read_to_string(&mut BufReader::new(stdout), &mut written).expect("reads");
    assert_eq!(written, "", "nothing is due yet");
}

#[test]
fn a_bad_timing_is_the_mock_s_own_error() {
    mock()
        .env("MOCK_AGENT_TIMING", "recorded,scale=fast")
        .args(["-p", "x"])
        .assert()
        .code(64)
        .stdout("")
        .stderr(predicates::str::starts_with(
            "mock-agent: MOCK_AGENT_TIMING:1:10: invalid data: `scale=fast`",
        ));
    mock()
        .env("MOCK_AGENT_SEED", "-1")
        .args(["-p", "x"])
        .assert()
        .code(64)
        .stderr(predicates::str::starts_with(
            "mock-agent: MOCK_AGENT_SEED:1:1: invalid data: `-1` is not a seed",
        ));
}

/// Whether `reader` has data within `wait`.
fn readable(fd: impl AsFd, wait: u16) -> bool {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
    poll(&mut fds, PollTimeout::from(wait)).expect("polls") > 0
}

#[test]
fn step_mode_releases_one_event_per_byte() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("step");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    let mut child = Command::new(bin())
        .env("MOCK_AGENT_STEP", &fifo)
        .args(["-p", "x"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut step = std::fs::OpenOptions::new()
        .write(true)
        .open(&fifo)
        .expect("opens the fifo");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout);
    let mut line = String::new();
    for expected in ["system", "user"] {
        step.write_all(b".").expect("steps");
        line.clear();
        lines.read_line(&mut line).expect("reads");
        assert!(line.contains(&format!(r#""type":"{expected}""#)), "{line}");
    }
    // Nothing more comes until the next byte.
    assert!(lines.buffer().is_empty());
    assert!(
        !readable(lines.get_ref(), 200),
        "the mock waits for the next step"
    );
    // At the end of the step file, the rest goes.
    drop(step);
    let rest: Vec<String> = lines.lines().map(|l| l.expect("line")).collect();
    assert_eq!(rest.len(), 8);
    assert!(child.wait().expect("waits").success());
}

/// Sends `signal` to `child` and waits (a minute at most) for it to end: how long it
/// took, and the signal it died by.
fn signal_and_time(
    child: &mut std::process::Child,
    signal: nix::sys::signal::Signal,
) -> (Duration, Option<i32>) {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("a pid"));
    let sent = std::time::Instant::now();
    nix::sys::signal::kill(pid, signal).expect("signals");
    let (took, status) = ending(child, sent, signal.as_str());
    (took, status.signal())
}

/// Waits (a minute at most) for `child` to end after `what` happened at `since`: how
/// long it took, and how it ended.
fn ending(
    child: &mut std::process::Child,
    since: std::time::Instant,
    what: &str,
) -> (Duration, std::process::ExitStatus) {
    loop {
        if let Some(status) = child.try_wait().expect("polls") {
            return (since.elapsed(), status);
        }
        if since.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running a minute after {what}");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// How soon a signal must end the mock in these tests: 100 ms is the promise; this
/// bound leaves room for a loaded machine, and a mock that ignores the signal (the
/// bug) never ends at all.
const PROMPTLY: Duration = Duration::from_secs(2);

/// The one entry of a journal, once the process has ended.
fn journal_entry(journal: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(journal).expect("the journal is written");
    serde_json::from_str(text.trim()).expect("one entry")
}

/// `mock-agent ARGS` in step mode on a fresh FIFO, with a journal, `input` written on
/// its stdin (left open): the child, the step FIFO opened for writing (nothing written
/// yet), the temp dir.
fn stepping(args: &[&str], input: &str) -> (std::process::Child, std::fs::File, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("step");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    let child = mock_std()
        .env("MOCK_AGENT_STEP", &fifo)
        .env("MOCK_AGENT_JOURNAL", dir.path().join("journal.jsonl"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawns");
    let mut stdin = child.stdin.as_ref().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("writes");
    // Opening a FIFO waits for its reader: the mock, about to read its first byte.
    let step = std::fs::OpenOptions::new()
        .write(true)
        .open(&fifo)
        .expect("opens the fifo");
    (child, step, dir)
}

#[test]
fn a_signal_ends_print_mode_while_it_waits_for_a_step_byte() {
    let (mut child, step, dir) = stepping(&["-p", "x"], "");
    std::thread::sleep(Duration::from_millis(100));
    assert!(child.try_wait().expect("polls").is_none(), "it waits for a byte");
    let (took, signal) = signal_and_time(&mut child, nix::sys::signal::Signal::SIGTERM);
    assert_eq!(signal, Some(15));
    assert!(took < PROMPTLY, "ended {took:?} after SIGTERM");
    assert_eq!(journal_entry(&dir.path().join("journal.jsonl"))["signal"], "TERM");
    drop(step);
}

#[test]
fn a_signal_ends_server_mode_while_it_waits_for_a_step_byte() {
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#;
    let (mut child, step, dir) = stepping(&["acp"], &format!("{initialize}\n"));
    std::thread::sleep(Duration::from_millis(100));
    assert!(child.try_wait().expect("polls").is_none(), "it waits for a byte");
    let (took, signal) = signal_and_time(&mut child, nix::sys::signal::Signal::SIGINT);
    assert_eq!(signal, Some(2));
    assert!(took < PROMPTLY, "ended {took:?} after SIGINT");
    let entry = journal_entry(&dir.path().join("journal.jsonl"));
    assert_eq!(entry["signal"], "INT");
    let messages = entry["acp"]["messages"]
        .as_array()
        .expect("the conversation so far");
    assert_eq!(messages[0]["dir"], "in", "the initialize read: {messages:?}");
    drop(step);
}

#[test]
fn a_signal_ends_server_mode_blocked_writing_to_a_client_that_does_not_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    // initialize answered with 8 MiB of updates first: far more than a pipe holds.
    let cassette = dir.path().join("long.cassette");
    let update = format!(
        r#"{{"t":1,"out":{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s","update":{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":"{}"}}}}}}}}}}"#,
        "x".repeat(8 << 10)
    );
    let mut recording = vec![
        r#"{"mock_agent_cassette":2,"invocation":{"argv":["acp"],"acp":true}}"#.to_owned(),
        r#"{"t":0,"in":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}"#.to_owned(),
    ];
    recording.extend(std::iter::repeat_n(update, 1024));
    recording.push(r#"{"t":2,"out":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}}"#.to_owned());
    recording.push(r#"{"t":3,"exit":0}"#.to_owned());
    std::fs::write(&cassette, recording.join("\n") + "\n").expect("writes");
    let journal = dir.path().join("journal.jsonl");
    let mut child = crate::support::acp_server(&[
        ("MOCK_AGENT_CASSETTE", std::ffi::OsStr::new(&cassette)),
        ("MOCK_AGENT_JOURNAL", std::ffi::OsStr::new(&journal)),
    ]);
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{}}}}"#
    )
    .expect("writes");
    // One line read (the mock serves), then no more: the pipe fills, and the mock's
    // write waits for ever.
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    stdout.read_line(&mut String::new()).expect("reads a line");
    std::thread::sleep(Duration::from_millis(300));
    assert!(child.try_wait().expect("polls").is_none(), "it waits to write");
    let (took, signal) = signal_and_time(&mut child, nix::sys::signal::Signal::SIGTERM);
    assert_eq!(signal, Some(15));
    assert!(took < PROMPTLY, "ended {took:?} after SIGTERM");
    let entry = journal_entry(&journal);
    assert_eq!(entry["signal"], "TERM");
    let messages = entry["acp"]["messages"]
        .as_array()
        .expect("the conversation so far");
    assert!(messages.len() > 1, "what was sent so far is journaled");
    drop((stdin, stdout));
}

/// The first line an ACP client sends, and the start of the answer to it.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","id":0,"result""#;

/// Writes `input` to a server that then waits (its timing, a fault, a step byte) and
/// closes its stdin: it ends promptly, exit 0, having written what it still had to
/// write; its stdout.
fn ends_promptly_at_eof(mut child: std::process::Child, input: &[u8]) -> String {
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input).expect("writes");
    let stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || std::io::read_to_string(stdout).expect("reads"));
    std::thread::sleep(Duration::from_millis(200));
    assert!(child.try_wait().expect("polls").is_none(), "it waits");
    let closed = std::time::Instant::now();
    drop(stdin);
    let (took, status) = ending(&mut child, closed, "the end of stdin");
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert!(took < PROMPTLY, "ended {took:?} after the end of stdin");
    reader.join().expect("reads")
}

#[test]
fn the_end_of_stdin_ends_a_timed_wait_in_server_mode() {
    let child = at_a_huge_scale("cassettes/acp/edit.cassette", &["acp"]);
    // Due 38 ms x 1e300 later; at the end of stdin, at once.
    let written = ends_promptly_at_eof(child, format!("{INITIALIZE}\n").as_bytes());
    assert!(written.starts_with(INITIALIZED), "{written}");
}

#[test]
fn the_end_of_stdin_ends_a_late_answer_in_server_mode() {
    let child = crate::support::acp_server(&[(
        "MOCK_AGENT_FAULTS",
        std::ffi::OsStr::new("late:method=session/new,ms=600000"),
    )]);
    let written = ends_promptly_at_eof(child, b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\",\"params\":{\"cwd\":\"/\",\"mcpServers\":[]}}\n");
    assert!(
        written.contains(r#"{"jsonrpc":"2.0","id":1,"result""#),
        "session/new answered at once: {written}"
    );
}

#[test]
fn the_end_of_stdin_ends_a_step_wait_in_server_mode() {
    let (child, step, _dir) = stepping(&["acp"], &format!("{INITIALIZE}\n"));
    // No byte comes: the end of stdin lets the rest go, as the end of the step file.
    let written = ends_promptly_at_eof(child, b"");
    assert!(written.starts_with(INITIALIZED), "{written}");
    drop(step);
}
