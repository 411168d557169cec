//! Claude Code's stand-in under a hostile client, as `acp_server.rs` checks server
//! mode: a line over the limit is the mock's own error (never a silent wait), input it
//! does not need during a timing delay and a journaled conversation cost bounded
//! memory, answers to requests never made are never taken for a later one, and a
//! stdout the client closed is journaled as closed. Memory is the
//! mock's peak resident set (`VmHWM`), read once every line sent was handled.

use std::io::Write;

use serde_json::{json, Value};

use crate::claude::{
    answer, initialize, is_result, prompt, request, sdk, tool_result, up_to_permission, with_prompt_tool,
    PYTHON,
};
use crate::support::Conversation;

/// The mock as the Python SDK starts it, journaling to `journal.jsonl` in the
/// directory returned, past its `initialize` answer.
fn journaled_and_initialized() -> (tempfile::TempDir, Conversation) {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("journal.jsonl");
    let mut c = sdk(
        PYTHON,
        false,
        &[("MOCK_AGENT_JOURNAL", journal.to_str().expect("UTF-8"))],
    );
    c.send(&initialize("req_1"));
    c.next_json();
    (dir, c)
}

/// What the mock's memory may reach while it is fed far more.
const BOUND_KIB: u64 = 64 << 10;

/// A `keep_alive` line of 64 KiB, with its newline: a line the CLI answers with
/// nothing.
fn keep_alive() -> String {
    format!(
        "{{\"type\":\"keep_alive\",\"pad\":\"{}\"}}\n",
        "x".repeat(64 << 10)
    )
}

/// Writes `bytes` of [`keep_alive`] lines, then a `set_model` request whose answer
/// says every line before was handled; on a thread, the mock's stdin given back at
/// the end.
fn flood(c: &mut Conversation, bytes: usize) -> std::thread::JoinHandle<std::process::ChildStdin> {
    let mut stdin = c.take_stdin().expect("stdin");
    std::thread::spawn(move || {
        let line = keep_alive();
        let mut written = 0;
        while written < bytes {
            stdin.write_all(line.as_bytes()).expect("writes the flood");
            written += line.len();
        }
        let model = request("flooded", json!({"subtype": "set_model", "model": "opus"}));
        stdin.write_all(format!("{model}\n").as_bytes()).expect("writes");
        stdin
    })
}

fn answers(id: &str) -> impl Fn(&Value) -> bool + '_ {
    move |line| line["type"] == "control_response" && line["response"]["request_id"] == id
}

#[test]
fn a_line_over_64_mib_is_the_mocks_error_and_journaled_never_a_silent_wait() {
    let (dir, mut c) = journaled_and_initialized();
    let journal = dir.path().join("journal.jsonl");
    let mut stdin = c.take_stdin().expect("stdin");
    let writer = std::thread::spawn(move || {
        // The mock stops reading past the limit: the rest may meet a closed pipe.
        let start = br#"{"type":"user","message":{"role":"user","content":""#;
        let _ = stdin.write_all(start);
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..65 {
            if stdin.write_all(&chunk).is_err() {
                return;
            }
        }
        let _ = stdin.write_all(b"\"}}\n");
    });
    let ended = c.finish();
    writer.join().expect("writer");
    assert_eq!(
        ended.status.code(),
        Some(harness::exit_codes::INVALID_INPUT),
        "{}",
        ended.stderr
    );
    assert!(
        ended
            .stderr
            .starts_with("mock-agent: a line on stdin is over 64 MiB ("),
        "{}",
        ended.stderr
    );
    assert_eq!(ended.stderr.lines().count(), 1, "{}", ended.stderr);
    let entries = harness::journal::read(&journal).expect("journal");
    let entry = &entries[0];
    assert!(entry
        .error
        .as_deref()
        .is_some_and(|e| e.starts_with("a line on stdin is over 64 MiB")));
    let messages = &entry.claude.as_ref().expect("the conversation").messages;
    assert!(
        messages
            .iter()
            .any(|m| m.dir == "in" && m.line.starts_with("[a line of over ")),
        "{messages:?}"
    );
}

#[test]
fn input_the_mock_does_not_need_during_a_delay_keeps_its_memory_bounded() {
    // 200 MiB written while each line of the turn waits 300 ms.
    const FED: usize = 200 << 20;
    let mut c = sdk(PYTHON, false, &[("MOCK_AGENT_TIMING", "fixed=300")]);
    c.send(&initialize("req_1"));
    c.next_json();
    c.send(&prompt("hi"));
    let writer = flood(&mut c, FED);
    let lines = c.until(answers("flooded"));
    let peak = crate::support::peak_rss_kib(c.id());
    c.give_stdin(writer.join().expect("the flood is written"));
    let ended = c.finish();
    assert_eq!(ended.status.code(), Some(0), "{}", ended.stderr);
    assert!(
        lines
            .iter()
            .chain(&ended.json())
            .any(|l| l["type"] == "result" && l["is_error"] == false),
        "the turn ends as always"
    );
    assert!(peak < BOUND_KIB, "peak RSS {peak} KiB for {} MiB fed", FED >> 20);
}

#[test]
fn a_journaled_conversation_is_spooled_not_held() {
    // 128 MiB of lines, each journaled: held, they cost twice as much.
    const FED: usize = 128 << 20;
    let (dir, mut c) = journaled_and_initialized();
    let journal = dir.path().join("journal.jsonl");
    c.send(&prompt("hi"));
    let writer = flood(&mut c, FED);
    c.until(answers("flooded"));
    let peak = crate::support::peak_rss_kib(c.id());
    c.give_stdin(writer.join().expect("the flood is written"));
    let ended = c.finish();
    assert_eq!(ended.status.code(), Some(0), "{}", ended.stderr);
    assert!(
        peak < BOUND_KIB,
        "peak RSS {peak} KiB for a journaled conversation of {} MiB",
        FED >> 20
    );
    // Every line is in the journal, and nothing is left beside it.
    let text = std::fs::read_to_string(&journal).expect("reads the journal");
    let lines = FED.div_ceil(keep_alive().len());
    assert_eq!(text.matches(r#"\"type\":\"keep_alive\""#).count(), lines);
    assert_eq!(text.lines().count(), 1);
    assert!(text.contains(r#""claude":{"messages":[{"dir":"in""#));
    assert!(text.trim_end().ends_with('}'));
    assert_eq!(std::fs::read_dir(dir.path()).expect("lists").count(), 1);
}

#[test]
fn a_stdout_the_client_closed_is_journaled_as_closed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("journal.jsonl");
    let mut child = crate::claude::claude(PYTHON)
        .env("MOCK_AGENT_JOURNAL", &journal)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns");
    // Closed before the mock writes a byte: its first write meets EPIPE.
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = writeln!(stdin, "{}\n{}", initialize("req_1"), prompt("hi"));
    drop(stdin);
    let ended = child.wait_with_output().expect("waits");
    crate::support::assert_said(&ended, 0);
    let entries = harness::journal::read(&journal).expect("journal");
    assert!(entries[0].stdout_closed, "{:?}", entries[0]);
    assert!(entries[0].stdout_closed_at_ms.is_some());
}

#[test]
fn answers_to_requests_never_made_are_never_taken_for_the_one_waited_for() {
    let (mut c, lines) = up_to_permission(&with_prompt_tool(), false);
    let asked = lines.last().expect("the request");
    // Denials to ids the CLI never used, one of them before it asked again.
    for id in ["never-asked", "0", ""] {
        c.send_json(&answer(
            &json!(id),
            json!({"behavior": "deny", "message": "stray"}),
        ));
    }
    c.send_json(&answer(
        &asked["request_id"],
        json!({"behavior": "allow", "updatedInput": asked["request"]["input"]}),
    ));
    let rest = c.until(is_result);
    let (_, result) = tool_result(&rest, &asked["request"]["tool_use_id"]);
    assert_eq!(result.get("is_error"), None, "the allow was taken: {result}");
    let end = rest.last().expect("result");
    assert_eq!(end["permission_denials"], json!([]));
    assert_eq!(c.finish().status.code(), Some(0));
}
