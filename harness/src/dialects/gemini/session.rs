//! The session model of Gemini CLI's headless mode: one prompt a process, answered in
//! rounds (a model call each: text streamed in chunks, then the tool calls it asks
//! for, whose results the next round reads), ending well or as one of the real CLI's
//! failures, with the tokens it used. The built-in default session is one of them.
//! [`super::play`] tells a session as the CLI's output.

use serde_json::{json, Value};

/// A session: the rounds of one run, how it ends, what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// The model calls, in order.
    pub rounds: Vec<Round>,
    /// How the run ends.
    pub end: End,
    /// The tokens the run used.
    pub usage: Usage,
}

impl Session {
    /// The text of the last round (the `json` mode's `response`; what a careful
    /// consumer takes as the answer).
    pub fn answer(&self) -> String {
        self.rounds.last().map(Round::text).unwrap_or_default()
    }

    /// Each round's text, in order, the empty ones left out.
    pub fn segments(&self) -> Vec<String> {
        self.rounds
            .iter()
            .map(Round::text)
            .filter(|t| !t.is_empty())
            .collect()
    }

    /// How many tools were called.
    pub fn tool_calls(&self) -> usize {
        self.rounds.iter().map(|r| r.tools.len()).sum()
    }
}

/// One model call: its text, in the chunks it streamed, and the tools it called.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    /// The streamed chunks (each an assistant `message`, a delta).
    pub chunks: Vec<String>,
    /// The tools called after the text.
    pub tools: Vec<Tool>,
}

impl Round {
    /// The round's whole text.
    pub fn text(&self) -> String {
        self.chunks.concat()
    }
}

/// A tool call and its result.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The tool's name (`read_file`, `run_shell_command`).
    pub name: String,
    /// Its arguments.
    pub parameters: Value,
    /// How it went.
    pub result: ToolResult,
}

/// A tool's result.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolResult {
    /// It ran: its display output (`""` for `read_file`, `"hi"` for `echo hi`).
    Success(String),
    /// It failed; the run goes on.
    Error {
        /// The display output (`File not found.`).
        output: String,
        /// The error's type (`file_not_found`).
        kind: String,
        /// The error's message.
        message: String,
    },
}

/// How a run ends.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// `result` `success`, exit 0.
    Completed,
    /// The model answered nothing: an `error` line, then `result` `error` without an
    /// `error` field, exit **0**.
    EmptyAnswer,
    /// `maxSessionTurns` reached: `result` with `FatalTurnLimitedError`, exit 53.
    TurnLimit,
    /// The API failed: `result` with `[API Error: ...]`, exit the HTTP status mod 256
    /// (a model not found: exit 1).
    Api(ApiError),
}

/// An API error, as the CLI ends on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub code: u16,
    /// The API's status word (`UNAUTHENTICATED`).
    pub status: String,
    /// The API's message.
    pub message: String,
}

impl ApiError {
    /// HTTP 401.
    pub fn unauthorized() -> Self {
        ApiError::new(
            401,
            "UNAUTHENTICATED",
            "Request had invalid authentication credentials.",
        )
    }

    /// HTTP 429.
    pub fn rate_limited() -> Self {
        ApiError::new(
            429,
            "RESOURCE_EXHAUSTED",
            "Resource has been exhausted (e.g. check quota).",
        )
    }

    /// HTTP 500.
    pub fn server_error() -> Self {
        ApiError::new(500, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting")
    }

    /// HTTP 404: a model the API does not serve.
    pub fn model_not_found(model: &str) -> Self {
        ApiError::new(404, "NOT_FOUND", &format!("models/{model} is not found for API version v1beta, or is not supported for generateContent."))
    }

    fn new(code: u16, status: &str, message: &str) -> Self {
        ApiError {
            code,
            status: status.to_owned(),
            message: message.to_owned(),
        }
    }
}

/// Tokens, as `result.stats` counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Candidate tokens.
    pub output_tokens: u64,
    /// Cached prompt tokens.
    pub cached: u64,
}

impl Usage {
    /// Input and output.
    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

/// The built-in default session for a working folder `cwd`: the model says it will
/// read the README, reads it (`read_file`), and answers; 24/16 tokens (the observed
/// run's).
pub fn default_session(cwd: &str) -> Session {
    let _ = cwd;
    Session {
        rounds: vec![
            Round {
                chunks: vec!["I'll read the README".into(), " first.".into()],
                tools: vec![Tool {
                    name: "read_file".into(),
                    parameters: json!({"file_path": "README.md"}),
                    result: ToolResult::Success(String::new()),
                }],
            },
            Round {
                chunks: vec!["The README says".into(), " hi.".into()],
                tools: Vec::new(),
            },
        ],
        end: End::Completed,
        usage: Usage {
            input_tokens: 24,
            output_tokens: 16,
            cached: 0,
        },
    }
}

/// A UUID v4 as the CLI makes session ids, from `rng`.
pub fn uuid_v4(rng: &mut fastrand::Rng) -> String {
    let mut bytes = [0u8; 16];
    rng.fill(&mut bytes);
    uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_session_answers_with_its_last_round() {
        let session = default_session("/work");
        assert_eq!(session.answer(), "The README says hi.");
        assert_eq!(session.segments().len(), 2);
        assert_eq!(session.tool_calls(), 1);
        assert_eq!(session.usage.total(), 40);
        let id = uuid_v4(&mut fastrand::Rng::with_seed(1));
        assert_eq!(uuid::Uuid::parse_str(&id).map(|u| u.get_version_num()), Ok(4));
    }
}
