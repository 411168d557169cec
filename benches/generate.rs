//! Generation benchmark: how fast sessions are generated, and how fast and how far a
//! planted failure shrinks.
//!
//! ```sh
//! cargo bench -p mock-agent --bench generate          # BENCH_QUICK=1 for a short run
//! ```
//!
//! 1. `harness::generate::from_seed(seed, config)` for consecutive seeds, with the
//!    default knobs and with `SessionConfig::large()`: sessions per second and MB of
//!    stream-json per second (medians of rounds).
//! 2. A planted failure: a property that fails when a session has two or more tool
//!    calls and an assistant text with the letter `q`. proptest finds a failing case
//!    and shrinks it; the bench reports the time to find and shrink, and the size of
//!    the minimal session (lines and bytes), over several runner seeds.

use std::time::Instant;

#[path = "support.rs"]
mod support;

use support::median;

use harness::generate::{from_seed, session, Session, SessionConfig};
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};

fn generation(name: &str, config: &SessionConfig, sessions: u64, rounds: usize) {
    let mut rates = Vec::new();
    let mut throughputs = Vec::new();
    let mut events = 0usize;
    for round in 0..rounds {
        let started = Instant::now();
        let mut bytes = 0usize;
        events = 0;
        for seed in 0..sessions {
            let session = from_seed(seed + round as u64 * sessions, config);
            bytes += session.lines.iter().map(|l| l.len() + 1).sum::<usize>();
            events += session.lines.len();
        }
        let seconds = started.elapsed().as_secs_f64();
        rates.push(sessions as f64 / seconds);
        throughputs.push(bytes as f64 / seconds / 1e6);
    }
    println!(
        "{name:<10} {:>10.0} sessions/s {:>8.1} MB/s  ({sessions} sessions per round, {:.1} events each on average)",
        median(rates),
        median(throughputs),
        events as f64 / sessions as f64
    );
}

/// The planted failure.
fn fails(session: &Session) -> bool {
    let tools = session
        .lines
        .iter()
        .filter(|l| l.contains(r#""subtype":"started""#))
        .count();
    let q = session
        .events()
        .iter()
        .any(|e| matches!(e, harness::dialects::cursor_print::events::Event::Assistant(a) if a.message.joined_text().contains('q')));
    tools >= 2 && q
}

fn shrink(seed: u64) -> (f64, usize, usize) {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases: 100_000,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    let started = Instant::now();
    let result = runner.run(&session(SessionConfig::default()), |s| {
        if fails(&s) {
            Err(proptest::test_runner::TestCaseError::fail("planted"))
        } else {
            Ok(())
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    match result {
        Err(TestError::Fail(_, minimal)) => (
            seconds,
            minimal.lines.len(),
            minimal.lines.iter().map(|l| l.len() + 1).sum(),
        ),
        other => panic!("the planted failure was not found: {other:?}"),
    }
}

fn main() {
    let quick = std::env::var_os("BENCH_QUICK").is_some();
    let (sessions, rounds, shrinks) = if quick { (200, 1, 3) } else { (2_000, 5, 15) };
    println!("# generation benchmark (medians over {rounds} round(s))");
    generation("default", &SessionConfig::default(), sessions, rounds);
    generation("large", &SessionConfig::large(), sessions / 10, rounds);
    let results: Vec<(f64, usize, usize)> = (0..shrinks).map(shrink).collect();
    let times = median(results.iter().map(|r| r.0 * 1000.0).collect::<Vec<_>>());
    let lines = median(results.iter().map(|r| r.1 as f64).collect::<Vec<_>>());
    let bytes = median(results.iter().map(|r| r.2 as f64).collect::<Vec<_>>());
    let max_lines = results.iter().map(|r| r.1).max().unwrap_or(0);
    println!(
        "shrinking a planted failure ({shrinks} runner seeds): find + shrink {times:.1} ms (median); minimal session {lines:.0} lines, {bytes:.0} bytes (median), {max_lines} lines at most"
    );
}
