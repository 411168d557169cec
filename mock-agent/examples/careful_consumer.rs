//! A careful consumer of `cursor-agent -p --output-format stream-json`: the Rust twin of
//! `tests/consumers/careful.py`, showing what a program that drives the CLI must do to
//! survive every fault mock-agent injects.
//!
//! - stdout is read line by line (as bytes, with `read_until`, so invalid UTF-8 and lines
//!   of any length are fine) on one thread while another drains stderr, so a huge stderr
//!   (`stderr-flood`) never deadlocks either side;
//! - `\r` is stripped; blank lines, lines that are not JSON objects (noise, malformed,
//!   invalid UTF-8) and a last line cut before its newline are skipped; unknown event
//!   types and fields are ignored;
//! - success only when a `result` event with `is_error` not `true` arrived AND the agent
//!   exited 0; no result, a non-zero exit or death by a signal is failure;
//! - stdout is read to its end even after the result;
//! - a watchdog: no line for 8 s (or over 20 s in all) kills the agent and fails the
//!   run, so a stalled agent never hangs the consumer;
//! - the agent is killed and reaped on every way out.
//!
//! ```text
//! cargo run -p mock-agent --example careful_consumer -- "PROMPT"
//! ```
//!
//! Prints `result.result` and a newline on success (exit 0); on failure prints one line
//! starting `consumer: agent failed` on stderr and exits 1.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The longest the agent may write nothing.
const IDLE_TIMEOUT: Duration = Duration::from_secs(8);
/// The longest a whole run may take.
const TOTAL_TIMEOUT: Duration = Duration::from_secs(20);

/// The child process, killed and reaped when dropped (on every way out of [`run`]).
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}

/// What the stdout thread sends: a line (with its `\n` when it had one), or the end.
enum FromStdout {
    Line(Vec<u8>),
    End,
}

/// The event of a complete stdout line (without its `\n`), when it is a JSON object.
fn parse_event(line: &[u8]) -> Option<serde_json::Map<String, Value>> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let first = line.iter().find(|b| !b.is_ascii_whitespace())?;
    if *first != b'{' {
        return None; // blank, noise, or JSON that is not an object
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// For a `result` event that is not an error: `Some(text)`, where the text is `None`
/// when `result` is not a string. `None` for any other event.
fn result_answer(event: &serde_json::Map<String, Value>) -> Option<Option<String>> {
    if event.get("type").and_then(Value::as_str) != Some("result") {
        return None;
    }
    if event.get("is_error") == Some(&Value::Bool(true)) {
        return None;
    }
    Some(event.get("result").and_then(Value::as_str).map(str::to_owned))
}

/// The last line of what the agent wrote on stderr, for the failure message.
fn hint(tail: &Mutex<Vec<u8>>) -> String {
    let tail = tail.lock().map(|t| t.clone()).unwrap_or_default();
    let text = String::from_utf8_lossy(&tail);
    match text.trim().lines().last() {
        Some(last) => format!(": {}", last.trim().chars().take(200).collect::<String>()),
        None => String::new(),
    }
}

/// Waits for the child to exit, until `deadline`.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(10)),
            _ => return None,
        }
    }
}

fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exit code {code}"),
        None => format!("{status}"),
    }
}

/// Runs the agent: the answer on success, the reason on failure.
fn run(prompt: &str) -> Result<String, String> {
    let child = Command::new("cursor-agent")
        .args(["-p", "--output-format", "stream-json", prompt])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start cursor-agent: {e}"))?;
    let mut child = Reaped(child);
    let (Some(stdout), Some(mut stderr)) = (child.0.stdout.take(), child.0.stderr.take()) else {
        return Err("no pipes to the agent".to_owned());
    };

    // stderr: drained to its end, keeping the last few KiB.
    let tail = Arc::new(Mutex::new(Vec::new()));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    {
        let tail = Arc::clone(&tail);
        thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match stderr.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        if let Ok(mut t) = tail.lock() {
                            t.extend_from_slice(&buf[..n]);
                            let excess = t.len().saturating_sub(4096);
                            t.drain(..excess);
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = done_tx.send(());
        });
    }

    // stdout: every line, as bytes, of any length.
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::with_capacity(64 * 1024, stdout);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => {
                    if tx.send(FromStdout::Line(line)).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = tx.send(FromStdout::End);
    });

    let start = Instant::now();
    let overall = start + TOTAL_TIMEOUT;
    let mut last = start;
    let mut result: Option<Option<String>> = None;
    loop {
        let deadline = (last + IDLE_TIMEOUT).min(overall);
        let wait = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(wait) {
            Ok(FromStdout::Line(line)) => {
                last = Instant::now();
                // The last line, cut before its newline, is not a whole event.
                let Some(line) = line.strip_suffix(b"\n") else {
                    continue;
                };
                if let Some(answer) = parse_event(line).as_ref().and_then(result_answer) {
                    result = Some(answer);
                }
            }
            Ok(FromStdout::End) | Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                return Err(format!(
                    "no output for {}s (or over {}s in all); killed the agent",
                    IDLE_TIMEOUT.as_secs(),
                    TOTAL_TIMEOUT.as_secs()
                ));
            }
        }
    }

    // stdout is at its end: the agent should exit now.
    let deadline = (Instant::now() + IDLE_TIMEOUT).min(overall);
    let Some(status) = wait_until(&mut child.0, deadline) else {
        return Err("the agent closed stdout but did not exit; killed it".to_owned());
    };
    // The rest of stderr, for the message (not long: something else may hold the pipe).
    let _ = done_rx.recv_timeout(Duration::from_secs(2));

    if !status.success() {
        return Err(format!("{}{}", describe(status), hint(&tail)));
    }
    match result {
        None => Err(format!("no result event{}", hint(&tail))),
        Some(None) => Err("the result event has no result text".to_owned()),
        Some(Some(answer)) => Ok(answer),
    }
}

fn main() {
    let prompt = std::env::args().nth(1).unwrap_or_else(|| "hi".to_owned());
    let code = match run(&prompt) {
        Ok(answer) => {
            let mut out = std::io::stdout().lock();
            match writeln!(out, "{answer}").and_then(|()| out.flush()) {
                Ok(()) => 0,
                Err(e) => {
                    let _ = writeln!(
                        std::io::stderr(),
                        "consumer: agent succeeded but the answer could not be written: {e}"
                    );
                    1
                }
            }
        }
        Err(reason) => {
            let _ = writeln!(std::io::stderr(), "consumer: agent failed: {reason}");
            1
        }
    };
    std::process::exit(code);
}
