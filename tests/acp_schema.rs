//! Conformance of server mode to the official ACP schema (issue 19): every message
//! `mock-agent acp` sends, whatever the source (the built-in default, each curated
//! ACP cassette replayed with its own client lines, each print-mode cassette and
//! capture told through ACP, generated conversations) and under each server-mode fault
//! that still sends messages, is validated against the JSON Schema of the type the
//! protocol gives it.
//!
//! The schemas come from `agent-client-protocol-schema` (the version the
//! `agent-client-protocol` client pins; its types are generated from the same source
//! as the protocol's `schema.json`), through `schemars`, and are checked by
//! [`Validator`], a validator of the JSON Schema keywords those schemas use (any other
//! keyword is refused, so none is ever ignored). Each message is checked as what it
//! is:
//!
//! - the envelope as JSON-RPC 2.0 has it (`"jsonrpc":"2.0"`, an id that is a
//!   `RequestId`, a response with exactly one of `result` and `error`);
//! - a response against the response type of the method the client asked with that
//!   id (tracked from the client's lines), an error response's `error` against `Error`;
//! - `session/update` against `SessionNotification`, `$/cancel_request` against
//!   `CancelRequestNotification`;
//! - the agent's requests against theirs (`session/request_permission` against
//!   `RequestPermissionRequest`, `fs/*` and `terminal/*` likewise).
//!
//! What steps outside the schema on purpose is in [`ALLOWED`]: each entry says what,
//! why, and which habit of the real agent (`REAL-ACP.md`) or which fault. A failure
//! prints, per source, how many messages were validated, allowed and rejected, and
//! each rejected line with the schema's error.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use agent_client_protocol_schema::v1 as acp;
use serde_json::{json, Value};

use crate::support::{bin, root};

mod drive;
mod validator;

use drive::{default_run, recorded_run};
use validator::Validator;

/// How long the test waits for a line before it takes the agent as silent.
const PATIENCE: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------
// The schemas
// ---------------------------------------------------------------------------

/// One compiled schema per protocol type the agent's messages are checked against.
struct Schemas {
    request_id: Validator,
    error: Validator,
    /// Result types, by the method of the client's request.
    results: Vec<(&'static str, Validator)>,
    /// The agent's requests' params, by method.
    requests: Vec<(&'static str, Validator)>,
    /// The agent's notifications' params, by method.
    notifications: Vec<(&'static str, Validator)>,
}

fn compile<T: schemars::JsonSchema>() -> Validator {
    let schema = schemars::schema_for!(T);
    Validator::new(schema.as_value().clone())
        .unwrap_or_else(|e| panic!("the schema of {}: {e}", std::any::type_name::<T>()))
}

fn schemas() -> &'static Schemas {
    static SCHEMAS: OnceLock<Schemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| Schemas {
        request_id: compile::<acp::RequestId>(),
        error: compile::<acp::Error>(),
        results: vec![
            ("initialize", compile::<acp::InitializeResponse>()),
            ("authenticate", compile::<acp::AuthenticateResponse>()),
            ("session/new", compile::<acp::NewSessionResponse>()),
            ("session/load", compile::<acp::LoadSessionResponse>()),
            ("session/prompt", compile::<acp::PromptResponse>()),
            ("session/set_mode", compile::<acp::SetSessionModeResponse>()),
            (
                "session/set_config_option",
                compile::<acp::SetSessionConfigOptionResponse>(),
            ),
        ],
        requests: vec![
            (
                "session/request_permission",
                compile::<acp::RequestPermissionRequest>(),
            ),
            ("fs/read_text_file", compile::<acp::ReadTextFileRequest>()),
            ("fs/write_text_file", compile::<acp::WriteTextFileRequest>()),
            ("terminal/create", compile::<acp::CreateTerminalRequest>()),
            ("terminal/output", compile::<acp::TerminalOutputRequest>()),
            ("terminal/release", compile::<acp::ReleaseTerminalRequest>()),
            (
                "terminal/wait_for_exit",
                compile::<acp::WaitForTerminalExitRequest>(),
            ),
            ("terminal/kill", compile::<acp::KillTerminalRequest>()),
        ],
        notifications: vec![
            ("session/update", compile::<acp::SessionNotification>()),
            ("$/cancel_request", compile::<acp::CancelRequestNotification>()),
        ],
    })
}

fn lookup<'a>(table: &'a [(&'static str, Validator)], method: &str) -> Option<&'a Validator> {
    table.iter().find(|(m, _)| *m == method).map(|(_, v)| v)
}

/// The schema's errors for `instance`, `at` prefixed to each path, or `None`.
fn errors(validator: &Validator, instance: &Value, at: &str) -> Option<String> {
    let found = validator.errors(instance);
    (!found.is_empty()).then(|| {
        found
            .iter()
            .take(3)
            .map(|e| format!("{at}{e}"))
            .collect::<Vec<_>>()
            .join("; ")
    })
}

// ---------------------------------------------------------------------------
// What steps outside the schema on purpose
// ---------------------------------------------------------------------------

/// A message allowed to step outside the schema, and why.
struct Allowed {
    /// What it is.
    what: &'static str,
    /// Why it is fine: the real agent's habit (REAL-ACP.md) or the fault that does it.
    why: &'static str,
    /// The fault (in `MOCK_AGENT_FAULTS`) the run must have for it to apply, or `None`
    /// where it applies to every source.
    fault: Option<&'static str>,
    /// Whether the line is this case.
    matches: fn(&str) -> bool,
}

/// Every allowance the test makes: the list of what steps outside the schema that the
/// README gives (section "ACP mode").
const ALLOWED: &[Allowed] = &[
    Allowed {
        what: "a `session/update` of kind `mock_agent_unknown_update`",
        why: "fault `unknown-update`: an update kind no client knows, on purpose \
              (REAL-ACP.md, 'How clients break': they treat an unknown sessionUpdate as fatal)",
        fault: Some("unknown-update"),
        matches: |line| update_kind(line).as_deref() == Some("mock_agent_unknown_update"),
    },
    Allowed {
        what: "a stdout line that is not JSON",
        why: "fault `malformed`: a line that is not JSON, on purpose",
        fault: Some("malformed"),
        matches: |line| serde_json::from_str::<Value>(line).is_err(),
    },
    Allowed {
        what: "a stdout line that is not JSON: the last one, cut in the middle of a message",
        why: "fault `eof`: stdout stops in the middle of a message and the process exits 1 \
              (REAL-ACP.md: the process can die at any point)",
        fault: Some("eof"),
        matches: |line| serde_json::from_str::<Value>(line).is_err(),
    },
    Allowed {
        what: "the response to `session/set_model`",
        why: "a method the schema lacks (REAL-ACP.md: `session/set_model` accepted too; \
              clients of Cursor send it): its result is checked as the schema checks an \
              extension method's (`ExtResponse`), a JSON object",
        fault: None,
        matches: |_| false, // applied by method in `Checker::response`
    },
    Allowed {
        what: "the agent request `cursor/ask_question`",
        why: "Cursor's own request (REAL-ACP.md, 'Agent to client'): checked as an extension \
              request (`ExtRequest`), params a JSON object",
        fault: None,
        matches: |_| false, // applied by method in `Checker::agent_request`
    },
];

fn update_kind(line: &str) -> Option<String> {
    let message: Value = serde_json::from_str(line).ok()?;
    Some(message["params"]["update"]["sessionUpdate"].as_str()?.to_owned())
}

// ---------------------------------------------------------------------------
// Checking a conversation
// ---------------------------------------------------------------------------

/// One line of a conversation, in the order it passed.
enum Said {
    /// A line the test sent.
    Client(String),
    /// A line the agent wrote on stdout (without its newline).
    Agent(String),
}

/// The tally of one source.
#[derive(Default)]
struct Tally {
    runs: usize,
    valid: usize,
    allowed: BTreeMap<&'static str, usize>,
    violations: Vec<String>,
    /// Messages by kind: `result METHOD`, `error`, `request METHOD`,
    /// `notification METHOD`, `update KIND`.
    kinds: BTreeMap<String, usize>,
}

impl Tally {
    fn messages(&self) -> usize {
        self.valid + self.allowed.values().sum::<usize>() + self.violations.len()
    }
}

/// Walks a conversation: the client's requests by id, each agent line checked.
struct Checker<'a> {
    schemas: &'static Schemas,
    faults: &'a str,
    /// The methods of the client's requests not answered yet, by id (JSON text).
    pending: HashMap<String, VecDeque<String>>,
    /// The kind of the last agent message checked.
    kind: String,
}

impl Checker<'_> {
    fn check(conversation: &[Said], faults: &str, tally: &mut Tally, source: &str) {
        let mut checker = Checker {
            schemas: schemas(),
            faults,
            pending: HashMap::new(),
            kind: String::new(),
        };
        tally.runs += 1;
        for said in conversation {
            match said {
                Said::Client(line) => checker.client(line),
                Said::Agent(line) => match checker.agent(line).inspect(|()| {
                    dump(source, line);
                    *tally.kinds.entry(checker.kind.clone()).or_default() += 1;
                }) {
                    Ok(()) => tally.valid += 1,
                    Err(error) => match checker.allowance(line) {
                        Some(allowed) => *tally.allowed.entry(allowed.what).or_default() += 1,
                        None => tally
                            .violations
                            .push(format!("{source}: {error}\n    line: {}", shorten(line))),
                    },
                },
            }
        }
    }

    fn allowance(&self, line: &str) -> Option<&'static Allowed> {
        ALLOWED
            .iter()
            .find(|a| a.fault.is_some_and(|fault| has_fault(self.faults, fault)) && (a.matches)(line))
    }

    fn client(&mut self, line: &str) {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            return;
        };
        if let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) {
            self.pending
                .entry(id.to_string())
                .or_default()
                .push_back(method.to_owned());
        }
    }

    fn agent(&mut self, line: &str) -> Result<(), String> {
        let message: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
        let Some(object) = message.as_object() else {
            return Err("not a JSON object".to_owned());
        };
        if message["jsonrpc"] != "2.0" {
            return Err("`jsonrpc` is not \"2.0\"".to_owned());
        }
        if let Some(id) = object.get("id") {
            if let Some(e) = errors(&self.schemas.request_id, id, "id") {
                return Err(format!("RequestId: {e}"));
            }
        }
        match (object.get("method"), object.get("id")) {
            (Some(method), Some(_)) => {
                let method = method.as_str().ok_or("`method` is not a string")?;
                self.kind = format!("request {method}");
                self.agent_request(method, &message["params"])
            }
            (Some(method), None) => {
                let method = method.as_str().ok_or("`method` is not a string")?;
                self.kind = match message["params"]["update"]["sessionUpdate"].as_str() {
                    Some(kind) if method == "session/update" => format!("update {kind}"),
                    _ => format!("notification {method}"),
                };
                let validator = lookup(&self.schemas.notifications, method)
                    .ok_or_else(|| format!("a notification `{method}` the schema lacks"))?;
                match errors(validator, &message["params"], "params") {
                    Some(e) => Err(format!("{method} (params): {e}")),
                    None => Ok(()),
                }
            }
            (None, Some(id)) => self.response(id, object),
            (None, None) => Err("neither a request, a notification nor a response".to_owned()),
        }
    }

    fn agent_request(&self, method: &str, params: &Value) -> Result<(), String> {
        if method == "cursor/ask_question" {
            // ALLOWED: Cursor's own request, an extension request.
            return if params.is_object() {
                Ok(())
            } else {
                Err("cursor/ask_question: params not an object".to_owned())
            };
        }
        let validator = lookup(&self.schemas.requests, method)
            .ok_or_else(|| format!("an agent request `{method}` the schema lacks"))?;
        match errors(validator, params, "params") {
            Some(e) => Err(format!("{method} (params): {e}")),
            None => Ok(()),
        }
    }

    fn response(&mut self, id: &Value, object: &serde_json::Map<String, Value>) -> Result<(), String> {
        let method = self
            .pending
            .get_mut(&id.to_string())
            .and_then(VecDeque::pop_front);
        let what = method.as_deref().unwrap_or("a request the client did not send");
        self.kind = match (object.contains_key("error"), method.as_deref()) {
            (true, _) => "error".to_owned(),
            (false, Some(method)) => format!("result {method}"),
            (false, None) => "result".to_owned(),
        };
        match (object.get("result"), object.get("error")) {
            (Some(_), Some(_)) => Err(format!("response to {what}: both `result` and `error`")),
            (None, None) => Err(format!("response to {what}: neither `result` nor `error`")),
            (None, Some(error)) => match errors(&self.schemas.error, error, "error") {
                Some(e) => Err(format!("error response to {what}: {e}")),
                None => Ok(()),
            },
            (Some(result), None) => match method.as_deref() {
                // ALLOWED: a method the schema lacks, answered as an extension method.
                Some("session/set_model") => {
                    if result.is_object() {
                        Ok(())
                    } else {
                        Err("session/set_model: result not an object".to_owned())
                    }
                }
                Some(method) => {
                    let validator = lookup(&self.schemas.results, method)
                        .ok_or_else(|| format!("a result to `{method}`, a method the schema lacks"))?;
                    match errors(validator, result, "result") {
                        Some(e) => Err(format!("result of {method}: {e}")),
                        None => Ok(()),
                    }
                }
                // An id the client never asked (or asked fewer times): valid if
                // some response type of the schema takes it (the schema's own
                // `AgentResponse`, an any-of).
                None => {
                    if self.schemas.results.iter().any(|(_, v)| v.is_valid(result)) {
                        Ok(())
                    } else {
                        Err(format!(
                            "response to id {id}, which the client did not ask: no response type takes it"
                        ))
                    }
                }
            },
        }
    }
}

/// With `ACP_SCHEMA_DUMP=FILE`, each valid agent line is appended to FILE with its
/// source (`{"source":...,"line":...}`): to check them with another validator.
fn dump(source: &str, line: &str) {
    let Some(path) = std::env::var_os("ACP_SCHEMA_DUMP") else {
        return;
    };
    let record = json!({"source": source, "line": line}).to_string() + "\n";
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(record.as_bytes()));
}

fn has_fault(faults: &str, name: &str) -> bool {
    faults
        .split(';')
        .any(|f| f.trim().split(':').next() == Some(name))
}

fn shorten(line: &str) -> String {
    if line.len() <= 400 {
        return line.to_owned();
    }
    let mut end = 400;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &line[..end], line.len())
}

/// Fails with the counts of every source and each violation; prints the counts
/// either way (`--nocapture`).
fn verdict(tallies: &[(String, Tally)]) {
    let mut table = String::from("source: runs, messages (valid + allowed + violations)\n");
    let mut violations = Vec::new();
    let mut total = 0;
    for (source, tally) in tallies {
        total += tally.messages();
        table += &format!(
            "  {source}: {} runs, {} messages ({} valid, {} allowed, {} violations)\n",
            tally.runs,
            tally.messages(),
            tally.valid,
            tally.allowed.values().sum::<usize>(),
            tally.violations.len()
        );
        for (what, count) in &tally.allowed {
            let why = ALLOWED.iter().find(|a| a.what == *what).map_or("", |a| a.why);
            table += &format!("      allowed {count}x: {what} ({why})\n");
        }
        violations.extend(tally.violations.iter().cloned());
    }
    table += &format!("  total: {total} messages\n");
    eprintln!("{table}");
    assert!(
        violations.is_empty(),
        "{} messages outside the ACP schema:\n{}\n\n{table}",
        violations.len(),
        violations.join("\n")
    );
    assert!(total > 0, "no message validated\n{table}");
}

fn name(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
        .trim_start_matches("../")
        .to_owned()
}

fn acp_cassettes() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("cassettes/acp"))
        .expect("cassettes/acp/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cassette"))
        .collect();
    files.sort();
    files
}

// ---------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------

/// Hand-written agent lines, the method the client asked with the line's id (if a
/// response), and whether the schema takes them. Each rejection was checked against
/// the protocol's `schema.json` with another validator too.
const CASES: &[(Option<&str>, &str, bool)] = &[
    (
        Some("session/prompt"),
        r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"finished"}}"#,
        false,
    ),
    (
        None,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}}"#,
        false,
    ),
    (
        None,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"txt","text":"hi"}}}}"#,
        false,
    ),
    (
        None,
        r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c"}}}"#,
        false,
    ),
    (
        None,
        r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c"},"options":[{"optionId":"a","name":"A","kind":"allow_sometimes"}]}}"#,
        false,
    ),
    (
        None,
        r#"{"jsonrpc":"2.0","id":9,"error":{"code":"bad","message":"x"}}"#,
        false,
    ),
    (
        None,
        r#"{"jsonrpc":"1.0","method":"session/update","params":{}}"#,
        false,
    ),
    (
        None,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"mock_agent_unknown_update"}}}"#,
        false,
    ),
    (
        None,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":7,"title":"t"}}}"#,
        false,
    ),
    (
        Some("initialize"),
        r#"{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":70000}}"#,
        false,
    ),
    (
        Some("session/new"),
        r#"{"jsonrpc":"2.0","id":3,"result":{"modes":null}}"#,
        false,
    ),
    (
        Some("session/set_mode"),
        r#"{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"m"}}"#,
        false,
    ),
    (None, r#"{"jsonrpc":"2.0","id":{"a":1},"result":{}}"#, false),
    (
        None,
        r#"{"jsonrpc":"2.0","method":"session/whatever","params":{}}"#,
        false,
    ),
    // What the schema takes, Cursor's habits among them.
    (
        None,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"call-1\nfc_1","title":"`ls`","kind":"execute","status":"pending","rawInput":{"command":"ls"}}}}"#,
        true,
    ),
    (
        None,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c","status":"failed","rawOutput":{"exitCode":1}}}}"#,
        true,
    ),
    (
        Some("session/new"),
        r#"{"jsonrpc":"2.0","id":3,"result":{"sessionId":"s","models":{"currentModelId":"auto","availableModels":[{"modelId":"auto","name":"Auto"}]}}}"#,
        true,
    ),
    (
        None,
        r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32099,"message":"nope","data":{"why":"test"}}}"#,
        true,
    ),
    (
        None,
        r#"{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"x"}}"#,
        true,
    ),
];

#[test]
fn the_validator_takes_and_rejects_what_the_schema_does() {
    // Without this, a validator that takes anything would pass every source.
    for (method, line, valid) in CASES {
        let mut conversation = Vec::new();
        if let Some(method) = method {
            conversation.push(Said::Client(format!(
                r#"{{"jsonrpc":"2.0","id":3,"method":"{method}","params":{{}}}}"#
            )));
        }
        conversation.push(Said::Agent((*line).to_owned()));
        let mut tally = Tally::default();
        Checker::check(&conversation, "", &mut tally, "hand-written");
        assert_eq!(tally.valid == 1, *valid, "{line}: {:?}", tally.violations);
    }
    // An allowance applies only with its fault.
    let mut tally = Tally::default();
    Checker::check(
        &[Said::Agent(CASES[7].1.to_owned())],
        "unknown-update:at=tool_call",
        &mut tally,
        "hand-written",
    );
    assert_eq!((tally.valid, tally.violations.len()), (0, 0));
    assert_eq!(tally.allowed.len(), 1);
}

#[test]
fn the_default_conversation_conforms() {
    let mut tally = Tally::default();
    let conversation = default_run(&[], "", PATIENCE);
    // A mode or value that does not exist, a prompt to a session nobody made: -32602.
    for id in ["bad-mode", "bad-option", "bad-session"] {
        let answered = conversation.iter().find_map(|said| match said {
            Said::Agent(line) => serde_json::from_str::<Value>(line)
                .ok()
                .filter(|m| m["id"] == id && m.get("method").is_none()),
            Said::Client(_) => None,
        });
        assert_eq!(
            answered.as_ref().map(|m| &m["error"]["code"]),
            Some(&json!(-32602)),
            "{id}: {answered:?}"
        );
    }
    Checker::check(&conversation, "", &mut tally, "default");
    // Every kind of message the conversation is there to exercise was exercised.
    for kind in [
        "result initialize",
        "result authenticate",
        "result session/new",
        "result session/prompt",
        "result session/load",
        "result session/set_mode",
        "result session/set_config_option",
        "result session/set_model",
        "error",
        "request session/request_permission",
        "notification $/cancel_request",
        "update available_commands_update",
        "update agent_message_chunk",
        "update user_message_chunk",
        "update tool_call",
        "update tool_call_update",
        "update usage_update",
        "update session_info_update",
        "request fs/read_text_file",
        "request fs/write_text_file",
        "request terminal/create",
        "request terminal/wait_for_exit",
        "request terminal/output",
        "request terminal/release",
    ] {
        assert!(tally.kinds.contains_key(kind), "no `{kind}` in {:?}", tally.kinds);
    }
    verdict(&[("default (built-in source)".to_owned(), tally)]);
}

#[test]
fn every_curated_acp_cassette_conforms() {
    let mut tallies = Vec::new();
    for cassette in acp_cassettes() {
        let path = cassette.to_string_lossy().into_owned();
        let mut tally = Tally::default();
        let source = name(&cassette);
        Checker::check(
            &recorded_run(&cassette, &[("MOCK_AGENT_CASSETTE", &path)]),
            "",
            &mut tally,
            &source,
        );
        tallies.push((source, tally));
    }
    assert!(tallies.len() >= 6, "the curated ACP cassettes are found");
    verdict(&tallies);
}

#[test]
fn print_mode_cassettes_told_through_acp_conform() {
    let mut tallies = Vec::new();
    for cassette in crate::support::curated() {
        let path = cassette.to_string_lossy().into_owned();
        let mut tally = Tally::default();
        let source = format!("{} told through ACP", name(&cassette));
        Checker::check(
            &default_run(&[("MOCK_AGENT_CASSETTE", &path)], "", PATIENCE),
            "",
            &mut tally,
            &source,
        );
        tallies.push((source, tally));
    }
    verdict(&tallies);
}

#[test]
fn generated_conversations_conform() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut tally = Tally::default();
    for seed in 0..40u64 {
        // The client's side: the conversation the seed generates, saved.
        let cassette = dir.path().join(format!("{seed}.cassette"));
        let saved = std::process::Command::new(bin())
            .args(["generate", "--acp", "--seed", &seed.to_string(), "--out"])
            .arg(&cassette)
            .env_clear()
            .output()
            .expect("runs");
        crate::support::assert_said(&saved, 0);
        let seed = seed.to_string();
        Checker::check(
            &recorded_run(&cassette, &[("MOCK_AGENT_GENERATE", &seed)]),
            "",
            &mut tally,
            &format!("MOCK_AGENT_GENERATE={seed}"),
        );
    }
    verdict(&[(
        "generated conversations (MOCK_AGENT_GENERATE, seeds 0-39)".to_owned(),
        tally,
    )]);
}

/// Server mode's faults that still send messages, each on the default conversation.
const FAULTS: &[&str] = &[
    r#"error:method=session/new,code=-32603,message="Failed to initialize session services""#,
    r#"error:method=session/prompt,code=-32099,message=nope,data={"why":"test"}"#,
    "no-response:method=authenticate",
    "late:method=session/new,ms=300",
    "stop-reason:reason=refusal",
    "stop-reason:reason=max_tokens",
    "stop-reason:reason=max_turn_requests",
    "crash:at=tool_call,signal=TERM",
    "crash:at=asking,code=1,text=boom",
    "eof:after=3,byte=25",
    "malformed:after=2",
    r#"stderr:text="[warn] slow",at=tool_call"#,
    "stderr-flood:bytes=200000",
    "drop:kind=tool_call_update",
    "duplicate:at=tool_call",
    "duplicate:at=session/request_permission",
    "reorder",
    "unknown-update:at=agent_message_chunk",
    "unknown-field",
    "early-update",
    "huge:bytes=300000,at=agent_message_chunk",
    "chunk:size=7",
    "chunk:random",
    "coalesce",
    "unoffered-tools",
    "auth-required",
    "authenticate-hangs",
    "session-services-failed",
    "crash-on-initialize",
    "crash-while-asking",
    "refusal",
    "max-tokens",
];

#[test]
fn server_mode_faults_that_still_send_messages_conform() {
    let mut tallies = Vec::new();
    for faults in FAULTS {
        // A request never answered is waited for only so long.
        let patience = if has_fault(faults, "no-response") || has_fault(faults, "authenticate-hangs") {
            Duration::from_secs(1)
        } else {
            PATIENCE
        };
        let mut tally = Tally::default();
        let source = format!("MOCK_AGENT_FAULTS='{faults}'");
        Checker::check(&default_run(&[], faults, patience), faults, &mut tally, &source);
        tallies.push((source, tally));
    }
    verdict(&tallies);
}
