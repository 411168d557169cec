//! The Anthropic Messages API: `POST /v1/messages` (any query, e.g. `?beta=true`),
//! streamed as SSE when the request says `"stream": true`, else one JSON message.
//!
//! A streamed answer (each event's `data` is a JSON object whose `type` is the event's
//! name):
//!
//! ```text
//! message_start         the message, empty: id msg_mock0001, the model, usage
//! ping
//! content_block_start   a thinking block (a step with `thinking`), index 0
//! content_block_delta   its thinking_delta, then its signature_delta
//! content_block_stop
//! content_block_start   a text block, index 1
//! content_block_delta   a text_delta for each piece of the step's text
//! content_block_stop
//! content_block_start   a tool_use block: id toolu_mock0001, name Bash, input {}
//! content_block_delta   an input_json_delta with the whole input
//! content_block_stop
//! message_delta         stop_reason tool_use (or end_turn), the output tokens   } the closing
//! message_stop                                                                  } events
//! ```
//!
//! Without `"stream": true`, the same blocks come as one message.
//!
//! Errors: `{"type":"error","error":{"type":"rate_limit_error","message":M},"request_id":"req_mock0001"}`
//! (`invalid_request_error` 400, `authentication_error` 401, `permission_error` 403,
//! `not_found_error` 404, `request_too_large` 413, `rate_limit_error` 429,
//! `api_error` 500, `overloaded_error` 529). A `fail` step ends the stream with an
//! `error` event of that shape.

use serde::Serialize;
use serde_json::{json, Value};

use super::scenario::{Step, ToolCall};
use super::{Ask, Offered, Reply, Route, SseEvent, ToolResult};

/// Which requests this API answers.
pub(super) fn route(method: &str, path: &str) -> Route {
    let path = path.split('?').next().unwrap_or(path);
    match (method, path) {
        ("POST", "/v1/messages") => Route::Answer,
        _ => Route::Unknown,
    }
}

/// The tools a request offers (`tools[].name`).
pub(super) fn offered(body: &Value) -> Vec<Offered> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .map(Offered::function)
        .collect()
}

/// The tool results of the request's last message (`tool_result` blocks).
pub(super) fn tool_results(body: &Value) -> Vec<ToolResult> {
    let Some(last) = body["messages"].as_array().and_then(|m| m.last()) else {
        return Vec::new();
    };
    last["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|block| block["tool_use_id"].is_string())
        .map(|block| ToolResult {
            id: block["tool_use_id"].as_str().unwrap_or_default().to_owned(),
            content: match &block["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => other.to_string(),
            },
            is_error: block["is_error"].as_bool().unwrap_or(false),
        })
        .collect()
}

/// The model a request asks for.
pub(super) fn requested_model(body: &Value) -> Option<String> {
    body["model"].as_str().map(str::to_owned)
}

/// Whether a request asks for a stream.
pub(super) fn streams(body: &Value) -> bool {
    body["stream"].as_bool().unwrap_or(false)
}

#[derive(Serialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Role {
    Assistant,
}

#[derive(Serialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum StopReason {
    EndTurn,
    ToolUse,
}

#[derive(Serialize, Clone)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Thinking { thinking: String, signature: String },
    Text { text: String },
    ToolUse { id: String, name: String, input: Value },
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum Delta {
    #[serde(rename = "thinking_delta")]
    Thinking { thinking: String },
    #[serde(rename = "signature_delta")]
    Signature { signature: String },
    #[serde(rename = "text_delta")]
    Text { text: String },
    #[serde(rename = "input_json_delta")]
    InputJson { partial_json: String },
}

#[derive(Serialize, Clone, Copy)]
struct Usage {
    input_tokens: u64,
    cache_creation_input_tokens: u64,
    cache_read_input_tokens: u64,
    output_tokens: u64,
}

/// A whole message (the non-streamed answer, and `message_start`'s, empty).
#[derive(Serialize)]
struct Message {
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    role: Role,
    model: String,
    content: Vec<Block>,
    stop_reason: Option<StopReason>,
    stop_sequence: Option<String>,
    usage: Usage,
}

#[derive(Serialize)]
struct MessageDelta {
    stop_reason: StopReason,
    stop_sequence: Option<String>,
}

#[derive(Serialize)]
struct OutputUsage {
    output_tokens: u64,
}

#[derive(Serialize)]
struct ErrorDetail {
    #[serde(rename = "type")]
    kind: String,
    message: String,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    MessageStart { message: Message },
    Ping,
    ContentBlockStart { index: usize, content_block: Block },
    ContentBlockDelta { index: usize, delta: Delta },
    ContentBlockStop { index: usize },
    MessageDelta { delta: MessageDelta, usage: OutputUsage },
    MessageStop,
    Error { error: ErrorDetail },
}

impl Event {
    /// The SSE event: its name is its `type`.
    fn sse(&self) -> SseEvent {
        let data = serde_json::to_value(self).unwrap_or_default();
        SseEvent {
            event: data["type"].as_str().map(str::to_owned),
            data: data.to_string(),
        }
    }
}

/// The blocks of a step, as the final message holds them.
fn blocks(step: &Step, ask: &Ask<'_>) -> Vec<Block> {
    let mut blocks = Vec::new();
    if let Some(thinking) = &step.thinking {
        blocks.push(Block::Thinking {
            thinking: thinking.clone(),
            signature: signature(ask.n),
        });
    }
    if !step.text.is_empty() {
        blocks.push(Block::Text {
            text: step.full_text(),
        });
    }
    if let Some(tool) = &step.tool {
        let (name, input) = tool_call(tool);
        blocks.push(Block::ToolUse {
            id: format!("toolu_mock{:04}", ask.n),
            name,
            input,
        });
    }
    blocks
}

/// A made-up signature of a thinking block (the CLI keeps it and sends it back).
fn signature(n: u64) -> String {
    format!("bW9jay1hZ2VudCBzaWduYXR1cmU{n:04}")
}

/// Claude Code's tools: `Bash {command}`, `Write {file_path, content}`.
fn tool_call(tool: &ToolCall) -> (String, Value) {
    match tool {
        ToolCall::Shell(command) => (
            "Bash".to_owned(),
            json!({"command": command, "description": "Run the scripted command"}),
        ),
        ToolCall::Write { path, content } => {
            ("Write".to_owned(), json!({"file_path": path, "content": content}))
        }
        ToolCall::Call { name, input } => (name.clone(), input.clone()),
    }
}

fn usage(step: &Step) -> Usage {
    Usage {
        input_tokens: step.usage.input,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: step.usage.output,
    }
}

fn stop_reason(step: &Step) -> StopReason {
    if step.tool.is_some() {
        StopReason::ToolUse
    } else {
        StopReason::EndTurn
    }
}

/// The answer to a request.
pub(super) fn answer(step: &Step, ask: &Ask<'_>) -> Reply {
    let blocks = blocks(step, ask);
    let message = |content: Vec<Block>, stop: Option<StopReason>| Message {
        id: format!("msg_mock{:04}", ask.n),
        kind: "message",
        role: Role::Assistant,
        model: ask.model.clone(),
        content,
        stop_reason: stop,
        stop_sequence: None,
        usage: usage(step),
    };
    if !ask.stream {
        let body = serde_json::to_value(message(blocks, Some(stop_reason(step)))).unwrap_or_default();
        return Reply::json(200, body);
    }
    let mut events = vec![
        Event::MessageStart {
            message: message(Vec::new(), None),
        }
        .sse(),
        Event::Ping.sse(),
    ];
    for (index, block) in blocks.into_iter().enumerate() {
        let (empty, deltas) = match block {
            Block::Thinking { thinking, signature } => (
                Block::Thinking {
                    thinking: String::new(),
                    signature: String::new(),
                },
                vec![Delta::Thinking { thinking }, Delta::Signature { signature }],
            ),
            Block::Text { .. } => (
                Block::Text { text: String::new() },
                step.text
                    .0
                    .iter()
                    .map(|piece| Delta::Text { text: piece.clone() })
                    .collect(),
            ),
            Block::ToolUse { id, name, input } => (
                Block::ToolUse {
                    id,
                    name,
                    input: json!({}),
                },
                vec![Delta::InputJson {
                    partial_json: input.to_string(),
                }],
            ),
        };
        events.push(
            Event::ContentBlockStart {
                index,
                content_block: empty,
            }
            .sse(),
        );
        events.extend(
            deltas
                .into_iter()
                .map(|delta| Event::ContentBlockDelta { index, delta }.sse()),
        );
        events.push(Event::ContentBlockStop { index }.sse());
    }
    let closing = match &step.fail {
        Some(fail) => vec![Event::Error {
            error: ErrorDetail {
                kind: fail.code.clone(),
                message: fail.message.clone(),
            },
        }
        .sse()],
        None => vec![
            Event::MessageDelta {
                delta: MessageDelta {
                    stop_reason: stop_reason(step),
                    stop_sequence: None,
                },
                usage: OutputUsage {
                    output_tokens: step.usage.output,
                },
            }
            .sse(),
            Event::MessageStop.sse(),
        ],
    };
    Reply::Stream {
        events,
        closing,
        end: step.end,
    }
}

/// An HTTP error in the API's shape.
pub(super) fn error(status: u16, message: Option<&str>, n: u64) -> Reply {
    let (kind, default) = match status {
        400 => ("invalid_request_error", "invalid request"),
        401 => ("authentication_error", "invalid x-api-key"),
        403 => (
            "permission_error",
            "Your API key does not have permission to use the specified resource.",
        ),
        404 => ("not_found_error", "Not found"),
        413 => (
            "request_too_large",
            "Request exceeds the maximum allowed number of bytes.",
        ),
        429 => (
            "rate_limit_error",
            "Number of requests has exceeded your rate limit.",
        ),
        529 => ("overloaded_error", "Overloaded"),
        _ => ("api_error", "Internal server error"),
    };
    let message = message.unwrap_or(default);
    let request_id = format!("req_mock{n:04}");
    let body =
        json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": request_id});
    Reply::json(status, body).with_header("request-id", request_id)
}
