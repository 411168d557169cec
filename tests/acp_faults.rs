//! Server mode's faults and presets, through the binary: each does to the
//! conversation what `mock-agent faults` says.

use std::process::Command;

use serde_json::Value;

use crate::support::bin;

const SESSION: &str = "c6b62c6f-7ead-4fd6-9922-e952131177ff";

/// The client's requests of a whole default conversation, written at once (its
/// answers are given when the agent asks: [`crate::support::converse`]).
fn conversation() -> String {
    [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"authenticate","params":{"methodId":"cursor_login"}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}"#.to_owned(),
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{{"sessionId":"{SESSION}","prompt":[{{"type":"text","text":"hi"}}]}}}}"#),
    ]
    .iter()
    .map(|l| format!("{l}\n"))
    .collect()
}

struct Run {
    code: Option<i32>,
    signal: Option<i32>,
    messages: Vec<Value>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The response to the request with this id.
    fn response(&self, id: i64) -> Option<&Value> {
        self.messages
            .iter()
            .find(|m| m["id"] == id && m.get("method").is_none())
    }

    fn updates(&self) -> Vec<&str> {
        self.messages
            .iter()
            .filter(|m| m["method"] == "session/update")
            .filter_map(|m| m["params"]["update"]["sessionUpdate"].as_str())
            .collect()
    }
}

fn run(faults: &str) -> Run {
    run_answering(faults, crate::support::allow_once)
}

/// [`run`], the agent's requests answered by `answer`.
fn run_answering(faults: &str, answer: impl FnMut(&Value) -> Option<String>) -> Run {
    let mut cmd = Command::new(bin());
    cmd.arg("acp")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("MOCK_AGENT_FAULTS", faults);
    let output = crate::support::converse(cmd, &conversation(), answer);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    use std::os::unix::process::ExitStatusExt;
    Run {
        code: output.status.code(),
        signal: output.status.signal(),
        messages: stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn without_faults_the_turn_ends_and_every_request_is_answered() {
    let run = run("");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for id in 0..4 {
        assert!(
            run.response(id).is_some(),
            "request {id} answered: {}",
            run.stdout
        );
    }
    assert_eq!(
        run.response(3).map(|r| &r["result"]["stopReason"]),
        Some(&Value::from("end_turn"))
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn the_presets_fail_as_the_real_agent_does() {
    let auth = run("auth-required");
    assert!(
        auth.response(0).is_some_and(|r| r.get("result").is_some()),
        "initialize works"
    );
    for id in [2, 3] {
        assert_eq!(
            auth.response(id).map(|r| &r["error"]["code"]),
            Some(&Value::from(-32000)),
            "{id}"
        );
    }
    let hangs = run("authenticate-hangs");
    assert!(hangs.response(1).is_none(), "authenticate never answered");
    assert!(hangs.response(2).is_some(), "the rest goes on");
    let services = run("session-services-failed");
    assert_eq!(
        services.response(2).map(|r| &r["error"]["code"]),
        Some(&Value::from(-32603))
    );
    let init = run("crash-on-initialize");
    assert_eq!((init.code, init.messages.len()), (Some(1), 0));
    assert!(init.stderr.contains("Error:"), "{}", init.stderr);
    let asking = run("crash-while-asking");
    assert_eq!(asking.code, Some(1));
    let last = asking.messages.last().expect("messages");
    assert_eq!(
        last["method"], "session/request_permission",
        "dies while its request waits"
    );
    assert!(asking.response(3).is_none());
    for (preset, reason) in [("refusal", "refusal"), ("max-tokens", "max_tokens")] {
        let ended = run(preset);
        assert_eq!(
            ended.response(3).map(|r| &r["result"]["stopReason"]),
            Some(&Value::from(reason))
        );
    }
}

#[test]
fn faults_placed_by_method_kind_and_count() {
    let error = run(r#"error:method=session/new,code=-32099,message=nope,data={"why":"test"}"#);
    let answer = error.response(2).expect("answered");
    assert_eq!(
        (&answer["error"]["code"], &answer["error"]["data"]["why"]),
        (&Value::from(-32099), &Value::from("test"))
    );
    let crash = run("crash:at=tool_call,signal=TERM");
    assert_eq!(crash.signal, Some(15));
    assert!(
        !crash.updates().contains(&"tool_call"),
        "dies before the first tool call"
    );
    let eof = run("eof:after=3,byte=25");
    assert_eq!(eof.code, Some(1));
    assert_eq!(eof.stdout.lines().count(), 4);
    assert!(!eof.stdout.ends_with('\n'), "cut in the middle of a line");
    let unknown = run("unknown-update:at=tool_call;unknown-field");
    assert!(unknown.updates().contains(&"mock_agent_unknown_update"));
    assert!(unknown.stdout.contains("mockAgentUnknownField"));
    let dropped = run("drop:kind=tool_call_update");
    assert!(!dropped.updates().contains(&"tool_call_update"));
    assert!(dropped.response(3).is_some());
    let duplicated = run("duplicate:at=tool_call");
    assert_eq!(
        duplicated.updates().iter().filter(|u| **u == "tool_call").count(),
        3,
        "two tool calls, the first twice"
    );
    let early = run("early-update");
    let position = |id: i64| {
        early
            .messages
            .iter()
            .position(|m| m["id"] == id && m.get("method").is_none())
    };
    let first_update = early
        .messages
        .iter()
        .position(|m| m["method"] == "session/update");
    assert!(
        first_update < position(2),
        "an update before session/new's answer"
    );
    let malformed = run("malformed:after=1;stderr:text=warning,at=tool_call");
    assert_eq!(
        malformed
            .stdout
            .lines()
            .filter(|l| serde_json::from_str::<Value>(l).is_err())
            .count(),
        1
    );
    assert_eq!(malformed.stderr, "warning\n");
    let huge = run("huge:bytes=300000,at=tool_call");
    assert!(huge.stdout.lines().any(|l| l.len() > 300_000));
    let flood = run("stderr-flood:bytes=200000");
    assert!(flood.stderr.len() >= 200_000 && flood.code == Some(0));
}

#[test]
fn a_bad_fault_spec_is_the_mock_s_own_error_and_print_mode_refuses_server_faults() {
    let output = crate::support::mock()
        .args(["acp"])
        .env("MOCK_AGENT_FAULTS", "late:ms=3")
        .write_stdin("")
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(64));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("mock-agent: MOCK_AGENT_FAULTS:1:1:") && stderr.contains("needs `method=...`"),
        "{stderr}"
    );
    let output = crate::support::mock()
        .args(["-p", "hi"])
        .env("MOCK_AGENT_FAULTS", "authenticate-hangs")
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&output.stderr).starts_with("mock-agent: MOCK_AGENT_FAULTS"));
    let listed = crate::support::mock().arg("faults").output().expect("runs");
    let listed = String::from_utf8_lossy(&listed.stdout);
    for entry in harness::dialects::cursor_acp::faults::catalogue() {
        assert!(listed.contains(entry.example), "{}", entry.name);
    }
}

/// A careful client's answer: allow-once to a permission, `-32601` to a request it
/// does not know or did not offer.
fn careful(request: &Value) -> Option<String> {
    crate::support::allow_once(request).or_else(|| {
        Some(
            serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": format!("Method not found: {}", request["method"])}})
                .to_string(),
        )
    })
}

#[test]
fn unoffered_tools_asks_a_client_that_offers_none_and_its_error_answers_fail_the_tools() {
    // The client offers nothing (`"clientCapabilities":{}`): asked nothing...
    let asked = |run: &Run| -> Vec<String> {
        run.messages
            .iter()
            .filter(|m| m.get("id").is_some() && m["method"] != "session/request_permission")
            .filter_map(|m| m["method"].as_str().map(str::to_owned))
            .collect()
    };
    assert_eq!(asked(&run_answering("", careful)), Vec::<String>::new());
    // ...but for the fault: its file read, its write and its terminal.
    let run = run_answering("unoffered-tools", careful);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        asked(&run),
        ["fs/read_text_file", "fs/write_text_file", "terminal/create"]
    );
    // Each refused: each tool failed with the client's message, and the turn ends.
    let failed: Vec<&Value> = run
        .messages
        .iter()
        .map(|m| &m["params"]["update"])
        .filter(|u| u["sessionUpdate"] == "tool_call_update" && u["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 3, "{}", run.stdout);
    assert!(failed[0]["rawOutput"]["error"]
        .as_str()
        .is_some_and(|e| e.starts_with("Method not found")));
    assert_eq!(
        run.response(3).expect("the prompt answered")["result"]["stopReason"],
        "end_turn"
    );
}
