//! Timing benchmark: how exactly `--timing recorded` keeps the recorded gaps, and how
//! fast a stalled mock ends on SIGTERM.
//!
//! ```sh
//! cargo bench -p mock-agent --bench timing            # BENCH_QUICK=1 for a short run
//! ```
//!
//! 1. A 1,000-event cassette with gaps of 1 to 10 ms (seeded) is replayed with
//!    `--timing recorded`; the bench reads stdout line by line and compares each
//!    line's arrival, from the first line's, with its recorded time from the first
//!    event's. It reports the per-event error (p50, p99, max) and the total drift,
//!    as medians over the runs. Bars: p99 under 2 ms, drift under 1%.
//! 2. `mock-agent` with `stall:after=1` is sent SIGTERM once its first line is read;
//!    the bench times the signal to the process's end. Bar: under 100 ms.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support.rs"]
mod support;

use support::{median, percentile};

use harness::cassette::{Header, Invocation, Writer};
use harness::{Ending, Exit, Frame, Line, OutputFormat};

const EVENTS: usize = 1_000;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mock-agent")
}

/// Writes the cassette and returns the recorded time of each stdout line, in ms.
fn write_cassette(path: &Path, seed: u64) -> Vec<f64> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let header = Header::new(Invocation {
        output_format: Some(OutputFormat::StreamJson),
        ..Invocation::default()
    });
    let mut cassette = Writer::create(path, &header).expect("creates the cassette");
    let mut at = Duration::ZERO;
    let mut times = Vec::with_capacity(EVENTS);
    for i in 0..EVENTS {
        if i > 0 {
            at += Duration::from_micros(rng.u64(1_000..=10_000));
        }
        times.push(at.as_secs_f64() * 1000.0);
        let event = format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"event {i}"}}]}},"session_id":"bench","model_call_id":"m-{i}"}}"#
        );
        cassette
            .write(&Frame::Line(Line::stdout(at, event)))
            .expect("writes");
    }
    let end = Ending {
        at,
        exit: Exit::Code(0),
    };
    cassette.write(&Frame::End(end)).expect("writes");
    cassette.finish().expect("finishes the cassette");
    times
}

struct TimingRun {
    p50: f64,
    p99: f64,
    max: f64,
    drift_pct: f64,
}

fn timing_run(cassette: &Path, times: &[f64]) -> TimingRun {
    let mut child = Command::new(bin())
        .args(["replay", "--timing", "recorded"])
        .arg(cassette)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout"));
    let mut arrivals = Vec::with_capacity(times.len());
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line).expect("reads") == 0 {
            break;
        }
        arrivals.push(Instant::now());
    }
    assert!(child.wait().expect("waits").success());
    assert_eq!(arrivals.len(), times.len(), "every event arrives");
    let first = arrivals[0];
    let mut errors: Vec<f64> = arrivals
        .iter()
        .zip(times)
        .map(|(arrived, t)| {
            let actual = arrived.duration_since(first).as_secs_f64() * 1000.0;
            (actual - (t - times[0])).abs()
        })
        .collect();
    let total_recorded = times[times.len() - 1] - times[0];
    let total_actual = arrivals[arrivals.len() - 1].duration_since(first).as_secs_f64() * 1000.0;
    errors.sort_by(f64::total_cmp);
    TimingRun {
        p50: percentile(&errors, 50.0),
        p99: percentile(&errors, 99.0),
        max: errors[errors.len() - 1],
        drift_pct: (total_actual - total_recorded) / total_recorded * 100.0,
    }
}

fn sigterm_latency() -> Duration {
    let mut child = Command::new(bin())
        .env("MOCK_AGENT_FAULTS", "stall:after=1")
        .args(["-p", "hi"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    lines.read_line(&mut line).expect("reads the first line");
    // Let the mock reach its stall.
    std::thread::sleep(Duration::from_millis(20));
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let sent = Instant::now();
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("signals");
    let status = child.wait().expect("waits");
    let took = sent.elapsed();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(15), "dies by SIGTERM");
    took
}

fn main() {
    let quick = std::env::var_os("BENCH_QUICK").is_some();
    let runs = if quick { 1 } else { 5 };
    let kills = if quick { 10 } else { 100 };
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("timed.cassette");
    let times = write_cassette(&cassette, 7);
    println!("# timing benchmark ({EVENTS} events, gaps 1-10 ms, {runs} runs; medians over runs)");
    let results: Vec<TimingRun> = (0..runs).map(|_| timing_run(&cassette, &times)).collect();
    let p50 = median(results.iter().map(|r| r.p50).collect::<Vec<_>>());
    let p99 = median(results.iter().map(|r| r.p99).collect::<Vec<_>>());
    let max = median(results.iter().map(|r| r.max).collect::<Vec<_>>());
    let drift = median(results.iter().map(|r| r.drift_pct).collect::<Vec<_>>());
    println!("recorded timing: per-event error p50 {p50:.3} ms, p99 {p99:.3} ms, max {max:.3} ms; total drift {drift:+.3}% over {:.0} ms", times[times.len() - 1]);
    println!(
        "  bars: p99 < 2 ms: {}; |drift| < 1%: {}",
        if p99 < 2.0 { "met" } else { "MISSED" },
        if drift.abs() < 1.0 { "met" } else { "MISSED" }
    );
    let mut latencies: Vec<f64> = (0..kills)
        .map(|_| sigterm_latency().as_secs_f64() * 1000.0)
        .collect();
    latencies.sort_by(f64::total_cmp);
    println!(
        "SIGTERM on a stalled mock, to its end ({kills} runs): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; bar < 100 ms: {}",
        percentile(&latencies, 50.0),
        percentile(&latencies, 99.0),
        latencies[latencies.len() - 1],
        if latencies[latencies.len() - 1] < 100.0 { "met" } else { "MISSED" }
    );
}
