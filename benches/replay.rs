//! Benchmark of `mock-agent` replay: startup time, throughput and peak memory.
//!
//! ```text
//! cargo build --release -p mock-agent
//! cargo bench -p mock-agent --bench replay
//! BENCH_QUICK=1 cargo bench -p mock-agent --bench replay   # fewer runs
//! ```
//!
//! Three measurements, each against a baseline run the same way, baseline and subject
//! runs interleaved so that the noise of a shared machine falls on both alike:
//!
//! 1. **Startup**: the default replay `mock-agent -p PROMPT` against `cat` of the same
//!    bytes (`cassettes/seed-example.ndjson`), start to exit, stdout into a pipe the
//!    bench drains. Target: the median of the mock within 1.1x the median of `cat`.
//! 2. **Throughput**: `mock-agent replay BIG.cassette` and `mock-agent replay
//!    BIG.ndjson` (a bare capture) against `cat BIG.ndjson`, stdout into a pipe the
//!    bench drains. The files are generated in a temporary directory, deterministically:
//!    one long session of [`EVENTS`] events made of `harness::generate`'s sessions.
//!    Targets (issue 19): the capture and the cassette each at 0.8x the throughput of
//!    `cat` or better (a capture or cassette that nothing asks to change is replayed as
//!    a copy). The mock's output is checked, once, to
//!    be the bytes of `BIG.ndjson` (length and hash).
//! 3. **Peak memory**: the maximum resident set of `mock-agent replay` on the big
//!    cassette and capture and on 10,000-event ones. Target: under 8 MiB, and flat.
//!
//! Environment: `BENCH_QUICK=1` runs fewer repetitions; `BENCH_EVENTS=N` sets the size
//! of the big cassette; `BENCH_DIR=DIR` writes (and keeps) the generated files there
//! instead of a temporary directory, for profiling them afterwards.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

#[path = "support.rs"]
mod support;

use support::{
    bench_dir, env_count, mb, median, print_header, print_summary, quick, Digest, DRAIN_BUFFER, MOCK, SMALL,
};

use harness::cassette::{Header, Invocation, Writer};
use harness::digest::{fnv1a_from, FNV1A_OFFSET};
use harness::generate::{from_seed, SessionConfig};
use harness::{Ending, Exit, Frame, Line, OutputFormat};
use nix::sys::resource::{getrusage, UsageWho};

/// The recorded session the mock replays by default.
const SEED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../cassettes/seed-example.ndjson");
/// The prompt of the seed session, so that the mock prints the seed byte for byte.
const PROMPT: &str = "Read README.md and create a summary";
/// Set in the environment of the bench re-run as a memory-measuring helper.
const RSS_HELPER: &str = "REPLAY_BENCH_RSS_HELPER";
/// The size of the big cassette.
const EVENTS: usize = 1_000_000;
/// The length of the run of consecutive assistant lines of the informative memory row.
const RUN_LINES: usize = 50_000;

const STARTUP_TARGET: f64 = 1.1;
/// A cassette's bar (issue 19; 0.5x when its fast reader came): a cassette that
/// nothing asks to change is copied too.
const CASSETTE_TARGET: f64 = 0.8;
/// A bare capture that nothing asks to change is a copy.
const CAPTURE_TARGET: f64 = 0.8;
const RSS_TARGET_KIB: i64 = 8 << 10;

fn main() {
    if support::as_rss_helper(RSS_HELPER).is_some() {
        rss_helper();
        return;
    }
    let quick = quick();
    let events = env_count("BENCH_EVENTS", EVENTS);
    let (startup_runs, throughput_runs, rss_runs) = if quick { (60, 2, 1) } else { (500, 5, 3) };
    let started = Instant::now();
    print_header("mock-agent replay", quick);

    let startup = bench_startup(startup_runs);

    let (dir, _temp) = bench_dir();
    let generating = Instant::now();
    let big = Generated::write(&dir, "big", events);
    let small = Generated::write(&dir, "small", SMALL);
    let run = write_assistant_run(&dir, RUN_LINES);
    println!(
        "generated in {:.1}s: {} ({} events, {:.1} MB) and {} ({:.1} MB of output)",
        generating.elapsed().as_secs_f64(),
        big.cassette.display(),
        events,
        mb(file_len(&big.cassette)),
        big.ndjson.display(),
        mb(big.expected.len),
    );
    println!();

    let throughput = bench_throughput(&big, throughput_runs);
    let memory = bench_memory(&big, &small, &run, rss_runs);

    print_summary(started, [startup, throughput.0, throughput.1, memory]);
}

// ---------------------------------------------------------------------------------
// 1. Startup

fn bench_startup(runs: usize) -> Summary {
    println!("== 1. startup: default replay vs cat of the same bytes ==");
    println!("  stdout: a pipe drained by the bench; {runs} runs each, interleaved (order alternating)");
    let seed = std::fs::read(SEED).expect("the seed session");
    let mock = || {
        let mut cmd = mock_command();
        cmd.args(["-p", PROMPT]);
        cmd
    };
    let cat = || {
        let mut cmd = Command::new("cat");
        cmd.arg(SEED);
        cmd
    };
    // Same bytes, checked once (this also warms up both).
    for (name, mut cmd) in [("mock-agent", mock()), ("cat", cat())] {
        let run = run_drained(&mut cmd, Check::Hash);
        assert_eq!(run.seen.len as usize, seed.len(), "{name}: output length");
        assert_eq!(
            run.seen.hash,
            fnv1a_from(FNV1A_OFFSET, &seed),
            "{name}: output bytes"
        );
    }
    let mut cat_times = Vec::with_capacity(runs);
    let mut mock_times = Vec::with_capacity(runs);
    let mut ratios = Vec::with_capacity(runs);
    for i in 0..runs {
        let (c, m) = if i % 2 == 0 {
            let c = run_drained(&mut cat(), Check::Count);
            (c, run_drained(&mut mock(), Check::Count))
        } else {
            let m = run_drained(&mut mock(), Check::Count);
            (run_drained(&mut cat(), Check::Count), m)
        };
        cat_times.push(c.wall);
        mock_times.push(m.wall);
        ratios.push(m.wall.as_secs_f64() / c.wall.as_secs_f64());
    }
    let cat_s = Stats::of(&cat_times);
    let mock_s = Stats::of(&mock_times);
    println!(
        "  {:<32} {:>9} {:>9} {:>9} {:>9}",
        "command", "min", "p10", "median", "p90"
    );
    for (name, s) in [
        ("cat seed-example.ndjson", &cat_s),
        ("mock-agent -p PROMPT", &mock_s),
    ] {
        println!(
            "  {:<32} {:>9} {:>9} {:>9} {:>9}",
            name,
            ms(s.min),
            ms(s.p10),
            ms(s.median),
            ms(s.p90)
        );
    }
    let ratio = mock_s.median / cat_s.median;
    let pair_ratio = median(&mut ratios);
    println!(
        "  ratio of medians {ratio:.2}x (median of per-pair ratios {pair_ratio:.2}x); target <= {STARTUP_TARGET}x"
    );
    println!();
    (
        "startup",
        ratio <= STARTUP_TARGET,
        format!(
            "mock {} vs cat {} (median), {ratio:.2}x, target <= {STARTUP_TARGET}x",
            ms(mock_s.median),
            ms(cat_s.median)
        ),
    )
}

// ---------------------------------------------------------------------------------
// 2. Throughput

/// A target's name, whether it is met, and the numbers.
type Summary = (&'static str, bool, String);

/// Makes a fresh command to run.
type MakeCommand = Box<dyn Fn() -> Command>;

fn bench_throughput(big: &Generated, runs: usize) -> (Summary, Summary) {
    println!("== 2. throughput: {} bytes of output ==", big.expected.len);
    println!("  stdout: a pipe drained by the bench ({} KiB reads); {runs} runs each, interleaved (order rotating)", DRAIN_BUFFER >> 10);
    let subjects: [(&str, MakeCommand); 3] = [
        ("cat big.ndjson", {
            let path = big.ndjson.clone();
            Box::new(move || {
                let mut cmd = Command::new("cat");
                cmd.arg(&path);
                cmd
            })
        }),
        ("mock-agent replay big.cassette", {
            let path = big.cassette.clone();
            Box::new(move || {
                let mut cmd = mock_command();
                cmd.arg("replay").arg(&path);
                cmd
            })
        }),
        ("mock-agent replay big.ndjson", {
            let path = big.ndjson.clone();
            Box::new(move || {
                let mut cmd = mock_command();
                cmd.arg("replay").arg(&path);
                cmd
            })
        }),
    ];
    // One checked run of each, which also warms the page cache.
    for (name, make) in &subjects {
        let run = run_drained(&mut make(), Check::Hash);
        let same = run.seen == big.expected;
        println!(
            "  check {name:<32} {} bytes, fnv1a64 {:016x}: {}",
            run.seen.len,
            run.seen.hash,
            if same {
                "same as big.ndjson"
            } else {
                "DIFFERENT from big.ndjson"
            }
        );
        assert!(same, "{name}: the output is not the bytes of big.ndjson");
    }
    let mut walls: Vec<Vec<Duration>> = vec![Vec::new(); subjects.len()];
    let mut cpus: Vec<Vec<(f64, f64)>> = vec![Vec::new(); subjects.len()];
    for r in 0..runs {
        for k in 0..subjects.len() {
            let i = (r + k) % subjects.len();
            let run = run_drained(&mut (subjects[i].1)(), Check::Count);
            assert_eq!(run.seen.len, big.expected.len, "{}: output length", subjects[i].0);
            walls[i].push(run.wall);
            cpus[i].push((run.user, run.sys));
        }
    }
    println!(
        "  {:<32} {:>9} {:>10} {:>10} {:>10} {:>8} {:>8}",
        "command", "median", "MB/s med", "MB/s min", "MB/s max", "user s", "sys s"
    );
    let mut mbps = Vec::new();
    for (i, (name, _)) in subjects.iter().enumerate() {
        let s = Stats::of(&walls[i]);
        let rate = |secs: f64| mb(big.expected.len) / secs;
        let mut user: Vec<f64> = cpus[i].iter().map(|c| c.0).collect();
        let mut sys: Vec<f64> = cpus[i].iter().map(|c| c.1).collect();
        println!(
            "  {:<32} {:>8.3}s {:>10.0} {:>10.0} {:>10.0} {:>8.3} {:>8.3}",
            name,
            s.median,
            rate(s.median),
            rate(s.max),
            rate(s.min),
            median(&mut user),
            median(&mut sys)
        );
        mbps.push(rate(s.median));
    }
    let cassette_ratio = mbps[1] / mbps[0];
    let capture_ratio = mbps[2] / mbps[0];
    println!(
        "  ratio to cat (medians): cassette {cassette_ratio:.2}x (target >= {CASSETTE_TARGET}x), \
         capture {capture_ratio:.2}x (target >= {CAPTURE_TARGET}x)"
    );
    println!("  (MB = 10^6 bytes; user/sys: CPU seconds of the child, median)");
    println!();
    let summary = |name, ratio: f64, rate: f64, target: f64| {
        (
            name,
            ratio >= target,
            format!(
                "{rate:.0} MB/s vs cat {:.0} MB/s, {ratio:.2}x, target >= {target}x",
                mbps[0]
            ),
        )
    };
    (
        summary("throughput (cassette)", cassette_ratio, mbps[1], CASSETTE_TARGET),
        summary("throughput (capture)", capture_ratio, mbps[2], CAPTURE_TARGET),
    )
}

// ---------------------------------------------------------------------------------
// 3. Peak memory

fn bench_memory(big: &Generated, small: &Generated, run: &Path, runs: usize) -> Summary {
    println!("== 3. peak memory (max RSS) ==");
    println!(
        "  each command run by a fresh helper process that waits for it alone, then reads\n  \
         getrusage(RUSAGE_CHILDREN).ru_maxrss; stdout drained by the helper; max of {runs} run(s)"
    );
    let mock_replay = |path: &Path| vec![MOCK.into(), "replay".into(), path.as_os_str().to_owned()];
    let cases: Vec<(String, Vec<std::ffi::OsString>)> = vec![
        (
            "cat small.ndjson (floor)".into(),
            vec!["cat".into(), small.ndjson.as_os_str().to_owned()],
        ),
        (
            "mock-agent -p PROMPT".into(),
            vec![MOCK.into(), "-p".into(), PROMPT.into()],
        ),
        (
            format!("mock-agent replay small.cassette ({SMALL} ev)"),
            mock_replay(&small.cassette),
        ),
        (
            format!("mock-agent replay big.cassette ({} ev)", big.events),
            mock_replay(&big.cassette),
        ),
        (
            format!("mock-agent replay big.ndjson ({} ev)", big.events),
            mock_replay(&big.ndjson),
        ),
        (
            format!("info: run.ndjson, {RUN_LINES} assistant lines in a row"),
            mock_replay(run),
        ),
    ];
    let gnu_time = Path::new("/usr/bin/time").exists();
    println!(
        "  {:<50} {:>12} {:>16}",
        "command",
        "max RSS",
        if gnu_time { "/usr/bin/time %M" } else { "" }
    );
    let mut mock_max = 0;
    let mut small_kib = 0;
    let mut big_kib = 0;
    for (i, (name, argv)) in cases.iter().enumerate() {
        let kib = (0..runs).map(|_| rss_of(argv)).max().unwrap_or(0);
        let cross = if gnu_time {
            format!("{} KiB", gnu_time_rss(argv))
        } else {
            String::new()
        };
        println!("  {name:<50} {:>8} KiB {cross:>16}", kib);
        // The first row is the floor; the last, a worst case outside the target.
        if i > 0 && i + 1 < cases.len() {
            mock_max = mock_max.max(kib);
        }
        match i {
            2 => small_kib = kib,
            3 => big_kib = kib,
            _ => {}
        }
    }
    println!(
        "  growth small -> big cassette: {:+} KiB; target < {} KiB (all rows but the first and the last)",
        big_kib - small_kib,
        RSS_TARGET_KIB
    );
    println!(
        "  info: rendering holds a run of consecutive assistant lines (a streamed segment) in memory \
         until the run ends, so the last row grows with the run, not with the file"
    );
    (
        "peak memory",
        mock_max < RSS_TARGET_KIB,
        format!(
            "max {mock_max} KiB ({:.1} MiB), {small_kib} KiB at {SMALL} events, {big_kib} KiB at {} events, target < 8 MiB",
            mock_max as f64 / 1024.0,
            big.events
        ),
    )
}

/// The max RSS, in KiB, of `argv` run by a fresh helper (this bench, re-run).
fn rss_of(argv: &[std::ffi::OsString]) -> i64 {
    support::rss_by_helper(RSS_HELPER, "1", |cmd| {
        cmd.args(argv).stdin(Stdio::null());
    })
}

/// Helper mode: runs its arguments, drains their stdout, waits, and prints the max RSS
/// of its children in KiB ([`support::print_children_rss`]).
fn rss_helper() {
    let (mut cmd, program) = support::helper_command();
    let run = run_drained(&mut cmd, Check::Count);
    assert!(run.status.success(), "{program:?} failed: {}", run.status);
    support::print_children_rss();
}

/// The max RSS, in KiB, of `argv` as GNU time reports it.
fn gnu_time_rss(argv: &[std::ffi::OsString]) -> i64 {
    let out = tempfile::NamedTempFile::new().expect("a temporary file");
    let mut cmd = Command::new("/usr/bin/time");
    cmd.args(["-f", "%M", "-o"]).arg(out.path()).args(argv);
    harness::run::child::without_mock_env(&mut cmd);
    let run = run_drained(&mut cmd, Check::Count);
    assert!(run.status.success(), "/usr/bin/time {argv:?} failed");
    std::fs::read_to_string(out.path())
        .expect("time's output")
        .trim()
        .parse()
        .expect("a number of KiB")
}

// ---------------------------------------------------------------------------------
// Running commands

#[derive(Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Count the bytes.
    Count,
    /// Count and hash the bytes.
    Hash,
}

struct Run {
    wall: Duration,
    seen: Digest,
    /// CPU seconds of the child.
    user: f64,
    sys: f64,
    status: ExitStatus,
}

fn mock_command() -> Command {
    let mut cmd = Command::new(MOCK);
    harness::run::child::without_mock_env(&mut cmd);
    cmd
}

/// Runs `cmd` with its stdout into a pipe drained here, from spawn to exit.
fn run_drained(cmd: &mut Command, check: Check) -> Run {
    let mut buf = vec![0u8; DRAIN_BUFFER];
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let before = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    let start = Instant::now();
    let mut child = cmd.spawn().expect("the command starts");
    let mut stdout = child.stdout.take().expect("a piped stdout");
    let mut seen = Digest::default();
    loop {
        let n = match stdout.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => panic!("reading the child's stdout: {e}"),
        };
        seen.add(&buf[..n], check == Check::Hash);
    }
    let status = child.wait().expect("the command ends");
    let wall = start.elapsed();
    let after = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    assert!(status.success(), "{cmd:?} failed: {status}");
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    Run {
        wall,
        seen,
        user: secs(after.user_time()) - secs(before.user_time()),
        sys: secs(after.system_time()) - secs(before.system_time()),
        status,
    }
}

// ---------------------------------------------------------------------------------
// Statistics and formatting

struct Stats {
    min: f64,
    p10: f64,
    median: f64,
    p90: f64,
    max: f64,
}

impl Stats {
    fn of(samples: &[Duration]) -> Stats {
        let mut s: Vec<f64> = samples.iter().map(Duration::as_secs_f64).collect();
        s.sort_by(f64::total_cmp);
        let at = |q: f64| s[((s.len() - 1) as f64 * q).round() as usize];
        Stats {
            min: s[0],
            p10: at(0.1),
            median: median(&s),
            p90: at(0.9),
            max: s[s.len() - 1],
        }
    }
}

fn ms(secs: f64) -> String {
    format!("{:.3}ms", secs * 1e3)
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

// ---------------------------------------------------------------------------------
// The generated session

/// A generated cassette and the bare capture of exactly its output.
struct Generated {
    events: usize,
    cassette: PathBuf,
    ndjson: PathBuf,
    /// Length and FNV-1a hash of the ndjson file: the expected output.
    expected: Digest,
}

impl Generated {
    /// Writes `DIR/NAME.cassette` and `DIR/NAME.ndjson`: one session of `events`
    /// events made of generated ones ([`session_lines`]), the same for the same
    /// arguments.
    fn write(dir: &Path, name: &str, events: usize) -> Generated {
        let cassette = dir.join(format!("{name}.cassette"));
        let ndjson = dir.join(format!("{name}.ndjson"));
        let header = Header::new(Invocation {
            output_format: Some(OutputFormat::StreamJson),
            ..Invocation::default()
        });
        let mut c = Writer::create(&cassette, &header).expect("create cassette");
        let mut n = BufWriter::with_capacity(1 << 20, File::create(&ndjson).expect("create ndjson"));
        let mut expected = Digest::default();
        let mut at = Duration::ZERO;
        for line in session_lines(events) {
            expected.line(line.as_bytes());
            n.write_all(line.as_bytes()).expect("write");
            n.write_all(b"\n").expect("write");
            at += Duration::from_micros(1_250);
            c.write(&Frame::Line(Line::stdout(at, line))).expect("write");
        }
        c.write(&Frame::End(Ending {
            at,
            exit: Exit::Code(0),
        }))
        .expect("write");
        c.finish().expect("finish the cassette");
        n.flush().expect("flush");
        Generated {
            events,
            cassette,
            ndjson,
            expected,
        }
    }
}

/// The lines of one long session of `events` events, made of the sessions that
/// `harness::generate` makes of seeds 0 to [`POOL`]: the `init` and `user` events of
/// the first, then the model calls of each in turn (round and round), then the
/// `result` of the last. Generated sessions are successful runs recorded without
/// `--stream-partial-output`, with the real CLI's event mix. (One generated session
/// of a million events is out of reach: `from_seed` holds proptest's value trees, 20 s
/// and 4.7 GB for 10,000 events of `SessionConfig::large()` on this machine.)
fn session_lines(events: usize) -> impl Iterator<Item = String> {
    const POOL: u64 = 64;
    let mut config = SessionConfig::default().failures(0);
    config.stream_partial_output = Some(false);
    let pool: Vec<Vec<String>> = (0..POOL).map(|seed| from_seed(seed, &config).lines).collect();
    let head = pool[0][..2].to_vec();
    let result = pool[0].last().expect("a result").clone();
    let calls = pool
        .iter()
        .flat_map(|lines| lines[2..lines.len() - 1].iter().cloned())
        .collect::<Vec<_>>();
    let body = events.saturating_sub(head.len() + 1);
    head.into_iter()
        .chain(calls.into_iter().cycle().take(body))
        .chain(std::iter::once(result))
}

/// Writes `DIR/run.ndjson`: a capture whose answer is `lines` assistant lines in a row,
/// the shape of a long streamed answer.
fn write_assistant_run(dir: &Path, lines: usize) -> PathBuf {
    let path = dir.join("run.ndjson");
    let mut out = BufWriter::new(File::create(&path).expect("create run.ndjson"));
    let session = "0f1e2d3c-4b5a-4978-8675-a4b3c2d1e0f9";
    writeln!(
        out,
        r#"{{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/home/dev/project","session_id":"{session}","model":"Auto","permissionMode":"default"}}"#
    )
    .expect("write");
    for i in 0..lines {
        writeln!(
            out,
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"part {i} of a long answer, with a few more words "}}]}},"session_id":"{session}","timestamp_ms":{}}}"#,
            1_790_000_000_000u64 + i as u64
        )
        .expect("write");
    }
    writeln!(
        out,
        r#"{{"type":"result","subtype":"success","duration_ms":900,"duration_api_ms":900,"is_error":false,"result":"done","session_id":"{session}"}}"#
    )
    .expect("write");
    out.flush().expect("flush");
    path
}
