//! The wire model of server mode: every name the Agent Client Protocol puts on the
//! wire, said once, as the official schema crate (`agent-client-protocol-schema`)
//! says it, and the schema's own types where they fit.
//!
//! Methods are the schema's constants ([`AGENT_METHOD_NAMES`], [`CLIENT_METHOD_NAMES`],
//! [`PROTOCOL_LEVEL_METHOD_NAMES`]), but for the few Cursor sends that the schema does
//! not define. The other names (update kinds, stop reasons, tool kinds and statuses,
//! permission option kinds and outcomes, content block types, plan entries) are
//! constants here, each module with its `ALL`: the tests below read the schema's
//! serde names (so what we generate and check is the schema's shape), and fail when
//! the two drift apart. The JSON-RPC framing (a line's kind, its id, the error codes)
//! is [`rpc`](super::rpc).
//!
//! These lists may grow in any minor release, as the protocol does.

use serde_json::{json, Value};

pub use agent_client_protocol_schema::v1::{
    ErrorCode, PermissionOptionKind, PlanEntryPriority, PlanEntryStatus, StopReason, ToolCallStatus,
    ToolKind, AGENT_METHOD_NAMES, CLIENT_METHOD_NAMES, PROTOCOL_LEVEL_METHOD_NAMES,
};

/// Modules of wire names: in each, a `&str` constant a name and `ALL`, every name in
/// the order given (the schema's, where the tests below compare it), then the items in
/// the braces after it, if any.
macro_rules! names {
    ($(
        $(#[$doc:meta])*
        pub mod $module:ident {
            $(#[$all:meta])*
            ALL;
            $( $(#[$name_doc:meta])* pub const $name:ident: &str = $value:expr; )+
        } $({ $($more:item)* })?
    )+) => {$(
        $(#[$doc])*
        pub mod $module {
            $( $(#[$name_doc])* pub const $name: &str = $value; )+
            $(#[$all])*
            pub const ALL: &[&str] = &[$($name),+];
            $($($more)*)?
        }
    )+};
}

/// The methods of ACP: the client's requests and notifications, then the agent's.
pub mod methods {
    use super::{AGENT_METHOD_NAMES, CLIENT_METHOD_NAMES, PROTOCOL_LEVEL_METHOD_NAMES};

    /// `initialize`.
    pub const INITIALIZE: &str = AGENT_METHOD_NAMES.initialize;
    /// `authenticate`.
    pub const AUTHENTICATE: &str = AGENT_METHOD_NAMES.authenticate;
    /// `session/new`.
    pub const SESSION_NEW: &str = AGENT_METHOD_NAMES.session_new;
    /// `session/load`.
    pub const SESSION_LOAD: &str = AGENT_METHOD_NAMES.session_load;
    /// `session/list`.
    pub const SESSION_LIST: &str = AGENT_METHOD_NAMES.session_list;
    /// `session/prompt`.
    pub const SESSION_PROMPT: &str = AGENT_METHOD_NAMES.session_prompt;
    /// `session/cancel` (a notification).
    pub const SESSION_CANCEL: &str = AGENT_METHOD_NAMES.session_cancel;
    /// `session/set_mode`.
    pub const SESSION_SET_MODE: &str = AGENT_METHOD_NAMES.session_set_mode;
    /// `session/set_config_option`.
    pub const SESSION_SET_CONFIG_OPTION: &str = AGENT_METHOD_NAMES.session_set_config_option;
    /// `session/set_model`: Cursor's, no longer in the schema.
    pub const SESSION_SET_MODEL: &str = "session/set_model";
    /// `$/cancel_request` (a notification, either side).
    pub const CANCEL_REQUEST: &str = PROTOCOL_LEVEL_METHOD_NAMES.cancel_request;

    /// `session/update` (the agent's notification).
    pub const SESSION_UPDATE: &str = CLIENT_METHOD_NAMES.session_update;
    /// `session/request_permission` (the agent's request).
    pub const REQUEST_PERMISSION: &str = CLIENT_METHOD_NAMES.session_request_permission;
    /// `fs/read_text_file`.
    pub const FS_READ_TEXT_FILE: &str = CLIENT_METHOD_NAMES.fs_read_text_file;
    /// `fs/write_text_file`.
    pub const FS_WRITE_TEXT_FILE: &str = CLIENT_METHOD_NAMES.fs_write_text_file;
    /// The prefix of the terminal methods (`terminal/create`, ...).
    pub const TERMINAL_PREFIX: &str = "terminal/";
    /// `terminal/create`.
    pub const TERMINAL_CREATE: &str = CLIENT_METHOD_NAMES.terminal_create;
    /// `terminal/output`.
    pub const TERMINAL_OUTPUT: &str = CLIENT_METHOD_NAMES.terminal_output;
    /// `terminal/release`.
    pub const TERMINAL_RELEASE: &str = CLIENT_METHOD_NAMES.terminal_release;
    /// `terminal/wait_for_exit`.
    pub const TERMINAL_WAIT_FOR_EXIT: &str = CLIENT_METHOD_NAMES.terminal_wait_for_exit;
    /// `terminal/kill`.
    pub const TERMINAL_KILL: &str = CLIENT_METHOD_NAMES.terminal_kill;
    /// `cursor/ask_question`: Cursor's own request, which blocks the turn.
    pub const CURSOR_ASK_QUESTION: &str = "cursor/ask_question";

    /// The methods a client sends.
    pub const CLIENT: &[&str] = &[
        INITIALIZE,
        AUTHENTICATE,
        SESSION_NEW,
        SESSION_LOAD,
        SESSION_LIST,
        SESSION_PROMPT,
        SESSION_CANCEL,
        SESSION_SET_MODE,
        SESSION_SET_CONFIG_OPTION,
        SESSION_SET_MODEL,
        CANCEL_REQUEST,
    ];

    /// The methods an agent sends.
    pub const AGENT: &[&str] = &[
        SESSION_UPDATE,
        REQUEST_PERMISSION,
        FS_READ_TEXT_FILE,
        FS_WRITE_TEXT_FILE,
        TERMINAL_CREATE,
        TERMINAL_OUTPUT,
        TERMINAL_RELEASE,
        TERMINAL_WAIT_FOR_EXIT,
        TERMINAL_KILL,
        CANCEL_REQUEST,
    ];
}

names! {
    /// The kinds of a `session/update` (its `sessionUpdate`: the schema's `SessionUpdate`).
    pub mod updates {
        /// Every kind of the schema (1.15), in its order.
        ALL;
        /// A chunk of the user's message (a loaded session's history).
        pub const USER_MESSAGE_CHUNK: &str = "user_message_chunk";
        /// A chunk of the agent's answer.
        pub const AGENT_MESSAGE_CHUNK: &str = "agent_message_chunk";
        /// A chunk of the agent's thinking.
        pub const AGENT_THOUGHT_CHUNK: &str = "agent_thought_chunk";
        /// A tool call, announced.
        pub const TOOL_CALL: &str = "tool_call";
        /// A tool call's progress or end.
        pub const TOOL_CALL_UPDATE: &str = "tool_call_update";
        /// The agent's plan.
        pub const PLAN: &str = "plan";
        /// The commands the agent offers.
        pub const AVAILABLE_COMMANDS_UPDATE: &str = "available_commands_update";
        /// The session's mode changed.
        pub const CURRENT_MODE_UPDATE: &str = "current_mode_update";
        /// A configuration option changed.
        pub const CONFIG_OPTION_UPDATE: &str = "config_option_update";
        /// The session's title or metadata changed.
        pub const SESSION_INFO_UPDATE: &str = "session_info_update";
        /// Context window and cost.
        pub const USAGE_UPDATE: &str = "usage_update";
        /// Information for the user.
        pub const NOTICE: &str = "notice";
        /// A context compaction.
        pub const COMPACTION_UPDATE: &str = "compaction_update";
        /// A chunk of a compaction's summary.
        pub const COMPACTION_SUMMARY_CHUNK: &str = "compaction_summary_chunk";
    } {
        /// The kinds that belong to a prompt's turn (or a load's replay).
        pub const TURN: &[&str] = &[
            USER_MESSAGE_CHUNK,
            AGENT_MESSAGE_CHUNK,
            AGENT_THOUGHT_CHUNK,
            TOOL_CALL,
            TOOL_CALL_UPDATE,
            PLAN,
        ];
        /// The kinds whose `content` is one content block.
        pub const CHUNKS: &[&str] = &[USER_MESSAGE_CHUNK, AGENT_MESSAGE_CHUNK, AGENT_THOUGHT_CHUNK];
    }

    /// The stop reasons of a `session/prompt` response (the schema's [`StopReason`]).
    pub mod stop_reasons {
        /// Every stop reason, in the schema's order.
        ALL;
        /// The turn ended as it should.
        pub const END_TURN: &str = "end_turn";
        /// The model's token limit.
        pub const MAX_TOKENS: &str = "max_tokens";
        /// Too many agent requests in one turn.
        pub const MAX_TURN_REQUESTS: &str = "max_turn_requests";
        /// The agent refused.
        pub const REFUSAL: &str = "refusal";
        /// The client cancelled the turn.
        pub const CANCELLED: &str = "cancelled";
    }

    /// The kinds of a tool call (the schema's [`ToolKind`]).
    pub mod tool_kinds {
        /// Every tool kind, in the schema's order.
        ALL;
        /// Reading files or data.
        pub const READ: &str = "read";
        /// Modifying files.
        pub const EDIT: &str = "edit";
        /// Removing files.
        pub const DELETE: &str = "delete";
        /// Moving or renaming files.
        pub const MOVE: &str = "move";
        /// Searching.
        pub const SEARCH: &str = "search";
        /// Running commands.
        pub const EXECUTE: &str = "execute";
        /// Reasoning.
        pub const THINK: &str = "think";
        /// Retrieving external data.
        pub const FETCH: &str = "fetch";
        /// Switching the session's mode.
        pub const SWITCH_MODE: &str = "switch_mode";
        /// Anything else (what a client reads an unknown kind as).
        pub const OTHER: &str = "other";
    }

    /// The statuses of a tool call (the schema's [`ToolCallStatus`]),
    /// also a plan entry's ([`PlanEntryStatus`]: all but `failed`).
    pub mod tool_statuses {
        /// Every status, in the schema's order.
        ALL;
        /// Not started.
        pub const PENDING: &str = "pending";
        /// Running.
        pub const IN_PROGRESS: &str = "in_progress";
        /// Done.
        pub const COMPLETED: &str = "completed";
        /// Failed.
        pub const FAILED: &str = "failed";
    } {
        /// A plan entry's statuses.
        pub const PLAN: &[&str] = &[PENDING, IN_PROGRESS, COMPLETED];
    }

    /// The kinds of a permission option (the schema's
    /// [`PermissionOptionKind`]).
    pub mod option_kinds {
        /// Every kind, in the schema's order.
        ALL;
        /// Allow this time.
        pub const ALLOW_ONCE: &str = "allow_once";
        /// Allow, and remember.
        pub const ALLOW_ALWAYS: &str = "allow_always";
        /// Reject this time.
        pub const REJECT_ONCE: &str = "reject_once";
        /// Reject, and remember.
        pub const REJECT_ALWAYS: &str = "reject_always";
    }

    /// The outcomes of a permission request's answer (`result.outcome.outcome`).
    pub mod outcomes {
        /// Every outcome, in the schema's order.
        ALL;
        /// The turn was cancelled before the user chose.
        pub const CANCELLED: &str = super::stop_reasons::CANCELLED;
        /// The user chose an option (`optionId`).
        pub const SELECTED: &str = "selected";
    }

    /// Cursor's session modes (`modes.availableModes`, `session/set_mode`'s `modeId`).
    pub mod modes {
        /// Every mode of `cursor-agent acp`, in the order `session/new` lists them.
        ALL;
        /// The agent acts.
        pub const AGENT: &str = "agent";
        /// The agent plans before acting.
        pub const PLAN: &str = "plan";
        /// The agent answers and changes nothing.
        pub const ASK: &str = "ask";
    }

    /// The types of a content block (`content.type`: the schema's `ContentBlock`).
    pub mod content_types {
        /// Every type, in the schema's order.
        ALL;
        /// Text (Markdown).
        pub const TEXT: &str = "text";
        /// An image.
        pub const IMAGE: &str = "image";
        /// Audio.
        pub const AUDIO: &str = "audio";
        /// A link to a resource.
        pub const RESOURCE_LINK: &str = "resource_link";
        /// A resource, embedded.
        pub const RESOURCE: &str = "resource";
    }

    /// The types of a tool call's `content` items (the schema's `ToolCallContent`).
    pub mod tool_content {
        /// Every type, in the schema's order.
        ALL;
        /// A content block (`content`).
        pub const CONTENT: &str = "content";
        /// A file's change (`path`, `oldText`, `newText`).
        pub const DIFF: &str = "diff";
        /// A terminal of the client's, shown live (`terminalId`).
        pub const TERMINAL: &str = "terminal";
    }
}

/// The priorities of a plan entry (the schema's [`PlanEntryPriority`]).
pub mod priorities {
    /// Every priority, in the schema's order.
    pub const ALL: &[&str] = &["high", "medium", "low"];
}

/// What a client offers in `initialize` (`params.clientCapabilities`): the agent
/// sends `fs/read_text_file`, `fs/write_text_file` and `terminal/*` only to a client
/// that offers them, as the protocol requires.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// `fs.readTextFile`.
    pub read: bool,
    /// `fs.writeTextFile`.
    pub write: bool,
    /// `terminal`.
    pub terminal: bool,
}

impl Capabilities {
    /// What the params of an `initialize` request offer, read as the schema reads
    /// them (a missing or malformed field offers nothing).
    pub fn of_initialize(params: &Value) -> Capabilities {
        let offered =
            serde_json::from_value::<agent_client_protocol_schema::v1::InitializeRequest>(params.clone())
                .map(|request| request.client_capabilities)
                .unwrap_or_default();
        Capabilities {
            read: offered.fs.read_text_file,
            write: offered.fs.write_text_file,
            terminal: offered.terminal,
        }
    }

    /// Whether the client offers the agent's request `method`: `true` for a method
    /// that needs no capability.
    pub fn allow(self, method: &str) -> bool {
        match method {
            methods::FS_READ_TEXT_FILE => self.read,
            methods::FS_WRITE_TEXT_FILE => self.write,
            _ if method.starts_with(methods::TERMINAL_PREFIX) => self.terminal,
            _ => true,
        }
    }

    /// The `clientCapabilities` of an `initialize` that offers these.
    pub fn to_value(self) -> Value {
        json!({"fs": {"readTextFile": self.read, "writeTextFile": self.write}, "terminal": self.terminal})
    }

    /// Every capability: files read and written, a terminal.
    pub const ALL: Capabilities = Capabilities {
        read: true,
        write: true,
        terminal: true,
    };

    /// The params of an `initialize` request, offering these instead of what they
    /// offer.
    pub fn offered_in(self, params: &Value) -> Value {
        let mut params = match params {
            Value::Object(_) => params.clone(),
            _ => json!({}),
        };
        params["clientCapabilities"] = self.to_value();
        params
    }
}

/// The params of `fs/read_text_file` of `path` (absolute).
pub fn read_text_file(session: &str, path: &str) -> Value {
    json!({"sessionId": session, "path": path})
}

/// The params of `fs/write_text_file` of `content` to `path` (absolute).
pub fn write_text_file(session: &str, path: &str, content: &str) -> Value {
    json!({"sessionId": session, "path": path, "content": content})
}

/// The params of `terminal/create` running `command` with the shell in `cwd`.
pub fn create_terminal(session: &str, command: &str, cwd: Option<&str>) -> Value {
    let mut params = json!({"sessionId": session, "command": "/bin/sh", "args": ["-c", command], "env": [], "outputByteLimit": 1_048_576});
    if let Some(cwd) = cwd {
        params["cwd"] = Value::from(cwd);
    }
    params
}

/// The params of a request about the client's terminal `terminal` (`terminal/output`,
/// `terminal/wait_for_exit`, `terminal/release`, `terminal/kill`).
pub fn terminal(session: &str, terminal: &str) -> Value {
    json!({"sessionId": session, "terminalId": terminal})
}

/// A tool call's `content` item that shows the client's terminal `terminal`.
pub fn terminal_content(terminal: &str) -> Value {
    json!({"type": tool_content::TERMINAL, "terminalId": terminal})
}

/// A tool call's `content` item of one content block.
pub fn block_content(block: Value) -> Value {
    json!({"type": tool_content::CONTENT, "content": block})
}

/// A `usage_update`: `used` tokens of a context window of `size`, and what the
/// session has cost so far, in US dollars.
pub fn usage_update(used: u64, size: u64, cost: f64) -> Value {
    json!({"sessionUpdate": updates::USAGE_UPDATE, "used": used, "size": size, "cost": {"amount": cost, "currency": "USD"}})
}

/// A `session_info_update` that gives the session its `title`.
pub fn session_info_update(title: &str) -> Value {
    json!({"sessionUpdate": updates::SESSION_INFO_UPDATE, "title": title})
}

/// An image content block (`data` base64).
pub fn image_block(mime: &str, data: &str) -> Value {
    json!({"type": content_types::IMAGE, "mimeType": mime, "data": data})
}

/// An embedded text resource content block.
pub fn resource_block(uri: &str, mime: &str, text: &str) -> Value {
    json!({"type": content_types::RESOURCE, "resource": {"uri": uri, "mimeType": mime, "text": text}})
}

/// A resource link content block.
pub fn resource_link_block(uri: &str, name: &str) -> Value {
    json!({"type": content_types::RESOURCE_LINK, "uri": uri, "name": name})
}

/// A text content block.
pub fn text_block(text: &str) -> Value {
    json!({"type": content_types::TEXT, "text": text})
}

/// What the mock writes that no schema has.
pub mod undocumented {
    /// The `sessionUpdate` kind of the `unknown-update` fault, which no client knows.
    pub const UPDATE: &str = "mock_agent_unknown_update";
}

/// An update of one of the [`updates::CHUNKS`] kinds, of this text.
pub fn text_chunk(kind: &str, text: &str) -> Value {
    json!({"sessionUpdate": kind, "content": text_block(text)})
}

/// The result of a `session/prompt` that ends with this stop reason.
pub fn stop(reason: &str) -> Value {
    json!({"stopReason": reason})
}

/// The client's answer to a permission request: this option chosen.
pub fn selected(option_id: &str) -> Value {
    json!({"outcome": {"outcome": outcomes::SELECTED, "optionId": option_id}})
}

/// The client's answer to a permission request of a cancelled turn.
pub fn cancelled() -> Value {
    json!({"outcome": {"outcome": outcomes::CANCELLED}})
}

#[cfg(test)]
mod tests {
    use agent_client_protocol_schema::v1::{
        ContentBlock, RequestPermissionOutcome, SessionUpdate, ToolCallContent,
    };
    use serde::de::DeserializeOwned;
    use serde_json::{json, Value};

    use super::*;

    /// The names the schema's type `T` accepts in `field` (`None`: the value itself),
    /// read from serde's "unknown variant" error, which lists them all.
    fn schema_names<T: DeserializeOwned + std::fmt::Debug>(field: Option<&str>) -> Vec<String> {
        let unknown = Value::from("no such name");
        let value = match field {
            Some(field) => json!({ field: unknown }),
            None => unknown,
        };
        let error = serde_json::from_value::<T>(value)
            .expect_err("an unknown name")
            .to_string();
        let expected = error
            .split("expected ")
            .nth(1)
            .unwrap_or_else(|| panic!("{error}"));
        let expected = expected.strip_prefix("one of ").unwrap_or(expected);
        expected
            .split([',', ' '])
            .filter(|word| *word != "or")
            .map(|name| name.trim_matches(|c: char| c == '`' || c.is_whitespace()))
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect()
    }

    fn names(ours: &[&str]) -> Vec<String> {
        ours.iter().map(|name| (*name).to_owned()).collect()
    }

    /// How a schema value serializes: its name.
    fn name_of(value: impl serde::Serialize) -> String {
        serde_json::to_value(value)
            .expect("serializes")
            .as_str()
            .expect("a name")
            .to_owned()
    }

    #[test]
    fn our_names_are_the_schema_s() {
        assert_eq!(
            names(updates::ALL),
            schema_names::<SessionUpdate>(Some("sessionUpdate"))
        );
        assert_eq!(names(stop_reasons::ALL), schema_names::<StopReason>(None));
        assert_eq!(names(tool_statuses::ALL), schema_names::<ToolCallStatus>(None));
        assert_eq!(names(tool_statuses::PLAN), schema_names::<PlanEntryStatus>(None));
        assert_eq!(names(priorities::ALL), schema_names::<PlanEntryPriority>(None));
        assert_eq!(
            names(option_kinds::ALL),
            schema_names::<PermissionOptionKind>(None)
        );
        assert_eq!(
            names(outcomes::ALL),
            schema_names::<RequestPermissionOutcome>(Some("outcome"))
        );
        assert_eq!(
            names(content_types::ALL),
            schema_names::<ContentBlock>(Some("type"))
        );
        assert_eq!(
            names(tool_content::ALL),
            schema_names::<ToolCallContent>(Some("type"))
        );
    }

    /// The shapes built here are the schema's.
    #[test]
    fn built_messages_read_as_the_schema_s_types() {
        use agent_client_protocol_schema::v1 as schema;
        fn reads<T: DeserializeOwned>(value: Value) {
            if let Err(e) = serde_json::from_value::<T>(value.clone()) {
                panic!("{}: {e}: {value}", std::any::type_name::<T>());
            }
        }
        reads::<schema::ReadTextFileRequest>(read_text_file("s", "/w/a.md"));
        reads::<schema::WriteTextFileRequest>(write_text_file("s", "/w/a.md", "x"));
        reads::<schema::CreateTerminalRequest>(create_terminal("s", "ls", Some("/w")));
        reads::<schema::TerminalOutputRequest>(terminal("s", "t"));
        reads::<schema::WaitForTerminalExitRequest>(terminal("s", "t"));
        reads::<schema::ReleaseTerminalRequest>(terminal("s", "t"));
        for update in [
            usage_update(1, 2, 0.5),
            session_info_update("t"),
            json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": "c", "content": [
                terminal_content("t"),
                block_content(image_block("image/png", "AA==")),
                block_content(resource_block("file:///w/a.md", "text/markdown", "x")),
                block_content(resource_link_block("file:///w/a.md", "a.md")),
            ]}),
        ] {
            reads::<SessionUpdate>(update);
        }
        let offered = Capabilities {
            read: true,
            write: false,
            terminal: true,
        };
        let init = json!({"protocolVersion": 1, "clientCapabilities": offered.to_value()});
        assert_eq!(Capabilities::of_initialize(&init), offered);
        assert_eq!(Capabilities::of_initialize(&json!({})), Capabilities::default());
        assert!(offered.allow(methods::TERMINAL_CREATE) && !offered.allow(methods::FS_WRITE_TEXT_FILE));
    }

    /// Tool kinds read an unknown name as `other`: each of ours reads as itself.
    #[test]
    fn tool_kinds_round_trip_through_the_schema() {
        let schema = [
            ToolKind::Read,
            ToolKind::Edit,
            ToolKind::Delete,
            ToolKind::Move,
            ToolKind::Search,
            ToolKind::Execute,
            ToolKind::Think,
            ToolKind::Fetch,
            ToolKind::SwitchMode,
            ToolKind::Other,
        ];
        assert_eq!(tool_kinds::ALL.len(), schema.len());
        for (ours, theirs) in tool_kinds::ALL.iter().zip(schema) {
            assert_eq!(name_of(theirs), *ours);
            let read: ToolKind = serde_json::from_value(Value::from(*ours)).expect("reads");
            assert_eq!(read, theirs);
        }
        assert_eq!(
            [StopReason::EndTurn, StopReason::Cancelled].map(name_of),
            [stop_reasons::END_TURN, stop_reasons::CANCELLED]
        );
    }

    #[test]
    fn the_error_codes_are_the_schema_s() {
        use super::super::rpc::codes;
        let pairs = [
            (codes::PARSE_ERROR, ErrorCode::ParseError),
            (codes::INVALID_REQUEST, ErrorCode::InvalidRequest),
            (codes::METHOD_NOT_FOUND, ErrorCode::MethodNotFound),
            (codes::INVALID_PARAMS, ErrorCode::InvalidParams),
            (codes::INTERNAL_ERROR, ErrorCode::InternalError),
            (codes::REQUEST_CANCELLED, ErrorCode::RequestCancelled),
            (codes::AUTH_REQUIRED, ErrorCode::AuthRequired),
            (codes::RESOURCE_NOT_FOUND, ErrorCode::ResourceNotFound),
        ];
        for (ours, theirs) in pairs {
            assert_eq!(ours, i64::from(i32::from(theirs)));
        }
    }
}
