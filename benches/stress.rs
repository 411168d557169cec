//! Stress: the server mode and the recorder under load, floods and a busy machine.
//!
//! ```sh
//! cargo bench -p mock-agent --bench stress         # STRESS_QUICK=1 for a short run
//! ```
//!
//! Fails (exit 1) when a bar is missed; prints what it measured.
//!
//! 1. **Recordings under CPU load**: 60 recordings of a conversation (`mock-agent
//!    record -- AGENT acp`, the agent answering each request at once) while busy
//!    processes (two per core, made here) take the CPU. Bar: every recording has
//!    every message, each request before its answer.
//! 2. **A flood of unasked answers**: after `session/new`, 1,000,000 responses to ids
//!    the mock never asked (`{"jsonrpc":"2.0","id":N,"result":{}}`), then the end of
//!    stdin. Bar: the mock's peak RSS grows less than 8 MiB over the same
//!    conversation without the flood.
//! 3. **Input the mock does not need**: during a slow turn (`MOCK_AGENT_TIMING=fixed=20`),
//!    512 MiB of notifications of a method nobody knows. Bar: as 2.
//!
//! The peak RSS is read by a helper process (this binary run again) that runs the mock
//! alone and reads `getrusage(RUSAGE_CHILDREN)`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

#[path = "support.rs"]
mod support;

use support::{cpu_count, cpu_model, MOCK};

/// Set in the helper: the scenario it plays.
const HELPER: &str = "STRESS_HELPER";
/// How much a flood may add to the peak RSS.
const GROWTH_BAR_KIB: i64 = 8 << 10;

fn main() {
    if let Some(scenario) = support::as_rss_helper(HELPER) {
        helper(&scenario);
        return;
    }
    let quick = std::env::var_os("STRESS_QUICK").is_some();
    println!("machine: {} ({} cores)", cpu_model(), cpu_count());
    let mut failed = Vec::new();
    let (recordings, rounds) = if quick { (10, 50) } else { (60, 200) };
    failed.extend(recordings_under_load(recordings, rounds));
    let answers = if quick { 100_000 } else { 1_000_000 };
    let mib = if quick { 64 } else { 512 };
    failed.extend(flood(
        "unasked answers",
        &format!("answers:{answers}"),
        "answers:0",
    ));
    failed.extend(flood("unneeded input", &format!("input:{mib}"), "input:0"));
    if failed.is_empty() {
        println!("\nall bars met");
    } else {
        println!("\nMISSED:\n{}", failed.join("\n"));
        std::process::exit(1);
    }
}

/// Busy processes, two per core, until dropped.
struct Load(Vec<Child>);

impl Load {
    fn start() -> Load {
        Load(
            (0..2 * cpu_count())
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .expect("spawns a busy loop")
                })
                .collect(),
        )
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn recordings_under_load(count: usize, rounds: usize) -> Option<String> {
    println!("\n== 1. {count} recordings of {rounds} exchanges under CPU load ==");
    let dir = tempfile::tempdir().expect("temp dir");
    let agent = dir.path().join("agent.sh");
    std::fs::write(&agent, "#!/bin/sh\nexec cat\n").expect("writes");
    std::fs::set_permissions(&agent, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let load = Load::start();
    let started = Instant::now();
    let mut bad = Vec::new();
    for n in 0..count {
        let cassette = dir.path().join(format!("{n}.cassette"));
        if let Err(why) = record_once(&agent, &cassette, rounds) {
            bad.push(format!("recording {n}: {why}"));
        }
    }
    drop(load);
    println!(
        "{count} recordings in {:.1} s; {} bad",
        started.elapsed().as_secs_f64(),
        bad.len()
    );
    for line in &bad {
        println!("  {line}");
    }
    (!bad.is_empty()).then(|| format!("{} of {count} recordings under load are wrong", bad.len()))
}

fn record_once(agent: &Path, cassette: &Path, rounds: usize) -> Result<(), String> {
    let mut child = Command::new(MOCK)
        .args(["record", "--out"])
        .arg(cassette)
        .arg("--")
        .arg(agent)
        .arg("acp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut to = child.stdin.take().expect("stdin");
    let mut from = BufReader::new(child.stdout.take().expect("stdout"));
    for id in 0..rounds {
        writeln!(
            to,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"x/ping","params":{{}}}}"#
        )
        .map_err(|e| e.to_string())?;
        let mut answer = String::new();
        from.read_line(&mut answer).map_err(|e| e.to_string())?;
    }
    drop(to);
    let status = child.wait().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("the recorder ended with {status}"));
    }
    let text = std::fs::read_to_string(cassette).map_err(|e| format!("no cassette: {e}"))?;
    let frames: Vec<serde_json::Value> = text
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|f: &serde_json::Value| f.get("in").is_some() || f.get("out").is_some())
        .collect();
    if frames.len() != 2 * rounds {
        return Err(format!("{} messages recorded of {}", frames.len(), 2 * rounds));
    }
    let misordered = frames
        .chunks(2)
        .enumerate()
        .filter(|(i, pair)| pair[0]["in"]["id"] != *i || pair[1]["out"]["id"] != *i)
        .count();
    if misordered > 0 {
        return Err(format!("{misordered} exchanges recorded out of order"));
    }
    Ok(())
}

/// Peak RSS of the mock with `scenario`, against `baseline`.
fn flood(title: &str, scenario: &str, baseline: &str) -> Option<String> {
    println!("\n== {title}: {scenario} ==");
    let started = Instant::now();
    let base = rss_of(baseline);
    let flooded = rss_of(scenario);
    let growth = flooded - base;
    println!(
        "peak RSS {} KiB without, {} KiB with ({:+} KiB; bar {} KiB) in {:.1} s",
        base,
        flooded,
        growth,
        GROWTH_BAR_KIB,
        started.elapsed().as_secs_f64()
    );
    (growth >= GROWTH_BAR_KIB).then(|| format!("{title}: peak RSS grew {growth} KiB"))
}

fn rss_of(scenario: &str) -> i64 {
    support::rss_by_helper(HELPER, scenario, |_| {})
}

/// Runs `mock-agent acp` on the default conversation: initialize, session/new, then
/// the scenario's flood, then the end of stdin; prints the mock's peak RSS.
fn helper(scenario: &str) {
    let (kind, amount) = scenario.split_once(':').expect("KIND:AMOUNT");
    let amount: u64 = amount.parse().expect("a number");
    let mut cmd = Command::new(MOCK);
    cmd.arg("acp");
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("MOCK_AGENT_") {
            cmd.env_remove(name);
        }
    }
    if kind == "input" {
        cmd.env("MOCK_AGENT_TIMING", "fixed=20");
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawns the mock");
    let mut to = child.stdin.take().expect("stdin");
    let from = BufReader::new(child.stdout.take().expect("stdout"));
    // The reader passes the session's id on, and reads the rest to the end.
    let (id_tx, id_rx) = std::sync::mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in from.lines() {
            let Ok(line) = line else { break };
            let Ok(value) = serde_json::from_str::<serde_json::Value>(&line) else {
                continue;
            };
            if let Some(id) = value["result"]["sessionId"].as_str() {
                let _ = id_tx.send(id.to_owned());
            }
        }
    });
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;
    let new = r#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}"#;
    writeln!(to, "{init}\n{new}").expect("writes");
    let session = id_rx.recv().expect("session/new answers with an id");
    let mut out = std::io::BufWriter::with_capacity(1 << 20, to);
    match kind {
        "answers" => {
            for n in 0..amount {
                let _ = writeln!(out, r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, 1_000 + n);
            }
        }
        "input" => {
            let prompt = format!(
                r#"{{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{{"sessionId":"{session}","prompt":[{{"type":"text","text":"hi"}}]}}}}"#
            );
            let _ = writeln!(out, "{prompt}");
            let pad = "x".repeat(1000);
            let line = format!(r#"{{"jsonrpc":"2.0","method":"x/noise","params":{{"pad":"{pad}"}}}}"#);
            let lines = amount * (1 << 20) / (line.len() as u64 + 1);
            for _ in 0..lines {
                if writeln!(out, "{line}").is_err() {
                    break;
                }
            }
        }
        other => panic!("unknown scenario {other}"),
    }
    drop(out);
    let _ = child.wait().expect("waits");
    let _ = reader.join();
    support::print_children_rss();
}
