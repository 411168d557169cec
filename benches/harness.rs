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
//! one after another: the cost of the two processes alone. A harness case spawns the
//! same two, and asks the mock for its journal (`MOCK_AGENT_JOURNAL`), which the
//! baseline does not: that cost, the mock's, counts against the harness. The matrix
//! is the standard one on the default session, less its stalls (whose length is the
//! case's). Rates are medians of rounds, each round the baseline and the harness at 1
//! and at 2 jobs, in an order that turns from round to round. The CPU time a case
//! costs is given too: the harness process's own (all its threads) and its
//! children's (the consumer and the mock), against the baseline's.
//!
//! Server mode: the client is as trivial: a shell that pipes one conversation's
//! client side (`initialize`, `session/new`, `session/prompt`, the answer to the
//! permission request) into `cursor-agent acp` and throws its output away. The
//! baseline is the same `sh -c` pipeline, spawned by hand with each case's
//! environment. The matrix is server mode's, on the default conversation and two
//! generated ones, less its `late` faults (whose delay is the case's); the
//! properties that need a client that reads are off. Rates and CPU times as in print
//! mode.

#[path = "support.rs"]
mod support;

use std::process::Command;
use std::time::Instant;

use harness::run::{fuzz::Fuzz, Case, Consumer, Matrix, MockBinary, Properties, Property, Runner};
use nix::sys::resource::{getrusage, UsageWho};
use support::median;

/// A rate of cases, and the CPU time they took.
#[derive(Debug, Clone, Copy, Default)]
struct Pass {
    /// Cases per second.
    rate: f64,
    /// CPU seconds a case of this process (every thread).
    own_cpu: f64,
    /// CPU seconds a case of the processes it waited for (the consumer, the mock).
    child_cpu: f64,
}

/// User and system CPU seconds of `who` so far.
fn cpu(who: UsageWho) -> f64 {
    let usage = getrusage(who).expect("getrusage");
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    secs(usage.user_time()) + secs(usage.system_time())
}

/// Runs `cases` cases through `run` and measures them.
fn measure(cases: usize, run: impl FnOnce()) -> Pass {
    let (own, children) = (cpu(UsageWho::RUSAGE_SELF), cpu(UsageWho::RUSAGE_CHILDREN));
    let started = Instant::now();
    run();
    let seconds = started.elapsed().as_secs_f64();
    Pass {
        rate: cases as f64 / seconds,
        own_cpu: (cpu(UsageWho::RUSAGE_SELF) - own) / cases as f64,
        child_cpu: (cpu(UsageWho::RUSAGE_CHILDREN) - children) / cases as f64,
    }
}

/// The medians of each measure over the rounds.
fn medians(passes: &[Pass]) -> Pass {
    let of = |f: fn(&Pass) -> f64| median(passes.iter().map(f).collect::<Vec<_>>());
    Pass {
        rate: of(|p| p.rate),
        own_cpu: of(|p| p.own_cpu),
        child_cpu: of(|p| p.child_cpu),
    }
}

/// The medians of `rounds` rounds of the baseline and the harness at 1 and 2 jobs,
/// each round in another order (the baseline first, then second, then third): what
/// runs right after the 2-job pass (both cores busy) finds the machine's other load
/// owed its turn, and no pass may always be the one that does.
fn interleaved(
    rounds: usize,
    base: impl Fn() -> Pass,
    one: impl Fn() -> Pass,
    two: impl Fn() -> Pass,
) -> (Pass, Pass, Pass) {
    let passes: [&dyn Fn() -> Pass; 3] = [&base, &one, &two];
    let mut measured: [Vec<Pass>; 3] = Default::default();
    for round in 0..rounds {
        for step in 0..3 {
            let which = (round + step) % 3;
            measured[which].push(passes[which]());
        }
    }
    let [base, one, two] = measured.map(|m| medians(&m));
    (base, one, two)
}

/// The rate lines of a baseline and the harness at 1 and 2 jobs, and their CPU.
fn report(prefix: &str, base: Pass, one: Pass, two: Pass) {
    println!(
        "{prefix}harness, 1 job:  {:.1} cases/s ({:.2}x the baseline, {:.2} ms more a case)",
        one.rate,
        one.rate / base.rate,
        (1.0 / one.rate - 1.0 / base.rate) * 1e3
    );
    println!(
        "{prefix}harness, 2 jobs: {:.1} cases/s ({:.2}x the baseline)",
        two.rate,
        two.rate / base.rate
    );
    println!(
        "{prefix}CPU a case at 1 job: the harness process {:.2} ms, the consumer and the mock {:.2} ms (by hand: {:.2} ms and {:.2} ms)",
        one.own_cpu * 1e3,
        one.child_cpu * 1e3,
        base.own_cpu * 1e3,
        base.child_cpu * 1e3
    );
}

fn mock() -> MockBinary {
    MockBinary::new(env!("CARGO_BIN_EXE_mock-agent"))
}

fn cases() -> Vec<Case> {
    let mut matrix = Matrix::standard(Vec::new());
    matrix
        .faults
        .retain(|(label, _)| !label.starts_with("stall") && !label.starts_with("close-stdout"));
    matrix.cases(false).expect("cases")
}

fn baseline(cases: &[Case]) -> Pass {
    measure(cases.len(), || {
        for case in cases {
            let mut cmd = Command::new("sh");
            cmd.arg("-c").arg(format!(
                "{} -p --output-format json hi > /dev/null",
                mock().path().display()
            ));
            for (name, value) in case.env() {
                cmd.env(name, value);
            }
            let _ = cmd.stderr(std::process::Stdio::null()).status().expect("runs");
        }
    })
}

fn harness(cases: &[Case], jobs: usize) -> Pass {
    let consumer = Consumer::new("cursor-agent -p --output-format json hi > /dev/null");
    let mock = mock();
    let runner = Runner::new(&consumer, &mock)
        .properties(Properties::new().without(Property::ReportsSuccess))
        .jobs(jobs);
    let mut results = Vec::new();
    let pass = measure(cases.len(), || {
        results = runner.run_all(cases, |_| {}).expect("runs");
    });
    assert!(
        results.iter().all(|r| r.passed()),
        "the trivial consumer holds the properties checked"
    );
    pass
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
        .without(Property::ReportsSuccess)
        .without(Property::ReportsFailure)
        .without(Property::AnswersRequests)
}

fn acp_baseline(cases: &[Case]) -> Pass {
    measure(cases.len(), || {
        for case in cases {
            let mut cmd = Command::new("sh");
            cmd.arg("-c")
                .arg(acp_pipeline(&mock().path().display().to_string()));
            harness::run::child::without_mock_env(&mut cmd);
            for (name, value) in case.env() {
                cmd.env(name, value);
            }
            let _ = cmd.stderr(std::process::Stdio::null()).status().expect("runs");
        }
    })
}

fn acp_harness(cases: &[Case], jobs: usize) -> Pass {
    let consumer = Consumer::new(acp_pipeline("cursor-agent"));
    let mock = mock();
    let runner = Runner::new(&consumer, &mock)
        .properties(acp_properties())
        .jobs(jobs);
    let mut results = Vec::new();
    let pass = measure(cases.len(), || {
        results = runner.run_all(cases, |_| {}).expect("runs");
    });
    let failed: Vec<&str> = results
        .iter()
        .filter(|r| !r.passed())
        .map(|r| r.case.name.as_str())
        .collect();
    assert!(
        failed.is_empty(),
        "the trivial client holds the properties checked: {failed:?}"
    );
    pass
}

fn acp(quick: bool) {
    let rounds = if quick { 1 } else { 6 };
    let cases = acp_cases();
    println!(
        "# ACP: {} cases of server mode's matrix x {rounds} round(s), trivial client",
        cases.len()
    );
    let (base, one, two) = interleaved(
        rounds,
        || acp_baseline(&cases),
        || acp_harness(&cases, 1),
        || acp_harness(&cases, 2),
    );
    println!(
        "ACP: spawning the client's pipeline by hand, 1 at a time: {:.1} cases/s",
        base.rate
    );
    report("ACP: ", base, one, two);
    let dir = tempfile::tempdir().expect("temp dir");
    let consumer = Consumer::new(acp_pipeline("cursor-agent"));
    let fuzz_cases = if quick { 30 } else { 200 };
    let mock = mock();
    let runner = Runner::new(&consumer, &mock).properties(acp_properties());
    let report = Fuzz::new(7)
        .cases(fuzz_cases)
        .out(dir.path())
        .run(harness::dialects::CURSOR_ACP, &runner)
        .expect("fuzzes");
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
    let rounds = if quick { 1 } else { 9 };
    let cases = cases();
    println!(
        "# harness benchmark: {} cases x {rounds} round(s), trivial consumer",
        cases.len()
    );
    let (base, one, two) = interleaved(
        rounds,
        || baseline(&cases),
        || harness(&cases, 1),
        || harness(&cases, 2),
    );
    println!(
        "spawning the two processes by hand, 1 at a time: {:.1} cases/s",
        base.rate
    );
    report("", base, one, two);
    let dir = tempfile::tempdir().expect("temp dir");
    let consumer = Consumer::new("cursor-agent -p --output-format json hi > /dev/null");
    let fuzz_cases = if quick { 30 } else { 200 };
    let mock = mock();
    let runner =
        Runner::new(&consumer, &mock).properties(Properties::new().without(Property::ReportsSuccess));
    let report = Fuzz::new(7)
        .cases(fuzz_cases)
        .out(dir.path())
        .run(harness::dialects::CURSOR_PRINT, &runner)
        .expect("fuzzes");
    assert!(report.failure.is_none(), "{:?}", report.failure);
    println!(
        "fuzz loop: {} cases in {:.1} s, {:.1} cases/s (each case written as a cassette and replayed)",
        report.runs,
        report.seconds,
        report.runs as f64 / report.seconds
    );
    acp(quick);
}
