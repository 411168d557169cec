use std::time::Duration;

use serde_json::json;

use super::*;
use crate::faults::claude::{parse, FROM_ENV};
use crate::frames::{Ending, Line};

const INIT: &str =
    r#"{"type":"control_request","request_id":"req_1_aa","request":{"subtype":"initialize","hooks":null}}"#;
const INIT_ANSWER: &str = r#"{"type":"control_response","response":{"subtype":"success","request_id":"req_1_aa","response":{"pid":7,"claude_code_version":"2.1.331"}}}"#;
const PROMPT: &str =
    r#"{"type":"user","session_id":"","message":{"role":"user","content":"hi"},"parent_tool_use_id":null}"#;
const RUNNING: &str =
    r#"{"type":"system","subtype":"session_state_changed","state":"running","sdk_host_only":true}"#;
const TEXT: &str = r#"{"type":"assistant","message":{"id":"msg_1","model":"m","content":[{"type":"text","text":"I'll write it."}]}}"#;
const TOOL: &str = r#"{"type":"assistant","message":{"id":"msg_1","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Write","input":{"file_path":"/w/a.txt"}}]}}"#;
const ASK: &str = r#"{"type":"control_request","request_id":"perm-1","request":{"subtype":"can_use_tool","tool_name":"Write","input":{"file_path":"/w/a.txt"},"tool_use_id":"toolu_1"}}"#;
const ALLOW: &str = r#"{"type":"control_response","response":{"subtype":"success","request_id":"perm-1","response":{"behavior":"allow","updatedInput":{"file_path":"/w/a.txt"}}}}"#;
const RESULT_LINE: &str = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"File created"}]}}"#;
const DONE: &str =
    r#"{"type":"assistant","message":{"id":"msg_2","model":"m","content":[{"type":"text","text":"Done."}]}}"#;
const RESULT: &str =
    r#"{"type":"result","subtype":"success","is_error":false,"result":"Done.","num_turns":2}"#;
const IDLE: &str =
    r#"{"type":"system","subtype":"session_state_changed","state":"idle","sdk_host_only":true}"#;

fn line(at: u64, stream: Stream, text: &str) -> FrameResult {
    Ok(Frame::Line(Line {
        at: Duration::from_millis(at),
        stream,
        bytes: text.as_bytes().to_vec(),
        newline: true,
    }))
}

/// `(ms, ">" for the client's | "<" for the CLI's, line)`, then exit 0.
fn recording(lines: &[(u64, &str, &str)]) -> Script {
    let mut frames: Vec<FrameResult> = lines
        .iter()
        .map(|(at, dir, text)| {
            line(
                *at,
                if *dir == ">" {
                    Stream::Stdin
                } else {
                    Stream::Stdout
                },
                text,
            )
        })
        .collect();
    frames.push(Ok(Frame::End(Ending {
        at: Duration::from_secs(1),
        exit: Exit::Code(0),
    })));
    Script::new(frames).expect("script")
}

/// A whole SDK conversation: initialize, one prompt, one permission allowed.
fn conversation() -> Script {
    recording(&[
        (0, ">", INIT),
        (5, "<", INIT_ANSWER),
        (6, ">", PROMPT),
        (10, "<", RUNNING),
        (20, "<", TEXT),
        (30, "<", TOOL),
        (31, "<", ASK),
        (40, ">", ALLOW),
        (45, "<", RESULT_LINE),
        (50, "<", DONE),
        (60, "<", RESULT),
        (61, "<", IDLE),
    ])
}

/// Plays the turn, answering the CLI's requests with `answer`: the lines written.
fn play(script: &mut Script, answer: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        match script.step() {
            Next::Send(line) => out.push(String::from_utf8(line).expect("utf-8")),
            Next::Ask { id, line } => {
                assert_eq!(script.waiting_for(), Some(id.as_str()));
                out.push(String::from_utf8(line).expect("utf-8"));
            }
            Next::Waiting => script.answer(Ok(answer.clone())),
            Next::Done => return out,
        }
    }
}

#[test]
fn a_control_request_gets_the_recorded_answer_with_the_live_id() {
    let mut script = conversation();
    let (lines, at) = script
        .request(&json!("live_7"), control::INITIALIZE)
        .expect("recorded");
    assert_eq!(at, Duration::ZERO);
    assert_eq!(
        lines,
        vec![INIT_ANSWER.replace("req_1_aa", "live_7").into_bytes()]
    );
    assert_eq!(script.at(), Duration::from_millis(5));
    // A second initialize: the recording has none left.
    assert!(script.request(&json!("x"), control::INITIALIZE).is_none());
    assert_eq!(script.take_divergences().len(), 1);
}

#[test]
fn a_prompt_plays_the_recorded_turn_byte_for_byte_waiting_for_the_answer() {
    let mut script = conversation();
    script.begin();
    assert_eq!(script.base(), Duration::from_millis(6));
    let mut seen = Vec::new();
    let mut waited = false;
    loop {
        match script.step() {
            Next::Send(line) => seen.push(String::from_utf8(line).expect("utf-8")),
            Next::Ask { id, line } => {
                assert_eq!(id, "perm-1");
                seen.push(String::from_utf8(line).expect("utf-8"));
            }
            Next::Waiting => {
                // Nothing more until the client answers.
                assert_eq!(script.step(), Next::Waiting);
                waited = true;
                script.answer(Ok(json!({"behavior": "allow", "updatedInput": {}})));
                assert_eq!(script.base(), Duration::from_millis(40));
            }
            Next::Done => break,
        }
    }
    assert!(waited);
    assert_eq!(seen, [RUNNING, TEXT, TOOL, ASK, RESULT_LINE, DONE, RESULT, IDLE]);
    assert!(script.take_divergences().is_empty());
    assert!(!script.last_is_error());
}

#[test]
fn a_different_answer_is_a_divergence_and_the_recording_goes_on() {
    let mut script = conversation();
    script.begin();
    let lines = play(&mut script, &json!({"behavior": "deny", "message": "no"}));
    assert_eq!(lines.len(), 8);
    let divergences = script.take_divergences();
    assert_eq!(divergences.len(), 1, "{divergences:?}");
    assert!(
        divergences[0].contains("`deny`") && divergences[0].contains("`allow`"),
        "{}",
        divergences[0]
    );
}

#[test]
fn an_answer_before_its_recorded_place_is_taken() {
    let mut script = conversation();
    script.begin();
    while !matches!(script.step(), Next::Ask { .. }) {}
    script.answer(Ok(json!({"behavior": "allow"})));
    assert_eq!(script.waiting_for(), None);
    assert_eq!(play(&mut script, &json!(null)), [RESULT_LINE, DONE, RESULT, IDLE]);
}

#[test]
fn more_prompts_than_recorded_play_the_last_turn_again() {
    let mut script = conversation();
    script.begin();
    let first = play(&mut script, &json!({"behavior": "allow"}));
    script.begin();
    assert_eq!(play(&mut script, &json!({"behavior": "allow"})), first);
    let divergences = script.take_divergences();
    assert!(divergences[0].contains("prompt 2"), "{divergences:?}");
}

#[test]
fn an_interrupt_skips_to_where_the_recorded_client_interrupted() {
    const INTERRUPT: &str =
        r#"{"type":"control_request","request_id":"req_2_bb","request":{"subtype":"interrupt"}}"#;
    const ANSWER: &str = r#"{"type":"control_response","response":{"subtype":"success","request_id":"req_2_bb","response":{"still_queued":[]}}}"#;
    const MARKER: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#;
    const FAILED: &str = r#"{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["[Request interrupted by user]"]}"#;
    let mut script = recording(&[
        (0, ">", PROMPT),
        (1, "<", RUNNING),
        (2, "<", TEXT),
        (3, ">", INTERRUPT),
        (4, "<", ANSWER),
        (5, "<", MARKER),
        (6, "<", FAILED),
    ]);
    script.begin();
    assert_eq!(script.step(), Next::Send(RUNNING.into()));
    let (lines, at) = script
        .request(&json!("i1"), control::INTERRUPT)
        .expect("recorded");
    assert_eq!(lines, [ANSWER.replace("req_2_bb", "i1").into_bytes()]);
    assert_eq!(at, Duration::from_millis(3));
    // TEXT was skipped: the client interrupted before it.
    assert_eq!(play(&mut script, &json!(null)), [MARKER, FAILED]);
    assert!(script.last_is_error());
    assert!(script.take_divergences().is_empty());

    // A live client that does not interrupt: the turn plays on, a divergence noted.
    script.begin();
    assert_eq!(play(&mut script, &json!(null)), [RUNNING, TEXT, MARKER, FAILED]);
    assert_eq!(script.take_divergences().len(), 2);
}

#[test]
fn the_recording_read_as_a_session() {
    let session = conversation().session();
    assert_eq!(session.turns.len(), 1);
    let turn = &session.turns[0];
    assert_eq!(turn.end, End::Success);
    assert_eq!(turn.answer(), "Done.");
    let asking: Vec<_> = turn.asking().collect();
    assert_eq!(asking.len(), 1);
    assert_eq!(asking[0].name, "Write");
    assert_eq!(asking[0].output, "File created");
}

#[test]
fn the_expectation_is_the_recorded_result() {
    let script = conversation();
    let expect = |spec: &str| expectation(&script, &parse(spec, FROM_ENV).expect("faults")).0;
    assert_eq!(
        expect(""),
        Expectation::Success {
            answer: "Done.".into()
        }
    );
    for spec in ["eof", "signal", "no-response", "error:method=initialize"] {
        assert_eq!(expect(spec), Expectation::Failure, "{spec}");
    }
    let failed = recording(&[
        (0, ">", PROMPT),
        (
            1,
            "<",
            r#"{"type":"result","subtype":"success","is_error":true,"result":"Not logged in"}"#,
        ),
    ]);
    assert_eq!(expectation(&failed, &[]).0, Expectation::Failure);
}

#[test]
fn ids_are_made_live_in_any_spelling() {
    let spaced = br#"{"type": "control_response", "response": {"subtype": "success", "request_id": "r1", "response": {}}}"#;
    assert_eq!(
        with_id(spaced, "\"r1\"", "\"live\""),
        br#"{"type": "control_response", "response": {"subtype": "success", "request_id": "live", "response": {}}}"#
    );
    // An id spelled otherwise than its JSON text: the line is written again.
    let escaped = br#"{"type":"control_response","response":{"request_id":"\u0072\u0031"}}"#;
    assert_eq!(
        with_id(escaped, "\"r1\"", "7"),
        br#"{"type":"control_response","response":{"request_id":7}}"#
    );
}

#[test]
fn a_cassette_of_another_dialect_is_refused() {
    let dir = std::env::temp_dir().join(format!("claude-cassette-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("acp.cassette");
    std::fs::write(
        &path,
        "{\"mock_agent_cassette\":2,\"invocation\":{\"acp\":true}}\n{\"t\":1,\"exit\":0}\n",
    )
    .expect("write");
    let error = Script::open(&path).expect_err("not claude").to_string();
    assert!(error.contains("not a recording of Claude Code"), "{error}");
    let claude = dir.join("claude.cassette");
    let header = serde_json::to_string(&header(Invocation::default())).expect("header");
    std::fs::write(
        &claude,
        format!(
            "{header}\n{{\"t\":1,\"in\":{PROMPT}}}\n{{\"t\":2,\"out\":{RESULT}}}\n{{\"t\":3,\"exit\":0}}\n"
        ),
    )
    .expect("write");
    let mut script = Script::open(&claude).expect("claude");
    script.begin();
    assert_eq!(script.step(), Next::Send(RESULT.into()));
    std::fs::remove_dir_all(&dir).expect("clean");
}
