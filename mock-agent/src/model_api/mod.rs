//! Scripted model APIs: loopback stand-ins of the HTTP APIs the real agent CLIs talk
//! to, answering from a [`Scenario`], so that a real CLI runs offline, with no
//! account, on a conversation scripted in advance (and can be recorded so).
//!
//! | [`Api`] | endpoints | what the CLI is given (`base_url`) |
//! | --- | --- | --- |
//! | `anthropic` (Messages API) | `POST /v1/messages` | `ANTHROPIC_BASE_URL=http://127.0.0.1:PORT` |
//! | `openai` (Responses API) | `POST /v1/responses` | a model provider with `base_url = "http://127.0.0.1:PORT/v1"` |
//! | `google` (Gemini API) | `POST /v1beta/models/M:streamGenerateContent?alt=sse`, `:generateContent` | `GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT` |
//!
//! Each API answers in its own shapes: streamed events (SSE) when the request asks for
//! a stream, one JSON document otherwise, its own error bodies; the module docs of
//! `anthropic.rs`, `openai.rs` and `google.rs` show them. Any other path gets a 404 in
//! the API's error shape. The scenario format is documented in [`scenario`].
//!
//! Every request is logged ([`RequestRecord`]): its number, method and path, the model
//! and tools it asked for, the step that answered, and the tool results it carried
//! back (so a test sees that a tool ran and its output reached the model).
//!
//! From the command line, `mock-agent model-api --api anthropic [--scenario FILE]
//! [--port N] [--log FILE]` prints the base URL as its first line and serves until it
//! is killed or its stdin, when a pipe, is closed ([`command`]). From Rust:
//!
//! ```no_run
//! use mock_agent::model_api::{Api, Scenario, Server};
//!
//! let server = Server::start(Api::Anthropic, Scenario::builtin()).expect("listens");
//! // ANTHROPIC_BASE_URL=<server.base_url()> claude -p "hi" ...
//! println!("{}", server.base_url());
//! for request in server.requests() {
//!     println!("{} {} results: {:?}", request.method, request.path, request.tool_results);
//! }
//! ```

mod anthropic;
mod command;
mod google;
mod openai;
pub mod scenario;
mod server;

pub use command::{command, Args};
pub use scenario::{Scenario, ScenarioError, Step};
pub use server::{RequestRecord, Server, ServerOptions};

use serde::Serialize;
use serde_json::Value;

use scenario::End;

/// A model API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[non_exhaustive]
pub enum Api {
    /// The Anthropic Messages API (Claude Code).
    Anthropic,
    /// The OpenAI Responses API (Codex).
    Openai,
    /// The Gemini API (Gemini CLI).
    Google,
}

impl Api {
    /// The API's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Api::Anthropic => "anthropic",
            Api::Openai => "openai",
            Api::Google => "google",
        }
    }

    /// What follows `http://HOST:PORT` in the base URL a client is given.
    fn base_path(self) -> &'static str {
        match self {
            Api::Openai => "/v1",
            Api::Anthropic | Api::Google => "",
        }
    }

    fn route(self, method: &str, path: &str) -> Route {
        match self {
            Api::Anthropic => anthropic::route(method, path),
            Api::Openai => openai::route(method, path),
            Api::Google => google::route(method, path),
        }
    }

    fn offered(self, body: &Value) -> Vec<Offered> {
        match self {
            Api::Anthropic => anthropic::offered(body),
            Api::Openai => openai::offered(body),
            Api::Google => google::offered(body),
        }
    }

    fn tool_results(self, body: &Value) -> Vec<ToolResult> {
        match self {
            Api::Anthropic => anthropic::tool_results(body),
            Api::Openai => openai::tool_results(body),
            Api::Google => google::tool_results(body),
        }
    }

    fn requested_model(self, path: &str, body: &Value) -> Option<String> {
        match self {
            Api::Anthropic => anthropic::requested_model(body),
            Api::Openai => openai::requested_model(body),
            Api::Google => google::path_model(path),
        }
    }

    fn streams(self, path: &str, body: &Value) -> bool {
        match self {
            Api::Anthropic => anthropic::streams(body),
            Api::Openai => openai::streams(body),
            Api::Google => google::path_streams(path),
        }
    }

    fn answer(self, step: &Step, ask: &Ask<'_>) -> Reply {
        match self {
            Api::Anthropic => anthropic::answer(step, ask),
            Api::Openai => openai::answer(step, ask),
            Api::Google => google::answer(step, ask),
        }
    }

    fn error(self, status: u16, message: Option<&str>, n: u64) -> Reply {
        match self {
            Api::Anthropic => anthropic::error(status, message, n),
            Api::Openai => openai::error(status, message, n),
            Api::Google => google::error(status, message, n),
        }
    }
}

/// Whether the API answers a request.
enum Route {
    /// A request for a model answer.
    Answer,
    /// A path the API does not serve (a 404).
    Unknown,
}

/// A tool a request offers.
#[derive(Debug, Clone)]
struct Offered {
    name: String,
    /// A custom (freeform) tool, whose input is text, not JSON.
    custom: bool,
}

impl Offered {
    fn function(name: &str) -> Offered {
        Offered {
            name: name.to_owned(),
            custom: false,
        }
    }

    fn custom(name: &str) -> Offered {
        Offered {
            name: name.to_owned(),
            custom: true,
        }
    }
}

/// A tool's result, as a request carries it back to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolResult {
    /// The call's id (Gemini: the function's name when the call had no id).
    pub id: String,
    /// The output, as text.
    pub content: String,
    /// Whether the CLI marked it as an error.
    pub is_error: bool,
}

/// What a request is answered from, besides the step.
struct Ask<'a> {
    /// The request's number, from 1: ids are made from it.
    n: u64,
    /// The model named in the answer.
    model: String,
    /// A streamed answer.
    stream: bool,
    /// The tools the request offers.
    offered: &'a [Offered],
    /// Now, in seconds since the epoch.
    now_s: u64,
}

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SseEvent {
    /// Its `event:` name, if the API names events.
    event: Option<String>,
    /// Its `data:` (one line of JSON).
    data: String,
}

/// The answer to a request, before HTTP.
enum Reply {
    /// A JSON document with a status.
    Json {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: Value,
    },
    /// An SSE stream: `events`, then `closing` unless `end` says otherwise.
    Stream {
        events: Vec<SseEvent>,
        closing: Vec<SseEvent>,
        end: End,
    },
}

impl Reply {
    fn json(status: u16, body: Value) -> Reply {
        Reply::Json {
            status,
            headers: Vec::new(),
            body,
        }
    }

    fn with_header(mut self, name: &'static str, value: String) -> Reply {
        if let Reply::Json { headers, .. } = &mut self {
            headers.push((name, value));
        }
        self
    }
}
