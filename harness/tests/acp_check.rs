//! The ACP checker (`harness::check::acp`) on whole conversations: each rule's
//! findings, their severities, lines and messages, and conversations that must never
//! make it panic. The conversations are spelled out here, as a client and an agent
//! write them, apart from the library's sources (whose wire names stand in the
//! dialect's wire model only).

use harness::check::{Elided, Report, Rule, Severity};
use harness::dialects::cursor_acp::check::{check_conversation, AcpChecker, Side};
use harness::frames::Exit;
use serde_json::{json, Value};

const S: &str = "5d0c6c1e-7ead-4fd6-9922-e952131177ff";
/// Cursor's shape of a tool call id: a newline inside.
const CALL: &str = "call-7f3a-0\nfc_0b1c_0";

fn client(value: Value) -> (Side, String) {
    (Side::Client, value.to_string())
}

fn agent(value: Value) -> (Side, String) {
    (Side::Agent, value.to_string())
}

fn request(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn update(session: &str, update: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": update}})
}

fn chunk(text: &str) -> Value {
    update(
        S,
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}),
    )
}

fn handshake() -> Vec<(Side, String)> {
    vec![
        client(request(
            json!(0),
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": false}, "terminal": false}}),
        )),
        agent(result(
            json!(0),
            json!({"protocolVersion": 1, "agentCapabilities": {"loadSession": true}, "authMethods": [{"id": "cursor_login", "name": "Cursor Login"}]}),
        )),
        client(request(
            json!(1),
            "session/new",
            json!({"cwd": "/work", "mcpServers": []}),
        )),
        agent(result(json!(1), json!({"sessionId": S}))),
        agent(update(
            S,
            json!({"sessionUpdate": "available_commands_update", "availableCommands": []}),
        )),
    ]
}

fn prompt(id: u64) -> (Side, String) {
    client(request(
        json!(id),
        "session/prompt",
        json!({"sessionId": S, "prompt": [{"type": "text", "text": "Run: echo hello"}]}),
    ))
}

fn end_turn(id: u64) -> (Side, String) {
    agent(result(json!(id), json!({"stopReason": "end_turn"})))
}

/// A whole conversation: the handshake, then a turn with a shell command the
/// client allows once.
fn shell_turn() -> Vec<(Side, String)> {
    let mut lines = handshake();
    lines.extend([
        prompt(2),
        agent(update(
            S,
            json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "`echo hello`", "kind": "execute", "status": "pending"}),
        )),
        agent(request(
            json!(0),
            "session/request_permission",
            json!({"sessionId": S, "toolCall": {"toolCallId": "t1"}, "options": [
                {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
                {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}
            ]}),
        )),
        client(result(json!(0), json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}}))),
        agent(update(
            S,
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "hello"}}]}),
        )),
        agent(chunk("Printed hello.")),
        end_turn(2),
    ]);
    lines
}

fn check(lines: &[(Side, String)], exit: Option<Exit>) -> Report {
    check_conversation(lines.iter().map(|(side, line)| (*side, line.as_str())), exit)
}

/// The findings as (severity, rule, line).
fn found(report: &Report) -> Vec<(Severity, &'static str, u64)> {
    report
        .findings
        .iter()
        .map(|f| (f.severity, f.rule.as_str(), f.line))
        .collect()
}

/// The findings are these (severity, rule, line), and the first of them say these
/// messages.
#[track_caller]
fn assert_findings(report: &Report, expected: &[(Severity, &str, u64)], messages: &[&str]) {
    assert_eq!(found(report), expected, "{report:?}");
    for (finding, message) in report.findings.iter().zip(messages) {
        assert_eq!(finding.message, *message);
    }
}

fn with(mut lines: Vec<(Side, String)>, at: usize, line: (Side, String)) -> Vec<(Side, String)> {
    lines.insert(at, line);
    lines
}

#[test]
fn a_whole_conversation_passes_clean() {
    let report = check(&shell_turn(), Some(Exit::Code(0)));
    assert_eq!(report.findings, vec![]);
    assert_eq!(report.summary(), "0 error(s), 0 warning(s)");
}

#[test]
fn json_rpc_shapes_are_errors_from_the_agent_and_warnings_from_the_client() {
    let lines = vec![
        (Side::Agent, "[debug] warming up".to_owned()),
        (Side::Agent, r#"{"id":0,"result":{}}"#.to_owned()),
        (
            Side::Agent,
            r#"{"jsonrpc":"2.0","id":0,"result":{},"error":{"code":1,"message":"x"}}"#.to_owned(),
        ),
        (
            Side::Agent,
            r#"{"jsonrpc":"2.0","id":null,"method":"session/update"}"#.to_owned(),
        ),
        (
            Side::Agent,
            r#"{"jsonrpc":"2.0","id":[1],"method":"x"}"#.to_owned(),
        ),
        (
            Side::Agent,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":"bad"}}"#.to_owned(),
        ),
        (
            Side::Agent,
            r#"{"jsonrpc":"2.0","method":"session/update","params":7}"#.to_owned(),
        ),
        (Side::Client, "not json".to_owned()),
        (
            Side::Client,
            r#"{"jsonrpc":"1.0","method":"session/cancel","params":{}}"#.to_owned(),
        ),
    ];
    let report = check(&lines, None);
    let json_rpc: Vec<(Severity, u64)> = report
        .findings
        .iter()
        .filter(|f| f.rule == Rule::JsonRpc)
        .map(|f| (f.severity, f.line))
        .collect();
    assert_eq!(
        json_rpc,
        [
            (Severity::Error, 1),
            (Severity::Error, 2),
            (Severity::Error, 3),
            (Severity::Error, 4),
            (Severity::Error, 5)
        ],
        "{report:#?}"
    );
    // Past five, only counted: two errors, two warnings.
    assert_eq!(
        report.elided,
        [Elided {
            rule: Rule::JsonRpc,
            errors: 2,
            warnings: 2,
            notes: 0
        }]
    );
    assert!(report.findings[0]
        .message
        .starts_with("the agent's line: a line that is not JSON"));
    let client_only = check(&[(Side::Client, "not json".to_owned())], None);
    assert_eq!(found(&client_only), [(Severity::Warning, "json-rpc", 1)]);
    // A parse error's response to a line that could not be read has a null id.
    let parse_error = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
    assert_eq!(
        check(&[(Side::Client, parse_error.to_owned())], None).findings,
        vec![]
    );
}

#[test]
fn each_request_is_answered_once_with_its_id_in_both_directions() {
    let lines = shell_turn();
    // The agent answers the prompt twice.
    let twice = with(lines.clone(), lines.len(), end_turn(2));
    assert_eq!(
        found(&check(&twice, Some(Exit::Code(0)))),
        [(Severity::Error, "answered-once", 13)]
    );
    // The client answers a permission request that was never asked.
    let unasked = with(
        lines.clone(),
        lines.len(),
        client(result(json!(9), json!({"outcome": {"outcome": "cancelled"}}))),
    );
    let report = check(&unasked, None);
    assert_eq!(found(&report), [(Severity::Error, "answered-once", 13)]);
    assert!(
        report.findings[0].message.contains("no request of the agent's"),
        "{report:?}"
    );
    // The agent answers with an id the client never used.
    let wrong_id = {
        let mut l = lines.clone();
        l[11] = end_turn(7);
        l
    };
    let found_wrong = found(&check(&wrong_id, Some(Exit::Code(0))));
    assert_eq!(
        found_wrong,
        [
            (Severity::Warning, "answered-once", 6),
            (Severity::Error, "answered-once", 12)
        ]
    );
    // A request id reused while the first waits.
    let reused = with(handshake(), 5, prompt(2));
    let reused = with(reused, 6, prompt(2));
    let report = check(&reused, None);
    assert!(
        found(&report).contains(&(Severity::Error, "answered-once", 7)),
        "{report:?}"
    );
}

#[test]
fn requests_still_waiting_at_the_end_are_warnings_that_say_why() {
    // The agent dies while its permission request waits.
    let lines: Vec<_> = shell_turn().into_iter().take(8).collect();
    let report = check(&lines, Some(Exit::Code(1)));
    assert_findings(
        &report,
        &[
            (Severity::Warning, "answered-once", 6),
            (Severity::Warning, "answered-once", 8),
        ],
        &[
            "the agent never answers `session/prompt` 2: the agent ended (exit code 1) first",
            "the client never answers the agent's `session/request_permission` 0: the agent ended (exit code 1) first",
        ],
    );
    assert!(report.passes());
}

#[test]
fn no_update_of_a_turn_after_its_response() {
    let mut lines = shell_turn();
    lines.push(agent(chunk("one more thing")));
    lines.push(agent(chunk("and another")));
    let report = check(&lines, Some(Exit::Code(0)));
    assert_eq!(found(&report), [(Severity::Error, "turn-order", 13)]);
    // Updates that are not the turn's may come at any time.
    let mut lines = shell_turn();
    lines.push(agent(update(
        S,
        json!({"sessionUpdate": "current_mode_update", "currentModeId": "plan"}),
    )));
    assert_eq!(check(&lines, Some(Exit::Code(0))).findings, vec![]);
    // The next prompt opens a new turn.
    let mut lines = shell_turn();
    lines.extend([prompt(3), agent(chunk("again")), end_turn(3)]);
    assert_eq!(check(&lines, Some(Exit::Code(0))).findings, vec![]);
}

#[test]
fn updates_name_only_sessions_that_were_created() {
    // A session nobody created.
    let lines = with(
        shell_turn(),
        11,
        agent(update("s-9", json!({"sessionUpdate": "plan", "entries": []}))),
    );
    let report = check(&lines, Some(Exit::Code(0)));
    assert_eq!(found(&report), [(Severity::Error, "known-session", 12)]);
    // An update before the response that creates its session: a warning.
    let early = with(
        shell_turn(),
        3,
        agent(update(
            S,
            json!({"sessionUpdate": "available_commands_update", "availableCommands": []}),
        )),
    );
    let report = check(&early, Some(Exit::Code(0)));
    assert_eq!(found(&report), [(Severity::Warning, "known-session", 4)]);
    assert!(report.findings[0]
        .message
        .contains("before the `session/new` response (line 5)"));
    // session/load replays its history before its result.
    let mut load = handshake()[..2].to_vec();
    load.extend([
        client(request(
            json!(1),
            "session/load",
            json!({"sessionId": "old", "cwd": "/w", "mcpServers": []}),
        )),
        agent(update(
            "old",
            json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "hi"}}),
        )),
        agent(update(
            "old",
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hello"}}),
        )),
        agent(result(json!(1), json!({}))),
    ]);
    assert_eq!(check(&load, Some(Exit::Code(0))).findings, vec![]);
}

#[test]
fn a_tool_call_comes_before_its_updates() {
    let lines = shell_turn();
    let update_first = {
        let mut l = lines.clone();
        l.swap(6, 9); // the tool_call_update where the tool_call was
        l.remove(9);
        l
    };
    let report = check(&update_first, Some(Exit::Code(0)));
    assert!(
        found(&report).contains(&(Severity::Error, "tool-call-pairs", 7)),
        "{report:#?}"
    );
    let again = with(lines.clone(), 7, lines[6].clone());
    assert_eq!(
        found(&check(&again, Some(Exit::Code(0)))),
        [(Severity::Warning, "tool-call-pairs", 8)]
    );
}

#[test]
fn a_prompt_ends_with_a_stop_reason_acp_defines() {
    let mut lines = shell_turn();
    let last = lines.len() - 1;
    lines[last] = agent(result(json!(2), json!({"stopReason": "done"})));
    assert_eq!(
        found(&check(&lines, Some(Exit::Code(0)))),
        [(Severity::Error, "stop-reason", 12)]
    );
    lines[last] = agent(result(json!(2), json!({})));
    assert_eq!(
        found(&check(&lines, Some(Exit::Code(0)))),
        [(Severity::Error, "stop-reason", 12)]
    );
    // An error ends a turn too.
    lines[last] = agent(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "boom"}}));
    assert_eq!(check(&lines, Some(Exit::Code(0))).findings, vec![]);
    // A cancelled turn that ends otherwise.
    let mut cancelled = handshake();
    cancelled.extend([
        prompt(2),
        agent(chunk("Let me")),
        client(json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": S}})),
        end_turn(2),
    ]);
    let report = check(&cancelled, Some(Exit::Code(0)));
    assert_eq!(found(&report), [(Severity::Warning, "stop-reason", 9)]);
    let last = cancelled.len() - 1;
    cancelled[last] = agent(result(json!(2), json!({"stopReason": "cancelled"})));
    assert_eq!(check(&cancelled, Some(Exit::Code(0))).findings, vec![]);
}

#[test]
fn the_agent_asks_only_for_advertised_capabilities() {
    let mut lines = handshake();
    lines.extend([
        prompt(2),
        agent(request(
            json!(0),
            "fs/read_text_file",
            json!({"sessionId": S, "path": "/work/a"}),
        )),
        client(result(json!(0), json!({"content": "a"}))),
        agent(request(
            json!(1),
            "fs/write_text_file",
            json!({"sessionId": S, "path": "/work/a", "content": "b"}),
        )),
        client(result(json!(1), json!(null))),
        agent(request(
            json!(2),
            "terminal/create",
            json!({"sessionId": S, "command": "ls"}),
        )),
        client(result(json!(2), json!({"terminalId": "x"}))),
        end_turn(2),
    ]);
    assert_findings(
        &check(&lines, Some(Exit::Code(0))),
        &[(Severity::Error, "capability", 9), (Severity::Error, "capability", 11)],
        &["the agent asks `fs/write_text_file`, but the client's `initialize` (line 1) did not advertise clientCapabilities.fs.writeTextFile"],
    );
}

#[test]
fn unknown_update_kinds_and_methods_are_warnings() {
    let mut lines = shell_turn();
    lines.insert(
        11,
        agent(update(S, json!({"sessionUpdate": "telemetry_update", "n": 1}))),
    );
    lines.insert(
        5,
        client(request(json!(7), "session/archive", json!({"sessionId": S}))),
    );
    lines.insert(6, agent(result(json!(7), json!({}))));
    lines.insert(
        7,
        client(json!({"jsonrpc": "2.0", "method": "_zed/ping", "params": {}})),
    );
    let report = check(&lines, Some(Exit::Code(0)));
    assert_eq!(
        found(&report),
        [
            (Severity::Warning, "method", 6),
            (Severity::Warning, "update-kind", 15)
        ]
    );
    assert!(report.passes());
}

#[test]
fn cursor_s_habits_are_notes_once_per_file_and_ask_question_a_warning() {
    let mut lines = handshake();
    lines[3] = agent(result(
        json!(1),
        json!({"sessionId": S, "models": {"currentModelId": "auto", "availableModels": []}}),
    ));
    for n in 0..2 {
        let id = format!("{CALL}{n}");
        lines.extend([
            agent(update(
                S,
                json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": "`ls`", "kind": "execute", "status": "pending"}),
            )),
            agent(update(
                S,
                json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "completed", "rawOutput": {"exitCode": 0}}),
            )),
        ]);
    }
    lines.push(agent(request(
        json!(0),
        "cursor/ask_question",
        json!({"sessionId": S, "question": "Which?"}),
    )));
    lines.push(client(result(
        json!(0),
        json!({"outcome": {"outcome": "skipped"}}),
    )));
    let report = check(&lines, Some(Exit::Code(0)));
    assert_findings(
        &report,
        &[
            (Severity::Note, "cursor-habit", 4),
            (Severity::Note, "cursor-habit", 6),
            (Severity::Note, "cursor-habit", 7),
            (Severity::Warning, "cursor-habit", 10),
        ],
        &[],
    );
    assert_eq!(report.summary(), "0 error(s), 1 warning(s), 3 note(s)");
    assert!(report.passes());
}

#[test]
fn the_agent_s_messages_have_the_fields_acp_requires() {
    let mut lines = shell_turn();
    lines[1] = agent(result(json!(0), json!({"protocolVersion": "1"})));
    lines[6] = agent(update(
        S,
        json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "kind": "shell"}),
    ));
    lines[8] = client(result(
        json!(0),
        json!({"outcome": {"outcome": "selected", "optionId": "allow-always"}}),
    ));
    lines[10] = agent(update(
        S,
        json!({"sessionUpdate": "agent_message_chunk", "text": "Printed hello."}),
    ));
    let report = check(&lines, Some(Exit::Code(0)));
    assert_eq!(
        found(&report),
        [
            (Severity::Error, "fields", 2),
            (Severity::Error, "fields", 2),
            (Severity::Error, "fields", 7),
            (Severity::Warning, "tool-kind", 7),
            (Severity::Warning, "fields", 9),
            (Severity::Error, "fields", 11)
        ]
    );
    assert_eq!(
        report.findings[4].message,
        "the client's answer to `session/request_permission` selects `allow-always`, which the request (line 8) did not offer"
    );
    let mut lines = shell_turn();
    lines[7] = agent(request(
        json!(0),
        "session/request_permission",
        json!({"sessionId": S, "toolCall": {}, "options": [{"optionId": "ok", "name": "OK", "kind": "yes"}]}),
    ));
    let report = check(&lines, Some(Exit::Code(0)));
    // The client then selects an option the request did not offer.
    assert_eq!(
        found(&report),
        [(Severity::Error, "fields", 8), (Severity::Warning, "fields", 9)]
    );
    assert_eq!(
        report.findings[0].message,
        "the `session/request_permission` request has no `toolCall.toolCallId`; an option of kind `yes` (ACP's are allow_once, allow_always, reject_once, reject_always)"
    );
}

#[test]
fn past_the_first_few_findings_of_a_rule_only_counts_are_kept() {
    let mut checker = AcpChecker::new().shown_per_rule(2);
    for line in 1..=100_000 {
        checker.line(line, Side::Agent, b"[noise]");
    }
    let report = checker.finish(Some(Exit::Code(0)));
    assert_eq!(report.findings.len(), 2);
    assert_eq!(report.count(Severity::Error), 100_000);
    assert_eq!(report.elided[0].errors, 99_998);
}

/// Every value of every line of a curated conversation replaced in turn by a value
/// of another type: the checker finds what it finds, and never panics.
#[test]
fn no_mutation_of_a_conversation_makes_it_panic() {
    const CASSETTE: &str = include_str!("../../cassettes/acp/shell-permission.cassette");
    let lines: Vec<(Side, Value)> = CASSETTE
        .lines()
        .skip(1)
        .filter_map(|frame| {
            let frame: Value = serde_json::from_str(frame).ok()?;
            match (frame.get("in"), frame.get("out")) {
                (Some(line), _) => Some((Side::Client, line.clone())),
                (_, Some(line)) => Some((Side::Agent, line.clone())),
                _ => None,
            }
        })
        .collect();
    assert!(lines.len() > 10);
    let clean = check(
        &lines
            .iter()
            .map(|(side, v)| (*side, v.to_string()))
            .collect::<Vec<_>>(),
        Some(Exit::Code(0)),
    );
    assert!(clean.passes(), "{clean:?}");
    let replacements = [
        json!(null),
        json!(0),
        json!(-1.5),
        json!("x\n"),
        json!([]),
        json!({}),
    ];
    let mut conversations = 0;
    for at in 0..lines.len() {
        for path in paths(&lines[at].1) {
            for replacement in &replacements {
                let mut mutated = lines.clone();
                if let Some(slot) = mutated[at].1.pointer_mut(&path) {
                    *slot = replacement.clone();
                }
                let text: Vec<(Side, String)> =
                    mutated.iter().map(|(side, v)| (*side, v.to_string())).collect();
                let _ = check(&text, Some(Exit::Code(0)));
                conversations += 1;
            }
        }
    }
    assert!(conversations > 1000, "{conversations}");
}

/// The JSON pointers of every value inside `value` (not the root).
fn paths(value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![(String::new(), value)];
    while let Some((path, value)) = stack.pop() {
        let children: Vec<(String, &Value)> = match value {
            Value::Object(map) => map.iter().map(|(k, v)| (format!("{path}/{k}"), v)).collect(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (format!("{path}/{i}"), v))
                .collect(),
            _ => Vec::new(),
        };
        for (child, v) in children {
            found.push(child.clone());
            stack.push((child, v));
        }
    }
    found
}
