//! The session model of Claude Code: what the model answers in each turn, as content
//! blocks and tool calls, and how each turn ends. The built-in default session is one
//! of them; generated sessions are others. A session is told as the CLI's lines by
//! [`super::play::Player`].

use serde_json::{json, Value};

/// A session: the turns the agent plays, one per user message (the last one again
/// when the client sends more messages than the session has turns).
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// The turns, in order; at least one.
    pub turns: Vec<Turn>,
}

impl Session {
    /// The session as the model tells it with only the tools `only` (`--tools`): it
    /// calls no other (a call of another tool is left out, and with it its result).
    pub fn with_tools_only(&mut self, only: &[String]) {
        for turn in &mut self.turns {
            turn.steps
                .retain(|step| !matches!(step, Step::Tool(call) if !only.contains(&call.name)));
        }
    }
}

/// One turn: what the model does, then how the turn ends.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The model's content blocks and tool calls, in order. A tool call ends an API
    /// message: the blocks after its result are the next message.
    pub steps: Vec<Step>,
    /// How the turn ends.
    pub end: End,
}

/// One thing the model does.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A text block.
    Text(String),
    /// A thinking block.
    Thinking(String),
    /// A tool call, and its result.
    Tool(ToolCall),
    /// A line of a type or subtype the SDKs do not document, written as is.
    Unknown(Value),
}

/// A tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool (`Write`, `Bash`, `Read`).
    pub name: String,
    /// Its input.
    pub input: Value,
    /// Whether the CLI asks before it runs (a write, a command outside the folder).
    pub asks: bool,
    /// What the tool answers when it runs (the `tool_result`'s content).
    pub output: String,
}

/// How a turn ends.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// The model answered: a `success` result whose text is the last text block.
    Success,
    /// An error result of this subtype (`error_max_turns`, `error_during_execution`),
    /// with these `errors`; the process then exits 1 at the end of its input.
    Error {
        /// The result's subtype.
        subtype: String,
        /// Its `errors`.
        errors: Vec<String>,
    },
    /// The API call failed (a 401, not logged in): a synthetic assistant message with
    /// `text`, then a `success` result with `is_error: true`.
    ApiError {
        /// The HTTP status (`401`); 0 when there was none (the connection was lost
        /// mid-answer: the message and the result say `api_error` instead).
        status: u16,
        /// The message (`Not logged in · Please run /login`).
        text: String,
        /// The top-level `error` of the synthetic message (`authentication_failed`).
        error: String,
    },
}

impl End {
    /// Whether the turn's result is an error.
    pub fn is_error(&self) -> bool {
        !matches!(self, End::Success)
    }
}

impl Turn {
    /// The text a consumer should show for the turn: the result's `result` (the last
    /// text block), or the failure's text.
    pub fn answer(&self) -> String {
        match &self.end {
            End::Success => self
                .steps
                .iter()
                .rev()
                .find_map(|s| match s {
                    Step::Text(t) => Some(t.clone()),
                    _ => None,
                })
                .unwrap_or_default(),
            End::Error { errors, .. } => errors.join("\n"),
            End::ApiError { text, .. } => text.clone(),
        }
    }

    /// The tool calls of the turn that ask for permission.
    pub fn asking(&self) -> impl Iterator<Item = &ToolCall> {
        self.steps.iter().filter_map(|s| match s {
            Step::Tool(t) if t.asks => Some(t),
            _ => None,
        })
    }
}

/// The built-in default session: one turn, played for every prompt. The model says
/// what it will do, reads `README.md` (no permission needed), writes `summary.txt`
/// (asks), and says it is done.
pub fn default_session(cwd: &str) -> Session {
    let readme = format!("{cwd}/README.md");
    let summary = format!("{cwd}/summary.txt");
    Session {
        turns: vec![Turn {
            steps: vec![
                Step::Text("I'll read the README and write a summary.".into()),
                Step::Tool(ToolCall {
                    name: "Read".into(),
                    input: json!({"file_path": readme}),
                    asks: false,
                    output: "# Project\n\nA small example project.\n".into(),
                }),
                Step::Tool(ToolCall {
                    name: "Write".into(),
                    input: json!({"file_path": summary, "content": "A small example project.\n"}),
                    asks: true,
                    output: format!("File created successfully at: {summary}"),
                }),
                Step::Text("Created summary.txt with a one-line summary of the README.".into()),
            ],
            end: End::Success,
        }],
    }
}
