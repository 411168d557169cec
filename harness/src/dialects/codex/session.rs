//! The session model of Codex: a thread's turns, each a list of items (reasoning,
//! agent messages, command executions, file changes, ...) and how the turn ends, with
//! the tokens it used. The built-in default session is one of them. A session is told
//! as `codex exec --json`'s lines by [`super::exec`] and as `codex app-server`'s
//! notifications by [`super::app_server`].

use std::ops::AddAssign;

use serde_json::Value;

use super::wire::change_kinds;

/// A session: the turns of a thread, one per prompt (the last one again when the
/// client sends more prompts than the session has turns).
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// The turns, in order; at least one.
    pub turns: Vec<Turn>,
}

impl Session {
    /// The turn played for the `n`th prompt of a thread (0-based): the last one again
    /// past the end.
    pub fn turn(&self, n: usize) -> Turn {
        self.turns
            .get(n.min(self.turns.len().saturating_sub(1)))
            .cloned()
            .unwrap_or_else(|| Turn {
                items: Vec::new(),
                end: End::Completed,
                usage: Usage::default(),
            })
    }
}

/// One turn: what the agent does, how the turn ends, and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The items, in order.
    pub items: Vec<Item>,
    /// How the turn ends.
    pub end: End,
    /// The tokens this turn used (the lines carry the thread's running total).
    pub usage: Usage,
}

impl Turn {
    /// The text a consumer should take as the turn's answer: the last agent message
    /// (the TypeScript SDK's `finalResponse`), or nothing.
    pub fn final_message(&self) -> Option<&str> {
        self.items.iter().rev().find_map(|item| match item {
            Item::AgentMessage(text) => Some(text.as_str()),
            _ => None,
        })
    }

    /// Whether the turn fails.
    pub fn fails(&self) -> bool {
        !matches!(self.end, End::Completed)
    }
}

/// One thing the agent does in a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A reasoning summary (`reasoning`; no item when empty).
    Reasoning(String),
    /// The model's text (`agent_message`).
    AgentMessage(String),
    /// A shell command.
    Command(Command),
    /// A patch.
    FileChange(FileChange),
    /// A web search: the search's own id (`ws_1`: the second `id` key) and its query.
    WebSearch {
        /// The search's id.
        id: String,
        /// What was searched.
        query: String,
    },
    /// An MCP tool call.
    McpToolCall {
        /// The MCP server.
        server: String,
        /// The tool.
        tool: String,
        /// Its arguments.
        arguments: Value,
        /// Its result (`{content, structured_content}`), or `Err(message)`.
        result: Result<Value, String>,
    },
    /// The plan: each step's text and whether it is done.
    TodoList(Vec<(String, bool)>),
    /// A warning the CLI shows as an `error` item (configuration, deprecation).
    Warning(String),
    /// A model call that failed and is retried, the turn going on: the exec stream's
    /// top-level `error` `Reconnecting... n/5 (<reason>)` (not an item), app-server's
    /// `error` notification with `willRetry: true` (observed, 0.163.0, an HTTP 429
    /// once: the turn then completes).
    Reconnect {
        /// Why (`exceeded retry limit, last status: 429 Too Many Requests`).
        reason: String,
        /// The HTTP status that failed, if one did (app-server's `codexErrorInfo`).
        http_status: Option<u16>,
    },
    /// An item of a type no SDK knows, written as is (its `id` is set).
    Unknown(Value),
}

/// A shell command the model runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// The command as the model gave it (`touch made.txt`); the item's `command` is
    /// the shell line `/bin/bash -lc '<it>'`.
    pub command: String,
    /// What it printed (stdout and stderr, in order).
    pub output: String,
    /// How it exited (non-zero: `failed`).
    pub exit_code: i32,
    /// Whether the `untrusted` policy asks before it runs (not a known-safe command).
    pub asks: bool,
}

impl Command {
    /// The item's `command`: the shell line.
    pub fn shell_line(&self) -> String {
        format!("/bin/bash -lc {}", shell_quote(&self.command))
    }

    /// The command's words (the approval's `proposedExecpolicyAmendment`).
    pub fn words(&self) -> Vec<String> {
        self.command.split_whitespace().map(str::to_owned).collect()
    }
}

/// A patch the model applies.
#[derive(Debug, Clone, PartialEq)]
pub struct FileChange {
    /// The files it touches.
    pub changes: Vec<Change>,
    /// Whether the `untrusted` policy asks before it applies.
    pub asks: bool,
}

/// One file of a patch.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The file's absolute path.
    pub path: String,
    /// `add`, `delete` or `update` ([`change_kinds`]).
    pub kind: String,
    /// The unified diff (app-server's `diff`; `exec` does not write it).
    pub diff: String,
}

/// How a turn ends.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// `turn.completed`.
    Completed,
    /// An `error` line and `turn.failed` (exit 1), after the retries the failure gets.
    Failed(Failure),
}

/// Why a turn fails, as the real CLI ends each (`REAL-CODEX.md`, "Endings").
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// HTTP 400: the raw body is the message, no retry.
    BadRequest {
        /// The response body.
        body: String,
    },
    /// HTTP 401: five `Reconnecting...` lines, then the same message ends the turn.
    Unauthorized,
    /// HTTP 429: five `Reconnecting... n/5 (exceeded retry limit, ...)` lines.
    RateLimited,
    /// HTTP 500: five retries, the message is the high-demand text.
    Overloaded,
    /// A model the API does not serve: the metadata warning item before
    /// `turn.started`, then the API's 400 body.
    UnknownModel,
    /// `insufficient_quota`: no retry.
    Quota,
    /// `context_length_exceeded`: no retry.
    ContextWindow,
    /// The model's stream ends before `response.completed`: the partial agent message
    /// is told again on each of the five retries, then the turn fails.
    StreamCut {
        /// What the model had said when the stream ended.
        partial: String,
    },
    /// Any other message, no retry.
    Other {
        /// The message.
        message: String,
    },
}

/// Tokens, as `turn.completed`'s `usage` counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// `input_tokens`.
    pub input_tokens: u64,
    /// `cached_input_tokens`.
    pub cached_input_tokens: u64,
    /// `cache_write_input_tokens`.
    pub cache_write_input_tokens: u64,
    /// `output_tokens`.
    pub output_tokens: u64,
    /// `reasoning_output_tokens`.
    pub reasoning_output_tokens: u64,
}

impl Usage {
    /// What text mode prints after `tokens used` (input not from the cache, plus
    /// output: observed 38 for 30/4/12).
    pub fn blended(&self) -> u64 {
        self.input_tokens.saturating_sub(self.cached_input_tokens) + self.output_tokens
    }

    /// app-server's `totalTokens` (input plus output: observed 15 for 10/5).
    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
        self.cache_write_input_tokens += other.cache_write_input_tokens;
        self.output_tokens += other.output_tokens;
        self.reasoning_output_tokens += other.reasoning_output_tokens;
    }
}

/// The built-in default session for a working folder `cwd`: one turn, played for
/// every prompt. The model reasons, says what it will do, runs `touch made.txt` (a
/// command the `untrusted` policy asks about, as observed), adds `notes.md`, and says
/// it is done; 30/4/0/12/2 tokens (the observed run's).
pub fn default_session(cwd: &str) -> Session {
    let notes = format!("{}/notes.md", cwd.trim_end_matches('/'));
    Session {
        turns: vec![Turn {
            items: vec![
                Item::Reasoning("**Planning the change**".into()),
                Item::AgentMessage("I'll create made.txt, then add notes.md.".into()),
                Item::Command(Command {
                    command: "touch made.txt".into(),
                    output: String::new(),
                    exit_code: 0,
                    asks: true,
                }),
                Item::FileChange(FileChange {
                    changes: vec![Change {
                        path: notes,
                        kind: change_kinds::ADD.into(),
                        diff: "# Notes\n\nmade.txt was made by the agent.\n".into(),
                    }],
                    asks: true,
                }),
                Item::AgentMessage("Created made.txt and notes.md.".into()),
            ],
            end: End::Completed,
            usage: Usage {
                input_tokens: 30,
                cached_input_tokens: 4,
                cache_write_input_tokens: 0,
                output_tokens: 12,
                reasoning_output_tokens: 2,
            },
        }],
    }
}

/// A UUID v7 as the CLI makes thread ids (`01a21d00-ede8-7e30-9c0b-291a62274862`):
/// the time `ms` (Unix milliseconds) in its first 48 bits, the rest from `rng`.
pub fn uuid_v7(ms: u64, rng: &mut fastrand::Rng) -> String {
    let mut bytes = [0u8; 16];
    rng.fill(&mut bytes);
    bytes[..6].copy_from_slice(&ms.to_be_bytes()[2..]);
    bytes[6] = 0x70 | (bytes[6] & 0x0f);
    bytes[8] = 0x80 | (bytes[8] & 0x3f);
    uuid::Uuid::from_bytes(bytes).to_string()
}

/// `word` quoted for a POSIX shell as the CLI quotes it: in single quotes, a quote
/// inside written `'"'"'`.
pub fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r#"'"'"'"#))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_adds_up_and_blends_as_the_cli_counts() {
        let mut usage = default_session("/w").turns[0].usage;
        assert_eq!(usage.blended(), 38);
        usage += usage;
        assert_eq!(usage.input_tokens, 60);
        assert_eq!(usage.total(), 84);
    }

    #[test]
    fn the_default_session_ends_with_its_answer() {
        let session = default_session("/w/");
        let turn = session.turn(7);
        assert_eq!(turn.final_message(), Some("Created made.txt and notes.md."));
        assert!(!turn.fails());
        let Item::Command(command) = &turn.items[2] else {
            panic!("the third item is the command")
        };
        assert_eq!(command.shell_line(), "/bin/bash -lc 'touch made.txt'");
        assert_eq!(command.words(), ["touch", "made.txt"]);
        assert_eq!(shell_quote("it's"), r#"'it'"'"'s'"#);
        let id = uuid_v7(0x01a2_1d00_ede8, &mut fastrand::Rng::with_seed(1));
        assert!(id.starts_with("01a21d00-ede8-7"), "{id}");
        assert_eq!(uuid::Uuid::parse_str(&id).map(|u| u.get_version_num()), Ok(7));
    }
}
