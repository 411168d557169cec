//! Timing and step mode through the binary. Lower bounds only: an upper bound on a
//! shared machine belongs to the benchmark.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsFd;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{bin, mock};

#[test]
fn recorded_timing_keeps_the_recorded_gaps_scaled() {
    // shell-command.cassette ends at t=3120 ms or so; at scale 0.1 it takes 300 ms+.
    let started = Instant::now();
    let output = mock()
        .env("MOCK_AGENT_CASSETTE", "cassettes/shell-command.cassette")
        .env("MOCK_AGENT_TIMING", "recorded,scale=0.1")
        .args(["-p", "x"])
        .output()
        .expect("runs");
    assert!(output.status.success());
    let last = std::fs::read_to_string(crate::support::root().join("cassettes/shell-command.cassette"))
        .expect("cassette")
        .lines()
        .last()
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .and_then(|v| v["t"].as_f64())
        .expect("end time");
    assert!(started.elapsed() >= Duration::from_secs_f64(last / 1000.0 * 0.1));
    // Instant replay of the same cassette gives the same bytes.
    let instant = mock()
        .env("MOCK_AGENT_CASSETTE", "cassettes/shell-command.cassette")
        .args(["-p", "x"])
        .output()
        .expect("runs");
    assert_eq!(output.stdout, instant.stdout);
}

#[test]
fn fixed_and_first_byte_delay_every_line() {
    let started = Instant::now();
    let output = mock()
        .env("MOCK_AGENT_TIMING", "fixed=20,first-byte=100")
        .args(["-p", "x"])
        .output()
        .expect("runs");
    assert!(output.status.success());
    // Ten lines: the first at 100 ms, the last at 100 + 9 x 20 ms.
    assert!(started.elapsed() >= Duration::from_millis(280));
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
