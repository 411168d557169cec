//! What the teller tells: a session in no dialect's words.
//!
//! A [`Story`] is what an agent said, thought and did in one turn, in order and at
//! its times, and how the turn ended. The teller ([`super::Teller`]) tells it through
//! ACP in a profile's shapes; where a story comes from (a print-mode recording, the
//! built-in default session) is the business of the profile that tells it
//! ([`Profile::story`](crate::acp::profile::Profile::story)).

use std::time::Duration;

use serde_json::Value;

/// One turn of a session, as the teller tells it.
#[derive(Debug, Clone)]
pub struct Story {
    /// What happened, in order, each at its time from the turn's start.
    pub beats: Vec<Beat>,
    /// How the turn ended.
    pub ending: Ending,
    /// The end of the turn.
    pub end: Duration,
    /// The user's prompt (the history `session/load` replays begins with it).
    pub prompt: String,
    /// The session id the run had, if it had one (the first `session/new` gives it).
    pub session_id: Option<String>,
    /// The folder the run was in, if known (relative paths are made absolute in it
    /// when no session says another).
    pub cwd: Option<String>,
    /// The output of a read the client ran for the agent, of the file's text (what a
    /// profile that shows it puts in `rawOutput`): as the story's reads output.
    pub read_output: fn(&str) -> Value,
}

impl Default for Story {
    /// An empty turn that succeeds; a read outputs `{"content": TEXT}`.
    fn default() -> Self {
        Story {
            beats: Vec::new(),
            ending: Ending::default(),
            end: Duration::ZERO,
            prompt: String::new(),
            session_id: None,
            cwd: None,
            read_output: |content| serde_json::json!({"content": content}),
        }
    }
}

/// One thing that happened in a turn; `at` is its time from the turn's start.
#[derive(Debug, Clone, PartialEq)]
pub enum Beat {
    /// The agent said this text.
    Said {
        /// When.
        at: Duration,
        /// What it said.
        text: String,
    },
    /// The agent thought this.
    Thought {
        /// When.
        at: Duration,
        /// What it thought.
        text: String,
    },
    /// A tool call began.
    Called {
        /// When.
        at: Duration,
        /// The call.
        call: Call,
    },
    /// A tool call ended.
    Ended {
        /// When.
        at: Duration,
        /// The call's id (the [`Call::id`] of its start).
        id: Value,
        /// Why it failed, if it did.
        failure: Option<String>,
        /// Its output: what a profile that shows it puts in `rawOutput`.
        output: Value,
        /// The tool, as the end names it.
        tool: Tool,
    },
    /// A line on stderr.
    Stderr {
        /// When.
        at: Duration,
        /// The line, without its newline.
        line: Vec<u8>,
    },
}

/// A tool call as it begins.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Its id (`toolCallId`).
    pub id: Value,
    /// Its ACP kind ([`tool_kinds`](crate::acp::wire::tool_kinds)).
    pub kind: &'static str,
    /// Its title, as a client shows it.
    pub title: String,
    /// Its input (what a profile that shows it puts in `rawInput`).
    pub input: Value,
    /// What the tool does, as far as a client could do it.
    pub tool: Tool,
}

/// What a tool does, as far as the client could run it for the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tool {
    /// Reads a file.
    Read {
        /// The file, as the run said it: relative or absolute.
        path: String,
    },
    /// Writes a whole file.
    Write {
        /// The file, as the run said it.
        path: String,
        /// What it writes.
        content: String,
    },
    /// Runs a shell command.
    Shell {
        /// The command line.
        command: String,
    },
    /// Anything else.
    Other {
        /// The file it touches, if it names one.
        path: Option<String>,
    },
}

impl Tool {
    /// The file the tool touches, if it names one.
    pub fn path(&self) -> Option<&str> {
        match self {
            Tool::Read { path } | Tool::Write { path, .. } => Some(path),
            Tool::Other { path } => path.as_deref(),
            Tool::Shell { .. } => None,
        }
    }
}

/// How a told turn ends.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Ending {
    /// It succeeded: the prompt's answer is `end_turn`.
    #[default]
    Success,
    /// It failed with this message: the prompt's answer is a JSON-RPC error.
    Failure(String),
    /// The agent is not logged in: no session method works.
    AuthRequired,
}
