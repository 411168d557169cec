//! The hooks a client registers in `initialize` (`"hooks":{"PreToolUse":[{"matcher":
//! "Write","hookCallbackIds":["hook_0"]}]}`), and the `hook_callback` request the CLI
//! sends to call one (observed for `PreToolUse`: see REAL-CLAUDE.md).
//!
//! - `PreToolUse`: before a tool whose name the matcher takes, before its permission
//!   step; its answer may allow or deny the call
//!   (`hookSpecificOutput.permissionDecision`).
//! - `PostToolUse`: after a tool that ran (allowed) has its result, before the result's
//!   `user` line; its input adds `tool_response` (the tool's structured output, the
//!   `tool_use_result` of that line). Its answer goes to the model (`decision: block`,
//!   `additionalContext`), which a scripted session does not have: it is waited for
//!   and changes nothing. A denied call has no `PostToolUse`.
//!
//! Other events (`UserPromptSubmit`, `Stop`, ...) are kept but never called.

use serde_json::{json, Value};

use super::super::wire::{control, types};
use super::Options;

/// The event called before a tool.
pub const PRE_TOOL_USE: &str = "PreToolUse";

/// The event called after a tool's result.
pub const POST_TOOL_USE: &str = "PostToolUse";

/// A hook the client registered in `initialize`: `PreToolUse` callbacks are called
/// before a tool whose name the matcher takes, `PostToolUse` ones after its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    /// The event (`PreToolUse`, `PostToolUse`).
    pub event: String,
    /// The matcher (`Write`, `Write|Edit`, empty or `*` for every tool).
    pub matcher: String,
    /// The callback's id (`hook_0`).
    pub callback: String,
}

impl Hook {
    /// The hooks of an `initialize` request's `hooks` object.
    pub fn from_initialize(hooks: &Value) -> Vec<Hook> {
        let Some(events) = hooks.as_object() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (event, matchers) in events {
            for matcher in matchers.as_array().into_iter().flatten() {
                let pattern = matcher.get("matcher").and_then(Value::as_str).unwrap_or_default();
                for id in matcher
                    .get("hookCallbackIds")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(id) = id.as_str() {
                        out.push(Hook {
                            event: event.clone(),
                            matcher: pattern.to_owned(),
                            callback: id.to_owned(),
                        });
                    }
                }
            }
        }
        out
    }

    /// Whether the hook is called at `event` for tool `tool`.
    pub fn takes(&self, event: &str, tool: &str) -> bool {
        self.event == event
            && (self.matcher.is_empty() || self.matcher == "*" || self.matcher.split('|').any(|m| m == tool))
    }
}

/// The `hook_callback` request `id` that calls `callback` at `event` for the call
/// `tool_use_id` of `tool` with `input`; `response`: the tool's output, for
/// `PostToolUse`.
pub(super) fn callback_request(
    options: &Options,
    id: &str,
    callback: &str,
    event: &str,
    (tool, input, tool_use_id): (&str, &Value, &str),
    response: Option<&Value>,
) -> Value {
    let mut hook_input = json!({
        "session_id": options.session_id,
        "transcript_path": format!("{}/.claude/transcript.jsonl", options.cwd),
        "cwd": options.cwd, "permission_mode": options.permission_mode,
        "hook_event_name": event, "tool_name": tool, "tool_input": input});
    if let Some(response) = response {
        hook_input["tool_response"] = response.clone();
    }
    hook_input["tool_use_id"] = json!(tool_use_id);
    json!({"type": types::CONTROL_REQUEST, "request_id": id, "request": {
        "subtype": control::HOOK_CALLBACK, "callback_id": callback, "input": hook_input,
        "tool_use_id": tool_use_id}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_are_read_from_initialize_and_match_their_event_and_tool() {
        let hooks = Hook::from_initialize(&json!({
            "PreToolUse": [{"matcher": "Write|Edit", "hookCallbackIds": ["hook_0"]}],
            "PostToolUse": [{"matcher": null, "hookCallbackIds": ["hook_1", "hook_2"]}],
        }));
        assert_eq!(hooks.len(), 3);
        let pre = &hooks[0];
        let post = hooks.iter().find(|h| h.callback == "hook_1").expect("hook_1");
        assert!(pre.takes(PRE_TOOL_USE, "Edit") && !pre.takes(PRE_TOOL_USE, "Bash"));
        assert!(
            !pre.takes(POST_TOOL_USE, "Edit"),
            "a PreToolUse hook is not called after"
        );
        assert!(post.takes(POST_TOOL_USE, "Bash") && !post.takes(PRE_TOOL_USE, "Bash"));
    }
}
