//! The curated ACP cassettes (`cassettes/acp/`) replayed through `mock-agent acp` as
//! a client drives it: each recorded client line (an `in` frame) is sent when the
//! recording sent it, its request id replaced by a fresh one of the test's own (a
//! string, `"c-1"`, as SDK clients use), the agent's requests answered as recorded;
//! each recorded agent line (an `out` frame) must come back byte for byte, but for the
//! live ids of the responses; stderr and the ending (exit code, signal) must be as
//! recorded. Each cassette must also lint clean of errors. One snapshot per cassette
//! shows the exchanges as they were played.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use harness::dialects::cursor_acp::rpc::{self, Kind, Message};
use harness::frames::{Exit, Frame, Stream};

use crate::support::{bin, mock, root};

/// How long the test waits for a line or for the end before it calls the mock stuck.
const PATIENCE: Duration = Duration::from_secs(30);

#[test]
fn each_acp_cassette_lints_clean_and_replays_as_recorded() {
    insta::glob!("../cassettes/acp", "*.cassette", |path| {
        let relative = format!(
            "cassettes/acp/{}",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        let lint = mock().args(["lint", &relative]).output().expect("runs");
        assert_eq!(
            lint.status.code(),
            Some(0),
            "{relative} lints with errors:\n{}",
            String::from_utf8_lossy(&lint.stdout)
        );
        let transcript = replay(path);
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("snapshots/acp");
        settings.set_prepend_module_to_snapshot(false);
        settings.set_input_file(path);
        settings.add_filter(r"(?m)^ *\d+ ms ", "[t] ");
        settings.bind(|| insta::assert_snapshot!("exchanges", transcript));
    });
}

/// Conversations whose agent reads, writes and runs through its client (generated:
/// the client offering files and a terminal, sometimes refusing) lint clean of
/// errors and warnings, and replay as recorded to a client that answers as the
/// recorded one did.
#[test]
fn conversations_with_the_client_s_files_and_terminals_lint_clean_and_replay() {
    use harness::dialects::cursor_acp::generate::{from_seed, ConversationConfig};
    let dir = tempfile::tempdir().expect("temp dir");
    let config = ConversationConfig::default();
    let mut played = std::collections::BTreeSet::new();
    for seed in 0..120u64 {
        let transcript = from_seed(seed, &config);
        let asks: Vec<&str> = ["fs/read_text_file", "fs/write_text_file", "terminal/create"]
            .into_iter()
            .filter(|m| {
                transcript
                    .messages
                    .iter()
                    .any(|e| e.line.contains(&format!(r#""method":"{m}""#)))
            })
            .collect();
        if asks.is_empty() || played.len() >= 3 && asks.iter().all(|m| played.contains(*m)) {
            continue;
        }
        played.extend(asks);
        let path = dir.path().join(format!("{seed}.cassette"));
        transcript.write_cassette(&path).expect("writes");
        let lint = mock().arg("lint").arg(&path).output().expect("runs");
        let report = String::from_utf8_lossy(&lint.stdout);
        assert_eq!(lint.status.code(), Some(0), "seed {seed}:\n{report}");
        assert!(
            report.contains(" 0 error(s), 0 warning(s)"),
            "seed {seed}:\n{report}"
        );
        let exchanges = replay(&path);
        assert!(
            exchanges.contains("terminal/") || exchanges.contains("fs/"),
            "seed {seed}:\n{exchanges}"
        );
    }
    assert_eq!(
        played.len(),
        3,
        "each request of the client's tools linted: {played:?}"
    );
}

/// Plays the cassette at `path` against `mock-agent acp` as its recorded client; the
/// exchanges as played, one line each, with their live times.
fn replay(path: &Path) -> String {
    let mut reader = harness::cassette::open(path).expect("opens");
    assert!(
        reader.header().is_some_and(|h| h.invocation.acp),
        "{}: not an ACP cassette",
        path.display()
    );
    let journal = tempfile::NamedTempFile::new().expect("temp file");
    let mut agent = Agent::spawn(path, journal.path());
    // Recorded request ids of the client, and the live ones the test sent instead.
    let mut live_ids: HashMap<String, String> = HashMap::new();
    let mut expected_stderr = Vec::new();
    let mut transcript = Vec::new();
    let mut ending = None;
    for frame in reader.by_ref() {
        match frame.expect("a valid cassette") {
            Frame::Line(line) if line.stream == Stream::Stdin => {
                let sent = match Message::parse(&line.bytes) {
                    Some(message) if message.kind == Kind::Request => {
                        let live = format!("\"c-{}\"", live_ids.len() + 1);
                        live_ids.insert(message.id_text().to_owned(), live.clone());
                        rpc::with_id(&line.bytes, &live)
                    }
                    _ => line.bytes,
                };
                agent.send(&sent);
                transcript.push(agent.stamp(&describe(Direction::Client, &sent)));
            }
            Frame::Line(line) if line.stream == Stream::Stdout => {
                let expected = match Message::parse(&line.bytes) {
                    Some(message) if message.kind == Kind::Response => {
                        match live_ids.get(message.id_text()) {
                            Some(live) => rpc::with_id(&line.bytes, live),
                            None => line.bytes,
                        }
                    }
                    _ => line.bytes,
                };
                let got = agent.receive(&expected);
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&expected),
                    "{}: the mock's line differs from the recording's",
                    path.display()
                );
                transcript.push(agent.stamp(&describe(Direction::Agent, &got)));
            }
            Frame::Line(line) => {
                transcript.push(agent.stamp(&format!("<- stderr {}", String::from_utf8_lossy(&line.bytes))));
                expected_stderr.extend_from_slice(&line.bytes);
                expected_stderr.push(b'\n');
            }
            Frame::End(end) => ending = Some(end.exit),
            Frame::Stall { .. } | Frame::CloseStdout { .. } => {}
        }
    }
    let recorded = ending.expect("the cassette has its end line");
    let (exit, rest, stderr) = agent.finish();
    assert_eq!(exit, recorded, "{}: the mock ended otherwise", path.display());
    assert_eq!(
        String::from_utf8_lossy(&rest),
        "",
        "{}: the mock wrote more than the recording",
        path.display()
    );
    assert_eq!(
        String::from_utf8_lossy(&stderr),
        String::from_utf8_lossy(&expected_stderr),
        "{}: stderr",
        path.display()
    );
    let entries = harness::journal::read(journal.path()).expect("journal");
    let conversation = entries
        .last()
        .and_then(|e| e.acp.as_ref())
        .expect("a journaled conversation");
    assert_eq!(
        conversation.divergences,
        Vec::<String>::new(),
        "{}: the replay diverged",
        path.display()
    );
    transcript.push(format!("== {recorded}"));
    transcript.join("\n") + "\n"
}

/// `mock-agent acp` as a child, its stdout and stderr read on threads of their own.
struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Vec<u8>>,
    stderr: Option<std::thread::JoinHandle<Vec<u8>>>,
    started: Instant,
}

impl Agent {
    fn spawn(cassette: &Path, journal: &Path) -> Agent {
        let mut cmd = std::process::Command::new(bin());
        harness::run::child::without_mock_env(&mut cmd);
        cmd.current_dir(root())
            .arg("acp")
            .env("MOCK_AGENT_CASSETTE", cassette)
            .env("MOCK_AGENT_JOURNAL", journal)
            .env("MOCK_AGENT_STRICT", "1");
        let mut child = crate::support::spawn_piped(&mut cmd);
        let lines = crate::support::line_by_line(child.stdout.take().expect("stdout"), |line| line);
        let mut stderr = child.stderr.take().expect("stderr");
        let stderr = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stderr.read_to_end(&mut bytes);
            bytes
        });
        Agent {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: Some(stderr),
            started: Instant::now(),
        }
    }

    /// `text` with the time since the start.
    fn stamp(&self, text: &str) -> String {
        format!("{:>5} ms {text}", self.started.elapsed().as_millis())
    }

    fn send(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line).expect("writes to the mock");
        stdin.write_all(b"\n").expect("writes to the mock");
        stdin.flush().expect("flushes");
    }

    /// The mock's next line, without its newline.
    fn receive(&mut self, expected: &[u8]) -> Vec<u8> {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(mut line) => {
                assert_eq!(
                    line.pop(),
                    Some(b'\n'),
                    "a line without its newline: {}",
                    String::from_utf8_lossy(&line)
                );
                line
            }
            Err(_) => panic!(
                "no line from the mock within {PATIENCE:?}; expected {}",
                String::from_utf8_lossy(expected)
            ),
        }
    }

    /// Closes stdin and waits for the end: how it ended, what more it wrote on stdout,
    /// and all of its stderr.
    fn finish(mut self) -> (Exit, Vec<u8>, Vec<u8>) {
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("waits") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the mock did not end within {PATIENCE:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        };
        // The channel ends with stdout: every line the reader read.
        let rest: Vec<u8> = self.lines.iter().flatten().collect();
        let stderr = self
            .stderr
            .take()
            .map(|t| t.join().expect("stderr thread"))
            .unwrap_or_default();
        (exit_of(status), rest, stderr)
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        // A failed assertion leaves no mock behind.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn exit_of(status: std::process::ExitStatus) -> Exit {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Exit::Code(code),
        (None, Some(number)) => harness::frames::Signal::all()
            .find(|s| s.number() == number)
            .map_or(Exit::Code(128 + number), Exit::Signal),
        (None, None) => Exit::Code(-1),
    }
}

/// Who wrote a line.
#[derive(Clone, Copy)]
enum Direction {
    Client,
    Agent,
}

/// One line of the conversation, readably: `-> session/prompt "c-3" "Run: echo hello"`,
/// `<- session/update agent_message_chunk "Printed hello."`, `-> answer 0 allow-once`.
fn describe(direction: Direction, line: &[u8]) -> String {
    let arrow = match direction {
        Direction::Client => "->",
        Direction::Agent => "<-",
    };
    let (Some(message), Ok(value)) = (Message::parse(line), serde_json::from_slice::<Value>(line)) else {
        return format!("{arrow} (not JSON-RPC) {}", String::from_utf8_lossy(line));
    };
    let id = message.id_text();
    let params = &value["params"];
    let text = match (message.kind, direction) {
        (Kind::Request, Direction::Client) => format!(
            "{} {id}{}",
            message.method(),
            client_detail(message.method(), params)
        ),
        (Kind::Request, Direction::Agent) => format!(
            "request {} {id}{}",
            message.method(),
            agent_request_detail(params)
        ),
        (Kind::Notification, _) if message.method() == "session/update" => {
            format!("session/update {}", update_detail(&params["update"]))
        }
        (Kind::Notification, _) => message.method().to_owned(),
        (Kind::Response, Direction::Client) => format!("answer {id} {}", answer_detail(&value["result"])),
        (Kind::Response, Direction::Agent) => match value.get("error") {
            Some(error) => format!(
                "error {id} {} {}{}",
                error["code"],
                error["message"].as_str().unwrap_or_default(),
                error["data"]["message"]
                    .as_str()
                    .map(|m| format!(" ({m})"))
                    .unwrap_or_default()
            ),
            None => format!("result {id} {}", result_detail(&value["result"])),
        },
    };
    format!("{arrow} {text}")
}

fn client_detail(method: &str, params: &Value) -> String {
    let prompt = || -> String {
        params["prompt"]
            .as_array()
            .map(|blocks| blocks.iter().filter_map(|b| b["text"].as_str()).collect())
            .unwrap_or_default()
    };
    match method {
        "session/prompt" => format!(" {:?}", prompt()),
        "session/new" => format!(" cwd {}", params["cwd"].as_str().unwrap_or_default()),
        "session/load" => format!(" session {}", params["sessionId"].as_str().unwrap_or_default()),
        "authenticate" => format!(" {}", params["methodId"].as_str().unwrap_or_default()),
        _ => String::new(),
    }
}

fn agent_request_detail(params: &Value) -> String {
    let title = params["toolCall"]["title"].as_str().unwrap_or_default();
    let options: Vec<&str> = params["options"]
        .as_array()
        .map(|o| o.iter().filter_map(|o| o["optionId"].as_str()).collect())
        .unwrap_or_default();
    if options.is_empty() {
        String::new()
    } else {
        format!(" {title} [{}]", options.join(", "))
    }
}

fn update_detail(update: &Value) -> String {
    let kind = update["sessionUpdate"].as_str().unwrap_or("?");
    let field = |name: &str| update[name].as_str().unwrap_or_default().to_owned();
    let detail = match kind {
        "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk" => {
            format!("{:?}", update["content"]["text"].as_str().unwrap_or_default())
        }
        "tool_call" => format!("{} {} {}", field("kind"), field("status"), field("title")),
        "tool_call_update" => {
            let mut parts = vec![field("status")];
            if let Some(content) = update["content"].as_array() {
                let types: Vec<&str> = content.iter().filter_map(|c| c["type"].as_str()).collect();
                parts.push(format!("content [{}]", types.join(", ")));
            }
            if update.get("rawOutput").is_some() {
                parts.push(format!("rawOutput {}", update["rawOutput"]));
            }
            parts.join(" ")
        }
        "plan" => update["entries"]
            .as_array()
            .map(|entries| {
                entries
                    .iter()
                    .map(|e| {
                        format!(
                            "{} ({})",
                            e["content"].as_str().unwrap_or_default(),
                            e["status"].as_str().unwrap_or_default()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default(),
        "available_commands_update" => update["availableCommands"]
            .as_array()
            .map(|c| {
                c.iter()
                    .filter_map(|c| c["name"].as_str())
                    .map(|n| format!("/{n}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default(),
        _ => String::new(),
    };
    format!("{kind} {detail}").trim_end().to_owned()
}

fn answer_detail(result: &Value) -> String {
    let outcome = &result["outcome"];
    match (outcome["outcome"].as_str(), outcome["optionId"].as_str()) {
        (Some("selected"), Some(option)) => option.to_owned(),
        (Some(other), _) => other.to_owned(),
        _ => result.to_string(),
    }
}

/// A result: its stop reason, or itself when short, or its keys.
fn result_detail(result: &Value) -> String {
    if let Some(reason) = result["stopReason"].as_str() {
        return format!("stopReason {reason}");
    }
    let text = result.to_string();
    match result.as_object() {
        Some(map) if text.len() > 60 => {
            let keys: Vec<&str> = map.keys().map(String::as_str).collect();
            format!("{{{}}}", keys.join(", "))
        }
        _ => text,
    }
}
