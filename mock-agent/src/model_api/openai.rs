//! The OpenAI Responses API: `POST /v1/responses` (or `/responses`), streamed as SSE
//! when the request says `"stream": true`, else one JSON response object.
//!
//! A streamed answer (each event's `data` is a JSON object whose `type` is the event's
//! name, with a `sequence_number` counting from 0):
//!
//! ```text
//! response.created                 the response, in_progress: id resp_mock0001, the model
//! response.in_progress
//! response.output_item.added       a reasoning item rs_mock0001 (a step with `thinking`)
//! response.reasoning_summary_part.added, response.reasoning_summary_text.delta,
//!   response.reasoning_summary_text.done, response.reasoning_summary_part.done
//! response.output_item.done        the reasoning item, its summary filled in
//! response.output_item.added       a message item msg_mock0001, in_progress
//! response.content_part.added, a response.output_text.delta for each piece of the
//!   step's text, response.output_text.done, response.content_part.done
//! response.output_item.done        the message, complete
//! response.output_item.added       a function_call item: call_id call_mock0001, name exec_command
//! response.function_call_arguments.delta, response.function_call_arguments.done
//! response.output_item.done        the call, complete
//! response.completed               the response with every item and the usage   (the closing event)
//! ```
//!
//! A write to a tool offered as a custom (freeform) tool, as Codex offers
//! `apply_patch`, is a `custom_tool_call` item with `response.custom_tool_call_input.*`
//! events. Errors: `{"error":{"message":M,"type":T,"param":null,"code":C}}`. A `fail`
//! step closes with `response.failed` (`"status":"failed","error":{"code","message"}`).

use serde::Serialize;
use serde_json::{json, Value};

use super::scenario::{Step, ToolCall};
use super::{Ask, Offered, Reply, Route, SseEvent, ToolResult};

/// Which requests this API answers.
pub(super) fn route(method: &str, path: &str) -> Route {
    let path = path.split('?').next().unwrap_or(path);
    match (method, path) {
        ("POST", "/v1/responses" | "/responses") => Route::Answer,
        _ => Route::Unknown,
    }
}

/// The tools a request offers: `tools[]`, and the namespaces of `additional_tools`
/// input items (Codex's code mode), flattened.
pub(super) fn offered(body: &Value) -> Vec<Offered> {
    fn walk(tools: &Value, found: &mut Vec<Offered>) {
        for tool in tools.as_array().into_iter().flatten() {
            match (tool["name"].as_str(), tool["type"].as_str()) {
                (Some(_), Some("namespace")) | (None, _) => {}
                (Some(name), Some("custom")) => found.push(Offered::custom(name)),
                (Some(name), _) => found.push(Offered::function(name)),
            }
            walk(&tool["tools"], found);
        }
    }
    let mut found = Vec::new();
    walk(&body["tools"], &mut found);
    for item in body["input"].as_array().into_iter().flatten() {
        if item["type"] == "additional_tools" {
            walk(&item["tools"], &mut found);
        }
    }
    found
}

/// The tool outputs at the end of the request's input (after its last message).
pub(super) fn tool_results(body: &Value) -> Vec<ToolResult> {
    let mut found = Vec::new();
    for item in body["input"].as_array().into_iter().flatten().rev() {
        match item["type"].as_str() {
            Some("message") => break,
            Some("function_call_output" | "custom_tool_call_output") => found.push(ToolResult {
                id: item["call_id"].as_str().unwrap_or_default().to_owned(),
                content: match &item["output"] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                },
                is_error: false,
            }),
            _ => {}
        }
    }
    found.reverse();
    found
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
#[serde(rename_all = "snake_case")]
enum Status {
    InProgress,
    Completed,
    Failed,
}

#[derive(Serialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Role {
    Assistant,
}

#[derive(Serialize, Clone)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part {
    SummaryText { text: String },
    OutputText { text: String, annotations: Vec<Value> },
}

#[derive(Serialize, Clone)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Item {
    Reasoning {
        id: String,
        summary: Vec<Part>,
    },
    Message {
        id: String,
        status: Status,
        role: Role,
        content: Vec<Part>,
    },
    FunctionCall {
        id: String,
        status: Status,
        call_id: String,
        name: String,
        arguments: String,
    },
    CustomToolCall {
        id: String,
        status: Status,
        call_id: String,
        name: String,
        input: String,
    },
}

#[derive(Serialize, Clone)]
struct Response {
    id: String,
    object: &'static str,
    created_at: u64,
    status: Status,
    model: String,
    output: Vec<Item>,
    usage: Option<Value>,
    error: Option<Value>,
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum Event {
    #[serde(rename = "response.created")]
    Created { response: Response },
    #[serde(rename = "response.in_progress")]
    InProgress { response: Response },
    #[serde(rename = "response.output_item.added")]
    ItemAdded { output_index: usize, item: Item },
    #[serde(rename = "response.output_item.done")]
    ItemDone { output_index: usize, item: Item },
    #[serde(rename = "response.reasoning_summary_part.added")]
    SummaryPartAdded {
        item_id: String,
        output_index: usize,
        summary_index: usize,
        part: Part,
    },
    #[serde(rename = "response.reasoning_summary_text.delta")]
    SummaryTextDelta {
        item_id: String,
        output_index: usize,
        summary_index: usize,
        delta: String,
    },
    #[serde(rename = "response.reasoning_summary_text.done")]
    SummaryTextDone {
        item_id: String,
        output_index: usize,
        summary_index: usize,
        text: String,
    },
    #[serde(rename = "response.reasoning_summary_part.done")]
    SummaryPartDone {
        item_id: String,
        output_index: usize,
        summary_index: usize,
        part: Part,
    },
    #[serde(rename = "response.content_part.added")]
    ContentPartAdded {
        item_id: String,
        output_index: usize,
        content_index: usize,
        part: Part,
    },
    #[serde(rename = "response.output_text.delta")]
    TextDelta {
        item_id: String,
        output_index: usize,
        content_index: usize,
        delta: String,
    },
    #[serde(rename = "response.output_text.done")]
    TextDone {
        item_id: String,
        output_index: usize,
        content_index: usize,
        text: String,
    },
    #[serde(rename = "response.content_part.done")]
    ContentPartDone {
        item_id: String,
        output_index: usize,
        content_index: usize,
        part: Part,
    },
    #[serde(rename = "response.function_call_arguments.delta")]
    ArgumentsDelta {
        item_id: String,
        output_index: usize,
        delta: String,
    },
    #[serde(rename = "response.function_call_arguments.done")]
    ArgumentsDone {
        item_id: String,
        output_index: usize,
        arguments: String,
    },
    #[serde(rename = "response.custom_tool_call_input.delta")]
    InputDelta {
        item_id: String,
        output_index: usize,
        delta: String,
    },
    #[serde(rename = "response.custom_tool_call_input.done")]
    InputDone {
        item_id: String,
        output_index: usize,
        input: String,
    },
    #[serde(rename = "response.completed")]
    Completed { response: Response },
    #[serde(rename = "response.failed")]
    Failed { response: Response },
}

/// The items of a step, completed.
fn items(step: &Step, ask: &Ask<'_>) -> Vec<Item> {
    let n = ask.n;
    let mut items = Vec::new();
    if let Some(thinking) = &step.thinking {
        items.push(Item::Reasoning {
            id: format!("rs_mock{n:04}"),
            summary: vec![Part::SummaryText {
                text: thinking.clone(),
            }],
        });
    }
    if !step.text.is_empty() {
        items.push(Item::Message {
            id: format!("msg_mock{n:04}"),
            status: Status::Completed,
            role: Role::Assistant,
            content: vec![Part::OutputText {
                text: step.full_text(),
                annotations: Vec::new(),
            }],
        });
    }
    if let Some(tool) = &step.tool {
        items.push(tool_item(tool, ask));
    }
    items
}

/// The call of a step's tool, with the tool the request offers for it.
fn tool_item(tool: &ToolCall, ask: &Ask<'_>) -> Item {
    let n = ask.n;
    let call_id = format!("call_mock{n:04}");
    let function = |name: &str, arguments: Value| Item::FunctionCall {
        id: format!("fc_mock{n:04}"),
        status: Status::Completed,
        call_id: call_id.clone(),
        name: name.to_owned(),
        arguments: arguments.to_string(),
    };
    let offers = |name: &str| ask.offered.iter().find(|t| t.name == name);
    match tool {
        ToolCall::Shell(command) => {
            if offers("exec_command").is_some() {
                function("exec_command", json!({"cmd": command}))
            } else if offers("shell_command").is_some() {
                function("shell_command", json!({"command": command}))
            } else if offers("shell").is_some() {
                function("shell", json!({"command": ["bash", "-lc", command]}))
            } else {
                function("exec_command", json!({"cmd": command}))
            }
        }
        ToolCall::Write { path, content } => {
            let patch = add_file_patch(path, content);
            match offers("apply_patch") {
                Some(tool) if !tool.custom => function("apply_patch", json!({"input": patch})),
                _ => Item::CustomToolCall {
                    id: format!("ctc_mock{n:04}"),
                    status: Status::Completed,
                    call_id,
                    name: "apply_patch".to_owned(),
                    input: patch,
                },
            }
        }
        ToolCall::Call { name, input } => match offers(name) {
            Some(tool) if tool.custom => Item::CustomToolCall {
                id: format!("ctc_mock{n:04}"),
                status: Status::Completed,
                call_id,
                name: name.clone(),
                input: input.as_str().map_or_else(|| input.to_string(), str::to_owned),
            },
            _ => function(name, input.clone()),
        },
    }
}

/// An `apply_patch` patch that adds `path` with `content`.
fn add_file_patch(path: &str, content: &str) -> String {
    let mut patch = format!("*** Begin Patch\n*** Add File: {path}\n");
    for line in content.lines() {
        patch.push('+');
        patch.push_str(line);
        patch.push('\n');
    }
    patch.push_str("*** End Patch\n");
    patch
}

/// The item as it is announced: in progress, nothing in it yet.
fn started(item: &Item) -> Item {
    match item.clone() {
        Item::Reasoning { id, .. } => Item::Reasoning {
            id,
            summary: Vec::new(),
        },
        Item::Message { id, role, .. } => Item::Message {
            id,
            status: Status::InProgress,
            role,
            content: Vec::new(),
        },
        Item::FunctionCall {
            id, call_id, name, ..
        } => Item::FunctionCall {
            id,
            status: Status::InProgress,
            call_id,
            name,
            arguments: String::new(),
        },
        Item::CustomToolCall {
            id, call_id, name, ..
        } => Item::CustomToolCall {
            id,
            status: Status::InProgress,
            call_id,
            name,
            input: String::new(),
        },
    }
}

/// The events of one item, between its `added` and its `done`.
fn item_events(step: &Step, output_index: usize, item: &Item) -> Vec<Event> {
    match item {
        Item::Reasoning { id, summary } => {
            let text = match summary.first() {
                Some(Part::SummaryText { text }) => text.clone(),
                _ => String::new(),
            };
            let part = |text: &str| Part::SummaryText {
                text: text.to_owned(),
            };
            vec![
                Event::SummaryPartAdded {
                    item_id: id.clone(),
                    output_index,
                    summary_index: 0,
                    part: part(""),
                },
                Event::SummaryTextDelta {
                    item_id: id.clone(),
                    output_index,
                    summary_index: 0,
                    delta: text.clone(),
                },
                Event::SummaryTextDone {
                    item_id: id.clone(),
                    output_index,
                    summary_index: 0,
                    text: text.clone(),
                },
                Event::SummaryPartDone {
                    item_id: id.clone(),
                    output_index,
                    summary_index: 0,
                    part: part(&text),
                },
            ]
        }
        Item::Message { id, .. } => {
            let part = |text: String| Part::OutputText {
                text,
                annotations: Vec::new(),
            };
            let mut events = vec![Event::ContentPartAdded {
                item_id: id.clone(),
                output_index,
                content_index: 0,
                part: part(String::new()),
            }];
            events.extend(step.text.0.iter().map(|piece| Event::TextDelta {
                item_id: id.clone(),
                output_index,
                content_index: 0,
                delta: piece.clone(),
            }));
            events.push(Event::TextDone {
                item_id: id.clone(),
                output_index,
                content_index: 0,
                text: step.full_text(),
            });
            events.push(Event::ContentPartDone {
                item_id: id.clone(),
                output_index,
                content_index: 0,
                part: part(step.full_text()),
            });
            events
        }
        Item::FunctionCall { id, arguments, .. } => vec![
            Event::ArgumentsDelta {
                item_id: id.clone(),
                output_index,
                delta: arguments.clone(),
            },
            Event::ArgumentsDone {
                item_id: id.clone(),
                output_index,
                arguments: arguments.clone(),
            },
        ],
        Item::CustomToolCall { id, input, .. } => vec![
            Event::InputDelta {
                item_id: id.clone(),
                output_index,
                delta: input.clone(),
            },
            Event::InputDone {
                item_id: id.clone(),
                output_index,
                input: input.clone(),
            },
        ],
    }
}

fn usage(step: &Step) -> Value {
    let (input, output) = (step.usage.input, step.usage.output);
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input + output,
    })
}

/// The answer to a request.
pub(super) fn answer(step: &Step, ask: &Ask<'_>) -> Reply {
    let items = items(step, ask);
    let response = |status: Status, output: Vec<Item>, usage: Option<Value>, error: Option<Value>| Response {
        id: format!("resp_mock{:04}", ask.n),
        object: "response",
        created_at: ask.now_s,
        status,
        model: ask.model.clone(),
        output,
        usage,
        error,
    };
    if !ask.stream {
        let body = response(Status::Completed, items, Some(usage(step)), None);
        return Reply::json(200, serde_json::to_value(body).unwrap_or_default());
    }
    let mut events = vec![
        Event::Created {
            response: response(Status::InProgress, Vec::new(), None, None),
        },
        Event::InProgress {
            response: response(Status::InProgress, Vec::new(), None, None),
        },
    ];
    for (output_index, item) in items.iter().enumerate() {
        events.push(Event::ItemAdded {
            output_index,
            item: started(item),
        });
        events.extend(item_events(step, output_index, item));
        events.push(Event::ItemDone {
            output_index,
            item: item.clone(),
        });
    }
    let closing = match &step.fail {
        Some(fail) => Event::Failed {
            response: response(
                Status::Failed,
                Vec::new(),
                None,
                Some(json!({"code": fail.code, "message": fail.message})),
            ),
        },
        None => Event::Completed {
            response: response(Status::Completed, items, Some(usage(step)), None),
        },
    };
    let mut sequence = 0;
    let mut sse = |event: Event| {
        let mut data = serde_json::to_value(event).unwrap_or_default();
        data["sequence_number"] = json!(sequence);
        sequence += 1;
        SseEvent {
            event: data["type"].as_str().map(str::to_owned),
            data: data.to_string(),
        }
    };
    let events = events.into_iter().map(&mut sse).collect();
    let closing = vec![sse(closing)];
    Reply::Stream {
        events,
        closing,
        end: step.end,
    }
}

/// An HTTP error in the API's shape.
pub(super) fn error(status: u16, message: Option<&str>, _n: u64) -> Reply {
    let (kind, code) = match status {
        400 => ("invalid_request_error", Value::Null),
        401 => ("invalid_request_error", json!("invalid_api_key")),
        403 => (
            "invalid_request_error",
            json!("unsupported_country_region_territory"),
        ),
        404 => ("invalid_request_error", json!("model_not_found")),
        429 => ("requests", json!("rate_limit_exceeded")),
        _ => ("server_error", Value::Null),
    };
    let message = message.map_or_else(|| format!("mock {status} {kind}"), str::to_owned);
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": code}});
    Reply::json(status, body)
}
