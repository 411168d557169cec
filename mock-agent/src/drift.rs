//! Drift, the process side: a real CLI and its stand-in run on the same scenario.
//!
//! A CLI that can be checked against its real self says so through
//! [`crate::dialects::Cli::drift`]: the model API its real CLI talks to, the scenarios
//! (what that API answers, and the stand-in's equivalent: its own session, its
//! presets), the invocations (the argv, stdin and environment its users start it
//! with), and its curated cassette. Here is what runs them:
//!
//! - the real CLI, through `mock-agent record` (so each run is a cassette, with the
//!   version the CLI reports), against a [`Server`] playing the scenario, in a scratch
//!   folder with its own `HOME`, with nothing of the caller's environment but `PATH`;
//! - the stand-in, this binary run as the CLI (`mock-agent WORD ARGS`), in a scratch
//!   folder of its own, with the scenario's faults (and the caller's
//!   `MOCK_AGENT_FAULTS`, to see drift fail).
//!
//! An invocation of a CLI that is a server (`codex app-server`, `gemini --acp`) has a
//! [`Script`] instead of a fixed stdin: the same scripted client ([`client`]) drives
//! both sides, the server's requests answered by the scenario's rule (approve or deny).
//!
//! What is the same for every CLI lives here: the prompt, the model API scenarios most
//! tables share ([`api`]), the argv and environment helpers (tests/drift.rs checks that
//! every table's scenarios parse).
//! Comparing the two runs is [`harness::drift`]'s business.

pub mod client;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use harness::drift::Run;
use harness::frames::Exit;
use harness::run::Dialect;

pub use client::Script;

use crate::model_api::{Api, Scenario as ApiScenario, Server};

/// The longest a run may take before its process group is killed.
const PATIENCE: Duration = Duration::from_secs(120);

/// The prompt of every case (the scripted API answers whatever is asked).
pub const PROMPT: &str = "Do what the script says.";

/// The model API scenarios the tables share (JSON, [`crate::model_api::scenario`]).
pub mod api {
    /// One text answer.
    pub const TEXT: &str = r#"{"steps": [{"text": "Hello."}]}"#;
    /// A text and a shell call of `echo hello` whose result is read back, then a text.
    pub const SHELL: &str = r#"{"steps": [{"text": "I'll run a command.", "tool": {"shell": "echo hello"}}, {"text": "The command printed hello."}]}"#;
    /// HTTP 401.
    pub const HTTP_401: &str = r#"{"steps": [{"error": {"status": 401, "retry_after": 0}}]}"#;
    /// HTTP 429, `retry-after: 0`.
    pub const HTTP_429: &str = r#"{"steps": [{"error": {"status": 429, "retry_after": 0}}]}"#;
    /// A text whose stream ends before its closing events.
    pub const STREAM_CUT: &str = r#"{"steps": [{"text": "Half an answer", "end": "cut"}]}"#;
}

/// A message a scenario's client sends when a notification comes: the notification's
/// method, and what makes the message.
pub type SendOn = (&'static str, fn() -> serde_json::Value);

/// A scenario: what the model API answers the real CLI, and what the stand-in plays
/// instead.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    /// Its name (`--scenario NAME`, the first part of a case's name).
    pub name: &'static str,
    /// What it is, in a few words.
    pub about: &'static str,
    /// The model API's scenario (JSON, [`crate::model_api::scenario`]).
    pub model_api: &'static str,
    /// The stand-in's equivalent: its faults (`MOCK_AGENT_FAULTS`), empty for its
    /// default session.
    pub stand_in_faults: &'static str,
    /// What the client of a conversation sends when the server sends a notification:
    /// `(METHOD, MESSAGE)`, the message (`$NAME` filled in as in the script's) sent
    /// once, at the first notification of that method (`turn/interrupt` once the
    /// answer streams). None for a one-way CLI.
    pub on: &'static [SendOn],
    /// How the client of a conversation answers the server's requests in this
    /// scenario, by method: the result (JSON), before the script's own answers
    /// (`{"decision":"decline"}` to deny an approval). None for a one-way CLI.
    pub answers: &'static [(&'static str, &'static str)],
}

impl Scenario {
    /// A scenario answering the server's requests as the script does.
    pub const fn new(
        name: &'static str,
        about: &'static str,
        model_api: &'static str,
        stand_in_faults: &'static str,
    ) -> Scenario {
        Scenario {
            name,
            about,
            model_api,
            stand_in_faults,
            answers: &[],
            on: &[],
        }
    }

    /// The same, its client answering the server's requests so (by method: the result).
    pub const fn answering(self, answers: &'static [(&'static str, &'static str)]) -> Scenario {
        Scenario { answers, ..self }
    }

    /// The same, its client sending each message once the server sends the
    /// notification named with it.
    pub const fn sending_on(self, on: &'static [SendOn]) -> Scenario {
        Scenario { on, ..self }
    }
}

/// `argv` owned.
pub fn owned(argv: &[&str]) -> Vec<String> {
    argv.iter().map(|a| (*a).to_owned()).collect()
}

/// `pairs` owned (an environment).
pub fn owned_env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// How the CLI's users start it: a case is a scenario under an invocation.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// Its name (`sdk`, `print`: the second part of a case's name).
    pub name: &'static str,
    /// The arguments (without the program).
    pub argv: Vec<String>,
    /// What is written on stdin before it is closed.
    pub stdin: Vec<u8>,
    /// The environment set besides `PATH` and `HOME` (the SDK's variables).
    pub env: Vec<(&'static str, &'static str)>,
    /// The client that drives a server instead of `stdin` (`codex app-server`, `gemini
    /// --acp`): its messages, how it answers.
    pub client: Option<Script>,
}

impl Invocation {
    /// A one-way invocation: `argv`, `stdin` written and closed, `env`.
    pub fn new(
        name: &'static str,
        argv: &[&str],
        stdin: &[u8],
        env: &[(&'static str, &'static str)],
    ) -> Self {
        Invocation {
            name,
            argv: owned(argv),
            stdin: stdin.to_vec(),
            env: env.to_vec(),
            client: None,
        }
    }

    /// A conversation: `argv`, `env`, the server driven by `script`.
    pub fn conversation(
        name: &'static str,
        argv: &[&str],
        env: &[(&'static str, &'static str)],
        script: Script,
    ) -> Self {
        Invocation {
            client: Some(script),
            ..Invocation::new(name, argv, b"", env)
        }
    }
}

/// The case whose real run is the curated cassette (`--update`).
#[derive(Debug, Clone, Copy)]
pub struct Curated {
    /// The scenario.
    pub scenario: &'static str,
    /// The invocation.
    pub invocation: &'static str,
    /// The cassette, from the project's root.
    pub path: &'static str,
}

/// What drift needs of a CLI ([`crate::dialects::Cli::drift`]): one mode of it
/// (`codex exec --json`, `codex app-server`).
pub trait Drift: Sync {
    /// The dialect it checks (`--dialect NAME`).
    fn dialect(&self) -> &'static dyn Dialect;

    /// The model API its real CLI talks to.
    fn api(&self) -> Api;

    /// The environment that points the real CLI at `base_url`, with a made-up key
    /// and everything that would reach the network turned off.
    fn real_env(&self, base_url: &str) -> Vec<(String, String)>;

    /// Arguments given the real CLI before the invocation's, when an environment
    /// variable cannot point it at `base_url` (Codex's `-c model_providers...`); none
    /// by default. The stand-in does not get them.
    fn real_args(&self, base_url: &str) -> Vec<String> {
        let _ = base_url;
        Vec::new()
    }

    /// Its scenarios, in the order they run.
    fn scenarios(&self) -> &'static [Scenario];

    /// Its invocations.
    fn invocations(&self) -> Vec<Invocation>;

    /// Its curated cassette, re-recorded from the real CLI by `--update`.
    fn curated(&self) -> Curated;

    /// Its committed allow-list, from the project's root.
    fn allow_list(&self) -> &'static str;
}

/// Why a run could not be made (not a difference: the drift check cannot go on).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DriftError {
    /// The scenario's JSON is not a model API scenario (a bug of the CLI's table).
    #[error("the scenario `{name}` is not a model API scenario: {message}")]
    Scenario {
        /// The scenario.
        name: &'static str,
        /// Why.
        message: String,
    },
    /// `mock-agent record` failed (not the real CLI).
    #[error("recording the real CLI to {} failed: {message}", cassette.display())]
    Record {
        /// The cassette.
        cassette: PathBuf,
        /// The recorder's error.
        message: String,
    },
    /// The model API could not listen, a scratch folder could not be made, or a
    /// process could not be started.
    #[error("cannot {what}")]
    Io {
        /// What could not be done.
        what: String,
        /// Why.
        source: std::io::Error,
    },
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> DriftError {
    let what = what.into();
    move |source| DriftError::Io { what, source }
}

/// A scratch folder: `HOME` at its root, the working folder `project` in it (so that
/// a recording with `--redact-home` says `~/project`).
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Result<Scratch, DriftError> {
        let dir = tempfile::Builder::new()
            .prefix("mock-agent-drift")
            .tempdir()
            .map_err(io("make a scratch folder"))?;
        std::fs::create_dir(dir.path().join("project")).map_err(io("make a scratch folder"))?;
        Ok(Scratch { dir })
    }

    fn home(&self) -> &Path {
        self.dir.path()
    }

    fn cwd(&self) -> PathBuf {
        self.dir.path().join("project")
    }
}

/// `COMMAND` with a clean environment: only `PATH`, and `HOME` at `scratch`.
fn clean(program: &Path, scratch: &Scratch) -> Command {
    let mut cmd = Command::new(program);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", scratch.home())
        .current_dir(scratch.cwd());
    cmd
}

/// What the real CLI says its version is (`REAL --version`, first line).
pub fn version(real: &Path) -> Result<String, DriftError> {
    let scratch = Scratch::new()?;
    let output = clean(real, &scratch)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(io(format!("run `{} --version`", real.display())))?;
    let text = String::from_utf8_lossy(&output.stdout);
    Ok(text.lines().next().unwrap_or_default().trim().to_owned())
}

/// Runs the real CLI `real` on `scenario` under `invocation`, through `mock-agent
/// record` writing to `cassette` (its home redacted when `curated`).
pub fn run_real(
    drift: &dyn Drift,
    real: &Path,
    scenario: &Scenario,
    invocation: &Invocation,
    cassette: &Path,
    curated: bool,
) -> Result<Run, DriftError> {
    let answers = ApiScenario::parse(scenario.model_api, Path::new(scenario.name)).map_err(|e| {
        DriftError::Scenario {
            name: scenario.name,
            message: e.to_string(),
        }
    })?;
    let server = Server::start(drift.api(), answers).map_err(io("serve the model API on 127.0.0.1"))?;
    let scratch = Scratch::new()?;
    let me = std::env::current_exe().map_err(io("find mock-agent's own binary"))?;
    let mut cmd = clean(&me, &scratch);
    cmd.args(["record", "--no-progress", "--cli-version", "--out"])
        .arg(cassette);
    if curated {
        cmd.arg("--redact-home");
    }
    cmd.arg("--")
        .arg(real)
        .args(drift.real_args(server.base_url()))
        .args(&invocation.argv);
    cmd.envs(drift.real_env(server.base_url()))
        .envs(invocation.env.iter().copied());
    let run = run_case(cmd, scenario, invocation, &scratch)?;
    // The recorder's own error (the real CLI never says `mock-agent:`).
    match &run.ending.stderr_first {
        Some(line) if line.starts_with("mock-agent: ") => Err(DriftError::Record {
            cassette: cassette.to_owned(),
            message: line.trim_start_matches("mock-agent: ").to_owned(),
        }),
        _ => Ok(run),
    }
}

/// Runs the stand-in (this binary as the CLI `word`) on `scenario` under
/// `invocation`, with the scenario's faults and `more_faults`.
pub fn run_stand_in(
    word: &str,
    scenario: &Scenario,
    invocation: &Invocation,
    more_faults: Option<&str>,
) -> Result<Run, DriftError> {
    let scratch = Scratch::new()?;
    let me = std::env::current_exe().map_err(io("find mock-agent's own binary"))?;
    let mut cmd = clean(&me, &scratch);
    cmd.arg(word)
        .args(&invocation.argv)
        .envs(invocation.env.iter().copied());
    let faults: Vec<&str> = [Some(scenario.stand_in_faults), more_faults]
        .into_iter()
        .flatten()
        .filter(|f| !f.trim().is_empty())
        .collect();
    if !faults.is_empty() {
        cmd.env("MOCK_AGENT_FAULTS", faults.join(";"));
    }
    run_case(cmd, scenario, invocation, &scratch)
}

/// Runs `cmd` as the invocation says: driven by its client, or with its stdin.
fn run_case(
    cmd: Command,
    scenario: &Scenario,
    invocation: &Invocation,
    scratch: &Scratch,
) -> Result<Run, DriftError> {
    let Some(script) = &invocation.client else {
        return run(cmd, &invocation.stdin);
    };
    let parsed = |pairs: &[(&str, &str)], what: &str| {
        pairs
            .iter()
            .map(|(method, json)| {
                serde_json::from_str(json)
                    .map(|value| ((*method).to_owned(), value))
                    .map_err(|e| DriftError::Scenario {
                        name: scenario.name,
                        message: format!("{what} {method} is not JSON: {e}"),
                    })
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let rules = client::Rules {
        answers: parsed(scenario.answers, "the answer to")?,
        on: scenario
            .on
            .iter()
            .map(|(method, message)| ((*method).to_owned(), message()))
            .collect(),
    };
    client::converse(cmd, script, &rules, &scratch.cwd().display().to_string())
}

/// A child started with its three streams piped, in a process group of its own.
struct Grouped {
    child: std::process::Child,
    /// The group's id: the child's.
    pid: nix::unistd::Pid,
    /// The program, as errors name it.
    shown: String,
}

impl Grouped {
    /// Starts `cmd`.
    fn spawn(cmd: &mut Command) -> Result<Grouped, DriftError> {
        use std::os::unix::process::CommandExt;
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let shown = format!("{:?}", cmd.get_program());
        let child = cmd.spawn().map_err(io(format!("start {shown}")))?;
        let pid = nix::unistd::Pid::from_raw(child.id() as i32);
        Ok(Grouped { child, pid, shown })
    }

    /// Waits for the child until `deadline`, then kills what it left running (its
    /// group, the child with it when it has not ended, which is then reaped): how it
    /// ended, `None` when it did not by then.
    fn end_by(&mut self, deadline: Instant) -> Result<Option<std::process::ExitStatus>, DriftError> {
        let status = loop {
            let waited = self.child.try_wait();
            if let Some(status) = waited.map_err(io(format!("wait for {}", self.shown)))? {
                break Some(status);
            }
            if Instant::now() > deadline {
                break None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let _ = nix::sys::signal::killpg(self.pid, nix::sys::signal::Signal::SIGKILL);
        if status.is_none() {
            let _ = self.child.wait();
        }
        Ok(status)
    }
}

/// Runs `cmd` with `stdin` written and closed, in a process group of its own that is
/// killed after [`PATIENCE`]; its output and ending.
fn run(mut cmd: Command, stdin: &[u8]) -> Result<Run, DriftError> {
    let mut grouped = Grouped::spawn(&mut cmd)?;
    let child = &mut grouped.child;
    let mut input = child.stdin.take();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(input) = input.as_mut() {
            // A CLI that exits before reading closes the pipe: not our error.
            let _ = input.write_all(&stdin);
        }
    });
    let readers = [
        child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
        child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
    ]
    .map(|stream| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut stream) = stream {
                let _ = stream.read_to_end(&mut bytes);
            }
            bytes
        })
    });
    // What the CLI left running goes with its group.
    let status = grouped.end_by(Instant::now() + PATIENCE)?;
    let _ = writer.join();
    let [stdout, stderr] = readers.map(|r| r.join().unwrap_or_default());
    Ok(Run::from_output(&stdout, &stderr, status.map(Exit::from_status)))
}
