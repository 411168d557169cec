//! The tool calls of a [`ToolShape::Described`](crate::acp::profile::ToolShape::Described)
//! profile (Gemini CLI's): no `rawInput` or `rawOutput`; every message about a tool
//! call says its `title`, `kind`, `content` and `locations`, as `gemini --acp` 0.61.0
//! does (`packages/cli/src/acp/acpSession.ts`; observed by `mock-agent drift`):
//!
//! | message | fields |
//! | --- | --- |
//! | `tool_call` (a tool that does not ask) | `toolCallId`, `status: in_progress`, `title`, `content: []`, `locations`, `kind` |
//! | `session/request_permission`'s `toolCall` | `toolCallId`, `status: pending`, `title`, `content` (a write's `diff`), `locations`, `kind` |
//! | `tool_call_update`, completed | `toolCallId`, `status: completed`, `title`, `content` (a write's `diff`), `locations`, `kind` |
//! | `tool_call_update`, failed | `toolCallId`, `status: failed`, `content` (the error's text), `kind` |
//!
//! `locations` names the file a tool touches (`[]` for a command); a write's `diff`
//! is the whole file: `path`, `oldText`, `newText` and `_meta.kind` (`add`). A story
//! does not know what the file held before, so the stand-in's write is always a new
//! file (`oldText: ""`, `add`), as the real CLI's is in a fresh folder; an edit is
//! described by its location only. Paths are made absolute in the session's folder.

use serde_json::{json, Value};

use super::story::{Call, Tool};
use crate::acp::wire::{self, tool_content, tool_statuses, updates};

/// The key of a diff's `_meta` that says what the change does.
const DIFF_KIND: &str = "kind";

/// What a diff of a file nobody had does (`_meta.kind`).
const ADDS: &str = "add";

/// The `tool_call` that announces a tool call that does not ask.
pub fn started(call: &Call, cwd: Option<&str>) -> Value {
    json!({"sessionUpdate": updates::TOOL_CALL, "toolCallId": call.id, "status": tool_statuses::IN_PROGRESS,
           "title": call.title, "content": [], "locations": locations(call, cwd), "kind": call.kind})
}

/// The `toolCall` of the permission request that asks for it.
pub fn asking(call: &Call, cwd: Option<&str>) -> Value {
    json!({"toolCallId": call.id, "status": tool_statuses::PENDING, "title": call.title,
           "content": diff(call, cwd), "locations": locations(call, cwd), "kind": call.kind})
}

/// The `tool_call_update` of its end: completed, or failed with this message.
pub fn finished(call: &Call, failure: Option<&str>, cwd: Option<&str>) -> Value {
    match failure {
        None => {
            json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": call.id, "status": tool_statuses::COMPLETED,
                       "title": call.title, "content": diff(call, cwd), "locations": locations(call, cwd), "kind": call.kind})
        }
        Some(message) => {
            json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": call.id, "status": tool_statuses::FAILED,
                                "content": [wire::block_content(wire::text_block(message))], "kind": call.kind})
        }
    }
}

/// The files a tool call touches: `[{path}]`, or `[]`.
fn locations(call: &Call, cwd: Option<&str>) -> Value {
    match call.tool.path() {
        Some(path) => json!([{"path": super::absolute(path, cwd)}]),
        None => json!([]),
    }
}

/// A write's `content`: the whole file as a `diff`; `[]` for any other tool.
fn diff(call: &Call, cwd: Option<&str>) -> Value {
    match &call.tool {
        Tool::Write { path, content } => {
            json!([{"type": tool_content::DIFF, "path": super::absolute(path, cwd),
                                                 "oldText": "", "newText": content, "_meta": {(DIFF_KIND): ADDS}}])
        }
        _ => json!([]),
    }
}
