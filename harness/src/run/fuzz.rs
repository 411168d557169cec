//! Fuzzing a consumer: generated cases with faults overlaid, each run against the
//! consumer and checked for the same properties as the matrix. On a failure, proptest
//! shrinks the case to the smallest one that still fails, and it is written as a
//! cassette that replays it.
//!
//! A [`Fuzz`] says how many cases, from which seed, and where the minimal failing
//! case is written; a [`Runner`] says which consumer, which mock and which
//! properties, and the [`Cancel`](super::Cancel) that stops the search.
//!
//! - [`Fuzz::run`], print mode: generated sessions with print-mode faults. Each case is
//!   written as a cassette with its faults applied and replayed from it, so what
//!   fails is exactly what the cassette holds. (The faults that only split or join
//!   writes, `chunk` and `coalesce`, are not in cassettes and are not drawn.)
//! - [`Fuzz::run_acp`], server mode: generated conversations (see
//!   [`crate::dialects::cursor_acp::generate`]) with server-mode faults, against an ACP client. Each
//!   case is the conversation written as a cassette, served by `cursor-agent acp`
//!   with the faults in `MOCK_AGENT_FAULTS` (they act on the live conversation, so
//!   they are not written into it): the minimal case is that cassette, with its
//!   faults in a `.faults` file beside it, and [`FuzzFailure::replay_command`] runs it
//!   again.

use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};

use super::{Case, CaseSource, RunError, Runner, Worker};
use crate::dialects::cursor_acp::generate::{faulted as faulted_conversation, ConversationConfig};
use crate::dialects::Dialect;
use crate::format::OutputFormat;
use crate::generate::{faulted, SessionConfig};

/// What a fuzz run found.
#[derive(Debug, Clone)]
pub struct FuzzReport {
    /// Cases run, shrinking included.
    pub runs: u64,
    /// How long it took, in seconds.
    pub seconds: f64,
    /// The minimal failing case, if one failed.
    pub failure: Option<FuzzFailure>,
}

/// A minimal failing case.
#[derive(Debug, Clone)]
pub struct FuzzFailure {
    /// The cassette that replays it.
    pub cassette: PathBuf,
    /// Print mode, or server mode.
    pub dialect: Dialect,
    /// The faults to serve the cassette with (`MOCK_AGENT_FAULTS`), `;`-separated;
    /// empty for none. In print mode they are applied in the cassette: always empty.
    pub faults: String,
    /// The broken properties, with details.
    pub broken: Vec<String>,
    /// How many lines the minimal case has: stdout lines in print mode, messages (both
    /// directions) in server mode.
    pub lines: usize,
}

impl FuzzFailure {
    /// The `mock-agent test` command that runs the minimal case against `consumer`
    /// (a shell command) again, quoted for a POSIX shell.
    pub fn replay_command(&self, consumer: &str) -> String {
        let mut command = String::from("mock-agent test");
        if self.dialect == Dialect::CursorAcp {
            command.push_str(" --acp");
        }
        command.push_str(" --no-default --cassettes ");
        command.push_str(&quote(&self.cassette.display().to_string()));
        if self.faults.is_empty() {
            command.push_str(" --filter clean");
        } else {
            command.push_str(" --fault ");
            command.push_str(&quote(&self.faults));
        }
        command.push_str(" --consumer ");
        command.push_str(&quote(consumer));
        command
    }
}

/// `text` in single quotes for a POSIX shell (as it is when it needs none).
fn quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// How many generated cases to run against a consumer, from which seed, and where
/// the minimal failing case is written (`fuzz-failures` unless told).
///
/// ```no_run
/// use harness::run::{fuzz::Fuzz, mock_binary, Consumer, Runner};
///
/// let consumer = Consumer::new("python3 my_bot.py");
/// let mock = mock_binary().expect("mock-agent on PATH, or MOCK_AGENT_BIN");
/// let report = Fuzz::new(1).cases(200).run(&Runner::new(&consumer, &mock)).expect("runs");
/// assert!(report.failure.is_none());
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Fuzz {
    cases: u32,
    seed: u64,
    out: PathBuf,
}

impl Fuzz {
    /// 100 cases from `seed`, a failure written to `fuzz-failures/`.
    pub fn new(seed: u64) -> Self {
        Fuzz {
            cases: 100,
            seed,
            out: PathBuf::from("fuzz-failures"),
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

    /// Print mode: generated sessions with faults against the runner's consumer; on a
    /// failure, shrinks it and writes the minimal case to `OUT/fuzz-SEED.cassette`.
    pub fn run(&self, runner: &Runner<'_>) -> Result<FuzzReport, RunError> {
        let strategy = faulted(SessionConfig::default(), 2).prop_filter(
            "chunk and coalesce are not in cassettes",
            |case| {
                !case
                    .faults
                    .iter()
                    .any(|f| f.starts_with("chunk") || f.starts_with("coalesce"))
            },
        );
        let case_of = |case: &crate::generate::Faulted, path: &Path, n: u64| {
            case.write_cassette(path).map_err(|e| write_case(path, e))?;
            Case::new(
                CaseSource::Cassette(path.to_owned()),
                OutputFormat::StreamJson,
                "",
                format!("fuzz-{n}"),
            )
            .map_err(|e| write_case(path, e))
        };
        let save = |minimal: crate::generate::Faulted, cassette: PathBuf| {
            minimal
                .write_cassette(&cassette)
                .map_err(|e| write_case(&cassette, e))?;
            Ok(FuzzFailure {
                cassette,
                dialect: Dialect::CursorPrint,
                faults: String::new(),
                broken: Vec::new(),
                lines: minimal
                    .frames()
                    .iter()
                    .filter(|f| matches!(f, crate::frames::Frame::Line(l) if l.stream == crate::frames::Stream::Stdout))
                    .count(),
            })
        };
        self.search(runner, "fuzz", strategy, case_of, save)
    }

    /// Server mode: generated conversations with server-mode faults against an ACP
    /// client; on a failure, shrinks it and writes the minimal conversation to
    /// `OUT/fuzz-acp-SEED.cassette`, and its faults, when it has any, to
    /// `OUT/fuzz-acp-SEED.faults` (one line, as `MOCK_AGENT_FAULTS` takes them).
    pub fn run_acp(&self, runner: &Runner<'_>) -> Result<FuzzReport, RunError> {
        let case_of =
            |case: &crate::dialects::cursor_acp::generate::FaultedTranscript, path: &Path, n: u64| {
                case.transcript
                    .write_cassette(path)
                    .map_err(|e| write_case(path, e))?;
                Case::acp(
                    CaseSource::Cassette(path.to_owned()),
                    &case.spec(),
                    format!("fuzz-acp-{n}"),
                )
                .map_err(|e| write_case(path, e))
            };
        let save = |minimal: crate::dialects::cursor_acp::generate::FaultedTranscript, cassette: PathBuf| {
            let faults_file = cassette.with_extension("faults");
            minimal
                .transcript
                .write_cassette(&cassette)
                .map_err(|e| write_case(&cassette, e))?;
            let faults = minimal.spec();
            if faults.is_empty() {
                // Not the faults of an earlier failure of the same seed.
                let _ = std::fs::remove_file(&faults_file);
            } else {
                std::fs::write(&faults_file, format!("{faults}\n"))
                    .map_err(|e| write_case(&faults_file, e))?;
            }
            Ok(FuzzFailure {
                cassette,
                dialect: Dialect::CursorAcp,
                faults,
                broken: Vec::new(),
                lines: minimal.transcript.messages.len(),
            })
        };
        self.search(
            runner,
            "fuzz-acp",
            faulted_conversation(ConversationConfig::default(), 2),
            case_of,
            save,
        )
    }

    /// Runs the cases of `strategy` against the consumer, each made a case by
    /// `case_of` (given a scratch path for its cassette and its number), shrinks the
    /// first that breaks a property, and has `save` write the minimal one as
    /// `OUT/PREFIX-SEED.cassette`.
    fn search<S>(
        &self,
        runner: &Runner<'_>,
        prefix: &str,
        strategy: S,
        case_of: impl Fn(&S::Value, &Path, u64) -> Result<Case, RunError>,
        save: impl FnOnce(S::Value, PathBuf) -> Result<FuzzFailure, RunError>,
    ) -> Result<FuzzReport, RunError>
    where
        S: Strategy,
        S::Value: Debug + Clone,
    {
        let dir = tempfile::Builder::new()
            .prefix("mock-agent-fuzz-")
            .tempdir()
            .map_err(|source| RunError::Workdir { source })?;
        let runs = AtomicU64::new(0);
        let mut rng_seed = [0u8; 32];
        rng_seed[..8].copy_from_slice(&self.seed.to_le_bytes());
        let config = Config {
            cases: self.cases,
            failure_persistence: None,
            max_shrink_iters: 256,
            // The generators' filters reject a case now and then: never give up on them.
            max_local_rejects: u32::MAX,
            max_global_rejects: u32::MAX,
            ..Config::default()
        };
        let mut search =
            TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &rng_seed));
        // Each case runs in the directory of the case before when it can (see `Workdir`).
        let worker = std::sync::Mutex::new(Worker::new(runner));
        let started = Instant::now();
        // An error of the harness's own (not a failure of the consumer's) ends the search.
        let harness_error = std::sync::Mutex::new(None);
        let keep = |e: RunError| {
            let message = e.to_string();
            if let Ok(mut slot) = harness_error.lock() {
                slot.get_or_insert(e);
            }
            TestCaseError::fail(message)
        };
        let result = search.run(&strategy, |value| {
            let n = runs.fetch_add(1, Ordering::Relaxed);
            let path = dir.path().join(format!("case-{n}.cassette"));
            let case = case_of(&value, &path, n).map_err(keep)?;
            let outcome = worker
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .run(&case)
                .map_err(keep)?;
            let _ = std::fs::remove_file(&path);
            let broken: Vec<String> = runner
                .properties
                .check(&case.lived(&outcome), &outcome)
                .into_iter()
                .filter(|v| !v.held)
                .map(|v| format!("{}: {}", v.name, v.detail))
                .collect();
            if broken.is_empty() {
                Ok(())
            } else {
                Err(TestCaseError::fail(broken.join("; ")))
            }
        });
        if let Some(e) = harness_error.into_inner().ok().flatten() {
            return Err(e);
        }
        let failure = match result {
            Ok(()) => None,
            Err(TestError::Abort(reason)) => {
                return Err(RunError::Search {
                    reason: reason.to_string(),
                })
            }
            Err(TestError::Fail(reason, minimal)) => {
                std::fs::create_dir_all(&self.out).map_err(|e| write_case(&self.out, e))?;
                let cassette = self.out.join(format!("{prefix}-{}.cassette", self.seed));
                let mut failure = save(minimal, cassette)?;
                failure.broken = reason.message().split("; ").map(str::to_owned).collect();
                Some(failure)
            }
        };
        Ok(FuzzReport {
            runs: runs.into_inner(),
            seconds: started.elapsed().as_secs_f64(),
            failure,
        })
    }
}

impl std::fmt::Display for Fuzz {
    /// `N cases from seed S`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cases from seed {}", self.cases, self.seed)
    }
}

/// A case, or the minimal failing one, that cannot be written.
fn write_case(path: &Path, e: impl std::error::Error + Send + Sync + 'static) -> RunError {
    RunError::WriteCase {
        path: path.to_owned(),
        source: Box::new(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_replay_command_names_the_cassette_and_the_faults_quoted() {
        let prompt = crate::dialects::cursor_acp::wire::methods::SESSION_PROMPT;
        let failure = FuzzFailure {
            cassette: PathBuf::from("fuzz-failures/fuzz-acp-3.cassette"),
            dialect: Dialect::CursorAcp,
            faults: format!("error:method={prompt};stderr:text=\"it's\""),
            broken: Vec::new(),
            lines: 7,
        };
        assert_eq!(
            failure.replay_command("python3 my bot.py"),
            format!(
                "mock-agent test --acp --no-default --cassettes fuzz-failures/fuzz-acp-3.cassette \
                 --fault 'error:method={prompt};stderr:text=\"it'\\''s\"' --consumer 'python3 my bot.py'"
            )
        );
        let clean = FuzzFailure {
            dialect: Dialect::CursorPrint,
            faults: String::new(),
            ..failure
        };
        assert_eq!(
            clean.replay_command("./bot"),
            "mock-agent test --no-default --cassettes fuzz-failures/fuzz-acp-3.cassette --filter clean --consumer ./bot"
        );
    }
}
