//! A turn whose API call failed: the synthetic message, and a stream cut mid-answer.
//!
//! Observed by drift (Claude Code 2.1.331, the `stream-cut` scenario: the Messages
//! API's stream ends before `message_stop`): the answer so far is told as an
//! `assistant` message (`stop_reason: null`), then a synthetic `user` line asks the
//! model to resume (`isSynthetic: true`), three times; after the fourth cut answer
//! comes the synthetic error message (`api_error: "connection_failed"`) and the
//! result. With `--include-partial-messages` (observed the same way): each request
//! starts with `system/status` `requesting`, and a cut answer's stream events are its
//! start and deltas, then `content_block_stop` and `message_stop` made up by the CLI
//! (no `message_delta`).

use serde_json::{json, Value};

use super::super::wire::{blocks, types};
use super::{Item, Player};

/// The `api_error` of a turn whose connection was lost mid-answer.
pub(super) const CONNECTION_FAILED: &str = "connection_failed";

/// How many times a cut answer is asked to resume before the turn fails.
const RESUMES: usize = 3;

/// The synthetic `user` line's text after a cut answer (observed, 2.1.331).
pub const RESUME: &str = "Your response above was cut off mid-stream. Resume directly from where it stops \u{2014} no apology, no recap. If none of it survived, answer the request from the start.";

impl Player {
    /// The synthetic message of a failed API call.
    pub(super) fn synthetic(&mut self, text: &str, error: &str, status: u16) -> Value {
        let mut line = json!({"type": types::ASSISTANT, "message": {"id": self.ids.uuid(), "type": "message", "role": "assistant",
            "model": "<synthetic>", "content": [{"type": blocks::TEXT, "text": text}], "stop_reason": "stop_sequence",
            "stop_sequence": "", "usage": {"input_tokens": 0, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0, "output_tokens": 0}, "context_management": null},
            "parent_tool_use_id": null, "session_id": self.options.session_id, "uuid": self.ids.uuid(),
            "error": error, "is_api_error_message": true, "api_error_status": status});
        if status == 0 {
            // No HTTP status: the connection was lost (observed, Claude Code 2.1.331).
            if let Some(line) = line.as_object_mut() {
                line.remove("api_error_status");
                line.insert("api_error".to_owned(), json!(CONNECTION_FAILED));
            }
        }
        line
    }

    /// The answer `blocks` cut mid-stream, told once and then after each of the
    /// [`RESUMES`] synthetic requests to resume (nothing when nothing was answered).
    pub(super) fn cut(&mut self, blocks: Vec<Value>) {
        if blocks.is_empty() {
            return;
        }
        for attempt in 0..=RESUMES {
            if attempt > 0 {
                let resume = json!({"type": types::USER, "message": {"role": "user",
                    "content": [{"type": blocks::TEXT, "text": RESUME}]},
                    "parent_tool_use_id": null, "session_id": self.options.session_id, "uuid": self.ids.uuid(),
                    "isSynthetic": true});
                self.queue.push_back(Item::Line(resume));
                self.requesting();
            }
            self.flush_message(&mut blocks.clone(), None);
        }
    }
}
