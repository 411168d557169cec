//! Running a consumer: the program under test, against one case at a time.
//!
//! Each run gets a temporary directory whose `bin/` holds the mock under the dialect's
//! names (`claude`, `cursor-agent` and `agent`, ...), first on the consumer's `PATH`;
//! the case's settings go in `MOCK_AGENT_*` variables and in `bin/.mock-agent.env`
//! (for consumers that pass the agent an allow-listed environment: see
//! [`crate::journal::settings`]), and the mock's journal is read back. A case whose
//! consumer never ran the agent, or whose agent did not get the case's settings, is
//! not run ([`CaseResult::not_run`]): no verdict is given on it. The consumer runs through `sh -c`
//! in a process group of its own: on timeout the whole group is killed, and processes
//! it leaves behind (a mock still running, say) are found, reported and killed.
//!
//! What the runner adds to a case is kept small, since a matrix is thousands of
//! them: each worker of [`Runner::run_all`] runs its cases one after another in one
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
//! the [`Runner`] at it, e.g. with `MOCK_AGENT_BIN`; [`mock_binary`] looks there,
//! then for `mock-agent` on `PATH`.
//!
//! # Interrupting a run
//!
//! The runner keeps no state of its own between runs: a caller that must stop a run
//! (a process on SIGINT) gives the [`Runner`] a [`Cancel`] and calls
//! [`Cancel::interrupt`].

mod assert;
mod cancel;
pub mod child;
pub mod dialect;
#[cfg(feature = "generate")]
pub mod fuzz;
#[cfg(feature = "generate")]
pub mod generator;
pub mod html;
pub mod lines;
pub mod matrix;
mod node;
mod outcome;
pub mod properties;
mod python;
mod ran;
pub mod report;
pub mod repro;
pub mod snapshot;
mod stray;
pub mod summary;
pub mod trials;
mod workdir;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::expect::Expectation;
use crate::journal;

pub use assert::{assert_matrix, check_snapshots, try_matrix, MatrixError, MatrixFailure};
pub use cancel::Cancel;
pub use dialect::{Dialect, Generated, Label, OwnObject};
pub use matrix::{Case, CaseSource, Matrix};
pub use node::NodeEnd;
pub use properties::{Properties, Property, UnknownProperty, Verdict};
pub use python::PythonEnd;
pub use ran::{NotRun, CASE_SETTINGS};
pub use stray::Leftover;
pub use summary::{cases_counted, Flaky, Summary};

use cancel::kill_group;
use workdir::Workdir;

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

/// The `mock-agent` binary that serves as the agent in each case: a path of its own
/// type, so that it is never passed where another path is meant (the snapshots'
/// directory, say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockBinary(PathBuf);

impl MockBinary {
    /// The binary at this path.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        MockBinary(path.into())
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

/// The `mock-agent` binary: `MOCK_AGENT_BIN`, else `mock-agent` on `PATH`.
pub fn mock_binary() -> Option<MockBinary> {
    if let Some(path) = std::env::var_os("MOCK_AGENT_BIN").filter(|p| !p.is_empty()) {
        return Some(MockBinary::new(path));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("mock-agent"))
        .find(|path| path.is_file())
        .map(MockBinary)
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
    /// The mock's start records: one per time the consumer ran the agent, even when it
    /// was killed before its end (and wrote no journal entry).
    pub starts: Vec<journal::settings::Start>,
    /// Whether processes of the consumer's group were still running after it ended
    /// (they were killed).
    pub left_running: bool,
    /// Which processes of the consumer's group were still running after it ended, as
    /// `/proc` told them before they were killed (empty when none was, or the group
    /// was killed on timeout).
    pub left_processes: Vec<Leftover>,
    /// The agents (the mock's processes, from [`starts`](Outcome::starts)) still
    /// running after the consumer ended, outside its process group (a consumer that
    /// starts the agent in a session of its own and kills only its first process
    /// leaves a relaunched agent's child behind). They were killed.
    pub left_agents: Vec<Leftover>,
    /// How its outermost Python programs ended, as they noted it (`None`: no Python
    /// program ran, or none read the runner's note: see [`PythonEnd`]).
    pub python: Option<PythonEnd>,
    /// Whether its outermost Node.js programs ended only because a top-level `await`
    /// never settled, as they noted it (`None`: no Node.js program took the note).
    pub node: Option<NodeEnd>,
    /// The temporary directory the case ran in, for redaction (removed once the run
    /// is over: [`Runner::run_case`] has returned, or [`Runner::run_all`]; consecutive cases of a
    /// worker of `run_all` share it).
    pub dir: PathBuf,
}

/// An error running a case (not a failure of the consumer: that is in [`Outcome`]).
/// Its message leaves the cause to [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Starting the consumer (its shell) failed.
    #[error("cannot run `{command}`")]
    Spawn {
        /// The consumer's command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// A case's directory, or the fuzzer's scratch directory, cannot be made.
    #[error("cannot make a directory to run the case in")]
    Workdir {
        /// Why.
        source: std::io::Error,
    },
    /// A generated case cannot be written as a cassette, or read back as a case.
    #[error("{}: cannot write the case", path.display())]
    WriteCase {
        /// Where it was written.
        path: PathBuf,
        /// Why.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The search for a failing case stopped (proptest gave up).
    #[error("the search for a failing case stopped: {reason}")]
    Search {
        /// Why.
        reason: String,
    },
    /// The run's [`Cancel`] was interrupted: no consumer is started after that.
    #[error("the run was interrupted")]
    Interrupted,
    /// A case was not run (the consumer never ran the agent, or the agent did not get
    /// the case's settings) where no verdict can stand without it (`fuzz`).
    #[error("{case}: not run: {not_run}")]
    NotRun {
        /// The case.
        case: String,
        /// Why, and what to do.
        not_run: NotRun,
    },
}

impl RunError {
    /// The exit code the binary ends with on this error (see [`crate::exit_codes`]).
    pub fn exit_code(&self) -> i32 {
        use crate::exit_codes;
        match self {
            RunError::Spawn { .. } => exit_codes::CANNOT_RUN,
            RunError::Workdir { .. } | RunError::WriteCase { .. } => exit_codes::CANNOT_CREATE,
            RunError::Search { .. } | RunError::Interrupted => exit_codes::INTERNAL,
            RunError::NotRun { .. } => exit_codes::CASES_NOT_RUN,
        }
    }
}

/// How long processes left in the consumer's group get to end by themselves.
const GRACE: Duration = Duration::from_millis(300);

/// At most this much of the start of each of the consumer's streams is read into
/// memory while a case runs (and its last [`child::TAIL`] bytes past that), what the
/// properties see: a consumer that prints gigabytes costs no more.
pub const MAX_OUTPUT: usize = 4 << 20;

/// Of each stream of a case checked, at most this much of its start (and its last
/// [`child::TAIL`] bytes) is kept in its [`CaseResult`], for the report: a run of
/// thousands of cases holds little of each.
pub const KEPT: usize = 64 << 10;

fn spawn_error(consumer: &Consumer, source: std::io::Error) -> RunError {
    RunError::Spawn {
        command: consumer.command.clone(),
        source,
    }
}

/// The name the consumer runs the mock by in a case of `dialect` (`{mock}`): the first
/// of its programs.
pub(crate) fn program_of(dialect: &dyn Dialect) -> &'static str {
    dialect.programs().first().copied().unwrap_or("mock-agent")
}

/// Runs the consumer against one case in `workdir`, its end waited for by `reaper`.
fn run_in(
    consumer: &Consumer,
    case: &Case,
    workdir: &mut Workdir,
    reaper: &child::Reaper,
    cancel: &Cancel,
    scratch: &mut Vec<u8>,
) -> Result<Outcome, RunError> {
    let spawn_error = |source| spawn_error(consumer, source);
    let agent = workdir.bin.join(program_of(case.dialect));
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
    // The case's settings, in the environment and beside the mock (for consumers that
    // pass the agent an allow-listed environment).
    let journal_path = workdir.journal.display().to_string();
    let started_path = workdir.started.display().to_string();
    let mut settings = vec![
        ("MOCK_AGENT_JOURNAL".to_owned(), journal_path),
        (journal::settings::STARTED.to_owned(), started_path),
    ];
    settings.extend(ran::handed_out(case, consumer));
    let file = journal::settings::render(settings.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    std::fs::write(&workdir.settings, file).map_err(|source| RunError::Workdir { source })?;
    for (name, value) in &settings {
        cmd.env(name, value);
    }
    // A program that resolves the link it was given runs the mock by its own name.
    if let Some(program) = case.dialect.programs().first() {
        cmd.env(journal::settings::CLI, program);
    }
    for (name, value) in case.dialect.case_env(workdir.dir.path()) {
        cmd.env(name, value);
    }
    if let Some(name) = &consumer.mock_env {
        cmd.env(name, &agent);
    }
    for (name, value) in &consumer.env {
        cmd.env(name, value);
    }
    python::take_note(&mut cmd, &consumer.env, workdir);
    node::take_note(&mut cmd, &consumer.env, &workdir.node_note, &workdir.node_ends);
    // The consumer runs where the harness was started (its paths are the user's), or
    // where it says.
    match &consumer.cwd {
        Some(cwd) => {
            cmd.current_dir(cwd);
        }
        // A folder deleted under the harness: the consumer would start in no folder.
        None => {
            if let Err(e) = std::env::current_dir() {
                if e.kind() == std::io::ErrorKind::NotFound {
                    return Err(spawn_error(std::io::Error::new(
                        e.kind(),
                        format!("the folder it runs in is gone ({e}): run it from a folder that exists"),
                    )));
                }
            }
        }
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.process_group(0);
    // The pipe that reads the consumer's end, made before it starts.
    let (end, ended) = std::io::pipe().map_err(spawn_error)?;
    let started = Instant::now();
    let (mut child, _active) = Active::spawn(&mut cmd, consumer, cancel)?;
    let group = child.id() as i32;
    // Each stream is read to its end, and its first MAX_OUTPUT bytes kept, and its last.
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
    let starts = journal::settings::read_starts(&workdir.started);
    let left_processes = if left_running {
        stray::end_group(group, &starts)
    } else {
        Vec::new()
    };
    left_running = !left_processes.is_empty();
    // The agents the consumer started outside its group and left running: given the
    // same moment, then killed with their groups.
    let left_agents = stray::reap(&starts, workdir.mock(), group, GRACE, &mut watch);
    // A process that left the group may still hold the pipes open: it is not waited
    // for, and counts as left running (and what came on that stream is dropped).
    for which in [child::Which::Stdout, child::Which::Stderr] {
        watch.until(Instant::now() + GRACE, |w| w.closed(which));
    }
    let [stdout, stderr] = watch.into_output();
    left_running |= stdout.is_none() || stderr.is_none();
    let journal = journal::read(&workdir.journal).unwrap_or_default();
    let python = python::read(&std::fs::read(&workdir.python_ends).unwrap_or_default());
    let node = node::read(&std::fs::read(&workdir.node_ends).unwrap_or_default());
    Ok(Outcome {
        python,
        node,
        status,
        stdout: stdout.unwrap_or_default(),
        stderr: stderr.unwrap_or_default(),
        wall,
        journal,
        starts,
        left_running: left_running && status != Status::TimedOut,
        left_processes,
        left_agents,
        dir: workdir.dir.path().to_owned(),
    })
}

/// Runs cases one after another, each in a case directory that the cases before
/// left as new (see [`Workdir`]), their ends waited for by one thread.
struct Worker<'a> {
    consumer: &'a Consumer,
    mock: &'a Path,
    cancel: &'a Cancel,
    workdir: Option<Workdir>,
    reaper: Option<child::Reaper>,
    /// The buffer the consumer's streams are read through.
    scratch: Vec<u8>,
}

impl<'a> Worker<'a> {
    fn new(runner: &'a Runner<'a>) -> Self {
        Worker {
            consumer: runner.consumer,
            mock: runner.mock.path(),
            cancel: &runner.cancel,
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
        let programs = case.dialect.programs();
        let mut workdir = match self.workdir.take() {
            Some(workdir)
                if workdir.names.len() == programs.len()
                    && programs.iter().all(|p| workdir.names.contains(p)) =>
            {
                workdir
            }
            _ => Workdir::new(self.mock, self.cancel, programs)?,
        };
        let outcome = run_in(
            self.consumer,
            case,
            &mut workdir,
            &reaper,
            self.cancel,
            &mut self.scratch,
        )?;
        self.reaper = Some(reaper);
        // Nothing of the case may still be running to use its directory again.
        let over = outcome.status != Status::TimedOut && !outcome.left_running;
        if over && workdir.reset() {
            self.workdir = Some(workdir);
        }
        Ok(outcome)
    }
}

/// A running consumer's place in its run's [`Cancel`], for as long as it runs.
struct Active<'a>(i32, &'a Cancel);

impl<'a> Active<'a> {
    /// Starts the consumer and registers it at once, under the lock that
    /// [`Cancel::interrupt`] takes: a consumer is either killed by it or never started.
    fn spawn(
        cmd: &mut Command,
        consumer: &Consumer,
        cancel: &'a Cancel,
    ) -> Result<(std::process::Child, Active<'a>), RunError> {
        let mut state = cancel.lock();
        let running = state.as_mut().ok_or(RunError::Interrupted)?;
        let child = cmd.spawn().map_err(|source| spawn_error(consumer, source))?;
        let group = child.id() as i32;
        running.add_group(group);
        Ok((child, Active(group, cancel)))
    }
}

impl Drop for Active<'_> {
    fn drop(&mut self) {
        self.1.forget_group(self.0);
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

/// Whether a process of the group is still running. A zombie (dead, not yet reaped
/// by whoever adopted it) does not count: the group is read from `/proc`.
fn group_alive(group: i32) -> bool {
    use nix::sys::signal::killpg;
    killpg(nix::unistd::Pid::from_raw(group), None).is_ok() && !stray::in_group(group).is_empty()
}

/// The expectation of a case, and its verdicts, for one outcome.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// The case.
    pub case: Case,
    /// What the consumer did.
    pub outcome: Outcome,
    /// Each property, held or broken; none when the case was not run.
    pub verdicts: Vec<Verdict>,
    /// Why the case was not run, when it was not: the consumer never ran the agent, or
    /// the agent did not get the case's settings. Such a case neither passes nor fails.
    pub not_run: Option<NotRun>,
    /// Why the case tested nothing beyond the clean run, when it did not: it had
    /// faults, and none acted for this consumer (the journal's `fired`). Such a case
    /// that broke no property neither passes nor fails (see
    /// [`properties::not_applicable`]); one that broke a property failed.
    pub not_applicable: Option<String>,
    /// The line that runs the case again in a shell, outside the harness (see
    /// [`repro`]).
    pub repro: String,
}

impl CaseResult {
    /// Whether the case ran, its faults acted and every property held.
    pub fn passed(&self) -> bool {
        self.not_run.is_none() && self.not_applicable.is_none() && self.verdicts.iter().all(|v| v.held)
    }

    /// Whether the case ran and a property broke.
    pub fn failed(&self) -> bool {
        self.not_run.is_none() && self.verdicts.iter().any(|v| !v.held)
    }
}

/// Runs a consumer against cases: the consumer, the mock that serves as its agent,
/// the properties checked, how many cases run at once, and the handle that stops the
/// run. Options not given keep their defaults: the built-in properties, one case at a
/// time, and a [`Cancel`] that nobody interrupts.
///
/// ```no_run
/// use harness::run::{mock_binary, Consumer, Matrix, Properties, Property, Runner};
///
/// let consumer = Consumer::new("python3 my_bot.py");
/// let mock = mock_binary().expect("mock-agent on PATH, or MOCK_AGENT_BIN");
/// let runner = Runner::new(&consumer, &mock)
///     .properties(Properties::new().without(Property::ReadsToEnd))
///     .jobs(4);
/// let cases = Matrix::standard(Vec::new()).cases(false).expect("the matrix");
/// let results = runner.run_all(&cases, |_| {}).expect("runs");
/// assert!(results.iter().all(|r| r.passed()));
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Runner<'a> {
    consumer: &'a Consumer,
    mock: &'a MockBinary,
    properties: Properties,
    jobs: usize,
    cancel: Cancel,
}

impl<'a> Runner<'a> {
    /// Runs `consumer`, with `mock` as its agent.
    pub fn new(consumer: &'a Consumer, mock: &'a MockBinary) -> Self {
        Runner {
            consumer,
            mock,
            properties: Properties::new(),
            jobs: 1,
            cancel: Cancel::new(),
        }
    }

    /// Checking these properties.
    pub fn properties(mut self, properties: Properties) -> Self {
        self.properties = properties;
        self
    }

    /// Running `jobs` cases at once (at least one).
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs.max(1);
        self
    }

    /// Stopped by this handle: once it is interrupted, the consumers running are
    /// killed, their directories removed, and no case starts.
    pub fn cancel(mut self, cancel: &Cancel) -> Self {
        self.cancel = cancel.clone();
        self
    }

    /// The consumer.
    pub fn consumer(&self) -> &'a Consumer {
        self.consumer
    }

    /// Runs the consumer against one case, in a case directory of its own.
    pub fn run_case(&self, case: &Case) -> Result<Outcome, RunError> {
        Worker::new(self).run(case)
    }

    /// The case's result: its outcome (of each stream, its first [`KEPT`] bytes and
    /// its last [`child::TAIL`] kept), the verdict of each property on it, and the
    /// line that runs it again.
    fn check(&self, case: &Case, mut outcome: Outcome) -> CaseResult {
        // No verdict on a run the mock was not part of; else what a correct consumer
        // concludes from what this run's client did.
        let not_run =
            ran::not_run(case, self.consumer, &outcome).or_else(|| case.dialect.refused(case, &outcome));
        let (case, verdicts) = match not_run {
            Some(_) => (case.clone(), Vec::new()),
            None => self.properties.judge(case, &outcome),
        };
        let not_applicable = properties::not_applicable(&case, &outcome, &verdicts);
        for stream in [&mut outcome.stdout, &mut outcome.stderr] {
            *stream = child::keep(std::mem::take(stream), KEPT);
        }
        let cwd = std::env::current_dir().unwrap_or_default();
        CaseResult {
            repro: repro::line(self.consumer, self.mock, &case, &cwd),
            case,
            outcome,
            verdicts,
            not_run,
            not_applicable,
        }
    }

    /// Runs every case, [`jobs`](Runner::jobs) at a time, checks the properties of
    /// each, and calls `progress` with each result as it comes, as it stands in the
    /// end: `ignores-unknown` is taken back where the source's clean case failed the
    /// same way, and so are the failures of a case whose faults never acted that the
    /// clean case shares (see [`properties`]), so a failed case with faults is told once
    /// its clean case has run.
    pub fn run_all(
        &self,
        cases: &[Case],
        mut progress: impl FnMut(&CaseResult) + Send,
    ) -> Result<Vec<CaseResult>, RunError> {
        let mut settling = properties::Settling::new(cases);
        let mut results: Vec<Option<CaseResult>> = vec![None; cases.len()];
        let mut tell = |told: Vec<(usize, CaseResult)>| {
            for (index, result) in told {
                progress(&result);
                results[index] = Some(result);
            }
        };
        self.run_each(cases, |index, result| tell(settling.arrive(index, result)))?;
        tell(settling.rest());
        Ok(results.into_iter().flatten().collect())
    }

    /// Runs every case, [`jobs`](Runner::jobs) at a time, each judged on its own,
    /// handed to `each` with its index as it comes.
    fn run_each(
        &self,
        cases: &[Case],
        mut each: impl FnMut(usize, CaseResult) + Send,
    ) -> Result<(), RunError> {
        let jobs = self.jobs.clamp(1, cases.len().max(1));
        if jobs == 1 {
            // On this thread: no worker to hand each result over.
            let mut worker = Worker::new(self);
            for (index, case) in cases.iter().enumerate() {
                each(index, self.check(case, worker.run(case)?));
            }
            return Ok(());
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                let sender = sender.clone();
                let next = &next;
                scope.spawn(move || {
                    let mut worker = Worker::new(self);
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(case) = cases.get(index) else {
                            break;
                        };
                        let result = worker.run(case).map(|outcome| self.check(case, outcome));
                        if sender.send((index, result)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            for (index, result) in receiver {
                each(index, result?);
            }
            Ok(())
        })
    }
}

/// What a correct consumer concludes, as text for records.
pub fn describe(expect: &Expectation) -> String {
    match expect {
        Expectation::Success { answer } => format!("success: {answer:?}"),
        Expectation::Failure => "failure".to_owned(),
    }
}

#[cfg(test)]
mod tests;
