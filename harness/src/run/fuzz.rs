//! Fuzzing a consumer: generated cases with faults overlaid, each run against the
//! consumer and checked for the same properties as the matrix. On a failure, proptest
//! shrinks the case to the smallest one that still fails, and it is written as a
//! cassette that replays it.
//!
//! A [`Fuzz`] says how many cases, from which seed, and where the minimal failing
//! case is written; a [`Runner`] says which consumer, which mock and which
//! properties, and the [`Cancel`](super::Cancel) that stops the search.
//!
//! [`Fuzz::run`] fuzzes in the dialect of a [`Dialect`]: each dialect draws its
//! generated sessions and faults ([`Dialect::fuzz`]) and hands them to
//! [`Fuzz::search`], which runs, shrinks and saves them. A dialect that writes its
//! faults into the case's cassette saves no faults; one whose faults act on the live
//! conversation writes them beside the cassette, in a `.faults` file
//! ([`with_faults`]), and [`FuzzFailure::replay_command`] runs it again.

use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use super::repro::quote;
use super::{Case, Dialect, RunError, Runner, Worker};

/// What a fuzz run found.
#[derive(Debug, Clone)]
pub struct FuzzReport {
    /// Cases run, shrinking included.
    pub runs: u64,
    /// Generated cases run (shrinking not included): all of them, or those up to the
    /// batch of the first failure unless [`Fuzz::keep_going`].
    pub cases: u32,
    /// Of those, how many failed (each failure is shrunk only when it breaks a set of
    /// properties no earlier one broke).
    pub failed: u32,
    /// How long it took, in seconds.
    pub seconds: f64,
    /// The minimal failing case, if one failed: the first of [`failures`](Self::failures).
    pub failure: Option<FuzzFailure>,
    /// Every distinct failure found (one unless [`Fuzz::keep_going`]), each shrunk.
    pub failures: Vec<FuzzFailure>,
}

/// How a fuzz run is going, as it goes (see [`Fuzz::on_progress`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Progress {
    /// A generated case ran.
    Case {
        /// Cases run so far.
        done: u32,
        /// Cases to run.
        total: u32,
        /// Whether it broke a property.
        failed: bool,
        /// Whether it was not run: the mock was not part of it (see
        /// [`CaseResult::not_run`](super::CaseResult::not_run)).
        not_run: bool,
    },
    /// A step of shrinking a failure ran.
    Shrink {
        /// Steps so far.
        step: u32,
        /// How many of them still failed (each a smaller failing case).
        smaller: u32,
        /// Seconds spent shrinking this failure.
        seconds: f64,
    },
}

/// A caller's view of the progress.
#[derive(Clone)]
struct OnProgress(std::sync::Arc<dyn Fn(&Progress) + Send + Sync>);

impl Debug for OnProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnProgress")
    }
}

/// A minimal failing case.
#[derive(Debug, Clone)]
pub struct FuzzFailure {
    /// The cassette that replays it.
    pub cassette: PathBuf,
    /// The dialect it was played in.
    pub dialect: &'static dyn Dialect,
    /// The faults to serve the cassette with (`MOCK_AGENT_FAULTS`), `;`-separated;
    /// empty for none. In print mode they are applied in the cassette: always empty.
    pub faults: String,
    /// The broken properties, with details.
    pub broken: Vec<String>,
    /// How many lines the minimal case has: stdout lines in print mode, messages (both
    /// directions) in server mode.
    pub lines: usize,
    /// Whether shrinking stopped at its time bound (see [`Fuzz::shrink_time`]): the
    /// case fails, but a smaller one may too.
    pub shrink_stopped: bool,
}

impl FuzzFailure {
    /// The `mock-agent test` command that runs the minimal case against `consumer`
    /// (a shell command) again, quoted for a POSIX shell.
    pub fn replay_command(&self, consumer: &str) -> String {
        self.replay_command_with(consumer, &[])
    }

    /// [`replay_command`](FuzzFailure::replay_command) with `run`, the flags of
    /// `mock-agent test` that say how the consumer is run and judged as the fuzz run
    /// ran and judged it (`--mock-env NAME`, `--timeout S`, `--off P`,
    /// `--failure-when-exit N`, ...), each word quoted.
    pub fn replay_command_with(&self, consumer: &str, run: &[String]) -> String {
        let mut command = String::from("mock-agent test");
        let flags = self.dialect.test_flags();
        if !flags.is_empty() {
            command.push(' ');
            command.push_str(&flags);
        }
        command.push_str(" --no-default --cassettes ");
        command.push_str(&quote(&self.cassette.display().to_string()));
        if self.faults.is_empty() {
            command.push_str(" --filter clean");
        } else {
            command.push_str(" --fault ");
            command.push_str(&quote(&self.faults));
        }
        for flag in run {
            command.push(' ');
            command.push_str(&quote(flag));
        }
        command.push_str(" --consumer ");
        command.push_str(&quote(consumer));
        command
    }
}

/// How many generated cases to run against a consumer, from which seed, and where
/// the minimal failing case is written (`fuzz-failures` unless told).
///
/// ```no_run
/// use harness::dialects::CURSOR_PRINT;
/// use harness::run::{fuzz::Fuzz, mock_binary, Consumer, Runner};
///
/// let consumer = Consumer::new("python3 my_bot.py");
/// let mock = mock_binary().expect("mock-agent on PATH, or MOCK_AGENT_BIN");
/// let runner = Runner::new(&consumer, &mock);
/// let report = Fuzz::new(1).cases(200).run(CURSOR_PRINT, &runner).expect("runs");
/// assert!(report.failure.is_none());
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Fuzz {
    cases: u32,
    seed: u64,
    out: PathBuf,
    keep_going: bool,
    shrink_time: Duration,
    on_progress: Option<OnProgress>,
}

/// The most steps a failure is shrunk by.
const MAX_SHRINK_STEPS: u32 = 256;

impl Fuzz {
    /// 100 cases from `seed`, a failure written to `fuzz-failures/`, the search
    /// stopped at the first failure, shrinking bounded to 60 s.
    pub fn new(seed: u64) -> Self {
        Fuzz {
            cases: 100,
            seed,
            out: PathBuf::from("fuzz-failures"),
            keep_going: false,
            shrink_time: Duration::from_secs(60),
            on_progress: None,
        }
    }

    /// Going on after a failure to run every case, and shrinking each failure that
    /// breaks a set of properties no earlier one broke (written as
    /// `PREFIX-SEED.cassette`, `PREFIX-SEED-2.cassette`, ...).
    pub fn keep_going(mut self, keep_going: bool) -> Self {
        self.keep_going = keep_going;
        self
    }

    /// Shrinking a failure for at most about this long: no step starts after it (a
    /// step under way ends first, within the consumer's time limit), and the smallest
    /// failing case found so far is written.
    pub fn shrink_time(mut self, limit: Duration) -> Self {
        self.shrink_time = limit;
        self
    }

    /// Calling `progress` after each case and each step of shrinking.
    pub fn on_progress(mut self, progress: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(OnProgress(std::sync::Arc::new(progress)));
        self
    }

    fn progress(&self, progress: Progress) {
        if let Some(OnProgress(call)) = &self.on_progress {
            call(&progress);
        }
    }

    /// Running this many cases (shrinking not counted).
    pub fn cases(mut self, cases: u32) -> Self {
        self.cases = cases;
        self
    }

    /// Writing the minimal failing case in this directory.
    pub fn out(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out = dir.into();
        self
    }

    /// Fuzzes the runner's consumer in `dialect`: its generated sessions with its
    /// faults; on a failure, shrinks it and writes the minimal case to
    /// `OUT/PREFIX-SEED.cassette` (see [`Dialect::fuzz`]).
    pub fn run(&self, dialect: &'static dyn Dialect, runner: &Runner<'_>) -> Result<FuzzReport, RunError> {
        dialect.fuzz(self, runner)
    }

    /// Runs the cases of `strategy` against the consumer, [`Runner::jobs`] at a time,
    /// each made a case by `case_of` (given a scratch path for its cassette and its
    /// number); shrinks the first that breaks a property (each one that breaks a new
    /// set of them, with [`Fuzz::keep_going`]), and has `save` write the minimal one as
    /// `OUT/PREFIX-SEED.cassette`. The scratch directory is removed by the runner's
    /// [`Cancel`](super::Cancel) too, so an interrupted search leaves nothing behind.
    pub fn search<S>(
        &self,
        runner: &Runner<'_>,
        prefix: &str,
        strategy: S,
        case_of: impl Fn(&S::Value, &Path, u64) -> Result<Case, RunError>,
        save: impl Fn(S::Value, PathBuf) -> Result<FuzzFailure, RunError>,
    ) -> Result<FuzzReport, RunError>
    where
        S: Strategy,
        S::Value: Debug + Clone,
    {
        let dir = tempfile::Builder::new()
            .prefix("mock-agent-fuzz-")
            .tempdir()
            .map_err(|source| RunError::Workdir { source })?;
        runner
            .cancel
            .lock()
            .as_mut()
            .ok_or(RunError::Interrupted)?
            .add_dir(dir.path());
        let scratch = Scratch(runner.cancel.clone(), dir);
        let mut rng_seed = [0u8; 32];
        rng_seed[..8].copy_from_slice(&self.seed.to_le_bytes());
        let config = Config {
            cases: self.cases,
            failure_persistence: None,
            // The generators' filters reject a case now and then: never give up on them.
            max_local_rejects: u32::MAX,
            max_global_rejects: u32::MAX,
            ..Config::default()
        };
        let mut search = TestRunner::new_with_rng(
            config.clone(),
            TestRng::from_seed(RngAlgorithm::ChaCha, &rng_seed),
        );
        let started = Instant::now();
        let mut runs = 0u64;
        // Shrinking runs one case at a time, each in the directory of the one before
        // when it can (see `Workdir`).
        let mut worker = Worker::new(runner);
        let mut failures: Vec<FuzzFailure> = Vec::new();
        let mut causes: Vec<Vec<String>> = Vec::new();
        let batch = u32::try_from(runner.jobs * 4).unwrap_or(u32::MAX).max(1);
        let (mut done, mut failed) = (0u32, 0u32);
        'search: while done < self.cases {
            let n = batch.min(self.cases - done);
            let mut trees = Vec::with_capacity(n as usize);
            let mut cases = Vec::with_capacity(n as usize);
            for i in done..done + n {
                // As proptest's runner does before each case: the runner's generator
                // made a new one, seeded from it (so that a seed runs the same cases
                // as it always has).
                let rng = search.new_rng();
                search = TestRunner::new_with_rng(config.clone(), rng);
                let tree = strategy
                    .new_tree(&mut search)
                    .map_err(|reason| RunError::Search {
                        reason: reason.to_string(),
                    })?;
                let path = scratch.1.path().join(format!("case-{i}.cassette"));
                cases.push(case_of(&tree.current(), &path, u64::from(i))?);
                trees.push(tree);
            }
            let mut ran = done;
            let results = runner.run_all(&cases, |result| {
                ran += 1;
                self.progress(Progress::Case {
                    done: ran,
                    total: self.cases,
                    failed: result.failed(),
                    not_run: result.not_run.is_some(),
                });
            })?;
            runs += u64::from(n);
            done += n;
            failed += u32::try_from(results.iter().filter(|r| r.failed()).count()).unwrap_or(u32::MAX);
            for (tree, result) in trees.into_iter().zip(results) {
                // A fuzz run whose consumer does not run the mock tests nothing.
                if let Some(not_run) = result.not_run {
                    return Err(RunError::NotRun {
                        case: format!("case {}", result.case.name),
                        not_run,
                    });
                }
                let broken = broken_list(&result.verdicts);
                if broken.is_empty() {
                    continue;
                }
                let cause: Vec<String> = result
                    .verdicts
                    .iter()
                    .filter(|v| !v.held)
                    .map(|v| v.name.clone())
                    .collect();
                if causes.contains(&cause) {
                    continue;
                }
                causes.push(cause.clone());
                // A smaller case fails when it breaks one of the properties this one broke.
                let mut step = |value: &S::Value| -> Result<Vec<String>, RunError> {
                    runs += 1;
                    let path = scratch.1.path().join(format!("shrink-{runs}.cassette"));
                    let case = case_of(value, &path, runs)?;
                    let outcome = worker.run(&case)?;
                    // The case as played reads its source again: before it is removed.
                    let lived = case.lived(&outcome);
                    let _ = std::fs::remove_file(&path);
                    let verdicts = runner.properties.check(&lived, &outcome);
                    let same = verdicts.iter().any(|v| !v.held && cause.contains(&v.name));
                    Ok(if same { broken_list(&verdicts) } else { Vec::new() })
                };
                let (minimal, reasons, stopped) = self.shrink(tree, broken, &mut step)?;
                std::fs::create_dir_all(&self.out).map_err(|e| write_case(&self.out, e))?;
                let name = match failures.len() {
                    0 => format!("{prefix}-{}.cassette", self.seed),
                    k => format!("{prefix}-{}-{}.cassette", self.seed, k + 1),
                };
                let mut failure = save(minimal, self.out.join(name))?;
                failure.broken = reasons;
                failure.shrink_stopped = stopped;
                failures.push(failure);
                if !self.keep_going {
                    break 'search;
                }
            }
        }
        drop(scratch);
        Ok(FuzzReport {
            runs,
            cases: done,
            failed,
            seconds: started.elapsed().as_secs_f64(),
            failure: failures.first().cloned(),
            failures,
        })
    }

    /// Shrinks a failing case as proptest does (simpler while it fails, back when it
    /// passes), for at most [`MAX_SHRINK_STEPS`] steps and about `shrink_time` (at
    /// least one step):
    /// the smallest failing value, why it fails, and whether the time bound stopped it.
    fn shrink<T: ValueTree>(
        &self,
        mut tree: T,
        broken: Vec<String>,
        step: &mut impl FnMut(&T::Value) -> Result<Vec<String>, RunError>,
    ) -> Result<(T::Value, Vec<String>, bool), RunError> {
        let started = Instant::now();
        let mut minimal = tree.current();
        let mut reasons = broken;
        let (mut steps, mut smaller) = (0u32, 0u32);
        if !tree.simplify() {
            return Ok((minimal, reasons, false));
        }
        loop {
            // The bound is checked after a step, never before the first: however
            // loaded the machine, a tiny bound takes exactly one step, the same on
            // every run.
            if steps > 0 && started.elapsed() >= self.shrink_time {
                return Ok((minimal, reasons, true));
            }
            if steps >= MAX_SHRINK_STEPS {
                break;
            }
            steps += 1;
            let value = tree.current();
            let still = step(&value)?;
            let failed = !still.is_empty();
            if failed {
                smaller += 1;
                minimal = value;
                reasons = still;
            }
            self.progress(Progress::Shrink {
                step: steps,
                smaller,
                seconds: started.elapsed().as_secs_f64(),
            });
            let moved = if failed {
                tree.simplify()
            } else {
                tree.complicate()
            };
            if !moved {
                break;
            }
        }
        Ok((minimal, reasons, false))
    }
}

/// The scratch directory of a search, removed at its end, or by the run's
/// [`Cancel`](super::Cancel) when it is interrupted.
struct Scratch(super::Cancel, tempfile::TempDir);

impl Drop for Scratch {
    fn drop(&mut self) {
        self.0.remove_dir(self.1.path());
    }
}

/// The broken properties of a case, with details: `name: detail`.
fn broken_list(verdicts: &[super::Verdict]) -> Vec<String> {
    verdicts
        .iter()
        .filter(|v| !v.held)
        .map(|v| format!("{}: {}", v.name, v.detail))
        .collect()
}

impl std::fmt::Display for Fuzz {
    /// `N cases from seed S`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cases from seed {}", self.cases, self.seed)
    }
}

/// A generated case of a dialect whose faults act on the live run (given in
/// `MOCK_AGENT_FAULTS`, not written into the cassette): its session, written as a
/// cassette, and its faults.
pub trait LiveCase: Debug + Clone {
    /// Writes the session as a cassette at `path`.
    fn write_cassette(&self, path: &Path) -> Result<PathBuf, crate::error::WriteError>;
    /// The faults in the grammar, `;`-joined (empty for none).
    fn spec(&self) -> String;
    /// How many lines the minimal case has, for the summary.
    fn lines(&self) -> usize;
}

impl Fuzz {
    /// [`Fuzz::search`] of cases whose faults act on the live run ([`LiveCase`]):
    /// each written as a cassette and played as a case of `dialect` with its faults;
    /// the minimal one written as `OUT/PREFIX-SEED.cassette`, its faults beside it
    /// ([`with_faults`]).
    pub fn search_live<S>(
        &self,
        runner: &Runner<'_>,
        dialect: &'static dyn Dialect,
        prefix: &str,
        strategy: S,
    ) -> Result<FuzzReport, RunError>
    where
        S: Strategy,
        S::Value: LiveCase,
    {
        let case_of = |case: &S::Value, path: &Path, n: u64| {
            case.write_cassette(path).map_err(|e| write_case(path, e))?;
            let source = super::CaseSource::Cassette(path.to_owned());
            dialect
                .case(
                    source,
                    crate::format::OutputFormat::StreamJson,
                    &case.spec(),
                    format!("{prefix}-{n}"),
                )
                .map_err(|e| write_case(path, e))
        };
        let save = |minimal: S::Value, cassette: PathBuf| {
            minimal
                .write_cassette(&cassette)
                .map_err(|e| write_case(&cassette, e))?;
            with_faults(cassette, dialect, minimal.spec(), minimal.lines())
        };
        self.search(runner, prefix, strategy, case_of, save)
    }
}

/// The failure whose minimal case is `cassette`, served with `faults`: the faults go
/// beside it, in `CASSETTE.faults` (one line, as `MOCK_AGENT_FAULTS` takes them), or
/// that file is removed when there are none (not the faults of an earlier failure of
/// the same seed).
pub fn with_faults(
    cassette: PathBuf,
    dialect: &'static dyn Dialect,
    faults: String,
    lines: usize,
) -> Result<FuzzFailure, RunError> {
    let faults_file = cassette.with_extension("faults");
    if faults.is_empty() {
        let _ = std::fs::remove_file(&faults_file);
    } else {
        std::fs::write(&faults_file, format!("{faults}\n")).map_err(|e| write_case(&faults_file, e))?;
    }
    Ok(FuzzFailure {
        cassette,
        dialect,
        faults,
        broken: Vec::new(),
        shrink_stopped: false,
        lines,
    })
}

/// A case, or the minimal failing one, that cannot be written.
pub fn write_case(path: &Path, e: impl std::error::Error + Send + Sync + 'static) -> RunError {
    RunError::WriteCase {
        path: path.to_owned(),
        source: Box::new(e),
    }
}
