//! Gemini CLI's wire model for headless mode (`gemini -p`): every name of its
//! `stream-json` events, its `json` document and its endings, said once, with the texts
//! the CLI writes in its own words (0.61.0, observed; `REAL-GEMINI.md` in the project's
//! notes).
//!
//! - **`--output-format stream-json`**: one compact JSON object a line on stdout, each
//!   with an ISO `timestamp`; the line types are [`events`].
//! - **`--output-format json`**: one document, pretty-printed with two spaces, no
//!   trailing newline ([`doc`]); a failure prints nothing on stdout and the error
//!   document on stderr.
//! - **`--output-format text`** (the default): the model's text as it streams, then a
//!   newline.
//!
//! Every list here may grow: a later CLI adds types, and a consumer that drops what it
//! does not know keeps working. The stand-in writes only the names below.

/// The version the stand-in says it is (`gemini --version`).
pub const VERSION: &str = "0.61.0";

/// This dialect's name (`--dialect gemini`, `"dialect":"gemini"` in a cassette).
pub const DIALECT: &str = "gemini";

pub use crate::cassette::DIALECT_KEY;

/// The model `init` names when none is asked for (`-m`, `GEMINI_MODEL`).
pub const MODEL: &str = "gemini-2.5-flash";

/// Names no CLI writes, which only the faults write (`unknown`): a consumer must let
/// them pass.
pub mod undocumented {
    /// A line type of no CLI: `{"type":"thought","timestamp":"...","content":"..."}`.
    pub const EVENT: &str = "thought";
}

/// The `type` of each `stream-json` line.
///
/// ```json
/// {"type":"init","timestamp":"2026-11-27T12:39:42.781Z","session_id":"da2e2e81-b9ee-4fa8-9eb7-65f2878ccdfb","model":"gemini-2.5-flash"}
/// {"type":"message","timestamp":"...","role":"user","content":"Read README"}
/// {"type":"message","timestamp":"...","role":"assistant","content":"Reading it.","delta":true}
/// {"type":"tool_use","timestamp":"...","tool_name":"read_file","tool_id":"read_file__read_file_1795783182830_0","parameters":{"file_path":"README.md"}}
/// {"type":"tool_result","timestamp":"...","tool_id":"read_file__read_file_1795783182830_0","status":"success","output":""}
/// {"type":"result","timestamp":"...","status":"success","stats":{...}}
/// ```
pub mod events {
    /// The first line: `session_id`, `model`.
    pub const INIT: &str = "init";
    /// A message: `role` (`user` once, the prompt; `assistant` for each streamed
    /// chunk, with `"delta":true`), `content`.
    pub const MESSAGE: &str = "message";
    /// A tool call: `tool_name`, `tool_id`, `parameters`.
    pub const TOOL_USE: &str = "tool_use";
    /// A tool's end: `tool_id`, `status`, `output`, and `error{type,message}` on a
    /// failure.
    pub const TOOL_RESULT: &str = "tool_result";
    /// A non-fatal problem: `severity` (`warning`, `error`), `message`.
    pub const ERROR: &str = "error";
    /// The last line, on failure too: `status`, `error?{type,message}`, `stats`.
    pub const RESULT: &str = "result";

    /// Every line type of 0.61.0.
    pub const ALL: &[&str] = &[INIT, MESSAGE, TOOL_USE, TOOL_RESULT, ERROR, RESULT];
}

/// The fields of the lines a consumer branches on.
pub mod fields {
    /// A line's kind: `{"type":"result",...}`.
    pub const TYPE: &str = "type";
    /// Every line's ISO time.
    pub const TIMESTAMP: &str = "timestamp";
    /// A message's role.
    pub const ROLE: &str = "role";
    /// A message's text.
    pub const CONTENT: &str = "content";
    /// An assistant chunk's mark: `"delta":true`.
    pub const DELTA: &str = "delta";
    /// `result.status`, `tool_result.status`.
    pub const STATUS: &str = "status";
    /// An `error` line's severity.
    pub const SEVERITY: &str = "severity";
    /// A failed `result`'s type of error.
    pub const ERROR_TYPE: &str = "error.type";
}

/// A message's `role`.
pub mod roles {
    /// The prompt, echoed once.
    pub const USER: &str = "user";
    /// A chunk of the model's text.
    pub const ASSISTANT: &str = "assistant";
}

/// `result.status` and `tool_result.status`.
pub mod status {
    /// It went well.
    pub const SUCCESS: &str = "success";
    /// It did not.
    pub const ERROR: &str = "error";
}

/// An `error` line's `severity`.
pub mod severity {
    /// A warning (`Loop detected, stopping execution`).
    pub const WARNING: &str = "warning";
    /// An error (an empty answer, `Maximum session turns exceeded`).
    pub const ERROR: &str = "error";
}

/// The keys of `result.stats` (and of each `stats.models.<model>`, but the last two).
pub mod stats {
    /// Input and output tokens.
    pub const TOTAL_TOKENS: &str = "total_tokens";
    /// Prompt tokens.
    pub const INPUT_TOKENS: &str = "input_tokens";
    /// Candidate tokens.
    pub const OUTPUT_TOKENS: &str = "output_tokens";
    /// Cached prompt tokens.
    pub const CACHED: &str = "cached";
    /// Prompt tokens not from the cache.
    pub const INPUT: &str = "input";
    /// How long the run took (0 on a failure).
    pub const DURATION_MS: &str = "duration_ms";
    /// How many tools were called.
    pub const TOOL_CALLS: &str = "tool_calls";
    /// The same counts by model.
    pub const MODELS: &str = "models";
}

/// The `error.type` of a failed `result` (and of the `json` error document).
pub mod error_types {
    /// An API error (`[API Error: ...]`).
    pub const UNKNOWN: &str = "unknown";
    /// The session's turn limit.
    pub const TURN_LIMITED: &str = "FatalTurnLimitedError";
    /// An invalid stream (`json` only: an empty answer).
    pub const INVALID_STREAM: &str = "INVALID_STREAM";
    /// The `json` error document's type.
    pub const ERROR: &str = "Error";
    /// A tool's failure: the file is not there.
    pub const FILE_NOT_FOUND: &str = "file_not_found";
}

/// The top-level keys of the `json` document.
pub mod doc {
    /// The session's id.
    pub const SESSION_ID: &str = "session_id";
    /// The last model turn's text.
    pub const RESPONSE: &str = "response";
    /// The stats.
    pub const STATS: &str = "stats";
    /// An error (`{type, message, code?}`).
    pub const ERROR: &str = "error";
}

/// What Gemini CLI writes on stdout, as a consumer that passes it on prints it
/// ([`Dialect::own_objects`](crate::run::Dialect::own_objects)): a `stream-json` event
/// (a `type` of [`events::ALL`] and a `timestamp`; only `init` has a `session_id`), the
/// `json` document (`response` and `stats`), or its error document (`error`, with the
/// `session_id` of the run).
pub const OWN_OBJECTS: &[crate::run::OwnObject] = &[
    crate::run::OwnObject {
        keys: &[fields::TIMESTAMP],
        kind: Some((fields::TYPE, events::ALL)),
    },
    crate::run::OwnObject {
        keys: &[doc::RESPONSE, doc::STATS],
        kind: None,
    },
    crate::run::OwnObject {
        keys: &[doc::SESSION_ID, doc::ERROR],
        kind: None,
    },
];

/// The process's exit codes (`core/src/utils/errors.ts`, observed).
pub mod exits {
    /// No auth method configured.
    pub const NO_AUTH: i32 = 41;
    /// No input (no `-p`, empty stdin), or `--resume` of an unknown session.
    pub const NO_INPUT: i32 = 42;
    /// The session's turn limit.
    pub const TURN_LIMIT: i32 = 53;
    /// An untrusted folder.
    pub const UNTRUSTED: i32 = 55;
    /// An argument error (yargs), a model not found, text mode's API errors.
    pub const GENERAL: i32 = 1;

    /// The exit code of an API error of HTTP `status`: `process.exit(status)`,
    /// truncated to 8 bits (401 -> 145, 429 -> 173).
    pub fn of_http(status: u16) -> i32 {
        i32::from(status) & 0xff
    }
}

/// What the CLI writes on stderr, in its words.
pub mod stderr {
    /// No prompt and empty stdin (exit 42).
    pub const NO_INPUT: &str = "No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.";
    /// An untrusted folder (exit 55), red.
    pub const UNTRUSTED: &str = "\u{1b}[31mGemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode. For more details, see https://geminicli.com/docs/cli/trusted-folders/#headless-and-automated-environments\u{1b}[0m";
    /// `--yolo` (written twice).
    pub const YOLO: &str = "YOLO mode is enabled. All tool calls will be automatically approved.";
    /// The color warning every run starts with.
    pub const COLOR: &str = "Warning: 256-color support not detected. Using a terminal with at least 256-color support is recommended for a better visual experience.";
    /// Without ripgrep.
    pub const RIPGREP: &str = "Ripgrep is not available. Falling back to GrepTool.";
    /// An API error's report (the first line).
    pub const API_REPORT: &str = "Error when talking to Gemini API Full report available at: /tmp/gemini-client-error-Turn.run-sendMessageStream-2026-11-27T12-00-00-000Z.json";
    /// Text mode's API error (exit 1).
    pub const CRITICAL: &str = "An unexpected critical error occurred:[object Object]";

    /// No auth configured (exit 41), naming the settings file.
    pub fn no_auth(settings: &str) -> String {
        format!("Please set an Auth method in your {settings} or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA")
    }

    /// `--resume ID` of no session (exit 42): three lines.
    pub fn no_session(id: &str, dir: &str) -> Vec<String> {
        vec![
            format!("Error resuming session: Invalid session identifier \"{id}\"."),
            format!("  Searched for sessions in {dir}."),
            "  Use --list-sessions to see available sessions, then use --resume {number}, --resume {uuid}, or --resume latest.".to_owned(),
        ]
    }

    /// A failed tool (the run goes on).
    pub fn tool_failed(name: &str, output: &str) -> String {
        format!("Error executing tool {name}: {output}")
    }
}

/// The messages of the failures, in the CLI's words.
pub mod messages {
    /// An empty answer: the `error` line before an error `result` (exit 0).
    pub const EMPTY_RESPONSE: &str = "The model returned an empty response with no text or thoughts. This may be a transient API issue; please try again.";
    /// The session's turn limit (exit 53).
    pub const TURN_LIMIT: &str = "Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.";
    /// What 429 adds after the API error.
    pub const QUOTA_HINT: &str = "Please wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method";

    /// The API's error body for HTTP `code` (`UNAUTHENTICATED`, ...).
    pub fn api_body(code: u16, status: &str, message: &str) -> String {
        serde_json::json!({"error": {"code": code, "message": message, "status": status}}).to_string()
    }

    /// A `result`'s `error.message` for an API error: `[API Error: <body>]`.
    pub fn api_error(body: &str) -> String {
        format!("[API Error: {body}]")
    }
}

/// The command line's names.
pub mod argv {
    /// The output formats (`-o`, `--output-format`).
    pub const FORMATS: &[&str] = &["text", "json", "stream-json"];
    /// The approval modes (`--approval-mode`).
    pub const APPROVAL_MODES: &[&str] = &["default", "auto_edit", "yolo", "plan"];
    /// `-r latest`.
    pub const LATEST: &str = "latest";
}

/// The environment variables the stand-in reads as the CLI does.
pub mod env {
    /// The API key.
    pub const GEMINI_API_KEY: &str = "GEMINI_API_KEY";
    /// The other API key.
    pub const GOOGLE_API_KEY: &str = "GOOGLE_API_KEY";
    /// Vertex AI.
    pub const USE_VERTEXAI: &str = "GOOGLE_GENAI_USE_VERTEXAI";
    /// Code Assist.
    pub const USE_GCA: &str = "GOOGLE_GENAI_USE_GCA";
    /// Trusts the folder.
    pub const TRUST_WORKSPACE: &str = "GEMINI_CLI_TRUST_WORKSPACE";
    /// Where `.gemini/` lives (else `HOME`).
    pub const CLI_HOME: &str = "GEMINI_CLI_HOME";
    /// No relaunch: one process.
    pub const NO_RELAUNCH: &str = "GEMINI_CLI_NO_RELAUNCH";
    /// The model.
    pub const MODEL: &str = "GEMINI_MODEL";
    /// Every variable that holds a secret (redacted in a recording).
    pub const SECRETS: &[&str] = &[GEMINI_API_KEY, GOOGLE_API_KEY];
}
