//! Running a consumer: the program under test, against one case at a time.
//!
//! Each run gets a fresh temporary directory whose `cursor-agent` and `agent` are the
//! mock, first on the consumer's `PATH`; the case's settings go in `MOCK_AGENT_*`
//! variables, and the mock's journal is read back. The consumer runs through `sh -c`
//! in a process group of its own: on timeout the whole group is killed, and processes
//! it leaves behind (a mock still running, say) are found, reported and killed.
//!
//! A consumer that takes the agent's path rather than finding it on `PATH` gets it
//! from `{mock}` in its command, or from the variable named by
//! [`Consumer::mock_env`]. `{format}` in its command is replaced by the case's output
//! format, for consumers that take one.
//!
//! # Getting the `mock-agent` binary from another crate
//!
//! Install it (`cargo install --path mock-agent`, or build this workspace) and point
//! [`Consumer::new`]'s caller at it, e.g. with `MOCK_AGENT_BIN`; [`mock_binary`]
//! looks there, then for `mock-agent` on `PATH`.

pub mod child;
#[cfg(feature = "generate")]
pub mod fuzz;
pub mod matrix;
pub mod properties;
pub mod report;
pub mod snapshot;
pub mod summary;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::expect::Expectation;
use crate::journal;

pub use matrix::{Case, CaseSource, Matrix, Mode};
pub use properties::{Properties, Verdict};
pub use summary::Summary;

/// The program under test.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Consumer {
    /// A shell command line, run with `sh -c`; `{mock}` and `{format}` are filled in.
    pub command: String,
    /// How long a case may take before the consumer is killed.
    pub timeout: Duration,
    /// A variable that gets the mock's path, for consumers that take it so.
    pub mock_env: Option<String>,
    /// More environment for the consumer.
    pub env: Vec<(String, String)>,
    /// Where it runs; the harness's own working directory when `None`.
    pub cwd: Option<PathBuf>,
}

impl Consumer {
    /// A consumer run as this shell command, with a 10 s limit per case.
    pub fn new(command: impl Into<String>) -> Self {
        Consumer {
            command: command.into(),
            timeout: Duration::from_secs(10),
            mock_env: None,
            env: Vec::new(),
            cwd: None,
        }
    }

    /// With this limit per case.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// With this variable set to the mock's path.
    #[must_use]
    pub fn mock_env(mut self, name: impl Into<String>) -> Self {
        self.mock_env = Some(name.into());
        self
    }

    /// With this variable in its environment.
    #[must_use]
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((name.into(), value.into()));
        self
    }

    /// Running in this directory.
    #[must_use]
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }
}

/// The `mock-agent` binary: `MOCK_AGENT_BIN`, else `mock-agent` on `PATH`.
pub fn mock_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("MOCK_AGENT_BIN").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("mock-agent"))
        .find(|path| path.is_file())
}

/// How the consumer ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// It exited with this code.
    Exited(i32),
    /// It died by this signal (number).
    Signaled(i32),
    /// It did not end within its limit, and was killed.
    TimedOut,
}

/// What one run of the consumer did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// How it ended.
    pub status: Status,
    /// Its stdout.
    pub stdout: Vec<u8>,
    /// Its stderr.
    pub stderr: Vec<u8>,
    /// How long it took.
    pub wall: Duration,
    /// The mock's journal: one entry per time the consumer ran the agent.
    pub journal: Vec<journal::Entry>,
    /// Whether processes of the consumer's group were still running after it ended
    /// (they were killed).
    pub left_running: bool,
    /// The temporary directory the case ran in (gone by now), for redaction.
    pub dir: PathBuf,
}

/// An error running a case (not a failure of the consumer: that is in [`Outcome`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Setting up the case's directory or starting the consumer failed.
    #[error("cannot run `{command}`: {source}")]
    Spawn {
        /// The consumer's command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
}

/// How long processes left in the consumer's group get to end by themselves.
const GRACE: Duration = Duration::from_millis(300);

/// At most this much of each of the consumer's streams is kept.
pub const MAX_OUTPUT: usize = 16 << 20;

/// Runs the consumer against one case with the mock at `mock`.
pub fn run_case(consumer: &Consumer, case: &Case, mock: &Path) -> Result<Outcome, RunError> {
    let spawn_error = |source| RunError::Spawn {
        command: consumer.command.clone(),
        source,
    };
    let dir = tempfile::Builder::new()
        .prefix("mock-agent-case-")
        .tempdir()
        .map_err(spawn_error)?;
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).map_err(spawn_error)?;
    for name in ["cursor-agent", "agent"] {
        std::os::unix::fs::symlink(mock, bin.join(name)).map_err(spawn_error)?;
    }
    let journal_path = dir.path().join("journal.jsonl");
    let command = consumer
        .command
        .replace("{mock}", &bin.join("cursor-agent").display().to_string())
        .replace("{format}", case.format.as_str());
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(&command);
    child::without_mock_env(&mut cmd);
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.clone()];
    paths.extend(std::env::split_paths(&path));
    cmd.env("PATH", std::env::join_paths(paths).unwrap_or(path));
    cmd.env("MOCK_AGENT_JOURNAL", &journal_path);
    for (name, value) in case.env() {
        cmd.env(name, value);
    }
    if let Some(name) = &consumer.mock_env {
        cmd.env(name, bin.join("cursor-agent"));
    }
    for (name, value) in &consumer.env {
        cmd.env(name, value);
    }
    // The consumer runs where the harness was started (its paths are the user's), or
    // where it says.
    if let Some(cwd) = &consumer.cwd {
        cmd.current_dir(cwd);
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.process_group(0);
    let started = Instant::now();
    let (mut child, _active) = Active::spawn(&mut cmd, dir.path()).map_err(spawn_error)?;
    let group = child.id() as i32;
    // Each stream is read to its end, and the first MAX_OUTPUT bytes kept.
    let stdout = child::drain(child.stdout.take(), MAX_OUTPUT);
    let stderr = child::drain(child.stderr.take(), MAX_OUTPUT);
    // Waited for on a thread of its own, so that its end is seen at once.
    let (ended, end) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = ended.send(());
        status
    });
    let timed_out = end.recv_timeout(consumer.timeout).is_err();
    let wall = started.elapsed();
    if timed_out {
        stop_group(group, &end);
    }
    let status = match (timed_out, waiter.join()) {
        (true, _) => Status::TimedOut,
        (false, Ok(Ok(status))) => match crate::frames::Exit::from_status(status) {
            crate::frames::Exit::Code(code) => Status::Exited(code),
            crate::frames::Exit::Signal(signal) => Status::Signaled(signal.number()),
        },
        (false, _) => Status::Exited(-1),
    };
    // Whatever the consumer left in its group: given a moment to end, then killed.
    let deadline = Instant::now() + GRACE;
    let mut left_running = group_alive(group);
    while left_running && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
        left_running = group_alive(group);
    }
    if left_running {
        kill_group(group);
    }
    // A process that left the group may still hold the pipes open: it is not waited
    // for, and counts as left running.
    let collect = |receiver: std::sync::mpsc::Receiver<Vec<u8>>, left: &mut bool| {
        receiver.recv_timeout(GRACE).unwrap_or_else(|_| {
            *left = true;
            Vec::new()
        })
    };
    let mut held_open = false;
    let stdout = collect(stdout, &mut held_open);
    let stderr = collect(stderr, &mut held_open);
    left_running |= held_open;
    let journal = journal::read(&journal_path).unwrap_or_default();
    Ok(Outcome {
        status,
        stdout,
        stderr,
        wall,
        journal,
        left_running: left_running && status != Status::TimedOut,
        dir: dir.path().to_owned(),
    })
}

/// The consumers running now, by process group, with their case directories: what an
/// interrupted harness kills and removes ([`interrupt`]).
/// `None` once the harness is interrupted: no consumer starts after that.
static ACTIVE: std::sync::Mutex<Option<Vec<(i32, PathBuf)>>> = std::sync::Mutex::new(Some(Vec::new()));

/// A running consumer's place in [`ACTIVE`], for as long as it runs.
struct Active(i32);

impl Active {
    /// Starts the consumer and registers it at once, under the lock that
    /// [`interrupt`] takes: a consumer is either killed by it or never started.
    fn spawn(cmd: &mut Command, dir: &Path) -> std::io::Result<(std::process::Child, Active)> {
        let mut active = ACTIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(running) = active.as_mut() else {
            return Err(std::io::Error::other("the harness was interrupted"));
        };
        let child = cmd.spawn()?;
        let group = child.id() as i32;
        running.push((group, dir.to_owned()));
        Ok((child, Active(group)))
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        if let Ok(mut active) = ACTIVE.lock() {
            if let Some(running) = active.as_mut() {
                running.retain(|(group, _)| *group != self.0);
            }
        }
    }
}

/// Kills every running consumer's process group and removes its case directory:
/// what a harness does when it is interrupted (SIGINT, SIGTERM), since consumers run
/// in groups of their own that the terminal's signal does not reach.
pub fn interrupt() {
    let running = ACTIVE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
        .unwrap_or_default();
    for (group, dir) in running {
        kill_group(group);
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Stops a consumer that ran out of time: SIGTERM to its group first, so that the
/// mocks it runs end as a signalled agent does (and write their journal), then
/// SIGKILL to whatever is left after [`TERM_GRACE`].
fn stop_group(group: i32, ended: &std::sync::mpsc::Receiver<()>) {
    use nix::sys::signal::{killpg, Signal};
    let _ = killpg(nix::unistd::Pid::from_raw(group), Signal::SIGTERM);
    let _ = ended.recv_timeout(TERM_GRACE);
    let deadline = Instant::now() + TERM_GRACE;
    while Instant::now() < deadline && group_alive(group) {
        std::thread::sleep(Duration::from_millis(2));
    }
    kill_group(group);
}

/// How long a consumer's group has between SIGTERM and SIGKILL on timeout.
const TERM_GRACE: Duration = Duration::from_millis(200);

fn kill_group(group: i32) {
    use nix::sys::signal::{killpg, Signal};
    let _ = killpg(nix::unistd::Pid::from_raw(group), Signal::SIGKILL);
}

/// Whether a process of the group is still running. A zombie (dead, not yet reaped
/// by whoever adopted it) does not count: the group is read from `/proc`.
fn group_alive(group: i32) -> bool {
    use nix::sys::signal::killpg;
    if killpg(nix::unistd::Pid::from_raw(group), None).is_err() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    entries.flatten().any(|entry| {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            return false;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or("", |(_, rest)| rest)
            .split_whitespace()
            .collect();
        fields.len() > 2 && fields[0] != "Z" && fields[2].parse() == Ok(group)
    })
}

/// The expectation of a case, and its verdicts, for one outcome.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// The case.
    pub case: Case,
    /// What the consumer did.
    pub outcome: Outcome,
    /// Each property, held or broken.
    pub verdicts: Vec<Verdict>,
}

impl CaseResult {
    /// Whether every property held.
    pub fn passed(&self) -> bool {
        self.verdicts.iter().all(|v| v.held)
    }
}

/// Runs every case, `jobs` at a time, and checks the properties of each.
pub fn run_all(
    consumer: &Consumer,
    cases: &[Case],
    mock: &Path,
    properties: &Properties,
    jobs: usize,
    mut progress: impl FnMut(&CaseResult) + Send,
) -> Result<Vec<CaseResult>, RunError> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, cases.len().max(1)) {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(case) = cases.get(index) else {
                    break;
                };
                let result = run_case(consumer, case, mock).map(|outcome| {
                    let verdicts = properties.check(case, &outcome);
                    CaseResult {
                        case: case.clone(),
                        outcome,
                        verdicts,
                    }
                });
                if sender.send((index, result)).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        let mut results: Vec<Option<CaseResult>> = vec![None; cases.len()];
        for (index, result) in receiver {
            let result = result?;
            progress(&result);
            results[index] = Some(result);
        }
        Ok(results.into_iter().flatten().collect())
    })
}

/// What a correct consumer concludes, as text for records.
pub fn describe(expect: &Expectation) -> String {
    match expect {
        Expectation::Success { answer } => format!("success: {answer:?}"),
        Expectation::Failure => "failure".to_owned(),
    }
}

/// What [`check_matrix`] found wrong: the run's [`Summary`], and each case with
/// broken properties or a snapshot that fails the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatrixFailure {
    /// Each case with broken properties, and their names and details.
    pub broken: Vec<(String, Vec<String>)>,
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

impl MatrixFailure {
    fn of(message: String) -> Self {
        MatrixFailure {
            broken: vec![("matrix".to_owned(), vec![message.clone()])],
            snapshots: Vec::new(),
            summary: message,
        }
    }
}

/// Checks each case's record against its snapshot in `dir` under `policy` (see
/// [`snapshot`]).
pub fn check_snapshots(
    results: &[CaseResult],
    dir: &Path,
    policy: &snapshot::Policy,
) -> std::io::Result<Vec<snapshot::Checked>> {
    results
        .iter()
        .map(|result| snapshot::check(dir, &result.case.name, &report::record(result), policy))
        .collect()
}

/// Runs a consumer against every case of a matrix and compares each record with its
/// snapshot in `snapshots`, as insta does (see [`snapshot`]: `INSTA_UPDATE`, `CI`,
/// `INSTA_FORCE_PASS`; `cargo insta review` takes the new ones).
pub fn check_matrix(
    consumer: &Consumer,
    matrix: &Matrix,
    properties: &Properties,
    mock: &Path,
    snapshots: &Path,
) -> Result<Vec<CaseResult>, MatrixFailure> {
    let policy = snapshot::Policy::from_env().map_err(MatrixFailure::of)?;
    let cases = matrix
        .cases(consumer.command.contains("{format}"))
        .map_err(|e| MatrixFailure::of(e.to_string()))?;
    let jobs = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    let results = run_all(consumer, &cases, mock, properties, jobs, |_| {})
        .map_err(|e| MatrixFailure::of(e.to_string()))?;
    let checked = check_snapshots(&results, snapshots, &policy)
        .map_err(|e| MatrixFailure::of(format!("{}: cannot write the snapshot: {e}", snapshots.display())))?;
    let summary = Summary::new(&results, &checked);
    if summary.passed() {
        return Ok(results);
    }
    Err(MatrixFailure {
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
        snapshots: summary.failing_snapshots().map(|c| c.case.clone()).collect(),
        summary: summary.to_string(),
    })
}

/// [`check_matrix`], panicking with the summary of every broken property and
/// snapshot to review.
#[track_caller]
pub fn assert_matrix(
    consumer: &Consumer,
    matrix: &Matrix,
    properties: &Properties,
    mock: &Path,
    snapshots: &Path,
) {
    if let Err(failure) = check_matrix(consumer, matrix, properties, mock, snapshots) {
        panic!("the consumer `{}` does not cope:\n{failure}", consumer.command);
    }
}
