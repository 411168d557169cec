//! A client's files and terminals as server mode uses them: a client written with the
//! ACP crate that offers them, refuses them or offers nothing, one that answers a
//! file read never or late (hand-written JSON lines), and generated conversations,
//! which ask only a client that offers them.

use std::time::Duration;

use agent_client_protocol::v1::schema::{SessionNotification, SessionUpdate, StopReason};
use serde_json::{json, Value};

use crate::acp::{
    assert_tool_calls_end, handshake_offering, kinds, new_session, offering, prompt, Tap, CLIENT_OUTPUT,
    CLIENT_README, CLIENT_TERMINAL,
};
use crate::acp_wire::{allow_once, request, tag, Wire};
use crate::support::{bin, root};

/// The update of tool call `id` that ends it (`completed` or `failed`), as JSON.
fn ending_of(turn: &[SessionNotification], id: &str) -> Value {
    turn.iter()
        .filter_map(|n| match &n.update {
            SessionUpdate::ToolCallUpdate(update) if &*update.tool_call_id.0 == id => {
                serde_json::to_value(update).ok()
            }
            _ => None,
        })
        .rfind(|u| u["status"] == "completed" || u["status"] == "failed")
        .unwrap_or_else(|| panic!("no ending of {id}"))
}

/// The methods of the agent's file and terminal requests the client saw.
fn tools_asked(tap: &Tap) -> Vec<String> {
    let seen = tap.seen.lock().expect("lock");
    seen.tools.iter().map(|(method, _)| method.clone()).collect()
}

/// The default conversation, a client written with the ACP crate offering its files
/// and a terminal: the agent reads README.md and writes summary.txt through the
/// client, then checks its work in the client's terminal; what it reports of each
/// tool is what the client answered.
#[tokio::test]
async fn a_client_that_offers_files_and_a_terminal_sees_the_agent_use_them() {
    let tap = Tap::new();
    let agent = tap.agent(&bin(), &["acp"], &[]);
    tap.run(agent, async |cx| {
        let turn = tap.turn_offering(&cx, offering(true), "hi").await?;
        let calls = assert_tool_calls_end(&turn);
        assert_eq!(calls.len(), 3, "read, write, check: {:?}", kinds(&turn));
        let read = ending_of(&turn, &calls[0]);
        assert_eq!(read["rawOutput"]["success"]["content"], CLIENT_README, "{read}");
        let written = ending_of(&turn, &calls[1]);
        assert_eq!(written["content"][0]["type"], "diff", "{written}");
        let check = ending_of(&turn, &calls[2]);
        assert_eq!(check["status"], "completed");
        assert_eq!(check["rawOutput"]["stdout"], CLIENT_OUTPUT, "{check}");
        let shown = turn.iter().any(|n| {
            serde_json::to_value(&n.update).is_ok_and(|u| u["content"][0]["terminalId"] == CLIENT_TERMINAL)
        });
        assert!(shown, "the tool shows the client's terminal");
        Ok(())
    })
    .await
    .expect("the session succeeds");
    assert_eq!(
        tools_asked(&tap),
        [
            "fs/read_text_file",
            "fs/write_text_file",
            "terminal/create",
            "terminal/wait_for_exit",
            "terminal/output",
            "terminal/release"
        ]
    );
    let seen = tap.seen.lock().expect("lock");
    let root = root().canonicalize().expect("root");
    assert_eq!(
        seen.tools[0].1["path"],
        root.join("README.md").to_str().expect("utf-8"),
        "an absolute path in the session's folder"
    );
    assert!(seen.tools[1].1["content"]
        .as_str()
        .is_some_and(|c| c.starts_with("# README Summary")));
    assert_eq!(seen.tools[2].1["cwd"], root.to_str().expect("utf-8"));
    for (method, params) in &seen.tools[3..] {
        assert_eq!(params["terminalId"], CLIENT_TERMINAL, "{method}");
    }
}

/// The client refuses its file read and its terminal: the agent reports those tools
/// failed and goes on to the end of its turn, as the real agent does.
#[tokio::test]
async fn a_client_that_refuses_its_tools_sees_them_fail_and_the_turn_end() {
    let tap = Tap::new();
    tap.seen.lock().expect("lock").refuse = vec!["fs/read_text_file", "terminal/create"];
    let agent = tap.agent(&bin(), &["acp"], &[]);
    tap.run(agent, async |cx| {
        let turn = tap.turn_offering(&cx, offering(true), "hi").await?;
        let calls = assert_tool_calls_end(&turn);
        let statuses: Vec<Value> = calls
            .iter()
            .map(|id| ending_of(&turn, id)["status"].clone())
            .collect();
        assert_eq!(statuses, ["failed", "completed", "failed"]);
        let read = ending_of(&turn, &calls[0]);
        assert!(read["rawOutput"]["error"].is_string(), "{read}");
        Ok(())
    })
    .await
    .expect("the session succeeds");
    assert_eq!(
        tools_asked(&tap),
        ["fs/read_text_file", "fs/write_text_file", "terminal/create"],
        "no terminal to wait for or release"
    );
}

/// A client that offers nothing is asked nothing of its files or terminals: the
/// agent does the work itself, as print mode tells it.
#[tokio::test]
async fn a_client_that_offers_nothing_is_asked_nothing_of_its_files_or_terminals() {
    let tap = Tap::new();
    let agent = tap.agent(&bin(), &["acp"], &[]);
    tap.run(agent, async |cx| {
        handshake_offering(&cx, offering(false)).await?;
        let (session, _) = new_session(&cx).await?;
        assert_eq!(prompt(&cx, &session, "hi").await?, StopReason::EndTurn);
        Ok(())
    })
    .await
    .expect("the session succeeds");
    assert_eq!(tools_asked(&tap), Vec::<String>::new());
    let seen = tap.seen.lock().expect("lock");
    assert!(
        !seen
            .stdout
            .iter()
            .any(|l| l.contains("\"fs/") || l.contains("\"terminal/")),
        "{:#?}",
        seen.stdout
    );
}

/// A client that never answers the agent's file read: the agent waits, as for a
/// permission, and a cancel ends the turn (withdrawing the request).
#[test]
fn a_file_read_never_answered_waits_and_a_cancel_ends_the_turn() {
    let mut wire = Wire::start(&[]);
    let session =
        wire.start_turn(&json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true}));
    let asked = wire.until_request("fs/read_text_file");
    let asked_id = asked.last().expect("asked")["id"].clone();
    wire.send(
        &json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}).to_string(),
    );
    let rest = wire.until_response(&json!("p"));
    let tags: Vec<String> = rest.iter().map(tag).collect();
    assert_eq!(tags, ["$/cancel_request", "response"], "{rest:#?}");
    assert_eq!(rest[0]["params"]["requestId"], asked_id);
    assert_eq!(rest[1]["result"]["stopReason"], "cancelled");
    let ended = wire.close();
    assert_eq!(ended.code, Some(0));
}

/// A client that answers the agent's file read late, after another request: the
/// request waits its turn, and the turn goes on with what the client read.
#[test]
fn a_file_read_answered_late_goes_on_with_what_the_client_read() {
    let mut wire = Wire::start(&[]);
    let session = wire.start_turn(&json!({"fs": {"readTextFile": true}}));
    let asked = wire.until_request("fs/read_text_file");
    let asked_id = asked.last().expect("asked")["id"].clone();
    wire.send(&request(
        r#""m""#,
        "session/set_mode",
        &json!({"sessionId": session, "modeId": "ask"}),
    ));
    std::thread::sleep(Duration::from_millis(300));
    wire.send(&json!({"jsonrpc": "2.0", "id": asked_id, "result": {"content": "read late"}}).to_string());
    let mut rest = Vec::new();
    loop {
        let message = wire.json();
        if message["method"] == "session/request_permission" {
            wire.send(&allow_once(&message["id"]));
        }
        let done = message.get("method").is_none() && message["id"] == "m";
        rest.push(message);
        if done {
            break;
        }
    }
    let read = &rest[0]["params"]["update"];
    assert_eq!(read["status"], "completed", "{rest:#?}");
    assert_eq!(read["rawOutput"]["success"]["content"], "read late");
    let responses: Vec<&Value> = rest
        .iter()
        .filter(|m| m.get("method").is_none())
        .map(|m| &m["id"])
        .collect();
    assert_eq!(responses, [&json!("p"), &json!("m")], "the setter waits its turn");
    // The write and the terminal were not offered: not asked.
    assert!(!rest
        .iter()
        .any(|m| m["method"] == "fs/write_text_file" || m["method"] == "terminal/create"));
    assert_eq!(wire.close().code, Some(0));
}

/// Drives a generated conversation (`MOCK_AGENT_GENERATE=seed`): `initialize`
/// offering `offered`, `session/new`, one prompt, each agent request answered (the
/// client's terminal named `live-term`); the agent's messages of the turn.
fn generated_turn(seed: u64, offered: &Value) -> Vec<Value> {
    let seed = seed.to_string();
    let mut wire = Wire::start(&[("MOCK_AGENT_GENERATE", &seed)]);
    wire.start_turn(offered);
    let mut turn = Vec::new();
    loop {
        let message = wire.json();
        let done = message.get("method").is_none() && message["id"] == "p";
        if let (Some(method), Some(id)) = (message["method"].as_str(), message.get("id")) {
            let result = match method {
                "session/request_permission" => {
                    json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}})
                }
                "fs/read_text_file" => json!({"content": "live"}),
                "terminal/create" => json!({"terminalId": "live-term"}),
                "terminal/wait_for_exit" => json!({"exitCode": 0}),
                "terminal/output" => json!({"output": "", "truncated": false}),
                _ => json!({}),
            };
            wire.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string());
        }
        turn.push(message);
        if done {
            return turn;
        }
    }
}

/// A generated conversation whose client offered files and a terminal: a client
/// that offers them sees the agent's requests (naming the terminal it made); one
/// that offers nothing sees none, nor a terminal in a tool call.
#[test]
fn generated_conversations_ask_only_clients_that_offer_files_and_terminals() {
    use harness::dialects::cursor_acp::generate::{from_seed, ConversationConfig};
    let config = ConversationConfig::default();
    // A seed whose first turn runs a command in the client's terminal and reads a file.
    let seed = (0..500u64)
        .find(|seed| {
            let summary = from_seed(*seed, &config).summary();
            let first_turn = summary.split("result #").take(4).collect::<String>();
            summary.lines().nth(2).is_some()
                && first_turn.contains("request terminal/create")
                && first_turn.contains("request fs/read_text_file")
                && from_seed(*seed, &config)
                    .messages
                    .iter()
                    .any(|m| m.line.contains("\"terminalId\":\"term-0\"") && m.line.contains("\"result\""))
        })
        .expect("a seed with a terminal and a file read in its first turn");
    let everything = json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true});
    let turn = generated_turn(seed, &everything);
    let asked: Vec<&str> = turn
        .iter()
        .filter(|m| m.get("id").is_some())
        .filter_map(|m| m["method"].as_str())
        .collect();
    assert!(
        asked.contains(&"fs/read_text_file") && asked.contains(&"terminal/create"),
        "seed {seed}: {asked:?}"
    );
    for message in turn.iter().filter(|m| {
        m["method"]
            .as_str()
            .is_some_and(|m| m.starts_with("terminal/") && m != "terminal/create")
    }) {
        assert_eq!(
            message["params"]["terminalId"], "live-term",
            "the client's terminal: {message}"
        );
    }
    let nothing = json!({});
    let turn = generated_turn(seed, &nothing);
    let lines: Vec<String> = turn.iter().map(Value::to_string).collect();
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("\"fs/") || l.contains("\"terminal/") || l.contains("\"terminalId\"")),
        "seed {seed}: {lines:#?}"
    );
}
