//! What a correct ACP client concludes from a conversation and its faults.
//!
//! A correct client routes updates by `sessionId`, as editors do: its answer is the
//! text of the `agent_message_chunk`s of its turns, of the session each prompt names.
//! A turn is a success when the prompt is answered `stopReason: end_turn`; an error
//! response, another stop reason, no answer, or the agent ending first is a failure
//! the client must report. The faults act through the same [`Injector`] the mock
//! uses, on the same messages in the same order.
//!
//! Before a run, [`expectation`] plays the canonical client (initialize, session/new,
//! one prompt, every permission allowed). After it, [`expectation_of_run`] plays the
//! requests the client actually sent (the journal's conversation: `authenticate`,
//! `session/load`, `session/set_mode`, extension methods, several prompts, in its
//! order), so that the faults act where they acted in the run and the expectation is
//! one the client can meet:
//!
//! - with prompts: a success when every prompt the client did not cancel itself
//!   (`session/cancel`) named a session the agent opened (`session/new`,
//!   `session/load` answered with a result) and ended `end_turn`; errors to other
//!   requests (an extension method the agent does not know, a `session/load` the
//!   client falls back from) are the client's to shrug off;
//! - without: a failure when a request was answered with an error, not answered, or
//!   the agent ended (the client could not get to its turn), else a success with no
//!   answer.

use serde_json::{json, Value};

use super::faults::{AcpFault, Injector, Out};
use super::rpc::{Kind, Message};
use super::wire::{self, methods, stop_reasons, updates};
use crate::acp::conversation::{Conversation, Step, Steps, Wait};
use crate::expect::Expectation;
use crate::journal;

/// What a correct client concludes, and the answer's chunks in order (empty on a
/// failure): the canonical client's (initialize, session/new, one prompt).
pub fn expectation(conversation: &mut dyn Conversation, faults: Vec<AcpFault>) -> (Expectation, Vec<String>) {
    let mut client = Client::new(faults);
    client
        .conclude(conversation)
        .unwrap_or((Expectation::Failure, Vec::new()))
}

/// What a correct client concludes from the requests it sent in `run` (a journal's
/// conversation), played in its order against `conversation` with the faults, and
/// the answer's chunks in order (empty on a failure). `None` when the client sent no
/// request (then [`expectation`] says what it should have concluded).
pub fn expectation_of_run(
    conversation: &mut dyn Conversation,
    faults: Vec<AcpFault>,
    run: &journal::Conversation,
) -> Option<(Expectation, Vec<String>)> {
    let sent: Vec<&[u8]> = run
        .messages
        .iter()
        .filter(|m| m.dir == journal::IN)
        .map(|m| m.line.as_bytes())
        .collect();
    if !sent
        .iter()
        .any(|line| Message::parse(line).is_some_and(|m| m.kind == Kind::Request))
    {
        return None;
    }
    Some(Client::new(faults).replay(conversation, &sent, run))
}

/// How the agent answered one request.
#[derive(Debug, Clone, PartialEq)]
enum Answer {
    /// Its result.
    Result(Value),
    /// A JSON-RPC error.
    Error,
    /// Nothing (the steps ended, or the agent did).
    Nothing,
}

/// One turn of the client's: a prompt, how it ended, its chunks.
struct Turn {
    answer: Answer,
    /// The turn's `agent_message_chunk`s: the session each names, and its text.
    chunks: Vec<(Option<String>, String)>,
    /// The session the prompt names.
    session: Option<String>,
    /// The client cancelled it itself.
    cancelled: bool,
    /// The prompt's id, as JSON text.
    id: String,
}

struct Client {
    injector: Injector,
    /// The `agent_message_chunk`s of what is being played: session and text.
    chunks: Vec<(Option<String>, String)>,
    /// The agent has ended.
    ended: bool,
}

impl Client {
    fn new(faults: Vec<AcpFault>) -> Self {
        Client {
            injector: Injector::new(faults),
            chunks: Vec::new(),
            ended: false,
        }
    }

    fn conclude(&mut self, conversation: &mut dyn Conversation) -> Option<(Expectation, Vec<String>)> {
        let _ = self.injector.start();
        let start = conversation.start();
        self.play(start, "");
        let initialize = json!({"protocolVersion": 1, "clientCapabilities": {}});
        self.request(conversation, "0", methods::INITIALIZE, initialize)
            .ok()?;
        let new = json!({"cwd": "/", "mcpServers": []});
        let created = self.request(conversation, "1", methods::SESSION_NEW, new).ok()?;
        let session = created["sessionId"].as_str().unwrap_or_default().to_owned();
        self.chunks.clear();
        let prompt = json!({"sessionId": session, "prompt": [wire::text_block("hi")]});
        let ended = self
            .request(conversation, "2", methods::SESSION_PROMPT, prompt)
            .ok()?;
        if ended["stopReason"] != stop_reasons::END_TURN {
            return None;
        }
        let chunks: Vec<String> = std::mem::take(&mut self.chunks)
            .into_iter()
            .filter(|(s, _)| s.as_deref() == Some(session.as_str()))
            .map(|(_, text)| text)
            .collect();
        Some(success(chunks))
    }

    /// Sends a request of the canonical client's and plays the agent's answer: its
    /// result, or `Err` on an error or no answer.
    fn request(
        &mut self,
        conversation: &mut dyn Conversation,
        id: &str,
        method: &str,
        params: Value,
    ) -> Result<Value, Answer> {
        let line = serde_json::to_vec(&json!({
            "jsonrpc": "2.0",
            "id": id.parse::<u64>().unwrap_or_default(),
            "method": method,
            "params": params
        }))
        .map_err(|_| Answer::Nothing)?;
        let message = Message::parse(&line).ok_or(Answer::Nothing)?;
        match self.answer(conversation, &message) {
            Answer::Result(value) => Ok(value),
            other => Err(other),
        }
    }

    /// The agent's answer to the client's request `message`, its steps played.
    fn answer(&mut self, conversation: &mut dyn Conversation, message: &Message<'_>) -> Answer {
        if self.ended {
            return Answer::Nothing;
        }
        let taken = self.injector.client_request(message);
        let taken = taken.as_deref().and_then(Message::parse);
        let message = taken.as_ref().unwrap_or(message);
        let reply = conversation.reply(message);
        match self
            .injector
            .on_request(message.method(), message.id_text(), reply.steps)
        {
            Ok(steps) => self.play(steps, message.id_text()),
            Err(_) => {
                self.ended = true;
                Answer::Nothing
            }
        }
    }

    /// Plays the client's messages `sent` in order; concludes from its turns.
    fn replay(
        &mut self,
        conversation: &mut dyn Conversation,
        sent: &[&[u8]],
        run: &journal::Conversation,
    ) -> (Expectation, Vec<String>) {
        let _ = self.injector.start();
        let start = conversation.start();
        self.play(start, "");
        let mut turns: Vec<Turn> = Vec::new();
        let mut failed = false;
        // The sessions the agent opened for the client (as the live run named them).
        let mut opened: Vec<String> = Vec::new();
        for line in sent {
            let Some(message) = Message::parse(line) else {
                continue;
            };
            match message.kind {
                Kind::Request => {
                    self.chunks.clear();
                    let answer = self.answer(conversation, &message);
                    if message.method() == methods::SESSION_PROMPT {
                        turns.push(Turn {
                            answer,
                            chunks: std::mem::take(&mut self.chunks),
                            session: message.param_str("sessionId"),
                            cancelled: false,
                            id: message.id_text().to_owned(),
                        });
                    } else {
                        let id = message.id_text();
                        match (&answer, message.method()) {
                            (Answer::Result(result), methods::SESSION_NEW) => opened.extend(
                                live_session(run, id)
                                    .or_else(|| result["sessionId"].as_str().map(str::to_owned)),
                            ),
                            (Answer::Result(_), methods::SESSION_LOAD) => {
                                opened.extend(message.param_str("sessionId"));
                            }
                            _ => {}
                        }
                        failed |= !matches!(answer, Answer::Result(_));
                    }
                }
                Kind::Notification if message.method() == methods::SESSION_CANCEL => {
                    let session = message.param_str("sessionId");
                    if let Some(turn) = turns
                        .iter_mut()
                        .rev()
                        .find(|t| session.is_none() || t.session == session)
                    {
                        turn.cancelled = true;
                    }
                }
                _ => {}
            }
        }
        let turns: Vec<Turn> = turns.into_iter().filter(|t| !t.cancelled).collect();
        if turns.is_empty() {
            return if failed || self.ended {
                (Expectation::Failure, Vec::new())
            } else {
                (
                    Expectation::Success {
                        answer: String::new(),
                    },
                    Vec::new(),
                )
            };
        }
        // A prompt to a session the agent did not open (its `session/new` failed, and
        // the client prompted all the same) is no turn a correct client has.
        let ended_well = |t: &Turn| {
            t.session.as_ref().is_some_and(|s| opened.contains(s))
                && matches!(&t.answer, Answer::Result(r) if r["stopReason"] == stop_reasons::END_TURN)
        };
        if !turns.iter().all(ended_well) {
            return (Expectation::Failure, Vec::new());
        }
        let mut chunks = Vec::new();
        for turn in turns {
            let live = live_routed(run, &turn.id, turn.session.as_deref());
            chunks.extend(
                turn.chunks
                    .into_iter()
                    .filter(|(session, _)| live == Some(true) || *session == turn.session)
                    .map(|(_, text)| text),
            );
        }
        success(chunks)
    }

    /// Plays steps; how the request `id` (JSON text) was answered, if it was. The
    /// agent ending (a recording that cannot be read on, a crash, its end) stops the
    /// play.
    fn play(&mut self, steps: Steps, id: &str) -> Answer {
        let mut answer = Answer::Nothing;
        for step in steps {
            let Ok(step) = step else {
                self.ended = true;
                break;
            };
            match step {
                Step::Send { line, .. } => {
                    let sent = self.injector.message(line);
                    for out in sent.out {
                        let Out::Line { bytes, newline: true } = out else {
                            continue;
                        };
                        let Some(message) = Message::parse(&bytes) else {
                            continue;
                        };
                        match message.kind {
                            Kind::Response if message.id_text() == id => {
                                answer = match (message.error, message.result) {
                                    (Some(_), _) => Answer::Error,
                                    (None, Some(r)) => {
                                        Answer::Result(serde_json::from_str(r.get()).unwrap_or(Value::Null))
                                    }
                                    (None, None) => Answer::Nothing,
                                };
                            }
                            _ if message.method() == methods::SESSION_UPDATE => {
                                let params = message.params_value();
                                let update = &params["update"];
                                if update["sessionUpdate"] == updates::AGENT_MESSAGE_CHUNK {
                                    if let Some(text) = update["content"]["text"].as_str() {
                                        let session = params["sessionId"].as_str().map(str::to_owned);
                                        self.chunks.push((session, text.to_owned()));
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                    if sent.end.is_some() {
                        self.ended = true;
                        break;
                    }
                }
                Step::Await {
                    wait: Wait::Answer { .. },
                    ..
                } => {
                    if self.injector.asking().is_some() {
                        self.ended = true;
                        break;
                    }
                }
                Step::Await { .. } | Step::Stderr { .. } => {}
                Step::End { .. } => {
                    self.ended = true;
                    break;
                }
            }
        }
        answer
    }
}

/// A success whose answer is these chunks.
fn success(chunks: Vec<String>) -> (Expectation, Vec<String>) {
    (
        Expectation::Success {
            answer: chunks.concat(),
        },
        chunks,
    )
}

/// The session id of the live agent's result to the client's `session/new` `id`
/// (JSON text), as the journal of the run has it.
fn live_session(run: &journal::Conversation, id: &str) -> Option<String> {
    run.messages.iter().find_map(|record| {
        let message = Message::parse(record.line.as_bytes())?;
        let result =
            (record.dir == journal::OUT && message.kind == Kind::Response && message.id_text() == id)
                .then_some(message.result)??;
        let value: Value = serde_json::from_str(result.get()).ok()?;
        value["sessionId"].as_str().map(str::to_owned)
    })
}

/// Whether the live agent sent the turn of the prompt `id` (JSON text) under the
/// session the prompt names, as the journal of the run shows it: `None` when the run
/// has none of the turn's message chunks. (The mock may map a recording's session ids
/// to the live ones where the in-process play does not.)
fn live_routed(run: &journal::Conversation, id: &str, session: Option<&str>) -> Option<bool> {
    let mut in_turn = false;
    let mut seen = None;
    for record in &run.messages {
        let Some(message) = Message::parse(record.line.as_bytes()) else {
            continue;
        };
        match (record.dir.as_str(), message.kind) {
            (journal::IN, Kind::Request) if message.id_text() == id => {
                in_turn = message.method() == methods::SESSION_PROMPT;
            }
            (journal::OUT, Kind::Response) if in_turn && message.id_text() == id => break,
            (journal::OUT, Kind::Notification) if in_turn && message.method() == methods::SESSION_UPDATE => {
                let params = message.params_value();
                if params["update"]["sessionUpdate"] == updates::AGENT_MESSAGE_CHUNK {
                    let routed = params["sessionId"].as_str() == session;
                    seen = Some(seen.unwrap_or(false) || routed);
                }
            }
            _ => {}
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::faults::{parse, FROM_ENV};
    use crate::acp::tell::{Ask, Teller};
    use crate::Source;

    fn teller() -> Teller {
        Teller::new(
            crate::dialects::print_mode_story(Source::Default.open("hi").expect("opens")).expect("tells"),
            Ask::FirstChange,
            &crate::acp::profile::testing::PROFILE,
        )
    }

    fn conclude(faults: &str) -> Expectation {
        expectation(&mut teller(), parse(faults, FROM_ENV).expect("parses")).0
    }

    /// A journal's conversation of these client lines.
    fn run(client: &[Value]) -> journal::Conversation {
        journal::Conversation {
            messages: client
                .iter()
                .map(|v| journal::MessageRecord {
                    dir: journal::IN.to_owned(),
                    at_ms: 0,
                    line: v.to_string(),
                })
                .collect(),
            ..Default::default()
        }
    }

    fn request(id: u64, method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    }

    fn load_cassette() -> Box<dyn Conversation + Send> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cassettes/acp/load.cassette");
        crate::acp::conversation_of(&Source::Cassette(path), &crate::acp::profile::testing::PROFILE)
            .expect("opens")
            .0
    }

    const RECORDED_SESSION: &str = "8a1f3e5d-2c4b-4d6e-9f80-7b1a2c3d4e5f";

    #[test]
    fn a_correct_client_concludes_from_the_faults() {
        let answer = "I'll read the README.md file and create a summary".to_owned();
        assert_eq!(
            conclude(""),
            Expectation::Success {
                answer: answer.clone()
            }
        );
        for benign in [
            "unknown-update:at=tool_call",
            "unknown-field",
            "reorder",
            "early-update",
            "authenticate-hangs",
            "malformed:after=2",
            // The canonical client answers what it does not offer with an error.
            "unoffered-tools",
        ] {
            assert!(
                matches!(conclude(benign), Expectation::Success { .. }),
                "{benign}"
            );
        }
        for failure in [
            // The preset named after the stop reason it ends the turn with.
            crate::acp::wire::stop_reasons::REFUSAL,
            "max-tokens",
            "auth-required",
            "session-services-failed",
            "crash-on-initialize",
            "crash-while-asking",
            "no-response:method=session/prompt",
            "eof:at=tool_call",
            "crash:at=agent_message_chunk",
            "error:method=session/prompt",
        ] {
            assert_eq!(conclude(failure), Expectation::Failure, "{failure}");
        }
    }

    #[test]
    fn reorder_acts_on_the_messages_of_the_requests_the_client_sent() {
        let faults = || parse("reorder", FROM_ENV).expect("parses");
        let canonical = expectation(&mut teller(), faults()).1;
        // A `session/set_mode` between `session/new` and the prompt: its response lets
        // out the update `reorder` held, so the turn's updates pair the other way.
        let mut conversation = teller();
        let mut live = Injector::new(faults());
        let mut seen = Vec::new();
        let mut session = String::new();
        let mut sent = Vec::new();
        for (id, method) in [
            (0, methods::INITIALIZE),
            (1, methods::SESSION_NEW),
            (2, methods::SESSION_SET_MODE),
            (3, methods::SESSION_PROMPT),
        ] {
            let line = request(
                id,
                method,
                json!({"sessionId": session, "modeId": "ask", "prompt": []}),
            );
            sent.push(line.clone());
            let bytes = line.to_string().into_bytes();
            let message = Message::parse(&bytes).expect("a request");
            let steps = live
                .on_request(method, &id.to_string(), conversation.reply(&message).steps)
                .expect("no crash");
            for step in steps {
                let Ok(Step::Send { line, .. }) = step else {
                    continue;
                };
                for out in live.message(line).out {
                    let Out::Line { bytes, .. } = out else { continue };
                    let value: Value = serde_json::from_slice(&bytes).expect("JSON");
                    if let Some(id) = value[crate::acp::rpc::members::RESULT]["sessionId"].as_str() {
                        session = id.to_owned();
                    }
                    if value["params"]["update"]["sessionUpdate"] == updates::AGENT_MESSAGE_CHUNK {
                        seen.push(
                            value["params"]["update"]["content"]["text"]
                                .as_str()
                                .unwrap_or_default()
                                .to_owned(),
                        );
                    }
                }
            }
        }
        assert_ne!(seen, canonical, "the extra request changes what the client sees");
        let (expect, chunks) =
            expectation_of_run(&mut teller(), faults(), &run(&sent)).expect("the client sent requests");
        assert_eq!(chunks, seen);
        assert_eq!(
            expect,
            Expectation::Success {
                answer: seen.concat()
            }
        );
    }

    #[test]
    fn faults_act_where_the_client_shape_meets_them() {
        // A client that loads the recorded session and prompts in it never sends
        // `session/new`: an error placed there never happens.
        let sent = [
            request(0, methods::INITIALIZE, json!({"protocolVersion": 1})),
            request(
                1,
                methods::SESSION_LOAD,
                json!({"sessionId": RECORDED_SESSION, "cwd": "/work/project", "mcpServers": []}),
            ),
            request(
                2,
                methods::SESSION_PROMPT,
                json!({"sessionId": RECORDED_SESSION, "prompt": []}),
            ),
        ];
        let faults = || parse("error:method=session/new", FROM_ENV).expect("parses");
        assert_eq!(
            expectation(load_cassette().as_mut(), faults()).0,
            Expectation::Failure
        );
        assert_eq!(
            expectation_of_run(load_cassette().as_mut(), faults(), &run(&sent))
                .expect("requests")
                .0,
            Expectation::Success {
                answer: "I printed `hello`.".into()
            },
            "the history replayed by session/load is no answer; the turn's chunk is"
        );
        // `auth-required` answers session/load too.
        let auth = parse("auth-required", FROM_ENV).expect("parses");
        assert_eq!(
            expectation_of_run(load_cassette().as_mut(), auth, &run(&sent))
                .expect("requests")
                .0,
            Expectation::Failure
        );
        // An extension method the agent does not know is answered -32601: a client
        // that goes on to its turn succeeds.
        let mut with_extension = sent.to_vec();
        with_extension.insert(1, request(9, "_acme/ping", json!({})));
        assert!(matches!(
            expectation_of_run(load_cassette().as_mut(), Vec::new(), &run(&with_extension)),
            Some((Expectation::Success { .. }, _))
        ));
        // A client that cannot get to its turn: the error is a failure to report.
        let stopped = [
            sent[0].clone(),
            request(1, methods::SESSION_NEW, json!({"cwd": "/", "mcpServers": []})),
        ];
        assert_eq!(
            expectation_of_run(
                &mut teller(),
                parse("session-services-failed", FROM_ENV).expect("parses"),
                &run(&stopped)
            )
            .expect("requests")
            .0,
            Expectation::Failure
        );
        // A client that prompts all the same, in a session it does not have, while
        // the agent (a recording) answers the prompt: still a failure to report.
        let prompted = [
            stopped[0].clone(),
            stopped[1].clone(),
            request(2, methods::SESSION_PROMPT, json!({"prompt": []})),
        ];
        assert_eq!(
            expectation_of_run(
                load_cassette().as_mut(),
                parse("error:method=session/new", FROM_ENV).expect("parses"),
                &run(&prompted)
            )
            .expect("requests")
            .0,
            Expectation::Failure
        );
        // No request at all: the canonical client says.
        assert!(expectation_of_run(&mut teller(), Vec::new(), &run(&[])).is_none());
    }

    #[test]
    fn the_answer_is_the_chunks_of_the_session_the_client_prompted() {
        // `session/new` is not in the recording: the mock makes a session up, and the
        // recorded turn names the recorded one, which a client that routes updates by
        // session does not show.
        let live = "0b3c4d5e-0000-4000-8000-000000000001";
        let sent = [
            request(1, methods::INITIALIZE, json!({"protocolVersion": 1})),
            request(2, methods::SESSION_NEW, json!({"cwd": "/", "mcpServers": []})),
            request(
                3,
                methods::SESSION_PROMPT,
                json!({"sessionId": live, "prompt": []}),
            ),
        ];
        let chunk = |session: &str| {
            json!({"jsonrpc": "2.0", "method": methods::SESSION_UPDATE, "params": {"sessionId": session,
                "update": {"sessionUpdate": updates::AGENT_MESSAGE_CHUNK, "content": {"type": "text", "text": "I printed `hello`."}}}})
        };
        let respond: Value = serde_json::from_slice(&crate::acp::rpc::response(
            "3",
            &wire::stop(stop_reasons::END_TURN),
        ))
        .expect("JSON");
        // The live agent's answer to `session/new`: the session it made up.
        let made_up: Value =
            serde_json::from_slice(&crate::acp::rpc::response("2", &json!({"sessionId": live})))
                .expect("JSON");
        let as_played = |agent: &Value| {
            let mut run = run(&sent);
            let mut turn = run.messages.split_off(2);
            run.messages.push(journal::MessageRecord {
                dir: journal::OUT.into(),
                at_ms: 0,
                line: made_up.to_string(),
            });
            run.messages.push(turn.remove(0));
            for v in [agent, &respond] {
                run.messages.push(journal::MessageRecord {
                    dir: journal::OUT.into(),
                    at_ms: 0,
                    line: v.to_string(),
                });
            }
            run
        };
        let expect = |run: &journal::Conversation| {
            expectation_of_run(load_cassette().as_mut(), Vec::new(), run)
                .expect("requests")
                .0
        };
        assert_eq!(
            expect(&as_played(&chunk(RECORDED_SESSION))),
            Expectation::Success {
                answer: String::new()
            }
        );
        assert_eq!(
            expectation(load_cassette().as_mut(), Vec::new()).0,
            Expectation::Success {
                answer: String::new()
            }
        );
        // A mock that puts the live session id into the recorded turn: shown.
        assert_eq!(
            expect(&as_played(&chunk(live))),
            Expectation::Success {
                answer: "I printed `hello`.".into()
            }
        );
    }
}
