//! Codex's wire model: every name of `codex exec --json` and of `codex app-server`,
//! said once, with the texts the CLI writes in its own words.
//!
//! Two protocols share the binary `codex` (0.163.0, observed; see `REAL-CODEX.md` in
//! the project's notes):
//!
//! - **`codex exec --json`** (alias `--experimental-json`, what the TypeScript SDK
//!   runs): one turn a process, one compact JSON object a line on stdout, nothing read
//!   from the client but the prompt on stdin. The line types are [`events`], the item
//!   types [`items`].
//! - **`codex app-server`** (what the Python SDK and the IDE extensions run): JSON-RPC
//!   over stdio, one object a line both ways, without a `"jsonrpc"` member on what the
//!   server writes, notifications stamped `emittedAtMs`. Its names are in [`rpc`].
//!
//! Every list here may grow: a later CLI adds types, and a consumer that drops what it
//! does not know keeps working. The stand-in writes only the names below.

/// The version the stand-in says it is (`codex --version`, `cliVersion`, `userAgent`).
pub const VERSION: &str = "0.163.0";

/// What `codex --version` prints (exit 0).
pub const VERSION_LINE: &str = "codex-cli 0.163.0";

/// This dialect's name in a cassette's invocation (`"dialect":"codex"`).
pub const DIALECT: &str = "codex";

pub use crate::cassette::DIALECT_KEY;

/// Names no SDK knows, which only the faults write (`unknown`): a consumer must let
/// them pass, as the TypeScript SDK passes unknown types to its callers.
pub mod undocumented {
    /// A line type of no CLI: `{"type":"turn.forecast","note":"..."}`.
    pub const EVENT: &str = "turn.forecast";
    /// An item type of no CLI: `{"id":"item_x","type":"forecast","text":"..."}`.
    pub const ITEM: &str = "forecast";
    /// The id of the items the faults add (`unknown`, `huge`).
    pub const ITEM_ID: &str = "item_fault";
    /// An app-server notification of no CLI: `{"method":"turn/forecast","params":{..}}`.
    pub const NOTIFICATION: &str = "turn/forecast";
}

/// The model the default session names (`-m`, `--model` and `thread/start` override
/// it).
pub const MODEL: &str = "gpt-5.5";

/// The model provider the banner and `thread/start` name when none is configured.
pub const PROVIDER: &str = "openai";

/// The context window `thread/tokenUsage/updated` reports (`modelContextWindow`).
pub const CONTEXT_WINDOW: u64 = 258_400;

/// The summary of the `configWarning` app-server sends after `initialize`'s answer on
/// a machine without bubblewrap (observed whole in cassettes/codex-app-server/).
pub const BUBBLEWRAP_WARNING: &str = "Codex could not find bubblewrap on PATH. Install bubblewrap with your OS package manager. See the sandbox prerequisites: https://developers.openai.com/codex/concepts/sandboxing#prerequisites. Codex will use the bundled bubblewrap in the meantime.";

/// The platform part of a `userAgent` (`<client>/<version> (<platform>) unknown (...)`).
pub const PLATFORM: &str = "Debian 12.0.0; x86_64";

/// The `type` of each line of `codex exec --json`.
///
/// ```json
/// {"type":"thread.started","thread_id":"01a21d00-ede8-7e30-9c0b-291a62274862"}
/// {"type":"turn.started"}
/// {"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"All done."}}
/// {"type":"turn.completed","usage":{"input_tokens":30,"cached_input_tokens":4,"cache_write_input_tokens":0,"output_tokens":12,"reasoning_output_tokens":2}}
/// ```
pub mod events {
    /// The first line: `{"type":"thread.started","thread_id":"<uuid v7>"}` (the same
    /// id again after `exec resume`).
    pub const THREAD_STARTED: &str = "thread.started";
    /// The turn begins: `{"type":"turn.started"}` (no other field).
    pub const TURN_STARTED: &str = "turn.started";
    /// The turn ended well: `{"type":"turn.completed","usage":{...}}`, the thread's
    /// running total of the five [`super::usage`] keys.
    pub const TURN_COMPLETED: &str = "turn.completed";
    /// The turn failed: `{"type":"turn.failed","error":{"message":"..."}}`, the message
    /// of the [`ERROR`] line just before it; the process exits 1.
    pub const TURN_FAILED: &str = "turn.failed";
    /// An item begins: `{"type":"item.started","item":{"id":"item_0",...,"status":"in_progress"}}`
    /// (not for `agent_message` and `reasoning`, which only complete).
    pub const ITEM_STARTED: &str = "item.started";
    /// An item changed (a `todo_list`; a `file_change` in newer CLIs).
    pub const ITEM_UPDATED: &str = "item.updated";
    /// An item is done: `{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"All done."}}`.
    pub const ITEM_COMPLETED: &str = "item.completed";
    /// A plan's text grows: `{"type":"item.plan.delta","item_id":"item_0","delta":"..."}`
    /// (source only).
    pub const ITEM_PLAN_DELTA: &str = "item.plan.delta";
    /// The model asks the user: `{"type":"request_user_input","id":..,"call_id":..,"questions":[..]}`
    /// (source only).
    pub const REQUEST_USER_INPUT: &str = "request_user_input";
    /// A failure or a retry: `{"type":"error","message":"Reconnecting... 1/5 (...)"}`.
    pub const ERROR: &str = "error";

    /// Every line type of 0.163.0.
    pub const ALL: &[&str] = &[
        THREAD_STARTED,
        TURN_STARTED,
        TURN_COMPLETED,
        TURN_FAILED,
        ITEM_STARTED,
        ITEM_UPDATED,
        ITEM_COMPLETED,
        ITEM_PLAN_DELTA,
        REQUEST_USER_INPUT,
        ERROR,
    ];

    /// The lines of `codex exec --json`, as a consumer that passes them on prints them
    /// ([`Dialect::own_objects`](crate::run::Dialect::own_objects)): an object whose
    /// `type` is one of [`ALL`] (`thread.started` has no session id of Claude's kind:
    /// its `thread_id` is its own).
    pub const OWN_OBJECTS: &[crate::run::OwnObject] = &[crate::run::OwnObject {
        keys: &[],
        kind: Some(("type", ALL)),
    }];
}

/// The `item.type` of `codex exec --json`'s items. Every item has `id` (`item_0`,
/// `item_1`, ... in order of first appearance in the process) then `type` first.
pub mod items {
    /// The model's text: `{"id":"item_1","type":"agent_message","text":"All done."}`
    /// (with `--output-schema`, `text` is a JSON document).
    pub const AGENT_MESSAGE: &str = "agent_message";
    /// The reasoning summary, its parts joined with `\n`:
    /// `{"id":"item_0","type":"reasoning","text":"**Thinking** about it"}`.
    pub const REASONING: &str = "reasoning";
    /// A shell command: `{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'echo hello'","aggregated_output":"hello\n","exit_code":0,"status":"completed"}`
    /// (`exit_code` null while in progress; a non-zero one is `failed`).
    pub const COMMAND_EXECUTION: &str = "command_execution";
    /// A patch: `{"id":"item_2","type":"file_change","changes":[{"path":"/abs/notes.md","kind":"add"}],"status":"completed"}`.
    pub const FILE_CHANGE: &str = "file_change";
    /// An MCP tool call: `server`, `tool`, `arguments`, `result` (`{content,structured_content}`
    /// or null), `error` (`{message}` or null), `status` (source only).
    pub const MCP_TOOL_CALL: &str = "mcp_tool_call";
    /// A sub-agent tool call (`spawn_agent`, `send_input`, `wait`, `close_agent`;
    /// source only).
    pub const COLLAB_TOOL_CALL: &str = "collab_tool_call";
    /// A web search, with **two `id` keys** (observed):
    /// `{"id":"item_0","type":"web_search","id":"ws_1","query":"rust","action":{"type":"search","query":"rust"}}`;
    /// a last-wins parser keeps `ws_1`.
    pub const WEB_SEARCH: &str = "web_search";
    /// The plan: `{"id":"item_0","type":"todo_list","items":[{"text":"Add tests","completed":false}]}`
    /// (started, updated on each change, completed when the turn ends; source only).
    pub const TODO_LIST: &str = "todo_list";
    /// Plan mode's plan: `{"id":..,"type":"plan","text":".."}` (source only).
    pub const PLAN: &str = "plan";
    /// A warning that is not fatal (configuration, deprecation, model metadata), often
    /// before `turn.started`: `{"id":"item_0","type":"error","message":"..."}`.
    pub const ERROR: &str = super::events::ERROR;

    /// Every item type of 0.163.0.
    pub const ALL: &[&str] = &[
        AGENT_MESSAGE,
        REASONING,
        COMMAND_EXECUTION,
        FILE_CHANGE,
        MCP_TOOL_CALL,
        COLLAB_TOOL_CALL,
        WEB_SEARCH,
        TODO_LIST,
        PLAN,
        ERROR,
    ];

    /// The `action.type` of a `web_search`.
    pub const SEARCH_ACTION: &str = "search";
}

/// An item's `status` in `codex exec --json`.
pub mod status {
    /// Started, not done (`item.started`).
    pub const IN_PROGRESS: &str = "in_progress";
    /// Done (a command that exited 0, a patch applied).
    pub const COMPLETED: &str = "completed";
    /// A command that exited non-zero, a patch that did not apply.
    pub const FAILED: &str = "failed";
    /// A command the approval policy refused.
    pub const DECLINED: &str = "declined";
}

/// A `file_change` change's `kind`.
pub mod change_kinds {
    /// A new file.
    pub const ADD: &str = "add";
    /// A file removed.
    pub const DELETE: &str = "delete";
    /// A file edited.
    pub const UPDATE: &str = "update";
    /// Every kind.
    pub const ALL: &[&str] = &[ADD, DELETE, UPDATE];
}

/// The keys of `turn.completed`'s `usage`, in their order; all five are always written
/// (0.163.0), and they are the thread's running total.
pub mod usage {
    /// Input tokens.
    pub const INPUT_TOKENS: &str = "input_tokens";
    /// Of them, read from the cache.
    pub const CACHED_INPUT_TOKENS: &str = "cached_input_tokens";
    /// Of them, written to the cache.
    pub const CACHE_WRITE_INPUT_TOKENS: &str = "cache_write_input_tokens";
    /// Output tokens.
    pub const OUTPUT_TOKENS: &str = "output_tokens";
    /// Of them, reasoning.
    pub const REASONING_OUTPUT_TOKENS: &str = "reasoning_output_tokens";
    /// The keys, in order.
    pub const ALL: &[&str] = &[
        INPUT_TOKENS,
        CACHED_INPUT_TOKENS,
        CACHE_WRITE_INPUT_TOKENS,
        OUTPUT_TOKENS,
        REASONING_OUTPUT_TOKENS,
    ];
}

/// The approval policies (`-c approval_policy=...`, `thread/start`'s `approvalPolicy`).
pub mod policies {
    /// Asks before any command not known to be safe (and before patches).
    pub const UNTRUSTED: &str = "untrusted";
    /// Asks when a sandboxed command fails.
    pub const ON_FAILURE: &str = "on-failure";
    /// The model asks when it wants to leave the sandbox (app-server's default).
    pub const ON_REQUEST: &str = "on-request";
    /// Never asks (`codex exec`'s default).
    pub const NEVER: &str = "never";
    /// Every policy.
    pub const ALL: &[&str] = &[UNTRUSTED, ON_FAILURE, ON_REQUEST, NEVER];
}

/// The sandbox modes (`-s`, `--sandbox`, `-c sandbox_mode=...`, `thread/start`'s
/// `sandbox`), and their names in app-server's `sandbox.type`.
pub mod sandboxes {
    /// Nothing may be written: patches are rejected (no item, a stderr line).
    pub const READ_ONLY: &str = "read-only";
    /// The working folder may be written.
    pub const WORKSPACE_WRITE: &str = "workspace-write";
    /// No sandbox.
    pub const DANGER_FULL_ACCESS: &str = "danger-full-access";
    /// Every mode, as `--sandbox` takes them (and lists them in its error).
    pub const ALL: &[&str] = &[READ_ONLY, WORKSPACE_WRITE, DANGER_FULL_ACCESS];
    /// `read-only` in app-server's `sandbox.type`.
    pub const V2_READ_ONLY: &str = "readOnly";
    /// `workspace-write` in app-server's `sandbox.type`.
    pub const V2_WORKSPACE_WRITE: &str = "workspaceWrite";
    /// `danger-full-access` in app-server's `sandbox.type`.
    pub const V2_DANGER_FULL_ACCESS: &str = "dangerFullAccess";

    /// A mode's app-server name (the mode itself when unknown).
    pub fn v2(mode: &str) -> &str {
        match mode {
            READ_ONLY => V2_READ_ONLY,
            WORKSPACE_WRITE => V2_WORKSPACE_WRITE,
            DANGER_FULL_ACCESS => V2_DANGER_FULL_ACCESS,
            other => other,
        }
    }
}

/// What `codex exec` writes on stderr, in its words.
pub mod stderr {
    /// `app-server`'s log line about bubblewrap, with the `configWarning` (observed by
    /// drift, 0.163.0: colored and stamped even into a pipe).
    pub fn bubblewrap_error(ms: u64) -> String {
        let ms = i64::try_from(ms).unwrap_or(i64::MAX);
        let time = jiff::Timestamp::from_millisecond(ms)
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
            .strftime("%Y-%m-%dT%H:%M:%S%.6fZ");
        format!(
            "\x1b[2m{time}\x1b[0m \x1b[31mERROR\x1b[0m \x1b[2mcodex_app_server\x1b[0m\x1b[2m:\x1b[0m {}",
            super::BUBBLEWRAP_WARNING
        )
    }

    /// The prompt is read from stdin (no positional prompt, or `-`).
    pub const READING_PROMPT: &str = "Reading prompt from stdin...";
    /// A positional prompt and a piped stdin: stdin is appended as a `<stdin>` block.
    pub const READING_ADDITIONAL: &str = "Reading additional input from stdin...";
    /// Empty stdin where the prompt was to be: exit 1, nothing on stdout.
    pub const NO_PROMPT: &str = "No prompt provided via stdin.";
    /// Outside a Git repository without `--skip-git-repo-check`: exit 1.
    pub const NOT_TRUSTED: &str =
        "Not inside a trusted directory and --skip-git-repo-check was not specified.";
    /// A patch in a `read-only` sandbox: no item, the turn goes on.
    pub const PATCH_REJECTED: &str = "ERROR codex_core::tools::router: error=patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings";
    /// `codex mcp-server` (removed in 0.154.0) and any other word is a prompt for the
    /// interactive UI, which needs a terminal: exit 1.
    pub const NOT_A_TERMINAL: &str = "Error: stdin is not a terminal";

    /// `-C DIR` naming no folder that can be found: the OS's words (`No such file or
    /// directory (os error 2)`), before the prompt is read, exit 1 (0.163.0,
    /// observed without `RUST_BACKTRACE`).
    pub fn workdir_error(reason: &str) -> String {
        format!("Error: {reason}")
    }

    /// `exec resume <uuid>` of a thread that has no rollout: exit 1, stdout empty.
    pub fn no_rollout(id: &str) -> String {
        format!(
            "Error: thread/resume: thread/resume failed: {} (code {})",
            super::messages::no_rollout(id),
            super::rpc::codes::INVALID_REQUEST
        )
    }

    /// `--output-schema` names a file that cannot be read (`reason`: the OS's words,
    /// `No such file or directory (os error 2)`).
    pub fn schema_unreadable(path: &str, reason: &str) -> String {
        format!("Failed to read output schema file {path}: {reason}")
    }

    /// `--output-schema` names a file that is not JSON (`reason`: serde_json's words,
    /// `key must be a string at line 1 column 2`).
    pub fn schema_not_json(path: &str, reason: &str) -> String {
        format!("Output schema file {path} is not valid JSON: {reason}")
    }

    /// app-server's line for a client line that is not JSON (no reply is written).
    pub fn not_json_rpc(reason: &str) -> String {
        format!("ERROR codex_app_server_transport::transport: Failed to deserialize JSONRPCMessage: {reason}")
    }
}

/// The messages of `error` lines and `turn.failed`, in the CLI's words.
pub mod messages {
    /// How many times a failed request is retried (`Reconnecting... n/5`).
    pub const RETRIES: u32 = 5;
    /// HTTP 500: the message, not the body.
    pub const HIGH_DEMAND: &str =
        "We\u{2019}re currently experiencing high demand, which may cause temporary errors.";
    /// `response.failed` with code `insufficient_quota` (no retry).
    pub const QUOTA: &str = "Quota exceeded. Check your plan and billing details.";
    /// `response.failed` with code `context_length_exceeded` (no retry).
    pub const CONTEXT_WINDOW: &str = "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying.";
    /// The model's stream ended before `response.completed` (retried).
    pub const STREAM_CUT: &str =
        "stream disconnected before completion: stream closed before response.completed";
    /// HTTP 429 (retried, then the same words end the turn).
    pub const RATE_LIMITED: &str = "exceeded retry limit, last status: 429 Too Many Requests";
    /// The URL the built-in provider posts to (in an unexpected status's message).
    pub const RESPONSES_URL: &str = "https://api.openai.com/v1/responses";

    /// The `error` line of retry `n` of [`RETRIES`]: `Reconnecting... 2/5 (<reason>)`.
    pub fn reconnecting(n: u32, reason: &str) -> String {
        format!("{} ({reason})", reconnecting_bare(n))
    }

    /// App-server's message of retry `n` (the reason in `additionalDetails`):
    /// `Reconnecting... 1/5` (observed).
    pub fn reconnecting_bare(n: u32) -> String {
        format!("Reconnecting... {n}/{RETRIES}")
    }

    /// An HTTP status the CLI retries, then ends the turn with (401, 404):
    /// `unexpected status 401 Unauthorized: <body>, url: <url>` (the form observed for
    /// a WebSocket 404; the HTTP form is inferred from it).
    pub fn unexpected_status(status: u16, reason: &str, body: &str, url: &str) -> String {
        format!("unexpected status {status} {reason}: {body}, url: {url}")
    }

    /// The body of the API's 401 (a wrong key; `key` is what the client sent, cut).
    pub fn unauthorized_body(key: &str) -> String {
        format!(
            "{{\"error\":{{\"message\":\"Incorrect API key provided: {key}. You can find your API key at https://platform.openai.com/account/api-keys.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}}}"
        )
    }

    /// The body of the API's 400 for a model it does not serve (inferred; the CLI
    /// writes a 400's raw body as the message).
    pub fn unknown_model_body(model: &str) -> String {
        format!(
            "{{\"error\":{{\"message\":\"The requested model '{model}' does not exist.\",\"type\":\"invalid_request_error\",\"param\":\"model\",\"code\":\"model_not_found\"}}}}"
        )
    }

    /// The warning item of a model the CLI has no metadata for (observed before
    /// `turn.started`).
    pub fn model_metadata(model: &str) -> String {
        format!("Model metadata for `{model}` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.")
    }

    /// A custom provider whose `env_key` is unset.
    pub fn missing_env(var: &str) -> String {
        format!("Missing environment variable: `{var}`.")
    }

    /// `thread/resume` of an unknown thread (app-server's -32600 message).
    pub fn no_rollout(id: &str) -> String {
        format!("no rollout found for thread id {id}")
    }
}

/// The command line's flags (long names, without `--`), as `codex exec --help`
/// (0.163.0) lists them.
pub mod argv {
    /// `codex exec`'s flags that take a value, with clap's value name.
    pub const VALUED: &[(&str, &str)] = &[
        ("config", "key=value"),
        ("enable", "FEATURE"),
        ("disable", "FEATURE"),
        ("image", "FILE"),
        ("model", "MODEL"),
        ("local-provider", "OSS_PROVIDER"),
        ("profile", "CONFIG_PROFILE"),
        ("sandbox", "SANDBOX_MODE"),
        ("cd", "DIR"),
        ("add-dir", "DIR"),
        ("thread-source", "THREAD_SOURCE"),
        ("cyber-access-program", "CYBER_ACCESS_PROGRAM"),
        ("output-schema", "FILE"),
        ("color", "COLOR"),
        ("output-last-message", "FILE"),
    ];

    /// `codex exec`'s flags that take none.
    pub const FLAGS: &[&str] = &[
        "strict-config",
        "oss",
        "approve-for-me",
        "dangerously-bypass-approvals-and-sandbox",
        "dangerously-bypass-hook-trust",
        "worktree",
        "skip-git-repo-check",
        "ephemeral",
        "ignore-user-config",
        "ignore-rules",
        "json",
        "experimental-json",
        "help",
        "version",
    ];

    /// Short flags and their long names.
    pub const SHORT: &[(char, &str)] = &[
        ('c', "config"),
        ('i', "image"),
        ('m', "model"),
        ('p', "profile"),
        ('s', "sandbox"),
        ('C', "cd"),
        ('o', "output-last-message"),
        ('h', "help"),
        ('V', "version"),
    ];

    /// `--color`'s values.
    pub const COLORS: &[&str] = &["always", "never", "auto"];
    /// `--local-provider`'s values.
    pub const LOCAL_PROVIDERS: &[&str] = &["lmstudio", "ollama"];
    /// `exec resume`'s own flags.
    pub const RESUME_FLAGS: &[&str] = &["last", "all"];
    /// `app-server --listen`'s default.
    pub const LISTEN_STDIO: &str = "stdio://";
}

/// The names of `codex app-server`: JSON-RPC over stdio, one object a line, no
/// `"jsonrpc"` member on what the server writes (a client's is accepted), ids numbers
/// or strings, notifications with a top-level `emittedAtMs`.
///
/// ```json
/// -> {"method":"initialize","id":0,"params":{"clientInfo":{"name":"codex_python_sdk","title":"Codex Python SDK","version":"0.163.0"},"capabilities":{"experimentalApi":true}}}
/// <- {"id":0,"result":{"userAgent":"codex_python_sdk/0.163.0 (Debian 12.0.0; x86_64) unknown (codex_python_sdk; 0.163.0)","codexHome":"/home/u/.codex","platformFamily":"unix","platformOs":"linux"}}
/// -> {"method":"initialized"}
/// <- {"method":"configWarning","params":{"summary":"Codex could not find bubblewrap on PATH. ...","details":null},"emittedAtMs":1795783086516}
/// ```
pub mod rpc {
    /// A response's member holding what a request returned (`{"id":..,"result":..}`).
    pub const RESULT: &str = "result";
    /// A response's member holding why a request failed (`{"error":{"code","message"},"id":..}`).
    pub const ERROR: &str = "error";

    /// The client's requests (0.163.0's schema lists 105; these are the ones the
    /// stand-in answers, and the ones it names in its unknown-method error).
    pub mod methods {
        /// The first request: `clientInfo`, `capabilities`; answered with `userAgent`,
        /// `codexHome`, `platformFamily`, `platformOs`.
        pub const INITIALIZE: &str = "initialize";
        /// A new thread: `model`, `approvalPolicy`, `sandbox`, `cwd`, ...; answered with
        /// the thread, then the `thread/started` notification.
        pub const THREAD_START: &str = "thread/start";
        /// An existing thread, by `threadId` (-32600 `no rollout found for thread id ..`).
        pub const THREAD_RESUME: &str = "thread/resume";
        /// A copy of a thread.
        pub const THREAD_FORK: &str = "thread/fork";
        /// A thread's turns.
        pub const THREAD_READ: &str = "thread/read";
        /// The stored threads.
        pub const THREAD_LIST: &str = "thread/list";
        /// Archive a thread.
        pub const THREAD_ARCHIVE: &str = "thread/archive";
        /// A turn: `threadId`, `input` (`[{"type":"text","text":".."}]`); answered with
        /// the turn (`inProgress`), then its notifications.
        pub const TURN_START: &str = "turn/start";
        /// More input for the turn under way.
        pub const TURN_STEER: &str = "turn/steer";
        /// End the turn under way: `threadId`, `turnId`; it completes `interrupted`.
        pub const TURN_INTERRUPT: &str = "turn/interrupt";
        /// A code review.
        pub const REVIEW_START: &str = "review/start";
        /// The models.
        pub const MODEL_LIST: &str = "model/list";
        /// The account.
        pub const ACCOUNT_READ: &str = "account/read";
        /// The configuration.
        pub const CONFIG_READ: &str = "config/read";
        /// Run a command outside a turn.
        pub const COMMAND_EXEC: &str = "command/exec";

        /// The requests named here, in the order the unknown-method error lists them.
        pub const ALL: &[&str] = &[
            INITIALIZE,
            THREAD_START,
            THREAD_RESUME,
            THREAD_FORK,
            THREAD_ARCHIVE,
            THREAD_LIST,
            THREAD_READ,
            TURN_START,
            TURN_STEER,
            TURN_INTERRUPT,
            REVIEW_START,
            MODEL_LIST,
            ACCOUNT_READ,
            CONFIG_READ,
            COMMAND_EXEC,
        ];
    }

    /// The client's one notification.
    pub mod client_notifications {
        /// After `initialize`'s answer: `{"method":"initialized"}`.
        pub const INITIALIZED: &str = "initialized";
    }

    /// The server's notifications (85 in 0.163.0's schema; these are the ones the
    /// stand-in writes). Each has `params` and `emittedAtMs`.
    pub mod notifications {
        /// A turn's failure or a retry: `{"error":{"message",..,"codexErrorInfo",..},"willRetry",..,"threadId","turnId"}`.
        pub const ERROR: &str = super::super::events::ERROR;
        /// After `thread/start`'s answer: `{"thread":{..}}`.
        pub const THREAD_STARTED: &str = "thread/started";
        /// `{"threadId","status":{"type":"active","activeFlags":[..]}}` or `idle`,
        /// `systemError`.
        pub const THREAD_STATUS_CHANGED: &str = "thread/status/changed";
        /// `{"threadId","turnId","tokenUsage":{"total":{..},"last":{..},"modelContextWindow":258400}}`.
        pub const TOKEN_USAGE_UPDATED: &str = "thread/tokenUsage/updated";
        /// The thread's read state (after each turn).
        pub const READ_STATE_CHANGED: &str = "thread/readState/changed";
        /// `{"threadId","turn":{"id","status":"inProgress",..}}`.
        pub const TURN_STARTED: &str = "turn/started";
        /// `{"threadId","turn":{"id","items":[..],"itemsView":"summary","status","error",..}}`.
        pub const TURN_COMPLETED: &str = "turn/completed";
        /// `{"item":{..,"status":"inProgress"},"threadId","turnId","startedAtMs"}`.
        pub const ITEM_STARTED: &str = "item/started";
        /// `{"item":{..},"threadId","turnId","completedAtMs"}`.
        pub const ITEM_COMPLETED: &str = "item/completed";
        /// `{"threadId","turnId","itemId","delta":"Hello "}`.
        pub const AGENT_MESSAGE_DELTA: &str = "item/agentMessage/delta";
        /// The member of [`AGENT_MESSAGE_DELTA`]'s params that holds the text.
        pub const DELTA: &str = "delta";
        /// A command's output as it comes (source only).
        pub const COMMAND_OUTPUT_DELTA: &str = "item/commandExecution/outputDelta";
        /// `{"threadId","requestId"}`: a server request was answered.
        pub const SERVER_REQUEST_RESOLVED: &str = "serverRequest/resolved";
        /// `{"rateLimits":{"limitId":"codex",..}}`.
        pub const RATE_LIMITS_UPDATED: &str = "account/rateLimits/updated";
        /// `{"summary","details"}`, after `initialized` (bubblewrap missing).
        pub const CONFIG_WARNING: &str = "configWarning";
        /// `{"status":"disabled","serverName",..}`, after `initialized`.
        pub const REMOTE_CONTROL_STATUS_CHANGED: &str = "remoteControl/status/changed";

        /// The notifications named here.
        pub const ALL: &[&str] = &[
            ERROR,
            THREAD_STARTED,
            THREAD_STATUS_CHANGED,
            TOKEN_USAGE_UPDATED,
            READ_STATE_CHANGED,
            TURN_STARTED,
            TURN_COMPLETED,
            ITEM_STARTED,
            ITEM_COMPLETED,
            AGENT_MESSAGE_DELTA,
            COMMAND_OUTPUT_DELTA,
            SERVER_REQUEST_RESOLVED,
            RATE_LIMITS_UPDATED,
            CONFIG_WARNING,
            REMOTE_CONTROL_STATUS_CHANGED,
        ];
    }

    /// The server's requests to the client (ids count from 0).
    pub mod server_requests {
        /// May this command run? `{"kind":"command","threadId","turnId","itemId",
        /// "startedAtMs","environmentId","command","cwd","commandActions",
        /// "proposedExecpolicyAmendment","availableDecisions"}`.
        pub const COMMAND_APPROVAL: &str = "item/commandExecution/requestApproval";
        /// May this patch apply? `{"threadId","turnId","itemId","startedAtMs","reason","grantRoot"}`.
        pub const FILE_CHANGE_APPROVAL: &str = "item/fileChange/requestApproval";
        /// More permissions.
        pub const PERMISSIONS_APPROVAL: &str = "item/permissions/requestApproval";
        /// A question for the user.
        pub const USER_INPUT: &str = "item/tool/requestUserInput";
        /// A tool the client provides.
        pub const TOOL_CALL: &str = "item/tool/call";
        /// The v1 command approval.
        pub const EXEC_COMMAND_APPROVAL: &str = "execCommandApproval";
        /// The v1 patch approval.
        pub const APPLY_PATCH_APPROVAL: &str = "applyPatchApproval";
        /// Every server request named here.
        pub const ALL: &[&str] = &[
            COMMAND_APPROVAL,
            FILE_CHANGE_APPROVAL,
            PERMISSIONS_APPROVAL,
            USER_INPUT,
            TOOL_CALL,
            EXEC_COMMAND_APPROVAL,
            APPLY_PATCH_APPROVAL,
        ];
    }

    /// An approval's `decision` (`{"decision":"accept"}`, or an object for the
    /// amendments).
    pub mod decisions {
        /// Run it.
        pub const ACCEPT: &str = "accept";
        /// Run it, and similar ones this session.
        pub const ACCEPT_FOR_SESSION: &str = "acceptForSession";
        /// Run it and remember the rule: `{"acceptWithExecpolicyAmendment":{"execpolicy_amendment":[..]}}`.
        pub const ACCEPT_WITH_EXECPOLICY_AMENDMENT: &str = "acceptWithExecpolicyAmendment";
        /// Run it with network access: `{"applyNetworkPolicyAmendment":{..}}`.
        pub const APPLY_NETWORK_POLICY_AMENDMENT: &str = "applyNetworkPolicyAmendment";
        /// Do not run it; the turn goes on (the item ends `declined`).
        pub const DECLINE: &str = "decline";
        /// Do not run it, and end the turn (`interrupted`).
        pub const CANCEL: &str = "cancel";
    }

    /// A v2 item's `type` (`item/started`, `item/completed`, `turn.items`).
    pub mod items {
        /// The prompt.
        pub const USER_MESSAGE: &str = "userMessage";
        /// The model's text: `{"type","id":"msg_1","text","phase","memoryCitation","delivery","questions"}`.
        pub const AGENT_MESSAGE: &str = "agentMessage";
        /// `{"type","id","summary":[..],"content":[..]}`.
        pub const REASONING: &str = super::super::items::REASONING;
        /// `{"type","id":"call_1","command","cwd","processId","source","status","commandActions","aggregatedOutput","exitCode","durationMs"}`.
        pub const COMMAND_EXECUTION: &str = "commandExecution";
        /// `{"type","id","changes":[{"path","kind","diff"}],"status"}`.
        pub const FILE_CHANGE: &str = "fileChange";
        /// An MCP tool call.
        pub const MCP_TOOL_CALL: &str = "mcpToolCall";
        /// A web search.
        pub const WEB_SEARCH: &str = "webSearch";
        /// The plan.
        pub const PLAN: &str = super::super::items::PLAN;
        /// The v2 item types of 0.163.0's schema.
        pub const ALL: &[&str] = &[
            USER_MESSAGE,
            "hookPrompt",
            AGENT_MESSAGE,
            "functionCallOutput",
            PLAN,
            REASONING,
            COMMAND_EXECUTION,
            FILE_CHANGE,
            MCP_TOOL_CALL,
            "dynamicToolCall",
            "collabAgentToolCall",
            "subAgentActivity",
            WEB_SEARCH,
            "imageView",
            "sleep",
            "imageGeneration",
            "enteredReviewMode",
            "exitedReviewMode",
            "contextCompaction",
        ];
    }

    /// A v2 item's and a turn's `status`.
    pub mod status {
        /// Under way.
        pub const IN_PROGRESS: &str = "inProgress";
        /// Done.
        pub const COMPLETED: &str = super::super::status::COMPLETED;
        /// Failed.
        pub const FAILED: &str = super::super::status::FAILED;
        /// An item the client declined.
        pub const DECLINED: &str = super::super::status::DECLINED;
        /// A turn the client interrupted (or cancelled at an approval).
        pub const INTERRUPTED: &str = "interrupted";
    }

    /// A thread's `status.type`.
    pub mod thread_status {
        /// Between turns.
        pub const IDLE: &str = "idle";
        /// A turn is under way (`activeFlags`).
        pub const ACTIVE: &str = "active";
        /// The turn failed.
        pub const SYSTEM_ERROR: &str = "systemError";
        /// The flag of an active thread waiting for the client's decision.
        pub const WAITING_ON_APPROVAL: &str = "waitingOnApproval";
    }

    /// JSON-RPC error codes. app-server answers `INVALID_REQUEST` to almost anything
    /// wrong: before `initialize`, a second `initialize`, an **unknown method** (not
    /// `METHOD_NOT_FOUND`), a bad thread id; it does not answer a line that is not
    /// JSON (`PARSE_ERROR` is a client's).
    pub mod codes {
        pub use crate::jsonrpc::codes::*;
    }

    /// app-server's error messages.
    pub mod errors {
        /// A request before `initialize`.
        pub const NOT_INITIALIZED: &str = "Not initialized";
        /// A second `initialize`.
        pub const ALREADY_INITIALIZED: &str = "Already initialized";

        /// A method the server does not know: serde's unknown-variant words, listing
        /// the methods.
        pub fn unknown_method(method: &str) -> String {
            let known: Vec<String> = super::methods::ALL.iter().map(|m| format!("`{m}`")).collect();
            format!(
                "Invalid request: unknown variant `{method}`, expected one of {}",
                known.join(", ")
            )
        }

        /// A request whose params do not fit the method (serde's words, `missing field
        /// `threadId``).
        pub fn invalid_params(reason: &str) -> String {
            format!("Invalid request: {reason}")
        }

        /// A thread id that is not a UUID: `reason` is the UUID parser's words.
        pub fn invalid_thread_id(reason: &str) -> String {
            format!("invalid thread id: {reason}")
        }

        /// A thread id with a character a UUID cannot have: the words of the UUID
        /// parser 0.163.0 is built with (`at` counts from 1).
        pub fn invalid_character(found: char, at: usize) -> String {
            format!(
                "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `{found}` at {at}"
            )
        }

        /// A UUID no thread of this server has.
        pub fn thread_not_found(id: &str) -> String {
            format!("thread not found: {id}")
        }
    }

    /// A failed turn's `codexErrorInfo` (`error` notification, `turn.error`).
    pub mod error_info {
        /// `context_length_exceeded`.
        pub const CONTEXT_WINDOW_EXCEEDED: &str = "contextWindowExceeded";
        /// `insufficient_quota`.
        pub const USAGE_LIMIT_EXCEEDED: &str = "usageLimitExceeded";
        /// In the schema for rate limits; 0.163.0 does not send it for an HTTP 429
        /// (drift: [`RESPONSE_TOO_MANY_FAILED_ATTEMPTS`] after the retries).
        pub const RATE_LIMIT_EXCEEDED: &str = "rateLimitExceeded";
        /// A failure that outlasted the retries: `{"responseTooManyFailedAttempts":
        /// {"httpStatusCode":429}}` (observed for an HTTP 429 on every attempt).
        pub const RESPONSE_TOO_MANY_FAILED_ATTEMPTS: &str = "responseTooManyFailedAttempts";
        /// HTTP 500, 503.
        pub const SERVER_OVERLOADED: &str = "serverOverloaded";
        /// HTTP 401.
        pub const UNAUTHORIZED: &str = "unauthorized";
        /// HTTP 400.
        pub const BAD_REQUEST: &str = "badRequest";
        /// Anything else (observed for an HTTP 400).
        pub const OTHER: &str = "other";
        /// A retry's: `{"responseStreamDisconnected":{"httpStatusCode":429}}` (observed
        /// for an HTTP 429 retried once).
        pub const RESPONSE_STREAM_DISCONNECTED: &str = "responseStreamDisconnected";
        /// The HTTP status in [`RESPONSE_STREAM_DISCONNECTED`].
        pub const HTTP_STATUS_CODE: &str = "httpStatusCode";
    }

    /// The `"type":"unknown"` of a command's `commandActions` entry.
    pub const UNKNOWN_ACTION: &str = "unknown";
    /// A command item's `source`.
    pub const SOURCE_AGENT: &str = "agent";
    /// An approval's `kind` for commands.
    pub const KIND_COMMAND: &str = "command";
    /// The `environmentId` of an approval.
    pub const ENVIRONMENT_LOCAL: &str = "local";
    /// A user message's text content `type` (and a `turn/start` input's).
    pub const TEXT: &str = "text";
    /// `turn.itemsView` of `turn/start`'s answer.
    pub const ITEMS_NOT_LOADED: &str = "notLoaded";
    /// `turn.itemsView` of `turn/completed`.
    pub const ITEMS_SUMMARY: &str = "summary";
    /// `approvalsReviewer`.
    pub const REVIEWER_USER: &str = "user";
}
