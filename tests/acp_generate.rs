//! Generated conversations of server mode: every one keeps the protocol's rules,
//! replays through `mock-agent acp` exactly, is the same for the same seed, serves as a
//! source of `mock-agent test --acp`, and fuzzes a client down to a few messages.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use harness::dialects::cursor_acp::faults::STOP_REASONS;
use harness::dialects::cursor_acp::generate::{
    conversation, from_seed, ConversationConfig, Direction, Transcript,
};
use harness::dialects::cursor_acp::rpc::{self, Kind, Message};
use proptest::prelude::*;
use serde_json::Value;

use crate::roundtrip::cases;
use crate::support::{bin, mock, root};

/// The update kinds of ACP the generator sends.
const UPDATES: &[&str] = &[
    "agent_message_chunk",
    "agent_thought_chunk",
    "user_message_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "available_commands_update",
    "current_mode_update",
    "usage_update",
    "session_info_update",
];

/// What a conversation does against the protocol's rules, one finding a message:
/// every request answered once and only a request answered, ids never reused, updates
/// only of known sessions, `tool_call` before its updates and each finished before its
/// turn ends (unless cancelled), a valid `stopReason` (`cancelled` exactly when the
/// client cancelled), agent requests only during a turn.
fn violations(transcript: &Transcript) -> Vec<String> {
    let mut found = Vec::new();
    let mut asked_by_client: HashMap<String, String> = HashMap::new();
    let mut asked_by_agent: HashSet<String> = HashSet::new();
    let mut ids_seen: HashSet<(bool, String)> = HashSet::new();
    let mut sessions: HashSet<String> = HashSet::new();
    let mut tools: HashMap<String, bool> = HashMap::new();
    // The prompt being played: its id, and whether the client cancelled it.
    let mut turn: Option<(String, bool)> = None;
    // The `session/load` being answered (its history replayed): its id and session.
    let mut loading: Option<(String, String)> = None;
    for (n, message) in transcript.messages.iter().enumerate() {
        let mut fail = |what: String| found.push(format!("message {n}: {what}: {}", message.line));
        let value: Value = match serde_json::from_str(&message.line) {
            Ok(value) => value,
            Err(e) => {
                fail(format!("not JSON ({e})"));
                continue;
            }
        };
        if value["jsonrpc"] != "2.0" || message.line.contains('\n') {
            fail("not a JSON-RPC 2.0 line".into());
        }
        let Some(parsed) = Message::parse(message.line.as_bytes()) else {
            fail("not a JSON-RPC message".into());
            continue;
        };
        let id = parsed.id_text().to_owned();
        let params = parsed.params_value();
        let client = message.dir == Direction::In;
        match (message.dir, parsed.kind) {
            (_, Kind::Request) => {
                if !ids_seen.insert((client, id.clone())) {
                    fail(format!("request id {id} used twice"));
                }
                if client {
                    asked_by_client.insert(id.clone(), parsed.method().to_owned());
                    match parsed.method() {
                        "session/prompt" => {
                            if turn.is_some() {
                                fail("a prompt while another plays".into());
                            }
                            if !sessions.contains(params["sessionId"].as_str().unwrap_or_default()) {
                                fail("a prompt for a session never opened".into());
                            }
                            turn = Some((id, false));
                        }
                        "session/load" => {
                            let session = params["sessionId"].as_str().unwrap_or_default().to_owned();
                            sessions.insert(session.clone());
                            loading = Some((id, session));
                        }
                        _ => {}
                    }
                } else {
                    asked_by_agent.insert(id);
                    if turn.is_none() {
                        fail("an agent request outside a turn".into());
                    }
                }
            }
            (Direction::Out, Kind::Response) => {
                if loading.as_ref().is_some_and(|(load, _)| *load == id) {
                    loading = None;
                }
                let Some(method) = asked_by_client.remove(&id) else {
                    fail(format!("a response to {id}, which no pending request has"));
                    continue;
                };
                let result = &value["result"];
                if value.get("error").is_some() == value.get("result").is_some() {
                    fail("a response needs a result or an error".into());
                }
                match method.as_str() {
                    "session/new" => {
                        sessions.insert(result["sessionId"].as_str().unwrap_or_default().to_owned());
                    }
                    "session/prompt" => {
                        let cancelled = turn.take().is_some_and(|(_, c)| c);
                        if value.get("error").is_none() {
                            let reason = result["stopReason"].as_str().unwrap_or_default();
                            if !STOP_REASONS.contains(&reason) {
                                fail(format!("`{reason}` is no stop reason"));
                            }
                            if (reason == "cancelled") != cancelled {
                                fail("`cancelled` is the answer to a cancel, and only to one".into());
                            }
                        }
                        if !cancelled {
                            if let Some((id, _)) = tools.iter().find(|(_, done)| !**done) {
                                fail(format!("the turn ended before tool call {id:?} did"));
                            }
                        }
                        tools.clear();
                    }
                    _ => {}
                }
            }
            (Direction::In, Kind::Response) => {
                if !asked_by_agent.remove(&id) {
                    fail(format!("an answer to {id}, which the agent did not ask"));
                }
            }
            (Direction::In, Kind::Notification) => match (parsed.method(), turn.as_mut()) {
                ("session/cancel", Some((_, cancelled))) => *cancelled = true,
                (method, _) => fail(format!("a notification `{method}` outside a turn")),
            },
            (Direction::Out, Kind::Notification) => {
                let update = &params["update"];
                let kind = update["sessionUpdate"].as_str().unwrap_or_default();
                if parsed.method() != "session/update" || !UPDATES.contains(&kind) {
                    fail(format!("an unknown notification or update `{kind}`"));
                }
                if !sessions.contains(params["sessionId"].as_str().unwrap_or_default()) {
                    fail("an update of a session never opened".into());
                }
                let call = update["toolCallId"].as_str().unwrap_or_default().to_owned();
                match kind {
                    "tool_call" if tools.insert(call.clone(), false).is_some() => {
                        fail("a tool call started twice".into())
                    }
                    "tool_call_update" => match tools.get_mut(&call) {
                        None => fail("an update of a tool call never started".into()),
                        Some(done) => {
                            *done |= matches!(update["status"].as_str(), Some("completed" | "failed"))
                        }
                    },
                    "user_message_chunk" | "agent_message_chunk"
                        if loading
                            .as_ref()
                            .is_some_and(|(_, s)| params["sessionId"] == s.as_str()) => {}
                    "user_message_chunk" => fail("history outside a session/load".into()),
                    "tool_call"
                    | "agent_message_chunk"
                    | "agent_thought_chunk"
                    | "plan"
                    | "current_mode_update"
                    | "usage_update"
                        if turn.is_none() =>
                    {
                        fail("a turn's update outside a turn (or a load's history)".into())
                    }
                    _ => {}
                }
            }
        }
    }
    for (id, method) in asked_by_client {
        found.push(format!("the client's {method} {id} was never answered"));
    }
    for id in asked_by_agent {
        found.push(format!("the agent's request {id} was never answered"));
    }
    found
}

fn any_config() -> impl Strategy<Value = ConversationConfig> {
    prop_oneof![
        Just(ConversationConfig::default()),
        Just(ConversationConfig::default().cancels(100).failures(50)),
        Just(ConversationConfig::default().max_messages(12)),
    ]
}

/// Plays the client's side of a conversation against `mock-agent acp` (started with
/// `env`): each client request with a fresh id of its own, the rest as recorded, each
/// sent once the agent's messages before it have come. Returns the mismatches, and
/// how the agent ended.
fn replay(transcript: &Transcript, env: &[(&str, &str)]) -> Result<(), String> {
    let mut command = Command::new(bin());
    command
        .arg("acp")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        // A divergence from the recording is an error response: it shows.
        .env("MOCK_AGENT_STRICT", "1");
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut live: HashMap<String, String> = HashMap::new();
    let mut result = Ok(());
    for (n, message) in transcript.messages.iter().enumerate() {
        let parsed = Message::parse(message.line.as_bytes()).ok_or("not JSON-RPC")?;
        match message.dir {
            Direction::In => {
                let line = if parsed.kind == Kind::Request {
                    let fresh = format!("\"live-{n}\"");
                    live.insert(parsed.id_text().to_owned(), fresh.clone());
                    rpc::with_id(message.line.as_bytes(), &fresh)
                } else {
                    message.line.clone().into_bytes()
                };
                stdin
                    .write_all(&[line, b"\n".to_vec()].concat())
                    .map_err(|e| format!("message {n}: cannot write: {e}"))?;
            }
            Direction::Out => {
                let expected = match live.get(parsed.id_text()) {
                    Some(fresh) if parsed.kind == Kind::Response => {
                        String::from_utf8_lossy(&rpc::with_id(message.line.as_bytes(), fresh)).into_owned()
                    }
                    _ => message.line.clone(),
                };
                match received.recv_timeout(Duration::from_secs(10)) {
                    Ok(got) if got == expected => {}
                    Ok(got) => {
                        result = Err(format!("message {n}:\nexpected {expected}\n     got {got}"));
                        break;
                    }
                    Err(_) => {
                        result = Err(format!("message {n}: nothing came; expected {expected}"));
                        break;
                    }
                }
            }
        }
    }
    drop(stdin);
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    result?;
    if let Ok(extra) = received.recv_timeout(Duration::from_millis(100)) {
        return Err(format!("a message more than recorded: {extra}"));
    }
    if output.status.code() != Some(0) || !output.stderr.is_empty() {
        return Err(format!(
            "the agent ended with {} ({})",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(500)))]

    /// Every generated conversation keeps the protocol's rules.
    #[test]
    fn generated_conversations_keep_the_protocol(transcript in any_config().prop_flat_map(conversation)) {
        let found = violations(&transcript);
        prop_assert!(found.is_empty(), "{}\n{}", found.join("\n"), transcript.summary());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    /// A generated conversation written as a cassette replays through `mock-agent acp`
    /// for a client that sends the recorded messages (its requests with fresh ids):
    /// the agent's messages come back as recorded, ids aside, and it exits 0.
    #[test]
    fn generated_conversations_replay_through_the_binary(transcript in any_config().prop_flat_map(conversation)) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let path = dir.path().join("generated.cassette");
        transcript.write_cassette(&path).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let path = path.display().to_string();
        let replayed = replay(&transcript, &[("MOCK_AGENT_CASSETTE", &path)]);
        prop_assert!(replayed.is_ok(), "{}\n{}", replayed.unwrap_err(), transcript.summary());
    }
}

#[test]
fn the_violations_of_a_broken_conversation_are_found() {
    let mut transcript = from_seed(3, &ConversationConfig::default().failures(0));
    assert_eq!(violations(&transcript), Vec::<String>::new());
    // The prompt's answer lost: the prompt is never answered.
    let last = transcript.messages.pop().expect("a message");
    assert!(last.line.contains("stopReason"), "{}", last.line);
    let found = violations(&transcript);
    assert!(found.iter().any(|f| f.contains("never answered")), "{found:?}");
}

#[test]
fn a_seed_gives_the_same_bytes_on_every_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let told = |seed: &str| {
        let output = mock()
            .args(["generate", "--acp", "--seed", seed])
            .output()
            .expect("runs");
        crate::support::assert_said(&output, 0);
        String::from_utf8(output.stdout).expect("utf-8")
    };
    let first = told("11");
    assert_eq!(first, told("11"));
    assert_ne!(first, told("12"));
    assert!(first.starts_with("-> initialize #0\n<- result #0\n"), "{first}");
    assert_eq!(
        first,
        format!("{}\n", from_seed(11, &ConversationConfig::default()).summary())
    );
    let write = |name: &str| {
        let path = dir.path().join(name);
        let output = mock()
            .args(["generate", "--acp", "--seed", "11", "--out"])
            .arg(&path)
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(0));
        std::fs::read(path).expect("written")
    };
    let cassette = write("a.cassette");
    assert_eq!(cassette, write("b.cassette"));
    assert!(cassette.starts_with(br#"{"mock_agent_cassette":2,"invocation":{"argv":["acp"],"acp":true}}"#));
    // `--events` caps the messages; print-mode options do not go with `--acp`.
    let short = mock()
        .args(["generate", "--acp", "--seed", "11", "--events", "9"])
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&short.stdout).lines().count() <= 9);
    let wrong = mock()
        .args(["generate", "--acp", "--seed", "1", "--output-format", "json"])
        .output()
        .expect("runs");
    assert_eq!(wrong.status.code(), Some(64));
}

#[test]
fn mock_agent_generate_serves_the_generated_conversation_in_acp_mode() {
    for seed in [0u64, 1, 2, 5, 9] {
        let transcript = from_seed(seed, &ConversationConfig::default());
        let seed = seed.to_string();
        if let Err(e) = replay(&transcript, &[("MOCK_AGENT_GENERATE", &seed)]) {
            panic!("seed {seed}: {e}\n{}", transcript.summary());
        }
    }
}

fn client(script: &str) -> String {
    format!(
        "CONSUMER_IDLE_TIMEOUT=2 python3 {}",
        crate::support::consumer_path(script)
    )
}

/// Runs `mock-agent test --acp` against a client on the clean cases of 6 generated
/// conversations; its exit code and stdout.
fn test_generated(script: &str) -> (Option<i32>, String) {
    let output = mock()
        .args([
            "test",
            "--acp",
            "--no-default",
            "--generated",
            "6",
            "--filter",
            "clean",
            "--timeout",
            "5",
            "--consumer",
            &client(script),
        ])
        .output()
        .expect("runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn mock_agent_test_acp_takes_generated_conversations_as_sources() {
    let (code, stdout) = test_generated("acp_careful.py");
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("6 cases: 6 passed, 0 failed"), "{stdout}");
    // Each case's expectation is worked out from the generated conversation: some of
    // them fail, and the client that reads an error as success is caught on one.
    let (code, stdout) = test_generated("acp_error_as_success.py");
    assert_eq!(code, Some(harness::exit_codes::CASES_FAILED), "{stdout}");
    assert!(stdout.contains("reports-failure"), "{stdout}");
}

/// Runs `mock-agent fuzz --acp` against a client; its exit code and stdout.
fn fuzz(script: &str, cases: &str, seed: &str, out: &std::path::Path) -> (Option<i32>, String) {
    let output = mock()
        .args([
            "fuzz",
            "--acp",
            "--consumer",
            &client(script),
            "--cases",
            cases,
            "--seed",
            seed,
            "--timeout",
            "6",
            "--out",
        ])
        .arg(out)
        .output()
        .expect("runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn fuzz_acp_shrinks_the_planted_bug_to_a_few_messages_and_the_replay_fails_the_same_way() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Seed 1 finds it with a fault (a JSON-RPC error to `session/new`), seed 3 in a
    // conversation whose turn ends in an error.
    for (seed, faulted) in [("1", true), ("3", false)] {
        let (code, stdout) = fuzz("acp_error_as_success.py", "40", seed, dir.path());
        assert_eq!(code, Some(harness::exit_codes::CASES_FAILED), "{stdout}");
        assert!(stdout.contains("reports-failure"), "{stdout}");
        let cassette = dir.path().join(format!("fuzz-acp-{seed}.cassette"));
        let messages = harness::cassette::open(&cassette)
            .expect("the minimal case is a cassette")
            .filter(|f| matches!(f, Ok(harness::Frame::Line(_))))
            .count();
        assert!(messages <= 10, "{messages} messages:\n{stdout}");
        let command = stdout
            .lines()
            .find_map(|l| l.strip_prefix("replay it: "))
            .unwrap_or_else(|| panic!("no replay command in {stdout}"));
        assert!(
            command.starts_with("mock-agent test --acp --no-default --cassettes "),
            "{command}"
        );
        match std::fs::read_to_string(cassette.with_extension("faults")).ok() {
            Some(faults) if faulted => {
                let told = format!("with the faults: {}", faults.trim_end());
                assert!(stdout.contains(&told), "{stdout}");
                assert!(command.contains(" --fault "), "{command}");
            }
            None if !faulted => assert!(command.contains(" --filter clean "), "{command}"),
            other => panic!("seed {seed}: faults {other:?}\n{stdout}"),
        }
        replay_fails_the_same_way(command);
    }
}

/// Runs a printed `mock-agent test` command as a user would, with `mock-agent` on
/// `PATH`: it fails on `reports-failure`, as the case it replays did.
fn replay_fails_the_same_way(command: &str) {
    let installed = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(bin(), installed.path().join("mock-agent")).expect("link");
    let path = std::env::join_paths(std::iter::once(installed.path().to_owned()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    let mut shell = Command::new("sh");
    shell.arg("-c").arg(command).current_dir(root()).env("PATH", path);
    harness::run::child::without_mock_env(&mut shell);
    let replayed = shell.output().expect("runs");
    let replayed_out = String::from_utf8_lossy(&replayed.stdout);
    assert_eq!(
        replayed.status.code(),
        Some(harness::exit_codes::CASES_FAILED),
        "{command}\n{replayed_out}"
    );
    assert!(replayed_out.contains("reports-failure"), "{replayed_out}");
    assert!(
        replayed_out.contains("1 case: 0 passed, 1 failed"),
        "{replayed_out}"
    );
}

#[test]
fn fuzz_acp_passes_the_careful_client() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (code, stdout) = fuzz("acp_careful.py", "25", "3", dir.path());
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("25 cases passed"), "{stdout}");
}

#[test]
fn mock_agent_test_runs_given_faults_instead_of_the_matrix() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A conversation whose first turn ends well.
    let config = ConversationConfig::default().failures(0);
    let cassette = dir.path().join("calm.cassette");
    from_seed(4, &config).write_cassette(&cassette).expect("written");
    let test = |consumer: &str, fault: &str| {
        mock()
            .args([
                "test",
                "--acp",
                "--no-default",
                "--timeout",
                "5",
                "--fault",
                fault,
                "--consumer",
            ])
            .arg(client(consumer))
            .arg("--cassettes")
            .arg(&cassette)
            .output()
            .expect("runs")
    };
    let caught = test("acp_error_as_success.py", "error:method=session/prompt");
    let stdout = String::from_utf8_lossy(&caught.stdout);
    assert_eq!(
        caught.status.code(),
        Some(harness::exit_codes::CASES_FAILED),
        "{stdout}"
    );
    assert!(
        stdout.contains("calm/given") && stdout.contains("reports-failure"),
        "{stdout}"
    );
    assert!(stdout.contains("1 case: 0 passed, 1 failed"), "{stdout}");
    let coped = test("acp_careful.py", "error:method=session/prompt");
    crate::support::assert_said(&coped, 0);
    // A spec that does not parse is the mock's usage error, naming the flag.
    let wrong = test("acp_careful.py", "error");
    assert_eq!(wrong.status.code(), Some(64));
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        stderr.starts_with("mock-agent: ") && stderr.contains("--fault"),
        "{stderr}"
    );
}
