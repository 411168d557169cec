//! What a correct ACP client concludes from a conversation and its faults.
//!
//! The canonical client initializes, opens a session, sends one prompt and allows
//! every permission the agent asks for. Its turn is a success when the prompt is
//! answered `stopReason: end_turn`: the answer is the text of the turn's
//! `agent_message_chunk`s. An error response, another stop reason, no answer, or
//! the agent ending first is a failure the client must report. The faults act
//! through the same [`Injector`] the mock uses.

use serde_json::{json, Value};

use super::faults::{AcpFault, Injector, Out};
use super::rpc::{Kind, Message};
use super::wire::{self, methods, stop_reasons, updates};
use crate::dialects::cursor_acp::conversation::{Conversation, Step, Steps, Wait};
use crate::dialects::cursor_print::expect::Expectation;

/// What a correct client concludes, and the answer's chunks in order (empty on a
/// failure).
pub fn expectation(conversation: &mut dyn Conversation, faults: Vec<AcpFault>) -> (Expectation, Vec<String>) {
    let mut client = Client {
        injector: Injector::new(faults),
        chunks: Vec::new(),
    };
    client
        .conclude(conversation)
        .unwrap_or((Expectation::Failure, Vec::new()))
}

struct Client {
    injector: Injector,
    chunks: Vec<String>,
}

/// The conversation ended before the turn did.
struct Ended;

impl Client {
    fn conclude(&mut self, conversation: &mut dyn Conversation) -> Result<(Expectation, Vec<String>), Ended> {
        let _ = self.injector.start();
        let start = conversation.start();
        self.play(start, "")?;
        self.request(
            conversation,
            0,
            methods::INITIALIZE,
            json!({"protocolVersion": 1, "clientCapabilities": {}}),
        )?;
        let created = self.request(
            conversation,
            1,
            methods::SESSION_NEW,
            json!({"cwd": "/", "mcpServers": []}),
        )?;
        let session = created["sessionId"].as_str().unwrap_or_default().to_owned();
        self.chunks.clear();
        let prompt = json!({"sessionId": session, "prompt": [wire::text_block("hi")]});
        let ended = self.request(conversation, 2, methods::SESSION_PROMPT, prompt)?;
        if ended["stopReason"] != stop_reasons::END_TURN {
            return Err(Ended);
        }
        let chunks = std::mem::take(&mut self.chunks);
        Ok((
            Expectation::Success {
                answer: chunks.concat(),
            },
            chunks,
        ))
    }

    /// Sends a request and plays the agent's answer: its result, or `Ended` on an
    /// error, no answer, or the end of the agent.
    fn request(
        &mut self,
        conversation: &mut dyn Conversation,
        id: u64,
        method: &str,
        params: Value,
    ) -> Result<Value, Ended> {
        let line =
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
                .map_err(|_| Ended)?;
        let message = Message::parse(&line).ok_or(Ended)?;
        let reply = conversation.reply(&message);
        let steps = self
            .injector
            .on_request(method, &id.to_string(), reply.steps)
            .map_err(|_| Ended)?;
        self.play(steps, &id.to_string())?.ok_or(Ended)
    }

    /// Plays steps; the result of the response to `id`, if one came. A recording
    /// that cannot be read on ends the agent there.
    fn play(&mut self, steps: Steps, id: &str) -> Result<Option<Value>, Ended> {
        let mut result = None;
        for step in steps {
            match step.map_err(|_| Ended)? {
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
                                if message.error.is_some() {
                                    return Err(Ended);
                                }
                                result = message.result.and_then(|r| serde_json::from_str(r.get()).ok());
                            }
                            _ if message.method() == methods::SESSION_UPDATE => {
                                let update = &message.params_value()["update"];
                                if update["sessionUpdate"] == updates::AGENT_MESSAGE_CHUNK {
                                    if let Some(text) = update["content"]["text"].as_str() {
                                        self.chunks.push(text.to_owned());
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                    if sent.end.is_some() {
                        return Err(Ended);
                    }
                }
                Step::Await {
                    wait: Wait::Answer { .. },
                    ..
                } => {
                    if self.injector.asking().is_some() {
                        return Err(Ended);
                    }
                }
                Step::Await { .. } | Step::Stderr { .. } => {}
                Step::End { .. } => return Err(Ended),
            }
        }
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::cursor_acp::faults::{parse, FROM_ENV};
    use crate::dialects::cursor_acp::tell::{Ask, Teller};
    use crate::Source;

    fn conclude(faults: &str) -> Expectation {
        let mut teller = Teller::new(
            Source::Default.open("hi").expect("opens").frames,
            Ask::FirstChange,
        )
        .expect("tells");
        expectation(&mut teller, parse(faults, FROM_ENV).expect("parses")).0
    }

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
        ] {
            assert!(
                matches!(conclude(benign), Expectation::Success { .. }),
                "{benign}"
            );
        }
        for failure in [
            // The preset named after the stop reason it ends the turn with.
            crate::dialects::cursor_acp::wire::stop_reasons::REFUSAL,
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
}
