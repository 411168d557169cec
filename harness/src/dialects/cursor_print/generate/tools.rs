//! The tool calls of generated sessions: which kinds each profile uses, and the typed
//! `args` and `result` of each kind, shaped as the real CLI writes them
//! (shared/REAL-CLI.md, "Tool call kinds seen").
//!
//! Arguments are typed ([`crate::dialects::cursor_print::events`] has a struct for each kind). Result payloads
//! are JSON objects, as the model keeps them ([`ToolResult`]): they differ by kind and
//! grow often. The keys of every object are written in the order the real CLI writes
//! them, and that order is part of the bytes of a seed.

use serde_json::{json, Value};

use super::plan::ToolPlan;
use crate::dialects::cursor_print::events::{
    EditArgs, Extra, FunctionCall, GlobArgs, GrepArgs, LsArgs, McpArgs, PathArgs, ReadArgs, ShellArgs, Tool,
    ToolError, ToolResult, ToolUse, UpdateTodosArgs, WriteArgs,
};
use crate::dialects::cursor_print::generate::config::Profile;
use crate::dialects::cursor_print::generate::config::PROJECT;

/// The kinds of tool a generated session calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ToolKind {
    Read,
    Write,
    Edit,
    Shell,
    Glob,
    Grep,
    Ls,
    Delete,
    UpdateTodos,
    Mcp,
    Function,
}

/// Every kind the real CLI is seen to call, in the order of
/// [`crate::dialects::cursor_print::events::TOOL_KEYS`]. Part of the bytes of a seed: a kind added here
/// changes the sessions of most seeds.
const REAL: &[ToolKind] = &[
    ToolKind::Read,
    ToolKind::Write,
    ToolKind::Edit,
    ToolKind::Shell,
    ToolKind::Glob,
    ToolKind::Grep,
    ToolKind::Ls,
    ToolKind::Delete,
    ToolKind::UpdateTodos,
    ToolKind::Mcp,
    ToolKind::Function,
];

/// The kinds the documentation shows.
const SEEDS: &[ToolKind] = &[ToolKind::Read, ToolKind::Write, ToolKind::Function];

impl ToolKind {
    /// The kinds a profile calls.
    pub(super) fn of(profile: Profile) -> &'static [ToolKind] {
        match profile {
            Profile::Seeds => SEEDS,
            Profile::Real => REAL,
        }
    }
}

/// A tool call as its `started` line shows it (arguments) and as its `completed` line
/// does (arguments and result).
pub(super) struct Call {
    pub started: Tool,
    pub completed: Tool,
}

/// The tool of a planned call with id `call_id`.
pub(super) fn call(tool: &ToolPlan, call_id: &str) -> Call {
    let path = tool.path.as_str();
    let text = tool.text.as_str();
    let lines = text.lines().count() as u64;
    let size = text.len() as u64;
    let outcome = |success: Extra| match (tool.ok, tool.kind) {
        (true, _) => ToolResult::Success(success),
        (false, ToolKind::Shell) => ToolResult::Failure(success),
        (false, _) => ToolResult::Error(ToolError {
            error_message: format!("cannot open {path}"),
            extra: Extra::new(),
        }),
    };
    match tool.kind {
        ToolKind::Read => uses(
            Tool::Read,
            ReadArgs {
                path: path.to_owned(),
                extra: Extra::new(),
            },
            outcome(object(json!({
                "content": text, "isEmpty": text.is_empty(), "exceededLimit": false,
                "totalLines": lines, "fileSize": size, "path": path,
            }))),
        ),
        ToolKind::Write => uses(
            Tool::Write,
            WriteArgs {
                path: path.to_owned(),
                file_text: text.to_owned(),
                tool_call_id: Some(call_id.to_owned()),
                extra: Extra::new(),
            },
            outcome(object(json!({
                "path": format!("{PROJECT}/{path}"), "linesCreated": lines, "fileSize": size,
            }))),
        ),
        ToolKind::Edit => uses(
            Tool::Edit,
            EditArgs {
                path: path.to_owned(),
                stream_content: Some(text.to_owned()),
                extra: Extra::new(),
            },
            outcome(object(json!({
                "path": path, "linesAdded": lines, "linesRemoved": 1,
                "diffString": format!("-old\n+{text}"), "afterFullFileContent": text, "message": "Edited",
            }))),
        ),
        ToolKind::Shell => {
            let command = format!("cat {path}");
            let exit_code = if tool.ok { 0 } else { 1 };
            uses(
                Tool::Shell,
                ShellArgs {
                    command: command.clone(),
                    working_directory: Some(PROJECT.to_owned()),
                    timeout: Some(30_000),
                    tool_call_id: Some(call_id.to_owned()),
                    simple_commands: Some(vec!["cat".to_owned()]),
                    parsing_result: None,
                    is_background: Some(false),
                    description: Some("Show the file".to_owned()),
                    extra: Extra::new(),
                },
                outcome(object(json!({
                    "command": command, "exitCode": exit_code, "signal": "", "stdout": text,
                    "stderr": "", "executionTime": 12, "interleavedOutput": text,
                }))),
            )
        }
        ToolKind::Glob => uses(
            Tool::Glob,
            GlobArgs {
                glob_pattern: format!("**/{path}"),
                target_directory: Some(PROJECT.to_owned()),
                extra: Extra::new(),
            },
            outcome(object(json!({
                "pattern": path, "path": PROJECT, "files": [path], "totalFiles": 1,
                "clientTruncated": false, "ripgrepTruncated": false,
            }))),
        ),
        ToolKind::Grep => uses(
            Tool::Grep,
            GrepArgs {
                pattern: text.to_owned(),
                path: Some(path.to_owned()),
                extra: object(json!({"caseInsensitive": false, "multiline": false, "offset": 0})),
            },
            outcome(object(json!({
                "pattern": text, "path": path, "outputMode": "content", "workspaceResults": {},
            }))),
        ),
        ToolKind::Ls => uses(
            Tool::Ls,
            LsArgs {
                path: path.to_owned(),
                ignore: Some(Vec::new()),
                extra: Extra::new(),
            },
            outcome(object(json!({
                "directoryTreeRoot": {"absPath": path, "childrenDirs": [], "childrenFiles": []},
            }))),
        ),
        ToolKind::Delete => uses(
            Tool::Delete,
            PathArgs {
                path: path.to_owned(),
                extra: Extra::new(),
            },
            outcome(object(json!({"path": path}))),
        ),
        ToolKind::UpdateTodos => uses(
            Tool::UpdateTodos,
            UpdateTodosArgs {
                todos: vec![json!({"id": "1", "content": text, "status": "TODO_STATUS_PENDING"})],
                merge: Some(false),
                extra: Extra::new(),
            },
            outcome(object(json!({"todos": [], "totalCount": 1, "wasMerge": false}))),
        ),
        ToolKind::Mcp => {
            let (server, tool) = MCP_TOOL.split_once('-').unwrap_or_default();
            uses(
                Tool::Mcp,
                McpArgs {
                    name: Some(MCP_TOOL.to_owned()),
                    tool_name: Some(tool.to_owned()),
                    extra: object(json!({"serverIdentifier": server, "args": {"q": text}})),
                },
                outcome(object(json!({"content": [{"text": text}], "isError": false}))),
            )
        }
        ToolKind::Function => function(
            FunctionCall {
                name: "lookup".to_owned(),
                arguments: Some(json!({"q": text}).to_string().into()),
                result: None,
                extra: Extra::new(),
            },
            outcome(object(json!({"output": text}))),
        ),
    }
}

/// The MCP tool a generated session calls, qualified: `<server>-<tool>`.
const MCP_TOOL: &str = "docs-search";

/// A `<kind>ToolCall`: `args` when started, `args` and `result` when completed.
fn uses<A: Clone>(kind: fn(ToolUse<A>) -> Tool, args: A, result: ToolResult) -> Call {
    let started = ToolUse {
        args: Some(args.clone()),
        result: None,
        extra: Extra::new(),
    };
    let completed = ToolUse {
        args: Some(args),
        result: Some(result),
        extra: Extra::new(),
    };
    Call {
        started: kind(started),
        completed: kind(completed),
    }
}

/// A `function`: it holds `name` and `arguments` itself, and `result` beside them
/// when completed, as an object with one key, `success` or `error`.
fn function(call: FunctionCall, result: ToolResult) -> Call {
    let completed = FunctionCall {
        result: Some(result_value(result)),
        ..call.clone()
    };
    Call {
        started: Tool::Function(call),
        completed: Tool::Function(completed),
    }
}

/// A tool result as the JSON value `function` carries (its `result` is free-form).
fn result_value(result: ToolResult) -> Value {
    // Serializing maps and strings cannot fail.
    serde_json::to_value(result).unwrap_or_default()
}

/// The fields of a JSON object written with `json!`, in their order.
fn object(value: Value) -> Extra {
    match value {
        Value::Object(fields) => fields,
        _ => Extra::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_real_profile_calls_every_kind_the_model_knows() {
        let keys: Vec<String> = REAL
            .iter()
            .map(|kind| {
                let plan = ToolPlan {
                    kind: *kind,
                    path: "a.rs".into(),
                    text: "x".into(),
                    ok: true,
                };
                call(&plan, "id").started.key().to_owned()
            })
            .collect();
        assert_eq!(keys, crate::dialects::cursor_print::events::TOOL_KEYS);
    }
}
