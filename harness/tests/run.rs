//! The runner as a test author uses it: typed properties, the `try_`/`assert_` pairs,
//! the errors and their exit codes. The mock here is a shell script that only records
//! its start (`MOCK_AGENT_STARTED`, so that the case counts as run) and prints
//! nothing: the end-to-end suite runs the real one.

use std::time::Duration;

use harness::exit_codes;
use harness::run::{
    assert_matrix, try_matrix, Cancel, Consumer, Matrix, MatrixError, MockBinary, Properties, Property,
    RunError, Runner, UnknownProperty,
};

/// A stand-in that records its start and says nothing, kept for the test binary's
/// life (its path must outlive the runs).
fn mock() -> MockBinary {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let script = dir.path().join("mock");
        std::fs::write(
            &script,
            "#!/bin/sh\n[ -n \"$MOCK_AGENT_STARTED\" ] && echo \"{\\\"pid\\\":$$}\" >> \"$MOCK_AGENT_STARTED\"\nexit 0\n",
        )
        .expect("writes the stand-in");
        let mut permissions = std::fs::metadata(&script).expect("stat").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&script, permissions).expect("chmod");
        dir
    });
    MockBinary::new(dir.path().join("mock"))
}

/// The default session's clean case: a correct consumer prints the answer and exits 0.
fn clean() -> Matrix {
    let mut matrix = Matrix::standard(Vec::new());
    matrix.filters = vec!["default/clean".to_owned()];
    matrix
}

/// A consumer that runs the agent and shows none of its answer.
const SILENT: &str = "cursor-agent -p hi >/dev/null";

#[test]
fn a_property_is_switched_off_by_its_enum() {
    // It runs the agent (a case whose agent never ran is not judged) and shows nothing.
    let consumer = Consumer::new(SILENT).timeout(Duration::from_secs(5));
    let mock = mock();
    let cases = clean().cases(false).expect("cases");
    let checked = |properties: Properties| {
        let results = Runner::new(&consumer, &mock)
            .properties(properties)
            .run_all(&cases, |_| {})
            .expect("runs");
        results[0]
            .verdicts
            .iter()
            .map(|v| v.name.clone())
            .collect::<Vec<_>>()
    };
    assert!(checked(Properties::new()).contains(&"reports-success".to_owned()));
    let off = Properties::new().without(Property::ReportsSuccess);
    assert!(!off.checks(Property::ReportsSuccess) && off.checks(Property::Ends));
    assert!(!checked(off).contains(&"reports-success".to_owned()));
}

#[test]
fn a_property_name_is_checked() {
    assert_eq!("no-leftover".parse::<Property>(), Ok(Property::NoLeftover));
    for property in Property::ALL {
        assert_eq!(property.name().parse::<Property>(), Ok(property));
        assert_eq!(property.to_string(), property.name());
    }
    let typo = "reports-sucess".parse::<Property>();
    assert_eq!(
        typo,
        Err(UnknownProperty {
            name: "reports-sucess".to_owned()
        })
    );
    assert!(typo
        .unwrap_err()
        .to_string()
        .starts_with("no property `reports-sucess`; the properties are ends, no-crash, "));
}

#[test]
fn try_matrix_tells_failing_cases_from_a_run_that_cannot_happen() {
    let snapshots = tempfile::tempdir().expect("temp dir");
    let mock = mock();
    // A consumer that runs the agent and says nothing: `reports-success` breaks.
    let silent = Consumer::new(SILENT).timeout(Duration::from_secs(5));
    let e = try_matrix(&silent, &clean(), &Properties::new(), &mock, snapshots.path()).expect_err("fails");
    let failure = e.failure().expect("failing cases");
    assert_eq!(failure.broken[0].0, "default/clean");
    assert!(failure.broken[0]
        .1
        .iter()
        .any(|b| b.starts_with("reports-success: ")));
    assert_eq!(e.exit_code(), exit_codes::CASES_FAILED);
    // A consumer that cannot be started: the run's error, with its cause.
    let nowhere = Consumer::new("true").cwd("/nonexistent/dir");
    let e = try_matrix(&nowhere, &clean(), &Properties::new(), &mock, snapshots.path()).expect_err("fails");
    assert!(matches!(e, MatrixError::Run(RunError::Spawn { .. })), "{e:?}");
    assert_eq!(e.exit_code(), exit_codes::CANNOT_RUN);
    let report = harness::error::report(&e);
    assert!(report.starts_with("cannot run `true`: ") && report.len() > "cannot run `true`: ".len());
    assert_ne!(e.exit_code(), exit_codes::USAGE);
}

#[test]
#[should_panic(expected = "the consumer `cursor-agent -p hi >/dev/null` does not cope:")]
fn assert_matrix_panics_with_the_summary() {
    let snapshots = tempfile::tempdir().expect("temp dir");
    assert_matrix(
        &Consumer::new(SILENT).timeout(Duration::from_secs(5)),
        &clean(),
        &Properties::new(),
        &mock(),
        snapshots.path(),
    );
}

#[test]
fn a_runner_whose_cancel_is_interrupted_starts_nothing() {
    let consumer = Consumer::new("true");
    let mock = mock();
    let cancel = Cancel::new();
    cancel.interrupt();
    let cases = clean().cases(false).expect("cases");
    let runner = Runner::new(&consumer, &mock).cancel(&cancel);
    assert!(matches!(
        runner.run_all(&cases, |_| {}),
        Err(RunError::Interrupted)
    ));
    // Another runner, with a handle of its own, is not stopped by it.
    assert!(Runner::new(&consumer, &mock).run_all(&cases, |_| {}).is_ok());
}
