//! Claude Code's stand-in through the binary, what it streams: partial messages in the
//! documented order, `MOCK_AGENT_TIMING`, the journal of the conversation both ways.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::claude::{
    answer, asks, claude, code, initialize, is_result, kind, prompt, sdk, with_prompt_tool, PYTHON,
};
use crate::support::Conversation;

/// The event type of a `stream_event` line.
fn event(line: &Value) -> Option<&str> {
    (kind(line) == "stream_event").then(|| line["event"]["type"].as_str().unwrap_or_default())
}

#[test]
fn partial_messages_in_the_documented_order() {
    let mut args = PYTHON.to_vec();
    args.insert(5, "--include-partial-messages");
    let mut c = sdk(&args, false, &[]);
    c.send(&initialize("req_1"));
    c.send(&prompt("Read README.md and create a summary"));
    let lines = c.until(is_result);
    assert_eq!(code(&c.finish()), Some(0));
    let first_event = lines.iter().position(|l| event(l).is_some()).expect("events");
    assert_eq!(
        lines[first_event - 1]["subtype"],
        "status",
        "status requesting first"
    );
    assert_eq!(lines[first_event - 1]["status"], "requesting");
    let mut i = 0;
    let mut messages = 0;
    while i < lines.len() {
        if event(&lines[i]) != Some("message_start") {
            assert!(
                !matches!(kind(&lines[i]), "stream_event" | "assistant"),
                "outside a message: {}",
                lines[i]
            );
            i += 1;
            continue;
        }
        let id = lines[i]["event"]["message"]["id"].clone();
        messages += 1;
        i += 1;
        let mut index = 0;
        while event(&lines[i]) == Some("content_block_start") {
            assert_eq!(lines[i]["event"]["index"], index);
            i += 1;
            let (mut deltas, mut text) = (0, String::new());
            while event(&lines[i]) == Some("content_block_delta") {
                assert_eq!(lines[i]["event"]["index"], index);
                assert_eq!(lines[i]["api_message_id"], id);
                assert!(lines[i]["uuid"].is_string() && lines[i]["session_id"].is_string());
                text.push_str(lines[i]["event"]["delta"]["text"].as_str().unwrap_or_default());
                deltas += 1;
                i += 1;
            }
            assert!(deltas > 0, "deltas of block {index}");
            let whole = &lines[i];
            assert_eq!(
                kind(whole),
                "assistant",
                "the assistant line between the deltas and the stop"
            );
            assert_eq!(whole["message"]["id"], id);
            let block = &whole["message"]["content"][0];
            if block["type"] == "text" {
                assert_eq!(
                    block["text"].as_str(),
                    Some(text.as_str()),
                    "the deltas make the text"
                );
            }
            i += 1;
            assert_eq!(event(&lines[i]), Some("content_block_stop"));
            assert_eq!(lines[i]["event"]["index"], index);
            i += 1;
            index += 1;
        }
        assert!(index > 0, "a message has blocks");
        assert_eq!(event(&lines[i]), Some("message_delta"));
        assert!(lines[i]["event"]["delta"]["stop_reason"].is_string());
        assert_eq!(event(&lines[i + 1]), Some("message_stop"));
        i += 2;
    }
    assert_eq!(messages, 3, "three API messages in the default turn");
}

/// Lines of a run of the default turn with `MOCK_AGENT_TIMING`, each with when it came.
fn timed(c: &mut Conversation) -> Vec<(Instant, Value)> {
    let mut lines = Vec::new();
    loop {
        let line = c.next_json();
        let done = is_result(&line);
        lines.push((Instant::now(), line));
        if done {
            return lines;
        }
    }
}

#[test]
fn fixed_timing_spaces_the_lines() {
    let mut c = sdk(PYTHON, false, &[("MOCK_AGENT_TIMING", "fixed=100")]);
    c.send(&initialize("req_1"));
    c.next_json();
    // Lines are read late under load, never early: the bound counts from the prompt.
    let sent = Instant::now();
    c.send(&prompt("hi"));
    let lines = timed(&mut c);
    c.finish();
    let init = lines
        .iter()
        .position(|(_, l)| l["subtype"] == "init")
        .expect("init");
    let turn = &lines[init..];
    assert!(turn.len() >= 8, "{}", turn.len());
    let spent = turn.last().expect("result").0 - sent;
    let least = Duration::from_millis(100 * (turn.len() as u64 - 1));
    assert!(spent >= least, "{spent:?} < {least:?}");

    // The same in print mode (stdin read before the turn), and when stdin ends with
    // the prompt (Python's `query()`): the end of input does not hurry the turn.
    let started = Instant::now();
    let out = claude(&["-p", "hi", "--output-format=stream-json", "--verbose"])
        .env("MOCK_AGENT_TIMING", "fixed=100")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        started.elapsed() >= Duration::from_millis(650),
        "{:?}",
        started.elapsed()
    );
    let started = Instant::now();
    let mut c = sdk(PYTHON, false, &[("MOCK_AGENT_TIMING", "fixed=100")]);
    c.send(&initialize("req_1"));
    c.send(&prompt("hi"));
    c.close();
    let ended = c.finish();
    assert_eq!(code(&ended), Some(0));
    assert!(
        started.elapsed() >= Duration::from_millis(650),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn the_journal_holds_the_conversation_both_ways() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("journal.ndjson");
    let journal = path.to_str().expect("utf-8 path");
    let mut c = sdk(&with_prompt_tool(), false, &[("MOCK_AGENT_JOURNAL", journal)]);
    c.send(&initialize("req_1"));
    c.send(&prompt("Read README.md and create a summary"));
    let lines = c.until(|l| asks(l, "can_use_tool"));
    let asked = lines.last().expect("request");
    let allow = answer(
        &asked["request_id"],
        json!({"behavior": "allow", "updatedInput": asked["request"]["input"]}),
    );
    c.send_json(&allow);
    c.until(is_result);
    let ended = c.finish();
    assert_eq!(code(&ended), Some(0));
    let entries = harness::journal::read(&path).expect("reads the journal");
    assert_eq!(entries.len(), 1);
    let conversation = entries[0].claude.as_ref().expect("entry.claude");
    let said: Vec<(&str, Value)> = conversation
        .messages
        .iter()
        .map(|m| {
            (
                m.dir.as_str(),
                serde_json::from_str(&m.line).unwrap_or(Value::Null),
            )
        })
        .collect();
    let at = |dir: &str, p: &dyn Fn(&Value) -> bool| {
        said.iter()
            .position(|(d, l)| *d == dir && p(l))
            .unwrap_or_else(|| panic!("not journaled ({dir})"))
    };
    let init_in = at("in", &|l| l["request"]["subtype"] == "initialize");
    let init_out = at("out", &|l| kind(l) == "control_response");
    let user_in = at("in", &|l| kind(l) == "user");
    let ask_out = at("out", &|l| asks(l, "can_use_tool"));
    let allow_in = at("in", &|l| *l == allow);
    let result_out = at("out", &is_result);
    assert!(init_in < init_out && user_in < ask_out && ask_out < allow_in && allow_in < result_out);
    let out: Vec<&Value> = said.iter().filter(|(d, _)| *d == "out").map(|(_, l)| l).collect();
    assert_eq!(
        out,
        ended.json().iter().collect::<Vec<_>>(),
        "every line out, in order"
    );
}

#[test]
fn generated_sessions_are_deterministic_and_readable_by_the_sdks() {
    let play = |seed: u64| {
        claude(&["-p", "hi", "--output-format", "stream-json", "--verbose"])
            .env("MOCK_AGENT_GENERATE", seed.to_string())
            .stdin(std::process::Stdio::null())
            .output()
            .expect("runs")
    };
    let mut shapes = std::collections::BTreeSet::new();
    for seed in 1..=8 {
        let out = play(seed);
        assert_eq!(out.stdout, play(seed).stdout, "seed {seed}: the same bytes again");
        let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
        // Python's SDK needs `session_id` and `uuid` on the types it knows, the
        // undocumented lines of a generated session too (`rate_limit_event`).
        for line in &lines {
            assert!(
                line["session_id"].is_string() && line["uuid"].is_string(),
                "seed {seed}: {line}"
            );
        }
        let result = lines.last().expect("lines");
        assert!(is_result(result), "seed {seed}");
        let error = result["is_error"].as_bool().expect("is_error");
        assert_eq!(out.status.code(), Some(i32::from(error)), "seed {seed}");
        shapes.insert(lines.iter().map(|l| kind(l).to_owned()).collect::<Vec<_>>());
    }
    assert!(shapes.len() > 3, "seeds make different sessions");
}
