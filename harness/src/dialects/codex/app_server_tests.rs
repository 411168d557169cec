//! `codex app-server`'s player against the exchanges `REAL-CODEX.md` records from
//! codex-cli 0.163.0: the handshake, a turn, approvals allowed, declined and
//! cancelled, an interrupt, and the errors it really answers.

use serde_json::{json, Value};

use super::app_server::{Next, Options, Player};
use super::session::{default_session, End, Failure, Session, Turn, Usage};

const INITIALIZE: &str = r#"{"method":"initialize","id":0,"params":{"clientInfo":{"name":"codex_python_sdk","title":"Codex Python SDK","version":"0.163.0"},"capabilities":{"experimentalApi":true}}}"#;

fn player(session: Session) -> Player {
    Player::new(session, Options::new("/home/u/.codex", "/home/user/project", 7))
}

fn text(lines: &[Vec<u8>]) -> Vec<String> {
    lines
        .iter()
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect()
}

fn value(line: &[u8]) -> Value {
    serde_json::from_slice(line).expect("a JSON line")
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// Steps the player until it asks, waits or is done: the lines sent, and the request
/// it asked (its id and line), if any.
fn run(player: &mut Player) -> (Vec<Value>, Option<(i64, Value)>) {
    let mut sent = Vec::new();
    loop {
        match player.step() {
            Next::Send(line) => sent.push(value(&line)),
            Next::Ask { id, line } => return (sent, Some((id, value(&line)))),
            Next::Waiting | Next::Done => return (sent, None),
        }
    }
}

fn methods(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            let method = l["method"].as_str().unwrap_or_default();
            match l.pointer("/params/item/type").and_then(Value::as_str) {
                Some(kind) => format!("{method} {kind}"),
                None => method.to_owned(),
            }
        })
        .collect()
}

/// A player past the handshake with a thread of `policy`: the thread's id.
fn started(player: &mut Player, policy: &str) -> String {
    player.feed(INITIALIZE.as_bytes());
    player.feed(br#"{"method":"initialized"}"#);
    let start = format!(
        r#"{{"method":"thread/start","id":1,"params":{{"model":"gpt-5.5","approvalPolicy":"{policy}","sandbox":"workspace-write"}}}}"#
    );
    let reply = player.feed(start.as_bytes());
    value(&reply.lines[0])["result"]["thread"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn turn_start(player: &mut Player, thread: &str) -> Value {
    let line = format!(
        r#"{{"method":"turn/start","id":2,"params":{{"threadId":"{thread}","input":[{{"type":"text","text":"Say hello"}}]}}}}"#
    );
    let reply = player.feed(line.as_bytes());
    assert_eq!(reply.lines.len(), 1, "{:?}", text(&reply.lines));
    value(&reply.lines[0])
}

#[test]
fn the_handshake_as_observed() {
    let mut player = player(default_session("/w"));
    let early = player.feed(br#"{"method":"thread/start","id":1,"params":{}}"#);
    assert_eq!(
        text(&early.lines),
        [r#"{"error":{"code":-32600,"message":"Not initialized"},"id":1}"#]
    );
    // The handshake's notifications follow `initialize`'s answer at once (observed:
    // before the client's `initialized`).
    let reply = player.feed(INITIALIZE.as_bytes());
    assert_eq!(
        text(&reply.lines[..1]),
        [
            r#"{"id":0,"result":{"userAgent":"codex_python_sdk/0.163.0 (Debian 12.0.0; x86_64) unknown (codex_python_sdk; 0.163.0)","codexHome":"/home/u/.codex","platformFamily":"unix","platformOs":"linux"}}"#
        ]
    );
    assert!(player.feed(br#"{"method":"initialized"}"#).lines.is_empty());
    let after: Vec<Value> = reply.lines[1..].iter().map(|l| value(l)).collect();
    assert_eq!(methods(&after), ["configWarning", "remoteControl/status/changed"]);
    assert_eq!(keys(&after[0]), ["method", "params", "emittedAtMs"]);
    assert_eq!(keys(&after[0]["params"]), ["summary", "details"]);
    assert_eq!(after[1]["params"]["status"], "disabled");

    let again = player.feed(INITIALIZE.as_bytes());
    assert_eq!(
        text(&again.lines),
        [r#"{"error":{"code":-32600,"message":"Already initialized"},"id":0}"#]
    );
    let unknown = value(
        &player
            .feed(br#"{"method":"no/such","id":"u-1","params":{}}"#)
            .lines[0],
    );
    assert_eq!(unknown["error"]["code"], -32600);
    assert_eq!(unknown["id"], "u-1");
    let message = unknown["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(
            "Invalid request: unknown variant `no/such`, expected one of `initialize`, `thread/start`"
        ),
        "{message}"
    );
    let garbage = player.feed(b"not json");
    assert!(garbage.lines.is_empty());
    assert_eq!(
        garbage.stderr,
        ["ERROR codex_app_server_transport::transport: Failed to deserialize JSONRPCMessage: expected ident at line 1 column 2"]
    );
    // A client's `jsonrpc` member is accepted.
    let with = player.feed(br#"{"jsonrpc":"2.0","method":"thread/start","id":9,"params":{}}"#);
    assert_eq!(value(&with.lines[0])["id"], 9);
}

#[test]
fn thread_start_answers_then_tells_the_thread_started() {
    let mut player = player(default_session("/w"));
    player.feed(INITIALIZE.as_bytes());
    let reply = player.feed(br#"{"method":"thread/start","id":1,"params":{"model":"gpt-5.5"}}"#);
    let lines: Vec<Value> = reply.lines.iter().map(|l| value(l)).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(keys(&lines[0]), ["id", "result"]);
    let result = &lines[0]["result"];
    // The keys of 0.163.0, in its order (observed by `mock-agent drift`).
    assert_eq!(
        keys(result),
        [
            "thread",
            "model",
            "modelProvider",
            "serviceTier",
            "disabledPluginIds",
            "cwd",
            "runtimeWorkspaceRoots",
            "instructionSources",
            "approvalPolicy",
            "approvalsReviewer",
            "sandbox",
            "activePermissionProfile",
            "reasoningEffort",
            "multiAgentMode"
        ]
    );
    assert_eq!(
        keys(&result["thread"]),
        [
            "id",
            "environments",
            "extra",
            "sessionId",
            "forkedFromId",
            "parentThreadId",
            "preview",
            "ephemeral",
            "section",
            "sectionEnteredAt",
            "projectId",
            "historyMode",
            "modelProvider",
            "model",
            "reasoningEffort",
            "createdAt",
            "updatedAt",
            "recencyAt",
            "status",
            "path",
            "cwd",
            "cliVersion",
            "originator",
            "source",
            "canAcceptDirectInput",
            "threadSource",
            "agentNickname",
            "agentRole",
            "gitInfo",
            "name",
            "daybreakEnabled",
            "turns"
        ]
    );
    assert_eq!(result["approvalPolicy"], "on-request");
    assert_eq!(result["sandbox"]["type"], "workspaceWrite");
    assert_eq!(result["thread"]["originator"], "codex_python_sdk");
    let id = result["thread"]["id"].as_str().unwrap_or_default();
    assert_eq!(uuid::Uuid::parse_str(id).map(|u| u.get_version_num()), Ok(7));
    assert_eq!(lines[1]["method"], "thread/started");
    assert_eq!(lines[1]["params"]["thread"]["id"], id);
}

#[test]
fn a_turn_without_approvals() {
    let mut player = player(default_session("/w"));
    let thread = started(&mut player, "never");
    let answer = turn_start(&mut player, &thread);
    assert_eq!(
        keys(&answer["result"]["turn"]),
        [
            "id",
            "rootTurnId",
            "items",
            "itemsView",
            "status",
            "error",
            "startedAt",
            "completedAt",
            "durationMs"
        ]
    );
    assert_eq!(answer["result"]["turn"]["status"], "inProgress");
    let (lines, asked) = run(&mut player);
    assert!(asked.is_none());
    assert_eq!(
        methods(&lines),
        [
            "thread/status/changed",
            "turn/started",
            "item/started userMessage",
            "item/completed userMessage",
            "item/started reasoning",
            "item/completed reasoning",
            "item/started agentMessage",
            "item/agentMessage/delta",
            "item/completed agentMessage",
            "item/started commandExecution",
            "item/completed commandExecution",
            "thread/tokenUsage/updated",
            "account/rateLimits/updated",
            "item/started fileChange",
            "item/completed fileChange",
            "thread/tokenUsage/updated",
            "account/rateLimits/updated",
            "item/started agentMessage",
            "item/agentMessage/delta",
            "item/completed agentMessage",
            "thread/tokenUsage/updated",
            "account/rateLimits/updated",
            "thread/readState/changed",
            "thread/status/changed",
            "turn/completed"
        ]
    );
    let command = &lines[10]["params"]["item"];
    assert_eq!(
        keys(command),
        [
            "type",
            "id",
            "pluginId",
            "scriptPath",
            "command",
            "cwd",
            "processId",
            "source",
            "status",
            "commandActions",
            "aggregatedOutput",
            "exitCode",
            "durationMs"
        ]
    );
    assert_eq!(command["status"], "completed");
    assert_eq!(command["command"], "/bin/bash -lc 'touch made.txt'");
    assert_eq!(
        keys(&lines[2]["params"]),
        ["item", "threadId", "turnId", "startedAtMs"]
    );
    // The usage after each of the three model calls (the command's and the patch's
    // outputs go back to the model): the thread's running total, the call's own.
    let usage: Vec<&Value> = lines
        .iter()
        .filter(|l| l["method"] == "thread/tokenUsage/updated")
        .map(|l| &l["params"]["tokenUsage"])
        .collect();
    let totals: Vec<&Value> = usage.iter().map(|u| &u["total"]["totalTokens"]).collect();
    assert_eq!(totals, [14, 28, 42]);
    let lasts: Vec<&Value> = usage.iter().map(|u| &u["last"]["inputTokens"]).collect();
    assert_eq!(lasts, [10, 10, 10]);
    assert_eq!(usage[2]["last"]["cachedInputTokens"], 2);
    assert_eq!(usage[2]["modelContextWindow"], 258_400);
    let end = &lines[24]["params"]["turn"];
    assert_eq!(end["status"], "completed");
    assert_eq!(end["itemsView"], "summary");
    let texts: Vec<&Value> = end["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| &i["text"])
        .collect();
    assert_eq!(
        texts,
        [
            &json!("I'll create made.txt, then add notes.md."),
            &json!("Created made.txt and notes.md.")
        ]
    );
    assert_eq!(lines[23]["params"]["status"], json!({"type": "idle"}));
    // The usage is the thread's: a second turn adds up.
    turn_start(&mut player, &thread);
    let (second, _) = run(&mut player);
    let usage = second
        .iter()
        .rfind(|l| l["method"] == "thread/tokenUsage/updated")
        .expect("usage");
    assert_eq!(usage["params"]["tokenUsage"]["total"]["inputTokens"], 60);
    assert_eq!(usage["params"]["tokenUsage"]["last"]["inputTokens"], 10);
}

#[test]
fn untrusted_asks_an_approval_allowed_then_one_declined() {
    let mut player = player(default_session("/w"));
    let thread = started(&mut player, "untrusted");
    turn_start(&mut player, &thread);
    let (lines, asked) = run(&mut player);
    let (id, request) = asked.expect("the command is asked about");
    assert_eq!(id, 0);
    assert_eq!(
        methods(&lines[lines.len() - 2..]),
        ["thread/status/changed", "item/started commandExecution"]
    );
    assert_eq!(
        lines[lines.len() - 2]["params"]["status"],
        json!({"type": "active", "activeFlags": ["waitingOnApproval"]})
    );
    assert_eq!(keys(&request), ["method", "id", "params"]);
    assert_eq!(request["method"], "item/commandExecution/requestApproval");
    assert_eq!(
        keys(&request["params"]),
        [
            "kind",
            "threadId",
            "turnId",
            "itemId",
            "startedAtMs",
            "environmentId",
            "command",
            "cwd",
            "commandActions",
            "proposedExecpolicyAmendment",
            "availableDecisions"
        ]
    );
    assert_eq!(
        request["params"]["proposedExecpolicyAmendment"],
        json!(["touch", "made.txt"])
    );
    assert_eq!(
        request["params"]["availableDecisions"],
        json!(["accept", {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["touch", "made.txt"]}}, "cancel"])
    );
    assert_eq!(player.step(), Next::Waiting);
    // An answer to another id changes nothing.
    player.feed(br#"{"id":5,"result":{"decision":"accept"}}"#);
    assert_eq!(player.step(), Next::Waiting);

    player.feed(br#"{"id":0,"result":{"decision":"accept"}}"#);
    let (lines, asked) = run(&mut player);
    assert_eq!(
        methods(&lines),
        [
            "serverRequest/resolved",
            "thread/status/changed",
            "item/completed commandExecution",
            "thread/tokenUsage/updated",
            "account/rateLimits/updated",
            "thread/status/changed",
            "item/started fileChange"
        ]
    );
    assert_eq!(lines[0]["params"]["requestId"], 0);
    assert_eq!(lines[2]["params"]["item"]["status"], "completed");
    assert_eq!(lines[2]["params"]["item"]["exitCode"], 0);
    let (id, request) = asked.expect("the patch is asked about");
    assert_eq!(id, 1);
    assert_eq!(request["method"], "item/fileChange/requestApproval");
    assert_eq!(
        keys(&request["params"]),
        [
            "threadId",
            "turnId",
            "itemId",
            "startedAtMs",
            "reason",
            "grantRoot"
        ]
    );

    player.feed(br#"{"id":1,"result":{"decision":"decline"}}"#);
    let (lines, asked) = run(&mut player);
    assert!(asked.is_none());
    assert_eq!(
        methods(&lines[..2]),
        ["serverRequest/resolved", "item/completed fileChange"]
    );
    assert_eq!(lines[1]["params"]["item"]["status"], "declined");
    // Declined: the turn goes on and completes.
    let end = lines.last().expect("lines");
    assert_eq!(end["method"], "turn/completed");
    assert_eq!(end["params"]["turn"]["status"], "completed");
}

#[test]
fn cancel_and_interrupt_end_the_turn_interrupted() {
    let mut cancelled = player(default_session("/w"));
    let thread = started(&mut cancelled, "untrusted");
    turn_start(&mut cancelled, &thread);
    run(&mut cancelled);
    cancelled.feed(br#"{"id":0,"result":{"decision":"cancel"}}"#);
    let (lines, _) = run(&mut cancelled);
    assert_eq!(
        methods(&lines),
        [
            "serverRequest/resolved",
            "item/completed commandExecution",
            "thread/status/changed",
            "thread/tokenUsage/updated",
            "account/rateLimits/updated",
            "thread/readState/changed",
            "thread/status/changed",
            "turn/completed"
        ]
    );
    assert_eq!(lines[1]["params"]["item"]["status"], "declined");
    assert_eq!(lines[2]["params"]["status"]["activeFlags"], json!([]));
    assert_eq!(lines[7]["params"]["turn"]["status"], "interrupted");
    // Observed: an interrupted turn's items are not loaded.
    assert_eq!(lines[7]["params"]["turn"]["items"], json!([]));
    assert_eq!(lines[7]["params"]["turn"]["itemsView"], "notLoaded");
    assert!(!cancelled.in_turn());

    let mut interrupted = player(default_session("/w"));
    let thread = started(&mut interrupted, "untrusted");
    let answer = turn_start(&mut interrupted, &thread);
    let turn = answer["result"]["turn"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    run(&mut interrupted);
    let line = format!(
        r#"{{"method":"turn/interrupt","id":3,"params":{{"threadId":"{thread}","turnId":"{turn}"}}}}"#
    );
    let reply = interrupted.feed(line.as_bytes());
    let lines: Vec<Value> = reply.lines.iter().map(|l| value(l)).collect();
    // Observed (0.163.0): the answer after the rate limits and the read state.
    assert_eq!(lines[5], json!({"id": 3, "result": {}}));
    assert_eq!(
        methods(&lines[..5]),
        [
            "serverRequest/resolved",
            "item/completed commandExecution",
            "thread/tokenUsage/updated",
            "account/rateLimits/updated",
            "thread/readState/changed",
        ]
    );
    assert_eq!(methods(&lines[6..]), ["thread/status/changed", "turn/completed"]);
    assert_eq!(lines[7]["params"]["turn"]["status"], "interrupted");
    assert_eq!(interrupted.step(), Next::Done);
}

/// Observed by drift (0.163.0): interrupted while the answer streams, the message
/// under way is completed with what was streamed, then the turn ends interrupted.
#[test]
fn an_interrupt_mid_answer_completes_the_message_as_far_as_it_was_written() {
    let mut player = player(default_session("/w"));
    let thread = started(&mut player, "never");
    let answer = turn_start(&mut player, &thread);
    let turn = answer["result"]["turn"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    // Written up to the first delta of the first answer; the next line stalls.
    let mut stepped = Vec::new();
    while let Next::Send(line) = player.step() {
        let delta = value(&line)["method"] == "item/agentMessage/delta";
        stepped.push(line);
        if delta {
            break;
        }
    }
    let Next::Send(cut) = player.step() else {
        panic!("a line after the delta")
    };
    player.unwritten(&[cut]);
    let line = format!(
        r#"{{"method":"turn/interrupt","id":3,"params":{{"threadId":"{thread}","turnId":"{turn}"}}}}"#
    );
    let lines: Vec<Value> = player
        .feed(line.as_bytes())
        .lines
        .iter()
        .map(|l| value(l))
        .collect();
    assert_eq!(
        methods(&lines),
        [
            "item/completed agentMessage",
            "account/rateLimits/updated",
            "thread/readState/changed",
            "",
            "thread/status/changed",
            "turn/completed"
        ]
    );
    let delta = value(stepped.last().expect("a delta"));
    assert_eq!(lines[0]["params"]["item"]["id"], delta["params"]["itemId"]);
    assert_eq!(lines[0]["params"]["item"]["text"], delta["params"]["delta"]);
    assert_eq!(lines[5]["params"]["turn"]["status"], "interrupted");
    assert_eq!(player.step(), Next::Done);
}

#[test]
fn a_failed_turn_as_observed() {
    let session = Session {
        turns: vec![Turn {
            items: Vec::new(),
            end: End::Failed(Failure::BadRequest {
                body: "mock error 400".into(),
            }),
            usage: Usage::default(),
        }],
    };
    let mut player = player(session);
    let thread = started(&mut player, "never");
    turn_start(&mut player, &thread);
    let (lines, _) = run(&mut player);
    let n = lines.len();
    assert_eq!(
        methods(&lines[n - 4..]),
        [
            "thread/status/changed",
            "error",
            "thread/readState/changed",
            "turn/completed"
        ]
    );
    assert_eq!(lines[n - 4]["params"]["status"], json!({"type": "systemError"}));
    assert_eq!(
        lines[n - 3]["params"],
        json!({"error": {"message": "mock error 400", "codexErrorInfo": "other", "additionalDetails": null,
            "misalignment": null}, "willRetry": false, "threadId": thread,
            "turnId": lines[n - 1]["params"]["turn"]["id"]})
    );
    assert_eq!(lines[n - 1]["params"]["turn"]["status"], "failed");
    assert_eq!(
        lines[n - 1]["params"]["turn"]["error"]["message"],
        "mock error 400"
    );
}

#[test]
fn errors_it_really_returns() {
    let mut player = player(default_session("/w"));
    started(&mut player, "never");
    let bad = player.feed(br#"{"method":"turn/start","id":4,"params":{"threadId":"nope","input":[]}}"#);
    assert_eq!(
        text(&bad.lines),
        [
            r#"{"error":{"code":-32600,"message":"invalid thread id: invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1"},"id":4}"#
        ]
    );
    let resume = player.feed(
        br#"{"method":"thread/resume","id":10,"params":{"threadId":"00000000-0000-7000-8000-000000000000"}}"#,
    );
    assert_eq!(
        text(&resume.lines),
        [
            r#"{"error":{"code":-32600,"message":"no rollout found for thread id 00000000-0000-7000-8000-000000000000"},"id":10}"#
        ]
    );
    // A thread kept from an earlier process resumes with its usage.
    let mut options = Options::new("/h", "/w", 1);
    options.known_threads = vec![("01a21d03-51c3-7000-8000-000000000001".into(), Usage::default(), 1)];
    let mut later = Player::new(default_session("/w"), options);
    later.feed(INITIALIZE.as_bytes());
    let resumed = later.feed(
        br#"{"method":"thread/resume","id":1,"params":{"threadId":"01a21d03-51c3-7000-8000-000000000001"}}"#,
    );
    assert_eq!(
        value(&resumed.lines[0])["result"]["thread"]["id"],
        "01a21d03-51c3-7000-8000-000000000001"
    );
}

/// `reconnect-then-ok`, as 0.163.0 told it with the API answering 429 once and then
/// a text (observed): after the user message, an `error` notification
/// `Reconnecting... 1/5` with the reason in `additionalDetails` and `willRetry:
/// true`, then the turn completes.
#[test]
fn a_retry_then_the_answer_as_observed() {
    use super::faults::{parse_app_server, Injector, APP_SERVER_FROM_ENV};
    let mut session = default_session("/home/user/project");
    let faults = parse_app_server("reconnect-then-ok", APP_SERVER_FROM_ENV).expect("a preset");
    Injector::app_server(faults).prepare(&mut session);
    let mut player = player(session);
    let thread = started(&mut player, "never");
    turn_start(&mut player, &thread);
    let (lines, _) = run(&mut player);
    assert_eq!(
        methods(&lines[..5]),
        [
            "thread/status/changed",
            "turn/started",
            "item/started userMessage",
            "item/completed userMessage",
            "error"
        ]
    );
    let turn = lines[1]["params"]["turn"]["id"].clone();
    assert_eq!(
        lines[4]["params"],
        json!({"error": {"message": "Reconnecting... 1/5",
            "codexErrorInfo": {"responseStreamDisconnected": {"httpStatusCode": 429}},
            "additionalDetails": "exceeded retry limit, last status: 429 Too Many Requests",
            "misalignment": null}, "willRetry": true, "threadId": thread, "turnId": turn})
    );
    let last = lines.last().expect("the end");
    assert_eq!(last["method"], "turn/completed");
    assert_eq!(last["params"]["turn"]["status"], "completed");
    assert_eq!(lines.iter().filter(|l| l["method"] == "error").count(), 1);
}
