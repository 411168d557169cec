//! Server mode driven by hand-written JSON lines: what a client library never sends
//! (lines that are no JSON-RPC, odd ids, answers out of order, a cancel while the
//! agent waits), and what it cannot see (the journal, the end of stdin).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;

use serde_json::{json, Value};

use crate::acp::PATIENCE;
use crate::support::{bin, root};

/// `mock-agent acp` (or `program ARGS`) driven line by line.
pub(crate) struct Wire {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: mpsc::Receiver<String>,
    stderr: mpsc::Receiver<Vec<u8>>,
}

/// How a [`Wire`] ended.
pub(crate) struct Ended {
    pub(crate) code: Option<i32>,
    /// The stdout lines not read before stdin was closed.
    pub(crate) rest: Vec<String>,
    pub(crate) stderr: String,
}

impl Wire {
    pub(crate) fn start(env: &[(&str, &str)]) -> Wire {
        Wire::spawn(&bin(), &["acp"], env)
    }

    fn spawn(program: &Path, args: &[&str], env: &[(&str, &str)]) -> Wire {
        let mut cmd = std::process::Command::new(program);
        harness::run::child::without_mock_env(&mut cmd);
        let mut child = cmd
            .args(args)
            .envs(env.iter().copied())
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawns");
        let stdout = child.stdout.take().expect("piped");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = harness::run::child::drain(child.stderr.take(), 1 << 20);
        Wire {
            stdin: child.stdin.take(),
            child,
            stdout: lines,
            stderr,
        }
    }

    /// Writes `line` and its newline.
    pub(crate) fn send(&mut self, line: &str) -> &mut Self {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .expect("the mock reads stdin");
        self
    }

    /// The next stdout line.
    #[track_caller]
    fn line(&mut self) -> String {
        match self.stdout.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(e) => panic!("no line from the mock: {e}"),
        }
    }

    /// The next stdout line, as JSON.
    #[track_caller]
    pub(crate) fn json(&mut self) -> Value {
        let line = self.line();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// Lines up to and including the response to request `id`.
    #[track_caller]
    pub(crate) fn until_response(&mut self, id: &Value) -> Vec<Value> {
        let mut lines = Vec::new();
        loop {
            let message = self.json();
            let done = message.get("method").is_none() && message["id"] == *id;
            lines.push(message);
            if done {
                return lines;
            }
        }
    }

    /// Lines up to and including the agent's request of `method`.
    #[track_caller]
    pub(crate) fn until_request(&mut self, method: &str) -> Vec<Value> {
        let mut lines = Vec::new();
        loop {
            let message = self.json();
            let done = message["method"] == method && message.get("id").is_some();
            lines.push(message);
            if done {
                return lines;
            }
        }
    }

    /// `initialize` (request id 0) offering `capabilities`, a new session (id 1) and a
    /// prompt in it (id `"p"`): the session's id.
    #[track_caller]
    pub(crate) fn start_turn(&mut self, capabilities: &Value) -> String {
        let init = json!({"protocolVersion": 1, "clientCapabilities": capabilities});
        self.send(&request("0", "initialize", &init));
        self.until_response(&json!(0));
        self.send(&new_session_line("1"));
        let session = self.until_response(&json!(1))[0]["result"]["sessionId"].clone();
        let session = session.as_str().expect("a session id").to_owned();
        self.send(&prompt_line(r#""p""#, &session, "hi"));
        session
    }

    /// A new session (request id 1) and a prompt in it (id `"p"`), up to the agent's
    /// permission request: the session's id and the request's id.
    #[track_caller]
    fn prompt_until_asked(&mut self) -> (String, Value) {
        self.send(&new_session_line("1"));
        let session = self.until_response(&json!(1))[0]["result"]["sessionId"].clone();
        let session = session.as_str().expect("a session id").to_owned();
        self.send(&prompt_line(r#""p""#, &session, "hi"));
        let asked = self.until_request("session/request_permission");
        let asked_id = asked.last().expect("asked")["id"].clone();
        (session, asked_id)
    }

    /// Closes stdin and waits for the process to end.
    pub(crate) fn close(mut self) -> Ended {
        drop(self.stdin.take());
        let status = self.child.wait().expect("waits");
        let rest = self.stdout.iter().collect();
        let stderr = self.stderr.recv_timeout(PATIENCE).unwrap_or_default();
        Ended {
            code: status.code(),
            rest,
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }
}

impl Drop for Wire {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn request(id: &str, method: &str, params: &Value) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

pub(crate) fn new_session_line(id: &str) -> String {
    request(id, "session/new", &json!({"cwd": "/tmp", "mcpServers": []}))
}

pub(crate) fn prompt_line(id: &str, session: &str, text: &str) -> String {
    request(
        id,
        "session/prompt",
        &json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
    )
}

pub(crate) fn allow_once(id: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "selected", "optionId": "allow-once"}}})
        .to_string()
}

/// The `sessionUpdate` tag of an agent message, or its method, or `response`.
pub(crate) fn tag(message: &Value) -> String {
    match message["method"].as_str() {
        Some("session/update") => message["params"]["update"]["sessionUpdate"]
            .as_str()
            .unwrap_or("?")
            .to_owned(),
        Some(method) => method.to_owned(),
        None => "response".to_owned(),
    }
}

/// A print-mode run that was not logged in, told through ACP, answers as the real
/// agent does when not logged in: `initialize` works, session methods answer -32000.
#[test]
fn a_run_that_was_not_logged_in_answers_session_methods_authentication_required() {
    let cassette = root().join("cassettes/auth-required.cassette");
    let mut wire = Wire::start(&[("MOCK_AGENT_CASSETTE", cassette.to_str().expect("utf-8"))]);
    wire.send(&request("1", "initialize", &json!({"protocolVersion": 1})));
    assert_eq!(wire.json()["result"]["protocolVersion"], json!(1));
    wire.send(&new_session_line("2"));
    assert_eq!(
        wire.json(),
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "Authentication required"}})
    );
    wire.send(&prompt_line("3", "any", "hello"));
    assert_eq!(wire.json()["error"]["code"], json!(-32000));
    wire.send(&request(
        "4",
        "session/set_mode",
        &json!({"sessionId": "any", "modeId": "ask"}),
    ));
    assert_eq!(wire.json()["error"]["code"], json!(-32000));
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
    assert!(
        ended.stderr.starts_with("Authentication required. Please run"),
        "the recorded stderr line, once: {:?}",
        ended.stderr
    );
    assert_eq!(ended.stderr.lines().count(), 1, "{:?}", ended.stderr);
}

/// `session/load` of an id that is neither a session of this process nor the
/// recording's: -32602, as the real agent answers.
#[test]
fn loading_an_unknown_session_is_invalid_params() {
    let mut wire = Wire::start(&[]);
    wire.send(&request(
        "1",
        "session/load",
        &json!({"sessionId": "no-such-session", "cwd": "/tmp", "mcpServers": []}),
    ));
    assert_eq!(
        wire.json(),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Session no-such-session not found"}})
    );
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

#[test]
fn lines_that_are_not_json_rpc_are_ignored_without_a_word() {
    let mut wire = Wire::start(&[]);
    for line in [
        "not json",
        "{",
        "[1,2]",
        r#""a string""#,
        "42",
        "{}",
        r#"{"jsonrpc":"2.0","id":5}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":{"line":"x"}}}"#,
        r#"{"jsonrpc":"2.0","method":"cursor/unknown_notification","params":{}}"#,
        "   ",
        "\u{0}\u{7f}",
    ] {
        wire.send(line);
    }
    wire.send(&request("1", "initialize", &json!({"protocolVersion": 1})));
    let first = wire.json();
    assert_eq!(
        (first["id"].clone(), first["result"]["protocolVersion"].clone()),
        (json!(1), json!(1))
    );
    let ended = wire.close();
    assert_eq!(ended.code, Some(0));
    assert_eq!(ended.rest, Vec::<String>::new(), "no reply to any other line");
    assert_eq!(ended.stderr, "");
}

#[test]
fn with_strict_json_rpc_a_line_that_is_no_message_is_answered_as_the_spec_says() {
    let mut wire = Wire::start(&[("MOCK_AGENT_JSONRPC", "strict")]);
    for (line, code) in [
        ("not json", -32700),
        ("{", -32700),
        ("[1,2]", -32600),
        ("42", -32600),
        ("{}", -32600),
        (r#"{"jsonrpc":"2.0","id":5}"#, -32600),
    ] {
        wire.send(line);
        let answer = wire.json();
        assert_eq!(
            (answer["id"].clone(), answer["error"]["code"].clone()),
            (Value::Null, json!(code)),
            "{line}: {answer}"
        );
    }
    // A notification the agent does not know, and an answer to nothing, are messages:
    // not answered.
    wire.send(r#"{"jsonrpc":"2.0","method":"cursor/unknown_notification","params":{}}"#);
    wire.send(&request("1", "initialize", &json!({"protocolVersion": 1})));
    assert_eq!(wire.json()["id"], json!(1));
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

#[test]
fn a_request_whose_id_is_null_is_a_request_and_is_answered() {
    let mut wire = Wire::start(&[]);
    wire.send(&request("null", "initialize", &json!({"protocolVersion": 1})));
    let answer = wire.json();
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(answer["result"]["protocolVersion"], json!(1), "{answer}");
    assert_eq!(wire.close().code, Some(0));
}

#[test]
fn a_json_rpc_mode_that_is_not_one_is_the_mock_s_own_error() {
    let output = crate::support::mock()
        .arg("acp")
        .env("MOCK_AGENT_JSONRPC", "lenient")
        .write_stdin("")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("mock-agent: MOCK_AGENT_JSONRPC") && stderr.contains("use `cursor` or `strict`"),
        "{stderr}"
    );
    assert_eq!(output.status.code(), Some(harness::exit_codes::USAGE));
}

#[test]
fn odd_ids_are_echoed_byte_for_byte() {
    let ids = [
        r#""x""#,
        r#""""#,
        r#""q\"uo\\te\n""#,
        r#""\u00e9""#,
        r#""é""#,
        "0",
        "-1",
        "-0",
        "18446744073709551615",
        "18446744073709551616",
        "123456789012345678901234567890123456789",
        "1.5",
        "1e3",
        "-2.5E-7",
        "1e400",
    ];
    let mut wire = Wire::start(&[]);
    wire.send(&new_session_line(r#""s""#));
    let session = wire.json()["result"]["sessionId"].clone();
    let session = session.as_str().expect("a session id").to_owned();
    let _commands = wire.json();
    for id in ids {
        let echoed = format!(r#"{{"jsonrpc":"2.0","id":{id},"#);
        // A handshake answer, an error, and the end of a turn.
        wire.send(&request(
            id,
            "session/set_mode",
            &json!({"sessionId": session, "modeId": "plan"}),
        ));
        assert!(wire.line().starts_with(&echoed), "set_mode {id}");
        wire.send(&request(id, "cursor/nope", &json!({})));
        assert!(wire.line().starts_with(&echoed), "error {id}");
        wire.send(&prompt_line(id, &session, "hi"));
        let permission = wire.until_request("session/request_permission");
        wire.send(&allow_once(&permission.last().expect("asked")["id"]));
        let last = loop {
            let line = wire.line();
            if !line.contains(r#""method":"#) {
                break line;
            }
        };
        assert!(last.starts_with(&echoed), "prompt {id}: {last}");
        assert!(last.ends_with(r#""result":{"stopReason":"end_turn"}}"#), "{last}");
    }
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

#[test]
fn an_unknown_method_is_method_not_found() {
    let mut wire = Wire::start(&[]);
    wire.send(&request("1", "cursor/ask_me_anything", &json!({"q": 1})));
    assert_eq!(
        wire.json(),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found", "data": "cursor/ask_me_anything"}})
    );
    let ended = wire.close();
    assert_eq!((ended.code, ended.stderr.as_str()), (Some(0), ""));
}

#[test]
fn requests_sent_before_a_late_permission_answer_wait_their_turn() {
    let mut wire = Wire::start(&[]);
    let (session, asked_id) = wire.prompt_until_asked();
    // Other requests first, then the answer.
    wire.send(&request(
        r#""m""#,
        "session/set_mode",
        &json!({"sessionId": session, "modeId": "ask"}),
    ));
    wire.send(&request(r#""i""#, "initialize", &json!({"protocolVersion": 1})));
    wire.send(&allow_once(&asked_id));
    let rest = wire.until_response(&json!("i"));
    let tags: Vec<String> = rest.iter().map(tag).collect();
    assert_eq!(
        tags,
        [
            "tool_call_update",
            "usage_update",
            "session_info_update",
            "response",
            "response",
            "response"
        ]
    );
    let ids: Vec<&Value> = rest[3..].iter().map(|m| &m["id"]).collect();
    assert_eq!(ids, [&json!("p"), &json!("m"), &json!("i")]);
    assert_eq!(rest[3]["result"], json!({"stopReason": "end_turn"}));
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

/// A recording of a real `acp` session (format 2) whose agent asks twice before
/// either answer comes, and whose client answered the second request first.
fn two_questions_cassette(dir: &Path) -> PathBuf {
    let ask = |id: u64, call: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "session/request_permission", "params": {
            "sessionId": "rec-1",
            "toolCall": {"toolCallId": call, "title": format!("`{call}`"), "kind": "execute", "status": "pending"},
            "options": [{"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
                        {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}]}})
    };
    let answer = |id: u64, option: &str| json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "selected", "optionId": option}}});
    let frames = [
        json!({"mock_agent_cassette": 2, "invocation": {"acp": true}}),
        json!({"t": 0, "in": {"jsonrpc": "2.0", "id": 7, "method": "session/prompt", "params": {"sessionId": "rec-1", "prompt": [{"type": "text", "text": "two"}]}}}),
        json!({"t": 1, "out": ask(0, "a")}),
        json!({"t": 1, "out": ask(1, "b")}),
        json!({"t": 2, "in": answer(1, "reject-once")}),
        json!({"t": 3, "in": answer(0, "allow-once")}),
        json!({"t": 4, "out": {"jsonrpc": "2.0", "id": 7, "result": {"stopReason": "end_turn"}}}),
        json!({"t": 5, "exit": 0}),
    ];
    let path = dir.join("two-questions.cassette");
    let text: String = frames.iter().map(|f| format!("{f}\n")).collect();
    std::fs::write(&path, text).expect("writes");
    path
}

#[test]
fn answers_are_matched_by_id_in_any_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = two_questions_cassette(dir.path());
    let journal = dir.path().join("journal.ndjson");
    let mut wire = Wire::start(&[
        ("MOCK_AGENT_CASSETTE", cassette.to_str().expect("utf-8")),
        ("MOCK_AGENT_JOURNAL", journal.to_str().expect("utf-8")),
    ]);
    wire.send(&prompt_line(r#""live-1""#, "rec-1", "two"));
    let (first, second) = (wire.json(), wire.json());
    assert_eq!((first["id"].clone(), second["id"].clone()), (json!(0), json!(1)));
    // The recorded client answered 1 then 0; this one answers 0 then 1.
    wire.send(&json!({"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "selected", "optionId": "allow-once"}}}).to_string());
    wire.send(&json!({"jsonrpc": "2.0", "id": 1, "result": {"outcome": {"outcome": "selected", "optionId": "reject-once"}}}).to_string());
    assert_eq!(
        wire.line(),
        r#"{"jsonrpc":"2.0","id":"live-1","result":{"stopReason":"end_turn"}}"#
    );
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
    let entries = harness::journal::read(&journal).expect("journal");
    let conversation = entries[0].acp.as_ref().expect("the conversation");
    let answered: Vec<(&str, &Value)> = conversation
        .answers
        .iter()
        .map(|a| (a.id.as_str(), &a.answer["outcome"]["optionId"]))
        .collect();
    assert_eq!(
        answered,
        [("1", &json!("reject-once")), ("0", &json!("allow-once"))]
    );
    assert_eq!(conversation.divergences, Vec::<String>::new());
}

#[test]
fn sessions_of_one_process_are_told_apart() {
    let mut wire = Wire::start(&[]);
    let mut sessions = Vec::new();
    for id in ["1", "2"] {
        wire.send(&new_session_line(id));
        let reply = wire.until_response(&json!(id.parse::<u64>().expect("a number")));
        sessions.push(
            reply[0]["result"]["sessionId"]
                .as_str()
                .expect("an id")
                .to_owned(),
        );
        let commands = wire.json();
        assert_eq!(
            (tag(&commands), &commands["params"]["sessionId"]),
            ("available_commands_update".to_owned(), &json!(sessions.last()))
        );
    }
    assert_ne!(sessions[0], sessions[1]);
    let (a, b) = (&sessions[0], &sessions[1]);
    // A turn in b, with a cancel of a while b waits for its permission answer: b
    // goes on.
    wire.send(&prompt_line("3", b, "in b"));
    let turn = wire.until_request("session/request_permission");
    assert!(
        turn.iter().all(|m| m["params"]["sessionId"] == json!(b)),
        "{turn:#?}"
    );
    wire.send(&json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": a}}).to_string());
    wire.send(&allow_once(&turn.last().expect("asked")["id"]));
    let rest = wire.until_response(&json!(3));
    assert_eq!(
        rest.last().expect("answered")["result"],
        json!({"stopReason": "end_turn"})
    );
    assert!(rest[..rest.len() - 1]
        .iter()
        .all(|m| m["params"]["sessionId"] == json!(b)));
    // Each session's history is its own.
    for (id, session) in [("4", a), ("5", b)] {
        wire.send(&request(
            id,
            "session/load",
            &json!({"sessionId": session, "cwd": "/tmp", "mcpServers": []}),
        ));
        let history = wire.until_response(&json!(id.parse::<u64>().expect("a number")));
        let updates = &history[..history.len() - 1];
        assert_eq!(tag(&updates[0]), "user_message_chunk");
        assert!(updates.iter().all(|m| m["params"]["sessionId"] == json!(session)));
    }
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

#[test]
fn a_cancel_while_the_agent_waits_for_an_answer_withdraws_its_request() {
    let mut wire = Wire::start(&[]);
    wire.send(&new_session_line("1"));
    let session = wire.until_response(&json!(1))[0]["result"]["sessionId"].clone();
    wire.send(&prompt_line("2", session.as_str().expect("an id"), "hi"));
    let asked = wire.until_request("session/request_permission");
    let asked_id = asked.last().expect("asked")["id"].clone();
    wire.send(
        &json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}).to_string(),
    );
    let rest = wire.until_response(&json!(2));
    assert_eq!(
        rest.iter().map(tag).collect::<Vec<_>>(),
        ["$/cancel_request", "response"],
        "{rest:#?}"
    );
    assert_eq!(rest[0]["params"], json!({"requestId": asked_id}));
    assert_eq!(rest[1]["result"], json!({"stopReason": "cancelled"}));
    // A late answer to the withdrawn request changes nothing.
    wire.send(&allow_once(&asked_id));
    wire.send(&request("3", "initialize", &json!({"protocolVersion": 1})));
    assert_eq!(wire.json()["id"], json!(3));
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

#[test]
fn the_end_of_stdin_ends_the_process_with_exit_0() {
    // Right away, after a handshake, and in a turn waiting for the client.
    let ended = Wire::start(&[]).close();
    assert_eq!(
        (ended.code, ended.rest.len(), ended.stderr.as_str()),
        (Some(0), 0, "")
    );
    let mut wire = Wire::start(&[]);
    wire.send(&request("1", "initialize", &json!({"protocolVersion": 1})));
    assert_eq!(wire.json()["id"], json!(1));
    let ended = wire.close();
    assert_eq!(
        (ended.code, ended.rest.len(), ended.stderr.as_str()),
        (Some(0), 0, "")
    );
    let mut wire = Wire::start(&[]);
    wire.send(&new_session_line("1"));
    let session = wire.until_response(&json!(1))[0]["result"]["sessionId"].clone();
    wire.send(&prompt_line("2", session.as_str().expect("an id"), "hi"));
    wire.until_request("session/request_permission");
    let ended = wire.close();
    assert_eq!(
        (ended.code, ended.rest.len(), ended.stderr.as_str()),
        (Some(0), 0, "")
    );
}

#[test]
fn the_journal_records_the_conversation() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("journal.ndjson");
    let mut wire = Wire::start(&[("MOCK_AGENT_JOURNAL", journal.to_str().expect("utf-8"))]);
    wire.send("not json");
    wire.send(&new_session_line("1"));
    let mut read = wire.until_response(&json!(1));
    let session = read[0]["result"]["sessionId"].as_str().expect("an id").to_owned();
    wire.send(&prompt_line("2", &session, "hi"));
    read.extend(wire.until_request("session/request_permission"));
    let asked_id = read.last().expect("asked")["id"].clone();
    wire.send(&allow_once(&asked_id));
    read.extend(wire.until_response(&json!(2)));
    let ended = wire.close();
    assert_eq!(ended.code, Some(0));

    let entries = harness::journal::read(&journal).expect("journal");
    let [entry] = &entries[..] else {
        panic!("one entry: {entries:#?}");
    };
    assert_eq!(
        (entry.argv.clone(), entry.source.as_deref()),
        (vec!["acp".to_owned()], Some("default"))
    );
    let conversation = entry.acp.as_ref().expect("the conversation");
    let lines = |dir: &str| -> Vec<&str> {
        conversation
            .messages
            .iter()
            .filter(|m| m.dir == dir)
            .map(|m| m.line.as_str())
            .collect()
    };
    let sent = [
        "not json".to_owned(),
        new_session_line("1"),
        prompt_line("2", &session, "hi"),
        allow_once(&asked_id),
    ];
    assert_eq!(lines("in"), sent);
    let outs: Vec<Value> = lines("out")
        .iter()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    assert_eq!(outs, read);
    assert!(conversation.messages.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    let [answer] = &conversation.answers[..] else {
        panic!("one answer: {:#?}", conversation.answers);
    };
    assert_eq!(
        (answer.id.as_str(), answer.method.as_str(), &answer.answer),
        (
            asked_id.to_string().as_str(),
            "session/request_permission",
            &json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}})
        )
    );
    assert_eq!(
        conversation.divergences,
        Vec::<String>::new(),
        "a told source never diverges"
    );
}

#[test]
fn a_cancel_that_comes_while_its_prompt_waits_its_turn_cancels_it() {
    // session/new's update comes 200 ms after its result: the prompt and its cancel
    // come in meanwhile, and wait for it.
    let mut wire = Wire::start(&[("MOCK_AGENT_TIMING", "fixed=200")]);
    wire.send(&new_session_line("1"));
    let session = wire.json()["result"]["sessionId"].clone();
    wire.send(&prompt_line("2", session.as_str().expect("an id"), "hi"));
    wire.send(
        &json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}).to_string(),
    );
    let rest = wire.until_response(&json!(2));
    assert_eq!(
        rest.iter().map(tag).collect::<Vec<_>>(),
        ["available_commands_update", "response"]
    );
    assert_eq!(rest[1]["result"], json!({"stopReason": "cancelled"}));
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

#[test]
fn a_permission_answered_with_a_null_result_ends_the_turn() {
    // `"result": null` is a response: the turn goes on and the prompt is answered,
    // where reading `null` as no result left the agent waiting for ever.
    let mut wire = Wire::start(&[]);
    let (_, asked_id) = wire.prompt_until_asked();
    wire.send(&json!({"jsonrpc": "2.0", "id": asked_id, "result": null}).to_string());
    let rest = wire.until_response(&json!("p"));
    let answered = rest.last().expect("the prompt's response");
    assert!(answered["result"]["stopReason"].is_string(), "{answered}");
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0), "{}", ended.stderr);
}
