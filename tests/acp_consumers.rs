//! The harness for ACP clients proves itself on example clients: the careful one
//! copes with server mode's whole matrix, and each one with a classic bug is caught
//! by the property named for it.

use std::time::Duration;

use harness::dialects::cursor_print::expect::Expectation;
use harness::run::{self, CaseSource, Consumer, Matrix, MockBinary, Properties, Runner};

use crate::support::{bin, root};

fn run_all(consumer: &Consumer, cases: &[run::Case], jobs: usize) -> Vec<run::CaseResult> {
    let mock = MockBinary::new(bin());
    Runner::new(consumer, &mock)
        .jobs(jobs)
        .run_all(cases, |_| {})
        .expect("runs")
}

fn client(script: &str, timeout: u64) -> Consumer {
    let path = root().join("tests/consumers").join(script);
    Consumer::new(format!("python3 {}", path.display()))
        .timeout(Duration::from_secs(timeout))
        // The careful client gives up on an agent silent this long.
        .env("CONSUMER_IDLE_TIMEOUT", "3")
}

/// The properties each case broke, by case name.
fn broken(consumer: &Consumer, filter: &str) -> Vec<(String, Vec<String>)> {
    let mut matrix = Matrix::acp(Vec::new());
    matrix.filters = vec![filter.to_owned()];
    let cases = matrix.cases(false).expect("cases");
    assert!(!cases.is_empty(), "no case matches {filter}");
    let results = run_all(consumer, &cases, 2);
    results
        .iter()
        .map(|r| {
            (
                r.case.name.clone(),
                r.broken().iter().map(|&n| n.to_owned()).collect(),
            )
        })
        .collect()
}

#[test]
fn the_careful_acp_client_copes_with_the_whole_matrix() {
    // Every case of the default conversation, each record (the conversation told
    // readably) kept as a snapshot ...
    run::assert_matrix(
        &client("acp_careful.py", 20),
        &Matrix::acp(Vec::new()),
        &Properties::new(),
        &MockBinary::new(bin()),
        &root().join("tests/snapshots/acp_consumers/careful"),
    );
    // ... and every property held with a recorded print-mode session served over ACP
    // (a shell command that asks permission) and a generated one.
    let mut matrix = Matrix::acp(vec![root().join("cassettes/shell-command.cassette")]).generated(1);
    matrix.default_session = false;
    let cases = matrix.cases(false).expect("cases");
    let results = run_all(&client("acp_careful.py", 20), &cases, 2);
    let summary = run::Summary::new(&results, &[]);
    assert!(summary.passed(), "{summary}");
    assert!(cases.iter().any(|c| c.source == CaseSource::Generated(0)));
}

#[test]
fn each_classic_acp_bug_is_caught_by_its_property() {
    // The bugs the conformance suite plants in ACP clients, and two more.
    let more = [
        ("acp_leaves_agent.py", "default/error@prompt", "no-leftover"),
        (
            "acp_ignores_unoffered.py",
            "default/unoffered-tools",
            "answers-requests",
        ),
    ];
    let expectations: Vec<&(&str, &str, &str)> = crate::conformance::planted("cursor-acp")
        .iter()
        .chain(&more)
        .collect();
    for (script, case, property) in expectations.iter().copied() {
        let found = broken(&client(script, 3), case);
        assert!(
            found
                .iter()
                .any(|(name, broken)| name == case && broken.iter().any(|b| b == property)),
            "{script} on {case}: broke {found:?}, expected {property}"
        );
    }
    // And the careful client breaks none of them there.
    for (_, case, _) in expectations {
        let found = broken(&client("acp_careful.py", 20), case);
        assert!(found.iter().all(|(_, broken)| broken.is_empty()), "{found:?}");
    }
}

#[test]
fn mock_agent_test_acp_runs_the_matrix_against_a_client() {
    let consumer = format!(
        "python3 {}",
        root().join("tests/consumers/acp_error_as_success.py").display()
    );
    let output = crate::support::mock()
        .args([
            "test",
            "--acp",
            "--consumer",
            &consumer,
            "--filter",
            "error@prompt",
            "--timeout",
            "5",
        ])
        .output()
        .expect("runs");
    let stdout = crate::support::assert_case_broke(&output, "default/error@prompt", "reports-failure");
    assert!(stdout.contains("1 case: 0 passed, 1 failed"), "{stdout}");
}

/// The cases of server mode's matrix over these sources whose fault is one of `labels`.
fn acp_cases(sources: &[&str], labels: &[&str]) -> Vec<run::Case> {
    let cassettes = Matrix::cassettes_in(&root().join("cassettes/acp")).expect("cassettes/acp");
    let matrix = Matrix::acp(cassettes);
    let cases: Vec<run::Case> = matrix
        .cases(false)
        .expect("cases")
        .into_iter()
        .filter(|c| {
            let (source, label) = c.name.split_once('/').unwrap_or_default();
            sources.contains(&source) && (labels.is_empty() || labels.contains(&label))
        })
        .collect();
    assert!(!cases.is_empty());
    cases
}

#[test]
fn a_client_that_calls_more_methods_gets_faults_and_expectations_it_can_meet() {
    // `authenticate`, `session/set_mode` twice and an extension method before the
    // turn: what a correct client concludes is played from what it sent.
    let cases = acp_cases(&["default", "load"], &[]);
    let results = run_all(&client("acp_extra_requests.py", 20), &cases, 2);
    let summary = run::Summary::new(&results, &[]);
    assert!(summary.passed(), "{summary}");
    // `reorder` pairs the turn's updates the other way once `session/set_mode`'s
    // response has let out the update it held: the answer expected is the one this
    // client sees, not the one the client of the canonical shape sees.
    let reorder = results
        .iter()
        .find(|r| r.case.name == "default/reorder")
        .expect("the case");
    let canonical = cases
        .iter()
        .find(|c| c.name == "default/reorder")
        .expect("the case");
    assert_ne!(reorder.case.expect, canonical.expect);
    assert!(matches!(reorder.case.expect, Expectation::Success { .. }));
    // `authenticate` never answered: a failure for this client, which authenticates,
    // and not for one that does not.
    let hangs = |results: &[run::CaseResult]| {
        results
            .iter()
            .find(|r| r.case.name == "default/authenticate-hangs")
            .map(|r| r.case.expect.clone())
    };
    assert_eq!(hangs(&results), Some(Expectation::Failure));
    let careful = run_all(
        &client("acp_careful.py", 20),
        &acp_cases(&["default"], &["authenticate-hangs"]),
        1,
    );
    assert!(matches!(hangs(&careful), Some(Expectation::Success { .. })));
    // It never authenticates: the fault never acts, and the case is not applicable.
    assert!(careful.iter().all(|r| !r.failed() && r.not_run.is_none()));
    assert!(careful
        .iter()
        .all(|r| r.not_applicable.is_some() == (r.case.name == "default/authenticate-hangs")));
}

#[test]
fn the_careful_acp_client_passes_every_case_of_a_loaded_recording() {
    // `load.cassette` has the client load a recorded session; the careful client
    // opens a session of its own instead, which the mock makes up, and the recorded
    // turn names the recorded session: a client that routes updates by `sessionId`
    // shows none of them, and is not accused of it (it was, in all 18 `load/*` cases
    // where the turn ends `end_turn`).
    let cases = acp_cases(&["load"], &[]);
    let results = run_all(&client("acp_careful.py", 20), &cases, 2);
    let summary = run::Summary::new(&results, &[]);
    assert!(summary.passed(), "{summary}");
    assert!(results
        .iter()
        .any(|r| matches!(&r.case.expect, Expectation::Success { .. })));
}

#[test]
fn three_runs_of_the_acp_matrix_record_the_same() {
    // The cases where a run could record what another does not: a recorded session
    // loaded into a session the mock makes up (live ids in its divergences), the
    // agent dying while its permission request waits (the client's answer races
    // the death), a recording that waits for a cancel the client never sends (the
    // client gives up and ends the agent), and faults that change how the agent
    // writes. The third run shares the machine with a busy thread.
    let mut cases = acp_cases(
        &["default", "load", "crash-while-asking"],
        &["clean", "crash@asking", "reorder", "coalesce", "late@prompt"],
    );
    cases.extend(acp_cases(&["cancelled"], &["clean"]));
    let careful = client("acp_careful.py", 20);
    let records = |results: &[run::CaseResult]| -> Vec<(String, String)> {
        results
            .iter()
            .map(|r| (r.case.name.clone(), run::report::record(r)))
            .collect()
    };
    let first = run_all(&careful, &cases, 2);
    let summary = run::Summary::new(&first, &[]);
    assert!(summary.passed(), "{summary}");
    let first = records(&first);
    for rerun in 2..=3 {
        let busy = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(rerun == 3));
        let spinning = std::sync::Arc::clone(&busy);
        let spinner = std::thread::spawn(move || {
            while spinning.load(std::sync::atomic::Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
        let again = records(&run_all(&careful, &cases, 2));
        busy.store(false, std::sync::atomic::Ordering::Relaxed);
        spinner.join().expect("the busy thread ends");
        for ((name, before), (_, after)) in first.iter().zip(&again) {
            assert_eq!(before, after, "run {rerun} of {name} records otherwise");
        }
    }
}

/// `ignores-unknown` blames an unknown update on a crash only where the crash is not
/// the client's own: beside the clean case, which crashes the same way, the unknown
/// update's case breaks `no-crash` alone; without the clean case to compare with, the
/// verdict stands as before.
#[test]
fn a_crash_the_clean_case_shares_is_not_blamed_on_an_unknown_update() {
    let consumer = format!(
        "python3 {}",
        root().join("tests/consumers/acp_crashes_at_exit.py").display()
    );
    let run = |filters: &[&str]| {
        let mut args = vec!["test", "--acp", "--consumer", &consumer, "--timeout", "10"];
        for filter in filters {
            args.extend(["--filter", filter]);
        }
        crate::support::mock().args(&args).output().expect("runs")
    };
    let both = run(&["default/clean", "default/unknown-update"]);
    let stdout = crate::support::assert_case_broke(&both, "default/clean", "no-crash");
    crate::support::assert_case_broke(&both, "default/unknown-update", "no-crash");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("default/unknown-update "))
        .unwrap_or_else(|| panic!("no row of the case: {stdout}"));
    assert!(!row.contains("ignores-unknown"), "{stdout}");
    let alone = run(&["default/unknown-update"]);
    crate::support::assert_case_broke(&alone, "default/unknown-update", "ignores-unknown");
}
