//! One test per case: a matrix as [libtest-mimic] trials, for a test target of its own
//! (`harness = false`) that `cargo test` and [cargo-nextest] run as any other, so that
//! cases are filtered, retried and partitioned one by one
//! (`cargo nextest run --partition count:1/4`, `cargo test --test cases -- default/eof`).
//!
//! Each trial is named as its case (`default/eof@mid-line`; `PREFIX/default/eof@mid-line`
//! with [`Trials::prefix`], to tell matrices apart in one target) and runs it as
//! `mock-agent test` does: the [`Runner`]'s consumer, mock and properties, and the
//! case's snapshot when [`Trials::snapshots`] names their directory. A failing trial
//! fails with the [`Summary`] `mock-agent test` prints for that case: each broken
//! property and why, how the consumer ended, the tail of its output, and the line that
//! runs the case again in a shell.
//!
//! In `Cargo.toml`:
//!
//! ```toml
//! [[test]]
//! name = "cases"
//! harness = false
//! ```
//!
//! and `tests/cases.rs`:
//!
//! ```no_run
//! use harness::run::{mock_binary, trials, Consumer, Matrix, Runner};
//!
//! fn main() -> std::process::ExitCode {
//!     let consumer = Consumer::new("python3 my_bot.py");
//!     let mock = mock_binary().expect("mock-agent on PATH, or MOCK_AGENT_BIN");
//!     let runner = Runner::new(&consumer, &mock);
//!     let cases = runner.trials(&Matrix::standard(Vec::new())).expect("the matrix");
//!     trials::main(cases)
//! }
//! ```
//!
//! The target takes libtest's command line (`--list`, `--exact`, `--skip`, filters,
//! `--test-threads`), which is how cargo-nextest lists the cases and runs each in a
//! process of its own.
//!
//! [libtest-mimic]: https://docs.rs/libtest-mimic
//! [cargo-nextest]: https://nexte.st

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

pub use libtest_mimic::{self, Arguments, Conclusion, Failed, Trial};

use super::assert::check_snapshots;
use super::snapshot::Policy;
use super::{Cancel, Case, Consumer, Matrix, MatrixError, MockBinary, Properties, Runner, Summary};

/// What every trial of a [`Trials`] shares: the runner's settings, owned, since a
/// trial may run on another thread after the runner is gone.
#[derive(Debug)]
struct Setup {
    consumer: Consumer,
    mock: MockBinary,
    properties: Properties,
    cancel: Cancel,
}

/// Makes trials of matrices for one runner: their names, and the snapshots they keep.
///
/// ```no_run
/// use harness::run::trials::{self, Trials};
/// use harness::run::{mock_binary, Consumer, Matrix, Runner};
///
/// fn main() -> std::process::ExitCode {
///     let print = Consumer::new("python3 bot.py");
///     let acp = Consumer::new("python3 acp_bot.py");
///     let mock = mock_binary().expect("mock-agent on PATH, or MOCK_AGENT_BIN");
///     let mut all = Trials::new(&Runner::new(&print, &mock))
///         .prefix("print")
///         .snapshots("tests/snapshots/bot")
///         .of(&Matrix::standard(Vec::new()))
///         .expect("the print-mode matrix");
///     let acp = Trials::new(&Runner::new(&acp, &mock)).prefix("acp");
///     all.extend(acp.of(&Matrix::acp(Vec::new())).expect("the ACP matrix"));
///     trials::main(all)
/// }
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Trials {
    setup: Arc<Setup>,
    prefix: Option<String>,
    snapshots: Option<PathBuf>,
}

impl Trials {
    /// Trials that run their cases as `runner` does (its consumer, mock, properties
    /// and [`Cancel`]; each trial runs one case, whatever its `jobs`).
    pub fn new(runner: &Runner<'_>) -> Self {
        Trials {
            setup: Arc::new(Setup {
                consumer: runner.consumer.clone(),
                mock: runner.mock.clone(),
                properties: runner.properties.clone(),
                cancel: runner.cancel.clone(),
            }),
            prefix: None,
            snapshots: None,
        }
    }

    /// Named `PREFIX/CASE`: for a target that runs more than one consumer or matrix
    /// (trial names must differ; a snapshot is still named after its case).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Each case's record compared with its snapshot in `dir`, as
    /// [`Runner::try_matrix`] does (insta's `INSTA_UPDATE`, `CI`, ...: see
    /// [`super::snapshot`]); a snapshot that fails the run fails the case's trial.
    pub fn snapshots(mut self, dir: impl Into<PathBuf>) -> Self {
        self.snapshots = Some(dir.into());
        self
    }

    /// A trial for each case of `matrix`, in the matrix's order. Fails when a source
    /// cannot be read, or the snapshot settings are wrong.
    pub fn of(&self, matrix: &Matrix) -> Result<Vec<Trial>, MatrixError> {
        let snapshots = match &self.snapshots {
            Some(dir) => Some((dir.clone(), Policy::from_env().map_err(MatrixError::Policy)?)),
            None => None,
        };
        let snapshots = Arc::new(snapshots);
        let cases = matrix.cases(self.setup.consumer.command.contains("{format}"))?;
        Ok(cases
            .into_iter()
            .map(|case| {
                let name = match &self.prefix {
                    Some(prefix) => format!("{prefix}/{}", case.name),
                    None => case.name.clone(),
                };
                let (setup, snapshots) = (Arc::clone(&self.setup), Arc::clone(&snapshots));
                Trial::test(name, move || {
                    run_trial(&setup, &case, snapshots.as_ref().as_ref())
                })
            })
            .collect())
    }
}

/// Runs one case: passes when every property holds and its snapshot (if kept) does not
/// fail the run, else fails with the case's summary.
fn run_trial(setup: &Setup, case: &Case, snapshots: Option<&(PathBuf, Policy)>) -> Result<(), Failed> {
    let runner = Runner::new(&setup.consumer, &setup.mock)
        .properties(setup.properties.clone())
        .cancel(&setup.cancel);
    let command = &setup.consumer.command;
    let cannot =
        |e: &MatrixError| Failed::from(format!("cannot run `{command}`: {}", crate::error::report(e)));
    let results = runner
        .run_all(std::slice::from_ref(case), |_| {})
        .map_err(|e| cannot(&MatrixError::Run(e)))?;
    let checked = match snapshots {
        Some((dir, policy)) => check_snapshots(&results, dir, policy).map_err(|source| {
            cannot(&MatrixError::Snapshot {
                dir: dir.clone(),
                source,
            })
        })?,
        None => Vec::new(),
    };
    let summary = Summary::new(&results, &checked);
    if summary.passed() {
        return Ok(());
    }
    if summary.not_run().next().is_some() {
        return Err(
            format!("the consumer `{command}` was not tested: the case was not run\n{summary}").into(),
        );
    }
    Err(format!("the consumer `{command}` does not cope:\n{summary}").into())
}

impl Runner<'_> {
    /// A trial for each case of `matrix`, named as the case (see [`Trials`] for
    /// prefixes and snapshots).
    pub fn trials(&self, matrix: &Matrix) -> Result<Vec<Trial>, MatrixError> {
        Trials::new(self).of(matrix)
    }
}

/// The `main` of a test target of trials: runs those the command line picks, as libtest
/// does (`--list` lists them for cargo-nextest), and ends 0 when all passed, 101 when
/// one failed, as libtest does. Two trials of one name are refused (exit 101): give each
/// matrix its own [`Trials::prefix`].
pub fn main(trials: Vec<Trial>) -> ExitCode {
    if let Some(name) = duplicate(&trials) {
        eprintln!(
            "mock-agent: two trials are named `{name}`: give each matrix of the target its own prefix (harness::run::trials::Trials::prefix)"
        );
        return ExitCode::from(101);
    }
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

/// The first name two trials share.
fn duplicate(trials: &[Trial]) -> Option<&str> {
    let mut names = std::collections::BTreeSet::new();
    trials.iter().map(Trial::name).find(|name| !names.insert(*name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expect::Expectation;

    /// A journal line as the mock writes it, the least of one: the agent exited 0.
    const ENTRY: &str = r#"{"pid":1,"argv":[],"prompt":null,"stdin":null,"cwd":null,"output_format":null,"stream_partial_output":false,"source":null,"exit":{"code":0},"stdout_closed":false,"error":null,"started_at_ms":0,"ended_at_ms":0}"#;

    /// A matrix of the default session with two faults: `clean` (the run succeeds)
    /// and `quota` (it fails).
    fn matrix() -> Matrix {
        let mut matrix = Matrix::standard(Vec::new());
        matrix
            .faults
            .retain(|(label, _)| label == "clean" || label == "quota");
        matrix
    }

    /// A consumer that "runs the agent" (writes a journal entry), says `bot: done`
    /// and exits 0: right on `clean`, wrong on `quota`.
    fn exits_0() -> Consumer {
        Consumer::new(format!(
            "echo '{ENTRY}' >> \"$MOCK_AGENT_JOURNAL\"; echo 'bot: done' >&2; exit 0"
        ))
    }

    #[test]
    fn each_case_is_a_trial_named_as_the_case() {
        let (consumer, mock) = (exits_0(), MockBinary::new("/bin/true"));
        let runner = Runner::new(&consumer, &mock);
        let trials = runner.trials(&matrix()).expect("trials");
        let names: Vec<&str> = trials.iter().map(Trial::name).collect();
        assert_eq!(names, ["default/clean", "default/quota"]);
        let prefixed = Trials::new(&runner).prefix("bot").of(&matrix()).expect("trials");
        let names: Vec<&str> = prefixed.iter().map(Trial::name).collect();
        assert_eq!(names, ["bot/default/clean", "bot/default/quota"]);
        assert_eq!(duplicate(&prefixed), None);
        let mut both = trials;
        both.extend(Trials::new(&runner).of(&matrix()).expect("trials"));
        assert_eq!(duplicate(&both), Some("default/clean"));
        // A consumer that takes the format gets it in the case names.
        let takes_format = Consumer::new("true {format}");
        let runner = Runner::new(&takes_format, &mock);
        let trials = runner.trials(&matrix()).expect("trials");
        assert_eq!(trials[0].name(), "default/stream-json/clean");
    }

    #[test]
    fn a_trial_passes_or_fails_as_its_case() {
        let (consumer, mock) = (exits_0(), MockBinary::new("/bin/true"));
        let cases = matrix().cases(false).expect("cases");
        assert!(matches!(cases[0].expect, Expectation::Success { .. }));
        assert_eq!(cases[1].expect, Expectation::Failure);
        // The consumer says nothing on stdout: `reports-success` breaks on `clean`
        // too, unless it is not checked.
        let runner = Runner::new(&consumer, &mock);
        let setup = Trials::new(&runner).setup;
        assert!(run_trial(&setup, &cases[0], None).is_err());
        let runner = runner.properties(Properties::new().without(super::super::Property::ReportsSuccess));
        let setup = Trials::new(&runner).setup;
        assert!(run_trial(&setup, &cases[0], None).is_ok());
        assert!(run_trial(&setup, &cases[1], None).is_err());
    }

    #[test]
    fn a_failing_trial_says_what_mock_agent_test_says_of_the_case() {
        let (consumer, mock) = (exits_0(), MockBinary::new("/bin/true"));
        let runner = Runner::new(&consumer, &mock);
        let case = &matrix().cases(false).expect("cases")[1];
        let setup = Trials::new(&runner).setup;
        let failed = run_trial(&setup, case, None).expect_err("the consumer exits 0 on quota");
        let message = failed.message().expect("a message");
        let results = runner.run_all(std::slice::from_ref(case), |_| {}).expect("runs");
        let summary = Summary::new(&results, &[]).to_string();
        assert!(message.starts_with("the consumer `echo"), "{message}");
        assert!(message.ends_with(&summary), "{message}\n---\n{summary}");
        for part in ["default/quota", "reports-failure", "bot: done", "repro: (d="] {
            assert!(message.contains(part), "{part} in {message}");
        }
    }

    #[test]
    fn a_trial_fails_on_a_snapshot_that_fails_the_run() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (consumer, mock) = (exits_0(), MockBinary::new("/bin/true"));
        let runner = Runner::new(&consumer, &mock)
            .properties(Properties::new().without(super::super::Property::ReportsSuccess));
        let case = &matrix().cases(false).expect("cases")[0];
        let setup = Trials::new(&runner).setup;
        let policy = |ci: bool| {
            Policy::from_lookup(|name| (name == "CI" && ci).then(|| "true".to_owned())).expect("policy")
        };
        // New on CI: fails, and says so.
        let snapshots = (dir.path().to_owned(), policy(true));
        let failed = run_trial(&setup, case, Some(&snapshots)).expect_err("a new snapshot on CI");
        assert!(
            failed.message().is_some_and(|m| m.contains("new snapshot")),
            "{failed:?}"
        );
        // Outside CI it is written, and then matches.
        let snapshots = (dir.path().to_owned(), policy(false));
        run_trial(&setup, case, Some(&snapshots)).expect("written");
        assert!(dir.path().join("default__clean.snap").is_file());
        run_trial(&setup, case, Some(&(dir.path().to_owned(), policy(true)))).expect("matches");
    }
}
