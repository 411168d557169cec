//! Flags and variables the real CLI honours beyond the session's options:
//! `--replay-user-messages` (each user message echoed with its uuid),
//! `CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS` (state lines for a host that is not an
//! SDK), and `--resume` of a session the stand-in does not know (the real CLI's
//! ending: the result alone, the text on stderr, exit 1).

use serde_json::{json, Value};

use crate::claude::{
    claude, code, initialize, inits, is_result, kind, prompt, sdk, state_is, PYTHON, SEEDED_SESSION,
};

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    let mut args = PYTHON.to_vec();
    args.splice(5..5, extra.iter().copied());
    args
}

#[test]
fn replay_user_messages_echoes_each_prompt_with_its_uuid_before_its_turn() {
    let args = with(&["--replay-user-messages"]);
    let mut c = sdk(&args, false, &[]);
    c.send(&initialize("req_1"));
    c.next_json();
    // TypeScript's prompt with a uuid, then Python's without one.
    let sent = json!({"type": "user", "session_id": "", "message": {"role": "user",
        "content": [{"type": "text", "text": "first"}]}, "parent_tool_use_id": null,
        "uuid": "0d6f5b7e-0000-4000-8000-000000000001"});
    c.send_json(&sent);
    let first = c.until(is_result);
    c.send(&prompt("second"));
    let second = c.until(is_result);
    let ended = c.finish();
    assert_eq!(code(&ended), Some(0), "{}", ended.stderr);
    for (lines, uuid, content) in [
        (
            &first,
            Some("0d6f5b7e-0000-4000-8000-000000000001"),
            sent["message"]["content"].clone(),
        ),
        (&second, None, json!("second")),
    ] {
        let echo = &lines[0];
        assert_eq!(kind(echo), "user", "the echo comes first: {echo}");
        assert_eq!(echo["isReplay"], true);
        assert_eq!(echo["message"]["content"], content);
        assert_eq!(echo["session_id"], inits(lines)[0]["session_id"]);
        match uuid {
            Some(uuid) => assert_eq!(echo["uuid"], uuid),
            None => assert!(echo["uuid"].as_str().is_some_and(|u| u.len() == 36), "{echo}"),
        }
        assert_eq!(
            lines.iter().filter(|l| l["isReplay"] == true).count(),
            1,
            "one echo a prompt"
        );
    }

    // Without the flag, nothing is echoed.
    let mut c = sdk(PYTHON, false, &[]);
    c.send(&initialize("req_1"));
    c.send(&prompt("hi"));
    let lines = c.until(is_result);
    c.finish();
    assert!(!lines.iter().any(|l| l.get("isReplay").is_some()));
}

#[test]
fn the_hosts_state_variable_turns_state_lines_on() {
    let states = |env: &[(&str, &str)]| {
        let mut c = sdk(PYTHON, false, env);
        c.send(&initialize("req_1"));
        c.send(&prompt("hi"));
        let lines = c.until(is_result);
        let ended = c.finish();
        let mut all: Vec<Value> = lines;
        all.extend(ended.json());
        all.iter()
            .filter(|l| l["subtype"] == "session_state_changed")
            .map(|l| l["state"].as_str().unwrap_or_default().to_owned())
            .collect::<Vec<_>>()
    };
    // As the SDKs' variable has them.
    let sdks = states(&[("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1")]);
    assert_eq!(sdks.first().map(String::as_str), Some("running"));
    assert_eq!(sdks.last().map(String::as_str), Some("idle"));
    for value in ["1", "true"] {
        assert_eq!(states(&[("CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS", value)]), sdks);
    }
    assert!(states(&[("CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS", "0")]).is_empty());
    assert!(states(&[]).is_empty());
}

#[test]
fn resume_of_an_unknown_session_ends_as_the_real_cli() {
    let id = "deadbeef-0000-4000-8000-000000000000";
    let resume = format!("--resume={id}");
    let mut args = PYTHON.to_vec();
    args.insert(5, &resume);
    let mut c = sdk(&args, false, &[]);
    c.send(&initialize("req_1"));
    c.send(&prompt("hi"));
    let ended = c.finish();
    assert_eq!(code(&ended), Some(1));
    let lines = ended.json();
    assert_eq!(lines.len(), 1, "only the result: {lines:?}");
    let result = &lines[0];
    assert!(is_result(result));
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["num_turns"], 0);
    let text = format!("No conversation found with session ID: {id}");
    assert_eq!(result["errors"], json!([text]));
    assert_ne!(result["session_id"], id);
    assert_eq!(ended.stderr.trim_end(), text);

    // `claude -p --resume ID`: the same ending, in the output format.
    let out = claude(&["-p", "--resume", id, "--output-format", "json", "hi"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let printed: Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(printed["errors"], json!([text]));
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end(), text);
}

#[test]
fn resume_of_the_session_the_seed_makes_goes_on_with_it() {
    let resume = format!("--resume={SEEDED_SESSION}");
    let mut args = PYTHON.to_vec();
    args.insert(5, &resume);
    let mut c = sdk(&args, true, &[]);
    c.send(&initialize("req_1"));
    c.next_json();
    c.send(&prompt("hi"));
    let lines = c.until(is_result);
    let ended = c.finish();
    assert_eq!(code(&ended), Some(0), "{}", ended.stderr);
    assert_eq!(inits(&lines)[0]["session_id"], SEEDED_SESSION);
    assert!(state_is(&lines[0], "running"));
    assert_eq!(lines.last().expect("result")["is_error"], false);
}

/// Root (or sudo) asking to skip permissions outside a sandbox is refused, as
/// Claude Code 2.1.331 refuses it (observed as root): one line on stderr, exit 1,
/// nothing on stdout; with `IS_SANDBOX=1` or `CLAUDE_CODE_BUBBLEWRAP` set it goes on
/// (`IS_SANDBOX=yes` is no sandbox: the CLI compares with `"1"`, read in its
/// source). Not root, it goes on too.
#[test]
fn root_may_skip_permissions_only_in_a_sandbox() {
    let root = nix::unistd::Uid::current().is_root();
    for flags in [
        &["--dangerously-skip-permissions"][..],
        &["--permission-mode", "bypassPermissions"][..],
    ] {
        for sandbox in [
            None,
            Some(("IS_SANDBOX", "yes")),
            Some(("IS_SANDBOX", "1")),
            Some(("CLAUDE_CODE_BUBBLEWRAP", "1")),
        ] {
            let mut cmd = crate::support::mock_std();
            cmd.args(["claude", "-p", "hi"])
                .args(flags)
                .env_remove("IS_SANDBOX")
                .env_remove("CLAUDE_CODE_BUBBLEWRAP");
            if let Some((name, value)) = sandbox {
                cmd.env(name, value);
            }
            let output = cmd
                .stdin(std::process::Stdio::null())
                .output()
                .expect("runs the mock");
            let in_sandbox = sandbox.is_some_and(|(_, value)| value == "1");
            if root && !in_sandbox {
                assert_eq!(output.status.code(), Some(1), "{flags:?}");
                assert!(output.stdout.is_empty());
                assert_eq!(
                    String::from_utf8_lossy(&output.stderr),
                    "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n"
                );
            } else {
                assert_eq!(output.status.code(), Some(0), "{flags:?} {sandbox:?}: {output:?}");
            }
        }
    }
}

/// `--tools` gives the model only those tools: `init` lists them and the model calls
/// no other. With none (`--tools ""`, as langchain-claude-cli's default mode runs it)
/// the default session is its text alone, and `--max-turns 2` no longer ends it
/// (its tool calls took the turns the limit counts).
#[test]
fn tools_gives_the_model_only_those_tools() {
    let run = |extra: &[&str]| -> Vec<Value> {
        let output = crate::support::mock_std()
            .args([
                "claude",
                "-p",
                "hi",
                "--output-format",
                "stream-json",
                "--verbose",
            ])
            .args(extra)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("runs the mock");
        crate::support::json_lines(&output)
    };
    let called = |lines: &[Value]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l["type"] == "assistant")
            .flat_map(|l| l["message"]["content"].as_array().cloned().unwrap_or_default())
            .filter(|b| b["type"] == "tool_use")
            .map(|b| b["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let all = run(&["--max-turns", "2"]);
    assert!(!called(&all).is_empty());
    assert_eq!(all.last().expect("a result")["subtype"], "error_max_turns");
    let none = run(&["--tools", "", "--max-turns", "2"]);
    assert!(called(&none).is_empty(), "{none:?}");
    assert_eq!(none[0]["tools"], json!([]));
    assert_eq!(none.last().expect("a result")["subtype"], "success");
    let some = run(&["--tools", "Read,Write"]);
    assert!(called(&some).iter().all(|t| t == "Read" || t == "Write"));
    assert_eq!(some[0]["tools"], json!(["Read", "Write"]));
}
