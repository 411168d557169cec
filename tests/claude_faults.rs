//! Claude Code's faults through the binary: each entry of the catalogue's `claude`
//! section, as Python's `query()` meets it (the prompt, then the end of input), and
//! the endings the real CLI has in each state (`REAL-CLAUDE.md`, "Observed endings").

use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::claude::{claude, initialize, is_result, prompt, sdk, ANSWER, PYTHON};
use crate::support::{Conversation, Ended};

/// Every fault of the `claude` section this file runs.
const COVERED: &[&str] = &[
    "exit",
    "signal",
    "eof",
    "stall",
    "malformed",
    "unknown",
    "huge",
    "missing",
    "stderr",
    "stderr-flood",
    "no-response",
    "error",
    "not-logged-in",
    "invalid-api-key",
    "max-turns",
    "error-result",
    "rate-limited",
    "connection-lost",
];

/// A conversation with these faults, started as Python's `query()` does.
fn faulted(spec: &str) -> Conversation {
    let mut c = sdk(PYTHON, false, &[("MOCK_AGENT_FAULTS", spec)]);
    c.send(&initialize("req_1_a1b2c3d4"));
    c.send(&prompt("Read README.md and create a summary"));
    c
}

/// [`faulted`] to its end, stdin closed at once.
fn run(spec: &str) -> Ended {
    let mut c = faulted(spec);
    c.close();
    c.finish()
}

/// `claude -p hi` in `format` with these faults: stdout, exit code.
fn print(spec: &str, format: &str) -> (String, Option<i32>) {
    let out = claude(&["-p", "hi", "--output-format", format])
        .env("MOCK_AGENT_FAULTS", spec)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

fn result(ended: &Ended) -> Value {
    ended
        .json()
        .into_iter()
        .find(is_result)
        .unwrap_or_else(|| panic!("no result:\n{}", String::from_utf8_lossy(&ended.stdout.concat())))
}

fn types(ended: &Ended) -> Vec<String> {
    ended
        .json()
        .iter()
        .map(|l| {
            let kind = l["type"].as_str().unwrap_or_default();
            match l["subtype"].as_str() {
                Some(subtype) => format!("{kind}/{subtype}"),
                None => kind.to_owned(),
            }
        })
        .collect()
}

#[test]
fn every_claude_fault_of_the_catalogue_is_run_here() {
    let names: Vec<&str> = harness::dialects::CLAUDE
        .catalogue()
        .iter()
        .map(|e| e.name)
        .collect();
    assert!(names.len() >= COVERED.len());
    for name in names {
        assert!(
            COVERED.contains(&name),
            "`{name}` has no test in claude_faults.rs"
        );
    }
}

#[test]
fn a_429_and_a_lost_connection_end_as_claude_code_2_1_331() {
    // Observed with `mock-agent drift` (the real CLI against a scripted Messages API,
    // CLAUDE_CODE_MAX_RETRIES=0): the synthetic message and an error result, exit 1.
    for (spec, text, error, status) in [
        (
            "rate-limited",
            "API Error: Request rejected (429) · Number of requests has exceeded your rate limit.",
            "rate_limit",
            json!(429),
        ),
        (
            "connection-lost",
            "API Error: Connection lost mid-response. The response above may be incomplete.",
            "server_error",
            Value::Null,
        ),
    ] {
        let ended = run(spec);
        assert_eq!(ended.status.code(), Some(1), "{spec}");
        // A lost connection cut the answer: told four times, asked to resume between.
        let cut: &[&str] = if spec == "connection-lost" {
            &[
                "assistant",
                "user",
                "assistant",
                "user",
                "assistant",
                "user",
                "assistant",
            ]
        } else {
            &[]
        };
        let expected = [
            &["control_response", "system/init"][..],
            cut,
            &["assistant", "result/success"],
        ]
        .concat();
        assert_eq!(types(&ended), expected, "{spec}");
        let lines = ended.json();
        let synthetic = &lines[lines.len() - 2];
        assert_eq!(synthetic["message"]["content"][0]["text"], text);
        assert_eq!(synthetic["error"], error);
        let result = result(&ended);
        assert_eq!(
            (&result["is_error"], &result["result"]),
            (&json!(true), &json!(text))
        );
        assert_eq!(result["api_error_status"], status, "{spec}");
        if spec == "connection-lost" {
            let partial = &lines[2]["message"]["content"][0]["text"];
            assert!(partial.as_str().is_some_and(|t| !t.is_empty()), "{partial}");
            for n in [4, 6, 8] {
                assert_eq!(
                    lines[n]["message"]["content"][0]["text"],
                    lines[2]["message"]["content"][0]["text"]
                );
                assert_eq!(lines[n - 1]["isSynthetic"], true);
                assert_eq!(
                    lines[n - 1]["message"]["content"][0]["text"],
                    harness::dialects::claude::play::RESUME
                );
            }
            assert_eq!(synthetic.get("api_error_status"), None);
            assert_eq!(synthetic["api_error"], "connection_failed");
            assert_eq!(result["api_error"], "connection_failed");
        }
    }
}

/// Observed (2.1.331, `--include-partial-messages`, a stream cut by the scripted
/// API): each request starts with `system/status`, a cut answer's events end with
/// `content_block_stop` and `message_stop` the CLI makes up (no `message_delta`).
#[test]
fn a_lost_connection_s_partial_messages_end_each_cut_answer() {
    let out = claude(&[
        "-p",
        "hi",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
    ])
    .env("MOCK_AGENT_FAULTS", "connection-lost")
    .stdin(std::process::Stdio::null())
    .output()
    .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let mut kinds: Vec<String> = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Value = serde_json::from_str(line).expect("a JSON line");
        let kind = match v["type"].as_str().unwrap_or_default() {
            "stream_event" => v["event"]["type"].as_str().unwrap_or_default().to_owned(),
            "system" => format!("system/{}", v["subtype"].as_str().unwrap_or_default()),
            other => other.to_owned(),
        };
        // A run of deltas counts once.
        if kind != "content_block_delta" || kinds.last() != Some(&kind) {
            kinds.push(kind);
        }
    }
    let attempt = [
        "system/status",
        "message_start",
        "content_block_start",
        "content_block_delta",
        "assistant",
        "content_block_stop",
        "message_stop",
    ];
    let mut expected = vec!["system/init"];
    for n in 0..4 {
        if n > 0 {
            expected.push("user");
        }
        expected.extend(attempt);
    }
    expected.extend(["assistant", "result"]);
    assert_eq!(kinds, expected);
}

#[test]
fn not_logged_in_and_a_bad_key_end_as_the_real_cli() {
    for (spec, text) in [
        ("not-logged-in", "Not logged in · Please run /login"),
        ("invalid-api-key", "Invalid API key · Fix external API key"),
    ] {
        let ended = run(spec);
        assert_eq!(ended.status.code(), Some(1), "{spec}");
        assert!(ended.stderr.is_empty(), "{spec}: nothing on stderr");
        // Observed: init, the synthetic assistant message, the result (the 401 comes
        // on the first API call: the model says nothing before).
        assert_eq!(
            types(&ended),
            ["control_response", "system/init", "assistant", "result/success"],
            "{spec}"
        );
        let lines = ended.json();
        let synthetic = &lines[2];
        assert_eq!(synthetic["message"]["model"], "<synthetic>");
        assert_eq!(synthetic["message"]["content"][0]["text"], text);
        assert_eq!(synthetic["error"], "authentication_failed");
        assert_eq!(synthetic["is_api_error_message"], true);
        let result = result(&ended);
        assert_eq!(result["is_error"], true);
        assert_eq!(result["result"], text);
        assert_eq!(result["terminal_reason"], "api_error");
        assert_eq!(result["api_error_status"], 401);
        assert_eq!(
            print(spec, "text"),
            (format!("{text}\n"), Some(1)),
            "{spec}: text"
        );
        let (json, code) = print(spec, "json");
        let json: Value = serde_json::from_str(json.trim_end()).expect("one result line");
        assert_eq!(
            (json["is_error"].as_bool(), code),
            (Some(true), Some(1)),
            "{spec}: json"
        );
    }
}

#[test]
fn max_turns_stops_at_the_first_tool_call() {
    let ended = run("max-turns");
    assert_eq!(ended.status.code(), Some(1));
    assert!(
        ended.stderr.is_empty(),
        "nothing on stderr (observed): {}",
        ended.stderr
    );
    let kinds = types(&ended);
    assert_eq!(
        kinds[kinds.len() - 2],
        "user",
        "the tool's result, then the result: {kinds:?}"
    );
    let result = result(&ended);
    assert_eq!(result["subtype"], "error_max_turns");
    assert_eq!(
        result["errors"],
        serde_json::json!(["Reached maximum number of turns (1)"])
    );
    assert_eq!(result["stop_reason"], "tool_use");
    assert_eq!(result["terminal_reason"], "max_turns");
    assert_eq!(
        print("max-turns", "text"),
        ("Error: Reached max turns (1)\n".into(), Some(1))
    );
    // The flag does the same.
    let out = claude(&["-p", "hi", "--max-turns=1"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Error: Reached max turns (1)\n"
    );
}

#[test]
fn an_error_result_exits_1() {
    let ended = run("error-result:text=\"Tool execution failed\"");
    assert_eq!(ended.status.code(), Some(1));
    let result = result(&ended);
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["errors"], serde_json::json!(["Tool execution failed"]));
    assert_eq!(result.get("result"), None, "error subtypes have no result");
    // The text format's wording for this subtype is not confirmed; the stand-in
    // words it as the observed `Error: Reached max turns (1)`.
    assert_eq!(
        print("error-result:text=boom", "text"),
        ("Error: boom\n".into(), Some(1))
    );
}

#[test]
fn exit_and_signal_end_the_process_there() {
    let ended = run("exit:code=3");
    assert_eq!(ended.status.code(), Some(3));
    assert!(!types(&ended).iter().any(|t| t.starts_with("result")));
    let ended = run("signal:name=TERM,at=assistant");
    assert_eq!(ended.status.signal(), Some(nix::libc::SIGTERM));
    assert!(!types(&ended).contains(&"assistant".to_owned()));
    assert!(types(&ended).contains(&"system/init".to_owned()));
    // In the middle of a line: the first bytes, then the signal.
    let ended = run("signal:name=KILL,at=result,byte=10");
    assert_eq!(ended.status.signal(), Some(nix::libc::SIGKILL), "dies by it");
    assert_eq!(
        ended.stdout.last().map(Vec::as_slice),
        Some(&br#"{"type":"r"#[..])
    );
}

#[test]
fn an_ending_fault_whose_place_never_comes_ends_the_run_before_the_result() {
    // Python's `query()` without a permission callback is never asked: the exit acts
    // before the result, as the catalogue says ("there, without a result").
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("journal.jsonl");
    let mut c = sdk(
        PYTHON,
        false,
        &[
            ("MOCK_AGENT_FAULTS", "exit:code=1,at=can_use_tool"),
            ("MOCK_AGENT_JOURNAL", journal.to_str().expect("UTF-8")),
        ],
    );
    c.send(&initialize("req_1"));
    c.send(&prompt("Read README.md and create a summary"));
    let ended = c.finish();
    assert_eq!(ended.status.code(), Some(1), "{}", ended.stderr);
    let seen = types(&ended);
    assert!(seen.contains(&"system/init".to_owned()), "{seen:?}");
    assert!(!seen.iter().any(|t| t.starts_with("result")), "{seen:?}");
    assert!(!seen.iter().any(|t| t.starts_with("control_request")), "{seen:?}");
    let entry = &harness::journal::read(&journal).expect("journal")[0];
    assert_eq!(entry.faults.len(), 1);
    assert!(entry.faults[0].fired, "reported as acted");
    // `claude -p`: nothing printed, exit 1; `at=end` acts after the result.
    assert_eq!(
        print("exit:code=1,at=can_use_tool", "json"),
        (String::new(), Some(1))
    );
    let (stdout, code) = print("exit:code=2,at=end", "json");
    assert_eq!(code, Some(2));
    assert!(stdout.contains(r#""type":"result""#), "{stdout}");
}

#[test]
fn eof_cuts_the_result_line_and_exits_1() {
    let ended = run("eof:at=result,byte=40");
    assert_eq!(ended.status.code(), Some(1));
    let last = ended.stdout.last().expect("lines");
    assert_eq!(last.len(), 40);
    assert!(
        last.starts_with(br#"{"type":"result""#),
        "{}",
        String::from_utf8_lossy(last)
    );
    assert!(serde_json::from_slice::<Value>(last).is_err());
}

#[test]
fn stall_for_a_while_then_goes_on() {
    // Lines are read late under load, never early: the bound counts from the start
    // (a run without the stall takes some milliseconds).
    let started = Instant::now();
    let mut c = faulted("stall:ms=400,at=result");
    c.until(is_result);
    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(c.finish().status.code(), Some(0));
}

#[test]
fn stall_for_ever_ends_quickly_on_sigterm() {
    let mut c = faulted("stall");
    c.until(|l| l["message"]["content"][0]["text"] == ANSWER);
    std::thread::sleep(Duration::from_millis(200));
    let pid = nix::unistd::Pid::from_raw(i32::try_from(c.id()).expect("pid"));
    let sent = Instant::now();
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("signals");
    let ended = c.finish();
    assert!(sent.elapsed() < Duration::from_secs(2), "{:?}", sent.elapsed());
    assert_eq!(ended.status.signal(), Some(nix::libc::SIGTERM));
    assert!(!types(&ended).iter().any(|t| t.starts_with("result")));
}

/// A stall holds the answer back, and the real CLI still reads its input while the
/// model's stream stalls (REAL-CLAUDE.md: an `interrupt` mid-turn): the interrupt is
/// answered at once and the turn ends interrupted, as a program that cancels a
/// stalled turn expects (Zed's ACP adapter does; a stall that heard nothing judged it
/// as one that never ends).
#[test]
fn an_interrupt_ends_a_stalled_turn() {
    let mut c = faulted("stall:at=result");
    c.until(|l| l["message"]["content"][0]["text"] == ANSWER);
    c.send_json(
        &json!({"type": "control_request", "request_id": "int_1", "request": {"subtype": "interrupt"}}),
    );
    let told = c.until(is_result);
    assert!(
        told.iter().any(|l| l["type"] == "control_response"
            && l["response"]["request_id"] == "int_1"
            && l["response"]["subtype"] == "success"),
        "{told:?}"
    );
    let interrupted = harness::dialects::claude::wire::INTERRUPTED;
    assert!(
        told.iter()
            .any(|l| l["type"] == "user" && l["message"]["content"][0]["text"] == interrupted),
        "{told:?}"
    );
    assert_eq!(
        told.last().expect("a result")["subtype"],
        "error_during_execution"
    );
    c.close();
    assert_eq!(c.finish().status.code(), Some(1));
}

/// `claude -p` in `text` or `json` prints its result alone: a fault that adds or
/// breaks another line, or leaves out a field the printed result does not show,
/// changes no byte there, is not applied, and is journaled as not acted (its case is
/// not applicable to such a program, neither passed nor failed); in `stream-json` it
/// acts.
#[test]
fn line_faults_have_no_meaning_for_a_result_printed_alone() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let faults = "unknown:at=assistant;malformed:at=assistant;huge:at=assistant;missing:field=num_turns";
    let run = |format: &str, faults: &str| {
        let journal = dir.path().join(format!("{format}-{}.jsonl", faults.len()));
        let output = crate::support::mock_std()
            .args(["claude", "-p", "hi", "--output-format", format, "--verbose"])
            .env("MOCK_AGENT_FAULTS", faults)
            .env("MOCK_AGENT_JOURNAL", &journal)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("runs the mock");
        let entry = crate::support::last_journal_entry(&journal);
        let acted: std::collections::BTreeMap<String, bool> = entry["faults"]
            .as_array()
            .expect("the faults")
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap_or_default().to_owned(),
                    f["fired"] == true,
                )
            })
            .collect();
        let acted: Vec<bool> = ["unknown", "malformed", "huge", "missing"]
            .iter()
            .map(|name| acted.get(*name).copied().unwrap_or_default())
            .collect();
        (output.stdout, acted)
    };
    for format in ["text", "json"] {
        let (clean, _) = run(format, "");
        let (faulted, acted) = run(format, faults);
        let missing_acts = format == "json";
        assert_eq!(acted, [false, false, false, missing_acts], "{format}");
        if format == "text" {
            assert_eq!(faulted, clean, "text: not a byte changed");
        }
    }
    let (_, acted) = run("stream-json", faults);
    assert_eq!(acted, [true, true, true, true], "stream-json");
}

#[test]
fn malformed_unknown_and_huge_lines() {
    let ended = run("malformed:at=assistant");
    assert_eq!(ended.status.code(), Some(0));
    let bad = ended
        .stdout
        .iter()
        .position(|l| l.starts_with(b"{") && serde_json::from_slice::<Value>(l).is_err())
        .expect("a malformed line");
    let first_assistant = ended
        .stdout
        .iter()
        .position(|l| l.starts_with(br#"{"type":"assistant""#) && serde_json::from_slice::<Value>(l).is_ok())
        .expect("assistant");
    assert_eq!(bad + 1, first_assistant, "just before the first assistant line");

    let ended = run("unknown:at=result");
    let lines = ended.json();
    let at = lines.iter().position(is_result).expect("result");
    let unknown = &lines[at - 1];
    // A type no SDK knows (the Python SDK knows `rate_limit_event`, and hands it on),
    // with the fields every line of the CLI's has.
    assert_eq!(unknown["type"], "forecast_event");
    assert_eq!(unknown["session_id"], lines[at]["session_id"]);
    assert!(unknown["uuid"].is_string());

    let ended = run("huge:bytes=2000000");
    let huge = ended
        .stdout
        .iter()
        .find(|l| l.len() == 2_000_000)
        .expect("a line of 2,000,000 bytes");
    let huge: Value = serde_json::from_slice(huge).expect("JSON");
    assert_eq!(huge["type"], "assistant");
    assert_eq!(result(&ended)["subtype"], "success");
}

#[test]
fn missing_leaves_the_field_out_and_the_rest_in_order() {
    let keys = |ended: &Ended| -> Vec<String> {
        result(ended)
            .as_object()
            .expect("object")
            .keys()
            .cloned()
            .collect()
    };
    let plain = keys(&run(""));
    let missing = keys(&run("missing:field=num_turns"));
    let expected: Vec<String> = plain.into_iter().filter(|k| k != "num_turns").collect();
    assert_eq!(missing, expected);
}

#[test]
fn stderr_writes_its_text() {
    let ended = run("stderr:text=\"[warn] slow\"");
    assert_eq!(ended.stderr, "[warn] slow\n");
    assert_eq!(ended.status.code(), Some(0));
    assert_eq!(result(&ended)["subtype"], "success");
}

#[test]
fn stderr_flood_writes_a_mebibyte_of_lines_and_the_run_goes_on() {
    let ended = run("stderr-flood:bytes=1048576");
    assert!(
        (1 << 20) - 100 <= ended.stderr.len() && ended.stderr.len() <= (1 << 20) + 1,
        "{} bytes",
        ended.stderr.len()
    );
    assert!(ended.stderr.lines().all(|l| l.starts_with("[stderr flood] ")));
    assert_eq!(ended.status.code(), Some(0));
    assert_eq!(result(&ended)["subtype"], "success");
}

#[test]
fn initialize_unanswered_or_refused() {
    let mut c = faulted("no-response:method=initialize");
    let lines = c.until(is_result);
    assert!(
        lines.iter().all(|l| l["type"] != "control_response"),
        "never answered"
    );
    assert_eq!(c.finish().status.code(), Some(0));

    let mut c = faulted("error:method=initialize,message=\"Not ready\"");
    let first = c.next_json();
    assert_eq!(
        first,
        serde_json::json!({"type": "control_response", "response": {"subtype": "error",
            "request_id": "req_1_a1b2c3d4", "error": "Not ready"}})
    );
    c.finish();
}

#[test]
fn bad_fault_specs_say_where_with_exit_64() {
    for (spec, at) in [
        ("eof:after=x", "MOCK_AGENT_FAULTS:1:5"),
        ("bogus", "MOCK_AGENT_FAULTS:1:1"),
        ("exit;stall:ms=abc", "MOCK_AGENT_FAULTS:1:12"),
        ("missing", "MOCK_AGENT_FAULTS:1:1"),
    ] {
        let out = claude(&["-p", "hi"])
            .env("MOCK_AGENT_FAULTS", spec)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(64), "{spec}: {stderr}");
        assert!(out.stdout.is_empty(), "{spec}");
        assert!(
            stderr.starts_with(&format!("mock-agent: {at}:")),
            "{spec}: {stderr}"
        );
    }
}
