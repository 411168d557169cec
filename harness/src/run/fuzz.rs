//! Fuzzing a consumer: generated cases with faults overlaid, each run against the
//! consumer and checked for the same properties as the matrix. On a failure, proptest
//! shrinks the case to the smallest one that still fails, and it is written as a
//! cassette that replays it.
//!
//! - [`fuzz`], print mode: generated sessions with print-mode faults. Each case is
//!   written as a cassette with its faults applied and replayed from it, so what
//!   fails is exactly what the cassette holds. (The faults that only split or join
//!   writes, `chunk` and `coalesce`, are not in cassettes and are not drawn.)
//! - [`fuzz_acp`], server mode: generated conversations (see
//!   [`crate::acp::generate`]) with server-mode faults, against an ACP client. Each
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

use super::{Case, CaseSource, Consumer, Mode, Properties, RunError, Worker};
use crate::acp::generate::{faulted as faulted_conversation, ConversationConfig};
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
    pub mode: Mode,
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
        if self.mode == Mode::Acp {
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

/// How the search went: runs, seconds, and the minimal failing value with its reason.
struct Searched<T> {
    runs: u64,
    seconds: f64,
    failure: Option<(T, String)>,
}

/// Runs `cases` values of `strategy` (from `seed`) against the consumer, each made a
/// case by `case_of` (given a scratch path for its cassette and its number), and
/// shrinks the first that breaks a property.
fn search<S>(
    consumer: &Consumer,
    cases: u32,
    seed: u64,
    mock: &Path,
    properties: &Properties,
    strategy: S,
    case_of: impl Fn(&S::Value, &Path, u64) -> Result<Case, String>,
) -> Result<Searched<S::Value>, RunError>
where
    S: Strategy,
    S::Value: Debug + Clone,
{
    let error = |message: String| RunError::Spawn {
        command: consumer.command.clone(),
        source: std::io::Error::other(message),
    };
    let dir = tempfile::Builder::new()
        .prefix("mock-agent-fuzz-")
        .tempdir()
        .map_err(|e| error(e.to_string()))?;
    let runs = AtomicU64::new(0);
    let mut rng_seed = [0u8; 32];
    rng_seed[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 256,
        // The generators' filters reject a case now and then: never give up on them.
        max_local_rejects: u32::MAX,
        max_global_rejects: u32::MAX,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &rng_seed));
    // Each case runs in the directory of the case before when it can (see `Workdir`).
    let worker = std::sync::Mutex::new(Worker::new(consumer, mock));
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
    let result = runner.run(&strategy, |value| {
        let n = runs.fetch_add(1, Ordering::Relaxed);
        let path = dir.path().join(format!("case-{n}.cassette"));
        let case = case_of(&value, &path, n).map_err(|e| keep(error(e)))?;
        let outcome = worker
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .run(&case)
            .map_err(keep)?;
        let _ = std::fs::remove_file(&path);
        let broken: Vec<String> = properties
            .check(&case, &outcome)
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
        Err(TestError::Abort(reason)) => return Err(error(reason.to_string())),
        Err(TestError::Fail(reason, minimal)) => Some((minimal, reason.message().to_owned())),
    };
    Ok(Searched {
        runs: runs.into_inner(),
        seconds: started.elapsed().as_secs_f64(),
        failure,
    })
}

/// Runs `cases` generated cases (from `seed`) against the consumer; on a failure,
/// shrinks it and writes the minimal case to `out/fuzz-SEED.cassette`.
pub fn fuzz(
    consumer: &Consumer,
    cases: u32,
    seed: u64,
    mock: &Path,
    properties: &Properties,
    out: &Path,
) -> Result<FuzzReport, RunError> {
    let strategy =
        faulted(SessionConfig::default(), 2).prop_filter("chunk and coalesce are not in cassettes", |case| {
            !case
                .faults
                .iter()
                .any(|f| f.starts_with("chunk") || f.starts_with("coalesce"))
        });
    let searched = search(
        consumer,
        cases,
        seed,
        mock,
        properties,
        strategy,
        |case, path, n| {
            case.write_cassette(path)
                .map_err(|e| format!("cannot write the case: {e}"))?;
            Case::new(
                CaseSource::Cassette(path.to_owned()),
                OutputFormat::StreamJson,
                "",
                format!("fuzz-{n}"),
            )
            .map_err(|e| e.to_string())
        },
    )?;
    let failure = match searched.failure {
        None => None,
        Some((minimal, reason)) => {
            let cassette = out.join(format!("fuzz-{seed}.cassette"));
            create_dir(consumer, out)?;
            minimal
                .write_cassette(&cassette)
                .map_err(|e| write_error(consumer, e))?;
            Some(FuzzFailure {
                cassette,
                mode: Mode::Print,
                faults: String::new(),
                broken: reason.split("; ").map(str::to_owned).collect(),
                lines: minimal
                    .frames()
                    .iter()
                    .filter(|f| matches!(f, crate::frames::Frame::Line(l) if l.stream == crate::frames::Stream::Stdout))
                    .count(),
            })
        }
    };
    Ok(FuzzReport {
        runs: searched.runs,
        seconds: searched.seconds,
        failure,
    })
}

/// Runs `cases` generated conversations with server-mode faults (from `seed`) against
/// an ACP client; on a failure, shrinks it and writes the minimal conversation to
/// `out/fuzz-acp-SEED.cassette`, and its faults, when it has any, to
/// `out/fuzz-acp-SEED.faults` (one line, as `MOCK_AGENT_FAULTS` takes them).
pub fn fuzz_acp(
    consumer: &Consumer,
    cases: u32,
    seed: u64,
    mock: &Path,
    properties: &Properties,
    out: &Path,
) -> Result<FuzzReport, RunError> {
    let searched = search(
        consumer,
        cases,
        seed,
        mock,
        properties,
        faulted_conversation(ConversationConfig::default(), 2),
        |case, path, n| {
            case.transcript
                .write_cassette(path)
                .map_err(|e| format!("cannot write the case: {e}"))?;
            Case::acp(
                CaseSource::Cassette(path.to_owned()),
                &case.spec(),
                format!("fuzz-acp-{n}"),
            )
            .map_err(|e| e.to_string())
        },
    )?;
    let failure = match searched.failure {
        None => None,
        Some((minimal, reason)) => {
            create_dir(consumer, out)?;
            let cassette = out.join(format!("fuzz-acp-{seed}.cassette"));
            let faults_file = cassette.with_extension("faults");
            minimal
                .transcript
                .write_cassette(&cassette)
                .map_err(|e| write_error(consumer, e))?;
            let faults = minimal.spec();
            if faults.is_empty() {
                // Not the faults of an earlier failure of the same seed.
                let _ = std::fs::remove_file(&faults_file);
            } else {
                std::fs::write(&faults_file, format!("{faults}\n")).map_err(|e| write_error(consumer, e))?;
            }
            Some(FuzzFailure {
                cassette,
                mode: Mode::Acp,
                faults,
                broken: reason.split("; ").map(str::to_owned).collect(),
                lines: minimal.transcript.messages.len(),
            })
        }
    };
    Ok(FuzzReport {
        runs: searched.runs,
        seconds: searched.seconds,
        failure,
    })
}

fn create_dir(consumer: &Consumer, dir: &Path) -> Result<(), RunError> {
    std::fs::create_dir_all(dir).map_err(|source| RunError::Spawn {
        command: consumer.command.clone(),
        source,
    })
}

fn write_error(consumer: &Consumer, e: impl std::fmt::Display) -> RunError {
    RunError::Spawn {
        command: consumer.command.clone(),
        source: std::io::Error::other(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_replay_command_names_the_cassette_and_the_faults_quoted() {
        let failure = FuzzFailure {
            cassette: PathBuf::from("fuzz-failures/fuzz-acp-3.cassette"),
            mode: Mode::Acp,
            faults: "error:method=session/prompt;stderr:text=\"it's\"".to_owned(),
            broken: Vec::new(),
            lines: 7,
        };
        assert_eq!(
            failure.replay_command("python3 my bot.py"),
            "mock-agent test --acp --no-default --cassettes fuzz-failures/fuzz-acp-3.cassette \
             --fault 'error:method=session/prompt;stderr:text=\"it'\\''s\"' --consumer 'python3 my bot.py'"
        );
        let clean = FuzzFailure {
            mode: Mode::Print,
            faults: String::new(),
            ..failure
        };
        assert_eq!(
            clean.replay_command("./bot"),
            "mock-agent test --no-default --cassettes fuzz-failures/fuzz-acp-3.cassette --filter clean --consumer ./bot"
        );
    }
}
