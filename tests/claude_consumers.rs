//! The harness on the example programs built on the Python Claude Agent SDK
//! (tests/consumers/claude_*.py, run by the SDK's environment from
//! scripts/claude-sdks.sh): the careful one copes with Claude Code's matrix, and each
//! planted bug is caught by the property it is named for.

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
    let mut names: Vec<String> = run_all(script, cases)
        .iter()
        .flat_map(|r| r.verdicts.iter().filter(|v| !v.held).map(|v| v.name.clone()))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn the_careful_claude_program_copes_with_the_matrix() {
    let mut cases = cases(&CaseSource::Default, "");
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
fn each_planted_claude_bug_is_caught_by_its_property() {
    let expectations: &[(&str, CaseSource, &str, &[&str])] = &[
        (
            "claude_error_as_success.py",
            CaseSource::Default,
            "/not-logged-in",
            &["reports-failure"],
        ),
        ("claude_hangs.py", CaseSource::Default, "/stall@result", &["ends"]),
        (
            "claude_crashes_on_unknown.py",
            CaseSource::Generated(10),
            "/clean",
            &["no-crash"],
        ),
        (
            "claude_never_answers.py",
            CaseSource::Default,
            "/clean",
            &["answers-requests"],
        ),
    ];
    for (script, source, case, expected) in expectations {
        if *script != "claude_never_answers.py" {
            assert_eq!(
                broken(script, &cases(&CaseSource::Default, "/clean")),
                Vec::<String>::new(),
                "{script} copes with a clean run"
            );
        }
        let found = broken(script, &cases(source, case));
        for name in *expected {
            assert!(
                found.iter().any(|f| f == name),
                "{script} on {}{case}: broke {found:?}, expected {name}",
                source.name()
            );
        }
    }
}
