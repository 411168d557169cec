//! The shapes of app-server's messages: items as they complete, turns, usage, answers
//! and errors (field names and order as observed from 0.163.0).

use serde_json::{json, Value};

use super::super::session::{Failure, Item, Usage};
use super::super::wire::rpc::{error_info, status};

/// A client's decision about a held item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decision {
    /// `accept`, `acceptForSession`, an amendment: it runs.
    Accept,
    /// `decline` (or an answer the server cannot read): the item ends `declined`.
    Decline,
    /// `cancel`: the item ends `declined` and the turn `interrupted`.
    Cancel,
}

/// A held or told item's completed form, as `decision` made it.
pub(super) fn completed(started: &Value, item: &Item, decision: Decision) -> Value {
    let mut done = started.clone();
    let declined = decision != Decision::Accept;
    match item {
        Item::Reasoning(text) => done["summary"] = json!([text]),
        Item::AgentMessage(text) => done["text"] = json!(text),
        Item::Command(command) if declined => done["status"] = json!(status::DECLINED),
        Item::Command(command) => {
            let state = if command.exit_code == 0 {
                status::COMPLETED
            } else {
                status::FAILED
            };
            done["status"] = json!(state);
            done["aggregatedOutput"] = json!(command.output);
            done["exitCode"] = json!(command.exit_code);
            done["durationMs"] = json!(0);
        }
        Item::FileChange(_) => {
            done["status"] = json!(if declined {
                status::DECLINED
            } else {
                status::COMPLETED
            })
        }
        Item::McpToolCall { result, .. } => match result {
            Ok(value) => {
                done["status"] = json!(status::COMPLETED);
                done["result"] = value.clone();
                done["durationMs"] = json!(0);
            }
            Err(message) => {
                done["status"] = json!(status::FAILED);
                done["error"] = json!({"message": message});
                done["durationMs"] = json!(0);
            }
        },
        _ => {}
    }
    done
}

/// A failure's `codexErrorInfo`.
pub(super) fn info_of(failure: &Failure) -> Value {
    let info = match failure {
        // Observed by drift (0.163.0): a 401 is a failed HTTP connection, not
        // `unauthorized`.
        Failure::Unauthorized => return json!({"httpConnectionFailed": {"httpStatusCode": 401}}),
        Failure::RateLimited => error_info::RATE_LIMIT_EXCEEDED,
        Failure::Overloaded => error_info::SERVER_OVERLOADED,
        Failure::Quota => error_info::USAGE_LIMIT_EXCEEDED,
        Failure::ContextWindow => error_info::CONTEXT_WINDOW_EXCEEDED,
        // Observed: an HTTP 400 is `other`.
        Failure::BadRequest { .. }
        | Failure::UnknownModel
        | Failure::StreamCut { .. }
        | Failure::Other { .. } => error_info::OTHER,
    };
    json!(info)
}

/// The `codexErrorInfo` of a retry before `failure`: observed for a 401 (the stream's
/// connection failed with that status); the failure's own otherwise.
pub(super) fn retry_info_of(failure: &Failure) -> Value {
    match failure {
        Failure::Unauthorized => json!({"responseStreamDisconnected": {"httpStatusCode": 401}}),
        other => info_of(other),
    }
}

/// A turn object: `times` is its start (Unix seconds) and, once it ended, its end and
/// duration (ms).
pub(super) fn turn_json(
    id: &str,
    items: Vec<Value>,
    view: &str,
    state: &str,
    error: Value,
    times: Option<(u64, Option<(u64, u64)>)>,
) -> Value {
    let started = times.map(|(s, _)| json!(s)).unwrap_or(Value::Null);
    let (completed, duration) = match times.and_then(|(_, end)| end) {
        Some((end, ms)) => (json!(end), json!(ms)),
        None => (Value::Null, Value::Null),
    };
    json!({"id": id, "rootTurnId": id, "items": items, "itemsView": view, "status": state, "error": error,
        "startedAt": started, "completedAt": completed, "durationMs": duration})
}

/// Usage in app-server's words.
pub(super) fn usage_v2(usage: &Usage) -> Value {
    json!({"totalTokens": usage.total(), "inputTokens": usage.input_tokens,
        "cachedInputTokens": usage.cached_input_tokens, "cacheWriteInputTokens": usage.cache_write_input_tokens,
        "outputTokens": usage.output_tokens, "reasoningOutputTokens": usage.reasoning_output_tokens})
}

/// `{"id":..,"result":..}`.
pub(super) fn answer(id: &Value, result: Value) -> Vec<u8> {
    to_line(&json!({"id": id, "result": result}))
}

/// `{"error":{"code":..,"message":..},"id":..}` (the error first, as observed).
pub(super) fn error(id: &Value, code: i64, message: &str) -> Vec<u8> {
    to_line(&json!({"error": {"code": code, "message": message}, "id": id}))
}

pub(super) fn to_line(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}
