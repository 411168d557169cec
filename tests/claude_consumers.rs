//! The harness on the example programs built on the Python Claude Agent SDK
//! (tests/consumers/claude_*.py, run by the SDK's environment from
//! scripts/claude-sdks.sh), beyond what the conformance suite runs (the matrix of the
//! built-in session, the planted bugs that show on it): the careful one copes with
//! generated sessions, and the bug that shows only on them is caught.

use std::time::Duration;

use harness::run::{self, report, Case, CaseSource, Consumer, MockBinary, Runner};

use crate::claude_sdks::sdks;
use crate::support::{bin, root};

/// Cases of the careful program that fail because of the mock, not the program: each
/// with why. When the mock is fixed the test says so, and the entry goes.
const AWAITING_MOCK_FIX: &[(&str, &str)] = &[];

/// A program of tests/consumers run by the SDK's python; it gives up on a CLI silent
/// for 3 s (the SDK's import alone takes seconds on a busy machine: the case's limit
/// leaves room for it).
fn python(script: &str) -> Consumer {
    let path = root().join("tests/consumers").join(script);
    Consumer::new(format!("{} {} hi", sdks().python.display(), path.display()))
        .timeout(Duration::from_secs(25))
        .env("CONSUMER_IDLE_TIMEOUT", "3")
}

/// The cases of Claude Code's matrix on `source`, those whose name contains `filter`.
fn cases(source: &CaseSource, filter: &str) -> Vec<Case> {
    let cases: Vec<Case> = harness::dialects::claude::dialect::claude_faults()
        .into_iter()
        .map(|(label, spec)| (format!("{}/{label}", source.name()), spec))
        .filter(|(name, _)| name.contains(filter))
        .map(|(name, spec)| Case::claude(source.clone(), &spec, name).expect("case"))
        .collect();
    assert!(!cases.is_empty(), "no case matches {filter}");
    cases
}

fn run_all(script: &str, cases: &[Case]) -> Vec<run::CaseResult> {
    Runner::new(&python(script), &MockBinary::new(bin()))
        .jobs(2)
        .run_all(cases, |_| {})
        .expect("runs")
}

/// The properties `script` broke on the cases, sorted.
fn broken(script: &str, cases: &[Case]) -> Vec<String> {
    crate::support::broken_in(&run_all(script, cases))
}

#[test]
fn the_careful_claude_program_copes_with_generated_sessions() {
    let mut cases = Vec::new();
    // Generated sessions with lines of kinds the program does not know (system
    // subtypes such as `compact_boundary` and `future_subtype`).
    for seed in [1, 9, 10, 11] {
        cases.extend(self::cases(&CaseSource::Generated(seed), "/clean"));
    }
    let results = run_all("claude_careful.py", &cases);
    let mut failed = Vec::new();
    for result in &results {
        let awaiting = AWAITING_MOCK_FIX
            .iter()
            .find(|(name, _)| *name == result.case.name);
        match (result.passed(), awaiting) {
            (false, None) => failed.push(report::record(result)),
            (true, Some((name, why))) => failed.push(format!(
                "{name} passes now: remove it from AWAITING_MOCK_FIX (it was there because {why})"
            )),
            _ => {}
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

#[test]
fn a_crash_on_an_unknown_line_is_caught_by_no_crash() {
    let script = "claude_crashes_on_unknown.py";
    assert_eq!(
        broken(script, &cases(&CaseSource::Default, "/clean")),
        Vec::<String>::new(),
        "{script} copes with a clean run"
    );
    let found = broken(script, &cases(&CaseSource::Generated(10), "/clean"));
    assert!(found.iter().any(|f| f == "no-crash"), "{script}: broke {found:?}");
}
