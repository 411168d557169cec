//! The stream events of `--include-partial-messages`: what the CLI writes around each
//! `assistant` line of a message, as the API streamed it. The player tells its
//! sessions with them; [`Partial`] adds them to a recording made without them, when
//! the live client asks for them.
//!
//! A message is `message_start`, then for each block `content_block_start`, its
//! deltas, the block's `assistant` line, `content_block_stop`, and last
//! `message_delta` (its stop reason and output tokens) and `message_stop`; each event
//! a `stream_event` line of the message's id. With them, each request of the model
//! is announced by a `system` `status` `requesting` line.

use serde_json::{json, Value};

use super::super::wire::{blocks, system, types};

/// A block's events before its `assistant` line: its start and its deltas (text in
/// two pieces), at `index` in its message.
pub(in crate::dialects::claude) fn block_events(index: usize, block: &Value) -> Vec<Value> {
    let kind = block["type"].as_str().unwrap_or_default();
    let (start, deltas) = match kind {
        blocks::TEXT => {
            let text = block["text"].as_str().unwrap_or_default();
            let cut = text
                .char_indices()
                .nth(text.chars().count() / 2)
                .map_or(text.len(), |(i, _)| i);
            let pieces = [&text[..cut], &text[cut..]];
            (
                json!({"type": blocks::TEXT, "text": ""}),
                pieces
                    .iter()
                    .filter(|p| !p.is_empty())
                    .map(|p| json!({"type": "text_delta", "text": p}))
                    .collect::<Vec<_>>(),
            )
        }
        blocks::THINKING => (
            json!({"type": blocks::THINKING, "thinking": "", "signature": ""}),
            vec![
                json!({"type": "thinking_delta", "thinking": block["thinking"]}),
                json!({"type": "signature_delta", "signature": block["signature"]}),
            ],
        ),
        _ => (
            json!({"type": blocks::TOOL_USE, "id": block["id"], "name": block["name"], "input": {}}),
            vec![json!({"type": "input_json_delta", "partial_json": block["input"].to_string()})],
        ),
    };
    std::iter::once(json!({"type": "content_block_start", "index": index, "content_block": start}))
        .chain(
            deltas
                .into_iter()
                .map(|delta| json!({"type": "content_block_delta", "index": index, "delta": delta})),
        )
        .collect()
}

/// The event after a block's `assistant` line.
pub(in crate::dialects::claude) fn block_stop(index: usize) -> Value {
    json!({"type": "content_block_stop", "index": index})
}

/// The event that begins message `id` of `model`.
pub(in crate::dialects::claude) fn message_start(id: &str, model: &Value, usage: &Value) -> Value {
    json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant",
        "model": model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage}})
}

/// The events that end a message: `message_delta` with its stop reason (none when the
/// stream was cut before it) and `message_stop`.
pub(in crate::dialects::claude) fn message_end(stop_reason: Option<&str>, output_tokens: u64) -> Vec<Value> {
    let delta = stop_reason.map(|reason| {
        json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null},
            "usage": {"output_tokens": output_tokens}})
    });
    delta
        .into_iter()
        .chain(std::iter::once(json!({"type": "message_stop"})))
        .collect()
}

/// `event` as the `stream_event` line of message `message`.
pub(in crate::dialects::claude) fn event_line(
    event: Value,
    session_id: &Value,
    uuid: String,
    message: &str,
) -> Value {
    json!({"type": types::STREAM_EVENT, "event": event, "session_id": session_id,
        "parent_tool_use_id": null, "uuid": uuid, "api_message_id": message})
}

/// The line that announces a request of the model.
pub(in crate::dialects::claude) fn requesting(session_id: &Value, uuid: String) -> Value {
    json!({"type": types::SYSTEM, "subtype": system::STATUS, "status": "requesting",
        "uuid": uuid, "session_id": session_id})
}

/// A block's output tokens, as the player counts them.
pub(in crate::dialects::claude) fn tokens(block: &Value) -> u64 {
    (block.to_string().len() / 4 + 1) as u64
}

/// The message under way, its stream events told.
#[derive(Debug)]
struct Open {
    id: String,
    session_id: Value,
    blocks: usize,
    tool_use: bool,
    output_tokens: u64,
}

/// The stream events a recording made without `--include-partial-messages` lacks, for
/// a live client that asks for them: each `assistant` line of the recording with the
/// events the CLI writes around it (the real CLI streams every block so; the
/// recording kept the blocks whole). Deterministic: the events' `uuid`s are drawn
/// from `seed`.
#[derive(Debug)]
pub struct Partial {
    open: Option<Open>,
    rng: fastrand::Rng,
}

impl Partial {
    /// A recording's events, their ids drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        Partial {
            open: None,
            rng: fastrand::Rng::with_seed(seed),
        }
    }

    fn uuid(&mut self) -> String {
        let mut bytes = [0u8; 16];
        self.rng.fill(&mut bytes);
        uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
    }

    /// The lines to send for `line`, one of the CLI's recorded lines, in order: `line`
    /// itself, and around an `assistant` line the events of its block (and of its
    /// message's start); before any other line, the end of the message under way.
    /// A line that is not JSON, or a stream event of the recording's own, passes as it is.
    pub fn around(&mut self, line: Vec<u8>) -> Vec<Vec<u8>> {
        let Ok(value) = serde_json::from_slice::<Value>(&line) else {
            return vec![line];
        };
        let kind = value.get("type").and_then(Value::as_str).unwrap_or_default();
        if kind == types::STREAM_EVENT {
            return vec![line];
        }
        if kind != types::ASSISTANT {
            let mut lines = self.close();
            lines.push(line);
            return lines;
        }
        let message = &value["message"];
        let id = message["id"].as_str().unwrap_or_default().to_owned();
        let mut out: Vec<Value> = Vec::new();
        if self.open.as_ref().is_some_and(|open| open.id != id) {
            out.extend(self.end());
        }
        if self.open.is_none() {
            let session_id = value["session_id"].clone();
            out.push(requesting(&session_id, self.uuid()));
            let usage = message.get("usage").cloned().unwrap_or(Value::Null);
            let start = message_start(&id, &message["model"], &usage);
            out.push(event_line(start, &session_id, self.uuid(), &id));
            self.open = Some(Open {
                id: id.clone(),
                session_id,
                blocks: 0,
                tool_use: false,
                output_tokens: 0,
            });
        }
        let blocks_of = message["content"].as_array().cloned().unwrap_or_default();
        let mut events = Vec::new();
        let mut stops = Vec::new();
        if let Some(open) = self.open.as_mut() {
            for block in &blocks_of {
                events.extend(block_events(open.blocks, block));
                stops.push(block_stop(open.blocks));
                open.tool_use = block["type"].as_str() == Some(blocks::TOOL_USE);
                open.output_tokens += tokens(block);
                open.blocks += 1;
            }
        }
        let session_id = self
            .open
            .as_ref()
            .map(|o| o.session_id.clone())
            .unwrap_or_default();
        for event in events {
            out.push(event_line(event, &session_id, self.uuid(), &id));
        }
        let mut lines: Vec<Vec<u8>> = out.iter().map(to_line).collect();
        lines.push(line);
        for stop in stops {
            let stop = event_line(stop, &session_id, self.uuid(), &id);
            lines.push(to_line(&stop));
        }
        lines
    }

    /// The lines that end the message under way (none when none is).
    pub fn close(&mut self) -> Vec<Vec<u8>> {
        self.end().iter().map(to_line).collect()
    }

    fn end(&mut self) -> Vec<Value> {
        let Some(open) = self.open.take() else {
            return Vec::new();
        };
        let reason = if open.tool_use { "tool_use" } else { "end_turn" };
        message_end(Some(reason), open.output_tokens)
            .into_iter()
            .map(|event| event_line(event, &open.session_id, self.uuid(), &open.id))
            .collect()
    }
}

fn to_line(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(lines: &[Vec<u8>]) -> Vec<String> {
        lines
            .iter()
            .map(|line| {
                let v: Value = serde_json::from_slice(line).expect("JSON");
                match v["type"].as_str() {
                    Some(types::STREAM_EVENT) => v["event"]["type"].as_str().unwrap_or_default().to_owned(),
                    Some(kind) => kind.to_owned(),
                    None => String::new(),
                }
            })
            .collect()
    }

    fn assistant(id: &str, block: Value) -> Vec<u8> {
        to_line(
            &json!({"type": types::ASSISTANT, "message": {"id": id, "model": "m", "content": [block]},
            "session_id": "s", "uuid": "u"}),
        )
    }

    /// A text block then a tool call of one message, its tool's result, and the
    /// answer: each block streamed, each message ended before what follows it.
    #[test]
    fn a_recording_s_messages_are_streamed_as_the_cli_streams_them() {
        let mut partial = Partial::new(1);
        let mut lines = Vec::new();
        lines.extend(partial.around(assistant("m1", json!({"type": "text", "text": "Let me look."}))));
        lines.extend(partial.around(assistant(
            "m1",
            json!({"type": "tool_use", "id": "t", "name": "Read", "input": {"file_path": "a"}}),
        )));
        lines.extend(partial.around(to_line(&json!({"type": types::USER, "message": {}}))));
        lines.extend(partial.around(assistant("m2", json!({"type": "text", "text": "Done."}))));
        lines.extend(partial.around(to_line(&json!({"type": types::RESULT}))));
        // A message's stream: its start, each block (its start, deltas, the
        // `assistant` line, its stop), its end.
        let start = ["system", "message_start"];
        let text = [
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
        ];
        let tool = ["content_block_start", "content_block_delta"];
        let (block_end, end) = (
            ["assistant", "content_block_stop"],
            ["message_delta", "message_stop"],
        );
        let message_with_tool = [&start[..], &text, &block_end, &tool, &block_end, &end].concat();
        let message = [&start[..], &text, &block_end, &end].concat();
        assert_eq!(
            kinds(&lines),
            [&message_with_tool[..], &["user"], &message, &["result"]].concat()
        );
        let text: String = lines
            .iter()
            .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
            .filter(|v| v["event"]["delta"]["type"] == "text_delta")
            .map(|v| {
                v["event"]["delta"]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect();
        assert_eq!(text, "Let me look.Done.");
        let stops: Vec<Value> = lines
            .iter()
            .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
            .filter(|v| v["event"]["type"] == "message_delta")
            .map(|v| v["event"]["delta"]["stop_reason"].clone())
            .collect();
        assert_eq!(stops, [json!("tool_use"), json!("end_turn")]);
        let again: Vec<Vec<u8>> = {
            let mut partial = Partial::new(1);
            partial.around(assistant("m1", json!({"type": "text", "text": "Let me look."})))
        };
        assert_eq!(again, lines[..again.len()], "the same seed, the same bytes");
    }

    /// A recording's own stream events and lines that are not JSON pass as they are.
    #[test]
    fn what_is_no_message_passes_as_it_is() {
        let mut partial = Partial::new(1);
        let event = to_line(&json!({"type": types::STREAM_EVENT, "event": {"type": "message_stop"}}));
        assert_eq!(partial.around(event.clone()), [event]);
        assert_eq!(partial.around(b"not json".to_vec()), [b"not json".to_vec()]);
        assert!(partial.close().is_empty());
    }
}
