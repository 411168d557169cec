//! `gemini --acp`: the one ACP machinery with Gemini CLI's profile, through the
//! binary: the shapes `shared/REAL-GEMINI.md` records (and the recorded cassettes of
//! the real 0.61.0 hold), its cassettes replayed byte for byte, recording it with the
//! key kept out, the careful client through the whole matrix and planted bugs caught
//! by their property.

use std::time::Duration;

use serde_json::{json, Value};

use harness::dialects::{self, GEMINI_ACP};
use harness::run::{self, CaseSource, Consumer, Matrix, MockBinary, Runner};

use crate::support::{answer_permission, bin, converse, mock_std, root};

/// The client's answer to the agent's request: `option` to a permission request, a
/// write done (`null`) to `fs/write_text_file`.
fn answer(request: &Value, option: &str) -> Option<String> {
    if request["method"] == "fs/write_text_file" {
        return Some(json!({"jsonrpc": "2.0", "id": request["id"], "result": null}).to_string());
    }
    answer_permission(request, option)
}

/// The requests of a client that offers files and a terminal, authenticates with
/// Gemini's key method, opens a session, prompts, then tries what does not exist.
fn requests(extra: &[Value]) -> String {
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "authenticate", "params": {"methodId": "gemini-api-key", "_meta": {"api-key": "secret-key-1"}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": "/work/project", "mcpServers": []}}),
    ];
    lines.extend(extra.iter().cloned());
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// `mock-agent gemini --acp` (what `gemini --acp` runs), with these settings.
fn gemini(env: &[(&str, &str)]) -> std::process::Command {
    let mut cmd = mock_std();
    cmd.args(["gemini", "--acp"]);
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd
}

/// The agent's lines, parsed.
fn lines(output: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn response(lines: &[Value], id: i64) -> &Value {
    lines
        .iter()
        .find(|l| l["id"] == id && l.get("method").is_none())
        .unwrap_or_else(|| panic!("no response to {id}: {lines:#?}"))
}

/// The lines of a conversation of the default requests, and the id of the session
/// `session/new` (id 2) opened.
fn first_session() -> (Vec<Value>, String) {
    let first = lines(&converse(gemini(&[]), &requests(&[]), |_| None));
    let sid = response(&first, 2)["result"]["sessionId"]
        .as_str()
        .expect("an id")
        .to_owned();
    (first, sid)
}

#[test]
fn gemini_acp_answers_in_gemini_cli_s_shapes() {
    // The default session's turn: a read, then a write that asks permission.
    let session = "a";
    let prompt = json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}});
    // The session id is the default session's; a prompt naming another is refused.
    let (_, sid) = first_session();
    let mut prompt = prompt;
    prompt["params"]["sessionId"] = json!(sid);
    let extra = [
        prompt,
        json!({"jsonrpc": "2.0", "id": 4, "method": "bogus/method", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "session/set_mode", "params": {"sessionId": sid, "modeId": "bogus"}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "session/load", "params": {"sessionId": "nobody", "cwd": "/w", "mcpServers": []}}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "session/prompt", "params": {"sessionId": "nobody", "prompt": []}}),
    ];
    let mut options = Vec::new();
    let output = converse(gemini(&[]), &requests(&extra), |request| {
        if request["method"] == "session/request_permission" {
            options.push(request["params"]["options"].clone());
        }
        answer(request, "proceed_once")
    });
    assert!(output.status.success(), "{output:?}");
    let lines = lines(&output);
    // initialize: four auth methods, the key's hint, agentInfo, every prompt capability.
    let init = &response(&lines, 0)["result"];
    let methods: Vec<&str> = init["authMethods"]
        .as_array()
        .expect("authMethods")
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert_eq!(
        methods,
        ["oauth-personal", "gemini-api-key", "vertex-ai", "gateway"]
    );
    assert_eq!(init["authMethods"][1]["_meta"]["api-key"]["provider"], "google");
    assert_eq!(init["agentInfo"]["name"], "gemini-cli");
    assert_eq!(init["agentCapabilities"]["promptCapabilities"]["audio"], true);
    assert_eq!(response(&lines, 1)["result"], json!({}));
    // session/new: the approval modes and the models, no configOptions.
    let new = &response(&lines, 2)["result"];
    let modes: Vec<&str> = new["modes"]["availableModes"]
        .as_array()
        .expect("modes")
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert_eq!(modes, ["default", "autoEdit", "yolo", "plan"]);
    assert_eq!(new["modes"]["currentModeId"], "default");
    assert!(new.get("configOptions").is_none(), "{new}");
    // The permission request: Gemini's option ids, asked before the tool call is told.
    assert_eq!(options.len(), 1, "{options:?}");
    let ids: Vec<&str> = options[0]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|o| o["optionId"].as_str())
        .collect();
    assert_eq!(ids, ["proceed_always", "proceed_once", "cancel"]);
    let asked = lines
        .iter()
        .find(|l| l["method"] == "session/request_permission")
        .expect("asks");
    let call = &asked["params"]["toolCall"]["toolCallId"];
    let told_before = lines
        .iter()
        .take_while(|l| l["method"] != "session/request_permission")
        .any(|l| l["params"]["update"]["toolCallId"] == *call);
    assert!(
        !told_before,
        "the permission request is the first mention of {call}"
    );
    // No terminal, no read through the client, no rawInput or rawOutput.
    for line in &lines {
        let method = line["method"].as_str().unwrap_or_default();
        assert!(
            !method.starts_with("terminal/") && method != "fs/read_text_file",
            "{line}"
        );
        let update = &line["params"]["update"];
        assert!(
            update.get("rawInput").is_none() && update.get("rawOutput").is_none(),
            "{line}"
        );
    }
    assert!(lines.iter().any(|l| l["method"] == "fs/write_text_file"));
    // The prompt's result: the stop reason and `_meta.quota`.
    let result = &response(&lines, 3)["result"];
    assert_eq!(result["stopReason"], "end_turn");
    assert!(
        result["_meta"]["quota"]["token_count"]["input_tokens"].is_u64(),
        "{result}"
    );
    // Its error shapes.
    let error = |id| response(&lines, id)["error"].clone();
    assert_eq!(
        error(4),
        json!({"code": -32601, "message": "\"Method not found\": bogus/method", "data": {"method": "bogus/method"}})
    );
    assert_eq!(
        error(5),
        json!({"code": -32603, "message": "Internal error", "data": {"details": "Invalid or unavailable mode: bogus"}})
    );
    assert_eq!(error(6)["code"], -32603);
    assert!(error(6)["data"]["details"]
        .as_str()
        .unwrap_or_default()
        .starts_with("Invalid session identifier \"nobody\""));
    assert_eq!(
        error(7),
        json!({"code": -32602, "message": "Session not found: nobody"})
    );
}

#[test]
fn the_commands_follow_session_new_and_load_answers_before_its_replay_ends() {
    let (first, sid) = first_session();
    // The commands update comes right after session/new's answer.
    let at = first.iter().position(|l| l["id"] == 2).expect("answered");
    assert_eq!(
        first[at + 1]["params"]["update"]["sessionUpdate"],
        "available_commands_update"
    );
    let extra = [
        json!({"jsonrpc": "2.0", "id": 3, "method": "session/load", "params": {"sessionId": sid, "cwd": "/work/project", "mcpServers": []}}),
    ];
    let output = converse(gemini(&[]), &requests(&extra), |_| None);
    let lines = lines(&output);
    let loaded: Vec<String> = lines
        .iter()
        .skip_while(|l| l["id"] != 2)
        .skip(2)
        .map(|l| match l["params"]["update"]["sessionUpdate"].as_str() {
            Some(kind) => kind.to_owned(),
            None => format!("response {}", l["id"]),
        })
        .collect();
    assert_eq!(loaded[0], "user_message_chunk", "{loaded:?}");
    assert_eq!(loaded[1], "response 3", "{loaded:?}");
    assert!(
        loaded[2..].iter().all(|k| k == "agent_message_chunk") && loaded.len() > 2,
        "{loaded:?}"
    );
}

/// The client's lines of a recording (what it sent), and the agent's (what it wrote).
fn recorded(path: &std::path::Path) -> (String, Vec<Value>) {
    let text = std::fs::read_to_string(path).expect("reads the cassette");
    let (mut sent, mut wrote) = (String::new(), Vec::new());
    for line in text.lines().skip(1) {
        let frame: Value = serde_json::from_str(line).expect("a frame");
        if let Some(message) = frame.get("in") {
            sent.push_str(&format!("{message}\n"));
        } else if let Some(message) = frame.get("out") {
            wrote.push(message.clone());
        }
    }
    (sent, wrote)
}

#[test]
fn the_recorded_cassettes_of_the_real_cli_replay_as_recorded() {
    for name in ["shell", "edit"] {
        let path = root().join(format!("cassettes/gemini-acp/{name}.cassette"));
        let (sent, wrote) = recorded(&path);
        let cassette = path.to_string_lossy().into_owned();
        let mut answers: Vec<Value> = sent
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|m| m.get("method").is_none())
            .collect();
        answers.reverse();
        // The client sends its requests; the agent's requests get the recorded answers.
        let requests: String = sent
            .lines()
            .filter(|l| l.contains("\"method\""))
            .map(|l| format!("{l}\n"))
            .collect();
        let output = converse(gemini(&[("MOCK_AGENT_CASSETTE", &cassette)]), &requests, |_| {
            answers.pop().map(|a| a.to_string())
        });
        assert!(output.status.success(), "{name}: {output:?}");
        assert_eq!(lines(&output), wrote, "{name}");
        // It is Gemini's, by its header.
        let reader = harness::cassette::open(&path).expect("opens");
        assert_eq!(
            dialects::of_header(reader.header()).name(),
            "gemini-acp",
            "{name}"
        );
    }
}

#[test]
fn recording_gemini_acp_keeps_the_key_out_and_replays_the_same_bytes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let link = dir.path().join("gemini");
    std::os::unix::fs::symlink(bin(), &link).expect("symlink");
    let out = dir.path().join("run.cassette");
    let mut cmd = mock_std();
    cmd.arg("record")
        .arg("--out")
        .arg(&out)
        .arg("--")
        .arg(&link)
        .arg("--acp");
    let prompt = json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {"sessionId": "c6b62c6f-7ead-4fd6-9922-e952131177ff", "prompt": [{"type": "text", "text": "hi"}]}});
    let output = converse(cmd, &requests(&[prompt]), |r| answer(r, "proceed_once"));
    assert!(output.status.success(), "{output:?}");
    let text = std::fs::read_to_string(&out).expect("written");
    assert!(!text.contains("secret-key-1"), "{text}");
    assert!(text.contains("\"api-key\":\"[REDACTED]\""), "{text}");
    let reader = harness::cassette::open(&out).expect("opens");
    assert_eq!(dialects::of_header(reader.header()).name(), "gemini-acp");
    let report = dialects::check_file(&out).expect("checks");
    assert_eq!(report.count(harness::check::Severity::Error), 0, "{report:?}");
    // Played back to the same client, the agent writes what was recorded.
    let (sent, wrote) = recorded(&out);
    let requests: String = sent
        .lines()
        .filter(|l| l.contains("\"method\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let cassette = out.to_string_lossy().into_owned();
    let replayed = converse(gemini(&[("MOCK_AGENT_CASSETTE", &cassette)]), &requests, |r| {
        answer(r, "proceed_once")
    });
    assert_eq!(lines(&replayed), wrote);
}

fn client(script: &str, timeout: u64) -> Consumer {
    let path = root().join("tests/consumers").join(script);
    Consumer::new(format!("python3 {}", path.display()))
        .timeout(Duration::from_secs(timeout))
        .env("CONSUMER_IDLE_TIMEOUT", "8")
        .env("GEMINI_API_KEY", "k")
}

fn run_all(consumer: &Consumer, cases: &[run::Case]) -> Vec<run::CaseResult> {
    let mock = MockBinary::new(bin());
    Runner::new(consumer, &mock)
        .jobs(2)
        .run_all(cases, |_| {})
        .expect("runs")
}

#[test]
fn the_careful_gemini_client_copes_with_the_whole_matrix() {
    // The default session, the recorded cassettes of the real CLI and a generated
    // conversation, with every fault of the matrix.
    let cassettes = Matrix::cassettes_in(&root().join("cassettes/gemini-acp")).expect("cassettes");
    assert!(cassettes.len() >= 2, "{cassettes:?}");
    let cases = Matrix::of(GEMINI_ACP, cassettes)
        .generated(1)
        .cases(false)
        .expect("cases");
    assert!(cases.iter().any(|c| c.source == CaseSource::Generated(0)));
    let results = run_all(&client("gemini_acp_careful.py", 30), &cases);
    let summary = run::Summary::new(&results, &[]);
    assert!(summary.passed(), "{summary}");
}

#[test]
fn each_planted_bug_is_caught_by_its_property() {
    // The bugs the conformance suite plants in Gemini's ACP clients.
    for (script, case, property) in crate::conformance::planted("gemini-acp") {
        for (consumer, caught) in [
            (client(script, 5), true),
            (client("gemini_acp_careful.py", 30), false),
        ] {
            let mut matrix = Matrix::of(GEMINI_ACP, Vec::new());
            matrix.filters = vec![(*case).to_owned()];
            let cases: Vec<run::Case> = matrix
                .cases(false)
                .expect("cases")
                .into_iter()
                .filter(|c| c.name == *case)
                .collect();
            assert_eq!(cases.len(), 1, "{case}");
            let results = run_all(&consumer, &cases);
            let broken = results[0].broken();
            assert_eq!(
                broken.contains(property),
                caught,
                "{script} on {case}: broke {broken:?}"
            );
            if !caught {
                assert!(broken.is_empty(), "the careful client on {case}: {broken:?}");
            }
        }
    }
}

#[test]
fn mock_agent_test_dialect_gemini_acp_runs_the_matrix_against_a_client() {
    let consumer = format!(
        "python3 {}",
        root()
            .join("tests/consumers/gemini_acp_error_as_success.py")
            .display()
    );
    let output = crate::support::mock()
        .args(["test", "--dialect", "gemini-acp", "--consumer", &consumer])
        .args(["--filter", "error@prompt", "--timeout", "10"])
        .output()
        .expect("runs");
    crate::support::assert_case_broke(&output, "default/error@prompt", "reports-failure");
}
