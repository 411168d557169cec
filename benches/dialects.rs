//! Benchmark of replay for every registered dialect: a large session of each, replayed
//! by the mock as that dialect's CLI to a client that sends what the recorded one sent,
//! against `cat` of the same stdout bytes; and the mock's peak memory at two sizes.
//!
//! ```text
//! cargo bench -p mock-agent --bench dialects
//! BENCH_QUICK=1 cargo bench -p mock-agent --bench dialects    # fewer runs
//! BENCH_MB=50 cargo bench -p mock-agent --bench dialects      # the size of the large session
//! BENCH_ONLY=claude,codex cargo bench -p mock-agent --bench dialects   # only these dialects
//! BENCH_DIR=/tmp/db cargo bench -p mock-agent --bench dialects  # keep the sessions (to profile)
//! ```
//!
//! Nothing here names a dialect: each of `harness::dialects::ALL` is measured the same
//! way, so a dialect is measured by registering it. The large session is made of the
//! dialect's own generated one (seed 7): its longest run of consecutive stdout lines
//! (a turn's stream) is repeated until the stdout holds [`MB`] MB, the client's lines
//! and the ending kept where they were. Replay is lossless, so the mock writes exactly
//! the bytes `cat` writes: checked once a dialect (length and FNV-1a hash).
//!
//! Each run: spawn to exit, stdout drained into a 256 KiB buffer by the bench, the
//! client's lines written when the lines before them have come (as the recorded client
//! did). `cat` and the mock runs are interleaved, so the noise of a shared machine falls
//! on both alike; the ratio is of the medians (throughput of the mock / of `cat`).
//! Targets (issue 25): at least [`TARGET`] of `cat`'s throughput, and peak memory flat:
//! the large session's at most [`RSS_GROWTH_KIB`] above the small one's (a tenth of
//! its size), under [`RSS_TARGET_KIB`]. Peak memory is GNU time's `%M` of the mock.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "support.rs"]
mod support;

use support::{cpu_count, cpu_model, env_count, mb, median, quick, DRAIN_BUFFER, MOCK};

use harness::cassette::{Header, Writer};
use harness::dialects::Dialect;
use harness::digest::{fnv1a_from, FNV1A_OFFSET};
use harness::frames::{Frame, Stream};

/// The size of the large session's stdout, in MB (`BENCH_MB`).
const MB: u64 = 100;
/// The throughput bar, as a ratio of `cat`'s.
const TARGET: f64 = 0.8;
/// Peak memory bars.
const RSS_TARGET_KIB: i64 = 16 << 10;
const RSS_GROWTH_KIB: i64 = 1 << 10;
/// How long a run may wait for a line before the bench calls the mock stuck.
const PATIENCE: Duration = Duration::from_secs(120);

fn main() {
    let size = env_count("BENCH_MB", MB);
    let rounds = if quick() { 3 } else { 7 };
    println!(
        "replay of every dialect against `cat`: {} ({} cores), {} MB a session, {rounds} interleaved rounds",
        cpu_model(),
        cpu_count(),
        size
    );
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    let kept = std::env::var_os("BENCH_DIR").map(PathBuf::from);
    let mut failed = Vec::new();
    let mut rows = Vec::new();
    for dialect in harness::dialects::ALL.iter().copied() {
        if !only.is_empty() && !only.split(',').any(|name| name == dialect.name()) {
            continue;
        }
        let temporary = tempfile::tempdir().expect("a temporary directory");
        let dir = match &kept {
            Some(kept) => {
                let dir = kept.join(dialect.name());
                std::fs::create_dir_all(&dir).expect("creates BENCH_DIR");
                dir
            }
            None => temporary.path().to_owned(),
        };
        let dir = dir.as_path();
        let big = Session::make(dialect, dir, "big", size << 20);
        let small = Session::make(dialect, dir, "small", (size << 20) / 10);
        // Lossless, once.
        let run = big.play(dialect, Hash::Yes, None);
        assert_eq!(
            (run.len, run.hash),
            (big.len, big.hash),
            "{dialect}: the mock's output is not the recorded stdout"
        );
        let (mut cat, mut mock) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            cat.push(big.cat().wall.as_secs_f64());
            mock.push(big.play(dialect, Hash::No, None).wall.as_secs_f64());
        }
        let (cat, mock) = (median(&cat), median(&mock));
        let ratio = cat / mock;
        let small_kib = small.peak(dialect);
        let big_kib = big.peak(dialect);
        let ok_speed = ratio >= TARGET;
        let ok_memory = big_kib <= RSS_TARGET_KIB && big_kib - small_kib <= RSS_GROWTH_KIB;
        if !ok_speed || !ok_memory {
            failed.push(dialect.name());
        }
        rows.push(format!(
            "| {} | {:.1} MB, {} client lines | {:.0} | {:.0} | **{ratio:.2}x** {} | {small_kib} / {big_kib} KiB {} |",
            dialect.name(),
            mb(big.len),
            big.sent.len(),
            mb(big.len) / cat,
            mb(big.len) / mock,
            if ok_speed { "met" } else { "missed" },
            if ok_memory { "flat" } else { "**grows**" },
        ));
    }
    println!(
        "\n| dialect | session | `cat` MB/s | mock MB/s | ratio (>= {TARGET}x) | peak RSS small / large |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for row in rows {
        println!("{row}");
    }
    if failed.is_empty() {
        println!("\nevery dialect met its bars");
    } else {
        println!("\nbars missed by: {}", failed.join(", "));
        std::process::exit(1);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hash {
    Yes,
    No,
}

/// A large session of a dialect, written as a cassette, and what its client sends.
struct Session {
    cassette: PathBuf,
    /// The CLI's stdout, alone (what `cat` writes).
    stdout: PathBuf,
    header: Header,
    /// The client's lines, each with how many stdout lines come before it.
    sent: Vec<(usize, Vec<u8>)>,
    lines: usize,
    len: u64,
    hash: u64,
}

impl Session {
    /// The dialect's session of seed 7, its longest run of stdout lines repeated until
    /// its stdout holds at least `bytes`.
    fn make(dialect: &dyn Dialect, dir: &Path, name: &str, bytes: u64) -> Session {
        let generated = dir.join(format!("{name}-seed.cassette"));
        dialect
            .generate(7, None, Some(&generated))
            .unwrap_or_else(|e| panic!("{dialect}: generates: {e}"));
        let mut reader = harness::cassette::open(&generated).expect("opens");
        let header = reader.header().cloned().expect("a header");
        let frames: Vec<Frame> = reader.by_ref().map(|f| f.expect("reads")).collect();
        // The longest run of consecutive stdout lines (the last of the longest).
        let (mut best, mut start) = ((0, 0), None);
        for (i, frame) in frames.iter().enumerate() {
            let stdout = matches!(frame, Frame::Line(l) if l.stream == Stream::Stdout && l.newline);
            match (stdout, start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    if i - s >= best.1 - best.0 {
                        best = (s, i);
                    }
                    start = None;
                }
                _ => {}
            }
        }
        let (from, to) = best;
        assert!(to > from, "{dialect}: no stdout line in its session");
        let run_bytes: u64 = frames[from..to]
            .iter()
            .map(|f| match f {
                Frame::Line(l) => l.bytes.len() as u64 + 1,
                _ => 0,
            })
            .sum();
        let other_bytes: u64 = frames
            .iter()
            .map(|f| match f {
                Frame::Line(l) if l.stream == Stream::Stdout => l.bytes.len() as u64 + 1,
                _ => 0,
            })
            .sum::<u64>()
            - run_bytes;
        let repeats = bytes.saturating_sub(other_bytes).div_ceil(run_bytes).max(1);

        let cassette = dir.join(format!("{name}.cassette"));
        let stdout = dir.join(format!("{name}.out"));
        let mut writer = Writer::create(&cassette, &header).expect("creates the cassette");
        let mut out = std::io::BufWriter::new(std::fs::File::create(&stdout).expect("creates"));
        let (mut sent, mut lines, mut len, mut hash) = (Vec::new(), 0, 0u64, FNV1A_OFFSET);
        // Frames are in the order they happened: a repeated one is no earlier than the
        // one before it.
        let mut last = Duration::ZERO;
        let mut put = |frame: &Frame, sent: &mut Vec<(usize, Vec<u8>)>| {
            let mut frame = frame.clone();
            let at = match &mut frame {
                Frame::Line(line) => &mut line.at,
                Frame::Stall { at, .. } | Frame::CloseStdout { at } => at,
                Frame::End(ending) => &mut ending.at,
            };
            *at = (*at).max(last);
            last = *at;
            if let Frame::Line(line) = &frame {
                match line.stream {
                    Stream::Stdout => {
                        out.write_all(&line.bytes).expect("writes");
                        hash = fnv1a_from(hash, &line.bytes);
                        len += line.bytes.len() as u64;
                        if line.newline {
                            out.write_all(b"\n").expect("writes");
                            hash = fnv1a_from(hash, b"\n");
                            len += 1;
                            lines += 1;
                        }
                    }
                    Stream::Stdin => sent.push((lines, line.bytes.clone())),
                    Stream::Stderr => {}
                }
            }
            writer.write(&frame).expect("writes the cassette");
        };
        for frame in &frames[..from] {
            put(frame, &mut sent);
        }
        for _ in 0..repeats {
            for frame in &frames[from..to] {
                put(frame, &mut sent);
            }
        }
        for frame in &frames[to..] {
            put(frame, &mut sent);
        }
        out.flush().expect("writes");
        writer.finish().expect("finishes the cassette");
        Session {
            cassette,
            stdout,
            header,
            sent,
            lines,
            len,
            hash,
        }
    }

    /// `cat` of the stdout, drained.
    fn cat(&self) -> Run {
        let mut cat = Command::new("cat");
        cat.arg(&self.stdout);
        drive(cat, &[], None, self.lines, Hash::No)
    }

    /// The mock as the dialect's CLI replaying the cassette to its client; `wrap`
    /// runs it under another program (GNU time).
    fn play(&self, dialect: &dyn Dialect, hash: Hash, wrap: Option<&[&str]>) -> Run {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let program = dir.path().join(dialect.programs()[0]);
        std::os::unix::fs::symlink(MOCK, &program).expect("links");
        std::fs::write(
            dir.path().join(harness::journal::settings::FILE_NAME),
            format!("MOCK_AGENT_CASSETTE={}\n", self.cassette.display()),
        )
        .expect("writes the settings");
        let mut command = match wrap {
            Some([first, rest @ ..]) => {
                let mut c = Command::new(first);
                c.args(rest).arg(&program);
                c
            }
            _ => Command::new(&program),
        };
        harness::run::child::without_mock_env(&mut command);
        let invocation = &self.header.invocation;
        command
            .args(&invocation.argv)
            .envs(&invocation.env)
            .current_dir(dir.path())
            .env("HOME", dir.path());
        // A prompt the arguments lack, and no client line: the CLI reads it on stdin.
        let prompt = invocation
            .prompt
            .as_deref()
            .filter(|p| self.sent.is_empty() && !invocation.argv.iter().any(|a| a == p));
        drive(command, &self.sent, prompt, self.lines, hash)
    }

    /// The mock's peak memory replaying this session, in KiB (GNU time's `%M`).
    fn peak(&self, dialect: &dyn Dialect) -> i64 {
        let file = tempfile::NamedTempFile::new().expect("a temporary file");
        let path = file.path().to_str().expect("utf-8").to_owned();
        self.play(
            dialect,
            Hash::No,
            Some(&["/usr/bin/time", "-f", "%M", "-o", &path]),
        );
        // After `Command exited with non-zero status N` when it did.
        let text = std::fs::read_to_string(file.path()).expect("time's output");
        let last = text.lines().last().unwrap_or_default();
        last.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{dialect}: GNU time said {text:?}"))
    }
}

struct Run {
    wall: Duration,
    len: u64,
    hash: u64,
}

/// Runs `command`, its stdout drained here; each of `sent` written once the lines
/// before it have come, then stdin closed once `lines` lines have come.
fn drive(
    mut command: Command,
    sent: &[(usize, Vec<u8>)],
    prompt: Option<&str>,
    lines: usize,
    hash: Hash,
) -> Run {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let start = Instant::now();
    let mut child = command.spawn().expect("starts");
    let mut stdin = child.stdin.take();
    let mut stdout = child.stdout.take().expect("piped");
    let seen = Arc::new(AtomicUsize::new(0));
    let reader = {
        let seen = Arc::clone(&seen);
        std::thread::spawn(move || {
            let mut buf = vec![0u8; DRAIN_BUFFER];
            let (mut len, mut sum) = (0u64, FNV1A_OFFSET);
            loop {
                let n = match stdout.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                len += n as u64;
                if hash == Hash::Yes {
                    sum = fnv1a_from(sum, &buf[..n]);
                }
                seen.fetch_add(memchr::memchr_iter(b'\n', &buf[..n]).count(), Ordering::Release);
            }
            seen.store(usize::MAX, Ordering::Release);
            (len, sum)
        })
    };
    let wait_for = |count: usize| {
        let deadline = Instant::now() + PATIENCE;
        while seen.load(Ordering::Acquire) < count {
            assert!(Instant::now() < deadline, "stuck at {count} lines: {command:?}");
            std::thread::sleep(Duration::from_micros(50));
        }
    };
    for (after, line) in sent {
        wait_for(*after);
        if let Some(pipe) = stdin.as_mut() {
            if pipe.write_all(line).and_then(|()| pipe.write_all(b"\n")).is_err() {
                stdin = None;
            }
        }
    }
    if let (Some(prompt), Some(mut pipe)) = (prompt, stdin.take()) {
        let _ = pipe.write_all(prompt.as_bytes());
    }
    wait_for(lines);
    drop(stdin);
    let (len, sum) = reader.join().expect("drains");
    child.wait().expect("ends");
    Run {
        wall: start.elapsed(),
        len,
        hash: sum,
    }
}
