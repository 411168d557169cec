//! Server mode's replay of a recorded conversation: live ids (request and session ids)
//! in the recorded messages, divergences journaled (or, strict, answered with an
//! error), step mode; and what the server takes from a client: answers only to what
//! it asked, input only as fast as it handles it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::bin;

/// A recorded conversation: initialize, session/new, one prompt with a permission
/// request answered allow-once.
const RECORDING: &str = r#"{"mock_agent_cassette":2,"invocation":{"argv":["acp"],"acp":true}}
{"t":0,"in":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}}
{"t":1,"out":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"authMethods":[]}}}
{"t":5,"in":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}}
{"t":9,"out":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"rec-session"}}}
{"t":20,"in":{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"rec-session","prompt":[{"type":"text","text":"Run: echo hi"}]}}}
{"t":25,"out":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-session","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"`echo hi`","kind":"execute","status":"pending"}}}}
{"t":26,"out":{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"rec-session","toolCall":{"toolCallId":"c1"},"options":[{"optionId":"allow-once","name":"Allow once","kind":"allow_once"},{"optionId":"reject-once","name":"Reject","kind":"reject_once"}]}}}
{"t":40,"in":{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow-once"}}}}
{"t":41,"out":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-session","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Printed hi."}}}}}
{"t":42,"out":{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}}
{"t":50,"exit":0}
"#;

/// The client's requests, written at once (its answer is given when asked).
const CLIENT: &str = concat!(
    r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":1}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":"b","method":"session/new","params":{"cwd":"/x","mcpServers":[]}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"session/prompt","params":{"sessionId":"rec-session","prompt":[]}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":7,"method":"session/set_mode","params":{"sessionId":"rec-session","modeId":"ask"}}"#,
    "\n",
);

struct Replayed {
    code: Option<i32>,
    lines: Vec<String>,
    journal: Value,
}

fn replay(option: &str, strict: bool) -> Replayed {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("rec.cassette");
    std::fs::write(&cassette, RECORDING).expect("writes");
    let journal = dir.path().join("journal.jsonl");
    let mut cmd = crate::support::mock_std();
    cmd.arg("acp")
        .env("MOCK_AGENT_CASSETTE", &cassette)
        .env("MOCK_AGENT_JOURNAL", &journal)
        .env("MOCK_AGENT_STRICT", if strict { "1" } else { "0" });
    let output = crate::support::converse(cmd, CLIENT, |request| {
        crate::support::answer_permission(request, option)
    });
    let journal = std::fs::read_to_string(&journal).expect("journal");
    Replayed {
        code: output.status.code(),
        lines: String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect(),
        journal: serde_json::from_str(journal.trim()).expect("one entry"),
    }
}

#[test]
fn a_recording_replays_byte_for_byte_with_the_live_ids() {
    let run = replay("allow-once", false);
    assert_eq!(run.code, Some(0));
    assert_eq!(
        run.lines[..6],
        [
            r#"{"jsonrpc":"2.0","id":"a","result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"authMethods":[]}}"#,
            r#"{"jsonrpc":"2.0","id":"b","result":{"sessionId":"rec-session"}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-session","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"`echo hi`","kind":"execute","status":"pending"}}}"#,
            r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"rec-session","toolCall":{"toolCallId":"c1"},"options":[{"optionId":"allow-once","name":"Allow once","kind":"allow_once"},{"optionId":"reject-once","name":"Reject","kind":"reject_once"}]}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-session","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Printed hi."}}}}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"result":{"stopReason":"end_turn"}}"#,
        ]
    );
    // set_mode is not in the recording: the mock's own answer, and a divergence.
    assert_eq!(run.lines[6], r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
    let divergences = run.journal["acp"]["divergences"].as_array().expect("divergences");
    assert_eq!(divergences.len(), 1, "{divergences:?}");
    assert!(divergences[0]
        .as_str()
        .is_some_and(|d| d.contains("session/set_mode")));
    let answers = &run.journal["acp"]["answers"];
    assert_eq!(answers[0]["method"], "session/request_permission");
    assert_eq!(answers[0]["answer"]["outcome"]["optionId"], "allow-once");
}

#[test]
fn another_permission_answer_is_a_divergence_and_strict_mode_answers_it_with_an_error() {
    let lenient = replay("reject-once", false);
    assert!(
        lenient
            .lines
            .iter()
            .any(|l| l.contains(r#""stopReason":"end_turn""#)),
        "keeps playing"
    );
    let divergences = lenient.journal["acp"]["divergences"].to_string();
    assert!(
        divergences.contains("reject-once") && divergences.contains("allow-once"),
        "{divergences}"
    );
    let strict = replay("reject-once", true);
    let answer = strict
        .lines
        .iter()
        .find(|l| l.contains(r#""id":18446744073709551616"#))
        .expect("the prompt is answered");
    let answer: Value = serde_json::from_str(answer).expect("json");
    assert_eq!(answer["error"]["code"], -32603);
    assert!(answer["error"]["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("mock-agent: the client diverged")));
    assert!(
        !strict.lines.iter().any(|l| l.contains("Printed hi.")),
        "the turn stops there"
    );
}

#[test]
fn step_mode_releases_one_agent_message_a_byte() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("step");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("fifo");
    let mut child = crate::support::acp_server(&[("MOCK_AGENT_STEP", fifo.as_os_str())]);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/new\",\"params\":{\"cwd\":\"/\",\"mcpServers\":[]}}\n")
        .expect("writes");
    let mut step = std::fs::OpenOptions::new()
        .write(true)
        .open(&fifo)
        .expect("opens the fifo");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    // One byte: the answer to initialize, and nothing more until the next byte.
    step.write_all(b"x").expect("steps");
    stdout.read_line(&mut line).expect("reads");
    assert!(line.starts_with(r#"{"jsonrpc":"2.0","id":1,"result""#), "{line}");
    line.clear();
    step.write_all(b"x").expect("steps");
    stdout.read_line(&mut line).expect("reads");
    assert!(line.starts_with(r#"{"jsonrpc":"2.0","id":2,"result""#), "{line}");
    // The end of the step file lets the rest go; the end of stdin ends the agent.
    drop(step);
    drop(stdin);
    let rest: Vec<String> = stdout.lines().map_while(Result::ok).collect();
    assert_eq!(rest.len(), 1, "the available_commands_update: {rest:?}");
    assert!(child.wait().expect("waits").success());
}

/// A recorded turn of `updates` updates (one of them longer than the replay's read
/// buffer), stderr lines and lines that are not JSON among them, then a second
/// exchange: the cassette, and what the mock must write for the live requests of
/// [`LONG_CLIENT`] (stdout, stderr).
fn long_turn(updates: usize) -> (String, Vec<u8>, Vec<u8>) {
    let mut cassette = vec![
        r#"{"mock_agent_cassette":2,"invocation":{"argv":["acp"],"acp":true}}"#.to_owned(),
        r#"{"t":0,"in":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}}"#.to_owned(),
    ];
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    fn out(cassette: &mut Vec<String>, stdout: &mut Vec<u8>, line: &str) {
        cassette.push(format!(r#"{{"t":1,"out":{line}}}"#));
        stdout.extend_from_slice(line.as_bytes());
        stdout.push(b'\n');
    }
    for i in 0..updates {
        let text = match i % 5 {
            _ if i == updates / 2 => "long ".repeat(80_000),
            0 => format!("chunk {i}: naïve → 日本語"),
            1 => format!("chunk {i}: \\\"quoted\\\" \\\\ tab\\t line\\n"),
            _ => format!("chunk {i}"),
        };
        out(
            &mut cassette,
            &mut stdout,
            &format!(
                r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s","update":{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":"{text}"}}}}}}}}"#
            ),
        );
        if i % 4_000 == 0 {
            cassette.push(format!(r#"{{"t":1,"err":"progress {i}"}}"#));
            stderr.extend_from_slice(format!("progress {i}\n").as_bytes());
            cassette.push(r#"{"t":1,"out":"a line that is not JSON"}"#.to_owned());
            stdout.extend_from_slice(b"a line that is not JSON\n");
        }
    }
    out(
        &mut cassette,
        &mut stdout,
        r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}"#,
    );
    cassette.push(r#"{"t":2,"in":{"jsonrpc":"2.0","id":4,"method":"session/set_mode","params":{"sessionId":"s","modeId":"ask"}}}"#.to_owned());
    cassette.push(r#"{"t":2,"out":{"jsonrpc":"2.0","id":4,"result":{}}}"#.to_owned());
    cassette.push(r#"{"t":3,"exit":0}"#.to_owned());
    // The live ids in the responses.
    let stdout = String::from_utf8(stdout)
        .expect("UTF-8")
        .replace(r#""id":3,"result""#, r#""id":"live-3","result""#)
        .into_bytes();
    let mut stdout = stdout;
    stdout.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":[4],\"result\":{}}\n");
    (cassette.join("\n") + "\n", stdout, stderr)
}

/// The live client of [`long_turn`]: its prompt, then its mode, with ids of its own.
const LONG_CLIENT: &str = concat!(
    r#"{"jsonrpc":"2.0","id":"live-3","method":"session/prompt","params":{"sessionId":"s","prompt":[]}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":[4],"method":"session/set_mode","params":{"sessionId":"s","modeId":"ask"}}"#,
    "\n"
);

#[test]
fn a_long_recorded_turn_is_read_from_the_cassette_as_it_plays_byte_for_byte() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("long.cassette");
    let (recording, stdout, stderr) = long_turn(20_000);
    std::fs::write(&cassette, recording).expect("writes");
    let journal = dir.path().join("journal.jsonl");
    let output = crate::support::mock()
        .arg("acp")
        .env("MOCK_AGENT_CASSETTE", &cassette)
        .env("MOCK_AGENT_JOURNAL", &journal)
        .write_stdin(LONG_CLIENT)
        .output()
        .expect("runs");
    crate::support::assert_said(&output, 0);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&stderr)
    );
    assert_eq!(output.stdout.len(), stdout.len(), "as many bytes as recorded");
    let differ = output.stdout.iter().zip(&stdout).position(|(a, b)| a != b);
    assert_eq!(differ, None, "the first byte that differs from the recording");
    let journal: Value =
        serde_json::from_str(std::fs::read_to_string(&journal).expect("journal").trim()).expect("one entry");
    assert_eq!(journal["acp"]["divergences"], serde_json::json!([]));
    let messages = journal["acp"]["messages"].as_array().expect("messages");
    assert_eq!(
        messages.iter().filter(|m| m["dir"] == "out").count(),
        20_000 + 5 + 2,
        "each message journaled"
    );
}

#[test]
fn a_cassette_cut_short_while_it_plays_is_the_mocks_error_not_a_panic() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("cut.cassette");
    let (recording, _, _) = long_turn(2_000);
    let recording = recording.replacen(
        "\n",
        "\n{\"t\":0,\"in\":{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}}\n{\"t\":0,\"out\":{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":1}}}\n",
        1,
    );
    std::fs::write(&cassette, &recording).expect("writes");
    let mut cmd = Command::new(bin());
    harness::run::child::without_mock_env(&mut cmd);
    let mut child = cmd
        .arg("acp")
        .env("MOCK_AGENT_CASSETTE", &cassette)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n")
        .expect("writes");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("reads");
    assert_eq!(
        line,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":1}}\n"
    );
    // The mock has read the cassette through; now it is cut short under it.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&cassette)
        .expect("opens");
    file.set_len(recording.len() as u64 / 2).expect("truncates");
    stdin.write_all(LONG_CLIENT.as_bytes()).expect("writes");
    drop(stdin);
    let output = child.wait_with_output().expect("waits");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).expect("reads");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(harness::exit_codes::INVALID_INPUT),
        "{stderr}"
    );
    assert!(
        stderr.starts_with("mock-agent: ")
            && stderr.contains(
                "cut.cassette:5: file cut short: the cassette changed while mock-agent replayed it"
            )
            && stderr.contains("help: "),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(rest, "", "nothing of the prompt's turn is played");
}

/// Reads JSON lines from `stdout` until one that `stop` accepts: that one.
fn read_until(stdout: &mut impl BufRead, stop: impl Fn(&Value) -> bool) -> Value {
    loop {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).expect("reads") > 0, "stdout ended");
        if let Ok(message) = serde_json::from_str::<Value>(&line) {
            if stop(&message) {
                return message;
            }
        }
    }
}

#[test]
fn answers_to_ids_never_asked_are_dropped_and_never_taken_for_a_later_request() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("journal.jsonl");
    let mut child = crate::support::acp_server(&[("MOCK_AGENT_JOURNAL", std::ffi::OsStr::new(&journal))]);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let answer = |id: &Value, option: &str| {
        format!(
            "{}\n",
            serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "selected", "optionId": option}}})
        )
    };
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/new\",\"params\":{\"cwd\":\"/\",\"mcpServers\":[]}}\n")
        .expect("writes");
    // Answers to requests the agent never made: a stray 0 first of all.
    for id in [Value::from(0), Value::from(99), Value::from("x")] {
        stdin
            .write_all(answer(&id, "reject-once").as_bytes())
            .expect("writes");
    }
    let session = read_until(&mut stdout, |m| m["id"] == 2 && m.get("method").is_none());
    let session = session["result"]["sessionId"]
        .as_str()
        .expect("a session")
        .to_owned();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{{"sessionId":"{session}","prompt":[{{"type":"text","text":"hi"}}]}}}}"#
    )
    .expect("writes");
    let asked = read_until(&mut stdout, |m| {
        m["method"] == "session/request_permission" || (m["id"] == 3 && m.get("method").is_none())
    });
    assert_eq!(
        asked["method"], "session/request_permission",
        "the turn waits: {asked}"
    );
    assert_eq!(asked["id"], 0, "the id of the stray answer");
    stdin
        .write_all(answer(&asked["id"], "allow-once").as_bytes())
        .expect("writes");
    read_until(&mut stdout, |m| m["id"] == 3 && m.get("method").is_none());
    drop(stdin);
    assert!(child.wait().expect("waits").success());
    let entry: Value =
        serde_json::from_str(std::fs::read_to_string(&journal).expect("journal").trim()).expect("one entry");
    let answers: Vec<&Value> = entry["acp"]["answers"]
        .as_array()
        .expect("answers")
        .iter()
        .map(|a| &a["answer"]["outcome"]["optionId"])
        .collect();
    assert_eq!(
        answers,
        [&Value::from("allow-once")],
        "the answer given when asked"
    );
    let divergences = entry["acp"]["divergences"].as_array().expect("divergences");
    let dropped: Vec<&str> = divergences
        .iter()
        .filter_map(Value::as_str)
        .filter(|d| d.contains("has not asked"))
        .collect();
    assert_eq!(dropped.len(), 3, "each stray answer journaled: {divergences:?}");
    assert!(dropped[2].contains(r#"id "x""#), "{dropped:?}");
}

#[test]
fn a_flood_the_mock_does_not_need_keeps_its_memory_bounded() {
    // 256 MiB of answers to requests never made, written while the mock waits for a
    // step byte (it takes nothing then) and after (it drops each).
    const FLOOD: usize = 256 << 20;
    const BOUND_KIB: u64 = 64 << 10;
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("step");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("fifo");
    let mut child = crate::support::acp_server(&[("MOCK_AGENT_STEP", std::ffi::OsStr::new(&fifo))]);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n")
        .expect("writes");
    // Open once the mock waits for its first step byte.
    let step = std::fs::OpenOptions::new()
        .write(true)
        .open(&fifo)
        .expect("opens the fifo");
    let flood = std::thread::spawn(move || {
        let pad = "x".repeat(64 << 10);
        let mut written = 0;
        let mut id = 1000u64;
        while written < FLOOD {
            let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"pad\":\"{pad}\"}}}}\n");
            stdin.write_all(line.as_bytes()).expect("writes the flood");
            written += line.len();
            id += 1;
        }
        stdin
    });
    // Time for the flood to pile up, if the mock takes it in.
    std::thread::sleep(std::time::Duration::from_millis(500));
    drop(step);
    let stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || std::io::read_to_string(stdout).expect("reads"));
    let stdin = flood.join().expect("the flood is written");
    let peak = crate::support::peak_rss_kib(child.id());
    drop(stdin);
    assert!(child.wait().expect("waits").success());
    assert!(reader
        .join()
        .expect("reads")
        .starts_with(r#"{"jsonrpc":"2.0","id":1,"result""#));
    assert!(
        peak < BOUND_KIB,
        "peak RSS {peak} KiB for a flood of {} MiB",
        FLOOD >> 20
    );
}

/// A client of `cassettes/acp/load.cassette` that makes a session of its own (the
/// recording loaded one) and prompts it: the mock's output and the journal's
/// divergences.
fn new_session_against_a_load_recording() -> (Vec<Value>, Value) {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("journal.jsonl");
    let mut child = crate::support::acp_server(&[
        (
            "MOCK_AGENT_CASSETTE",
            std::ffi::OsStr::new("cassettes/acp/load.cassette"),
        ),
        ("MOCK_AGENT_JOURNAL", std::ffi::OsStr::new(&journal)),
    ]);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/new\",\"params\":{\"cwd\":\"/\",\"mcpServers\":[]}}\n")
        .expect("writes");
    let created = read_until(&mut stdout, |m| m["id"] == 2 && m.get("method").is_none());
    let session = created["result"]["sessionId"]
        .as_str()
        .expect("a session")
        .to_owned();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{{"sessionId":"{session}","prompt":[{{"type":"text","text":"What did you print?"}}]}}}}"#
    )
    .expect("writes");
    drop(stdin);
    let mut messages = vec![created];
    messages.extend(
        stdout
            .lines()
            .map_while(Result::ok)
            .filter_map(|l| serde_json::from_str::<Value>(&l).ok()),
    );
    assert!(child.wait().expect("waits").success());
    let entry: Value =
        serde_json::from_str(std::fs::read_to_string(&journal).expect("journal").trim()).expect("one entry");
    (messages, entry["acp"]["divergences"].clone())
}

#[test]
fn a_recorded_session_plays_under_the_live_one_and_reruns_name_the_same_sessions() {
    let (messages, divergences) = new_session_against_a_load_recording();
    let session = &messages[0]["result"]["sessionId"];
    let updates: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "session/update")
        .collect();
    assert!(updates.len() >= 2, "{messages:?}");
    for update in &updates {
        assert_eq!(&update["params"]["sessionId"], session, "{update}");
    }
    assert!(
        messages
            .iter()
            .any(|m| m["id"] == 3 && m["result"]["stopReason"] == "end_turn"),
        "{messages:?}"
    );
    // A rerun: the same session id, the same divergences, word for word.
    let (again, divergences_again) = new_session_against_a_load_recording();
    assert_eq!(&again[0]["result"]["sessionId"], session);
    assert_eq!(divergences_again, divergences);
    assert!(divergences.to_string().contains("session/new"), "{divergences}");
}
