//! Claude Code's stand-in through the binary, as the Agent SDKs drive it: their exact
//! argv, the control protocol both ways (`initialize`, turns, `can_use_tool`,
//! interrupts, mode and model changes, hooks), session states, partial messages,
//! `claude -p` in each format, timing and the journal. The lines written here are the
//! SDKs' own (`claude-sdk-notes.md`, `REAL-CLAUDE.md`): Python's `json.dumps` with
//! spaces, TypeScript's compact JSON with `request_id` first and `--flag=value`.
//! Faults are in `claude_faults.rs`; partial messages, timing and the journal in
//! `claude_stream.rs`; `can_use_tool`, interrupts while a permission waits and hooks in
//! `claude_permissions.rs`.

use serde_json::{json, Value};

use crate::support::{mock_std, Conversation, Ended};

/// Every run's seed: ids and uuids are the same on every run.
pub const SEED: &str = "7";

/// The id of the session [`SEED`] makes: one the stand-in knows (`--resume`).
pub const SEEDED_SESSION: &str = "026ffd02-3fb3-4512-bdda-940895de8761";

/// What the default session answers (the result's text).
pub const ANSWER: &str = "Created summary.txt with a one-line summary of the README.";

/// Python's SDK 0.2.188, `query(prompt)` without options (observed argv): what
/// `mock-agent drift` runs the real CLI with.
pub const PYTHON: &[&str] = mock_agent::dialects::claude::drift::SDK_ARGV;

/// `claude ARGS` (`mock-agent claude ARGS`) in the workspace, with the fixed seed and
/// without the SDK's state variable.
pub fn claude(args: &[&str]) -> std::process::Command {
    let mut cmd = mock_std();
    cmd.arg("claude")
        .args(args)
        .env("MOCK_AGENT_SEED", SEED)
        .env_remove("CLAUDE_CODE_SDK_READS_SESSION_STATE")
        .env_remove("CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS")
        .env_remove("CLAUDECODE");
    cmd
}

/// A conversation with `claude ARGS`; `states`: the SDK's
/// `CLAUDE_CODE_SDK_READS_SESSION_STATE=1`.
pub fn sdk(args: &[&str], states: bool, env: &[(&str, &str)]) -> Conversation {
    let mut cmd = claude(args);
    if states {
        cmd.env("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1");
    }
    for (name, value) in env {
        cmd.env(name, value);
    }
    Conversation::spawn(cmd)
}

/// Python's `initialize`, as it writes it.
pub fn initialize(id: &str) -> String {
    format!(
        r#"{{"type": "control_request", "request_id": "{id}", "request": {{"subtype": "initialize", "hooks": null}}}}"#
    )
}

/// Python's `query()` prompt, as it writes it.
pub fn prompt(text: &str) -> String {
    format!(
        r#"{{"type": "user", "session_id": "", "message": {{"role": "user", "content": "{text}"}}, "parent_tool_use_id": null}}"#
    )
}

/// TypeScript's prompt: `content` as text blocks.
pub fn prompt_ts(text: &str) -> String {
    json!({"type": "user", "session_id": "", "message": {"role": "user", "content": [{"type": "text", "text": text}]},
        "parent_tool_use_id": null})
    .to_string()
}

/// A control request of the client's.
pub fn request(id: &str, body: Value) -> Value {
    json!({"request_id": id, "type": "control_request", "request": body})
}

/// The client's success answer to the CLI's request `id`.
pub fn answer(id: &Value, response: Value) -> Value {
    json!({"type": "control_response", "response": {"subtype": "success", "request_id": id, "response": response}})
}

/// A line's `type`.
pub fn kind(line: &Value) -> &str {
    line["type"].as_str().unwrap_or_default()
}

/// Whether `line` is the turn's `result`.
pub fn is_result(line: &Value) -> bool {
    kind(line) == "result"
}

/// Whether `line` is a request of the CLI's of this subtype.
pub fn asks(line: &Value, subtype: &str) -> bool {
    kind(line) == "control_request" && line["request"]["subtype"] == subtype
}

/// Whether `line` is a `session_state_changed` to `state`.
pub fn state_is(line: &Value, state: &str) -> bool {
    line["subtype"] == "session_state_changed" && line["state"] == state
}

/// The `system/init` lines.
pub fn inits(lines: &[Value]) -> Vec<&Value> {
    lines
        .iter()
        .filter(|l| kind(l) == "system" && l["subtype"] == "init")
        .collect()
}

/// The `tool_result` of call `id` in a `user` line.
pub fn tool_result<'a>(lines: &'a [Value], id: &Value) -> (&'a Value, &'a Value) {
    lines
        .iter()
        .filter(|l| kind(l) == "user")
        .find_map(|l| {
            l["message"]["content"]
                .as_array()?
                .iter()
                .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == *id)
                .map(|b| (l, b))
        })
        .unwrap_or_else(|| panic!("no tool_result for {id}"))
}

/// Starts a conversation as Python's SDK with `can_use_tool` does, and reads up to the
/// first `can_use_tool` request; the lines read.
pub fn up_to_permission(args: &[&str], states: bool) -> (Conversation, Vec<Value>) {
    let mut c = sdk(args, states, &[]);
    c.send(&initialize("req_1_a1b2c3d4"));
    c.send(&prompt("Read README.md and create a summary"));
    let lines = c.until(|l| asks(l, "can_use_tool"));
    (c, lines)
}

pub fn with_prompt_tool() -> Vec<&'static str> {
    let mut args = PYTHON.to_vec();
    args.splice(5..5, ["--permission-prompt-tool", "stdio"]);
    args
}

pub fn code(ended: &Ended) -> Option<i32> {
    ended.status.code()
}

#[test]
fn both_sdks_argv_forms_are_read() {
    let python = [
        "--output-format",
        "stream-json",
        "--verbose",
        "--system-prompt",
        "Be brief",
        "--max-turns",
        "3",
        "--model",
        "opus",
        "--permission-prompt-tool",
        "stdio",
        "--input-format",
        "stream-json",
    ];
    // TypeScript: `--input-format` before the options, every one as `--flag=value`.
    let typescript = [
        "--output-format",
        "stream-json",
        "--verbose",
        "--input-format",
        "stream-json",
        "--max-turns=3",
        "--model=opus",
        "--permission-prompt-tool=stdio",
    ];
    for (argv, init, user) in [
        (&python[..], initialize("req_1_c89c2b3b"), prompt("Say hi")),
        (
            &typescript[..],
            r#"{"request_id":"8ixvepsyybs","type":"control_request","request":{"subtype":"initialize","systemPrompt":[""]}}"#
                .to_owned(),
            prompt_ts("Say hi"),
        ),
    ] {
        let mut c = sdk(argv, false, &[]);
        c.send(&init);
        c.send(&user);
        let lines = c.until(|l| asks(l, "can_use_tool"));
        assert_eq!(lines[0]["type"], "control_response", "{argv:?}");
        assert_eq!(inits(&lines)[0]["model"], "claude-opus-4-1", "{argv:?}: --model");
        let asked = lines.last().expect("a request");
        // TypeScript's allow carries `toolUseID` too.
        c.send_json(&answer(
            &asked["request_id"],
            json!({"behavior": "allow", "updatedInput": asked["request"]["input"], "toolUseID": asked["request"]["tool_use_id"]}),
        ));
        let rest = c.until(is_result);
        let result = rest.last().expect("result");
        assert_eq!(result["subtype"], "success", "{argv:?}");
        assert_eq!(result["result"], ANSWER);
        let ended = c.finish();
        assert_eq!(code(&ended), Some(0), "{argv:?}: {}", ended.stderr);
    }
}

#[test]
fn every_flag_the_sdks_may_write_is_taken() {
    // Python's argv with every option set (REAL-CLAUDE.md), then TypeScript's forms;
    // `''` is an empty argument.
    let python = "--output-format stream-json --verbose --system-prompt-file /dev/null --tools '' \
        --allowedTools Read,Write --max-turns 3 --max-budget-usd 1.5 --disallowedTools Bash \
        --task-budget 3 --model sonnet --fallback-model haiku --betas b --permission-mode default \
        --continue --session-id 11111111-1111-4111-8111-111111111111 --settings {} --add-dir /tmp \
        --add-dir /var --mcp-config {\"mcpServers\":{\"calc\":{\"type\":\"sdk\",\"name\":\"calc\"}}} \
        --include-hook-events --strict-mcp-config --fork-session --setting-sources= --plugin-dir /x \
        --max-thinking-tokens 100 --effort high --json-schema {} --input-format stream-json";
    let typescript = "--output-format stream-json --verbose --input-format stream-json \
        --append-system-prompt=x --max-turns=3 --model=sonnet --permission-mode=plan \
        --thinking=adaptive --resume=026ffd02-3fb3-4512-bdda-940895de8761 --resume-session-at=u \
        --setting-sources=user,project";
    for line in [python, typescript] {
        let argv: Vec<&str> = line
            .split_whitespace()
            .map(|a| if a == "''" { "" } else { a })
            .collect();
        let mut c = sdk(&argv, false, &[]);
        c.send(&initialize("req_1"));
        c.send(&prompt("hi"));
        let lines = c.until(is_result);
        let init = inits(&lines)[0];
        let session = if line == python {
            "11111111-1111-4111-8111-111111111111"
        } else {
            SEEDED_SESSION
        };
        assert_eq!(init["session_id"], session, "{argv:?}");
        assert_eq!(init["model"], "claude-sonnet-4-5");
        let ended = c.finish();
        assert_eq!(code(&ended), Some(0), "{argv:?}: {}", ended.stderr);
    }
}

#[test]
fn version_as_the_real_cli_and_installed_as_claude() {
    for flag in ["-v", "--version"] {
        let out = claude(&[flag]).output().expect("runs");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "2.1.331 (Claude Code)\n");
        assert_eq!(out.status.code(), Some(0));
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let link = dir.path().join("claude");
    std::os::unix::fs::symlink(crate::support::bin(), &link).expect("symlink");
    let out = std::process::Command::new(&link)
        .arg("-v")
        .output()
        .expect("runs the link");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "2.1.331 (Claude Code)\n");
}

#[test]
fn argument_errors_on_stderr_with_exit_1_and_nothing_on_stdout() {
    let cases: &[(&[&str], &str)] = &[
        (&["--formatt", "x"], "error: unknown option '--formatt'"),
        (
            &["-p", "--output-format", "xml", "hi"],
            "error: option '--output-format <format>' argument 'xml' is invalid. Allowed choices are text, json, stream-json.",
        ),
        (
            &["-p", "--output-format=xml", "hi"],
            "error: option '--output-format <format>' argument 'xml' is invalid. Allowed choices are text, json, stream-json.",
        ),
        (
            &["-p", "--output-format", "stream-json", "hi"],
            "Error: When using --print, --output-format=stream-json requires --verbose",
        ),
        (
            &["--output-format", "json", "--input-format", "stream-json"],
            "Error: --input-format=stream-json requires output-format=stream-json.",
        ),
    ];
    for (args, message) in cases {
        let out = claude(args)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: stdout");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("{message}\n"),
            "{args:?}"
        );
    }
}

#[test]
fn print_mode_in_text_json_and_stream_json() {
    let text = claude(&["-p", "Say hi"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(String::from_utf8_lossy(&text.stdout), format!("{ANSWER}\n"));
    assert_eq!(text.status.code(), Some(0));

    let out = claude(&["-p", "Say hi", "--output-format", "json"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let result: Value = serde_json::from_str(stdout.trim_end()).expect("one JSON line");
    assert_eq!(
        (result["type"].as_str(), result["subtype"].as_str()),
        (Some("result"), Some("success"))
    );
    assert_eq!(result["result"], ANSWER);
    assert_eq!(result["num_turns"], 3);
    assert_eq!(out.status.code(), Some(0));

    let out = claude(&["-p", "--output-format=stream-json", "--verbose", "Say hi"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect();
    assert_eq!(lines[0]["subtype"], "init");
    assert_eq!(lines[0]["claude_code_version"], "2.1.331");
    assert!(is_result(lines.last().expect("lines")));
    assert!(lines
        .iter()
        .all(|l| kind(l) != "control_response" && kind(l) != "stream_event"));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn print_mode_reads_the_prompt_from_stdin() {
    use std::io::Write;
    let mut child = claude(&["-p"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawns");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"hi\n")
        .expect("writes");
    let out = child.wait_with_output().expect("waits");
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{ANSWER}\n"));
    assert_eq!(out.status.code(), Some(0));
    // No prompt at all: the stand-in's wording (the real CLI's is not confirmed).
    let out = claude(&["-p"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Input must be provided"));
}

#[test]
fn initialize_is_answered_first_with_the_version() {
    let mut c = sdk(PYTHON, false, &[]);
    // TypeScript writes the prompt without waiting for the answer.
    c.send(&format!("{}\n{}", initialize("req_1_a1b2c3d4"), prompt("Say hi")));
    let first = c.next_json();
    assert_eq!(first["type"], "control_response");
    let response = &first["response"];
    assert_eq!(response["subtype"], "success");
    assert_eq!(response["request_id"], "req_1_a1b2c3d4");
    assert_eq!(response["response"]["claude_code_version"], "2.1.331");
    assert!(response["response"]["commands"].is_array());
    assert!(response["response"]["pid"].is_u64());
    let lines = c.until(is_result);
    assert_eq!(inits(&lines)[0]["claude_code_version"], "2.1.331");
    assert_eq!(code(&c.finish()), Some(0));
}

#[test]
fn a_prompt_that_arrives_with_the_end_of_input_is_answered() {
    let mut c = sdk(PYTHON, false, &[]);
    c.send(&initialize("req_1_a1b2c3d4"));
    c.send(&prompt("Say hi"));
    c.close();
    let ended = c.finish();
    let lines = ended.json();
    let result = lines.iter().find(|l| is_result(l)).expect("a result");
    assert_eq!(result["subtype"], "success");
    assert_eq!(code(&ended), Some(0), "{}", ended.stderr);
}

#[test]
fn two_user_messages_are_two_turns_of_one_session() {
    let mut c = sdk(PYTHON, false, &[]);
    c.send(&initialize("req_1_a1b2c3d4"));
    c.send(&prompt("first"));
    let first = c.until(is_result);
    c.send(&prompt("second"));
    let second = c.until(is_result);
    // Observed: the CLI exits within 0.05 s of the end of its input (one that stays
    // hangs Python's `query()` and costs `disconnect()` 5 s).
    let closed = std::time::Instant::now();
    let ended = c.finish();
    assert!(
        closed.elapsed() < std::time::Duration::from_secs(3),
        "{:?}",
        closed.elapsed()
    );
    assert_eq!(code(&ended), Some(0));
    assert!(ended.stderr.is_empty(), "{}", ended.stderr);
    assert_eq!(
        (inits(&first).len(), inits(&second).len()),
        (1, 1),
        "an init per turn"
    );
    let session = &inits(&first)[0]["session_id"];
    assert!(session.as_str().is_some_and(|s| !s.is_empty()));
    for line in first
        .iter()
        .chain(&second)
        .filter(|l| l.get("session_id").is_some())
    {
        assert_eq!(&line["session_id"], session, "{line}");
    }
    let cost = |lines: &[Value]| {
        lines.last().expect("result")["total_cost_usd"]
            .as_f64()
            .expect("cost")
    };
    let (one, two) = (cost(&first), cost(&second));
    assert!(
        one > 0.0 && (two - 2.0 * one).abs() < 1e-9,
        "cumulative: {one} then {two}"
    );
}

#[test]
fn set_permission_mode_answers_and_changes_the_mode() {
    let mut c = sdk(&with_prompt_tool(), false, &[]);
    c.send(&initialize("req_1"));
    c.next_json();
    c.send_json(&request(
        "m1",
        json!({"subtype": "set_permission_mode", "mode": "acceptEdits"}),
    ));
    let answer = c.next_json();
    assert_eq!(answer["response"]["subtype"], "success");
    assert_eq!(answer["response"]["request_id"], "m1");
    assert_eq!(answer["response"]["response"], json!({"mode": "acceptEdits"}));
    let status = c.next_json();
    assert_eq!(
        (status["type"].as_str(), status["subtype"].as_str()),
        (Some("system"), Some("status"))
    );
    assert_eq!(status["permissionMode"], "acceptEdits");
    c.send_json(&request(
        "m2",
        json!({"subtype": "set_permission_mode", "mode": "yolo"}),
    ));
    let refused = c.next_json();
    assert_eq!(refused["response"]["subtype"], "error");
    assert_eq!(refused["response"]["request_id"], "m2");
    assert_eq!(
        refused["response"]["error"],
        "Cannot set permission mode: must be one of acceptEdits, auto, bypassPermissions, default, dontAsk, plan"
    );
    assert_eq!(refused["response"]["error_code"], "invalid_mode");
    // acceptEdits: the Write runs without asking.
    c.send(&prompt("Read README.md and create a summary"));
    let lines = c.until(is_result);
    assert_eq!(inits(&lines)[0]["permissionMode"], "acceptEdits");
    assert!(
        !lines.iter().any(|l| asks(l, "can_use_tool")),
        "nothing asked in acceptEdits"
    );
    assert_eq!(lines.last().expect("result")["permission_denials"], json!([]));
    assert_eq!(code(&c.finish()), Some(0));
}

#[test]
fn set_model_with_and_without_a_model() {
    let mut c = sdk(PYTHON, false, &[]);
    c.send(&initialize("req_1"));
    c.next_json();
    c.send_json(&request("s1", json!({"subtype": "set_model", "model": "opus"})));
    let answer = c.next_json();
    assert_eq!(answer["response"]["request_id"], "s1");
    assert_eq!(
        answer["response"]["response"],
        json!({"model": "claude-opus-4-1"})
    );
    c.send(&prompt("Say hi"));
    let lines = c.until(is_result);
    assert_eq!(inits(&lines)[0]["model"], "claude-opus-4-1");
    assert!(lines
        .iter()
        .filter(|l| kind(l) == "assistant")
        .all(|l| l["message"]["model"] == "claude-opus-4-1"));
    // TypeScript's `setModel(undefined)` sends no `model`, Python's `set_model(None)` a
    // null: both go back to the default (the resolved id the real CLI names there is
    // not confirmed; the stand-in names its default model).
    for (id, body) in [
        ("s2", json!({"subtype": "set_model"})),
        ("s3", json!({"subtype": "set_model", "model": null})),
    ] {
        c.send_json(&request(id, body));
        let answer = c.next_json();
        assert_eq!(answer["response"]["subtype"], "success", "{id}");
        assert_eq!(
            answer["response"]["response"]["model"], "claude-sonnet-4-5",
            "{id}"
        );
    }
    assert_eq!(code(&c.finish()), Some(0));
}

#[test]
fn an_unknown_request_is_refused_and_quiet_lines_get_no_answer() {
    let mut c = sdk(PYTHON, false, &[]);
    c.send(&initialize("req_1"));
    c.next_json();
    // Observed: no reply to either.
    c.send(r#"{"type":"keep_alive"}"#);
    c.send(r#"{"type":"control_cancel_request","request_id":"x"}"#);
    c.send_json(&request("r4", json!({"subtype": "no_such_thing"})));
    let refused = c.next_json();
    assert_eq!(
        refused,
        json!({"type": "control_response", "response": {"subtype": "error", "request_id": "r4",
            "error": "Unsupported control request subtype: no_such_thing", "error_code": "unsupported_request"}})
    );
    assert_eq!(code(&c.finish()), Some(0));
}

#[test]
fn an_interrupt_between_turns_is_answered_and_nothing_more() {
    let mut c = sdk(PYTHON, true, &[]);
    c.send(&initialize("req_1"));
    c.next_json();
    c.send_json(&request("int_1", json!({"subtype": "interrupt"})));
    c.send_json(&request("r2", json!({"subtype": "no_such_thing"})));
    let first = c.next_json();
    assert_eq!(first["response"]["request_id"], "int_1");
    assert_eq!(first["response"]["response"], json!({"still_queued": []}));
    let second = c.next_json();
    assert_eq!(
        second["response"]["request_id"], "r2",
        "no line between: {second}"
    );
    let ended = c.finish();
    assert_eq!(code(&ended), Some(0), "no turn, no error result");
}

#[test]
fn a_line_that_is_not_json_ends_the_process_with_exit_1() {
    let mut c = sdk(PYTHON, false, &[]);
    c.send(&initialize("req_1"));
    c.next_json();
    c.send("not json at all!");
    let ended = c.finish();
    assert_eq!(code(&ended), Some(1));
    assert_eq!(
        ended.stderr,
        "Error parsing streaming input line (type=unknown, 16 chars): SyntaxError\n"
    );
    assert_eq!(ended.stdout.len(), 1, "nothing after the initialize answer");
}

#[test]
fn a_broken_line_that_says_its_type_is_named_by_it() {
    // Observed with Claude Code 2.1.331 (found by `mock-agent drift`): two lines run
    // together, or a line cut short, are named by the first `"type"` they say.
    let mut c = sdk(PYTHON, false, &[]);
    c.send(r#"{"type":"user", broken"#);
    let ended = c.finish();
    assert_eq!(code(&ended), Some(1));
    assert_eq!(
        ended.stderr,
        "Error parsing streaming input line (type=user, 22 chars): SyntaxError\n"
    );
}

#[test]
fn session_states_for_sdk_hosts_idle_after_every_result() {
    let (mut c, mut lines) = up_to_permission(&with_prompt_tool(), true);
    let asked = lines.last().expect("request").clone();
    c.send_json(&answer(
        &asked["request_id"],
        json!({"behavior": "allow", "updatedInput": asked["request"]["input"]}),
    ));
    lines.extend(c.until(|l| state_is(l, "idle")));
    let states: Vec<&str> = lines
        .iter()
        .filter(|l| l["subtype"] == "session_state_changed")
        .map(|l| l["state"].as_str().expect("state"))
        .collect();
    assert_eq!(states, ["running", "requires_action", "running", "idle"]);
    assert!(lines
        .iter()
        .filter(|l| l["subtype"] == "session_state_changed")
        .all(|l| l["sdk_host_only"] == true && l["session_id"] == lines[1]["session_id"]));
    let at = |p: &dyn Fn(&Value) -> bool| lines.iter().position(p).expect("found");
    assert_eq!(
        at(&|l| state_is(l, "requires_action")) + 1,
        at(&|l| asks(l, "can_use_tool"))
    );
    assert_eq!(at(&is_result) + 1, lines.len() - 1, "idle right after the result");
    // A second turn: idle after its result too (the SDKs hang without it).
    c.send(&prompt("again"));
    let second = c.until(|l| asks(l, "can_use_tool"));
    let asked = second.last().expect("request");
    c.send_json(&answer(
        &asked["request_id"],
        json!({"behavior": "allow", "updatedInput": asked["request"]["input"]}),
    ));
    c.until(is_result);
    let next = c.next_json();
    assert!(state_is(&next, "idle"), "{next}");
    assert_eq!(code(&c.finish()), Some(0));

    // Without the variable: no state frames.
    let mut c = sdk(PYTHON, false, &[]);
    c.send(&initialize("req_1"));
    c.send(&prompt("hi"));
    let lines = c.until(is_result);
    assert!(!lines.iter().any(|l| l["subtype"] == "session_state_changed"));
    c.finish();
}

#[test]
fn a_prompt_on_stdin_is_read_lossily_and_bounded() {
    use std::io::Write;
    let run = |input: Vec<u8>| {
        let mut child = std::process::Command::new(crate::support::bin())
            .args(["claude", "-p"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawns");
        let mut stdin = child.stdin.take().expect("stdin");
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let out = child.wait_with_output().expect("ends");
        writer.join().expect("writes");
        out
    };
    // A byte that is not UTF-8 is still a prompt.
    let out = run(b"h\xffi\n".to_vec());
    crate::support::assert_said(&out, 0);
    // Past 64 MiB: the mock's own error, not unbounded memory.
    let out = run(vec![b'x'; (64 << 20) + 10]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(64), "{stderr}");
    assert!(
        stderr.starts_with("mock-agent: the prompt on stdin is over 64 MiB"),
        "{stderr}"
    );
}
