//! The teller's turns, played against a client that answers as told.

use super::*;
use crate::acp::conversation::Wait;
use crate::acp::profile::testing;
use crate::dialects::cursor_print::events::subtype;
use crate::dialects::print_mode_story;
use crate::Source;

/// The teller of the built-in default session, as `mock-agent acp` makes it.
fn default_teller() -> Teller {
    teller_of(&testing::PROFILE)
}

/// The teller of the built-in default session with `profile`'s habits.
fn teller_of(profile: &'static Profile) -> Teller {
    let story = print_mode_story(Source::Default.open("hi").expect("opens")).expect("tells");
    Teller::new(story, Ask::FirstChange, profile).checking_its_work()
}

/// The lines of a reply to `method`, the client answering each agent request
/// with what `answer` says for its method (`None`: never seen by the teller).
fn talk(
    teller: &mut Teller,
    id: &str,
    method: &str,
    params: Value,
    answer: &dyn Fn(&str) -> Option<Value>,
) -> Vec<Value> {
    let line = rpc::with_id(&rpc::request(0, method, &params), id);
    let steps = teller.reply(&Message::parse(&line).expect("parses")).steps;
    let mut lines = Vec::new();
    for step in steps {
        match step.expect("plays") {
            Step::Send { line, .. } => lines.push(serde_json::from_slice(&line).expect("json")),
            Step::Await {
                wait: Wait::Answer { id, method, .. },
                ..
            } => {
                if let Some(value) = answer(&method) {
                    teller.answered(&id, &method, &value);
                }
            }
            _ => {}
        }
    }
    lines
}

/// A session of `teller` for a client offering `offered`; its id.
fn open(teller: &mut Teller, offered: Capabilities) -> String {
    let init = json!({"protocolVersion": 1, "clientCapabilities": offered.to_value()});
    talk(teller, "0", methods::INITIALIZE, init, &|_| None);
    let made = talk(
        teller,
        "1",
        methods::SESSION_NEW,
        json!({"cwd": "/w", "mcpServers": []}),
        &|_| None,
    );
    made[0][rpc::members::RESULT]["sessionId"]
        .as_str()
        .expect("an id")
        .to_owned()
}

/// The lines of the reply to a prompt of `session` sent with `id` (see [`talk`]).
fn prompted(
    teller: &mut Teller,
    id: &str,
    session: &str,
    answer: &dyn Fn(&str) -> Option<Value>,
) -> Vec<Value> {
    talk(teller, id, methods::SESSION_PROMPT, prompt(session), answer)
}

fn prompt(session: &str) -> Value {
    json!({"sessionId": session, "prompt": [wire::text_block("Summarize it\nplease")]})
}

/// What each line is: an update's kind, a request's method, `response ...`.
fn kinds(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|line| match line["method"].as_str() {
            Some(methods::SESSION_UPDATE) => line["params"]["update"]["sessionUpdate"]
                .as_str()
                .unwrap_or("?")
                .to_owned(),
            Some(method) => method.to_owned(),
            None if line.get("error").is_some() => format!("error {}", line["error"]["code"]),
            None => format!("response {}", line[rpc::members::RESULT]["stopReason"]),
        })
        .collect()
}

const ALL: Capabilities = Capabilities {
    read: true,
    write: true,
    terminal: true,
};

#[test]
fn the_default_session_asks_before_its_write_and_ends_its_turn() {
    let mut teller = default_teller();
    let session = open(&mut teller, Capabilities::default());
    let lines = prompted(&mut teller, r#""p-1""#, &session, &|_| None);
    assert_eq!(
        kinds(&lines),
        [
            updates::AGENT_MESSAGE_CHUNK,
            updates::AGENT_MESSAGE_CHUNK,
            updates::TOOL_CALL,
            updates::TOOL_CALL_UPDATE,
            updates::AGENT_MESSAGE_CHUNK,
            updates::TOOL_CALL,
            methods::REQUEST_PERMISSION,
            updates::TOOL_CALL_UPDATE,
            updates::USAGE_UPDATE,
            updates::SESSION_INFO_UPDATE,
            &format!("response \"{}\"", stop_reasons::END_TURN),
        ]
    );
    assert_eq!(lines[0]["params"]["sessionId"], session.as_str());
    assert_eq!(lines[10]["id"], "p-1");
    assert_eq!(lines[9]["params"]["update"]["title"], "Summarize it");
    let kinds_of_options: Vec<&str> = lines[6]["params"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|o| o["kind"].as_str())
        .collect();
    assert_eq!(kinds_of_options, wire::option_kinds::ALL);
    // The title is given once a session.
    let again = prompted(&mut teller, "2", &session, &|_| None);
    assert!(!kinds(&again).contains(&updates::SESSION_INFO_UPDATE.to_owned()));
}

#[test]
fn a_client_that_offers_files_and_a_terminal_reads_writes_and_runs_for_the_agent() {
    let mut teller = default_teller();
    let session = open(&mut teller, ALL);
    let answer = |method: &str| {
        Some(match method {
            methods::FS_READ_TEXT_FILE => json!({"content": "# Mine\n\nline\n"}),
            methods::TERMINAL_CREATE => json!({"terminalId": "term-9"}),
            methods::TERMINAL_WAIT_FOR_EXIT => json!({"exitCode": 0, "signal": null}),
            methods::TERMINAL_OUTPUT => json!({"output": "3 summary.txt\n", "truncated": false}),
            methods::REQUEST_PERMISSION => wire::selected("yes"),
            _ => Value::Null,
        })
    };
    let lines = prompted(&mut teller, "3", &session, &answer);
    let kinds = kinds(&lines);
    let requests: Vec<&str> = kinds
        .iter()
        .map(String::as_str)
        .filter(|k| k.contains('/'))
        .collect();
    assert_eq!(
        requests,
        [
            methods::FS_READ_TEXT_FILE,
            methods::REQUEST_PERMISSION,
            methods::FS_WRITE_TEXT_FILE,
            methods::TERMINAL_CREATE,
            methods::TERMINAL_WAIT_FOR_EXIT,
            methods::TERMINAL_OUTPUT,
            methods::TERMINAL_RELEASE,
        ]
    );
    // Ids count from 0 in the order the requests are sent.
    let ids: Vec<&Value> = lines
        .iter()
        .filter(|l| l.get("method").is_some() && l.get("id").is_some())
        .map(|l| &l["id"])
        .collect();
    assert_eq!(
        ids,
        (0..7)
            .map(Value::from)
            .collect::<Vec<_>>()
            .iter()
            .collect::<Vec<_>>()
    );
    let read = lines
        .iter()
        .find(|l| l["method"] == methods::FS_READ_TEXT_FILE)
        .expect("a file read");
    assert_eq!(read["params"]["path"], "/w/README.md");
    let updates: Vec<&Value> = lines
        .iter()
        .map(|l| &l["params"]["update"])
        .filter(|u| u["sessionUpdate"] == updates::TOOL_CALL_UPDATE)
        .collect();
    assert_eq!(
        updates[0]["rawOutput"][subtype::SUCCESS]["content"],
        "# Mine\n\nline\n"
    );
    assert_eq!(updates[1]["content"][0]["type"], wire::tool_content::DIFF);
    assert_eq!(updates[2]["content"][0]["terminalId"], "term-9");
    assert_eq!(updates[3]["status"], tool_statuses::COMPLETED);
    assert_eq!(updates[3]["rawOutput"]["stdout"], "3 summary.txt\n");
    let create = lines
        .iter()
        .find(|l| l["method"] == methods::TERMINAL_CREATE)
        .expect("create");
    assert_eq!(create["params"]["cwd"], "/w");
    assert!(lines
        .iter()
        .filter(|l| l["method"] == methods::TERMINAL_RELEASE)
        .all(|l| l["params"]["terminalId"] == "term-9"));
}

#[test]
fn the_client_s_errors_fail_the_tool_and_the_turn_goes_on() {
    let mut teller = default_teller();
    let session = open(&mut teller, ALL);
    let error = |message: &str| json!({"error": {"code": codes::RESOURCE_NOT_FOUND, "message": message}});
    let answer = |method: &str| match method {
        methods::FS_READ_TEXT_FILE => Some(error("no such file")),
        methods::FS_WRITE_TEXT_FILE => Some(error("read-only")),
        methods::TERMINAL_CREATE => Some(json!({"terminalId": "t"})),
        methods::TERMINAL_WAIT_FOR_EXIT => Some(json!({"exitCode": 2})),
        methods::TERMINAL_OUTPUT => Some(error("gone")),
        _ => None,
    };
    let lines = prompted(&mut teller, "3", &session, &answer);
    let ends: Vec<(&Value, &Value)> = lines
        .iter()
        .map(|l| &l["params"]["update"])
        .filter(|u| {
            u["sessionUpdate"] == updates::TOOL_CALL_UPDATE && u["status"] != tool_statuses::IN_PROGRESS
        })
        .map(|u| (&u["status"], &u["rawOutput"]["error"]))
        .collect();
    let failed = Value::from(tool_statuses::FAILED);
    assert_eq!(
        ends,
        [
            (&failed, &Value::from("no such file")),
            (&failed, &Value::from("read-only")),
            (&failed, &Value::from("gone")),
        ]
    );
    // The terminal is released all the same, and the turn ends.
    assert!(lines.iter().any(|l| l["method"] == methods::TERMINAL_RELEASE));
    assert_eq!(
        lines.last().expect("a response")[rpc::members::RESULT]["stopReason"],
        stop_reasons::END_TURN
    );
    // A command that exits 2 fails; one whose terminal cannot be made too.
    let exit_2 = |method: &str| match method {
        methods::TERMINAL_CREATE => Some(json!({"terminalId": "t"})),
        methods::TERMINAL_WAIT_FOR_EXIT => Some(json!({"exitCode": 2})),
        methods::TERMINAL_OUTPUT => Some(json!({"output": "", "truncated": false})),
        _ => None,
    };
    let lines = prompted(&mut teller, "4", &session, &exit_2);
    let last_update = lines
        .iter()
        .rev()
        .map(|l| &l["params"]["update"])
        .find(|u| u["sessionUpdate"] == updates::TOOL_CALL_UPDATE)
        .expect("an update");
    assert_eq!(
        (&last_update["status"], &last_update["rawOutput"]["exitCode"]),
        (&failed, &Value::from(2))
    );
    let refused = |method: &str| (method == methods::TERMINAL_CREATE).then(|| error("no terminals here"));
    let lines = prompted(&mut teller, "5", &session, &refused);
    assert!(
        !lines.iter().any(|l| l["method"] == methods::TERMINAL_RELEASE),
        "no terminal to release"
    );
}

#[test]
fn a_client_that_offers_nothing_is_asked_nothing_but_permission() {
    for offered in [
        Capabilities::default(),
        Capabilities {
            terminal: false,
            ..ALL
        },
    ] {
        let mut teller = default_teller();
        let session = open(&mut teller, offered);
        let lines = prompted(&mut teller, "3", &session, &|_| None);
        for line in lines
            .iter()
            .filter(|l| l.get("id").is_some() && l.get("method").is_some())
        {
            let method = line["method"].as_str().expect("a method");
            assert!(
                method == methods::REQUEST_PERMISSION || offered.allow(method),
                "{method} asked of {offered:?}"
            );
        }
        let asked = lines.iter().any(|l| l["method"] == methods::FS_READ_TEXT_FILE);
        assert_eq!(asked, offered.read);
    }
}

#[test]
fn prompts_and_setters_of_sessions_nobody_made_are_invalid_params() {
    let mut teller = default_teller();
    let session = open(&mut teller, Capabilities::default());
    let nobody = "8f0c2a64-0000-4000-8000-00000000dead";
    for (method, params) in [
        (methods::SESSION_PROMPT, prompt(nobody)),
        (methods::SESSION_PROMPT, json!({"prompt": []})),
        (
            methods::SESSION_SET_MODE,
            json!({"sessionId": nobody, "modeId": wire::modes::PLAN}),
        ),
        (
            methods::SESSION_SET_MODE,
            json!({"sessionId": session, "modeId": "yolo"}),
        ),
        (
            methods::SESSION_SET_CONFIG_OPTION,
            json!({"sessionId": session, "configId": "mode", "value": "yolo"}),
        ),
    ] {
        let lines = talk(&mut teller, "9", method, params, &|_| None);
        assert_eq!(
            kinds(&lines),
            [format!("error {}", codes::INVALID_PARAMS)],
            "{method}"
        );
    }
    let set = talk(
        &mut teller,
        "9",
        methods::SESSION_SET_MODE,
        json!({"sessionId": session, "modeId": wire::modes::PLAN}),
        &|_| None,
    );
    assert_eq!(set[0][rpc::members::RESULT], json!({}));
}

/// The updates and permission requests about tool calls among `lines`: the `update`,
/// or the request's `toolCall`.
fn tool_messages(lines: &[Value]) -> Vec<(String, &Value)> {
    lines
        .iter()
        .filter_map(|l| match l["method"].as_str() {
            Some(methods::REQUEST_PERMISSION) => {
                Some((methods::REQUEST_PERMISSION.to_owned(), &l["params"]["toolCall"]))
            }
            Some(methods::SESSION_UPDATE) => {
                let update = &l["params"]["update"];
                let kind = update["sessionUpdate"].as_str()?;
                kind.starts_with(updates::TOOL_CALL)
                    .then(|| (kind.to_owned(), update))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_describing_profile_says_what_each_tool_call_touches_and_a_raw_one_does_not() {
    let mut teller = teller_of(&testing::DESCRIBING);
    let session = open(&mut teller, Capabilities::default());
    let lines = prompted(&mut teller, "3", &session, &|_| None);
    let told = tool_messages(&lines);
    let kinds: Vec<&str> = told.iter().map(|(k, _)| k.as_str()).collect();
    // The write that asks is first mentioned by its permission request.
    assert_eq!(
        kinds,
        [
            updates::TOOL_CALL,
            updates::TOOL_CALL_UPDATE,
            methods::REQUEST_PERMISSION,
            updates::TOOL_CALL_UPDATE
        ]
    );
    let (read, read_end, asking, write_end) = (told[0].1, told[1].1, told[2].1, told[3].1);
    assert_eq!(read["status"], tool_statuses::IN_PROGRESS);
    assert_eq!(read["locations"], json!([{"path": "/w/README.md"}]));
    assert_eq!(read["content"], json!([]));
    assert_eq!(read_end["locations"], read["locations"]);
    assert_eq!(read_end["title"], read["title"]);
    assert_eq!(read_end["kind"], tool_kinds::READ);
    let diff = &asking["content"][0];
    assert_eq!(diff["type"], wire::tool_content::DIFF);
    assert_eq!(diff["path"], "/w/summary.txt");
    assert_eq!(diff["oldText"], "");
    assert!(diff["newText"].as_str().is_some_and(|t| !t.is_empty()));
    assert_eq!(diff["_meta"]["kind"], "add");
    assert_eq!(asking["locations"], json!([{"path": "/w/summary.txt"}]));
    assert_eq!(
        (&asking["status"], &asking["kind"]),
        (&json!(tool_statuses::PENDING), &json!(tool_kinds::EDIT))
    );
    assert_eq!(write_end["status"], tool_statuses::COMPLETED);
    for key in ["toolCallId", "title", "kind", "content", "locations"] {
        assert_eq!(write_end[key], asking[key], "{key}");
    }
    for (_, message) in &told {
        assert!(
            message.get("rawInput").is_none() && message.get("rawOutput").is_none(),
            "{message}"
        );
    }

    // The raw profile: the tool's input and output, no content nor locations.
    let mut teller = default_teller();
    let session = open(&mut teller, Capabilities::default());
    let lines = prompted(&mut teller, "3", &session, &|_| None);
    let told = tool_messages(&lines);
    assert_eq!(told.len(), 5, "both tool calls are announced");
    for (kind, message) in &told {
        assert!(message.get("locations").is_none(), "{kind}: {message}");
        match kind.as_str() {
            updates::TOOL_CALL => assert!(message.get("rawInput").is_some()),
            updates::TOOL_CALL_UPDATE => assert!(message.get("rawOutput").is_some()),
            _ => assert!(message.get("content").is_none(), "{message}"),
        }
    }
}

#[test]
fn a_describing_profile_keeps_its_diff_when_the_client_writes_and_says_why_a_tool_failed() {
    let write = Capabilities {
        write: true,
        ..Capabilities::default()
    };
    let mut teller = teller_of(&testing::DESCRIBING);
    let session = open(&mut teller, write);
    let lines = prompted(&mut teller, "3", &session, &|method| {
        (method == methods::FS_WRITE_TEXT_FILE).then(|| json!({}))
    });
    let told = tool_messages(&lines);
    let (_, written) = told.last().expect("the write's end");
    assert_eq!(written["content"][0]["oldText"], "");
    assert!(lines.iter().any(|l| l["method"] == methods::FS_WRITE_TEXT_FILE));

    let mut teller = teller_of(&testing::DESCRIBING);
    let session = open(&mut teller, write);
    let lines = prompted(&mut teller, "3", &session, &|method| {
        (method == methods::FS_WRITE_TEXT_FILE)
            .then(|| json!({"error": {"code": codes::INTERNAL_ERROR, "message": "read-only"}}))
    });
    let told = tool_messages(&lines);
    let (_, failed) = told.last().expect("the write's end");
    assert_eq!(failed["status"], tool_statuses::FAILED);
    assert_eq!(
        failed["content"],
        json!([wire::block_content(wire::text_block("read-only"))])
    );
    assert!(failed.get("rawOutput").is_none());
}

#[test]
fn a_story_s_failed_tool_is_described_with_its_message() {
    let call = Call {
        id: json!("c1"),
        kind: tool_kinds::EXECUTE,
        title: "`false`".to_owned(),
        input: json!({"command": "false"}),
        tool: Tool::Shell {
            command: "false".to_owned(),
        },
    };
    let at = Duration::ZERO;
    let story = Story {
        beats: vec![
            Beat::Called { at, call },
            Beat::Ended {
                at,
                id: json!("c1"),
                failure: Some("exit 1".to_owned()),
                output: json!({"exitCode": 1}),
                tool: Tool::Shell {
                    command: "false".to_owned(),
                },
            },
        ],
        ..Story::default()
    };
    let mut teller = Teller::new(story, Ask::FirstChange, &testing::DESCRIBING);
    let session = open(&mut teller, Capabilities::default());
    let lines = prompted(&mut teller, "3", &session, &|_| None);
    let told = tool_messages(&lines);
    assert_eq!(told[0].0, methods::REQUEST_PERMISSION);
    assert_eq!(told[0].1["locations"], json!([]));
    assert_eq!(
        told[1].1,
        &json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": "c1", "status": tool_statuses::FAILED,
                "content": [wire::block_content(wire::text_block("exit 1"))], "kind": tool_kinds::EXECUTE})
    );
}
