//! Fuzzing a consumer: generated sessions with faults overlaid, each run against the
//! consumer and checked for the same properties as the matrix. On a failure, proptest
//! shrinks the case to the smallest stream that still fails, and it is written as a
//! cassette that replays it.
//!
//! Each case is written as a cassette with its faults applied and replayed from it,
//! so what fails is exactly what the cassette holds. (The faults that only split or
//! join writes, `chunk` and `coalesce`, are not in cassettes and are not drawn.)

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};

use super::{run_case, Case, CaseSource, Consumer, Properties, RunError};
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
    /// The broken properties, with details.
    pub broken: Vec<String>,
    /// How many stdout lines the minimal stream has.
    pub lines: usize,
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
    let spawn_error = |source| RunError::Spawn {
        command: consumer.command.clone(),
        source,
    };
    let dir = tempfile::Builder::new()
        .prefix("mock-agent-fuzz-")
        .tempdir()
        .map_err(spawn_error)?;
    let runs = AtomicU64::new(0);
    let mut rng_seed = [0u8; 32];
    rng_seed[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 256,
        // The generator's filters reject a case now and then: never give up on them.
        max_local_rejects: u32::MAX,
        max_global_rejects: u32::MAX,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &rng_seed));
    let strategy =
        faulted(SessionConfig::default(), 2).prop_filter("chunk and coalesce are not in cassettes", |case| {
            !case
                .faults
                .iter()
                .any(|f| f.starts_with("chunk") || f.starts_with("coalesce"))
        });
    let started = Instant::now();
    let error = std::sync::Mutex::new(None);
    let result = runner.run(&strategy, |case| {
        let n = runs.fetch_add(1, Ordering::Relaxed);
        let path = dir.path().join(format!("case-{n}.cassette"));
        case.write_cassette(&path)
            .map_err(|e| TestCaseError::fail(format!("cannot write the case: {e}")))?;
        let run = Case::new(
            CaseSource::Cassette(path.clone()),
            OutputFormat::StreamJson,
            "",
            format!("fuzz-{n}"),
        )
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let outcome = match run_case(consumer, &run, mock) {
            Ok(outcome) => outcome,
            Err(e) => {
                let message = e.to_string();
                if let Ok(mut slot) = error.lock() {
                    *slot = Some(e);
                }
                return Err(TestCaseError::fail(message));
            }
        };
        let _ = std::fs::remove_file(&path);
        let broken: Vec<String> = properties
            .check(&run, &outcome)
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
    if let Some(e) = error.into_inner().ok().flatten() {
        return Err(e);
    }
    let failure = match result {
        Ok(()) => None,
        Err(TestError::Abort(reason)) => {
            return Err(RunError::Spawn {
                command: consumer.command.clone(),
                source: std::io::Error::other(reason.to_string()),
            })
        }
        Err(TestError::Fail(reason, minimal)) => {
            std::fs::create_dir_all(out).map_err(spawn_error)?;
            let cassette = out.join(format!("fuzz-{seed}.cassette"));
            minimal.write_cassette(&cassette).map_err(|e| RunError::Spawn {
                command: consumer.command.clone(),
                source: std::io::Error::other(e.to_string()),
            })?;
            Some(FuzzFailure {
                cassette,
                broken: reason.message().split("; ").map(str::to_owned).collect(),
                lines: minimal
                    .frames()
                    .iter()
                    .filter(|f| matches!(f, crate::frames::Frame::Line(l) if l.stream == crate::frames::Stream::Stdout))
                    .count(),
            })
        }
    };
    Ok(FuzzReport {
        runs: runs.into_inner(),
        seconds: started.elapsed().as_secs_f64(),
        failure,
    })
}
