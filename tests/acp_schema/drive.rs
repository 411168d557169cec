//! Driving `mock-agent acp` for [`super`]: the default conversation as an editor holds
//! it, and a recorded conversation played as its client did; what passed both ways.

use std::io::Write;
use std::path::Path;
use std::process::{Child, ChildStdin};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use harness::frames::{Frame, Stream};

use super::{Said, PATIENCE};
use crate::support::mock_std;

/// `mock-agent acp` as a child: what passed both ways, in order.
pub(super) struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    said: Vec<Said>,
    /// Whether the agent's requests are answered as they come.
    answering: bool,
    patience: Duration,
    ended: bool,
}

impl Agent {
    fn spawn(env: &[(&str, &str)]) -> Agent {
        let mut cmd = mock_std();
        cmd.arg("acp").envs(env.iter().copied());
        let mut child = crate::support::spawn_piped(&mut cmd);
        let lines = crate::support::line_by_line(child.stdout.take().expect("stdout"), |line| {
            String::from_utf8_lossy(&crate::support::without_newline(line)).into_owned()
        });
        // Read on a thread of its own: a flood must not block the agent.
        drop(harness::run::child::drain(child.stderr.take(), 1 << 20));
        Agent {
            stdin: child.stdin.take(),
            child,
            lines,
            said: Vec::new(),
            answering: true,
            patience: PATIENCE,
            ended: false,
        }
    }

    /// Writes `line` and its newline (nothing if the agent is gone).
    fn send(&mut self, line: &str) {
        if let Some(stdin) = self.stdin.as_mut() {
            let sent = stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.write_all(b"\n"))
                .and_then(|()| stdin.flush());
            if sent.is_err() {
                self.stdin = None;
            }
        }
        self.said.push(Said::Client(line.to_owned()));
    }

    /// The agent's next line, `None` once it has ended or stayed silent too long.
    fn next(&mut self) -> Option<Value> {
        if self.ended {
            return None;
        }
        match self.lines.recv_timeout(self.patience) {
            Ok(line) => {
                let message = serde_json::from_str(&line).unwrap_or(Value::Null);
                self.said.push(Said::Agent(line));
                if self.answering && message.get("method").is_some() && message.get("id").is_some() {
                    self.send(&answer(&message).to_string());
                }
                Some(message)
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                self.ended = true;
                None
            }
            Err(mpsc::RecvTimeoutError::Timeout) => None,
        }
    }

    /// Reads up to the first message `done` takes, and returns it.
    fn until(&mut self, done: impl Fn(&Value) -> bool) -> Option<Value> {
        loop {
            let message = self.next()?;
            if done(&message) {
                return Some(message);
            }
        }
    }

    /// Sends a request and reads up to its response.
    fn request(&mut self, id: Value, method: &str, params: Value) -> Option<Value> {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&line.to_string());
        self.until(|m| is_response(m, &id))
    }

    /// Closes stdin, waits for the end (killing a mock that outstays its
    /// patience), and returns the conversation.
    fn finish(mut self) -> Vec<Said> {
        drop(self.stdin.take());
        let deadline = Instant::now() + self.patience;
        while matches!(self.child.try_wait(), Ok(None)) {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.wait();
        // The reader ends with stdout.
        while let Ok(line) = self.lines.recv_timeout(self.patience) {
            self.said.push(Said::Agent(line));
        }
        std::mem::take(&mut self.said)
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn is_response(message: &Value, id: &Value) -> bool {
    message.get("method").is_none() && message.get("id") == Some(id)
}

fn is_request(message: &Value, method: &str) -> bool {
    message["method"] == method && message.get("id").is_some()
}

/// A client's answer to an agent request: the first option of a permission request,
/// `skipped` for a question, a file's text, a terminal and its exit for the client's
/// tools (an error for `fs/write_text_file`: the agent reports the tool failed),
/// method not found for the rest.
fn answer(request: &Value) -> Value {
    let id = &request["id"];
    let result = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
    match request["method"].as_str() {
        Some("fs/read_text_file") => result(json!({"content": "# Project\n"})),
        Some("fs/write_text_file") => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "Permission denied"}})
        }
        Some("terminal/create") => result(json!({"terminalId": "t-1"})),
        Some("terminal/wait_for_exit") => result(json!({"exitCode": 1, "signal": null})),
        Some("terminal/output") => result(json!({"output": "19 summary.txt\n", "truncated": false})),
        Some("terminal/release") => result(json!({})),
        Some("session/request_permission") => {
            let option = request["params"]["options"][0]["optionId"]
                .as_str()
                .unwrap_or("allow-once");
            json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "selected", "optionId": option}}})
        }
        Some("cursor/ask_question") => {
            json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "skipped"}}})
        }
        _ => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}}),
    }
}

fn prompt(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

/// The default conversation, as an editor holds it: every method the mock answers,
/// a turn whose permission request is answered, one cancelled while it asks.
fn converse(agent: &mut Agent) {
    let cwd = "/tmp";
    agent.request(
        json!(0),
        "initialize",
        json!({
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true},
            "clientInfo": {"name": "acp-schema-test", "version": "1.0.0"}
        }),
    );
    agent.request(json!(1), "authenticate", json!({"methodId": "cursor_login"}));
    let new = agent.request(json!(2), "session/new", json!({"cwd": cwd, "mcpServers": []}));
    let session = new
        .as_ref()
        .and_then(|r| r["result"]["sessionId"].as_str())
        .unwrap_or("00000000-0000-4000-8000-000000000000")
        .to_owned();
    agent.request(
        json!(3),
        "session/prompt",
        prompt(&session, "Summarize the README"),
    );
    agent.request(
        json!("load-4"),
        "session/load",
        json!({"sessionId": session, "cwd": cwd, "mcpServers": []}),
    );
    agent.request(
        json!(5),
        "session/load",
        json!({"sessionId": "8f0c2a64-0000-4000-8000-00000000dead", "cwd": cwd, "mcpServers": []}),
    );
    agent.request(
        json!(6),
        "session/set_mode",
        json!({"sessionId": session, "modeId": "plan"}),
    );
    agent.request(
        json!(7),
        "session/set_config_option",
        json!({"sessionId": session, "configId": "model", "value": "auto"}),
    );
    agent.request(
        json!(8),
        "session/set_model",
        json!({"sessionId": session, "modelId": "auto"}),
    );
    agent.request(json!(9), "session/no_such_method", json!({"sessionId": session}));
    // Invalid params, as the real agent answers them: -32602.
    agent.request(
        json!("bad-mode"),
        "session/set_mode",
        json!({"sessionId": session, "modeId": "no-such-mode"}),
    );
    agent.request(
        json!("bad-option"),
        "session/set_config_option",
        json!({"sessionId": session, "configId": "model", "value": "no-such-model"}),
    );
    agent.request(
        json!("bad-session"),
        "session/prompt",
        prompt("8f0c2a64-0000-4000-8000-00000000dead", "Anyone there?"),
    );
    // A turn cancelled while the agent waits for its permission answer.
    agent.answering = false;
    let id = json!(10);
    agent.send(
        &json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt", "params": prompt(&session, "Write it again")})
            .to_string(),
    );
    let first = agent.until(|m| is_request(m, "session/request_permission") || is_response(m, &id));
    if let Some(asked) = first.filter(|m| m.get("method").is_some()) {
        agent.send(
            &json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}})
                .to_string(),
        );
        agent.until(|m| is_response(m, &id));
        agent.send(
            &json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"outcome": {"outcome": "cancelled"}}})
                .to_string(),
        );
    }
    agent.answering = true;
    // A turn cancelled as soon as it starts.
    agent.send(
        &json!({"jsonrpc": "2.0", "id": 11, "method": "session/prompt", "params": prompt(&session, "And once more")})
            .to_string(),
    );
    agent.send(
        &json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}).to_string(),
    );
    agent.until(|m| is_response(m, &json!(11)));
}

/// The default conversation on the source `env` sets, under `faults`.
pub(super) fn default_run(env: &[(&str, &str)], faults: &str, patience: Duration) -> Vec<Said> {
    let mut env = env.to_vec();
    if !faults.is_empty() {
        env.push(("MOCK_AGENT_FAULTS", faults));
    }
    let mut agent = Agent::spawn(&env);
    agent.patience = patience;
    converse(&mut agent);
    agent.finish()
}

/// A recorded conversation played as its client did: each `in` line sent when the
/// recording sent it, one agent line read for each `out` line.
pub(super) fn recorded_run(cassette: &Path, env: &[(&str, &str)]) -> Vec<Said> {
    let mut reader = harness::cassette::open(cassette).expect("opens");
    assert!(
        reader.header().is_some_and(|h| h.invocation.acp),
        "{}: not an ACP recording",
        cassette.display()
    );
    let mut agent = Agent::spawn(env);
    agent.answering = false;
    for frame in reader.by_ref() {
        if let Frame::Line(line) = frame.expect("a valid cassette") {
            match line.stream {
                Stream::Stdin => agent.send(&String::from_utf8_lossy(&line.bytes)),
                Stream::Stdout => {
                    agent.next();
                }
                Stream::Stderr => {}
            }
        }
    }
    agent.finish()
}
