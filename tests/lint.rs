//! `mock-agent lint`: the protocol checker on files, by line.

use crate::support::{mock, root};

#[test]
fn curated_cassettes_pass_with_their_warnings() {
    let mut files: Vec<String> = crate::support::curated()
        .iter()
        .map(|p| p.strip_prefix(root()).unwrap_or(p).display().to_string())
        .collect();
    files.sort();
    let output = lint_passes(&files.iter().map(String::as_str).collect::<Vec<_>>());
    snapshot_in_folder(|| insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout)));
}

#[test]
fn a_broken_protocol_fails_with_its_lines() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("broken.ndjson");
    let seed = std::fs::read_to_string(root().join("cassettes/seed-example.ndjson")).expect("seed");
    let lines: Vec<&str> = seed.lines().collect();
    // No user event, the read tool call never starts, and the result comes twice.
    let broken = [lines[0], lines[2], lines[3], lines[5], lines[9], lines[9]].join("\n") + "\n";
    std::fs::write(&path, broken).expect("writes");
    let output = lint_in(dir.path(), &["broken.ndjson"]);
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout), @r#"
    broken.ndjson:2: error: the second event is not the `user` event [one-user]
    broken.ndjson:4: error: tool call "toolu_vrtx_01NnjaR886UcE8whekg2MGJd" completed but never started [tool-call-pairs]
    broken.ndjson:5: error: result.result is "I'll read the README.md file and create a summary" but the assistant text is "I'll read the README.md file" [result-text]
    broken.ndjson:6: error: a second `result` (the first on line 5) [one-result]
    broken.ndjson: error: no `user` event [one-user]
    broken.ndjson: 5 error(s), 0 warning(s)
    "#);
}

#[test]
fn an_unreadable_file_is_the_mock_s_own_error() {
    let output = mock()
        .args([
            "lint",
            "cassettes/seed-example.ndjson",
            "cassettes/invalid/truncated.cassette",
        ])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(65));
    assert!(String::from_utf8_lossy(&output.stderr)
        .starts_with("mock-agent: cassettes/invalid/truncated.cassette:4:"));
    assert!(String::from_utf8_lossy(&output.stdout).contains("seed-example.ndjson: 0 error(s), 0 warning(s)"));
}

#[test]
fn a_directory_is_linted_file_by_file_in_name_order() {
    let files: Vec<String> = crate::support::curated()
        .iter()
        .map(|p| p.strip_prefix(root()).unwrap_or(p).display().to_string())
        .collect();
    let by_name = mock().arg("lint").args(&files).output().expect("runs");
    // `cassettes/invalid/` is a subdirectory: not linted, or the exit would be 65.
    let by_dir = mock().args(["lint", "cassettes"]).output().expect("runs");
    crate::support::assert_said(&by_dir, 0);
    let stdout = String::from_utf8_lossy(&by_dir.stdout);
    assert_eq!(stdout, String::from_utf8_lossy(&by_name.stdout));
    let summaries = stdout.lines().filter(|l| l.ends_with(" warning(s)")).count();
    assert_eq!(summaries, files.len(), "one summary per file:\n{stdout}");
}

#[test]
fn a_directory_with_nothing_to_lint_is_the_mock_s_own_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("notes")).expect("creates");
    std::fs::write(dir.path().join("notes/todo.txt"), "record more\n").expect("writes");
    let output = lint_in(dir.path(), &["notes"]);
    assert_eq!(output.status.code(), Some(66));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stderr), @r"
    mock-agent: notes: the directory has no `.cassette` or `.ndjson` file to lint
    help: lint takes cassettes (`.cassette`), captures (`.ndjson`), and directories that hold them
    ");
}

#[test]
fn a_missing_file_gets_lint_s_own_help() {
    let output = mock()
        .args(["lint", "cassettes/no-such.cassette"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(66));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("mock-agent: cassettes/no-such.cassette: cannot open: "),
        "{stderr}"
    );
    assert!(
        stderr.ends_with(
            "\nhelp: lint takes cassettes (`.cassette`), captures (`.ndjson`), and directories that hold them\n"
        ),
        "{stderr}"
    );
}

#[test]
fn repeated_findings_of_a_rule_collapse_after_five() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A capture (its first lines are events) followed by 200,000 empty lines.
    let events = concat!(
        r#"{"type":"system","subtype":"init","session_id":"s"}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"session_id":"s"}"#,
        "\n"
    );
    std::fs::write(
        dir.path().join("empty.ndjson"),
        events.to_owned() + &"\n".repeat(200_000),
    )
    .expect("writes");
    let output = lint_in(dir.path(), &["empty.ndjson"]);
    assert_eq!(output.status.code(), Some(0), "warnings only");
    assert!(output.stdout.len() < 1024, "{} bytes", output.stdout.len());
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout), @r"
    empty.ndjson:3: warning: a line that is not a JSON event: `` [not-json]
    empty.ndjson:4: warning: a line that is not a JSON event: `` [not-json]
    empty.ndjson:5: warning: a line that is not a JSON event: `` [not-json]
    empty.ndjson:6: warning: a line that is not a JSON event: `` [not-json]
    empty.ndjson:7: warning: a line that is not a JSON event: `` [not-json]
    empty.ndjson: warning: no `result`: the run failed or was cut short [result]
    empty.ndjson: ... and 199,995 more [not-json]
    empty.ndjson: 0 error(s), 200,001 warning(s)
    ");
}

#[test]
fn short_sk_keys_are_secrets() {
    let dir = tempfile::tempdir().expect("temp dir");
    let seed = std::fs::read_to_string(root().join("cassettes/seed-example.ndjson")).expect("seed");
    let prompt = r#""text":"Read README.md and create a summary""#;
    assert!(seed.contains(prompt), "the seed's prompt");
    let with = |key: &str| seed.replacen(prompt, &format!(r#""text":"use {key} to read README.md""#), 1);
    std::fs::write(dir.path().join("key.ndjson"), with("sk-test-SECRET123")).expect("writes");
    std::fs::write(dir.path().join("short.ndjson"), with("sk-1234567")).expect("writes");
    let output = lint_in(dir.path(), &["key.ndjson", "short.ndjson"]);
    assert_eq!(output.status.code(), Some(0), "a secret is a warning");
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout), @r"
    key.ndjson:2: warning: a value that looks like a secret (`sk-test-…`): redact it (`mock-agent record --redact`) [secret]
    key.ndjson: 0 error(s), 1 warning(s)
    short.ndjson: 0 error(s), 0 warning(s)
    ");
}

#[test]
fn acp_cassettes_pass_with_their_notes() {
    let output = lint_passes(&["cassettes/acp"]);
    snapshot_in_folder(|| insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout)));
}

#[test]
fn a_broken_acp_conversation_fails_with_its_lines() {
    let dir = tempfile::tempdir().expect("temp dir");
    let update = |session: &str, update: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{session}","update":{update}}}}}"#
        )
    };
    let lines = [
        r#"{"mock_agent_cassette":2,"invocation":{"argv":["acp"],"acp":true}}"#.to_owned(),
        r#"{"t":0,"in":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}}}}"#.to_owned(),
        r#"{"t":1,"out":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}}"#.to_owned(),
        r#"{"t":2,"in":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}}"#.to_owned(),
        format!(r#"{{"t":3,"out":{}}}"#, update("s1", r#"{"sessionUpdate":"available_commands_update","availableCommands":[]}"#)),
        r#"{"t":4,"out":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}}"#.to_owned(),
        r#"{"t":5,"in":{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}}"#.to_owned(),
        r#"{"t":6,"out":{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/w/a"}}}"#.to_owned(),
        r#"{"t":7,"in":{"jsonrpc":"2.0","id":0,"result":{"content":"a"}}}"#.to_owned(),
        format!(r#"{{"t":8,"out":{}}}"#, update("s1", r#"{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}"#)),
        format!(r#"{{"t":9,"out":{}}}"#, update("s1", r#"{"sessionUpdate":"thinking_budget","n":1}"#)),
        r#"{"t":10,"out":{"jsonrpc":"2.0","id":2,"result":{"stopReason":"done"}}}"#.to_owned(),
        format!(r#"{{"t":11,"out":{}}}"#, update("s1", r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"late"}}"#)),
        format!(r#"{{"t":12,"out":{}}}"#, update("s2", r#"{"sessionUpdate":"plan","entries":[]}"#)),
        r#"{"t":13,"out":{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}}"#.to_owned(),
        r#"{"t":14,"out":"[debug] done"}"#.to_owned(),
        r#"{"t":20,"exit":0}"#.to_owned(),
    ];
    std::fs::write(dir.path().join("broken.cassette"), lines.join("\n") + "\n").expect("writes");
    let output = lint_in(dir.path(), &["broken.cassette"]);
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout), @r#"
    broken.cassette:5: warning: a message of session `s1` before the `session/new` response (line 6) that creates it: a client may not know the session yet [known-session]
    broken.cassette:8: error: the agent asks `fs/read_text_file`, but the client's `initialize` (line 2) did not advertise clientCapabilities.fs.readTextFile [capability]
    broken.cassette:10: error: a `tool_call_update` of "t1" before its `tool_call` [tool-call-pairs]
    broken.cassette:11: warning: a `sessionUpdate` kind this version does not know: `thinking_budget` [update-kind]
    broken.cassette:12: error: the prompt ends with stopReason "done"; ACP's are end_turn, max_tokens, max_turn_requests, refusal, cancelled [stop-reason]
    broken.cassette:13: error: `agent_message_chunk` of session `s1` after the `session/prompt` response (line 12) that ended its turn [turn-order]
    broken.cassette:14: error: 1 message(s) of session `s2`, the first here, which no `session/new` response or `session/load` created [known-session]
    broken.cassette:15: error: the agent answers the client's request 2 again (first answered on line 12) [answered-once]
    broken.cassette:16: error: the agent's line: a line that is not JSON: `[debug] done` [json-rpc]
    broken.cassette: 7 error(s), 2 warning(s)
    "#);
}

#[test]
fn acp_cassettes_are_checked_for_secrets_and_age_too() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = std::fs::read_to_string(root().join("cassettes/acp/cancelled.cassette")).expect("reads");
    let prompt = "Refactor the parser into smaller functions";
    assert!(cassette.contains(prompt));
    let leaked = cassette.replacen(prompt, "use sk-test-SECRET123 to refactor", 1);
    std::fs::write(dir.path().join("leaked.cassette"), leaked).expect("writes");
    let output = lint_in(dir.path(), &["--max-age", "2026.11.01", "leaked.cassette"]);
    assert_eq!(output.status.code(), Some(0), "warnings and notes only");
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout), @r"
    leaked.cassette:1: warning: recorded with CLI 2026.10.01-e373342, older than 2026.11.01: record it again [cli-version]
    leaked.cassette:5: note: Cursor's `session/new` result has a `models` block, which ACP's schema does not define (clients read it; typed SDKs drop it) [cursor-habit]
    leaked.cassette:7: warning: a value that looks like a secret (`sk-test-…`): redact it (`mock-agent record --redact`) [secret]
    leaked.cassette: 0 error(s), 2 warning(s), 1 note(s)
    ");
}

/// `mock-agent lint ARGS` run in `dir`.
fn lint_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    mock()
        .current_dir(dir)
        .arg("lint")
        .args(args)
        .output()
        .expect("runs")
}

/// `mock-agent lint ARGS`, which passes (exit 0: warnings at most).
#[track_caller]
fn lint_passes(args: &[&str]) -> std::process::Output {
    let output = mock().arg("lint").args(args).output().expect("runs");
    let said = String::from_utf8_lossy(&output.stdout) + String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{said}");
    output
}

/// File snapshots of this module live in `tests/snapshots/lint/`.
fn snapshot_in_folder(check: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/lint");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(check);
}

#[test]
fn claude_cassettes_are_checked_by_their_own_rules() {
    // The curated recording is clean by Claude Code's rules (print mode's would call
    // every line of it broken).
    lint_passes(&["cassettes/claude"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let lines = [
        r#"{"mock_agent_cassette":2,"invocation":{"dialect":"claude"}}"#,
        r#"{"t":0,"in":{"type":"user","session_id":"","message":{"role":"user","content":"hi"},"parent_tool_use_id":null}}"#,
        r#"{"t":1,"out":{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]},"session_id":"s"}}"#,
        r#"{"t":2,"out":{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Write"}}}"#,
        r#"{"t":3,"exit":0}"#,
    ];
    std::fs::write(dir.path().join("broken.cassette"), lines.join("\n") + "\n").expect("writes");
    let output = lint_in(dir.path(), &["broken.cassette"]);
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout), @r#"
    broken.cassette:3: error: the turn of the prompt on line 2 opens with `assistant`, not `system/init` [init-first]
    broken.cassette:3: error: a line of type `assistant` without message.model: the Python SDK raises [fields]
    broken.cassette:4: warning: the CLI's request "r1" is never answered [answered-once]
    broken.cassette: error: 1 prompts and 0 results: a turn ended without its result [result]
    broken.cassette: 3 error(s), 1 warning(s)
    "#);
}
