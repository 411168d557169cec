//! The journal: one JSON line per invocation of the mock, appended to the file named
//! by `MOCK_AGENT_JOURNAL`, so a test can check how its program called the agent.
//!
//! ```json
//! {"pid":4242,"argv":["-p","--output-format","json","hi"],"prompt":"hi","stdin":null,"cwd":"/work","output_format":"json","stream_partial_output":false,"source":"default","faults":[{"name":"eof","fired":true}],"seed":0,"exit":{"code":0},"stdout_closed":false,"stdout_closed_at_ms":null,"signal":null,"stdin_open":false,"error":null,"started_at_ms":1790000000000,"ended_at_ms":1790000000003}
//! ```
//!
//! Each line is appended under an exclusive `flock` of the journal, with one `write`
//! on a file opened for appending (a server's conversation in several, streamed from
//! its spool: [`Spooled`]), so the lines of concurrent invocations do not interleave;
//! [`read`] takes a shared lock. Fields may be added; none is removed or renamed
//! within a major version.

pub mod settings;
mod spool;

pub use spool::{append_spooled, Spooled};

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::exit_codes;
use crate::format::OutputFormat;
use crate::frames::Exit;

/// One invocation of the mock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Entry {
    /// The process id of the mock.
    pub pid: u32,
    /// The arguments after the program name.
    pub argv: Vec<String>,
    /// The prompt, from the arguments or stdin; `null` for subcommands.
    pub prompt: Option<String>,
    /// What was read from stdin, when the prompt came from there.
    pub stdin: Option<String>,
    /// The working directory.
    pub cwd: Option<String>,
    /// The `--output-format` in effect; `null` for subcommands.
    pub output_format: Option<OutputFormat>,
    /// Whether `--stream-partial-output` was given.
    pub stream_partial_output: bool,
    /// What was replayed: `default`, or the cassette's path; `null` for subcommands.
    pub source: Option<String>,
    /// The faults, in order, and whether each acted.
    #[serde(default)]
    pub faults: Vec<FaultRecord>,
    /// The seed of random choices.
    #[serde(default)]
    pub seed: u64,
    /// How the mock ended.
    pub exit: ExitRecord,
    /// Whether the consumer closed stdout before the end (a write hit `EPIPE`).
    pub stdout_closed: bool,
    /// When that happened, in milliseconds from the start.
    pub stdout_closed_at_ms: Option<u64>,
    /// The signal (`TERM`, `INT`) that ended the mock, if one did.
    pub signal: Option<String>,
    /// Whether the consumer left the mock's stdin open: `null` when stdin is not a
    /// pipe (a terminal, a file, `/dev/null`).
    pub stdin_open: Option<bool>,
    /// The mock's own error, when it failed (a bad cassette, say).
    pub error: Option<String>,
    /// The agent's CLI refused the command line: what it said on stderr (the real
    /// CLI's argument error, as it words it), and it ran nothing; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<String>,
    /// The final answer the agent told, when the run's own options made it other than
    /// its session's (Codex's `--output-schema`: a message that follows the schema);
    /// absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Server mode (`acp`): the conversation; absent in print mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acp: Option<Conversation>,
    /// Claude Code's dialect (`claude`): the conversation, in both directions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude: Option<Conversation>,
    /// Each of the mock's settings (`MOCK_AGENT_*`) that was set, and where from: the
    /// environment or the settings file (see [`settings`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<settings::Setting>,
    /// The settings file the mock read, if it found one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings_file: Option<String>,
    /// When the mock started, in milliseconds since the Unix epoch.
    pub started_at_ms: u64,
    /// When it ended.
    pub ended_at_ms: u64,
}

impl Entry {
    /// The entry of an invocation that has just started: nothing known yet but its
    /// process, arguments and start.
    pub fn new(pid: u32, argv: Vec<String>, started_at_ms: u64) -> Self {
        Entry {
            pid,
            argv,
            prompt: None,
            stdin: None,
            cwd: None,
            output_format: None,
            stream_partial_output: false,
            source: None,
            faults: Vec::new(),
            seed: 0,
            exit: ExitRecord::Code(0),
            stdout_closed: false,
            stdout_closed_at_ms: None,
            signal: None,
            stdin_open: None,
            error: None,
            rejected: None,
            answer: None,
            acp: None,
            claude: None,
            settings: Vec::new(),
            settings_file: None,
            started_at_ms,
            ended_at_ms: started_at_ms,
        }
    }
}

impl Entry {
    /// Whether the agent ended by itself with a failure (a crash, a recorded death):
    /// it did not exit 0, and no signal from outside ended it.
    pub fn crashed(&self) -> bool {
        self.exit != ExitRecord::Code(0) && self.signal.is_none()
    }
}

/// A conversation in server mode, as the mock saw it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Conversation {
    /// Every message, in both directions, in order.
    pub messages: Vec<MessageRecord>,
    /// What the client answered to each of the agent's requests, and how long it took.
    pub answers: Vec<Answer>,
    /// Where the client did what the recording did not (a request it does not have,
    /// another permission answer, a cancel), and what the mock did.
    pub divergences: Vec<String>,
}

/// [`MessageRecord::dir`] of a client's message.
pub const IN: &str = "in";
/// [`MessageRecord::dir`] of an agent's message.
pub const OUT: &str = "out";
/// [`MessageRecord::dir`] of a line of the agent's stderr.
pub const ERR: &str = "err";

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageRecord {
    /// `in` (the client's), `out` (the agent's) or `err` (a stderr line).
    pub dir: String,
    /// When, in milliseconds from the start.
    pub at_ms: u64,
    /// The line, as text (lossy where it is not UTF-8).
    pub line: String,
}

/// The client's answer to one of the agent's requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The agent's request id, as JSON text.
    pub id: String,
    /// The agent's request method (`session/request_permission`).
    pub method: String,
    /// The client's `result` (or `error`), as sent.
    pub answer: serde_json::Value,
    /// How long the client took, in milliseconds.
    pub after_ms: u64,
}

/// A fault of the run, and whether it acted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultRecord {
    /// Its name, as in `mock-agent faults`.
    pub name: String,
    /// Whether it acted (its placement was reached).
    pub fired: bool,
}

/// How the mock ended: `{"code":N}` or `{"signal":"NAME"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExitRecord {
    /// It exited with this code.
    Code(i32),
    /// It died by this signal.
    Signal(String),
}

impl From<Exit> for ExitRecord {
    fn from(exit: Exit) -> Self {
        match exit {
            Exit::Code(code) => ExitRecord::Code(code),
            Exit::Signal(signal) => ExitRecord::Signal(signal.name().to_owned()),
        }
    }
}

/// The journal file could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot append to the journal {}: {source}\nhelp: check MOCK_AGENT_JOURNAL", path.display())]
pub struct JournalError {
    /// The journal file.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

impl JournalError {
    /// The exit code the binary ends with on this error.
    pub fn exit_code(&self) -> i32 {
        exit_codes::CANNOT_CREATE
    }
}

/// Appends one entry to the journal at `path`.
pub fn append(path: &Path, entry: &Entry) -> Result<(), JournalError> {
    let mut line = serde_json::to_vec(entry).map_err(|e| JournalError {
        path: path.to_owned(),
        source: e.into(),
    })?;
    line.push(b'\n');
    write_locked(path, |out| out.write_all(&line))
}

/// Opens the journal at `path` for appending, locks it (exclusive `flock`; unlocked
/// where the file system has no locks) and has `write` write what it appends through
/// a buffer of a megabyte; what a failed `write` appended is cut off again.
fn write_locked(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<&File>) -> std::io::Result<()>,
) -> Result<(), JournalError> {
    let fail = |source| JournalError {
        path: path.to_owned(),
        source,
    };
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(fail)?;
    let file = lock(file, nix::fcntl::FlockArg::LockExclusive);
    let start = file.metadata().map_err(fail)?.len();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, &*file);
    let written = write(&mut out).and_then(|()| out.flush());
    drop(out);
    if let Err(e) = written {
        let _ = file.set_len(start);
        return Err(fail(e));
    }
    Ok(())
}

/// `file`, locked with `how` until it is dropped; as it is where the file system has
/// no locks.
fn lock(file: File, how: nix::fcntl::FlockArg) -> Locked {
    match nix::fcntl::Flock::lock(file, how) {
        Ok(locked) => Locked::Locked(locked),
        Err((file, _)) => Locked::Unlocked(file),
    }
}

enum Locked {
    Locked(nix::fcntl::Flock<File>),
    Unlocked(File),
}

impl std::ops::Deref for Locked {
    type Target = File;

    fn deref(&self) -> &File {
        match self {
            Locked::Locked(file) => file,
            Locked::Unlocked(file) => file,
        }
    }
}

/// Reads every entry of a journal, for tests.
pub fn read(path: &Path) -> Result<Vec<Entry>, JournalError> {
    let fail = |source| JournalError {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(fail)?;
    let mut text = String::new();
    (&*lock(file, nix::fcntl::FlockArg::LockShared))
        .read_to_string(&mut text)
        .map_err(fail)?;
    text.lines()
        .map(|line| serde_json::from_str(line).map_err(|e| fail(e.into())))
        .collect()
}
