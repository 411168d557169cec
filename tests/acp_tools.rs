//! The client's answers to the agent's file and terminal requests, as a client can
//! give them badly (an error, never), and the agent as the real one goes on: the tool
//! fails and the turn ends, or the turn waits until the client cancels it.

use std::io::{BufRead, BufReader, Write};

use serde_json::{json, Value};

/// A turn of the default conversation with a client that offers `capabilities`:
/// initialize, session/new, a prompt; each agent request answered by `answer` (none:
/// never), and, when `cancel` says so of a request just asked, a `session/cancel`.
/// The agent's messages of the turn, up to the prompt's response, and how it exited.
fn turn(
    capabilities: Value,
    mut answer: impl FnMut(&Value) -> Option<Value>,
    cancel: impl Fn(&Value) -> bool,
) -> (Vec<Value>, Option<i32>) {
    let mut child = crate::support::acp_server(&[]);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut next = || -> Value {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).expect("reads") > 0, "stdout ended");
        serde_json::from_str(&line).expect("a JSON message")
    };
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1, "clientCapabilities": capabilities}});
    let new = json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/tmp", "mcpServers": []}});
    writeln!(stdin, "{init}\n{new}").expect("writes");
    let session = loop {
        let message = next();
        if message["id"] == 1 && message.get("method").is_none() {
            break message["result"]["sessionId"].clone();
        }
    };
    let prompt = json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}});
    writeln!(stdin, "{prompt}").expect("writes");
    let mut messages = Vec::new();
    loop {
        let message = next();
        messages.push(message.clone());
        if message["id"] == 2 && message.get("method").is_none() {
            break;
        }
        if message.get("method").is_none() || message.get("id").is_none() {
            continue;
        }
        if let Some(answer) = answer(&message) {
            let mut reply = json!({"jsonrpc": "2.0", "id": message["id"]});
            match answer.get("error") {
                Some(error) => reply["error"] = error.clone(),
                None => reply["result"] = answer,
            }
            writeln!(stdin, "{reply}").expect("writes");
        }
        if cancel(&message) {
            let cancel =
                json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}});
            writeln!(stdin, "{cancel}").expect("writes");
        }
    }
    drop(stdin);
    (messages, child.wait().expect("waits").code())
}

fn allow_once() -> Value {
    json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}})
}

/// The methods of the agent's requests but permissions, in order.
fn asked(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .filter(|m| m.get("id").is_some() && m["method"] != "session/request_permission")
        .filter_map(|m| m["method"].as_str())
        .collect()
}

#[test]
fn a_terminal_wait_answered_with_an_error_fails_the_tool_and_the_terminal_is_still_released() {
    let (messages, code) = turn(
        json!({"terminal": true}),
        |request| {
            Some(match request["method"].as_str() {
                Some("session/request_permission") => allow_once(),
                Some("terminal/create") => json!({"terminalId": "term-1"}),
                Some("terminal/wait_for_exit") => {
                    json!({"error": {"code": -32603, "message": "the terminal is gone"}})
                }
                Some("terminal/output") => json!({"output": "", "truncated": false}),
                _ => json!({}),
            })
        },
        |_| false,
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        asked(&messages),
        [
            "terminal/create",
            "terminal/wait_for_exit",
            "terminal/output",
            "terminal/release"
        ]
    );
    let released = messages
        .iter()
        .find(|m| m["method"] == "terminal/release")
        .expect("released");
    assert_eq!(released["params"]["terminalId"], "term-1");
    let ended = messages
        .iter()
        .map(|m| &m["params"]["update"])
        .rfind(|u| u["sessionUpdate"] == "tool_call_update")
        .expect("the tool's end");
    assert_eq!(ended["status"], "failed", "{ended}");
    assert_eq!(ended["rawOutput"]["error"], "the terminal is gone");
    assert_eq!(
        messages.last().expect("the response")["result"]["stopReason"],
        "end_turn"
    );
}

#[test]
fn a_file_write_answered_with_an_error_fails_the_tool_and_the_turn_goes_on() {
    let (messages, code) = turn(
        json!({"fs": {"readTextFile": true, "writeTextFile": true}}),
        |request| {
            Some(match request["method"].as_str() {
                Some("session/request_permission") => allow_once(),
                Some("fs/read_text_file") => json!({"content": "# Title\n"}),
                Some("fs/write_text_file") => {
                    json!({"error": {"code": -32603, "message": "Permission denied"}})
                }
                _ => json!({}),
            })
        },
        |_| false,
    );
    assert_eq!(code, Some(0));
    assert_eq!(asked(&messages), ["fs/read_text_file", "fs/write_text_file"]);
    let statuses: Vec<&Value> = messages
        .iter()
        .map(|m| &m["params"]["update"])
        .filter(|u| u["sessionUpdate"] == "tool_call_update" && u.get("status").is_some())
        .map(|u| &u["status"])
        .collect();
    assert!(statuses.contains(&&json!("failed")), "{statuses:?}");
    let failed = messages
        .iter()
        .map(|m| &m["params"]["update"])
        .find(|u| u["status"] == "failed")
        .expect("the write's end");
    assert_eq!(failed["rawOutput"]["error"], "Permission denied");
    // The turn went on to its answer.
    assert!(messages
        .iter()
        .any(|m| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk"));
    assert_eq!(
        messages.last().expect("the response")["result"]["stopReason"],
        "end_turn"
    );
}

#[test]
fn a_terminal_command_that_never_exits_waits_until_the_client_cancels_the_turn_and_is_released() {
    let (messages, code) = turn(
        json!({"terminal": true}),
        |request| match request["method"].as_str() {
            Some("session/request_permission") => Some(allow_once()),
            Some("terminal/create") => Some(json!({"terminalId": "term-1"})),
            // The command runs for ever: no answer.
            _ => None,
        },
        |request| request["method"] == "terminal/wait_for_exit",
    );
    assert_eq!(code, Some(0));
    let wait = messages
        .iter()
        .find(|m| m["method"] == "terminal/wait_for_exit")
        .expect("the agent waits for the command");
    let tail: Vec<&Value> = messages.iter().skip_while(|m| *m != wait).skip(1).collect();
    assert_eq!(tail.len(), 3, "{tail:#?}");
    assert_eq!(tail[0]["method"], "$/cancel_request");
    assert_eq!(tail[0]["params"]["requestId"], wait["id"]);
    // The command is killed: the terminal released, as the protocol has the agent do.
    assert_eq!(tail[1]["method"], "terminal/release");
    assert_eq!(tail[1]["params"]["terminalId"], "term-1");
    assert!(tail[1]["id"].as_u64() > wait["id"].as_u64(), "an id of its own");
    assert_eq!(tail[2]["result"]["stopReason"], "cancelled");
}
