//! A recording replayed as a script: live ids, waits, sessions, the client's terminals.

use crate::acp::profile::testing::PROFILE;
use serde_json::json;

use super::*;
use crate::acp::wire::{self, stop_reasons, updates};
use crate::frames::{Ending, Line};

fn at(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

fn played(steps: Steps) -> Vec<Step> {
    steps.collect::<Result<_, _>>().expect("reads")
}

/// A request line of this id (JSON text).
pub(super) fn request(id: &str, method: &str, params: &serde_json::Value) -> Vec<u8> {
    rpc::with_id(&rpc::request(0, method, params), id)
}

fn stdin(at: Duration, bytes: Vec<u8>) -> Frame {
    Frame::Line(Line {
        at,
        stream: Stream::Stdin,
        bytes,
        newline: true,
    })
}

fn stdout(at: Duration, bytes: Vec<u8>) -> Frame {
    Frame::Line(Line::stdout(at, bytes))
}

#[test]
fn a_recording_replays_with_live_ids_and_waits_where_it_waited() {
    let frames = vec![
        stdin(at(0), request("0", methods::INITIALIZE, &json!({}))),
        stdout(at(2), rpc::response("0", &json!({"protocolVersion": 1}))),
        stdin(
            at(10),
            request("1", methods::SESSION_PROMPT, &json!({"sessionId": "s"})),
        ),
        stdout(at(15), request("0", methods::REQUEST_PERMISSION, &json!({}))),
        stdin(at(40), rpc::response("0", &wire::selected("allow-once"))),
        stdout(at(41), rpc::response("1", &wire::stop(stop_reasons::END_TURN))),
        Frame::End(Ending {
            at: at(50),
            exit: Exit::Code(0),
        }),
    ];
    let mut script = Script::new(frames.into_iter().map(Ok), &PROFILE).expect("cuts");
    let init = request(r#""a""#, methods::INITIALIZE, &json!({}));
    let reply = script.reply(&Message::parse(&init).expect("parses"));
    assert_eq!(
        played(reply.steps),
        vec![Step::Send {
            at: at(2),
            line: rpc::response(r#""a""#, &json!({"protocolVersion": 1}))
        }]
    );
    let prompt = request(r#""b""#, methods::SESSION_PROMPT, &json!({"sessionId": "s"}));
    let steps = played(script.reply(&Message::parse(&prompt).expect("parses")).steps);
    assert_eq!(steps.len(), 3);
    assert!(
        matches!(&steps[1], Step::Await { at: d, wait: Wait::Answer { id, method, .. } } if *d == at(30) && id == "0" && method == methods::REQUEST_PERMISSION)
    );
    assert_eq!(
        steps[2],
        Step::Send {
            at: at(31),
            line: rpc::response(r#""b""#, &wire::stop(stop_reasons::END_TURN))
        }
    );
    // A second prompt is not in the recording.
    let again = script.reply(&Message::parse(&prompt).expect("parses"));
    assert!(again.divergence.is_some());
    assert_eq!(script.ending(), Exit::Code(0));
}

/// A recording whose agent ran a command in its client's terminal.
fn terminal_recording() -> Vec<Frame> {
    let offered = wire::Capabilities {
        read: false,
        write: false,
        terminal: true,
    };
    let init = json!({"protocolVersion": 1, "clientCapabilities": offered.to_value()});
    let shown = json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": "c", "content": [wire::terminal_content("term-0")]});
    vec![
        stdin(at(0), request("0", methods::INITIALIZE, &init)),
        stdout(at(1), rpc::response("0", &json!({"protocolVersion": 1}))),
        stdin(
            at(2),
            request("1", methods::SESSION_PROMPT, &json!({"sessionId": "s"})),
        ),
        stdout(
            at(3),
            rpc::request(
                0,
                methods::TERMINAL_CREATE,
                &wire::create_terminal("s", "ls", None),
            ),
        ),
        stdin(at(4), rpc::response("0", &json!({"terminalId": "term-0"}))),
        stdout(
            at(5),
            rpc::notification(
                methods::SESSION_UPDATE,
                &json!({"sessionId": "s", "update": shown}),
            ),
        ),
        stdout(
            at(6),
            rpc::request(1, methods::TERMINAL_RELEASE, &wire::terminal("s", "term-0")),
        ),
        stdin(at(7), rpc::response("1", &json!({}))),
        stdout(at(8), rpc::response("1", &wire::stop(stop_reasons::END_TURN))),
    ]
}

/// The lines a reply sends, each wait answered by `answer`.
fn sent(script: &mut Script, line: &[u8], answer: &serde_json::Value) -> Vec<String> {
    let reply = script.reply(&Message::parse(line).expect("parses"));
    let mut lines = Vec::new();
    // Made as they are played, as the server plays them: each wait answered first.
    for step in reply.steps {
        match step.expect("reads") {
            Step::Send { line, .. } => lines.push(String::from_utf8(line).expect("utf-8")),
            Step::Await {
                wait: Wait::Answer { id, method, .. },
                ..
            } => script.answered(&id, &method, answer),
            _ => {}
        }
    }
    lines
}

#[test]
fn a_client_s_terminal_is_named_as_it_named_it_and_not_asked_of_a_client_without_one() {
    let prompt = request(r#""p""#, methods::SESSION_PROMPT, &json!({"sessionId": "s"}));
    let mut script = Script::new(terminal_recording().into_iter().map(Ok), &PROFILE).expect("cuts");
    let init = |offered: serde_json::Value| {
        request(
            r#""i""#,
            methods::INITIALIZE,
            &json!({"protocolVersion": 1, "clientCapabilities": offered}),
        )
    };
    sent(&mut script, &init(json!({"terminal": true})), &json!(null));
    let lines = sent(&mut script, &prompt, &json!({"terminalId": "mine"}));
    assert_eq!(lines.len(), 4, "{lines:#?}");
    assert!(
        lines[1].contains(r#""terminalId":"mine""#) && lines[2].contains(r#""terminalId":"mine""#),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.contains("term-0")), "{lines:#?}");

    let mut script = Script::new(terminal_recording().into_iter().map(Ok), &PROFILE).expect("cuts");
    sent(&mut script, &init(json!({})), &json!(null));
    let reply = script.reply(&Message::parse(&prompt).expect("parses"));
    assert!(
        reply
            .divergence
            .as_deref()
            .is_some_and(|d| d.contains(methods::TERMINAL_CREATE)),
        "{:?}",
        reply.divergence
    );
    let steps = played(reply.steps);
    assert_eq!(steps.len(), 1, "only the prompt's answer: {steps:#?}");
}

#[test]
fn a_request_for_another_session_plays_the_recording_and_says_so() {
    let load = |id: &str, session: &str| {
        request(
            id,
            methods::SESSION_LOAD,
            &json!({"sessionId": session, "cwd": "/w", "mcpServers": []}),
        )
    };
    let history = wire::text_chunk(updates::USER_MESSAGE_CHUNK, "hi");
    let frames = vec![
        stdin(at(0), load("1", "s1")),
        stdout(
            at(3),
            rpc::notification(
                methods::SESSION_UPDATE,
                &json!({"sessionId": "s1", "update": history}),
            ),
        ),
        stdout(at(4), rpc::response("1", &json!({}))),
        Frame::End(Ending {
            at: at(9),
            exit: Exit::Code(0),
        }),
    ];
    let mut script = Script::new(frames.clone().into_iter().map(Ok), &PROFILE).expect("cuts");
    let same = script.reply(&Message::parse(&load(r#""x""#, "s1")).expect("parses"));
    assert_eq!((played(same.steps).len(), same.divergence), (2, None));
    let mut script = Script::new(frames.into_iter().map(Ok), &PROFILE).expect("cuts");
    let other = script.reply(&Message::parse(&load(r#""x""#, "s2")).expect("parses"));
    assert_eq!(played(other.steps).len(), 2, "replayed as recorded");
    assert_eq!(
        other.divergence,
        Some(format!(
            "`{}` names session `s2`; the recording's named `s1`: replayed as recorded",
            methods::SESSION_LOAD
        ))
    );
}
