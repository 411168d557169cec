//! Running a consumer: the program under test, against one case at a time.
//!
//! Each run gets a temporary directory whose `cursor-agent` and `agent` are the mock,
//! first on the consumer's `PATH`; the case's settings go in `MOCK_AGENT_*`
//! variables, and the mock's journal is read back. The consumer runs through `sh -c`
//! in a process group of its own: on timeout the whole group is killed, and processes
//! it leaves behind (a mock still running, say) are found, reported and killed.
//!
//! What the runner adds to a case is kept small, since a matrix is thousands of
//! them: each worker of [`run_all`] runs its cases one after another in one
//! directory, left as new between them (its journal removed); the shell is started by
//! its path (spawned, not forked); the consumer's output is read on the worker's own
//! thread while one thread per worker waits for the consumers' ends; and a property
//! switched off costs nothing.
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
    /// The temporary directory the case ran in, for redaction (removed once the run
    /// is over: [`run_case`] has returned, or [`run_all`]; consecutive cases of a
    /// worker of `run_all` share it).
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

/// Runs the consumer against one case with the mock at `mock`, in a case directory
/// of its own.
pub fn run_case(consumer: &Consumer, case: &Case, mock: &Path) -> Result<Outcome, RunError> {
    Worker::new(consumer, mock).run(case)
}

fn spawn_error(consumer: &Consumer, source: std::io::Error) -> RunError {
    RunError::Spawn {
        command: consumer.command.clone(),
        source,
    }
}

/// The names the mock has in a case's `bin/`.
const AGENT_NAMES: [&str; 2] = ["agent", "cursor-agent"];

/// Where cases run: a temporary directory whose `bin/` holds the mock as
/// `cursor-agent` and `agent` (first on the consumer's `PATH`), and the journal the
/// mock appends to. A worker runs case after case in one, each as if in a fresh one:
/// the journal is removed after each case, and a directory that a case changed
/// otherwise, or that a process of a case may still use, is not used again.
/// (Creating and removing a directory per case costs more than a case's two
/// processes on some file systems.)
struct Workdir {
    dir: tempfile::TempDir,
    bin: PathBuf,
    journal: PathBuf,
    mock: PathBuf,
    /// The consumer's `PATH` last time, and `sh` found on it.
    shell: Option<(std::ffi::OsString, Option<PathBuf>)>,
}

impl Workdir {
    /// A new case directory for the mock at `mock`, removed by [`interrupt`] too.
    /// It is made under the lock [`interrupt`] takes: once the harness is
    /// interrupted no directory is made, and one being made is removed with the
    /// others (the process ends right after, before a worker could remove it).
    fn new(mock: &Path) -> std::io::Result<Workdir> {
        let mut active = active();
        let running = active.as_mut().ok_or_else(interrupted)?;
        let dir = tempfile::Builder::new().prefix("mock-agent-case-").tempdir()?;
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin)?;
        for name in AGENT_NAMES {
            std::os::unix::fs::symlink(mock, bin.join(name))?;
        }
        running.dirs.push(dir.path().to_owned());
        drop(active);
        Ok(Workdir {
            journal: dir.path().join("journal.jsonl"),
            bin,
            dir,
            mock: mock.to_owned(),
            shell: None,
        })
    }

    /// Makes it ready for the next case, as it was new: false when that cannot be
    /// done (the case left a file of its own, or changed `bin/`). The journal is
    /// removed, not emptied: on ext4 a file truncated and written again is flushed
    /// when it is closed (`auto_da_alloc`), and the next truncation waits for that
    /// (several milliseconds, in the mock's time and the runner's), while a file
    /// removed before it was ever written back costs a few microseconds.
    fn reset(&self) -> bool {
        match std::fs::remove_file(&self.journal) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return false,
        }
        names_in(self.dir.path()).is_some_and(|names| names == ["bin"])
            && names_in(&self.bin).is_some_and(|names| names == AGENT_NAMES)
            && AGENT_NAMES
                .iter()
                .all(|name| std::fs::read_link(self.bin.join(name)).is_ok_and(|to| to == self.mock))
    }

    /// `sh` as a consumer with this `PATH` finds it (see [`find_shell`]).
    fn shell(&mut self, path: &std::ffi::OsStr) -> Option<PathBuf> {
        match &self.shell {
            Some((cached, shell)) if cached == path => shell.clone(),
            _ => {
                let shell = find_shell(path);
                self.shell = Some((path.to_owned(), shell.clone()));
                shell
            }
        }
    }
}

impl Drop for Workdir {
    /// Removes the directory under the lock [`interrupt`] takes, for the same reason
    /// as [`Workdir::new`] makes it so.
    fn drop(&mut self) {
        let mut active = active();
        remove_dir(self.dir.path());
        if let Some(running) = active.as_mut() {
            running.dirs.retain(|d| d != self.dir.path());
        }
    }
}

/// The names in a directory, sorted.
fn names_in(dir: &Path) -> Option<Vec<String>> {
    let mut names = std::fs::read_dir(dir)
        .ok()?
        .map(|entry| entry.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Option<Vec<String>>>()?;
    names.sort();
    Some(names)
}

/// The `sh` that `execvp` would run with this `PATH`: the first executable file
/// `sh` in its directories; `None` when a directory is relative or empty (the
/// consumer's working directory decides) or none has one. The consumer's shell is
/// started by this path, so that it is spawned rather than forked (the standard
/// library forks a command whose program it must find on a `PATH` of the child's
/// own, and a fork costs more the more the harness holds).
fn find_shell(path: &std::ffi::OsStr) -> Option<PathBuf> {
    for dir in std::env::split_paths(path) {
        if !dir.is_absolute() {
            return None;
        }
        let shell = dir.join("sh");
        if shell.is_file() && nix::unistd::access(&shell, nix::unistd::AccessFlags::X_OK).is_ok() {
            return Some(shell);
        }
    }
    None
}

/// Runs the consumer against one case in `workdir`, its end waited for by `reaper`.
fn run_in(
    consumer: &Consumer,
    case: &Case,
    workdir: &mut Workdir,
    reaper: &child::Reaper,
    scratch: &mut Vec<u8>,
) -> Result<Outcome, RunError> {
    let spawn_error = |source| spawn_error(consumer, source);
    let agent = workdir.bin.join("cursor-agent");
    let command = consumer
        .command
        .replace("{mock}", &agent.display().to_string())
        .replace("{format}", case.format.as_str());
    // The consumer's PATH: the mock first, then the harness's (unless the consumer
    // sets its own).
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![workdir.bin.clone()];
    paths.extend(std::env::split_paths(&inherited));
    let path = std::env::join_paths(paths).unwrap_or(inherited);
    let final_path = consumer
        .env
        .iter()
        .rev()
        .find(|(name, _)| name == "PATH")
        .map(|(_, value)| std::ffi::OsString::from(value))
        .or_else(|| (consumer.mock_env.as_deref() == Some("PATH")).then(|| agent.clone().into()))
        .unwrap_or_else(|| path.clone());
    let mut cmd = match workdir.shell(&final_path) {
        Some(shell) => {
            let mut cmd = Command::new(shell);
            cmd.arg0("sh");
            cmd
        }
        None => Command::new("sh"),
    };
    cmd.arg("-c").arg(&command);
    child::without_mock_env(&mut cmd);
    cmd.env("PATH", path);
    cmd.env("MOCK_AGENT_JOURNAL", &workdir.journal);
    for (name, value) in case.env() {
        cmd.env(name, value);
    }
    if let Some(name) = &consumer.mock_env {
        cmd.env(name, &agent);
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
    // The pipe that reads the consumer's end, made before it starts.
    let (end, ended) = std::io::pipe().map_err(spawn_error)?;
    let started = Instant::now();
    let (mut child, _active) = Active::spawn(&mut cmd).map_err(spawn_error)?;
    let group = child.id() as i32;
    // Each stream is read to its end, and the first MAX_OUTPUT bytes kept.
    let mut watch = child::Watch::new(child.stdout.take(), child.stderr.take(), end, MAX_OUTPUT, scratch);
    // Waited for on the reaper's thread, so that its end is seen at once.
    if let Err(mut child) = reaper.watch(child, ended) {
        kill_group(group);
        let _ = child.wait();
        return Err(spawn_error(std::io::Error::other(
            "the thread that waits for consumers ended",
        )));
    }
    let timed_out = !watch.until(started + consumer.timeout, child::Watch::exited);
    let wall = started.elapsed();
    if timed_out {
        stop_group(group, &mut watch);
    }
    let status = match (timed_out, reaper.status()) {
        (true, _) => Status::TimedOut,
        (false, Ok(status)) => match crate::frames::Exit::from_status(status) {
            crate::frames::Exit::Code(code) => Status::Exited(code),
            crate::frames::Exit::Signal(signal) => Status::Signaled(signal.number()),
        },
        (false, Err(_)) => Status::Exited(-1),
    };
    // Whatever the consumer left in its group: given a moment to end, then killed.
    let deadline = Instant::now() + GRACE;
    let mut left_running = group_alive(group);
    while left_running && Instant::now() < deadline {
        watch.until(Instant::now() + Duration::from_millis(5), |_| false);
        left_running = group_alive(group);
    }
    if left_running {
        kill_group(group);
    }
    // A process that left the group may still hold the pipes open: it is not waited
    // for, and counts as left running (and what came on that stream is dropped).
    for which in [child::Which::Stdout, child::Which::Stderr] {
        watch.until(Instant::now() + GRACE, |w| w.closed(which));
    }
    let [stdout, stderr] = watch.into_output();
    left_running |= stdout.is_none() || stderr.is_none();
    let journal = journal::read(&workdir.journal).unwrap_or_default();
    Ok(Outcome {
        status,
        stdout: stdout.unwrap_or_default(),
        stderr: stderr.unwrap_or_default(),
        wall,
        journal,
        left_running: left_running && status != Status::TimedOut,
        dir: workdir.dir.path().to_owned(),
    })
}

/// Runs cases one after another, each in a case directory that the cases before
/// left as new (see [`Workdir`]), their ends waited for by one thread.
struct Worker<'a> {
    consumer: &'a Consumer,
    mock: &'a Path,
    workdir: Option<Workdir>,
    reaper: Option<child::Reaper>,
    /// The buffer the consumer's streams are read through.
    scratch: Vec<u8>,
}

impl<'a> Worker<'a> {
    fn new(consumer: &'a Consumer, mock: &'a Path) -> Self {
        Worker {
            consumer,
            mock,
            workdir: None,
            reaper: None,
            scratch: Vec::new(),
        }
    }

    /// Runs the consumer against `case`: in the directory of the case before when it
    /// can be used again, else in a new one.
    fn run(&mut self, case: &Case) -> Result<Outcome, RunError> {
        let spawn_error = |source| spawn_error(self.consumer, source);
        let reaper = match self.reaper.take() {
            Some(reaper) => reaper,
            None => child::Reaper::new().map_err(spawn_error)?,
        };
        let mut workdir = match self.workdir.take() {
            Some(workdir) => workdir,
            None => Workdir::new(self.mock).map_err(spawn_error)?,
        };
        let outcome = run_in(self.consumer, case, &mut workdir, &reaper, &mut self.scratch)?;
        self.reaper = Some(reaper);
        // Nothing of the case may still be running to use its directory again.
        let over = outcome.status != Status::TimedOut && !outcome.left_running;
        if over && workdir.reset() {
            self.workdir = Some(workdir);
        }
        Ok(outcome)
    }
}

/// What an interrupted harness kills and removes ([`interrupt`]): the process groups
/// of the consumers running now, and the case directories.
#[derive(Debug)]
struct Running {
    groups: Vec<i32>,
    dirs: Vec<PathBuf>,
}

/// `None` once the harness is interrupted: no consumer starts after that.
static ACTIVE: std::sync::Mutex<Option<Running>> = std::sync::Mutex::new(Some(Running {
    groups: Vec::new(),
    dirs: Vec::new(),
}));

fn active() -> std::sync::MutexGuard<'static, Option<Running>> {
    ACTIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn interrupted() -> std::io::Error {
    std::io::Error::other("the harness was interrupted")
}

/// A running consumer's place in [`ACTIVE`], for as long as it runs.
struct Active(i32);

impl Active {
    /// Starts the consumer and registers it at once, under the lock that
    /// [`interrupt`] takes: a consumer is either killed by it or never started.
    fn spawn(cmd: &mut Command) -> std::io::Result<(std::process::Child, Active)> {
        let mut active = active();
        let running = active.as_mut().ok_or_else(interrupted)?;
        let child = cmd.spawn()?;
        let group = child.id() as i32;
        running.groups.push(group);
        Ok((child, Active(group)))
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        if let Some(running) = active().as_mut() {
            running.groups.retain(|group| *group != self.0);
        }
    }
}

/// Kills every running consumer's process group and removes the case directories:
/// what a harness does when it is interrupted (SIGINT, SIGTERM), since consumers run
/// in groups of their own that the terminal's signal does not reach.
///
/// It holds the lock that starting a consumer and making or removing a case
/// directory take until it is done: a worker that finds the harness interrupted
/// finds every consumer killed and every directory removed, and the process can end.
pub fn interrupt() {
    let mut active = active();
    let Some(running) = active.take() else {
        return;
    };
    for group in running.groups {
        kill_group(group);
    }
    for dir in running.dirs {
        remove_dir(&dir);
    }
}

/// Removes a case directory that a process being killed may still write to (its
/// journal): a removal that meets an entry just made is tried again, so that the
/// process can end right after without leaving the directory behind.
fn remove_dir(dir: &Path) {
    for _ in 0..5 {
        match std::fs::remove_dir_all(dir) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(_) => return,
        }
    }
}

/// Stops a consumer that ran out of time: SIGTERM to its group first, so that the
/// mocks it runs end as a signalled agent does (and write their journal), then
/// SIGKILL to whatever is left after [`TERM_GRACE`]. Its streams are read meanwhile.
fn stop_group(group: i32, watch: &mut child::Watch<'_>) {
    use nix::sys::signal::{killpg, Signal};
    let _ = killpg(nix::unistd::Pid::from_raw(group), Signal::SIGTERM);
    watch.until(Instant::now() + TERM_GRACE, child::Watch::exited);
    let deadline = Instant::now() + TERM_GRACE;
    while Instant::now() < deadline && group_alive(group) {
        watch.until(Instant::now() + Duration::from_millis(2), |_| false);
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
    let check = |case: &Case, outcome: Outcome| {
        let verdicts = properties.check(case, &outcome);
        CaseResult {
            case: case.clone(),
            outcome,
            verdicts,
        }
    };
    let jobs = jobs.clamp(1, cases.len().max(1));
    if jobs == 1 {
        // On this thread: no worker to hand each result over.
        let mut worker = Worker::new(consumer, mock);
        let mut results = Vec::with_capacity(cases.len());
        for case in cases {
            let result = check(case, worker.run(case)?);
            progress(&result);
            results.push(result);
        }
        return Ok(results);
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let sender = sender.clone();
            let (next, check) = (&next, &check);
            scope.spawn(move || {
                let mut worker = Worker::new(consumer, mock);
                loop {
                    let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(case) = cases.get(index) else {
                        break;
                    };
                    let result = worker.run(case).map(|outcome| check(case, outcome));
                    if sender.send((index, result)).is_err() {
                        break;
                    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::OutputFormat;

    /// A journal line as the mock writes it, the least of one.
    const ENTRY: &str = r#"{"pid":1,"argv":[],"prompt":null,"stdin":null,"cwd":null,"output_format":null,"stream_partial_output":false,"source":null,"exit":{"code":0},"stdout_closed":false,"error":null,"started_at_ms":0,"ended_at_ms":0}"#;

    fn cases(n: usize) -> Vec<Case> {
        (0..n)
            .map(|i| {
                Case::new(
                    CaseSource::Default,
                    OutputFormat::StreamJson,
                    "",
                    format!("case-{i}"),
                )
                .expect("a case")
            })
            .collect()
    }

    /// A consumer that lists its case directory (the parent of `{mock}`'s directory),
    /// writes one journal entry as the mock would, then runs `rest`.
    fn lister(rest: &str) -> Consumer {
        Consumer::new(format!(
            "d=$(dirname \"$(dirname {{mock}})\"); ls \"$d\"; echo '{ENTRY}' >> \"$MOCK_AGENT_JOURNAL\"; {rest}"
        ))
    }

    fn run(consumer: &Consumer, n: usize) -> Vec<CaseResult> {
        run_all(
            consumer,
            &cases(n),
            Path::new("/bin/true"),
            &Properties::new(),
            1,
            |_| {},
        )
        .expect("runs")
    }

    #[test]
    fn a_worker_runs_its_cases_in_one_directory_each_as_new() {
        let results = run(&lister("true"), 3);
        for result in &results {
            let outcome = &result.outcome;
            assert_eq!(
                String::from_utf8_lossy(&outcome.stdout),
                "bin\n",
                "{}",
                result.case.name
            );
            assert_eq!(
                outcome.journal.len(),
                1,
                "only the case's own journal: {}",
                result.case.name
            );
            assert_eq!(
                outcome.dir, results[0].outcome.dir,
                "one directory for the worker"
            );
        }
        assert!(!results[0].outcome.dir.exists(), "removed once the run is over");
    }

    #[test]
    fn a_directory_a_case_left_a_file_in_is_not_used_again() {
        let results = run(&lister("touch \"$d/left-behind\""), 3);
        for result in &results {
            assert_eq!(
                String::from_utf8_lossy(&result.outcome.stdout),
                "bin\n",
                "{}",
                result.case.name
            );
            assert_eq!(result.outcome.journal.len(), 1);
        }
        let dirs: std::collections::BTreeSet<&PathBuf> = results.iter().map(|r| &r.outcome.dir).collect();
        assert_eq!(dirs.len(), 3, "a new directory after each case");
    }

    #[test]
    fn output_is_read_to_its_end_while_the_consumer_runs() {
        // 200 kB on stdout and stderr each, more than a pipe holds, while the consumer
        // is still running.
        let consumer = Consumer::new("head -c 200000 /dev/zero; head -c 200000 /dev/zero >&2; exit 3");
        let result = &run(&consumer, 1)[0];
        assert_eq!(result.outcome.status, Status::Exited(3));
        assert_eq!(result.outcome.stdout.len(), 200_000);
        assert_eq!(result.outcome.stderr.len(), 200_000);
        assert!(!result.outcome.left_running);
    }

    #[test]
    fn a_case_that_times_out_is_stopped_and_its_directory_not_used_again() {
        let consumer = Consumer::new("sleep 30").timeout(Duration::from_millis(100));
        let results = run(&consumer, 2);
        for result in &results {
            assert_eq!(result.outcome.status, Status::TimedOut);
            assert!(!result.passed(), "`ends` is broken");
        }
        assert_ne!(results[0].outcome.dir, results[1].outcome.dir);
    }

    #[test]
    fn the_shell_is_found_as_exec_would_find_it() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let (plain, runnable) = (dir.path().join("plain"), dir.path().join("runnable"));
        for (sub, mode) in [(&plain, 0o644), (&runnable, 0o755)] {
            std::fs::create_dir(sub).expect("mkdir");
            std::fs::write(sub.join("sh"), "").expect("writes");
            std::fs::set_permissions(sub.join("sh"), std::fs::Permissions::from_mode(mode)).expect("chmod");
        }
        let path = |dirs: &[&Path]| std::env::join_paths(dirs).expect("joins");
        assert_eq!(
            find_shell(&path(&[dir.path(), &plain, &runnable])),
            Some(runnable.join("sh")),
            "a file that is not executable is passed over, as execvp does"
        );
        assert_eq!(
            find_shell(&path(&[Path::new("relative"), &runnable])),
            None,
            "a relative directory first: left to exec"
        );
        assert_eq!(find_shell(&path(&[dir.path()])), None, "none at all");
    }
}
