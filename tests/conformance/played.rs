//! A cassette played back through the mock as its recorded client drove the real CLI,
//! for any dialect: the mock is run as the dialect's first executable with the
//! recorded arguments, and each line the client sent (an `in` frame) is written once
//! the lines the CLI wrote before it (`out` frames) have come back; a prompt the
//! arguments lack goes on stdin. Nothing here knows a dialect: what a dialect needs of
//! its client is what its cassettes hold.

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use harness::cassette::Header;
use harness::frames::{Exit, Frame, Stream};

/// How long a line or the end may take before the mock is called stuck.
const PATIENCE: Duration = Duration::from_secs(15);

/// What a cassette holds of a run, or what a run of the mock did: the CLI's stdout
/// lines (each with whether a newline ended it), its stderr, how it ended (`exit N`
/// or `signal N`).
#[derive(Debug, PartialEq, Eq)]
pub struct Run {
    pub stdout: Vec<(String, bool)>,
    pub stderr: String,
    pub exit: String,
}

/// The client's side of a cassette: each line it sent, with how many of the CLI's
/// stdout lines came before it.
pub struct Recorded {
    pub header: Header,
    pub run: Run,
    sent: Vec<(usize, Vec<u8>)>,
}

impl Recorded {
    /// Reads the cassette at `path`.
    pub fn read(path: &Path) -> Recorded {
        let mut reader = harness::cassette::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let header = reader
            .header()
            .cloned()
            .unwrap_or_else(|| panic!("{}: a cassette has a header", path.display()));
        let (mut stdout, mut stderr, mut sent, mut exit) = (Vec::new(), String::new(), Vec::new(), None);
        for frame in reader.by_ref() {
            match frame.unwrap_or_else(|e| panic!("{}: {e}", path.display())) {
                Frame::Line(line) => match line.stream {
                    Stream::Stdout => {
                        stdout.push((String::from_utf8_lossy(&line.bytes).into_owned(), line.newline))
                    }
                    Stream::Stderr => {
                        stderr.push_str(&String::from_utf8_lossy(&line.bytes));
                        if line.newline {
                            stderr.push('\n');
                        }
                    }
                    Stream::Stdin => sent.push((stdout.len(), line.bytes)),
                },
                Frame::End(ending) => {
                    exit = Some(match ending.exit {
                        Exit::Code(code) => format!("exit {code}"),
                        Exit::Signal(signal) => format!("signal {}", signal.number()),
                    })
                }
                _ => {}
            }
        }
        let exit = exit.unwrap_or_else(|| panic!("{}: no ending", path.display()));
        Recorded {
            header,
            run: Run { stdout, stderr, exit },
            sent,
        }
    }

    /// The prompt to write on stdin: the recorded one, when the client sent no line
    /// and the arguments do not hold it (a CLI that reads its prompt from stdin).
    fn prompt_on_stdin(&self) -> Option<&str> {
        let invocation = &self.header.invocation;
        let prompt = invocation.prompt.as_deref()?;
        (self.sent.is_empty() && !invocation.argv.iter().any(|a| a == prompt)).then_some(prompt)
    }

    /// Plays this recording's client against `command` (the mock as the CLI, its
    /// arguments and settings given): what the mock did. `what` names the play in a
    /// failure.
    pub fn play(&self, what: &str, mut command: Command) -> Run {
        command
            .args(&self.header.invocation.argv)
            .envs(&self.header.invocation.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("the mock starts");
        let mut stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        let mut stderr = child.stderr.take().expect("piped");
        let received = mock_agent::drift::client::lines(stdout);
        let errors = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let mut out: Vec<(String, bool)> = Vec::new();
        // Waits until `count` lines came (or stdout ended); false when it ended first.
        let mut wait_for = |out: &mut Vec<(String, bool)>, count: usize| -> bool {
            let deadline = Instant::now() + PATIENCE;
            while out.len() < count {
                let left = deadline.saturating_duration_since(Instant::now());
                match received.recv_timeout(left) {
                    Ok(line) => out.push(text_line(line)),
                    Err(mpsc::RecvTimeoutError::Disconnected) => return false,
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        let _ = child.kill();
                        panic!(
                            "{what}: the mock wrote {} lines, not {count}, in {PATIENCE:?}: {out:#?}",
                            out.len()
                        );
                    }
                }
            }
            true
        };
        for (after, line) in &self.sent {
            if !wait_for(&mut out, *after) {
                break;
            }
            if let Some(pipe) = stdin.as_mut() {
                // A CLI that ended (a crash the recording holds) reads no more.
                if pipe.write_all(line).and_then(|()| pipe.write_all(b"\n")).is_err() {
                    stdin = None;
                }
            }
        }
        if let (Some(prompt), Some(mut pipe)) = (self.prompt_on_stdin(), stdin.take()) {
            // A prompt on stdin is read to its end.
            let _ = pipe.write_all(prompt.as_bytes());
        }
        // The client stays until the CLI has said what it said, then leaves.
        wait_for(&mut out, self.run.stdout.len());
        drop(stdin);
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = child.try_wait().expect("waits") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("{what}: the mock did not end in {PATIENCE:?} once its client left: {out:#?}");
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        out.extend(received.iter().map(text_line));
        let exit = match (status.code(), status.signal()) {
            (Some(code), _) => format!("exit {code}"),
            (_, signal) => format!("signal {}", signal.unwrap_or_default()),
        };
        Run {
            stdout: out,
            stderr: errors.join().expect("reads stderr"),
            exit,
        }
    }
}

/// A line the mock wrote as text, and whether it ended with a newline (taken off).
fn text_line(mut line: Vec<u8>) -> (String, bool) {
    let newline = line.last() == Some(&b'\n');
    if newline {
        line.pop();
    }
    (String::from_utf8_lossy(&line).into_owned(), newline)
}
