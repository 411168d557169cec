//! Harness benchmark: cases per second of the standard matrix and of the fuzz loop,
//! against spawning the same two processes by hand.
//!
//! ```sh
//! cargo bench -p mock-agent --bench harness          # BENCH_QUICK=1 for a short run
//! ```
//!
//! The consumer is trivial: `cursor-agent -p --output-format json hi > /dev/null`
//! (a shell running the mock, its exit code passed on). The baseline runs
//! `sh -c '<mock> -p --output-format json hi > /dev/null'` with the same environment,
//! one after another: the cost of the two processes alone. The matrix is the standard
//! one on the default session, less its stalls (whose length is the case's).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use harness::run::{self, fuzz::fuzz, Case, Consumer, Matrix, Properties};

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
}
