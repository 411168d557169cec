//! A recording of a real `cursor-agent acp` process, replayed as a script.
//!
//! The recording is cut into *exchanges*, one per request of the client's, in
//! recorded order: the agent's messages that followed the request until the next one,
//! with the places where the agent waited for the client (its answer to a permission
//! request, a `session/cancel`). A live request plays the next exchange of the same
//! method; the agent's responses get the live request's id; every other byte is
//! replayed as recorded.
//!
//! A request the recording does not have (a method not recorded, or more prompts than
//! recorded) is a *divergence*: the mock answers it with its own handshake answer
//! (see [`super::tell::handshake`]) and says so in the [`Reply`]. A request that names
//! another session than the recorded one (`session/load` of another id, a prompt to a
//! session the mock made up) plays the recorded exchange, and is a divergence too:
//! the agent's messages name the recorded session.

use std::collections::HashMap;
use std::time::Duration;

use super::rpc::{self, Kind, Message};
use super::{methods, tell, Conversation, Reply, Step, Wait};
use crate::error::CassetteError;
use crate::frames::{Exit, Frame, FrameResult, Stream};

/// One request of the recorded client and what the agent did after it.
#[derive(Debug, Clone)]
struct Exchange {
    method: String,
    /// The recorded request's id, as JSON text.
    id: String,
    /// The recorded request's `params.sessionId`, if it has one.
    session: Option<String>,
    steps: Vec<Step>,
    /// Which of its steps are responses (their ids are made live when played).
    responses: Vec<usize>,
    played: bool,
}

/// A recorded conversation, replayed as a script.
#[derive(Debug, Clone)]
pub struct Script {
    /// What the agent did before the first request.
    start: Vec<Step>,
    exchanges: Vec<Exchange>,
    /// Recorded request ids and the live ones they were played for.
    ids: HashMap<String, String>,
    ending: Exit,
}

impl Script {
    /// Cuts a recording (its `in` frames the client's messages) into exchanges.
    pub fn new(frames: impl IntoIterator<Item = FrameResult>) -> Result<Script, CassetteError> {
        let mut start = Vec::new();
        let mut exchanges: Vec<Exchange> = Vec::new();
        let mut since = Duration::ZERO;
        let mut ending = Exit::Code(0);
        // The agent's requests not yet answered: their ids, for the client's answers.
        let mut asked: HashMap<String, String> = HashMap::new();
        for frame in frames {
            let frame = frame?;
            let steps = match exchanges.last_mut() {
                Some(exchange) => &mut exchange.steps,
                None => &mut start,
            };
            let at = frame.at().saturating_sub(since);
            match frame {
                Frame::Line(line) if line.stream == Stream::Stdin => {
                    let Some(message) = Message::parse(&line.bytes) else {
                        // The agent ignores a line that is not JSON-RPC.
                        continue;
                    };
                    match message.kind {
                        Kind::Request => {
                            since = line.at;
                            exchanges.push(Exchange {
                                method: message.method().to_owned(),
                                id: message.id_text().to_owned(),
                                session: message.param_str("sessionId"),
                                steps: Vec::new(),
                                responses: Vec::new(),
                                played: false,
                            });
                        }
                        Kind::Response => {
                            let id = message.id_text().to_owned();
                            let method = asked.remove(&id).unwrap_or_default();
                            let recorded = message.result.and_then(|r| serde_json::from_str(r.get()).ok());
                            steps.push(Step::Await {
                                at,
                                wait: Wait::Answer { id, method, recorded },
                            });
                        }
                        Kind::Notification if message.method() == methods::SESSION_CANCEL => {
                            steps.push(Step::Await {
                                at,
                                wait: Wait::Notification {
                                    method: methods::SESSION_CANCEL.to_owned(),
                                },
                            });
                        }
                        Kind::Notification => {}
                    }
                }
                Frame::Line(line) if line.stream == Stream::Stdout => {
                    let message = Message::parse(&line.bytes);
                    let response = message.as_ref().is_some_and(|m| m.kind == Kind::Response);
                    if let Some(message) = message.filter(|m| m.kind == Kind::Request) {
                        asked.insert(message.id_text().to_owned(), message.method().to_owned());
                    }
                    steps.push(Step::Send { at, line: line.bytes });
                    if let Some(exchange) = exchanges.last_mut().filter(|_| response) {
                        exchange.responses.push(exchange.steps.len() - 1);
                    }
                }
                Frame::Line(line) => steps.push(Step::Stderr { at, line: line.bytes }),
                Frame::End(end) => {
                    // A clean exit is the end of stdin; any other ends the process
                    // where it happened.
                    if end.exit.success() {
                        ending = end.exit;
                    } else {
                        steps.push(Step::End { at, exit: end.exit });
                    }
                }
                Frame::Stall { .. } | Frame::CloseStdout { .. } => {}
            }
        }
        Ok(Script {
            start,
            exchanges,
            ids: HashMap::new(),
            ending,
        })
    }

    /// The recorded steps with the live ids of the requests they respond to (the
    /// steps at `responses`; no other line is looked at).
    fn live(&self, mut steps: Vec<Step>, responses: &[usize]) -> Vec<Step> {
        for &i in responses {
            if let Some(Step::Send { line, .. }) = steps.get_mut(i) {
                let live = Message::parse(line).and_then(|m| self.ids.get(m.id_text()));
                if let Some(id) = live {
                    let spliced = rpc::with_id(line, id);
                    *line = spliced;
                }
            }
        }
        steps
    }
}

impl Conversation for Script {
    fn start(&mut self) -> Vec<Step> {
        std::mem::take(&mut self.start)
    }

    fn reply(&mut self, request: &Message<'_>) -> Reply {
        let method = request.method();
        let Some(index) = self
            .exchanges
            .iter()
            .position(|e| !e.played && e.method == method)
        else {
            let mut reply = tell::handshake(request);
            let recorded = self.exchanges.iter().filter(|e| e.method == method).count();
            reply.divergence = Some(if recorded == 0 {
                format!("`{method}` is not in the recording: answered by the mock")
            } else {
                format!(
                    "the recording has {recorded} `{method}` request(s), all played: answered by the mock"
                )
            });
            return reply;
        };
        let exchange = &mut self.exchanges[index];
        exchange.played = true;
        let recorded_id = exchange.id.clone();
        let divergence = match (&exchange.session, request.param_str("sessionId")) {
            (Some(recorded), Some(live)) if *recorded != live => Some(format!(
                "`{method}` names session `{live}`; the recording's named `{recorded}`: replayed as recorded"
            )),
            _ => None,
        };
        // A played exchange is not played again: its steps are handed over.
        let steps = std::mem::take(&mut exchange.steps);
        let responses = std::mem::take(&mut exchange.responses);
        self.ids.insert(recorded_id, request.id_text().to_owned());
        Reply {
            steps: self.live(steps, &responses),
            divergence,
        }
    }

    fn ending(&self) -> Exit {
        self.ending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::{Ending, Line};

    fn at(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn a_recording_replays_with_live_ids_and_waits_where_it_waited() {
        let frames = vec![
            Frame::Line(Line { at: at(0), stream: Stream::Stdin, bytes: br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#.to_vec(), newline: true }),
            Frame::Line(Line::stdout(at(2), br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}"#.to_vec())),
            Frame::Line(Line { at: at(10), stream: Stream::Stdin, bytes: br#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s"}}"#.to_vec(), newline: true }),
            Frame::Line(Line::stdout(at(15), br#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{}}"#.to_vec())),
            Frame::Line(Line { at: at(40), stream: Stream::Stdin, bytes: br#"{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow-once"}}}"#.to_vec(), newline: true }),
            Frame::Line(Line::stdout(at(41), br#"{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}"#.to_vec())),
            Frame::End(Ending { at: at(50), exit: Exit::Code(0) }),
        ];
        let mut script = Script::new(frames.into_iter().map(Ok)).expect("cuts");
        let init = br#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}"#;
        let reply = script.reply(&Message::parse(init).expect("parses"));
        assert_eq!(
            reply.steps,
            vec![Step::Send {
                at: at(2),
                line: br#"{"jsonrpc":"2.0","id":"a","result":{"protocolVersion":1}}"#.to_vec()
            }]
        );
        let prompt = br#"{"jsonrpc":"2.0","id":"b","method":"session/prompt","params":{"sessionId":"s"}}"#;
        let reply = script.reply(&Message::parse(prompt).expect("parses"));
        assert_eq!(reply.steps.len(), 3);
        assert!(
            matches!(&reply.steps[1], Step::Await { at: d, wait: Wait::Answer { id, method, .. } } if *d == at(30) && id == "0" && method == "session/request_permission")
        );
        assert_eq!(
            reply.steps[2],
            Step::Send {
                at: at(31),
                line: br#"{"jsonrpc":"2.0","id":"b","result":{"stopReason":"end_turn"}}"#.to_vec()
            }
        );
        // A second prompt is not in the recording.
        let again = script.reply(&Message::parse(prompt).expect("parses"));
        assert!(again.divergence.is_some());
        assert_eq!(script.ending(), Exit::Code(0));
    }

    #[test]
    fn a_request_for_another_session_plays_the_recording_and_says_so() {
        let frames = vec![
            Frame::Line(Line { at: at(0), stream: Stream::Stdin, bytes: br#"{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"s1","cwd":"/w","mcpServers":[]}}"#.to_vec(), newline: true }),
            Frame::Line(Line::stdout(at(3), br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}}"#.to_vec())),
            Frame::Line(Line::stdout(at(4), br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec())),
            Frame::End(Ending { at: at(9), exit: Exit::Code(0) }),
        ];
        let load = |session: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":"x","method":"session/load","params":{{"sessionId":"{session}","cwd":"/w","mcpServers":[]}}}}"#
            )
        };
        let mut script = Script::new(frames.clone().into_iter().map(Ok)).expect("cuts");
        let same = script.reply(&Message::parse(load("s1").as_bytes()).expect("parses"));
        assert_eq!((same.steps.len(), same.divergence), (2, None));
        let mut script = Script::new(frames.into_iter().map(Ok)).expect("cuts");
        let other = script.reply(&Message::parse(load("s2").as_bytes()).expect("parses"));
        assert_eq!(other.steps.len(), 2, "replayed as recorded");
        assert_eq!(
            other.divergence.as_deref(),
            Some("`session/load` names session `s2`; the recording's named `s1`: replayed as recorded")
        );
    }
}
