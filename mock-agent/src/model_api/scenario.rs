//! What a scripted model API answers, request after request: the scenario file.
//!
//! A scenario is one JSON document. Its `steps` answer the agent's requests in order,
//! one step a request (`times` makes a step answer several); once the steps are used
//! up, the last one answers every further request. A request counts as the agent's
//! when it offers tools (the agent loop always does); the CLIs also send requests of
//! their own (a routing or title prompt, without tools), which `side` answers without
//! using a step. Every field but `steps` may be left out.
//!
//! ```json
//! {
//!   "model": "claude-sonnet-4-5",
//!   "steps": [
//!     {"text": ["I'll write ", "the file."],
//!      "tool": {"write": {"path": "hello.txt", "content": "hello\n"}}},
//!     {"text": "I'll check it.", "tool": {"shell": "cat hello.txt"}},
//!     {"text": "Done: hello.txt says hello."},
//!     {"error": {"status": 429, "message": "slow down", "retry_after": 0}, "times": 3},
//!     {"text": "Half an answer", "end": "cut"}
//!   ],
//!   "side": {"text": "OK"}
//! }
//! ```
//!
//! A step (each field optional):
//!
//! | field | meaning |
//! | --- | --- |
//! | `thinking` | a reasoning block first: Anthropic `thinking`, OpenAI `reasoning` (its summary), Gemini a `thought` part |
//! | `text` | the answer's text: a string, or a list of strings streamed as one delta each |
//! | `tool` | one tool call after the text: `{"shell": "CMD"}`, `{"write": {"path": P, "content": C}}`, or `{"call": {"name": N, "input": {...}}}` (any tool, as is) |
//! | `error` | an HTTP error instead of an answer: `{"status": 429, "message": M, "retry_after": S}`, the body in the API's own error shape (or `"body": {...}` verbatim) |
//! | `fail` | after the content, the API's in-stream failure instead of its normal end: `{"code": C, "message": M}` (Anthropic `error` event, OpenAI `response.failed`; Gemini has none: its stream is dropped) |
//! | `end` | how a stream ends: `complete` (the default), `cut` (the body ends cleanly before the API's closing events), `drop` (the connection is dropped there, a transport error), `stall` (nothing more is sent, and the stream stays open until the client hangs up) |
//! | `delay_ms` | wait this long before answering |
//! | `times` | answer this many requests with the step (default 1) |
//! | `usage` | the token counts reported: `{"input": N, "output": M}` (default 10 and 5) |
//!
//! A shell call is made with the CLI's own shell tool, chosen from the tools the
//! request offers: Anthropic `Bash` (`command`), OpenAI `exec_command` (`cmd`), else
//! `shell_command` or `shell`, Gemini `run_shell_command` (`command`). A write is
//! Anthropic `Write` (`file_path`, `content`), OpenAI `apply_patch` (an `*** Add File`
//! patch; a custom tool call when the tool is offered as one), Gemini `write_file`
//! (`file_path`, `content`). The list of fields may grow; an unknown field is an error.

use std::path::{Path, PathBuf};

use harness::error::{Diagnostic, ProblemKind};
use serde::Deserialize;
use serde_json::Value;

/// A scripted conversation: what the API answers, request after request.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The model named in the answers; by default the one the request asked for.
    #[serde(default)]
    pub model: Option<String>,
    /// The answers to the agent's requests, in order (the last one repeats).
    pub steps: Vec<Step>,
    /// The answer to a request that offers no tools (a CLI's side request).
    #[serde(default = "Step::side")]
    pub side: Step,
    /// Every request takes a step, tools or not (for a CLI run with no tools at all).
    #[serde(default)]
    pub every_request: bool,
}

/// One answer of a [`Scenario`].
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// A reasoning block before the text.
    #[serde(default)]
    pub thinking: Option<String>,
    /// The text, one delta per piece.
    #[serde(default)]
    pub text: Pieces,
    /// A tool call after the text.
    #[serde(default)]
    pub tool: Option<ToolCall>,
    /// An HTTP error instead of an answer.
    #[serde(default)]
    pub error: Option<HttpError>,
    /// An in-stream failure after the content.
    #[serde(default)]
    pub fail: Option<Failure>,
    /// How the stream ends.
    #[serde(default)]
    pub end: End,
    /// Milliseconds to wait before answering.
    #[serde(default)]
    pub delay_ms: u64,
    /// How many requests this step answers.
    #[serde(default = "one")]
    pub times: u32,
    /// Token counts reported.
    #[serde(default)]
    pub usage: Usage,
}

fn one() -> u32 {
    1
}

impl Step {
    /// The default answer to a side request: `OK`.
    pub fn side() -> Step {
        Step::say("OK")
    }

    /// A step that says `text`, in one piece.
    pub fn say(text: &str) -> Step {
        Step {
            text: Pieces(vec![text.to_owned()]),
            times: 1,
            ..Step::default()
        }
    }

    /// The whole text of the step.
    pub fn full_text(&self) -> String {
        self.text.0.concat()
    }
}

/// Text given as one string or as a list of pieces (one stream delta each).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pieces(pub Vec<String>);

impl<'de> Deserialize<'de> for Pieces {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            One(String),
            Many(Vec<String>),
        }
        Ok(match Either::deserialize(d)? {
            Either::One(s) => Pieces(vec![s]),
            Either::Many(v) => Pieces(v),
        })
    }
}

impl Pieces {
    /// Whether there is no text at all.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(String::is_empty)
    }
}

/// A tool call of a [`Step`].
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolCall {
    /// Run a shell command with the CLI's shell tool.
    Shell(String),
    /// Write a file with the CLI's file-writing tool.
    Write {
        /// The file (relative paths are the CLI's business).
        path: String,
        /// Its new content.
        content: String,
    },
    /// Any tool, by the name the request offers, with its input as is.
    Call {
        /// The tool's name.
        name: String,
        /// Its input (arguments).
        #[serde(default)]
        input: Value,
    },
}

/// An HTTP error answer.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HttpError {
    /// The status code (400, 401, 404, 429, 500, ...).
    pub status: u16,
    /// The message put in the API's error body.
    #[serde(default)]
    pub message: Option<String>,
    /// A `retry-after` header, in seconds.
    #[serde(default)]
    pub retry_after: Option<u64>,
    /// The body verbatim, instead of the API's error shape.
    #[serde(default)]
    pub body: Option<Value>,
}

/// An in-stream failure.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    /// The error code or type (`overloaded_error`, `insufficient_quota`, ...).
    pub code: String,
    /// Its message.
    #[serde(default)]
    pub message: String,
}

/// How a streamed answer ends.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// With the API's closing events.
    #[default]
    Complete,
    /// The body ends cleanly before the closing events.
    Cut,
    /// The connection is dropped before the closing events.
    Drop,
    /// Nothing more is sent; the stream stays open.
    Stall,
}

/// Token counts of an answer.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Input (prompt) tokens.
    #[serde(default = "Usage::default_input")]
    pub input: u64,
    /// Output tokens.
    #[serde(default = "Usage::default_output")]
    pub output: u64,
}

impl Usage {
    fn default_input() -> u64 {
        10
    }
    fn default_output() -> u64 {
        5
    }
}

impl Default for Usage {
    fn default() -> Self {
        Usage {
            input: Usage::default_input(),
            output: Usage::default_output(),
        }
    }
}

impl Scenario {
    /// The built-in scenario, the same for every API: a text and a shell call
    /// (`echo hello`), then, once the tool's result is back, a final text.
    pub fn builtin() -> Scenario {
        Scenario {
            model: None,
            steps: vec![
                Step {
                    tool: Some(ToolCall::Shell("echo hello".to_owned())),
                    ..Step::say("I'll run a command.")
                },
                Step::say("The command printed hello."),
            ],
            side: Step::side(),
            every_request: false,
        }
    }

    /// A scenario from its JSON text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Scenario, Diagnostic> {
        let scenario: Scenario = serde_json::from_str(text).map_err(|e| {
            let kind = match e.classify() {
                serde_json::error::Category::Syntax => ProblemKind::Syntax,
                serde_json::error::Category::Eof => ProblemKind::Truncated,
                _ => ProblemKind::Data,
            };
            let line = e.line().max(1);
            let source = text.lines().nth(line - 1).unwrap_or_default();
            let message = e.to_string();
            // serde_json says " at line L column C" itself: the diagnostic says it once.
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.as_str(), |(m, _)| m)
                .to_owned();
            Diagnostic {
                path: path.to_owned(),
                line: line as u64,
                column: e.column() as u64,
                kind,
                message,
                source_line: None,
                help: HELP.to_owned(),
            }
            .with_source(source.as_bytes())
        })?;
        if scenario.steps.is_empty() {
            return Err(Diagnostic {
                path: path.to_owned(),
                line: 1,
                column: 0,
                kind: ProblemKind::Data,
                message: "`steps` is empty: a scenario answers at least one request".to_owned(),
                source_line: None,
                help: HELP.to_owned(),
            });
        }
        Ok(scenario)
    }

    /// Reads and parses a scenario file.
    pub fn read(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            path: path.to_owned(),
            source,
        })?;
        Ok(Scenario::parse(&text, path)?)
    }
}

/// What to do about a bad scenario.
const HELP: &str = "a scenario is {\"steps\": [{\"text\": \"...\", \"tool\": {\"shell\": \"ls\"}}, ...]}; \
     the fields are in docs/model-api.md and the docs of mock_agent::model_api::scenario";

/// A scenario that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The file cannot be read.
    #[error("{}: cannot read the scenario", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a scenario.
    #[error(transparent)]
    Invalid(#[from] Diagnostic),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_example_parses() {
        let doc = include_str!("scenario.rs");
        let example: String = doc
            .split("```json\n")
            .nth(1)
            .and_then(|rest| rest.split("//! ```").next())
            .expect("the example")
            .lines()
            .map(|l| l.trim_start_matches("//!").trim_start())
            .collect::<Vec<_>>()
            .join("\n");
        let scenario = Scenario::parse(&example, Path::new("doc.json")).expect("parses");
        assert_eq!(scenario.steps.len(), 5);
        assert_eq!(scenario.steps[0].text.0, ["I'll write ", "the file."]);
        assert_eq!(scenario.steps[3].times, 3);
        assert_eq!(scenario.steps[4].end, End::Cut);
    }

    #[test]
    fn a_wrong_field_names_its_line_and_column() {
        let text = "{\"steps\": [\n  {\"txt\": \"hi\"}\n]}";
        let e = Scenario::parse(text, Path::new("s.json")).unwrap_err();
        assert_eq!((e.line, e.kind), (2, ProblemKind::Data));
        let shown = e.to_string();
        assert!(
            shown.starts_with("s.json:2:8: invalid data: unknown field `txt`"),
            "{shown}"
        );
        assert!(shown.contains("{\"txt\": \"hi\"}"), "{shown}");
    }

    #[test]
    fn a_file_cut_short_is_told_from_bad_syntax() {
        let cut = Scenario::parse("{\"steps\": [", Path::new("s.json")).unwrap_err();
        assert_eq!(cut.kind, ProblemKind::Truncated);
        let bad = Scenario::parse("{\"steps\": [}", Path::new("s.json")).unwrap_err();
        assert_eq!(bad.kind, ProblemKind::Syntax);
        let empty = Scenario::parse("{\"steps\": []}", Path::new("s.json")).unwrap_err();
        assert!(empty.message.contains("empty"));
    }
}
