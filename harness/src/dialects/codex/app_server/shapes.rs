//! The shapes of app-server's messages: items as they complete, turns, usage, answers
//! and errors (field names and order as observed from 0.163.0).

use serde_json::{json, Value};

use super::super::session::{Failure, Item, Usage};

use super::super::wire::rpc::{error_info, items, notifications, status, SOURCE_AGENT, UNKNOWN_ACTION};
use super::super::wire::CONTEXT_WINDOW;

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
        // Observed by drift (0.163.0): a 429 that outlasts the retries is too many
        // failed attempts, not `rateLimitExceeded`.
        Failure::RateLimited => {
            return json!({error_info::RESPONSE_TOO_MANY_FAILED_ATTEMPTS: {error_info::HTTP_STATUS_CODE: 429}})
        }
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

/// The `codexErrorInfo` of a retry before `failure`: observed for a 401 and a 429 (the
/// stream's connection failed with that status); the failure's own otherwise.
pub(super) fn retry_info_of(failure: &Failure) -> Value {
    let disconnected = |status: u16| json!({error_info::RESPONSE_STREAM_DISCONNECTED: {error_info::HTTP_STATUS_CODE: status}});
    match failure {
        Failure::Unauthorized => disconnected(401),
        Failure::RateLimited => disconnected(429),
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

/// How many model calls a turn of `items` takes, and after which item each but the
/// last ends: a tool's output goes back to the model in a call of its own, so a call
/// that asked for a tool (a command, a patch, an MCP tool) ends after it when more
/// follows (observed: `thread/tokenUsage/updated` after the command's `item/completed`).
pub(super) fn call_ends(items: &[Item]) -> Vec<bool> {
    items
        .iter()
        .enumerate()
        .map(|(n, item)| {
            matches!(
                item,
                Item::Command(_) | Item::FileChange(_) | Item::McpToolCall { .. }
            ) && n + 1 < items.len()
        })
        .collect()
}

/// How many model calls a turn of `items` takes.
pub(super) fn model_calls(items: &[Item]) -> usize {
    1 + call_ends(items).iter().filter(|&&ends| ends).count()
}

/// A turn's `usage` shared among its `calls` model calls (at least one): even shares,
/// what does not divide evenly in the last.
pub(super) fn per_call(usage: Usage, calls: usize) -> Vec<Usage> {
    let calls = calls.max(1);
    let k = u64::try_from(calls).unwrap_or(u64::MAX);
    let share = |total: u64| total / k;
    let even = Usage {
        input_tokens: share(usage.input_tokens),
        cached_input_tokens: share(usage.cached_input_tokens),
        cache_write_input_tokens: share(usage.cache_write_input_tokens),
        output_tokens: share(usage.output_tokens),
        reasoning_output_tokens: share(usage.reasoning_output_tokens),
    };
    let rest = |total: u64, part: u64| total - part * (k - 1);
    let last = Usage {
        input_tokens: rest(usage.input_tokens, even.input_tokens),
        cached_input_tokens: rest(usage.cached_input_tokens, even.cached_input_tokens),
        cache_write_input_tokens: rest(usage.cache_write_input_tokens, even.cache_write_input_tokens),
        output_tokens: rest(usage.output_tokens, even.output_tokens),
        reasoning_output_tokens: rest(usage.reasoning_output_tokens, even.reasoning_output_tokens),
    };
    let mut shares = vec![even; calls - 1];
    shares.push(last);
    shares
}

/// `thread/tokenUsage/updated`'s params: the thread's running `total`, the call's
/// usage as `last`.
pub(super) fn token_usage(thread: &str, turn: &str, total: &Usage, last: &Usage) -> Value {
    json!({"threadId": thread, "turnId": turn, "tokenUsage": {"total": usage_v2(total),
        "last": usage_v2(last), "modelContextWindow": CONTEXT_WINDOW}})
}

/// `account/rateLimits/updated`, after each model call's usage.
pub(super) fn rate_limits() -> super::Step {
    super::Step::Note(
        notifications::RATE_LIMITS_UPDATED,
        json!({"rateLimits": {"limitId": "codex", "limitName": null, "normalModelSlug": null,
            "primary": null, "secondary": null, "credits": null, "individualLimit": null,
            "spendControlReached": null, "planType": null, "rateLimitReachedType": null}}),
    )
}

/// An item as app-server starts it, the `n`th of the session (`None`: not told here).
pub(super) fn started(item: &Item, n: usize, cwd: &str) -> Option<Value> {
    Some(match item {
        Item::Reasoning(text) if text.is_empty() => return None,
        Item::Reasoning(_) => {
            json!({"type": items::REASONING, "id": format!("rs_{n}"), "summary": [], "content": []})
        }
        Item::AgentMessage(_) => {
            json!({"type": items::AGENT_MESSAGE, "id": format!("msg_{n}"), "text": "",
            "phase": null, "memoryCitation": null, "delivery": null, "questions": null})
        }
        Item::Command(command) => json!({"type": items::COMMAND_EXECUTION, "id": format!("call_{n}"),
            "pluginId": null, "scriptPath": null, "command": command.shell_line(), "cwd": cwd, "processId": null, "source": SOURCE_AGENT,
            "status": status::IN_PROGRESS, "commandActions": [{"type": UNKNOWN_ACTION, "command": command.command}],
            "aggregatedOutput": null, "exitCode": null, "durationMs": null}),
        Item::FileChange(change) => {
            let changes: Vec<Value> = change
                .changes
                .iter()
                .map(|c| json!({"path": c.path, "kind": {"type": c.kind}, "diff": c.diff}))
                .collect();
            json!({"type": items::FILE_CHANGE, "id": format!("call_{n}"), "changes": changes,
                "status": status::IN_PROGRESS})
        }
        Item::WebSearch { id, query } => json!({"type": items::WEB_SEARCH, "id": id, "query": query,
            "action": {"type": super::super::wire::items::SEARCH_ACTION, "query": query}}),
        Item::McpToolCall {
            server,
            tool,
            arguments,
            ..
        } => json!({"type": items::MCP_TOOL_CALL,
            "id": format!("call_{n}"), "server": server, "tool": tool, "status": status::IN_PROGRESS,
            "arguments": arguments, "result": null, "error": null, "durationMs": null}),
        Item::Unknown(value) => {
            let mut value = value.clone();
            if let Some(object) = value.as_object_mut() {
                object.entry("id").or_insert_with(|| json!(format!("item_{n}")));
            }
            value
        }
        // The exec stream's plan and warnings have app-server notifications of
        // their own (`turn/plan/updated`, `warning`) that the stand-in does not
        // write yet.
        Item::TodoList(_) | Item::Warning(_) => return None,
        // Told as an `error` notification (see `plan`).
        Item::Reconnect { .. } => return None,
    })
}
