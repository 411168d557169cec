//! The lines the faults write into `codex app-server`'s stdout (JSON-RPC messages,
//! as its notifications are shaped: `method`, `params`, `emittedAtMs`).

use serde_json::{json, Value};

use super::super::wire::rpc::{items, notifications, status};
use super::super::wire::undocumented;
use super::Unknown;

/// A line that starts as a notification and is not JSON.
pub fn malformed() -> Vec<u8> {
    let start = json!({"method": notifications::ITEM_COMPLETED}).to_string();
    let mut line = start.trim_end_matches('}').as_bytes().to_vec();
    line.extend_from_slice(br#","params":{"item":{"id":"item_"#);
    line
}

/// A notification no SDK knows (`turn/forecast`), or an `item/completed` of an item
/// type none knows; naming the turn under way (`ids`: its thread's and its own), as
/// the server's notifications of a turn do.
pub fn unknown(kind: Unknown, ids: Option<&(Value, Value)>) -> Vec<u8> {
    let mut value = match kind {
        Unknown::Event => json!({"method": undocumented::NOTIFICATION,
            "params": {"note": "not documented"}, "emittedAtMs": 0}),
        Unknown::Item => json!({"method": notifications::ITEM_COMPLETED, "params": {"item": {
            "type": undocumented::ITEM, "id": undocumented::ITEM_ID, "text": "not documented"}},
            "emittedAtMs": 0}),
    };
    if let Some((thread, turn)) = ids {
        value["params"]["threadId"] = thread.clone();
        value["params"]["turnId"] = turn.clone();
    }
    value.to_string().into_bytes()
}

/// An `item/completed` of a reasoning item `bytes` long (at least the item without
/// text).
pub fn huge(bytes: usize) -> Vec<u8> {
    let line = |text: &str| {
        json!({"method": notifications::ITEM_COMPLETED, "params": {"item": {
            "type": items::REASONING, "id": undocumented::ITEM_ID, "summary": [text], "content": []}},
            "emittedAtMs": 0})
        .to_string()
    };
    let empty = line("").len();
    line(&"x".repeat(bytes.saturating_sub(empty))).into_bytes()
}

/// A `turn/completed` (what `eof` cuts when no line is left).
pub fn turn_completed() -> Vec<u8> {
    json!({"method": notifications::TURN_COMPLETED, "params": {"turn": {"status": status::COMPLETED}},
        "emittedAtMs": 0})
    .to_string()
    .into_bytes()
}
