//! A matrix run as a test: [`try_matrix`] returns what went wrong, [`assert_matrix`]
//! panics with it.

use std::path::{Path, PathBuf};

use super::{
    report, snapshot, CaseResult, Consumer, Matrix, MockBinary, Properties, RunError, Runner, Summary,
};
use crate::error::CassetteError;
use crate::exit_codes;

/// The cases of a matrix run that failed: each case with broken properties, each
/// case not run, and each snapshot that fails the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatrixFailure {
    /// Each case with broken properties, and their names and details.
    pub broken: Vec<(String, Vec<String>)>,
    /// Each case not run, and why (see [`super::NotRun`]).
    pub not_run: Vec<(String, String)>,
    /// Cases whose record has no snapshot yet, or differs from it.
    pub snapshots: Vec<String>,
    /// The summary, as `mock-agent test` prints it.
    pub summary: String,
}

impl std::fmt::Display for MatrixFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.summary)
    }
}

/// Why a matrix run did not pass: its cases failed ([`MatrixError::Failed`]), or it
/// could not be run (every other variant).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MatrixError {
    /// Properties were broken, or snapshots fail the run.
    #[error("{0}")]
    Failed(MatrixFailure),
    /// A case was not run: its consumer never ran the agent, or the agent did not get
    /// the case's settings. No verdict stands on such a case; the failure holds those
    /// of the others too.
    #[error("{0}")]
    NotRun(MatrixFailure),
    /// The snapshot settings (`INSTA_UPDATE`, ...) are wrong.
    #[error("{0}")]
    Policy(String),
    /// A source of the matrix cannot be read.
    #[error(transparent)]
    Cases(#[from] CassetteError),
    /// A case cannot be run.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A snapshot cannot be written.
    #[error("{}: cannot write the snapshot", dir.display())]
    Snapshot {
        /// The snapshots' directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl MatrixError {
    /// The exit code the binary ends with (see [`crate::exit_codes`]): failing cases
    /// have one of their own.
    pub fn exit_code(&self) -> i32 {
        match self {
            MatrixError::Failed(_) => exit_codes::CASES_FAILED,
            MatrixError::NotRun(_) => exit_codes::CASES_NOT_RUN,
            MatrixError::Policy(_) => exit_codes::USAGE,
            MatrixError::Cases(e) => e.exit_code(),
            MatrixError::Run(e) => e.exit_code(),
            MatrixError::Snapshot { .. } => exit_codes::CANNOT_CREATE,
        }
    }

    /// The failing cases (and those not run), when that is what went wrong.
    pub fn failure(&self) -> Option<&MatrixFailure> {
        match self {
            MatrixError::Failed(failure) | MatrixError::NotRun(failure) => Some(failure),
            _ => None,
        }
    }
}

/// Checks each case's record against its snapshot in `dir` under `policy` (see
/// [`snapshot`]); a case not run has no record to check.
pub fn check_snapshots(
    results: &[CaseResult],
    dir: &Path,
    policy: &snapshot::Policy,
) -> std::io::Result<Vec<snapshot::Checked>> {
    results
        .iter()
        .filter(|result| result.not_run.is_none())
        .map(|result| snapshot::check(dir, &result.case.name, &report::record(result), policy))
        .collect()
}

impl Runner<'_> {
    /// Runs the consumer against every case of a matrix and compares each record with
    /// its snapshot in `snapshots`, as insta does (see [`snapshot`]: `INSTA_UPDATE`,
    /// `CI`, `INSTA_FORCE_PASS`; `cargo insta review` takes the new ones).
    pub fn try_matrix(&self, matrix: &Matrix, snapshots: &Path) -> Result<Vec<CaseResult>, MatrixError> {
        let policy = snapshot::Policy::from_env().map_err(MatrixError::Policy)?;
        let cases = matrix.cases(self.consumer().command.contains("{format}"))?;
        let results = self.run_all(&cases, |_| {})?;
        let checked =
            check_snapshots(&results, snapshots, &policy).map_err(|source| MatrixError::Snapshot {
                dir: snapshots.to_owned(),
                source,
            })?;
        let summary = Summary::new(&results, &checked);
        if summary.passed() {
            return Ok(results);
        }
        let failure = MatrixFailure {
            broken: summary
                .failed()
                .map(|r| {
                    let broken = r.verdicts.iter().filter(|v| !v.held);
                    (
                        r.case.name.clone(),
                        broken.map(|v| format!("{}: {}", v.name, v.detail)).collect(),
                    )
                })
                .collect(),
            not_run: summary
                .not_run()
                .filter_map(|r| Some((r.case.name.clone(), r.not_run.as_ref()?.to_string())))
                .collect(),
            snapshots: summary.failing_snapshots().map(|c| c.case.clone()).collect(),
            summary: summary.to_string(),
        };
        Err(if failure.not_run.is_empty() {
            MatrixError::Failed(failure)
        } else {
            MatrixError::NotRun(failure)
        })
    }

    /// [`try_matrix`](Runner::try_matrix), panicking with the summary of every broken
    /// property, case not run and snapshot to review, or with why the matrix could not
    /// be run.
    #[track_caller]
    pub fn assert_matrix(&self, matrix: &Matrix, snapshots: &Path) {
        match self.try_matrix(matrix, snapshots) {
            Ok(_) => {}
            Err(e @ MatrixError::NotRun(_)) => panic!(
                "the consumer `{}` was not tested: cases were not run\n{}",
                self.consumer().command,
                crate::error::report(&e)
            ),
            Err(e) => panic!(
                "the consumer `{}` does not cope:\n{}",
                self.consumer().command,
                crate::error::report(&e)
            ),
        }
    }
}

/// A runner of as many cases at once as the machine has cores.
fn runner<'a>(consumer: &'a Consumer, properties: &Properties, mock: &'a MockBinary) -> Runner<'a> {
    let jobs = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    Runner::new(consumer, mock)
        .properties(properties.clone())
        .jobs(jobs)
}

/// [`Runner::try_matrix`], as many cases at once as the machine has cores.
pub fn try_matrix(
    consumer: &Consumer,
    matrix: &Matrix,
    properties: &Properties,
    mock: &MockBinary,
    snapshots: &Path,
) -> Result<Vec<CaseResult>, MatrixError> {
    runner(consumer, properties, mock).try_matrix(matrix, snapshots)
}

/// [`Runner::assert_matrix`], as many cases at once as the machine has cores.
#[track_caller]
pub fn assert_matrix(
    consumer: &Consumer,
    matrix: &Matrix,
    properties: &Properties,
    mock: &MockBinary,
    snapshots: &Path,
) {
    runner(consumer, properties, mock).assert_matrix(matrix, snapshots);
}
