//! Recording benchmark: the cost of the transparent proxy.
//!
//! ```sh
//! cargo bench -p mock-agent --bench record          # BENCH_QUICK=1 for a short run
//! ```
//!
//! 1. Wall time of a 150 MB stream (`cat` of a stream-json file; `BENCH_MB=N` for
//!    another size) read through a pipe: directly (`cat big | reader`), through
//!    coreutils `tee` writing a copy (`cat big | tee copy | reader`: the least any
//!    recorder that writes a file costs), and through `mock-agent record` (which also
//!    writes the cassette); medians of interleaved runs. Bar (issue 19): at most 1.2x
//!    the time through `tee`. Also the CPU time (user and system) of each way's
//!    processes, which a shared machine's load disturbs less than the wall time.
//! 2. Added per-line latency: a Python producer writes a line every millisecond with
//!    its `CLOCK_MONOTONIC` time; the bench stamps each line's arrival with the same
//!    clock. p50 and p99 of arrival minus sending, directly and through the proxy.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

#[path = "support.rs"]
mod support;

use support::{cpu_count, cpu_model, median, percentile};

fn mock() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_mock-agent"))
}

/// Runs `cmd` with its stdout piped to this process, reads all of it, and waits for
/// it (and for `upstream`, the process that feeds it, if any): the wall time and the
/// bytes read.
fn drain(mut cmd: Command, upstream: Option<Command>) -> (f64, usize) {
    let started = Instant::now();
    let mut feeder = upstream.map(|mut up| up.stdout(Stdio::piped()).spawn().expect("spawns"));
    if let Some(feeder) = feeder.as_mut() {
        cmd.stdin(Stdio::from(feeder.stdout.take().expect("stdout")));
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawns");
    let mut out = child.stdout.take().expect("stdout");
    let mut buf = vec![0u8; 256 << 10];
    let mut total = 0;
    loop {
        match out.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => total += n,
        }
    }
    assert!(child.wait().expect("waits").success());
    if let Some(mut feeder) = feeder {
        assert!(feeder.wait().expect("waits").success());
    }
    (started.elapsed().as_secs_f64(), total)
}

/// How the stream reaches the reader.
#[derive(Debug, Clone, Copy)]
enum Way {
    /// `cat big | reader`.
    Direct,
    /// `cat big | tee copy | reader`.
    Tee,
    /// `mock-agent record --out cassette -- cat big | reader`.
    Record,
}

const WAYS: [Way; 3] = [Way::Direct, Way::Tee, Way::Record];

/// The CPU time, user and system, of the children this process waited for so far.
fn children_cpu() -> f64 {
    let usage =
        nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    seconds(usage.user_time()) + seconds(usage.system_time())
}

/// The wall time of one way, and the bytes the reader got.
fn run(way: Way, big: &Path, copy: &Path, cassette: &Path) -> (f64, usize) {
    let mut cat = Command::new("cat");
    cat.arg(big);
    match way {
        Way::Direct => drain(cat, None),
        Way::Tee => {
            let mut tee = Command::new("tee");
            tee.arg(copy);
            drain(tee, Some(cat))
        }
        Way::Record => {
            let mut record = Command::new(mock());
            record
                .arg("record")
                .arg("--out")
                .arg(cassette)
                .arg("--")
                .arg("cat")
                .arg(big);
            drain(record, None)
        }
    }
}

fn monotonic_ns() -> u128 {
    let now = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC).expect("clock");
    now.tv_sec() as u128 * 1_000_000_000 + now.tv_nsec() as u128
}

fn latencies(through_proxy: bool, lines: usize, cassette: &Path) -> Vec<f64> {
    let producer = format!(
        "import sys,time\nfor i in range({lines}):\n    sys.stdout.write('{{\"type\":\"assistant\",\"n\":%d,\"sent\":%d}}\\n' % (i, time.monotonic_ns()))\n    sys.stdout.flush()\n    time.sleep(0.001)\n"
    );
    let mut cmd = if through_proxy {
        let mut cmd = Command::new(mock());
        cmd.arg("record")
            .arg("--out")
            .arg(cassette)
            .args(["--", "python3", "-c", &producer]);
        cmd
    } else {
        let mut cmd = Command::new("python3");
        cmd.args(["-c", &producer]);
        cmd
    };
    let mut child = cmd
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .expect("spawns");
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let mut result = Vec::with_capacity(lines);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).expect("reads") == 0 {
            break;
        }
        let arrived = monotonic_ns();
        let sent: u128 = line
            .rsplit("\"sent\":")
            .next()
            .and_then(|s| s.trim_end().trim_end_matches('}').parse().ok())
            .expect("a sent time");
        result.push((arrived.saturating_sub(sent)) as f64 / 1e6);
    }
    assert!(child.wait().expect("waits").success());
    result.sort_by(f64::total_cmp);
    result
}

/// The bar of `record`'s wall time, against `cat big | tee copy | reader` (issue 19).
const TEE_BAR: f64 = 1.2;

fn main() {
    let quick = std::env::var_os("BENCH_QUICK").is_some();
    let (rounds, lines) = if quick { (2, 300) } else { (7, 2000) };
    let dir = tempfile::tempdir().expect("temp dir");
    let size: usize = std::env::var("BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150)
        * 1_000_000;
    let big = dir.path().join("big.ndjson");
    {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&big).expect("creates"));
        let mut written = 0usize;
        let mut i = 0u64;
        while written < size {
            let line = format!(
                "{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"line {i} of a long answer, with some words to make it realistic\"}}]}},\"session_id\":\"c6b62c6f-7ead-4fd6-9922-e952131177ff\",\"timestamp_ms\":{}}}\n",
                1_790_000_000_000u64 + i
            );
            out.write_all(line.as_bytes()).expect("writes");
            written += line.len();
            i += 1;
        }
    }
    let cassette = dir.path().join("big.cassette");
    let copy = dir.path().join("big.copy");
    let mut times: [Vec<f64>; 3] = Default::default();
    let mut cpu: [Vec<f64>; 3] = Default::default();
    for round in 0..rounds {
        // In a different order each round; each way overwrites its file of the round
        // before, as a recording over an old cassette does.
        for k in 0..WAYS.len() {
            let way = (round + k) % WAYS.len();
            let before = children_cpu();
            let (time, bytes) = run(WAYS[way], &big, &copy, &cassette);
            cpu[way].push(children_cpu() - before);
            let size = std::fs::metadata(&big).expect("stat").len() as usize;
            assert_eq!(bytes, size, "{:?}: the caller gets every byte", WAYS[way]);
            times[way].push(time);
        }
    }
    let [d, t, r] = times.map(median);
    let [dc, tc, rc] = cpu.map(median);
    println!("# record benchmark ({rounds} rounds, medians)");
    println!("machine: {} CPUs, {}", cpu_count(), cpu_model());
    println!(
        "{} MB stream: direct {d:.3} s, through tee {t:.3} s ({:.2}x), through record {r:.3} s ({:.2}x of direct, {:.2}x of tee; bar: at most {TEE_BAR}x of tee: {})",
        size / 1_000_000,
        t / d,
        r / d,
        r / t,
        if r / t <= TEE_BAR { "met" } else { "MISSED" }
    );
    println!(
        "CPU time of the processes: direct {dc:.3} s, tee {tc:.3} s, record {rc:.3} s ({:.2}x of tee)",
        rc / tc
    );
    let direct = latencies(false, lines, &dir.path().join("lat.cassette"));
    let proxied = latencies(true, lines, &dir.path().join("lat.cassette"));
    println!(
        "per-line latency ({lines} lines, 1 ms apart): direct p50 {:.3} ms p99 {:.3} ms; through record p50 {:.3} ms p99 {:.3} ms; added p99 {:.3} ms",
        percentile(&direct, 50.0),
        percentile(&direct, 99.0),
        percentile(&proxied, 50.0),
        percentile(&proxied, 99.0),
        percentile(&proxied, 99.0) - percentile(&direct, 99.0)
    );
}
