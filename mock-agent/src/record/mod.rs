//! Recording: the pipeline backwards. The real CLI runs under a transparent proxy: its
//! stdout and stderr reach the caller unchanged and at once, stdin is passed on, and
//! SIGINT and SIGTERM are forwarded; what passed is written as a cassette, with secrets
//! kept out, and the proxy ends the way the real process ended.
//!
//! Secrets never reach the disk: the values of [`SECRET_ENV`] (`CURSOR_API_KEY`,
//! `ANTHROPIC_API_KEY`, `CODEX_API_KEY`, `OPENAI_API_KEY`, `GEMINI_API_KEY`, ...), `--api-key` and `-H`/`--header`, and any the user names,
//! are replaced by
//! [`MARKER`] in the invocation, stdout and stderr before anything is written; then the
//! bytes are checked again, and the recorder refuses to write if a secret is still
//! there. The cassette is written to a temporary file and linked or renamed into place
//! when the run is over: a recorder that is killed leaves nothing under its name (on
//! Linux nothing at all: see [`harness::cassette::Writer`]). Secrets
//! spelled with JSON escapes (`"sk-\u0031..."`) are found in the decoded strings.
//!
//! The parts, in the order a recording goes through them:
//!
//! - `spawn`: the command, started without `MOCK_AGENT_*`, signals passed on;
//! - `stdin`: the tee of stdin, passed on and kept;
//! - `pump`: one thread a stream, the caller's bytes first, then a bounded queue;
//! - `redact`: [`Redactor`], secrets out, as they are and decoded from JSON escapes;
//! - `cassette`: lines cut, redacted, checked and written, off the caller's path;
//! - `progress`: for a person at a terminal who asked, what passed so far (and where
//!   it is never drawn, and why).

mod cassette;
mod progress;
mod pump;
mod redact;
mod spawn;
mod stdin;

use std::io::IsTerminal;
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::time::Instant;

use harness::error::WriteError;
use harness::frames::{Exit, Stream};

#[cfg(test)]
pub(crate) use cassette::argv;
pub use cassette::{after_command, cli_args, redacted, Recorded, Redact};
pub use redact::Redactor;
pub use spawn::passthrough;

/// What replaces a secret.
pub const MARKER: &str = "[REDACTED]";

/// The POSIX shell body of the executable that records or replays a program's runs
/// for a test's agent of the Python or npm package (`mock-agent record --script`
/// prints it; each package puts the lines that set its variables above it).
pub const SCRIPT: &str = include_str!("record.sh");

/// The environment variables whose values are secrets by default.
pub const SECRET_ENV: &[&str] = &[
    "CURSOR_API_KEY",
    "CURSOR_AUTH_TOKEN",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CODEX_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
];

/// At most this much of stdin is kept in the cassette (all of it is passed on).
pub const MAX_STDIN: usize = 1 << 20;

/// How to record.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RecordOptions {
    /// The cassette to write.
    pub out: PathBuf,
    /// More environment variables whose values are secrets.
    pub secret_env: Vec<String>,
    /// More secret strings.
    pub secrets: Vec<String>,
    /// Replace the home directory by `~`.
    pub redact_home: bool,
    /// Run `COMMAND --version` first and keep what it prints.
    pub cli_version: bool,
    /// Give the command these bytes on stdin (the shim read them already), rather
    /// than passing the recorder's stdin on.
    pub stdin: Option<Vec<u8>>,
    /// Show the progress on stderr, when a person runs the recording at a terminal
    /// and its output goes elsewhere (`mock-agent record` asks; the shim, whose
    /// stderr is the consumer's, never does). See `progress` for where it is drawn.
    pub progress: bool,
}

impl RecordOptions {
    /// Recording to `out`, with the default secrets.
    pub fn new(out: impl Into<PathBuf>) -> Self {
        RecordOptions {
            out: out.into(),
            ..RecordOptions::default()
        }
    }
}

/// An error of the recorder (not of the recorded command: its failure is recorded).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// No command was given.
    #[error("give the command to record after `--`, e.g. `mock-agent record --out x.cassette -- cursor-agent -p hi`")]
    NoCommand,
    /// The command could not be started.
    #[error("cannot run `{command}`: {source}\nhelp: check that it is installed and on PATH")]
    Spawn {
        /// The command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// Writing the cassette failed; nothing is left under its name.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// A secret would have reached the cassette; nothing was written.
    #[error("a secret ({hint}) is still in the {place} after redaction: nothing was written\nhelp: name it with --redact so that it is replaced everywhere")]
    SecretLeft {
        /// Where it was found.
        place: &'static str,
        /// Its first characters.
        hint: String,
    },
}

impl RecordError {
    /// The exit code the binary ends with on this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            RecordError::NoCommand => harness::exit_codes::USAGE,
            RecordError::Spawn { .. } => harness::exit_codes::NO_INPUT,
            RecordError::Write(e) => e.exit_code(),
            RecordError::SecretLeft { .. } => harness::exit_codes::CANNOT_CREATE,
        }
    }
}

/// Records `command` (the program and its arguments) to `options.out`, passing its
/// output through. Returns how the recorded process ended: the proxy ends the same way.
///
/// When the cassette cannot be written (an I/O error, a secret left), the output still
/// passes through to the end of the command, and then the error is returned; nothing
/// is left under the cassette's name.
pub fn record(
    command: &[String],
    options: &RecordOptions,
    recorded: &dyn Recorded,
) -> Result<Exit, RecordError> {
    let (program, argv) = command.split_first().ok_or(RecordError::NoCommand)?;
    cassette::check_folder(&options.out)?;
    let redactor = Redactor::of_process(argv, options);
    let cli_version = options.cli_version.then(|| spawn::cli_version(program)).flatten();
    let stdin_piped = options.stdin.is_some() || !std::io::stdin().is_terminal();
    // Server mode, or Claude Code's stream-json input: a conversation, both
    // directions recorded as they pass.
    let converses = recorded.converses(program, argv);
    let acp = options.stdin.is_none() && converses;
    let halt = pump::Halt::new();
    let mut child = spawn::start(program, argv, stdin_piped, &halt)?;
    let started = Instant::now();
    let acp_stdin = acp.then(|| child.stdin.take()).flatten();
    let kept = if acp {
        stdin::tee(None, None)
    } else {
        stdin::tee(child.stdin.take(), options.stdin.clone())
    };
    // The cassette's file is there before a byte of output passes: a recorder killed
    // once the caller saw output leaves its partial recording behind.
    let invoked = cassette::Invoked {
        argv,
        cli_version,
        recorded,
        converses,
    };
    let recorder = cassette::Recorder::new(&options.out, &redactor, invoked, kept, stdin_piped && !acp);
    let (queue, events) = pump::Queue::new();
    let progress = progress::Progress::start(options.progress && options.stdin.is_none(), acp);
    let events = progress.watch(events);
    // A conversation keeps the order in which messages passed both ways.
    let order = if acp {
        pump::Order::Causal
    } else {
        pump::Order::CallerFirst
    };
    let pumps = [
        pump::start(
            Stream::Stdout,
            child.stdout.take(),
            order,
            started,
            queue.clone(),
            &halt,
        ),
        pump::start(
            Stream::Stderr,
            child.stderr.take(),
            order,
            started,
            queue.clone(),
            &halt,
        ),
    ];
    if acp {
        let ours = std::io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .map(std::fs::File::from);
        let theirs = acp_stdin.map(|s| std::fs::File::from(std::os::fd::OwnedFd::from(s)));
        // Not waited for: the client may keep its end open after the agent ended,
        // and the recording ends with the agent.
        drop(pump::start_to(
            Stream::Stdin,
            ours,
            theirs,
            order,
            started,
            queue.clone(),
            (None, None),
        ));
    }
    let recorded = recorder.and_then(|mut recorder| recorder.run(events, &queue).map(|()| recorder));
    // On an error the queue's end is gone: the pumps pass the output on to its end.
    let exit = spawn::wait(program, &mut child)?;
    let ended = started.elapsed();
    for pump in pumps {
        let _ = pump.join();
    }
    halt.retire();
    progress.finish();
    recorded?.finish(ended, exit)?;
    Ok(exit)
}
