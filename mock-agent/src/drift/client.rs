//! The scripted client of a conversation: what drives a server (`codex app-server`,
//! `gemini --acp`) on both sides of a drift case, the same way.
//!
//! It knows JSON-RPC and no dialect: it sends the script's messages in order, a request
//! when the answer to the one before it came, a notification at once; it keeps what the
//! script captures of the answers (a thread's or a session's id) for the messages after
//! them; it answers each request of the server by the scenario's rule (by method: a
//! result, approve or deny), and one no rule names with -32601; it stops when the turn
//! is over (the script's ending notification came, or the last answer), when stdout
//! ends, or after [`PATIENCE`]. Then it closes stdin, as a client that is done does,
//! and waits for the server to end.
//!
//! What it keeps is what the server wrote, a message a line, each answer to one of its
//! requests marked with that request's method ([`harness::drift::ANSWERS`]) so that
//! drift compares `answer:initialize` with `answer:initialize`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::Command;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use harness::drift::{Run, ANSWERS};
use harness::frames::Exit;

use super::DriftError;

/// The longest a conversation may last before the client gives up on the turn.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// How long the server has to end once stdin is closed, before its group is killed.
const GRACE: Duration = Duration::from_secs(15);

/// JSON-RPC's code for a method the client does not know.
const METHOD_NOT_FOUND: i64 = -32601;

/// What a client-driven invocation's client says.
#[derive(Debug, Clone)]
pub struct Script {
    /// The client's messages in order. A request (with an `id`) is sent once the
    /// answer to the request before it came; a notification right after what comes
    /// before it. A string `$NAME` anywhere in a message is replaced by the value
    /// captured as `NAME` (`$cwd` is the working folder).
    pub messages: Vec<Value>,
    /// What is kept of the answers: `(NAME, pointer)`, the JSON pointer into an
    /// answer's `result` (`/thread/id`); the first answer that has it sets it.
    pub captures: &'static [(&'static str, &'static str)],
    /// How the server's requests are answered when the scenario says nothing: by
    /// method, the result.
    pub answers: &'static [(&'static str, &'static str)],
    /// The notification whose coming ends the turn once every request is answered
    /// (`turn/completed`); without one, the last request's answer ends it.
    pub turn_end: Option<&'static str>,
    /// The member of an answer that holds its result (JSON-RPC's `result`, from the
    /// dialect's wire model): what is captured from, and what the client's answers
    /// are put in.
    pub result: &'static str,
}

/// What a scenario adds to the script: how the server's requests are answered, and
/// what is sent when a notification comes.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    /// By method, the result of the answer to the server's request, before the
    /// script's own answers.
    pub answers: Vec<(String, Value)>,
    /// By notification method, a message sent once, at the first such notification
    /// (`$NAME` filled in; a request's answer is kept, marked with its method).
    pub on: Vec<(String, Value)>,
}

/// The lines of `stream`, each with its newline (a last one cut before its newline
/// as it is), read on a thread of its own until the stream ends or the receiver goes.
pub fn lines(stream: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stream);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    receiver
}

/// Drives `cmd` (started here, in a process group of its own) by `script` and the
/// scenario's `rules`; what the server wrote, and how it ended.
pub fn converse(mut cmd: Command, script: &Script, rules: &Rules, cwd: &str) -> Result<Run, DriftError> {
    let mut grouped = super::Grouped::spawn(&mut cmd)?;
    let child = &mut grouped.child;
    let lines_rx = match child.stdout.take() {
        Some(stdout) => lines(stdout),
        None => mpsc::channel().1,
    };
    let stderr = child.stderr.take().map(|mut stream| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stream.read_to_end(&mut bytes);
            bytes
        })
    });
    let mut client = Client {
        stdin: child.stdin.take(),
        script,
        answers: &rules.answers,
        on: rules.on.iter().map(|(m, v)| (m.as_str(), v)).collect(),
        next: 0,
        pending: None,
        asked: HashMap::new(),
        captured: HashMap::from([("cwd".to_owned(), Value::String(cwd.to_owned()))]),
        turn_over: false,
        kept: Vec::new(),
        not_json: 0,
    };
    client.send_ready();
    let deadline = Instant::now() + PATIENCE;
    while !client.done() {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines_rx.recv_timeout(left) {
            Ok(line) => client.take(&line),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
        }
    }
    // Done: the client closes stdin, and reads what is still written.
    drop(client.stdin.take());
    let grace = Instant::now() + GRACE;
    loop {
        let left = grace.saturating_duration_since(Instant::now());
        match lines_rx.recv_timeout(left) {
            Ok(line) => client.take(&line),
            Err(_) => break,
        }
    }
    // What the server left running goes with its group.
    let status = grouped.end_by(grace)?;
    let stderr = stderr.map(|t| t.join().unwrap_or_default()).unwrap_or_default();
    let mut run = Run::from_output(b"", &stderr, status.map(Exit::from_status));
    run.lines = client.kept;
    run.not_json = client.not_json;
    Ok(run)
}

/// The client in the middle of a conversation.
struct Client<'a> {
    stdin: Option<std::process::ChildStdin>,
    script: &'a Script,
    answers: &'a [(String, Value)],
    /// The messages still to send when a notification comes, by its method.
    on: Vec<(&'a str, &'a Value)>,
    /// The index of the script's next message.
    next: usize,
    /// The id of the request whose answer is awaited.
    pending: Option<Value>,
    /// Each request sent, by id: its method.
    asked: HashMap<String, String>,
    captured: HashMap<String, Value>,
    turn_over: bool,
    kept: Vec<Value>,
    not_json: usize,
}

impl Client<'_> {
    /// Whether the turn is over: every message sent, every answer in, and the ending
    /// notification came (when the script has one).
    fn done(&self) -> bool {
        self.next == self.script.messages.len()
            && self.pending.is_none()
            && (self.script.turn_end.is_none() || self.turn_over)
    }

    /// Sends the script's messages up to the next request, and that request.
    fn send_ready(&mut self) {
        while self.pending.is_none() && self.next < self.script.messages.len() {
            let message = self.fill(&self.script.messages[self.next]);
            self.next += 1;
            if let Some(id) = message.get("id") {
                self.pending = Some(id.clone());
                let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
                self.asked.insert(id.to_string(), method.to_owned());
            }
            self.write(&message);
        }
    }

    /// `message` with each `$NAME` string replaced by what was captured as `NAME`.
    fn fill(&self, message: &Value) -> Value {
        match message {
            Value::String(s) => s
                .strip_prefix('$')
                .and_then(|name| self.captured.get(name))
                .cloned()
                .unwrap_or_else(|| message.clone()),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.fill(v)).collect()),
            Value::Object(object) => {
                Value::Object(object.iter().map(|(k, v)| (k.clone(), self.fill(v))).collect())
            }
            other => other.clone(),
        }
    }

    fn write(&mut self, message: &Value) {
        if let Some(stdin) = self.stdin.as_mut() {
            // A server that is gone closed the pipe: its ending says so.
            let _ = writeln!(stdin, "{message}").and_then(|()| stdin.flush());
        }
    }

    /// Takes one line the server wrote: keeps it, answers it when it asks, and goes on
    /// with the script when it answers.
    fn take(&mut self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let Ok(mut value) = serde_json::from_slice::<Value>(line) else {
            self.not_json += 1;
            return;
        };
        let method = value.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = value.get("id").cloned();
        match (method, id) {
            (Some(method), Some(id)) => {
                let answer = self.answer(&method, &id, value.get("jsonrpc").is_some());
                self.kept.push(value);
                self.write(&answer);
            }
            (Some(method), None) => {
                if self.next == self.script.messages.len() && Some(method.as_str()) == self.script.turn_end {
                    self.turn_over = true;
                }
                self.kept.push(value);
                if let Some(at) = self.on.iter().position(|(m, _)| *m == method) {
                    let (_, message) = self.on.remove(at);
                    let message = self.fill(message);
                    if let (Some(id), Some(method)) =
                        (message.get("id"), message.get("method").and_then(Value::as_str))
                    {
                        self.asked.insert(id.to_string(), method.to_owned());
                    }
                    self.write(&message);
                }
            }
            (None, Some(id)) => {
                let asked = self.asked.get(&id.to_string()).cloned();
                if let (Some(method), Some(object)) = (&asked, value.as_object_mut()) {
                    object.insert(ANSWERS.to_owned(), Value::String(method.clone()));
                }
                if self.pending.as_ref() == Some(&id) {
                    for (name, pointer) in self.script.captures {
                        if self.captured.contains_key(*name) {
                            continue;
                        }
                        if let Some(found) = value.get(self.script.result).and_then(|r| r.pointer(pointer)) {
                            self.captured.insert((*name).to_owned(), found.clone());
                        }
                    }
                    self.pending = None;
                    self.kept.push(value);
                    self.send_ready();
                } else {
                    self.kept.push(value);
                }
            }
            (None, None) => self.kept.push(value),
        }
    }

    /// The answer to the server's request `method` `id`, in its framing.
    fn answer(&self, method: &str, id: &Value, jsonrpc: bool) -> Value {
        let ruled = self
            .answers
            .iter()
            .find(|(m, _)| m == method)
            .map(|(_, result)| result.clone())
            .or_else(|| {
                self.script
                    .answers
                    .iter()
                    .find(|(m, _)| *m == method)
                    .and_then(|(_, result)| serde_json::from_str(result).ok())
            });
        let mut answer = match ruled {
            Some(result) => {
                let mut answer = json!({"id": id});
                answer[self.script.result] = result;
                answer
            }
            None => {
                json!({"id": id, "error": {"code": METHOD_NOT_FOUND, "message": format!("the drift client does not answer {method}")}})
            }
        };
        if jsonrpc {
            answer["jsonrpc"] = json!("2.0");
        }
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT_ANSWERS: &[(&str, &str)] = &[("ask", r#"{"ok": "script"}"#)];

    fn script() -> Script {
        Script {
            messages: vec![
                json!({"id": 0, "method": "hello"}),
                json!({"method": "initialized"}),
                json!({"id": 1, "method": "open", "params": {"cwd": "$cwd"}}),
                json!({"id": 2, "method": "go", "params": {"thread": "$thread"}}),
            ],
            captures: &[("thread", "/thread/id")],
            answers: SCRIPT_ANSWERS,
            turn_end: Some("done"),
            result: "value",
        }
    }

    /// A server in `sh`: reads each line and answers (its results in `value`: the
    /// client takes the member its script names), asking twice; what it read goes to
    /// stderr.
    const SERVER: &str = r#"
read a; echo '{"id":0,"value":{"v":1}}'; echo "$a" >&2
read b; echo "$b" >&2
read c; echo '{"id":1,"value":{"thread":{"id":"T-9"}}}'; echo "$c" >&2
read d; echo "$d" >&2; echo '{"id":2,"value":{}}'
echo '{"id":7,"method":"ask","jsonrpc":"2.0"}'; read e; echo "$e" >&2
echo '{"id":8,"method":"unasked"}'; read f; echo "$f" >&2
echo 'not json'; echo '{"method":"done"}'
read g || echo '{"method":"after-eof"}'
exit 3
"#;

    #[test]
    fn it_sends_in_turn_captures_answers_by_rule_and_closes_stdin_at_the_turn_s_end() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", SERVER]);
        let rules = Rules {
            answers: vec![("ask".to_owned(), json!({"outcome": "deny"}))],
            on: Vec::new(),
        };
        let run = converse(cmd, &script(), &rules, "/w").expect("runs");
        let methods: Vec<String> = run
            .lines
            .iter()
            .map(|l| {
                l.get("method")
                    .or_else(|| l.get(ANSWERS))
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_owned()
            })
            .collect();
        assert_eq!(
            methods,
            ["hello", "open", "go", "ask", "unasked", "done", "after-eof"]
        );
        assert_eq!(run.not_json, 1);
        assert_eq!(run.ending.exit, Some(Exit::Code(3)));
        // The first thing the server read (on its stderr): the first request.
        let read = run.ending.stderr_first.expect("stderr");
        assert_eq!(read, r#"{"id":0,"method":"hello"}"#);
    }

    /// What the server read: the captured id and cwd filled in, the scenario's rule
    /// before the script's, -32601 for a request no rule names, jsonrpc echoed.
    #[test]
    fn what_the_server_read_is_filled_in_and_answered_by_rule() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &SERVER.replace(">&2", ">> \"$OUT\"")]);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("seen");
        cmd.env("OUT", &out);
        let rules = Rules {
            answers: vec![("ask".to_owned(), json!({"outcome": "deny"}))],
            on: Vec::new(),
        };
        converse(cmd, &script(), &rules, "/w").expect("runs");
        let read: Vec<Value> = std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(read[2]["params"]["cwd"], "/w");
        assert_eq!(read[3]["params"]["thread"], "T-9");
        assert_eq!(
            read[4],
            json!({"id": 7, "value": {"outcome": "deny"}, "jsonrpc": "2.0"})
        );
        assert_eq!(read[5]["error"]["code"], METHOD_NOT_FOUND);
        assert_eq!(read.len(), 6);
    }

    /// A message sent on a notification: once, at the first, filled in, and its
    /// answer marked with its method.
    #[test]
    fn a_message_is_sent_once_at_the_first_notification_of_its_method() {
        let server = r#"
echo '{"method":"tick"}'; read a; echo "$a" >> "$OUT"
echo '{"id":9,"value":{}}'; echo '{"method":"tick"}'; echo '{"method":"done"}'
read b; echo "eof:$b" >> "$OUT"
"#;
        let mut cmd = Command::new("sh");
        cmd.args(["-c", server]);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("seen");
        cmd.env("OUT", &out);
        let script = Script {
            messages: Vec::new(),
            captures: &[],
            answers: &[],
            turn_end: Some("done"),
            result: "value",
        };
        let rules = Rules {
            answers: Vec::new(),
            on: vec![(
                "tick".to_owned(),
                json!({"id": 9, "method": "stop", "params": {"cwd": "$cwd"}}),
            )],
        };
        let run = converse(cmd, &script, &rules, "/w").expect("runs");
        let seen = std::fs::read_to_string(&out).unwrap();
        assert_eq!(
            seen,
            "{\"id\":9,\"method\":\"stop\",\"params\":{\"cwd\":\"/w\"}}\neof:\n"
        );
        let answer = run
            .lines
            .iter()
            .find(|l| l.get("id") == Some(&json!(9)))
            .expect("the answer");
        assert_eq!(answer[ANSWERS], "stop");
    }
}
