//! The runner as a test author uses it: typed properties, the `try_`/`assert_` pairs,
//! the errors and their exit codes. The mock is `/bin/true` here (the consumers below
//! never run it): the end-to-end suite runs the real one.

use std::time::Duration;

use harness::exit_codes;
use harness::run::{
    assert_matrix, try_matrix, Cancel, Consumer, Matrix, MatrixError, MockBinary, Properties, Property,
    RunError, Runner, UnknownProperty,
};

fn mock() -> MockBinary {
    MockBinary::new("/bin/true")
}

/// The default session's clean case: a correct consumer prints the answer and exits 0.
fn clean() -> Matrix {
    let mut matrix = Matrix::standard(Vec::new());
    matrix.filter = Some("default/clean".to_owned());
    matrix
}

#[test]
fn a_property_is_switched_off_by_its_enum() {
    let consumer = Consumer::new("true").timeout(Duration::from_secs(5));
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
    // A consumer that says nothing: `reports-success` breaks.
    let silent = Consumer::new("true").timeout(Duration::from_secs(5));
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
#[should_panic(expected = "the consumer `true` does not cope:")]
fn assert_matrix_panics_with_the_summary() {
    let snapshots = tempfile::tempdir().expect("temp dir");
    assert_matrix(
        &Consumer::new("true").timeout(Duration::from_secs(5)),
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
