//! What a correct client of `codex app-server` concludes, worked out from the very
//! lines the server writes: for a case, from the conversation a careful SDK client
//! has with the pure player ([`conversation`]: initialize, start a thread, one turn,
//! every approval accepted), faults acting as in the process; for a run, from what
//! the journal shows the server wrote ([`from_lines`]).
//!
//! A turn succeeded when `turn/completed` arrives with status `completed` before the
//! stream ends: its answer is the last `agentMessage` (the Python SDK's
//! `final_response`), its segments every agent message in order. It failed when the
//! turn completes `failed` or `interrupted`, or the server ends, cuts a line or stalls
//! for ever before `turn/completed`. A line that is not JSON fails every waiter of the
//! Python SDK (`Invalid JSON-RPC line`) and a huge line may pass a reader's buffer:
//! there either conclusion is right ([`judged`]).

use serde_json::{json, Value};

use crate::dialects::codex::app_server::{Next, Options, Player};
use crate::dialects::codex::faults::{CodexFault, Injector, Out};
use crate::dialects::codex::session::Session;
use crate::dialects::codex::wire::rpc::{
    client_notifications, decisions, items, methods, notifications, status, RESULT,
};
use crate::expect::Expectation;
use crate::frames::Exit;
use crate::journal::{Conversation, Entry, IN, OUT};

/// The prompt the careful client sends.
pub const PROMPT: &str = "hi";

/// The client's lines, in the order a careful SDK client sends them before its turn
/// (ids as the Python SDK's are numbered here: 1, 2, 3).
fn opening() -> Vec<Value> {
    vec![
        json!({"method": methods::INITIALIZE, "id": 1, "params": {"clientInfo": {"name": "codex_python_sdk",
            "title": "Codex Python SDK", "version": crate::dialects::codex::wire::VERSION},
            "capabilities": {"experimentalApi": true}}}),
        json!({"method": client_notifications::INITIALIZED}),
        json!({"method": methods::THREAD_START, "id": 2, "params": {}}),
    ]
}

/// The conversation a careful client has with a server of `session` with `faults`
/// (seeded by `seed`): what the server writes, in order, ending with how it ends, and
/// the client's lines, each with how many of the server's outs came before it (for a
/// recording).
pub fn conversation(
    session: &Session,
    faults: &[CodexFault],
    seed: u64,
) -> (Vec<Out>, Vec<(usize, Vec<u8>)>) {
    let mut session = session.clone();
    let mut injector = Injector::app_server(faults.to_vec());
    let mut options = Options::new("/home/user/.codex", "/work", seed);
    options.asks_always = injector.asks_always();
    injector.prepare(&mut session);
    let mut sim = Sim {
        player: Player::new(session, options),
        injector,
        outs: Vec::new(),
        sent: Vec::new(),
        ended: false,
    };
    let mut thread = None;
    for line in opening() {
        thread = sim.feed(&line).or(thread);
    }
    if let Some(thread) = thread {
        sim.feed(
            &json!({"method": methods::TURN_START, "id": 3, "params": {"threadId": thread,
            "input": [{"type": "text", "text": PROMPT}]}}),
        );
    }
    while !sim.ended {
        match sim.player.step() {
            Next::Send(line) => sim.write(line),
            Next::Ask { id, line } => {
                sim.write(line);
                if !sim.ended {
                    sim.feed(&json!({"id": id, RESULT: {"decision": decisions::ACCEPT}}));
                }
            }
            Next::Waiting | Next::Done => break,
        }
    }
    // The client closes stdin: the server ends (exit 0), the faults not yet reached
    // acting there.
    if !sim.ended {
        let end = sim.injector.end();
        sim.push(end);
    }
    if !sim.ended {
        sim.outs.push(Out::End(Exit::Code(0)));
    }
    (sim.outs, sim.sent)
}

/// A careful client talking with the pure player.
struct Sim {
    player: Player,
    injector: Injector,
    outs: Vec<Out>,
    sent: Vec<(usize, Vec<u8>)>,
    /// The server ended (or stalls for ever): nothing more comes.
    ended: bool,
}

impl Sim {
    /// Sends `line`; the thread id its answer names, if any.
    fn feed(&mut self, line: &Value) -> Option<Value> {
        if self.ended {
            return None;
        }
        let bytes = line.to_string().into_bytes();
        self.sent.push((self.outs.len(), bytes.clone()));
        let mut thread = None;
        for reply in self.player.feed(&bytes).lines {
            if let Ok(value) = serde_json::from_slice::<Value>(&reply) {
                thread = thread.or_else(|| value.pointer("/result/thread/id").cloned());
            }
            self.write(reply);
        }
        thread
    }

    /// The server writes `line`, through the faults.
    fn write(&mut self, line: Vec<u8>) {
        if self.ended {
            return;
        }
        let outs = self.injector.line(line);
        self.push(outs);
    }

    fn push(&mut self, outs: Vec<Out>) {
        for out in outs {
            if self.ended {
                return;
            }
            self.ended |= matches!(out, Out::End(_) | Out::Cut(_) | Out::Stall(None));
            self.outs.push(out);
        }
    }
}

/// What a careful client concludes from what the server wrote (`outs`, in order),
/// and the agent messages in order (empty on a failure).
pub fn conclude(outs: &[Out]) -> (Expectation, Vec<String>) {
    let mut texts = Vec::new();
    for out in outs {
        match out {
            Out::Line(line) => {
                if let Some(ended) = read(line, &mut texts) {
                    return ended;
                }
            }
            Out::End(_) | Out::Cut(_) | Out::Stall(None) => break,
            Out::Stall(Some(_)) | Out::Stderr(_) => {}
        }
    }
    (Expectation::Failure, Vec::new())
}

/// [`conclude`] from the lines a run's journal shows the server wrote (a cut line,
/// written without its newline, is kept as written and reads as no JSON).
pub fn from_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> (Expectation, Vec<String>) {
    let mut texts = Vec::new();
    for line in lines {
        if let Some(ended) = read(line.as_bytes(), &mut texts) {
            return ended;
        }
    }
    (Expectation::Failure, Vec::new())
}

/// Reads one line of the server's; `Some` when the turn ended there.
fn read(line: &[u8], texts: &mut Vec<String>) -> Option<(Expectation, Vec<String>)> {
    let value = serde_json::from_slice::<Value>(line).ok()?;
    match value.get("method").and_then(Value::as_str)? {
        notifications::ITEM_COMPLETED
            if value.pointer("/params/item/type").and_then(Value::as_str) == Some(items::AGENT_MESSAGE) =>
        {
            if let Some(text) = value.pointer("/params/item/text").and_then(Value::as_str) {
                texts.push(text.to_owned());
            }
            None
        }
        notifications::TURN_COMPLETED => {
            if value.pointer("/params/turn/status").and_then(Value::as_str) == Some(status::COMPLETED) {
                let answer = texts.last().cloned().unwrap_or_default();
                Some((Expectation::Success { answer }, std::mem::take(texts)))
            } else {
                Some((Expectation::Failure, Vec::new()))
            }
        }
        _ => None,
    }
}

/// The lines the server wrote in a conversation, in order.
pub fn written(conversation: &Conversation) -> impl Iterator<Item = &str> {
    conversation
        .messages
        .iter()
        .filter(|m| m.dir == OUT)
        .map(|m| m.line.as_str())
}

/// Whether the case's verdict stands: not when a fault breaks what an SDK can read.
pub fn judged(faults: &[CodexFault]) -> bool {
    !crate::faults::lines::unreadable(faults, None)
}

/// The server's requests in `entry`'s conversation that the client never answered:
/// each one's method and id.
pub fn unanswered(entry: &Entry) -> Vec<(String, Value)> {
    let Some(conversation) = &entry.acp else {
        return Vec::new();
    };
    let mut asked: Vec<(String, Value)> = Vec::new();
    for message in &conversation.messages {
        let Ok(value) = serde_json::from_str::<Value>(&message.line) else {
            continue;
        };
        let (method, id) = (value.get("method").and_then(Value::as_str), value.get("id"));
        match (message.dir.as_str(), method, id) {
            (OUT, Some(method), Some(id)) => asked.push((method.to_owned(), id.clone())),
            (IN, None, Some(id)) => asked.retain(|(_, asked)| asked != id),
            _ => {}
        }
    }
    asked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::codex::faults::{parse_app_server, APP_SERVER_FROM_ENV};
    use crate::dialects::codex::session::default_session;

    fn expect(spec: &str) -> Expectation {
        let faults = parse_app_server(spec, APP_SERVER_FROM_ENV).expect("faults");
        conclude(&conversation(&default_session("/work"), &faults, 0).0).0
    }

    #[test]
    fn the_default_session_answers_and_failures_fail() {
        assert_eq!(
            expect(""),
            Expectation::Success {
                answer: "Created made.txt and notes.md.".into()
            }
        );
        assert!(matches!(expect("approval"), Expectation::Success { .. }));
        let placed = ["exit:at=commandExecution", "stall"];
        for spec in crate::dialects::codex::faults::TURN_FAILURES
            .iter()
            .chain(&placed)
        {
            assert_eq!(expect(spec), Expectation::Failure, "{spec}");
        }
        for spec in [
            "unknown",
            "unknown:kind=item,at=turn/completed",
            "stderr:text=x",
            "exit:after=999",
        ] {
            assert!(matches!(expect(spec), Expectation::Success { .. }), "{spec}");
        }
    }

    /// The server's lines of a conversation, as labels (method; item type and status;
    /// thread status), without the handshake's two notifications (whose place among
    /// the client's requests is a race in the real server).
    fn labels<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Vec<String> {
        lines
            .into_iter()
            .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
            .filter_map(|v| {
                let kind = v["method"].as_str().unwrap_or(RESULT).to_owned();
                if kind == notifications::CONFIG_WARNING
                    || kind == notifications::REMOTE_CONTROL_STATUS_CHANGED
                {
                    return None;
                }
                let params = &v["params"];
                Some(match (params.get("item"), params.get("status")) {
                    (Some(item), _) => format!("{kind} {} {}", item["type"], item["status"]),
                    (None, Some(status)) => format!("{kind} {status}"),
                    _ => kind,
                })
            })
            .collect()
    }

    /// The player's telling of each real recording's session, to the careful client
    /// (the approval recording asked, as `untrusted` asks), is the real server's
    /// conversation, the usage and rate limits after each model call included.
    #[test]
    fn the_player_tells_a_real_recording_s_session_as_the_real_server_did() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../cassettes/codex-app-server/");
        for (name, faults) in [("real-turn", ""), ("real-approval-accept", "approval")] {
            let path = std::path::PathBuf::from(format!("{dir}{name}.cassette"));
            let session = super::super::recording::open_session(&path).expect("a session");
            let faults = parse_app_server(faults, APP_SERVER_FROM_ENV).expect("faults");
            let (outs, _) = conversation(&session, &faults, 0);
            let played = labels(outs.iter().filter_map(|o| match o {
                Out::Line(line) => Some(line.as_slice()),
                _ => None,
            }));
            let recording = crate::dialects::codex::recording::Recording::open(&path).expect("opens");
            let recorded = labels(recording.stdout.iter().map(Vec::as_slice));
            assert_eq!(played, recorded, "{name}");
            // Each call's usage as recorded (the recordings' calls used the same).
            let usage = |lines: Vec<&[u8]>| -> Vec<Value> {
                lines
                    .into_iter()
                    .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
                    .filter(|v| v["method"] == notifications::TOKEN_USAGE_UPDATED)
                    .map(|v| {
                        json!([
                            v["params"]["tokenUsage"]["total"],
                            v["params"]["tokenUsage"]["last"]
                        ])
                    })
                    .collect()
            };
            let played = usage(
                outs.iter()
                    .filter_map(|o| match o {
                        Out::Line(line) => Some(line.as_slice()),
                        _ => None,
                    })
                    .collect(),
            );
            assert_eq!(
                played,
                usage(recording.stdout.iter().map(Vec::as_slice).collect()),
                "{name}"
            );
        }
    }

    #[test]
    fn the_approval_fault_asks_and_the_careful_client_answers() {
        let faults = parse_app_server("approval", APP_SERVER_FROM_ENV).expect("faults");
        let (outs, sent) = conversation(&default_session("/work"), &faults, 0);
        let asked = outs
            .iter()
            .any(|o| matches!(o, Out::Line(l) if String::from_utf8_lossy(l).contains("requestApproval")));
        assert!(asked);
        assert!(sent
            .iter()
            .any(|(_, l)| String::from_utf8_lossy(l).contains("\"decision\"")));
    }
}
