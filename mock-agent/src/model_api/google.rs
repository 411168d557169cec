//! The Gemini API: `POST /v1beta/models/MODEL:streamGenerateContent?alt=sse` (SSE,
//! one `GenerateContentResponse` a `data:` line, no event names) and
//! `POST /v1beta/models/MODEL:generateContent` (one JSON response); `/v1/` too.
//!
//! A streamed answer, one chunk a part:
//!
//! ```text
//! data: {"candidates":[{"content":{"parts":[{"text":"...","thought":true}],"role":"model"},"index":0}],"modelVersion":M,"responseId":"resp_mock0001"}   (a `thinking` step)
//! data: {"candidates":[{"content":{"parts":[{"text":"..."}],"role":"model"},"index":0}],...}                                   (one a piece)
//! data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"run_shell_command","args":{"command":"..."}}}],"role":"model"},"index":0}],...}
//! data: {"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{...},...}   (the closing chunk)
//! ```
//!
//! Errors: `{"error":{"code":429,"message":M,"status":"RESOURCE_EXHAUSTED"}}`. The API
//! has no in-stream error: a `fail` step drops the connection after the content.

use serde_json::{json, Value};

use super::scenario::{End, Step, ToolCall};
use super::{Ask, Offered, Reply, Route, ToolResult};

/// Which requests this API answers; the model is in the path.
pub(super) fn route(method: &str, path: &str) -> Route {
    let path = path.split('?').next().unwrap_or(path);
    let Some(rest) = path
        .strip_prefix("/v1beta/models/")
        .or_else(|| path.strip_prefix("/v1/models/"))
    else {
        return Route::Unknown;
    };
    match (method, rest.rsplit_once(':')) {
        ("POST", Some((_, "streamGenerateContent" | "generateContent"))) => Route::Answer,
        _ => Route::Unknown,
    }
}

/// The model named in the path.
pub(super) fn path_model(path: &str) -> Option<String> {
    let path = path.split('?').next().unwrap_or(path);
    let rest = path.rsplit('/').next()?;
    rest.split_once(':').map(|(model, _)| model.to_owned())
}

/// Whether the path asks for a stream.
pub(super) fn path_streams(path: &str) -> bool {
    path.split('?')
        .next()
        .is_some_and(|p| p.ends_with(":streamGenerateContent"))
}

/// The tools a request offers (`tools[].functionDeclarations[].name`).
pub(super) fn offered(body: &Value) -> Vec<Offered> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["functionDeclarations"].as_array().into_iter().flatten())
        .filter_map(|f| f["name"].as_str())
        .map(Offered::function)
        .collect()
}

/// The function responses of the request's last content.
pub(super) fn tool_results(body: &Value) -> Vec<ToolResult> {
    let Some(last) = body["contents"].as_array().and_then(|c| c.last()) else {
        return Vec::new();
    };
    last["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|part| part.get("functionResponse"))
        .map(|response| {
            let output = &response["response"];
            let content = match (output.get("output"), output.get("error")) {
                (Some(Value::String(s)), _) => s.clone(),
                (_, Some(Value::String(s))) => s.clone(),
                _ => output.to_string(),
            };
            ToolResult {
                id: response["id"]
                    .as_str()
                    .or(response["name"].as_str())
                    .unwrap_or_default()
                    .to_owned(),
                content,
                is_error: output.get("error").is_some(),
            }
        })
        .collect()
}

/// Gemini CLI's tools: `run_shell_command {command}`, `write_file {file_path, content}`.
fn function_call(tool: &ToolCall) -> Value {
    let (name, args) = match tool {
        ToolCall::Shell(command) => ("run_shell_command", json!({"command": command})),
        ToolCall::Write { path, content } => ("write_file", json!({"file_path": path, "content": content})),
        ToolCall::Call { name, input } => (name.as_str(), input.clone()),
    };
    json!({"functionCall": {"name": name, "args": args}})
}

fn usage(step: &Step) -> Value {
    let (input, output) = (step.usage.input, step.usage.output);
    json!({"promptTokenCount": input, "candidatesTokenCount": output, "totalTokenCount": input + output})
}

/// A response holding `parts`; `closing` adds the finish reason and the usage.
fn chunk(parts: Vec<Value>, closing: Option<&Step>, ask: &Ask<'_>) -> Value {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    let mut response =
        json!({"candidates": [], "modelVersion": ask.model, "responseId": format!("resp_mock{:04}", ask.n)});
    if let Some(step) = closing {
        candidate["finishReason"] = json!("STOP");
        response["usageMetadata"] = usage(step);
    }
    response["candidates"] = json!([candidate]);
    response
}

/// The answer to a request.
pub(super) fn answer(step: &Step, ask: &Ask<'_>) -> Reply {
    let mut parts = Vec::new();
    if let Some(thinking) = &step.thinking {
        parts.push(json!({"text": thinking, "thought": true}));
    }
    let texts: Vec<Value> = step
        .text
        .0
        .iter()
        .filter(|piece| !piece.is_empty())
        .map(|piece| json!({"text": piece}))
        .collect();
    if !ask.stream {
        let mut all = parts;
        if !step.text.is_empty() {
            all.push(json!({"text": step.full_text()}));
        }
        all.extend(step.tool.as_ref().map(function_call));
        return Reply::json(200, chunk(all, Some(step), ask));
    }
    parts.extend(texts);
    parts.extend(step.tool.as_ref().map(function_call));
    let events = parts
        .into_iter()
        .map(|part| super::SseEvent {
            event: None,
            data: chunk(vec![part], None, ask).to_string(),
        })
        .collect();
    let (closing, end) = if step.fail.is_some() {
        (Vec::new(), End::Drop)
    } else {
        let last = chunk(vec![json!({"text": ""})], Some(step), ask);
        (
            vec![super::SseEvent {
                event: None,
                data: last.to_string(),
            }],
            step.end,
        )
    };
    Reply::Stream { events, closing, end }
}

/// An HTTP error in the API's shape.
pub(super) fn error(status: u16, message: Option<&str>, _n: u64) -> Reply {
    let (kind, default) = match status {
        400 => ("INVALID_ARGUMENT", "Request contains an invalid argument."),
        401 => (
            "UNAUTHENTICATED",
            "Request had invalid authentication credentials.",
        ),
        403 => ("PERMISSION_DENIED", "The caller does not have permission."),
        404 => ("NOT_FOUND", "Requested entity was not found."),
        429 => (
            "RESOURCE_EXHAUSTED",
            "Resource has been exhausted (e.g. check quota).",
        ),
        503 => ("UNAVAILABLE", "The model is overloaded. Please try again later."),
        504 => ("DEADLINE_EXCEEDED", "Deadline exceeded."),
        _ => ("INTERNAL", "An internal error has occurred."),
    };
    let message = message.unwrap_or(default);
    Reply::json(
        status,
        json!({"error": {"code": status, "message": message, "status": kind}}),
    )
}
