//! Claude Code's stand-in asking the SDK host's permission: `can_use_tool` allowed
//! (on the updated input), denied, denied with an interrupt; without the prompt tool;
//! an interrupt or the end of stdin while a permission waits; a `PreToolUse` hook
//! called before the tool.

use serde_json::{json, Value};

use crate::claude::{
    answer, asks, code, initialize, inits, is_result, kind, prompt, request, sdk, state_is, tool_result,
    up_to_permission, with_prompt_tool, PYTHON,
};

#[test]
fn can_use_tool_allow_runs_the_tool_on_the_updated_input() {
    let (mut c, lines) = up_to_permission(&with_prompt_tool(), false);
    let asked = lines.last().expect("request");
    let call = &asked["request"];
    assert_eq!(call["tool_name"], "Write");
    // The assistant's tool_use comes before the request.
    let tool_use = lines
        .iter()
        .filter(|l| kind(l) == "assistant")
        .flat_map(|l| l["message"]["content"].as_array().cloned().unwrap_or_default())
        .find(|b| b["type"] == "tool_use" && b["name"] == "Write")
        .expect("the Write call, before the request");
    assert_eq!(tool_use["id"], call["tool_use_id"]);
    let cwd = inits(&lines)[0]["cwd"].as_str().expect("cwd").to_owned();
    assert_eq!(call["input"]["file_path"], format!("{cwd}/summary.txt"));
    let notes = format!("{cwd}/notes.txt");
    c.send_json(&answer(
        &asked["request_id"],
        json!({"behavior": "allow", "updatedInput": {"file_path": notes, "content": "c"}}),
    ));
    let rest = c.until(is_result);
    let (_, result) = tool_result(&rest, &call["tool_use_id"]);
    assert_eq!(result.get("is_error"), None, "{result}");
    assert_eq!(
        result["content"],
        format!("File created successfully at: {notes}")
    );
    let end = rest.last().expect("result");
    assert_eq!(end["permission_denials"], json!([]));
    assert_eq!(end["is_error"], false);
    assert_eq!(code(&c.finish()), Some(0));
}

#[test]
fn can_use_tool_deny_is_an_error_tool_result_and_a_denial() {
    let (mut c, lines) = up_to_permission(&with_prompt_tool(), false);
    let asked = lines.last().expect("request");
    let id = asked["request"]["tool_use_id"].clone();
    c.send_json(&answer(
        &asked["request_id"],
        json!({"behavior": "deny", "message": "Not now", "toolUseID": id}),
    ));
    let rest = c.until(is_result);
    let (line, result) = tool_result(&rest, &id);
    assert_eq!(result["is_error"], true);
    assert_eq!(result["content"], "Not now");
    assert_eq!(line["tool_use_result"], "Error: Not now");
    assert_eq!(
        line["tool_result_meta"][0]["permission_decision"]["decision"],
        "reject"
    );
    // The model goes on after a denial.
    let after = rest.iter().skip_while(|l| *l != line).skip(1);
    assert!(
        after.clone().any(|l| kind(l) == "assistant"),
        "an assistant line after the denial"
    );
    let end = rest.last().expect("result");
    assert_eq!(
        (end["subtype"].as_str(), end["is_error"].as_bool()),
        (Some("success"), Some(false))
    );
    assert_eq!(end["permission_denials"][0]["tool_use_id"], id);
    assert_eq!(end["permission_denials"][0]["tool_name"], "Write");
    assert_eq!(code(&c.finish()), Some(0));
}

#[test]
fn can_use_tool_deny_with_interrupt_ends_the_turn() {
    let (mut c, lines) = up_to_permission(&with_prompt_tool(), false);
    let asked = lines.last().expect("request");
    let id = asked["request"]["tool_use_id"].clone();
    c.send_json(&answer(
        &asked["request_id"],
        json!({"behavior": "deny", "message": "Stop", "interrupt": true}),
    ));
    let rest = c.until(is_result);
    let (line, _) = tool_result(&rest, &id);
    let after: Vec<&Value> = rest.iter().skip_while(|l| *l != line).skip(1).collect();
    assert_eq!(after.len(), 1, "the result right after the denial: {after:?}");
    // Not confirmed which result the real CLI writes then; the stand-in ends the turn
    // as an interrupt does.
    assert_eq!(after[0]["is_error"], true);
    assert_eq!(after[0]["subtype"], "error_during_execution");
    assert_eq!(code(&c.finish()), Some(1), "the last result is an error");
}

#[test]
fn without_the_prompt_tool_the_write_is_denied_at_once() {
    let mut c = sdk(PYTHON, false, &[]);
    c.send(&initialize("req_1_a1b2c3d4"));
    c.send(&prompt("Read README.md and create a summary"));
    let lines = c.until(is_result);
    assert!(
        !lines.iter().any(|l| kind(l) == "control_request"),
        "nothing asked"
    );
    assert!(
        !lines.iter().any(|l| kind(l) == "stream_event"),
        "no partial messages"
    );
    let cwd = inits(&lines)[0]["cwd"].as_str().expect("cwd").to_owned();
    let end = lines.last().expect("result");
    let id = end["permission_denials"][0]["tool_use_id"].clone();
    let (_, result) = tool_result(&lines, &id);
    assert_eq!(result["is_error"], true);
    assert_eq!(
        result["content"],
        format!(
            "Claude requested permissions to write to {cwd}/summary.txt, but you haven't granted it yet."
        )
    );
    // The read-only call in the folder is never asked nor denied.
    assert_eq!(end["permission_denials"].as_array().map(Vec::len), Some(1));
    assert_eq!(code(&c.finish()), Some(0));
}

#[test]
fn interrupt_while_a_permission_waits_ends_the_turn() {
    let (mut c, _) = up_to_permission(&with_prompt_tool(), true);
    c.send_json(&request("int_1", json!({"subtype": "interrupt"})));
    let rest = c.until(|l| state_is(l, "idle"));
    let response = rest
        .iter()
        .find(|l| l["response"]["request_id"] == "int_1")
        .expect("the interrupt's answer");
    assert_eq!(response["response"]["response"], json!({"still_queued": []}));
    let marker = rest
        .iter()
        .find(|l| kind(l) == "user" && l["message"]["content"][0]["text"] == "[Request interrupted by user]")
        .expect("the interrupt's user line");
    let result = rest.iter().find(|l| is_result(l)).expect("a result");
    assert!(
        rest.iter().position(|l| l == marker) < rest.iter().position(|l| l == result),
        "marker, then result"
    );
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["terminal_reason"], "aborted_streaming");
    // Two API round trips were made (the text and the Read, then the Write).
    assert_eq!(result["num_turns"], 2);
    assert_eq!(result["is_error"], true);
    assert!(state_is(rest.last().expect("idle"), "idle"));
    let ended = c.finish();
    assert_eq!(code(&ended), Some(1), "exit 1 at the end of input");
    assert!(
        ended.stderr.is_empty(),
        "nothing on stderr (observed): {}",
        ended.stderr
    );
}

#[test]
fn stdin_closed_while_a_permission_waits_refuses_it_and_ends() {
    // Not confirmed what the real CLI does then; the stand-in takes the request as
    // refused (no SDK is left to answer), finishes the turn and exits.
    let (mut c, lines) = up_to_permission(&with_prompt_tool(), true);
    let id = lines.last().expect("request")["request"]["tool_use_id"].clone();
    c.close();
    let ended = c.finish();
    let rest = ended.json();
    let (_, result) = tool_result(&rest, &id);
    assert_eq!(result["is_error"], true);
    let end = rest.iter().rfind(|l| is_result(l)).expect("a result");
    assert_eq!(end["permission_denials"][0]["tool_use_id"], id);
    assert!(state_is(rest.last().expect("lines"), "idle"));
    assert_eq!(code(&ended), Some(0));
}

/// `initialize` with a `PreToolUse` hook on `Write`.
fn initialize_with_hook() -> String {
    json!({"type": "control_request", "request_id": "req_1", "request": {"subtype": "initialize",
        "hooks": {"PreToolUse": [{"matcher": "Write", "hookCallbackIds": ["hook_0"]}]}}})
    .to_string()
}

#[test]
fn a_hook_is_called_before_the_tool_and_may_deny_it() {
    // The hook lets it go on: the permission request follows.
    let mut c = sdk(&with_prompt_tool(), false, &[]);
    c.send(&initialize_with_hook());
    c.send(&prompt("Read README.md and create a summary"));
    let lines = c.until(|l| kind(l) == "control_request");
    let hook = lines.last().expect("request");
    assert_eq!(
        hook["request"]["subtype"], "hook_callback",
        "the hook before can_use_tool"
    );
    assert_eq!(hook["request"]["callback_id"], "hook_0");
    let input = &hook["request"]["input"];
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Write", "the matcher takes Write, not Read");
    assert_eq!(input["tool_use_id"], hook["request"]["tool_use_id"]);
    c.send_json(&answer(&hook["request_id"], json!({"continue": true})));
    let next = c.next_json();
    assert!(asks(&next, "can_use_tool"), "{next}");
    c.send_json(&answer(
        &next["request_id"],
        json!({"behavior": "allow", "updatedInput": next["request"]["input"]}),
    ));
    let rest = c.until(is_result);
    assert!(
        !rest.iter().any(|l| asks(l, "hook_callback")),
        "one call of the hook"
    );
    assert_eq!(rest.last().expect("result")["permission_denials"], json!([]));
    assert_eq!(code(&c.finish()), Some(0));

    // The hook denies: no permission request, the call is denied.
    let mut c = sdk(&with_prompt_tool(), false, &[]);
    c.send(&initialize_with_hook());
    c.send(&prompt("Read README.md and create a summary"));
    let lines = c.until(|l| kind(l) == "control_request");
    let hook = lines.last().expect("request");
    let id = hook["request"]["tool_use_id"].clone();
    c.send_json(&answer(
        &hook["request_id"],
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "Writes are blocked"}}),
    ));
    let rest = c.until(is_result);
    assert!(
        !rest.iter().any(|l| kind(l) == "control_request"),
        "nothing more asked"
    );
    let (_, result) = tool_result(&rest, &id);
    assert_eq!(result["is_error"], true);
    assert_eq!(result["content"], "Writes are blocked");
    assert_eq!(
        rest.last().expect("result")["permission_denials"][0]["tool_use_id"],
        id
    );
    assert_eq!(code(&c.finish()), Some(0));
}
