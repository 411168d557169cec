//! Claude Code's wire model: every name of its stream-json dialect, said once, and the
//! client's lines read into types.
//!
//! Both ways the dialect is one JSON object per line. The CLI writes messages
//! (`system`, `assistant`, `user`, `result`, `stream_event`) and its own requests
//! (`control_request`: `can_use_tool`, `hook_callback`, `mcp_message`); the client (an
//! Agent SDK) writes user messages (the turns) and control requests (`initialize`,
//! `interrupt`, `set_permission_mode`, `set_model`), and answers the CLI's requests
//! with `control_response`. See `REAL-CLAUDE.md` in the project's notes.

use serde_json::Value;

/// The version the mock says it is (`claude -v`, `claude_code_version`).
pub const VERSION: &str = "2.1.331";

pub use crate::cassette::DIALECT_KEY;

/// This dialect's name in a cassette's invocation (`"dialect":"claude"`).
pub const DIALECT: &str = "claude";

/// The model the default session names (`--model` overrides it).
pub const MODEL: &str = "claude-sonnet-4-5";

/// The objects the CLI writes on stdout, as a consumer that passes them on prints them
/// ([`Dialect::own_objects`](crate::run::Dialect::own_objects)): a message with a
/// string `type` and the run's `session_id`.
pub const OWN_OBJECTS: &[crate::run::OwnObject] = &[crate::run::OwnObject {
    keys: &["session_id"],
    kind: Some(("type", &[])),
}];

/// The `type` of every line.
pub mod types {
    /// System messages: `init`, state changes, status.
    pub const SYSTEM: &str = "system";
    /// One content block of the model's answer.
    pub const ASSISTANT: &str = "assistant";
    /// A user message: the prompt (client to CLI), a tool's result (CLI to client).
    pub const USER: &str = "user";
    /// The end of a turn.
    pub const RESULT: &str = "result";
    /// A raw Messages API stream event (`--include-partial-messages`).
    pub const STREAM_EVENT: &str = "stream_event";
    /// A request, either way.
    pub const CONTROL_REQUEST: &str = "control_request";
    /// The answer to a request, either way.
    pub const CONTROL_RESPONSE: &str = "control_response";
    /// A request withdrawn by the side that sent it.
    pub const CONTROL_CANCEL_REQUEST: &str = "control_cancel_request";
    /// A line that keeps the channel open (TypeScript SDK).
    pub const KEEP_ALIVE: &str = "keep_alive";
    /// A rate-limit notice (under a subscription login): `rate_limit_info` with its
    /// `status`, `uuid`, `session_id`. The Python SDK parses it (0.2.188 requires those
    /// fields, and raises without one); the TypeScript SDK hands it on.
    pub const RATE_LIMIT_EVENT: &str = "rate_limit_event";
    /// The conversation was reset: `new_conversation_id`, `uuid`, `session_id` (the
    /// Python SDK 0.2.188 requires them).
    pub const CONVERSATION_RESET: &str = "conversation_reset";

    /// Every type the SDKs know.
    pub const ALL: &[&str] = &[
        SYSTEM,
        ASSISTANT,
        USER,
        RESULT,
        STREAM_EVENT,
        CONTROL_REQUEST,
        CONTROL_RESPONSE,
        CONTROL_CANCEL_REQUEST,
        KEEP_ALIVE,
        RATE_LIMIT_EVENT,
        CONVERSATION_RESET,
    ];
}

/// The `subtype` of `system` messages.
pub mod system {
    /// Opens every turn: the session, the tools, the model, the version.
    pub const INIT: &str = "init";
    /// `running`, `requires_action`, `idle` (only for SDK hosts).
    pub const SESSION_STATE_CHANGED: &str = "session_state_changed";
    /// `requesting`, or the permission mode after a change.
    pub const STATUS: &str = "status";
}

/// The session states of `session_state_changed`.
pub mod states {
    /// A turn is under way.
    pub const RUNNING: &str = "running";
    /// The CLI waits for the client's answer to a permission request.
    pub const REQUIRES_ACTION: &str = "requires_action";
    /// Between turns.
    pub const IDLE: &str = "idle";
}

/// The `request.subtype` of control requests.
pub mod control {
    /// The client's first request.
    pub const INITIALIZE: &str = "initialize";
    /// The client ends the turn under way.
    pub const INTERRUPT: &str = "interrupt";
    /// The client changes the permission mode.
    pub const SET_PERMISSION_MODE: &str = "set_permission_mode";
    /// The client changes the model.
    pub const SET_MODEL: &str = "set_model";
    /// The CLI asks whether a tool may run (`--permission-prompt-tool stdio`).
    pub const CAN_USE_TOOL: &str = "can_use_tool";
    /// The CLI calls a hook the client registered in `initialize`.
    pub const HOOK_CALLBACK: &str = "hook_callback";
    /// The CLI talks to an MCP server that lives in the client.
    pub const MCP_MESSAGE: &str = "mcp_message";
    /// The `response.subtype` of a good answer.
    pub const SUCCESS: &str = "success";
    /// The `response.subtype` of an error answer.
    pub const ERROR: &str = "error";
}

/// The type of the line the `unknown` fault writes: one no SDK knows (the Python SDK
/// knows `rate_limit_event` and needs its fields; this is a type of none).
pub const UNKNOWN_TYPE: &str = "forecast_event";

/// The `subtype` of `result`.
pub mod results {
    /// The turn ended (`is_error` may still be true: an API error).
    pub const SUCCESS: &str = "success";
    /// `--max-turns` was reached.
    pub const ERROR_MAX_TURNS: &str = "error_max_turns";
    /// The turn failed (an interrupt, an unknown session).
    pub const ERROR_DURING_EXECUTION: &str = "error_during_execution";
    /// `--max-budget-usd` was reached.
    pub const ERROR_MAX_BUDGET_USD: &str = "error_max_budget_usd";

    /// Every subtype, for lint and generation.
    pub const ALL: &[&str] = &[
        SUCCESS,
        ERROR_MAX_TURNS,
        ERROR_DURING_EXECUTION,
        ERROR_MAX_BUDGET_USD,
    ];
}

/// Content block types.
pub mod blocks {
    /// Text.
    pub const TEXT: &str = "text";
    /// The model's thinking (with a `signature`).
    pub const THINKING: &str = "thinking";
    /// A tool call.
    pub const TOOL_USE: &str = "tool_use";
    /// A tool's result, in a `user` message.
    pub const TOOL_RESULT: &str = "tool_result";
}

/// The permission behaviours of a `can_use_tool` answer.
pub mod behaviors {
    /// The tool runs (with `updatedInput`).
    pub const ALLOW: &str = "allow";
    /// The tool does not run; `message` says why.
    pub const DENY: &str = "deny";
}

/// Fields read by name outside the wire model.
pub mod fields {
    /// A result's text (`result.result`).
    pub const RESULT: &str = "result";
    /// A result's errors (`result.errors`).
    pub const ERRORS: &str = "errors";
    /// Whether a result is an error.
    pub const IS_ERROR: &str = "is_error";
}

/// The command line's flags (long names, without `--`).
pub mod argv {
    /// Flags that take a value.
    pub const VALUED: &[&str] = &[
        "output-format",
        "input-format",
        "system-prompt",
        "system-prompt-file",
        "append-system-prompt",
        "append-system-prompt-file",
        "tools",
        "allowedTools",
        "allowed-tools",
        "disallowedTools",
        "disallowed-tools",
        "max-turns",
        "max-budget-usd",
        "task-budget",
        "model",
        "fallback-model",
        "betas",
        "permission-prompt-tool",
        "permission-mode",
        "resume",
        "session-id",
        "settings",
        "add-dir",
        "mcp-config",
        "setting-sources",
        "plugin-dir",
        "thinking",
        "max-thinking-tokens",
        "effort",
        "json-schema",
        "resume-session-at",
        "agents",
        "agent",
        "debug-file",
    ];

    /// Flags that take none.
    pub const FLAGS: &[&str] = &[
        "print",
        "verbose",
        "include-partial-messages",
        "include-hook-events",
        "replay-user-messages",
        "continue",
        "strict-mcp-config",
        "fork-session",
        "dangerously-skip-permissions",
        "allow-dangerously-skip-permissions",
        "debug",
        "version",
        "help",
        "ide",
        "no-session-persistence",
    ];

    /// The arguments the Agent SDKs pass for a conversation with a permission prompt
    /// on stdio (what a generated conversation is a recording of).
    pub const SDK: &[&str] = &[
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-prompt-tool",
        "stdio",
        "--input-format",
        "stream-json",
    ];
}

/// Environment variables that change what the CLI writes.
pub mod env {
    /// The SDKs': they read `session_state_changed` lines.
    pub const READS_SESSION_STATE: &str = "CLAUDE_CODE_SDK_READS_SESSION_STATE";
    /// Another host's (an editor's ACP adapter): emit them.
    pub const EMIT_SESSION_STATE_EVENTS: &str = "CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS";
    /// Says the CLI runs in a sandbox, when it is `1` (no other value): root may
    /// skip permissions there.
    pub const IS_SANDBOX: &str = "IS_SANDBOX";
    /// Says the CLI runs in bubblewrap, when set and not empty: root may skip
    /// permissions there too.
    pub const BUBBLEWRAP: &str = "CLAUDE_CODE_BUBBLEWRAP";
}

/// What the CLI says on stderr, and exits 1, when root asks to skip permissions
/// (`--dangerously-skip-permissions`, `--permission-mode bypassPermissions`) outside
/// a sandbox (2.1.331, observed).
pub const ROOT_BYPASS: &str =
    "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons";

/// The permission modes, as `set_permission_mode`'s error lists them.
pub const PERMISSION_MODES: &[&str] = &[
    "acceptEdits",
    "auto",
    "bypassPermissions",
    "default",
    "dontAsk",
    "plan",
];

/// The text of the `user` line an interrupt writes.
pub const INTERRUPTED: &str = "[Request interrupted by user]";

/// The `error_code` of an answer to a request subtype the CLI does not know.
pub const UNSUPPORTED_REQUEST: &str = "unsupported_request";

/// A line the client wrote, read.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    /// A user message: a turn. `text` is its content's text.
    User {
        /// The prompt, its text blocks joined.
        text: String,
    },
    /// A control request of the client's.
    Request {
        /// Its `request_id`, as given (a string, usually).
        id: Value,
        /// Its `request.subtype`.
        subtype: String,
        /// The whole `request` object.
        request: Value,
    },
    /// The client's answer to a request of the CLI's.
    Response {
        /// The `request_id` it answers.
        id: Value,
        /// `response.response` of a success; `None` for an error answer.
        response: Option<Value>,
        /// The `error` text of an error answer.
        error: Option<String>,
    },
    /// The client withdraws a request, or keeps the channel alive: no answer.
    Quiet,
    /// A JSON object of a type the CLI does not handle.
    Other(String),
}

/// Why a client's line could not be read: the CLI's own wording in the error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotJson {
    /// The length of the line, in characters.
    pub chars: usize,
    /// The line's `"type"`, when it says one before it breaks (Claude Code 2.1.331
    /// names it: `type=control_request`; else `type=unknown`).
    pub kind: Option<String>,
}

/// The value of the first `"type": "X"` in a line that is not JSON.
fn said_type(line: &str) -> Option<String> {
    let (_, rest) = line.split_once("\"type\"")?;
    let rest = rest
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .strip_prefix('"')?;
    let (kind, _) = rest.split_once('"')?;
    (!kind.is_empty() && !kind.contains('\\')).then(|| kind.to_owned())
}

impl Inbound {
    /// Reads one line of the client's (without its newline).
    pub fn parse(line: &[u8]) -> Result<Inbound, NotJson> {
        let value: Value = serde_json::from_slice(line).map_err(|_| {
            let text = String::from_utf8_lossy(line);
            NotJson {
                chars: text.chars().count(),
                kind: said_type(&text),
            }
        })?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or_default();
        Ok(match kind {
            types::USER => Inbound::User {
                text: text_of(value.pointer("/message/content").unwrap_or(&Value::Null)),
            },
            types::CONTROL_REQUEST => {
                let request = value.get("request").cloned().unwrap_or(Value::Null);
                Inbound::Request {
                    id: value.get("request_id").cloned().unwrap_or(Value::Null),
                    subtype: request
                        .get("subtype")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    request,
                }
            }
            types::CONTROL_RESPONSE => {
                let response = value.get("response").cloned().unwrap_or(Value::Null);
                let success = response.get("subtype").and_then(Value::as_str) != Some(control::ERROR);
                Inbound::Response {
                    id: response.get("request_id").cloned().unwrap_or(Value::Null),
                    error: (!success).then(|| {
                        response
                            .get("error")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned()
                    }),
                    response: success.then(|| response.get("response").cloned().unwrap_or(Value::Null)),
                }
            }
            types::CONTROL_CANCEL_REQUEST | types::KEEP_ALIVE => Inbound::Quiet,
            other => Inbound::Other(other.to_owned()),
        })
    }
}

/// The content blocks of a message line (`message.content`, when it is a list).
pub fn content(line: &Value) -> impl Iterator<Item = &Value> {
    line.pointer("/message/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// The text of a message's `content`: a string, or the `text` of its blocks.
pub fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The `type` of one of the CLI's lines, and its `subtype` (or, for a control
/// request, its `request.subtype`) when it has one: what faults are placed at
/// (`at=result`, `at=can_use_tool`).
pub fn kind_of(line: &[u8]) -> Option<(String, Option<String>)> {
    let value: Value = serde_json::from_slice(line).ok()?;
    let kind = value.get("type")?.as_str()?.to_owned();
    let subtype = value
        .get("subtype")
        .or_else(|| value.pointer("/request/subtype"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    Some((kind, subtype))
}

/// A conversation told readably, one line a message, in order: `->` the client's, `<-`
/// the CLI's, `!!` its stderr. Texts are cut, ids and times left out: what a snapshot
/// of a case keeps.
///
/// ```text
/// -> control_request initialize
/// <- control_response success
/// -> user "Read README.md"
/// <- system init
/// <- assistant text "I'll read the README and write a summary."
/// <- control_request can_use_tool Write
/// -> control_response success allow
/// <- result success "Created summary.txt ..."
/// ```
pub fn summary<'a>(messages: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    messages
        .into_iter()
        .map(|(dir, line)| {
            let arrow = match dir {
                "in" => "->",
                "out" => "<-",
                _ => return format!("!! {}", cut(line)),
            };
            format!("{arrow} {}", told(line))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One line, told.
fn told(line: &str) -> String {
    let Ok(value) = serde_json::from_str::<Value>(line) else {
        return format!("(not JSON) {}", cut(line));
    };
    let str_at = |pointer: &str| value.pointer(pointer).and_then(Value::as_str).unwrap_or_default();
    let kind = str_at("/type");
    let said = match kind {
        types::ASSISTANT | types::USER => {
            let block = value.pointer("/message/content/0").unwrap_or(&Value::Null);
            let content = value.pointer("/message/content").unwrap_or(&Value::Null);
            match block.get("type").and_then(Value::as_str) {
                Some(blocks::TOOL_USE) => format!("tool_use {}", block["name"].as_str().unwrap_or_default()),
                Some(blocks::TOOL_RESULT) => {
                    let error = if block["is_error"] == Value::Bool(true) {
                        " error"
                    } else {
                        ""
                    };
                    format!("tool_result{error} {:?}", cut(&text_of(&block["content"])))
                }
                Some(blocks::THINKING) => format!(
                    "thinking {:?}",
                    cut(block["thinking"].as_str().unwrap_or_default())
                ),
                Some(other) => format!("{other} {:?}", cut(block["text"].as_str().unwrap_or_default())),
                None => format!("{:?}", cut(&text_of(content))),
            }
        }
        types::RESULT => {
            let text = value
                .get(fields::RESULT)
                .and_then(Value::as_str)
                .map(str::to_owned);
            let text = text.unwrap_or_else(|| value.get(fields::ERRORS).map(text_of).unwrap_or_default());
            format!("{} {:?}", str_at("/subtype"), cut(&text))
        }
        types::CONTROL_REQUEST => {
            let tool = str_at("/request/tool_name");
            format!("{} {tool}", str_at("/request/subtype"))
                .trim_end()
                .to_owned()
        }
        types::CONTROL_RESPONSE => {
            let behavior = str_at("/response/response/behavior");
            let error = str_at("/response/error");
            format!("{} {behavior}{}", str_at("/response/subtype"), cut(error))
                .trim_end()
                .to_owned()
        }
        types::STREAM_EVENT => str_at("/event/type").to_owned(),
        types::SYSTEM => {
            let state = str_at("/state");
            format!("{} {state}", str_at("/subtype")).trim_end().to_owned()
        }
        _ => String::new(),
    };
    format!("{kind} {said}").trim_end().to_owned()
}

/// At most 60 characters of `text`.
fn cut(text: &str) -> String {
    let mut short: String = text.chars().take(60).collect();
    if short.len() < text.len() {
        short.push_str("...");
    }
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_the_sdks_write() {
        let user = br#"{"type":"user","session_id":"","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null}"#;
        assert_eq!(Inbound::parse(user), Ok(Inbound::User { text: "hi".into() }));
        let init = br#"{"type":"control_request","request_id":"req_1_ab","request":{"subtype":"initialize","hooks":null}}"#;
        assert!(
            matches!(Inbound::parse(init), Ok(Inbound::Request { subtype, .. }) if subtype == "initialize")
        );
        let deny = br#"{"type":"control_response","response":{"subtype":"success","request_id":"r","response":{"behavior":"deny","message":"no"}}}"#;
        assert!(
            matches!(Inbound::parse(deny), Ok(Inbound::Response { error: None, response: Some(r), .. }) if r["behavior"] == "deny")
        );
        let error = br#"{"type":"control_response","response":{"subtype":"error","request_id":"r","error":"canUseTool callback is not provided"}}"#;
        assert!(matches!(
            Inbound::parse(error),
            Ok(Inbound::Response {
                error: Some(_),
                response: None,
                ..
            })
        ));
        assert_eq!(
            Inbound::parse(b"not json at all!"),
            Err(NotJson {
                chars: 16,
                kind: None
            })
        );
        assert_eq!(
            Inbound::parse(br#"{"type" : "user", broken"#),
            Err(NotJson {
                chars: 24,
                kind: Some(types::USER.to_owned())
            })
        );
    }

    #[test]
    fn a_conversation_told() {
        let told = summary([
            (
                "in",
                r#"{"type":"control_request","request_id":"r","request":{"subtype":"initialize"}}"#,
            ),
            (
                "out",
                r#"{"type":"control_request","request_id":"x","request":{"subtype":"can_use_tool","tool_name":"Write"}}"#,
            ),
            (
                "in",
                r#"{"type":"control_response","response":{"subtype":"success","request_id":"x","response":{"behavior":"deny"}}}"#,
            ),
            ("out", r#"{"type":"result","subtype":"success","result":"Done."}"#),
            ("err", "boom"),
        ]);
        assert_eq!(
            told,
            "-> control_request initialize\n<- control_request can_use_tool Write\n\
             -> control_response success deny\n<- result success \"Done.\"\n!! boom"
        );
    }

    #[test]
    fn kinds_of_lines() {
        assert_eq!(
            kind_of(br#"{"type":"control_request","request_id":"x","request":{"subtype":"can_use_tool"}}"#),
            Some(("control_request".into(), Some("can_use_tool".into())))
        );
        assert_eq!(kind_of(b"{"), None);
    }
}
