//! Harness benchmark: cases per second of the standard matrix and of the fuzz loop,
//! against spawning the same two processes by hand; the same for server mode (ACP
//! clients).
//!
//! ```sh
//! cargo bench -p mock-agent --bench harness          # BENCH_QUICK=1 for a short run
//! ```
//!
//! Print mode: the consumer is trivial: `cursor-agent -p --output-format json hi >
//! /dev/null` (a shell running the mock, its exit code passed on). The baseline runs
//! `sh -c '<mock> -p --output-format json hi > /dev/null'` with the same environment,
//! one after another: the cost of the two processes alone. The matrix is the standard
//! one on the default session, less its stalls (whose length is the case's).
//!
//! Server mode: the client is as trivial: a shell that pipes one conversation's
//! client side (`initialize`, `session/new`, `session/prompt`, the answer to the
//! permission request) into `cursor-agent acp` and throws its output away. The
//! baseline is the same `sh -c` pipeline, spawned by hand with each case's
//! environment. The matrix is server mode's, on the default conversation and two
//! generated ones, less its `late` faults (whose delay is the case's); the
//! properties that need a client that reads are off. Rates are medians of rounds, the
//! baseline's rounds interleaved with the harness's.

#[path = "support.rs"]
mod support;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use harness::run::{self, fuzz::fuzz, fuzz::fuzz_acp, Case, Consumer, Matrix, Properties};
use support::median;

fn mock() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_mock-agent"))
}

fn cases() -> Vec<Case> {
    let mut matrix = Matrix::standard(Vec::new());
    matrix
        .faults
        .retain(|(label, _)| !label.starts_with("stall") && !label.starts_with("close-stdout"));
    matrix.cases(false).expect("cases")
}

fn baseline(cases: &[Case], rounds: usize) -> f64 {
    let started = Instant::now();
    for _ in 0..rounds {
        for case in cases {
            let mut cmd = Command::new("sh");
            cmd.arg("-c").arg(format!(
                "{} -p --output-format json hi > /dev/null",
                mock().display()
            ));
            for (name, value) in case.env() {
                cmd.env(name, value);
            }
            let _ = cmd.stderr(std::process::Stdio::null()).status().expect("runs");
        }
    }
    (cases.len() * rounds) as f64 / started.elapsed().as_secs_f64()
}

fn harness(cases: &[Case], rounds: usize, jobs: usize) -> f64 {
    let consumer = Consumer::new("cursor-agent -p --output-format json hi > /dev/null");
    let properties = Properties::new().without("reports-success");
    let started = Instant::now();
    for _ in 0..rounds {
        let results = run::run_all(&consumer, cases, mock(), &properties, jobs, |_| {}).expect("runs");
        assert!(
            results.iter().all(|r| r.passed()),
            "the trivial consumer holds the properties checked"
        );
    }
    (cases.len() * rounds) as f64 / started.elapsed().as_secs_f64()
}

/// The trivial ACP client's side of a conversation, one message a line.
const ACP_CLIENT: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}"#,
    r#"{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow-once"}}}"#,
];

/// `printf` of the client's lines into `agent acp`, output thrown away.
fn acp_pipeline(agent: &str) -> String {
    let lines: Vec<String> = ACP_CLIENT.iter().map(|l| format!("'{l}'")).collect();
    format!("printf '%s\\n' {} | {agent} acp > /dev/null", lines.join(" "))
}

fn acp_cases() -> Vec<Case> {
    let mut matrix = Matrix::acp(Vec::new()).generated(2);
    matrix.faults.retain(|(label, _)| !label.starts_with("late"));
    matrix.cases(false).expect("cases")
}

/// What a client that reads nothing can hold: it ends, does not crash, leaves nothing.
fn acp_properties() -> Properties {
    Properties::new()
        .without("reports-success")
        .without("reports-failure")
        .without("answers-requests")
}

fn acp_baseline(cases: &[Case]) -> f64 {
    let started = Instant::now();
    for case in cases {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(acp_pipeline(&mock().display().to_string()));
        harness::run::child::without_mock_env(&mut cmd);
        for (name, value) in case.env() {
            cmd.env(name, value);
        }
        let _ = cmd.stderr(std::process::Stdio::null()).status().expect("runs");
    }
    cases.len() as f64 / started.elapsed().as_secs_f64()
}

fn acp_harness(cases: &[Case], jobs: usize) -> f64 {
    let consumer = Consumer::new(acp_pipeline("cursor-agent"));
    let started = Instant::now();
    let results = run::run_all(&consumer, cases, mock(), &acp_properties(), jobs, |_| {}).expect("runs");
    let rate = cases.len() as f64 / started.elapsed().as_secs_f64();
    let failed: Vec<&str> = results
        .iter()
        .filter(|r| !r.passed())
        .map(|r| r.case.name.as_str())
        .collect();
    assert!(
        failed.is_empty(),
        "the trivial client holds the properties checked: {failed:?}"
    );
    rate
}

fn acp(quick: bool) {
    let rounds = if quick { 1 } else { 5 };
    let cases = acp_cases();
    println!(
        "# ACP: {} cases of server mode's matrix x {rounds} round(s), trivial client",
        cases.len()
    );
    let (mut base, mut one, mut two) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        base.push(acp_baseline(&cases));
        one.push(acp_harness(&cases, 1));
        two.push(acp_harness(&cases, 2));
    }
    let (base, one, two) = (median(&base), median(&one), median(&two));
    println!("ACP: spawning the client's pipeline by hand, 1 at a time: {base:.1} cases/s");
    println!(
        "ACP: harness, 1 job:  {one:.1} cases/s ({:.2}x the baseline, {:.2} ms more a case)",
        one / base,
        (1.0 / one - 1.0 / base) * 1e3
    );
    println!(
        "ACP: harness, 2 jobs: {two:.1} cases/s ({:.2}x the baseline)",
        two / base
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let consumer = Consumer::new(acp_pipeline("cursor-agent"));
    let fuzz_cases = if quick { 30 } else { 200 };
    let report = fuzz_acp(&consumer, fuzz_cases, 7, mock(), &acp_properties(), dir.path()).expect("fuzzes");
    assert!(report.failure.is_none(), "{:?}", report.failure);
    println!(
        "ACP fuzz loop: {} cases in {:.1} s, {:.1} cases/s (each a generated conversation written as a cassette, served with its faults)",
        report.runs,
        report.seconds,
        report.runs as f64 / report.seconds
    );
}

fn main() {
    let quick = std::env::var_os("BENCH_QUICK").is_some();
    let rounds = if quick { 1 } else { 5 };
    let cases = cases();
    println!(
        "# harness benchmark: {} cases x {rounds} round(s), trivial consumer",
        cases.len()
    );
    let base = baseline(&cases, rounds);
    let one = harness(&cases, rounds, 1);
    let two = harness(&cases, rounds, 2);
    println!("spawning the two processes by hand, 1 at a time: {base:.1} cases/s");
    println!(
        "harness, 1 job:  {one:.1} cases/s ({:.2}x the baseline)",
        one / base
    );
    println!(
        "harness, 2 jobs: {two:.1} cases/s ({:.2}x the baseline)",
        two / base
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let consumer = Consumer::new("cursor-agent -p --output-format json hi > /dev/null");
    let properties = Properties::new().without("reports-success");
    let fuzz_cases = if quick { 30 } else { 200 };
    let report = fuzz(&consumer, fuzz_cases, 7, mock(), &properties, dir.path()).expect("fuzzes");
    assert!(report.failure.is_none(), "{:?}", report.failure);
    println!(
        "fuzz loop: {} cases in {:.1} s, {:.1} cases/s (each case written as a cassette and replayed)",
        report.runs,
        report.seconds,
        report.runs as f64 / report.seconds
    );
    acp(quick);
}
