//! What an interrupted turn still tells: the items it started and never completed.
//!
//! Observed by drift (codex-cli 0.163.0, the `interrupted` scenario: the model's
//! stream stalled after "Half an answer", the client sent `turn/interrupt`): the
//! agent message under way is completed with the text streamed so far, then come the
//! rate limits, the thread's read state, the answer `{}`, `idle` and the turn
//! `interrupted` (its `items` not loaded).

use serde_json::{json, Value};

use super::super::wire::rpc::{items, notifications};
use super::shapes::completed;
use super::{Decision, Player, Step};

impl Player {
    /// The client interrupted the turn: a held item ends `declined`, the turn ends
    /// `interrupted` (nothing when no turn is under way).
    pub(super) fn interrupt(&mut self) -> Vec<Vec<u8>> {
        let Some(live) = self.live.as_mut() else {
            return Vec::new();
        };
        live.interrupted = true;
        let held = live
            .asked
            .take()
            .map(|(request, n)| (request, live.held[n].clone()));
        // At an approval, the model call that asked for it has ended.
        live.call_ended |= held.is_some();
        // What was stepped and not written, and what was still to come: the items
        // started before the interrupt end as far as they were streamed.
        let mut unwritten = std::mem::take(&mut live.unwritten);
        let (thread, turn) = self.ids();
        let mut lines = Vec::new();
        if let Some((request, (started, item, _))) = held {
            lines.push(self.note(
                notifications::SERVER_REQUEST_RESOLVED,
                json!({"threadId": thread, "requestId": request}),
            ));
            let done = completed(&started, &item, Decision::Decline);
            lines.push(self.note(
                notifications::ITEM_COMPLETED,
                json!({"item": done, "threadId": thread, "turnId": turn, "completedAtMs": self.now_ms}),
            ));
        }
        unwritten.extend(self.queue.iter().filter_map(|step| match step {
            Step::Note(method, params) => Some(json!({"method": method, "params": params})),
            _ => None,
        }));
        for params in completions(&unwritten) {
            lines.push(self.note(notifications::ITEM_COMPLETED, params));
        }
        self.queue.clear();
        self.finish();
        while let Some(Step::Note(method, params)) = self.queue.pop_front() {
            lines.push(self.note(method, params));
        }
        lines
    }

    /// The lines the process stepped but did not write (it stalled before them and
    /// the client interrupted the turn): what [`Player::feed`] tells of the
    /// interrupt completes their items as far as they were written.
    pub fn unwritten(&mut self, lines: &[Vec<u8>]) {
        if let Some(live) = self.live.as_mut() {
            live.unwritten.extend(
                lines
                    .iter()
                    .filter_map(|l| serde_json::from_slice::<Value>(l).ok()),
            );
        }
    }
}

/// The `item/completed` params among `unwritten` (the lines the client never got, in
/// order) whose item was started before them: each completed as far as it was
/// streamed (an agent message's text without the deltas not written).
pub(super) fn completions(unwritten: &[Value]) -> Vec<Value> {
    let method = |v: &Value| v.get("method").and_then(Value::as_str).map(str::to_owned);
    let item_id = |v: &Value| v.pointer("/params/item/id").cloned();
    let started_unwritten = |id: &Value| {
        unwritten.iter().any(|l| {
            method(l).as_deref() == Some(notifications::ITEM_STARTED) && item_id(l).as_ref() == Some(id)
        })
    };
    let mut done = Vec::new();
    for line in unwritten {
        if method(line).as_deref() != Some(notifications::ITEM_COMPLETED) {
            continue;
        }
        let Some(id) = item_id(line) else { continue };
        if started_unwritten(&id) {
            continue;
        }
        let mut params = line.get("params").cloned().unwrap_or(Value::Null);
        if params.pointer("/item/type").and_then(Value::as_str) == Some(items::AGENT_MESSAGE) {
            let lost: String = unwritten
                .iter()
                .filter(|l| {
                    method(l).as_deref() == Some(notifications::AGENT_MESSAGE_DELTA)
                        && l.pointer("/params/itemId") == Some(&id)
                })
                .filter_map(|l| l.get("params")?.get(notifications::DELTA)?.as_str())
                .collect();
            if let Some(text) = params.pointer_mut("/item/text") {
                let full = text.as_str().unwrap_or_default();
                let kept = full.strip_suffix(lost.as_str()).unwrap_or(full).to_owned();
                *text = Value::String(kept);
            }
        }
        done.push(params);
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn started(id: &str) -> Value {
        json!({"method": notifications::ITEM_STARTED,
            "params": {"item": {"type": items::AGENT_MESSAGE, "id": id, "text": ""}}})
    }
    fn delta(id: &str, text: &str) -> Value {
        json!({"method": notifications::AGENT_MESSAGE_DELTA, "params": {"itemId": id, notifications::DELTA: text}})
    }
    fn completed(id: &str, text: &str) -> Value {
        json!({"method": notifications::ITEM_COMPLETED,
            "params": {"item": {"type": items::AGENT_MESSAGE, "id": id, "text": text}}})
    }

    #[test]
    fn an_item_started_before_the_cut_is_completed_with_what_was_streamed() {
        // "Half " was written; " an answer" and the completion were not; the next
        // message never started.
        let unwritten = [
            delta("m1", "an answer"),
            completed("m1", "Half an answer"),
            started("m2"),
            delta("m2", "More"),
            completed("m2", "More"),
        ];
        let done = completions(&unwritten);
        assert_eq!(done.len(), 1);
        assert_eq!(done[0]["item"]["id"], "m1");
        assert_eq!(done[0]["item"]["text"], "Half ");
    }

    #[test]
    fn nothing_is_completed_when_every_started_item_was_completed() {
        assert!(completions(&[started("m2"), completed("m2", "x")]).is_empty());
        assert!(completions(&[]).is_empty());
    }
}
