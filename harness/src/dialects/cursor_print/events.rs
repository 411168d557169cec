//! The event model: one typed value per line of `--output-format stream-json`.
//!
//! These types describe every event of the documented output format (the "Output
//! format" page of the Cursor Agent CLI) and everything the real CLI is seen to print
//! beyond it. They are **lossless**: every struct keeps the fields it does not know in
//! an `extra` map, a tool kind that is not listed here is kept as
//! [`Tool::Other`], and an event type that is not listed here is kept as
//! [`Event::Other`]. Parsing a line and serializing the value again gives the same
//! JSON value (object keys keep their order). An event of a known type whose fields do
//! not fit its type is kept as [`Event::Other`] too, so nothing is lost;
//! [`Event::from_slice_strict`] says what does not fit.
//!
//! Replay does not depend on that: it writes the bytes it read and never
//! re-serializes a line it did not change (see [`crate::dialects::cursor_print::render`]).
//!
//! # Forward compatibility
//!
//! The CLI adds event types, subtypes, tool kinds and fields between versions. This
//! list of variants and fields may grow in any minor release of this crate; match
//! with a wildcard arm, and read unknown data from the `extra` maps.
//!
//! # Names
//!
//! Every name of the wire is said once, in this file, and every other module uses
//! these: the event types ([`event_type`]), subtypes ([`subtype`], with those the
//! documentation lists), tool keys ([`tool_key`], [`TOOL_KEYS`]), roles ([`role`]),
//! content block kinds ([`content_type`]), and the fields matched by name
//! ([`field`]). The [`Event`] and [`Tool`] enums are made from the same tables.
//!
//! # `system`
//!
//! Emitted once, first. The `init` subtype carries the session settings:
//!
//! ```json
//! {"type":"system","subtype":"init","apiKeySource":"login","cwd":"/Users/user/project","session_id":"c6b62c6f-7ead-4fd6-9922-e952131177ff","model":"Claude 4 Sonnet","permissionMode":"default"}
//! ```
//!
//! `model` is a display name; `permissionMode` is `default` or `bypassPermissions`
//! (with `--force`). See [`System`].
//!
//! # `user`
//!
//! The prompt, once, right after `system/init`. See [`UserEvent`].
//!
//! ```json
//! {"type":"user","message":{"role":"user","content":[{"type":"text","text":"Read README.md"}]},"session_id":"c6b6..."}
//! ```
//!
//! # `assistant`
//!
//! Assistant text. Without `--stream-partial-output` each line is a whole message
//! segment; with it, small deltas carrying `timestamp_ms`, then one line that repeats
//! the whole segment. See [`AssistantEvent`].
//!
//! ```json
//! {"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I'll "}]},"session_id":"c6b6...","timestamp_ms":1790000000100}
//! ```
//!
//! # `thinking`
//!
//! Reasoning deltas (`subtype` `delta`, with `text`) and their end (`completed`). The
//! documentation says they are suppressed; the real CLI prints them. See
//! [`ThinkingEvent`].
//!
//! # `tool_call`
//!
//! A tool call `started`, then `completed` with the same `call_id`; parallel calls
//! share one `model_call_id` and complete in the order they finish. The `tool_call`
//! object holds one `<kind>ToolCall` key (or `function`). See [`ToolCallEvent`] and
//! [`Tool`].
//!
//! # `result`
//!
//! The terminal event of a successful run: the assistant segments concatenated in
//! `result`, durations, optional `request_id` and `usage`. See [`ResultEvent`].
//!
//! # `connection`, `retry`, `error`
//!
//! Seen on stdout when the connection fails, before the process exits non-zero. See
//! [`ConnectionEvent`], [`RetryEvent`] and [`ErrorEvent`].

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

/// Unknown fields of an object, in their original order.
pub use crate::cassette::Extra;

/// Declares structs of the wire model: every field public (written without `pub`);
/// each writes no optional field it does not have, and keeps the fields this version
/// does not know, in their order, in `extra`.
macro_rules! wire_structs {
    ($($(#[$meta:meta])* pub struct $name:ident { $($(#[$field_meta:meta])* $field:ident: $ty:ty,)* })*) => {
        $(
            $(#[$meta])*
            #[skip_serializing_none]
            #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
            pub struct $name {
                $($(#[$field_meta])* pub $field: $ty,)*
                /// Fields this version does not know.
                #[serde(flatten)]
                pub extra: Extra,
            }
        )*
    };
}

/// Declares names of the wire: each a documented `&str` constant.
macro_rules! wire_names {
    ($($(#[$doc:meta])* $name:ident = $wire:expr;)*) => {
        $($(#[$doc])* pub const $name: &str = $wire;)*
    };
}

/// The values of `subtype` this version knows, and those the documentation lists by
/// event type ([`DOCUMENTED`](subtype::DOCUMENTED)).
pub mod subtype {
    use super::event_type;

    wire_names! {
        /// `system`/`init`: the session settings.
        INIT = "init";
        /// `tool_call`/`started`.
        STARTED = "started";
        /// `tool_call`/`completed`, and the end of a `thinking` run.
        COMPLETED = "completed";
        /// `thinking`/`delta`.
        DELTA = "delta";
        /// `result`/`success`; also the key of a tool's successful result.
        SUCCESS = "success";
    }

    /// The subtypes the documentation lists, by event type.
    pub const DOCUMENTED: &[(&str, &[&str])] = &[
        (event_type::SYSTEM, &[INIT]),
        (event_type::TOOL_CALL, &[STARTED, COMPLETED]),
        (event_type::THINKING, &[DELTA, COMPLETED]),
        (event_type::RESULT, &[SUCCESS]),
    ];

    wire_names! {
        /// `connection`/`reconnecting`, seen, not documented.
        RECONNECTING = "reconnecting";
        /// `retry`/`starting`, seen, not documented.
        STARTING = "starting";
    }
}

/// The roles of a [`Message`].
pub mod role {
    /// The prompt's.
    pub const USER: &str = super::event_type::USER;
    /// The agent's.
    pub const ASSISTANT: &str = super::event_type::ASSISTANT;
}

/// The fields matched by name where a line is looked at without being parsed whole.
pub mod field {
    wire_names! {
        /// The event type ([`event_type`](super::event_type)); also a content block's kind.
        TYPE = "type";
        /// The event's subtype ([`subtype`](super::subtype)).
        SUBTYPE = "subtype";
        /// The session id, the same in every event of a run.
        SESSION_ID = "session_id";
        /// Milliseconds since the Unix epoch, on streamed lines.
        TIMESTAMP_MS = "timestamp_ms";
        /// The model call a line belongs to.
        MODEL_CALL_ID = "model_call_id";
        /// A tool call's id, beside the tool key and in its arguments.
        TOOL_CALL_ID = "toolCallId";
    }
}

/// The kinds of [`Content`] block.
pub mod content_type {
    /// A text block.
    pub const TEXT: &str = "text";
}

/// The known event types, said once: for each, its [`Event`] variant and payload, and
/// its name in [`event_type`]. Makes [`event_type`], [`Event`], and what the strict
/// parse, [`Event::type_name`] and [`Event::session_id`] go by.
macro_rules! known_events {
    ($($(#[$doc:meta])* $variant:ident($payload:ty) = $name:ident $wire:tt,)*) => {
        /// The values of `type`: one for each event type this version knows.
        ///
        /// Every module that looks at a line by its type names it with these. This list
        /// may grow.
        pub mod event_type {
            $($(#[$doc])* pub const $name: &str = $wire;)*
        }

        /// One event of the `stream-json` output format.
        ///
        /// The `type` field selects the variant (as [`event_type`] names them); an
        /// unknown `type` (or an object without one) is kept whole in [`Event::Other`].
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "type")]
        #[non_exhaustive]
        #[allow(clippy::large_enum_variant)] // Events are built and matched, not stored in bulk.
        pub enum Event {
            $($(#[$doc])* #[serde(rename = $wire)] $variant($payload),)*
            /// Any other object, kept whole (its `type` key included).
            #[serde(untagged)]
            Other(Extra),
        }

        impl Event {
            /// Fails where `value`, an object of the known type `kind`, does not fit it.
            fn fit(kind: &str, value: Value) -> Result<(), serde_json::Error> {
                match kind {
                    $(event_type::$name => drop(serde_json::from_value::<$payload>(value)?),)*
                    _ => {}
                }
                Ok(())
            }

            /// The value of `type`, as written on the wire.
            pub fn type_name(&self) -> &str {
                match self {
                    $(Event::$variant(_) => event_type::$name,)*
                    Event::Other(map) => map.get(field::TYPE).and_then(Value::as_str).unwrap_or(""),
                }
            }

            /// The `session_id` of the event, where it has one.
            pub fn session_id(&self) -> Option<&str> {
                match self {
                    $(Event::$variant(e) => SessionId::get(&e.session_id),)*
                    Event::Other(map) => map.get(field::SESSION_ID).and_then(Value::as_str),
                }
            }
        }
    };
}

known_events! {
    /// `{"type":"system",...}`: session settings, first in the stream.
    System(System) = SYSTEM "system",
    /// `{"type":"user",...}`: the prompt.
    User(UserEvent) = USER "user",
    /// `{"type":"assistant",...}`: assistant text, whole or as a delta.
    Assistant(AssistantEvent) = ASSISTANT "assistant",
    /// `{"type":"thinking",...}`: reasoning deltas.
    Thinking(ThinkingEvent) = THINKING "thinking",
    /// `{"type":"tool_call",...}`: a tool call started or completed.
    ToolCall(ToolCallEvent) = TOOL_CALL "tool_call",
    /// `{"type":"result",...}`: the terminal event.
    Result(ResultEvent) = RESULT "result",
    /// `{"type":"connection",...}`: connection trouble, e.g. `reconnecting`.
    Connection(ConnectionEvent) = CONNECTION "connection",
    /// `{"type":"retry",...}`: a retry of the model call.
    Retry(RetryEvent) = RETRY "retry",
    /// `{"type":"error",...}`: an error message on stdout.
    Error(ErrorEvent) = ERROR "error",
}

/// A `session_id` field, required or not.
trait SessionId {
    fn get(&self) -> Option<&str>;
}

impl SessionId for String {
    fn get(&self) -> Option<&str> {
        Some(self)
    }
}

impl SessionId for Option<String> {
    fn get(&self) -> Option<&str> {
        self.as_deref()
    }
}

impl Event {
    /// Parses one line of `stream-json` output (without its newline).
    pub fn from_slice(line: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(line)
    }

    /// Parses one line like [`Event::from_slice`], but fails where that keeps an event
    /// of a known type as [`Event::Other`] because a field is missing or of the wrong
    /// type: the error names the field.
    pub fn from_slice_strict(line: &[u8]) -> Result<Self, serde_json::Error> {
        let event = Self::from_slice(line)?;
        if let Event::Other(map) = &event {
            if let Some(kind) = map.get(field::TYPE).and_then(Value::as_str) {
                Event::fit(kind, Value::Object(map.clone()))?;
            }
        }
        Ok(event)
    }

    /// Serializes the event as one compact JSON line, without a newline.
    pub fn to_line(&self) -> String {
        // Serializing a tree of maps, strings and numbers cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

wire_structs! {
    /// `{"type":"system"}`. With `subtype` `init`: the session settings.
    ///
    /// `extra` keeps the fields this version does not know (`tools`, `mcp_servers`, ...).
    pub struct System {
        /// `init` at the start of a session.
        subtype: String,
        /// `env`, `flag` or `login`.
        #[serde(rename = "apiKeySource")]
        api_key_source: Option<String>,
        /// The absolute working directory.
        cwd: Option<String>,
        /// The session id, the same in every event of a run.
        session_id: Option<String>,
        /// The model's display name ("Auto", "Claude 4.5 Sonnet").
        model: Option<String>,
        /// `default`, or `bypassPermissions` with `--force`.
        #[serde(rename = "permissionMode")]
        permission_mode: Option<String>,
    }

    /// A chat message: a role and a list of content blocks.
    pub struct Message {
        /// `user` or `assistant`.
        role: String,
        /// The content blocks; text is in blocks of type `text`.
        content: Vec<Content>,
    }
}

impl Message {
    /// A message with one text block.
    pub fn text(role: &str, text: impl Into<String>) -> Self {
        Message {
            role: role.to_owned(),
            content: vec![Content::text(text)],
            extra: Extra::new(),
        }
    }

    /// The text of all `text` blocks, concatenated.
    pub fn joined_text(&self) -> String {
        self.content.iter().filter_map(|c| c.text.as_deref()).collect()
    }
}

wire_structs! {
    /// One content block of a [`Message`].
    pub struct Content {
        /// `text` for text blocks.
        #[serde(rename = "type")]
        kind: String,
        /// The text of a `text` block.
        text: Option<String>,
    }
}

impl Content {
    /// A `text` block.
    pub fn text(text: impl Into<String>) -> Self {
        Content {
            kind: content_type::TEXT.to_owned(),
            text: Some(text.into()),
            extra: Extra::new(),
        }
    }
}

wire_structs! {
    /// `{"type":"user"}`: the prompt as the agent received it.
    pub struct UserEvent {
        /// The message, role `user`.
        message: Message,
        /// The session id.
        session_id: String,
    }

    /// `{"type":"assistant"}`: a whole message segment, or a delta of one.
    pub struct AssistantEvent {
        /// The message, role `assistant`.
        message: Message,
        /// The session id.
        session_id: String,
        /// `<request uuid>-<n>-<4 chars>`; on the line that closes a segment before a
        /// tool call. Written before `timestamp_ms`, as the real CLI writes it.
        model_call_id: Option<String>,
        /// Milliseconds since the Unix epoch; on streamed lines and on the line that
        /// closes a segment before a tool call.
        timestamp_ms: Option<u64>,
    }

    /// `{"type":"thinking"}`: `delta` with `text`, then `completed`.
    pub struct ThinkingEvent {
        /// `delta` or `completed`.
        subtype: String,
        /// The reasoning text of a delta.
        text: Option<String>,
        /// The session id.
        session_id: String,
        /// Milliseconds since the Unix epoch.
        timestamp_ms: Option<u64>,
    }

    /// `{"type":"tool_call"}`: a tool call `started` or `completed`.
    pub struct ToolCallEvent {
        /// `started` or `completed`.
        subtype: String,
        /// Correlates `started` and `completed`. May contain a newline.
        call_id: String,
        /// What the tool is and, once completed, its result.
        tool_call: ToolCall,
        /// The session id.
        session_id: String,
        /// Shared by tool calls that run in parallel.
        model_call_id: Option<String>,
        /// Milliseconds since the Unix epoch.
        timestamp_ms: Option<u64>,
    }
}

/// The `tool_call` object: one tool key (`readToolCall`, ..., `function`) and the
/// fields beside it (`hookAdditionalContexts`, `toolCallId`, `startedAtMs`,
/// `completedAtMs`, and whatever comes next), in [`ToolCall::extra`].
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool and its arguments and result.
    pub tool: Tool,
    /// The fields beside the tool key, in order.
    pub extra: Extra,
}

/// The tools this version knows, said once: for each, its [`Tool`] variant and payload,
/// and its key in [`tool_key`]. Makes [`tool_key`], [`TOOL_KEYS`], [`Tool`], and what
/// [`Tool::key`] and (de)serialization go by.
macro_rules! known_tools {
    ($($(#[$doc:meta])* $variant:ident($payload:ty) = $key:ident $wire:tt,)*) => {
        /// The keys of the `tool_call` object that name a tool ([`Tool`]).
        pub mod tool_key {
            $($(#[$doc])* pub const $key: &str = $wire;)*
            /// How every other tool key ends (`webSearchToolCall`, ...).
            pub const SUFFIX: &str = "ToolCall";
        }

        /// The kinds of tool this version knows, with their wire keys.
        pub const TOOL_KEYS: &[&str] = &[$(tool_key::$key),*];

        /// Which tool a call uses, keyed as on the wire.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum Tool {
            $($(#[$doc])* $variant($payload),)*
            /// A tool key this version does not know, with its value.
            Other {
                /// The key, e.g. `webSearchToolCall`.
                key: String,
                /// Its value, untouched.
                value: Value,
            },
        }

        impl Tool {
            /// The wire key of this tool (`readToolCall`, ..., `function`).
            pub fn key(&self) -> &str {
                match self {
                    $(Tool::$variant(_) => tool_key::$key,)*
                    Tool::Other { key, .. } => key,
                }
            }

            fn to_value(&self) -> Result<Value, serde_json::Error> {
                match self {
                    $(Tool::$variant(i) => serde_json::to_value(i),)*
                    Tool::Other { value, .. } => Ok(value.clone()),
                }
            }

            fn from_entry(key: String, value: Value) -> Result<Self, serde_json::Error> {
                Ok(match key.as_str() {
                    $(tool_key::$key => Tool::$variant(serde_json::from_value(value)?),)*
                    _ => Tool::Other { key, value },
                })
            }
        }
    };
}

known_tools! {
    /// `readToolCall`.
    Read(ToolUse<ReadArgs>) = READ "readToolCall",
    /// `writeToolCall`.
    Write(ToolUse<WriteArgs>) = WRITE "writeToolCall",
    /// `editToolCall`.
    Edit(ToolUse<EditArgs>) = EDIT "editToolCall",
    /// `shellToolCall`.
    Shell(ToolUse<ShellArgs>) = SHELL "shellToolCall",
    /// `globToolCall`.
    Glob(ToolUse<GlobArgs>) = GLOB "globToolCall",
    /// `grepToolCall`.
    Grep(ToolUse<GrepArgs>) = GREP "grepToolCall",
    /// `lsToolCall`.
    Ls(ToolUse<LsArgs>) = LS "lsToolCall",
    /// `deleteToolCall`.
    Delete(ToolUse<PathArgs>) = DELETE "deleteToolCall",
    /// `updateTodosToolCall`.
    UpdateTodos(ToolUse<UpdateTodosArgs>) = UPDATE_TODOS "updateTodosToolCall",
    /// `mcpToolCall`.
    Mcp(ToolUse<McpArgs>) = MCP "mcpToolCall",
    /// `function`: `{name, arguments}` as in the documentation.
    Function(FunctionCall) = FUNCTION "function",
}

/// Whether an object key names a tool (`...ToolCall` or `function`).
pub fn is_tool_key(key: &str) -> bool {
    key == tool_key::FUNCTION || (key.ends_with(tool_key::SUFFIX) && key.len() > tool_key::SUFFIX.len())
}

impl Serialize for ToolCall {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap};
        let mut map = serializer.serialize_map(Some(1 + self.extra.len()))?;
        map.serialize_entry(self.tool.key(), &self.tool.to_value().map_err(S::Error::custom)?)?;
        for (k, v) in &self.extra {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ToolCall {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let map = Extra::deserialize(deserializer)?;
        let mut tool = None;
        let mut extra = Extra::new();
        for (key, value) in map {
            if tool.is_none() && is_tool_key(&key) {
                tool = Some(Tool::from_entry(key, value).map_err(D::Error::custom)?);
            } else {
                extra.insert(key, value);
            }
        }
        let tool = tool.ok_or_else(|| {
            D::Error::custom("`tool_call` has no tool key (`readToolCall`, ..., `function`)")
        })?;
        Ok(ToolCall { tool, extra })
    }
}

/// A tool's `args` and, once completed, its `result`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUse<A> {
    /// The arguments. Absent on the completed line of a rejected shell command.
    #[serde(default = "none")]
    pub args: Option<A>,
    /// The result, on `completed` lines.
    pub result: Option<ToolResult>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Extra,
}

fn none<T>() -> Option<T> {
    None
}

/// How a tool call ended: one key, `success`, `failure`, `rejected` or `error`.
///
/// The payloads differ by tool kind and grow often, so they are kept as JSON
/// objects; [`ToolResult::Error`] is typed because every kind shares it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolResult {
    /// `{"success":{...}}`.
    Success(Extra),
    /// `{"failure":{...}}`: a shell command that exited non-zero.
    Failure(Extra),
    /// `{"rejected":{command,workingDirectory,reason,isReadonly}}`.
    Rejected(Extra),
    /// `{"error":{"errorMessage":"..."}}`.
    Error(ToolError),
    /// Anything else, kept whole.
    #[serde(untagged)]
    Other(Extra),
}

wire_structs! {
    /// The payload of [`ToolResult::Error`].
    pub struct ToolError {
        /// What went wrong.
        #[serde(rename = "errorMessage")]
        error_message: String,
    }

    /// Arguments of `readToolCall`.
    pub struct ReadArgs {
        /// The file to read.
        path: String,
    }

    /// Arguments of `writeToolCall`.
    pub struct WriteArgs {
        /// The file to create.
        path: String,
        /// Its contents.
        #[serde(rename = "fileText")]
        file_text: String,
        /// The tool call id.
        #[serde(rename = "toolCallId")]
        tool_call_id: Option<String>,
    }

    /// Arguments of `editToolCall`.
    pub struct EditArgs {
        /// The file to edit.
        path: String,
        /// The streamed new content.
        #[serde(rename = "streamContent")]
        stream_content: Option<String>,
    }

    /// Arguments of `shellToolCall`.
    ///
    /// `extra` keeps the fields this version does not know (`requestedSandboxPolicy`, ...).
    pub struct ShellArgs {
        /// The command line.
        command: String,
        /// Where it runs.
        #[serde(rename = "workingDirectory")]
        working_directory: Option<String>,
        /// Timeout in milliseconds.
        timeout: Option<u64>,
        /// The tool call id.
        #[serde(rename = "toolCallId")]
        tool_call_id: Option<String>,
        /// The programs the command line runs (`["cargo"]`).
        #[serde(rename = "simpleCommands")]
        simple_commands: Option<Vec<String>>,
        /// How the CLI parsed the command line (`{parsingFailed, executableCommands}`),
        /// kept as JSON.
        #[serde(rename = "parsingResult")]
        parsing_result: Option<Value>,
        /// Whether it runs in the background.
        #[serde(rename = "isBackground")]
        is_background: Option<bool>,
        /// What the agent says the command is for.
        description: Option<String>,
    }

    /// Arguments of `globToolCall`.
    pub struct GlobArgs {
        /// The pattern.
        #[serde(rename = "globPattern")]
        glob_pattern: String,
        /// Where to search.
        #[serde(rename = "targetDirectory")]
        target_directory: Option<String>,
    }

    /// Arguments of `grepToolCall`.
    ///
    /// `extra` keeps `caseInsensitive`, `multiline`, `offset` and fields this version does not know.
    pub struct GrepArgs {
        /// The regular expression.
        pattern: String,
        /// Where to search.
        path: Option<String>,
    }

    /// Arguments of `lsToolCall`.
    pub struct LsArgs {
        /// The directory.
        path: String,
        /// Patterns left out of the listing.
        ignore: Option<Vec<String>>,
    }

    /// Arguments that are just a path (`deleteToolCall`).
    pub struct PathArgs {
        /// The file.
        path: String,
    }

    /// Arguments of `updateTodosToolCall`.
    pub struct UpdateTodosArgs {
        /// The todo items (`{id, content, status: "TODO_STATUS_PENDING", ...}`).
        todos: Vec<Value>,
        /// Whether they merge into the existing list.
        merge: Option<bool>,
    }

    /// Arguments of `mcpToolCall`.
    ///
    /// `extra` keeps `serverIdentifier`, `providerIdentifier`, `args` and fields this version does not know.
    pub struct McpArgs {
        /// The qualified tool name.
        name: Option<String>,
        /// The tool's own name on its server.
        #[serde(rename = "toolName")]
        tool_name: Option<String>,
    }

    /// The documented generic tool shape: `{"function":{"name":...,"arguments":...}}`.
    pub struct FunctionCall {
        /// The tool's name.
        name: String,
        /// Its arguments, usually a JSON string.
        arguments: Option<Value>,
        /// The result, where one is given.
        result: Option<Value>,
    }

    /// `{"type":"result"}`: the terminal event of a run.
    pub struct ResultEvent {
        /// `success` (the documentation's Spanish page shows `correcto`; it is kept).
        subtype: String,
        /// Total run time in milliseconds.
        duration_ms: Option<u64>,
        /// Model time in milliseconds.
        duration_api_ms: Option<u64>,
        /// `false` on success.
        is_error: bool,
        /// The assistant segments concatenated with no separator.
        result: String,
        /// The session id.
        session_id: String,
        /// The request id, when given.
        request_id: Option<String>,
        /// Token counts, when given.
        usage: Option<Usage>,
    }

    /// `result.usage`: token counts.
    pub struct Usage {
        /// Prompt tokens.
        #[serde(rename = "inputTokens")]
        input_tokens: u64,
        /// Completion tokens.
        #[serde(rename = "outputTokens")]
        output_tokens: u64,
        /// Tokens read from the prompt cache.
        #[serde(rename = "cacheReadTokens")]
        cache_read_tokens: Option<u64>,
        /// Tokens written to the prompt cache.
        #[serde(rename = "cacheWriteTokens")]
        cache_write_tokens: Option<u64>,
    }

    /// `{"type":"connection"}`, e.g. `reconnecting` with an `attempt` number.
    pub struct ConnectionEvent {
        /// `reconnecting`, ...
        subtype: String,
        /// The session id.
        session_id: String,
        /// Milliseconds since the Unix epoch.
        timestamp_ms: Option<u64>,
        /// Which attempt this is, from 1.
        attempt: Option<u64>,
    }

    /// `{"type":"retry"}`, e.g. `starting` with `attempt` and `is_resume`.
    pub struct RetryEvent {
        /// `starting`, ...
        subtype: String,
        /// The session id.
        session_id: String,
        /// Milliseconds since the Unix epoch.
        timestamp_ms: Option<u64>,
        /// Which attempt this is, from 1.
        attempt: Option<u64>,
        /// Whether the retry resumes the earlier call.
        is_resume: Option<bool>,
    }

    /// `{"type":"error","message":"..."}` on stdout.
    pub struct ErrorEvent {
        /// What went wrong.
        message: String,
        /// The session id, where given.
        session_id: Option<String>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED_LINES: &str = include_str!("../../../../cassettes/seed-example.ndjson");

    #[test]
    fn every_seed_line_parses_to_its_type_and_back() {
        for line in SEED_LINES.lines() {
            let event = Event::from_slice(line.as_bytes()).expect(line);
            assert!(!matches!(event, Event::Other(_)), "typed: {line}");
            let back: Value = serde_json::from_str(&event.to_line()).expect("json");
            let orig: Value = serde_json::from_str(line).expect("json");
            assert_eq!(back, orig);
        }
    }

    #[test]
    fn the_names_are_those_serde_reads_and_writes() {
        use event_type::*;
        // Enough fields for every known type; `message` is an object for some, a
        // string for `error`.
        let fields = r#""subtype":"x","session_id":"s","call_id":"c","tool_call":{"function":{"name":"f"}},"is_error":false,"result":"r""#;
        for name in [
            SYSTEM, USER, ASSISTANT, THINKING, TOOL_CALL, RESULT, CONNECTION, RETRY, ERROR,
        ] {
            let typed = [r#"{"role":"user","content":[]}"#, r#""m""#]
                .iter()
                .find_map(|message| {
                    let line = format!(r#"{{"type":"{name}",{fields},"message":{message}}}"#);
                    let event = Event::from_slice(line.as_bytes()).expect("parse");
                    (!matches!(event, Event::Other(_))).then_some(event)
                });
            let event = typed.unwrap_or_else(|| panic!("`{name}` is not typed"));
            assert_eq!(event.type_name(), name);
            let back: Value = serde_json::from_str(&event.to_line()).expect("json");
            assert_eq!(back[field::TYPE], name);
        }
        for key in TOOL_KEYS {
            assert!(is_tool_key(key), "{key}");
        }
        let result: ToolResult = serde_json::from_str(r#"{"success":{}}"#).expect("parse");
        assert!(matches!(result, ToolResult::Success(_)));
    }

    #[test]
    fn unknown_type_kind_and_field_survive() {
        let line = r#"{"type":"tool_call","subtype":"started","call_id":"c\n1","tool_call":{"webSearchToolCall":{"args":{"q":"x"}},"hookAdditionalContexts":[]},"session_id":"s","zzz":1}"#;
        let event = Event::from_slice(line.as_bytes()).expect("parse");
        match &event {
            Event::ToolCall(tc) => assert_eq!(tc.tool_call.tool.key(), "webSearchToolCall"),
            other => panic!("not a tool call: {other:?}"),
        }
        assert_eq!(event.to_line(), line);
        let other = r#"{"type":"telemetry","b":[1,2],"a":{"z":null}}"#;
        let event = Event::from_slice(other.as_bytes()).expect("parse");
        assert!(matches!(event, Event::Other(_)));
        assert_eq!(event.type_name(), "telemetry");
        assert_eq!(event.to_line(), other);
    }

    #[test]
    fn correcto_subtype_is_kept() {
        let line = r#"{"type":"result","subtype":"correcto","duration_ms":1,"duration_api_ms":1,"is_error":false,"result":"x","session_id":"s"}"#;
        let event = Event::from_slice(line.as_bytes()).expect("parse");
        assert!(matches!(&event, Event::Result(r) if r.subtype == "correcto"));
    }
}
