//! Recording: the pipeline backwards. The real CLI runs under a transparent proxy: its
//! stdout and stderr reach the caller unchanged and at once, stdin is passed on, and
//! SIGINT and SIGTERM are forwarded; what passed is written as a cassette, with secrets
//! kept out, and the proxy ends the way the real process ended.
//!
//! Secrets never reach the disk: the values of `CURSOR_API_KEY`, `CURSOR_AUTH_TOKEN`,
//! `--api-key` and `-H`/`--header`, and any the user names, are replaced by
//! [`MARKER`] in the invocation, stdout and stderr before anything is written; then the
//! bytes are checked again, and the recorder refuses to write if a secret is still
//! there. The cassette is written to a temporary file and renamed into place when the
//! run is over: a recorder that is killed leaves nothing under its name.

use std::io::{IsTerminal, Read, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::args;
use harness::cassette::{Header, Invocation, Writer};
use harness::error::WriteError;
use harness::events::Extra;
use harness::frames::{Ending, Exit, Frame, Line, Stream};

/// What replaces a secret.
pub const MARKER: &str = "[REDACTED]";

/// The environment variables whose values are secrets by default.
pub const SECRET_ENV: &[&str] = &["CURSOR_API_KEY", "CURSOR_AUTH_TOKEN"];

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

/// Replaces secrets in bytes, and finds any left.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Each secret, and its JSON-escaped form where that differs.
    secrets: Vec<Vec<u8>>,
    home: Option<Vec<u8>>,
}

impl Redactor {
    /// The secrets of an invocation: the default environment variables and `names`,
    /// `--api-key` and `-H`/`--header` values in `argv`, and `extra` strings.
    pub fn new(
        argv: &[String],
        env: impl Fn(&str) -> Option<String>,
        names: &[String],
        extra: &[String],
    ) -> Self {
        let mut secrets: Vec<String> = Vec::new();
        for name in SECRET_ENV.iter().copied().chain(names.iter().map(String::as_str)) {
            secrets.extend(env(name));
        }
        let mut args = argv.iter();
        while let Some(arg) = args.next() {
            let value = match arg.as_str() {
                "--api-key" | "-H" | "--header" => args.next().cloned(),
                other => other
                    .strip_prefix("--api-key=")
                    .or_else(|| other.strip_prefix("--header="))
                    .or_else(|| other.strip_prefix("-H").filter(|v| !v.is_empty()))
                    .map(str::to_owned),
            };
            if let Some(value) = value {
                // A header's value is the secret; its name is not.
                if let Some((_, secret)) = value.split_once(':') {
                    secrets.push(secret.trim().to_owned());
                    // `Bearer TOKEN`: the token alone is a secret too.
                    secrets.extend(secret.split_whitespace().last().map(str::to_owned));
                }
                secrets.push(value);
            }
        }
        secrets.extend(extra.iter().cloned());
        let mut redactor = Redactor::default();
        for secret in secrets.into_iter().filter(|s| s.len() >= 4) {
            let escaped = serde_json::to_string(&secret).unwrap_or_default();
            let escaped = escaped.trim_matches('"');
            if escaped != secret {
                redactor.secrets.push(escaped.as_bytes().to_vec());
            }
            redactor.secrets.push(secret.into_bytes());
        }
        // Longest first, so that a secret inside another goes with it.
        redactor.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        redactor.secrets.dedup();
        redactor
    }

    /// Also replaces this home directory by `~`.
    #[must_use]
    pub fn home(mut self, home: Option<String>) -> Self {
        self.home = home.filter(|h| h.len() > 1).map(String::into_bytes);
        self
    }

    /// The bytes with every secret replaced.
    pub fn apply(&self, bytes: &[u8]) -> Vec<u8> {
        if self
            .secrets
            .iter()
            .all(|s| memchr::memmem::find(bytes, s).is_none())
            && self
                .home
                .as_ref()
                .is_none_or(|h| memchr::memmem::find(bytes, h).is_none())
        {
            return bytes.to_vec();
        }
        let mut out = bytes.to_vec();
        for secret in &self.secrets {
            out = replace(&out, secret, MARKER.as_bytes());
        }
        if let Some(home) = &self.home {
            out = replace(&out, home, b"~");
        }
        out
    }

    /// The first characters of a secret still in `bytes`, if one is.
    pub fn leak(&self, bytes: &[u8]) -> Option<String> {
        self.secrets
            .iter()
            .find(|s| memchr::memmem::find(bytes, s).is_some())
            .map(|s| {
                let shown: String = String::from_utf8_lossy(s).chars().take(3).collect();
                format!("{shown}…")
            })
    }

    fn apply_str(&self, text: &str) -> String {
        String::from_utf8_lossy(&self.apply(text.as_bytes())).into_owned()
    }
}

fn replace(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    while let Some(i) = memchr::memmem::find(rest, needle) {
        out.extend_from_slice(&rest[..i]);
        out.extend_from_slice(with);
        rest = &rest[i + needle.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// Splits a stream's chunks into lines, each stamped with the time of the chunk that
/// ended it.
#[derive(Debug)]
struct Lines {
    stream: Stream,
    pending: Vec<u8>,
}

impl Lines {
    fn push(&mut self, at: Duration, chunk: &[u8], frames: &mut Vec<Frame>) {
        let mut rest = chunk;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            self.pending.extend_from_slice(&rest[..i]);
            frames.push(Frame::Line(Line {
                at,
                stream: self.stream,
                bytes: std::mem::take(&mut self.pending),
                newline: true,
            }));
            rest = &rest[i + 1..];
        }
        self.pending.extend_from_slice(rest);
    }

    fn finish(&mut self, at: Duration, frames: &mut Vec<Frame>) {
        if !self.pending.is_empty() {
            frames.push(Frame::Line(Line {
                at,
                stream: self.stream,
                bytes: std::mem::take(&mut self.pending),
                newline: false,
            }));
        }
    }
}

enum Event {
    Chunk(Stream, Duration, Vec<u8>),
    Closed(Stream),
}

/// Records `command` (the program and its arguments) to `options.out`, passing its
/// output through. Returns how the recorded process ended: the proxy ends the same way.
pub fn record(command: &[String], options: &RecordOptions) -> Result<Exit, RecordError> {
    let (program, argv) = command.split_first().ok_or(RecordError::NoCommand)?;
    let redactor = Redactor::new(
        argv,
        |name| std::env::var(name).ok().filter(|v| !v.is_empty()),
        &options.secret_env,
        &options.secrets,
    )
    .home(if options.redact_home {
        std::env::var("HOME").ok()
    } else {
        None
    });
    let spawn_error = |source| RecordError::Spawn {
        command: program.clone(),
        source,
    };
    let cli_version = if options.cli_version {
        Command::new(program)
            .arg("--version")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|v| v.lines().next().map(str::to_owned))
    } else {
        None
    };
    let parsed = args::parse(argv).ok();
    let stdin_is_pipe = options.stdin.is_some() || !std::io::stdin().is_terminal();
    let mut child = clean(Command::new(program))
        .args(argv)
        .stdin(if stdin_is_pipe {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(spawn_error)?;
    let started = Instant::now();
    let pid = child.id() as i32;
    forward_signals(pid);
    // Stdin passes through, the first MAX_STDIN bytes kept: it is the prompt when
    // the arguments have none.
    let kept = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let stdin_done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(child.stdin.is_none()));
    if let (true, Some(given)) = (child.stdin.is_some(), &options.stdin) {
        if let Some(mut to_child) = child.stdin.take() {
            let _ = to_child.write_all(given);
        }
        if let Ok(mut kept) = kept.lock() {
            kept.extend_from_slice(&given[..given.len().min(MAX_STDIN)]);
        }
        stdin_done.store(true, std::sync::atomic::Ordering::Release);
    } else if let Some(mut to_child) = child.stdin.take() {
        let (kept, done) = (std::sync::Arc::clone(&kept), std::sync::Arc::clone(&stdin_done));
        std::thread::spawn(move || {
            let mut buf = [0u8; 64 << 10];
            let mut stdin = std::io::stdin().lock();
            while let Ok(n) = stdin.read(&mut buf) {
                if n == 0 || to_child.write_all(&buf[..n]).is_err() {
                    break;
                }
                if let Ok(mut kept) = kept.lock() {
                    let room = MAX_STDIN.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
            }
            done.store(true, std::sync::atomic::Ordering::Release);
        });
    }
    let prompt_in_argv = parsed.as_ref().and_then(args::AgentArgs::prompt).is_some();
    let (sender, receiver) = mpsc::channel();
    let pipe = |stream: Stream, source: Option<Box<dyn Read + Send>>, sender: mpsc::Sender<Event>| {
        let sink = match stream {
            Stream::Stdout => std::io::stdout().as_fd().try_clone_to_owned(),
            Stream::Stderr | Stream::Stdin => std::io::stderr().as_fd().try_clone_to_owned(),
        };
        std::thread::spawn(move || {
            let mut sink = sink.ok().map(std::fs::File::from);
            let Some(mut source) = source else {
                let _ = sender.send(Event::Closed(stream));
                return;
            };
            let mut buf = vec![0u8; 64 << 10];
            loop {
                match source.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        // The caller gets the bytes at once; a caller that went away
                        // stops getting them, and the recording goes on.
                        if let Some(out) = sink.as_mut() {
                            if out.write_all(&buf[..n]).is_err() {
                                sink = None;
                            }
                        }
                        let _ = sender.send(Event::Chunk(stream, started.elapsed(), buf[..n].to_vec()));
                    }
                }
            }
            let _ = sender.send(Event::Closed(stream));
        })
    };
    let out_thread = pipe(
        Stream::Stdout,
        child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
        sender.clone(),
    );
    let err_thread = pipe(
        Stream::Stderr,
        child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
        sender,
    );
    let header_invocation = |stdin: Option<&[u8]>| {
        let mut extra = Extra::new();
        if let Some(stdin) = stdin.filter(|s| !s.is_empty()) {
            extra.insert(
                "stdin".into(),
                serde_json::Value::String(String::from_utf8_lossy(&redactor.apply(stdin)).into_owned()),
            );
        }
        Invocation {
            argv: argv.iter().map(|a| redactor.apply_str(a)).collect(),
            prompt: parsed
                .as_ref()
                .and_then(args::AgentArgs::prompt)
                .map(|p| redactor.apply_str(&p)),
            output_format: parsed.as_ref().map(|a| a.output_format),
            stream_partial_output: parsed.as_ref().is_some_and(|a| a.stream_partial_output),
            cwd: std::env::current_dir()
                .ok()
                .map(|d| redactor.apply_str(&d.display().to_string())),
            acp: false,
            cli_version: cli_version.clone(),
            extra,
        }
    };
    // Frames are kept in memory only until the header is known (stdin is read by
    // then for a prompt on stdin), then streamed to the cassette.
    let mut frames = Vec::new();
    let mut lines = [
        Lines {
            stream: Stream::Stdout,
            pending: Vec::new(),
        },
        Lines {
            stream: Stream::Stderr,
            pending: Vec::new(),
        },
    ];
    let mut writer: Option<Writer> = None;
    let mut open = 2;
    // The two streams are read by two threads: a frame is written when it reaches the
    // recorder, and never before the one written last.
    let mut last = Duration::ZERO;
    let mut check = |frames: &mut Vec<Frame>, writer: &mut Option<Writer>| -> Result<(), RecordError> {
        let Some(w) = writer.as_mut() else { return Ok(()) };
        for frame in frames.drain(..) {
            last = last.max(frame.at());
            let frame = match frame.with_at(last) {
                Frame::Line(mut line) => {
                    if redactor.leak(&line.bytes).is_some() || redactor.home.is_some() {
                        line.bytes = redactor.apply(&line.bytes);
                    }
                    if let Some(hint) = redactor.leak(&line.bytes) {
                        let place = if line.stream == Stream::Stdout {
                            "stdout"
                        } else {
                            "stderr"
                        };
                        return Err(RecordError::SecretLeft { place, hint });
                    }
                    Frame::Line(line)
                }
                other => other,
            };
            w.write(&frame)?;
        }
        Ok(())
    };
    if prompt_in_argv || !stdin_is_pipe {
        writer = Some(create(&options.out, &header_invocation(None), &redactor)?);
    }
    while open > 0 {
        match receiver.recv() {
            Ok(Event::Chunk(stream, at, bytes)) => {
                let index = usize::from(stream == Stream::Stderr);
                lines[index].push(at, &bytes, &mut frames);
                if writer.is_none() && stdin_done.load(std::sync::atomic::Ordering::Acquire) {
                    // The prompt came on stdin, and stdin has ended: the header is known.
                    let stdin = kept.lock().map(|k| k.clone()).unwrap_or_default();
                    writer = Some(create(&options.out, &header_invocation(Some(&stdin)), &redactor)?);
                }
                check(&mut frames, &mut writer)?;
            }
            Ok(Event::Closed(stream)) => {
                let index = usize::from(stream == Stream::Stderr);
                lines[index].finish(started.elapsed(), &mut frames);
                open -= 1;
            }
            Err(_) => break,
        }
    }
    let status = child.wait().map_err(spawn_error)?;
    let _ = out_thread.join();
    let _ = err_thread.join();
    if writer.is_none() {
        // What stdin gave so far (a caller may keep it open past the end).
        let stdin = kept.lock().map(|k| k.clone()).unwrap_or_default();
        writer = Some(create(&options.out, &header_invocation(Some(&stdin)), &redactor)?);
    }
    check(&mut frames, &mut writer)?;
    let at = started.elapsed().max(last);
    let exit = Exit::from_status(status);
    if let Some(mut writer) = writer {
        writer.write(&Frame::End(Ending { at, exit }))?;
        writer.finish()?;
    }
    Ok(exit)
}

/// The command with the caller's environment less every `MOCK_AGENT_*` setting: a
/// mock never records itself by accident.
fn clean(mut command: Command) -> Command {
    harness::run::child::without_mock_env(&mut command);
    command
}

/// Runs the command with the caller's stdin, stdout and stderr (less `MOCK_AGENT_*`
/// settings), recording nothing, and returns how it ended.
pub fn passthrough(command: &[String], stdin: Option<Vec<u8>>) -> Result<Exit, RecordError> {
    let (program, argv) = command.split_first().ok_or(RecordError::NoCommand)?;
    let spawn_error = |source| RecordError::Spawn {
        command: program.clone(),
        source,
    };
    let mut cmd = clean(Command::new(program));
    cmd.args(argv);
    if stdin.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd.spawn().map_err(spawn_error)?;
    forward_signals(child.id() as i32);
    if let (Some(mut to_child), Some(bytes)) = (child.stdin.take(), stdin) {
        let _ = to_child.write_all(&bytes);
    }
    let status = child.wait().map_err(spawn_error)?;
    Ok(Exit::from_status(status))
}

fn create(path: &Path, invocation: &Invocation, redactor: &Redactor) -> Result<Writer, RecordError> {
    let header = Header::new(invocation.clone());
    let text = serde_json::to_string(&header).unwrap_or_default();
    if let Some(hint) = redactor.leak(text.as_bytes()) {
        return Err(RecordError::SecretLeft {
            place: "invocation",
            hint,
        });
    }
    Ok(Writer::create(path, &header)?)
}

/// SIGINT and SIGTERM to the recorder go to the recorded process instead.
fn forward_signals(pid: i32) {
    crate::process::on_term_or_int(move |signal| {
        if let Ok(signal) = nix::sys::signal::Signal::try_from(signal.number()) {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_from_env_argv_and_the_user_are_replaced() {
        let argv: Vec<String> = [
            "-p",
            "--api-key",
            "key-from-argv",
            "-H",
            "Authorization: Bearer tok-123456",
            "hi",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let env = |name: &str| (name == "CURSOR_API_KEY").then(|| "sk-env-secret".to_owned());
        let redactor =
            Redactor::new(&argv, env, &[], &["my/pass\"word".to_owned()]).home(Some("/home/dev".into()));
        let text = br#"sk-env-secret key-from-argv tok-123456 "my/pass\"word" /home/dev/x my/pass"word"#;
        let out = String::from_utf8(redactor.apply(text)).expect("utf-8");
        assert_eq!(
            out,
            r#"[REDACTED] [REDACTED] [REDACTED] "[REDACTED]" ~/x [REDACTED]"#
        );
        assert_eq!(redactor.leak(out.as_bytes()), None);
        assert!(redactor.leak(b"x sk-env-secret").is_some());
    }
}
