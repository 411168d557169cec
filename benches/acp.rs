//! Benchmark of `mock-agent acp` (server mode): request latency, a long turn's speed,
//! and peak memory.
//!
//! ```text
//! cargo bench -p mock-agent --bench acp
//! BENCH_QUICK=1 cargo bench -p mock-agent --bench acp   # fewer rounds
//! ```
//!
//! Three measurements, each against a baseline run the same way in the same run:
//!
//! 1. **Latency**: one long-lived `mock-agent acp`; [`ROUND_TRIPS`] `initialize` and
//!    as many `session/set_mode` requests, one at a time, each timed from the write of
//!    the request to the read of its response; then as many `session/set_mode`
//!    requests to a mock replaying a recording of that many (each exchange read from
//!    the cassette as it plays). Baseline: the same lines echoed back by `cat` (the
//!    floor of a round trip through two pipes and another process). Target: p99 of
//!    the mock under 1 ms for each.
//! 2. **A long turn**: an ACP recording (cassette format 2) whose one prompt streams
//!    [`UPDATES`] `session/update`s, then its response; the time from the write of
//!    the prompt to the read of the response's last byte, against `cat` of the same
//!    output bytes (spawn to end of output). Target: the mock at 0.5x of `cat`'s rate
//!    or better. The mock's output is checked, once, to be those bytes (length and
//!    hash).
//! 3. **Peak memory**: the maximum resident set of `mock-agent acp` playing the turn of
//!    10,000 and of 100,000 updates, and of a handshake on the default session.
//!
//! Environment: `BENCH_QUICK=1` runs fewer rounds; `BENCH_UPDATES=N` sets the size of
//! the long turn; `BENCH_DIR=DIR` writes (and keeps) the generated recordings there.

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support.rs"]
mod support;

use support::{
    bench_dir, env_count, mb, median, percentile, print_header, print_summary, quick, Digest, DRAIN_BUFFER,
    MOCK,
};

/// Set in the environment of the bench re-run as a memory-measuring helper.
const RSS_HELPER: &str = "ACP_BENCH_RSS_HELPER";
/// Round trips of each method in the latency measurement.
const ROUND_TRIPS: usize = 5_000;
/// Updates of the long turn.
const UPDATES: usize = 100_000;

const LATENCY_TARGET_MS: f64 = 1.0;
const TURN_TARGET: f64 = 0.5;
/// Growth of peak memory from 10,000 to 100,000 updates that still counts as flat.
const RSS_GROWTH_TARGET_KIB: i64 = 4 << 10;

/// The prompt of the recorded turn; the live one uses the same id, so the mock's
/// output is the recording's bytes.
const PROMPT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"bench-session","prompt":[{"type":"text","text":"go"}]}}"#;
const RESPONSE: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}"#;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#;

/// A target's name, whether it is met, and the numbers.
type Summary = (&'static str, bool, String);

fn main() {
    if let Some(input) = support::as_rss_helper(RSS_HELPER) {
        rss_helper(&input);
        return;
    }
    let quick = quick();
    let updates = env_count("BENCH_UPDATES", UPDATES);
    let (round_trips, turn_runs, rss_runs) = if quick { (1_000, 3, 1) } else { (ROUND_TRIPS, 7, 3) };
    let started = Instant::now();
    print_header("mock-agent acp", quick);
    let (dir, _temp) = bench_dir();

    let mut summaries = bench_latency(round_trips, &dir);
    let big = Turn::write(&dir, updates);
    let small = Turn::write(&dir, support::SMALL);
    println!(
        "generated {} ({} updates, {:.1} MB of output) and {} ({} updates)",
        big.cassette.display(),
        big.updates,
        mb(big.expected.len),
        small.cassette.display(),
        small.updates
    );
    println!();

    summaries.push(bench_turn(&big, turn_runs));
    summaries.push(bench_memory(&big, &small, rss_runs));

    print_summary(started, summaries);
}

// ---------------------------------------------------------------------------------
// 1. Latency

/// A long-lived child talked to a line at a time.
struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// Spawns `cmd`, its stdin and stdout piped to the bench, its stderr the bench's.
fn spawn_piped(cmd: &mut Command) -> Child {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawns")
}

impl Peer {
    fn spawn(mut cmd: Command) -> Peer {
        let mut child = spawn_piped(&mut cmd);
        Peer {
            stdin: child.stdin.take().expect("piped"),
            stdout: BufReader::with_capacity(DRAIN_BUFFER, child.stdout.take().expect("piped")),
            child,
        }
    }

    /// Writes `line`, reads one line back, and returns it with the time taken.
    fn round_trip(&mut self, line: &str, reply: &mut String) -> Duration {
        let start = Instant::now();
        self.stdin.write_all(line.as_bytes()).expect("writes");
        reply.clear();
        self.stdout.read_line(reply).expect("reads");
        start.elapsed()
    }

    /// Makes a session (`session/new`, id -1): its id. An `initialize` (id -2) after
    /// it, answered last, says when what the agent sends with the session is read.
    fn new_session(&mut self) -> String {
        let requests = [
            r#"{"jsonrpc":"2.0","id":-1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}"#,
            r#"{"jsonrpc":"2.0","id":-2,"method":"initialize","params":{"protocolVersion":1}}"#,
        ];
        for request in requests {
            self.stdin
                .write_all(format!("{request}\n").as_bytes())
                .expect("writes");
        }
        let (mut reply, mut session) = (String::new(), None);
        loop {
            reply.clear();
            assert!(
                self.stdout.read_line(&mut reply).expect("reads") > 0,
                "no answer to session/new"
            );
            let message: serde_json::Value = serde_json::from_str(&reply).expect("JSON");
            if message["id"] == -1 {
                session = message["result"]["sessionId"].as_str().map(str::to_owned);
            } else if message["id"] == -2 {
                return session.unwrap_or_else(|| panic!("no session made"));
            }
        }
    }

    fn close(self) {
        let Peer { mut child, stdin, .. } = self;
        drop(stdin);
        let status = child.wait().expect("waits");
        assert!(status.success(), "the child failed: {status}");
    }
}

fn bench_latency(round_trips: usize, dir: &Path) -> Vec<Summary> {
    println!("== 1. latency: request to response on one long-lived process ==");
    println!(
        "  {round_trips} round trips of each, one at a time, in blocks of 100 interleaved with the baseline"
    );
    // The default session's own answers, and a recording of as many `session/set_mode`
    // exchanges as are sent, each read from the cassette as it plays.
    let recorded = write_set_modes(dir, WARM_UP + round_trips + 100);
    let mut mocks = [
        Peer::spawn(acp_command(None)),
        Peer::spawn(acp_command(Some(&recorded))),
    ];
    let mut cat = Peer::spawn(Command::new("cat"));
    // The default session's agent knows the sessions it made only: one is made first.
    let told = mocks[0].new_session();
    let set_mode_of = |session: String| {
        move |id: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"session/set_mode","params":{{"sessionId":"{session}","modeId":"plan"}}}}{}"#,
                "\n"
            )
        }
    };
    let (set_mode, set_mode_told) = (set_mode_of("s".to_owned()), set_mode_of(told));
    let initialize = |id: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":1,"clientCapabilities":{{"fs":{{"readTextFile":true,"writeTextFile":true}},"terminal":false}}}}}}{}"#,
            "\n"
        )
    };
    // The summary's name, the mock that answers, the request.
    let cases: [(&'static str, usize, &Request<'_>); 3] = [
        ("latency (initialize)", 0, &initialize),
        ("latency (session/set_mode)", 0, &set_mode_told),
        ("latency (session/set_mode, recorded)", 1, &set_mode),
    ];
    let mut reply = String::new();
    // Warm-up, checking the replies.
    for (name, mock, line) in &cases {
        for id in 0..WARM_UP {
            mocks[*mock].round_trip(&line(id), &mut reply);
            let echoed = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"#);
            assert!(reply.starts_with(&echoed), "{name}: {reply}");
            cat.round_trip(&line(id), &mut reply);
        }
    }
    println!(
        "  {:<40} {:>9} {:>9} {:>9} {:>9}",
        "round trip", "p50", "p90", "p99", "max"
    );
    let mut summaries = Vec::new();
    for (name, mock, line) in &cases {
        let mut mock_times = Vec::with_capacity(round_trips);
        let mut cat_times = Vec::with_capacity(round_trips);
        let mut id = 1_000;
        while mock_times.len() < round_trips {
            for _ in 0..100 {
                id += 1;
                mock_times.push(mocks[*mock].round_trip(&line(id), &mut reply).as_secs_f64() * 1e3);
            }
            for _ in 0..100 {
                id += 1;
                cat_times.push(cat.round_trip(&line(id), &mut reply).as_secs_f64() * 1e3);
            }
        }
        mock_times.sort_by(f64::total_cmp);
        cat_times.sort_by(f64::total_cmp);
        let what = name.trim_start_matches("latency (").trim_end_matches(')');
        for (who, times) in [
            (format!("mock-agent {what}"), &mock_times),
            (format!("cat (echo) {what}"), &cat_times),
        ] {
            println!(
                "  {:<40} {:>6.3} ms {:>6.3} ms {:>6.3} ms {:>6.3} ms",
                who,
                percentile(times, 50.0),
                percentile(times, 90.0),
                percentile(times, 99.0),
                times.last().copied().unwrap_or(f64::NAN)
            );
        }
        let p99 = percentile(&mock_times, 99.0);
        summaries.push((
            *name,
            p99 < LATENCY_TARGET_MS,
            format!(
                "p50 {:.3} ms, p99 {p99:.3} ms (cat echo: p50 {:.3} ms, p99 {:.3} ms), target p99 < {LATENCY_TARGET_MS} ms",
                percentile(&mock_times, 50.0),
                percentile(&cat_times, 50.0),
                percentile(&cat_times, 99.0)
            ),
        ));
    }
    for mock in mocks {
        mock.close();
    }
    cat.close();
    println!();
    summaries
}

/// A request line with this id.
type Request<'a> = dyn Fn(usize) -> String + 'a;

/// Round trips of each request before the measured ones.
const WARM_UP: usize = 200;

/// `mock-agent acp`, playing `cassette` or the default session.
fn acp_command(cassette: Option<&Path>) -> Command {
    let mut cmd = mock_command();
    cmd.arg("acp");
    if let Some(cassette) = cassette {
        cmd.env("MOCK_AGENT_CASSETTE", cassette);
    }
    cmd
}

/// Writes `set-modes-N.cassette` into `dir`: a recording of `n` `session/set_mode`
/// exchanges, each its request and its response.
fn write_set_modes(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join(format!("set-modes-{n}.cassette"));
    let mut c = BufWriter::new(File::create(&path).expect("creates"));
    writeln!(c, r#"{{"mock_agent_cassette":2,"invocation":{{"acp":true}}}}"#).expect("writes");
    for id in 0..n {
        writeln!(
            c,
            r#"{{"t":0,"in":{{"jsonrpc":"2.0","id":{id},"method":"session/set_mode","params":{{"sessionId":"s","modeId":"plan"}}}}}}"#
        )
        .expect("writes");
        writeln!(
            c,
            r#"{{"t":0,"out":{{"jsonrpc":"2.0","id":{id},"result":{{}}}}}}"#
        )
        .expect("writes");
    }
    writeln!(c, r#"{{"t":1,"exit":0}}"#).expect("writes");
    c.flush().expect("writes");
    path
}

// ---------------------------------------------------------------------------------
// 2. A long turn

/// A generated recording of one turn, and the bytes the agent writes in it.
struct Turn {
    updates: usize,
    cassette: PathBuf,
    /// The turn's output: every update, then the response.
    output: PathBuf,
    expected: Digest,
}

impl Turn {
    /// Writes `turn-N.cassette` and `turn-N.out` into `dir`, deterministically.
    fn write(dir: &Path, updates: usize) -> Turn {
        let cassette = dir.join(format!("turn-{updates}.cassette"));
        let output = dir.join(format!("turn-{updates}.out"));
        let mut c = BufWriter::new(File::create(&cassette).expect("creates"));
        let mut o = BufWriter::new(File::create(&output).expect("creates"));
        writeln!(c, r#"{{"mock_agent_cassette":2,"invocation":{{"acp":true}}}}"#).expect("writes");
        writeln!(c, r#"{{"t":0,"in":{PROMPT}}}"#).expect("writes");
        let mut rng = SplitMix(SEED);
        let mut expected = Digest::default();
        let mut emit = |c: &mut BufWriter<File>, o: &mut BufWriter<File>, line: &str| {
            writeln!(c, r#"{{"t":0,"out":{line}}}"#).expect("writes");
            o.write_all(line.as_bytes()).expect("writes");
            o.write_all(b"\n").expect("writes");
            expected.line(line.as_bytes());
        };
        let mut call = 0usize;
        let mut open_call = None;
        for _ in 0..updates {
            let update = match (rng.below(10), open_call.take()) {
                (_, Some(id)) => format!(
                    r#"{{"sessionUpdate":"tool_call_update","toolCallId":"{id}","status":"completed","rawOutput":{{"exitCode":0,"stdout":"{}","stderr":""}}}}"#,
                    text(&mut rng, 8, 30)
                ),
                (0, None) => {
                    call += 1;
                    let id = format!("call-{call:08}\\nfc_{:016x}_0", rng.next());
                    let update = format!(
                        r#"{{"sessionUpdate":"tool_call","toolCallId":"{id}","title":"`ls -la src/{call}`","kind":"execute","status":"pending","rawInput":{{"command":"ls -la src/{call}"}}}}"#
                    );
                    open_call = Some(id);
                    update
                }
                (1..=2, None) => format!(
                    r#"{{"sessionUpdate":"agent_thought_chunk","content":{{"type":"text","text":"{}"}}}}"#,
                    text(&mut rng, 10, 40)
                ),
                _ => format!(
                    r#"{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":"{}"}}}}"#,
                    text(&mut rng, 10, 40)
                ),
            };
            emit(
                &mut c,
                &mut o,
                &format!(
                    r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"bench-session","update":{update}}}}}"#
                ),
            );
        }
        emit(&mut c, &mut o, RESPONSE);
        writeln!(c, r#"{{"t":1,"exit":0}}"#).expect("writes");
        c.flush().expect("writes");
        o.flush().expect("writes");
        Turn {
            updates,
            cassette,
            output,
            expected,
        }
    }

    /// `mock-agent acp` playing this turn.
    fn mock(&self) -> Command {
        acp_command(Some(&self.cassette))
    }
}

/// The seed of the generated turn.
const SEED: u64 = 0x5eed_0ac9;

fn bench_turn(turn: &Turn, runs: usize) -> Summary {
    println!(
        "== 2. a turn of {} updates ({} bytes of output) ==",
        turn.updates, turn.expected.len
    );
    println!("  mock: from the write of the prompt to the last byte of its response (after an initialize round trip);");
    println!("  cat: from spawn to the end of its output; stdout a pipe drained in {} KiB reads; {runs} runs each, alternating", DRAIN_BUFFER >> 10);
    let checked = play_turn(turn, true);
    println!(
        "  check mock-agent acp: {} bytes, fnv1a64 {:016x}: {}",
        checked.seen.len,
        checked.seen.hash,
        if checked.seen == turn.expected {
            "same as the recording"
        } else {
            "DIFFERENT from the recording"
        }
    );
    assert_eq!(
        checked.seen, turn.expected,
        "the mock's output is the recording's"
    );
    let (mut mock_times, mut cat_times) = (Vec::new(), Vec::new());
    for r in 0..runs {
        let mut one = |which: usize| match which {
            0 => mock_times.push(play_turn(turn, false).wall.as_secs_f64()),
            _ => cat_times.push(cat_output(turn).as_secs_f64()),
        };
        one(r % 2);
        one((r + 1) % 2);
    }
    let (mock_s, cat_s) = (median(&mock_times), median(&cat_times));
    let rate = |secs: f64| mb(turn.expected.len) / secs;
    println!(
        "  {:<28} {:>9} {:>10} {:>12}",
        "command", "median", "MB/s", "updates/s"
    );
    for (name, secs) in [("cat turn.out", cat_s), ("mock-agent acp (the turn)", mock_s)] {
        println!(
            "  {name:<28} {:>8.1}ms {:>10.0} {:>12.0}",
            secs * 1e3,
            rate(secs),
            turn.updates as f64 / secs
        );
    }
    let ratio = cat_s / mock_s;
    println!("  mock at {ratio:.2}x of cat's rate; target >= {TURN_TARGET}x");
    println!();
    (
        "long turn",
        ratio >= TURN_TARGET,
        format!(
            "{} updates in {:.1} ms ({:.0} MB/s) vs cat {:.1} ms ({:.0} MB/s): {ratio:.2}x, target >= {TURN_TARGET}x",
            turn.updates,
            mock_s * 1e3,
            rate(mock_s),
            cat_s * 1e3,
            rate(cat_s)
        ),
    )
}

/// What a run of the turn gave.
struct Played {
    wall: Duration,
    seen: Digest,
}

/// Runs the mock on the turn: an initialize round trip, then the prompt, timed to the
/// last byte of the turn.
fn play_turn(turn: &Turn, hash: bool) -> Played {
    let mut peer = Peer::spawn(turn.mock());
    let mut reply = String::new();
    peer.round_trip(&format!("{INITIALIZE}\n"), &mut reply);
    assert!(reply.contains(r#""protocolVersion":1"#), "{reply}");
    let start = Instant::now();
    peer.stdin
        .write_all(format!("{PROMPT}\n").as_bytes())
        .expect("writes");
    let seen = drain(&mut peer.stdout, turn.expected.len, hash);
    let wall = start.elapsed();
    peer.close();
    Played { wall, seen }
}

/// `cat` of the turn's output, from spawn to the end of its output.
fn cat_output(turn: &Turn) -> Duration {
    let start = Instant::now();
    let mut child = Command::new("cat")
        .arg(&turn.output)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut stdout = child.stdout.take().expect("piped");
    let seen = drain(&mut stdout, u64::MAX, false);
    let wall = start.elapsed();
    assert!(child.wait().expect("waits").success());
    assert_eq!(seen.len, turn.expected.len, "cat's output");
    wall
}

/// Reads `from` until `len` bytes (or its end), hashing them when asked.
fn drain(from: &mut impl Read, len: u64, hash: bool) -> Digest {
    let mut buf = vec![0u8; DRAIN_BUFFER];
    let mut seen = Digest::default();
    while seen.len < len {
        let want = usize::try_from(len - seen.len)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        let n = from.read(&mut buf[..want]).expect("reads");
        if n == 0 {
            break;
        }
        seen.add(&buf[..n], hash);
    }
    seen
}

// ---------------------------------------------------------------------------------
// 3. Peak memory

fn bench_memory(big: &Turn, small: &Turn, runs: usize) -> Summary {
    println!("== 3. peak memory (max RSS) ==");
    println!(
        "  each command run by a fresh helper process that writes its stdin, drains its stdout,\n  \
         waits for it alone, then reads getrusage(RUSAGE_CHILDREN).ru_maxrss; max of {runs} run(s)"
    );
    let cases: [(String, Vec<OsString>, &str); 4] = [
        (
            "cat turn.out (floor)".into(),
            vec!["cat".into(), small.output.clone().into()],
            "",
        ),
        (
            "mock-agent acp, default session, initialize".into(),
            vec![MOCK.into(), "acp".into()],
            INITIALIZE,
        ),
        (
            format!("mock-agent acp, turn of {} updates", small.updates),
            vec![MOCK.into(), "acp".into()],
            PROMPT,
        ),
        (
            format!("mock-agent acp, turn of {} updates", big.updates),
            vec![MOCK.into(), "acp".into()],
            PROMPT,
        ),
    ];
    let cassettes = [None, None, Some(&small.cassette), Some(&big.cassette)];
    let mut kib = Vec::new();
    for ((name, argv, input), cassette) in cases.iter().zip(cassettes) {
        let max = (0..runs)
            .map(|_| rss_of(argv, input, cassette))
            .max()
            .unwrap_or(0);
        println!("  {name:<50} {max:>8} KiB");
        kib.push(max);
    }
    let growth = kib[3] - kib[2];
    println!(
        "  growth {} -> {} updates: {growth:+} KiB; target < {} KiB",
        small.updates, big.updates, RSS_GROWTH_TARGET_KIB
    );
    println!();
    (
        "peak memory",
        growth < RSS_GROWTH_TARGET_KIB,
        format!(
            "{} KiB at {} updates, {} KiB at {} updates ({growth:+} KiB), target: growth < {} KiB",
            kib[2], small.updates, kib[3], big.updates, RSS_GROWTH_TARGET_KIB
        ),
    )
}

/// The max RSS, in KiB, of `argv` given `input` on stdin, measured by a helper.
fn rss_of(argv: &[OsString], input: &str, cassette: Option<&PathBuf>) -> i64 {
    support::rss_by_helper(RSS_HELPER, input, |cmd| {
        cmd.args(argv);
        match cassette {
            Some(path) => cmd.env("MOCK_AGENT_CASSETTE", path),
            None => cmd.env_remove("MOCK_AGENT_CASSETTE"),
        };
    })
}

/// The helper: runs its arguments with the line `input` on stdin, then the end of
/// stdin; prints the child's max RSS.
fn rss_helper(input: &str) {
    let (mut cmd, program) = support::helper_command();
    if let Some(cassette) = std::env::var_os("MOCK_AGENT_CASSETTE") {
        cmd.env("MOCK_AGENT_CASSETTE", cassette);
    }
    let mut child = spawn_piped(&mut cmd);
    let mut stdin = child.stdin.take().expect("piped");
    if !input.is_empty() {
        stdin.write_all(format!("{input}\n").as_bytes()).expect("writes");
    }
    drop(stdin);
    let mut stdout = child.stdout.take().expect("piped");
    drain(&mut stdout, u64::MAX, false);
    let status = child.wait().expect("waits");
    assert!(status.success(), "{program:?} failed: {status}");
    support::print_children_rss();
}

// ---------------------------------------------------------------------------------
// Helpers

fn mock_command() -> Command {
    let mut cmd = Command::new(MOCK);
    harness::run::child::without_mock_env(&mut cmd);
    cmd
}

/// SplitMix64: a small, fixed, deterministic generator.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `min..max` words of JSON-escaped text, some of it not ASCII.
fn text(rng: &mut SplitMix, min: u64, max: u64) -> String {
    const WORDS: [&str; 16] = [
        "the",
        "file",
        "naïve",
        "→",
        "日本語",
        "reads",
        "\\\"quoted\\\"",
        "a\\\\b",
        "tab\\there",
        "line\\n",
        "tests",
        "cargo",
        "build",
        "fixes",
        "the",
        "module",
    ];
    let n = min + rng.below(max - min);
    let words: Vec<&str> = (0..n)
        .map(|_| WORDS[usize::try_from(rng.below(WORDS.len() as u64)).unwrap_or(0)])
        .collect();
    words.join(" ")
}
