//! The conversation model of server mode: what the agent does ([`Step`]s, [`Wait`]s),
//! its [`Reply`] to each of the client's requests, the [`Conversation`] it plays, and
//! a conversation told readably ([`summary`]).

use std::time::Duration;

use super::rpc;
use super::wire::methods;
use crate::error::CassetteError;
use crate::frames::Exit;

/// One thing the agent does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A message on stdout.
    Send {
        /// When, from the start of the exchange (the request's arrival).
        at: Duration,
        /// The line, without its newline.
        line: Vec<u8>,
    },
    /// A line on stderr.
    Stderr {
        /// When, from the start of the exchange.
        at: Duration,
        /// The line, without its newline.
        line: Vec<u8>,
    },
    /// The agent waits for the client.
    Await {
        /// When the recording's wait ended, from the start of the exchange: later
        /// steps are timed from the live end of the wait.
        at: Duration,
        /// What it waits for.
        wait: Wait,
    },
    /// The process ends.
    End {
        /// When, from the start of the exchange.
        at: Duration,
        /// How.
        exit: Exit,
    },
}

impl Step {
    /// When the step happens, from the start of its exchange.
    pub fn at(&self) -> Duration {
        match self {
            Step::Send { at, .. }
            | Step::Stderr { at, .. }
            | Step::Await { at, .. }
            | Step::End { at, .. } => *at,
        }
    }
}

/// What the agent waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wait {
    /// The client's response to the agent's request with this id.
    Answer {
        /// The id, as JSON text (`0`).
        id: String,
        /// The method of the agent's request (`session/request_permission`).
        method: String,
        /// The result the recorded client answered with, when there is a recording.
        recorded: Option<serde_json::Value>,
    },
    /// A notification of the client's (`session/cancel`): waited for only so long
    /// ([`CANCEL_WAIT`]), since a live client may not send it.
    Notification {
        /// The method.
        method: String,
    },
}

/// How long the agent waits for a `session/cancel` that the recording has and the
/// live client has not sent; then the recording goes on as recorded.
pub const CANCEL_WAIT: Duration = Duration::from_secs(5);

/// Steps in order, made one at a time as they are played: a recording's are read from
/// its cassette as the server performs them, so that a turn of any length takes the
/// memory of one message.
///
/// Reading can fail part way (the cassette changed after it was opened): the error is
/// then the last item. `Steps::from(vec)` makes steps already at hand.
pub struct Steps {
    source: Box<dyn Source>,
    /// A step looked at ([`Steps::next_if`]) and not taken.
    peeked: Option<Result<Step, CassetteError>>,
}

/// Where [`Steps`] come from: made one at a time, and some sources (a recording's
/// tape) can also hand over a run of plain messages in one piece ([`Source::run`]).
pub trait Source: Iterator<Item = Result<Step, CassetteError>> + Send {
    /// Appends the next steps while each is a [`Step::Send`] of an agent message that
    /// asks nothing (no request) and is played as recorded, each line with its
    /// newline, while `out` holds less than `limit` bytes; how many. A response is one
    /// of them only with `responses` (none is awaited). Their times are not told: for
    /// a run that waits for no time. 0 (the default) says nothing: take the next step.
    fn run(&mut self, _out: &mut Vec<u8>, _limit: usize, _responses: bool) -> Result<usize, CassetteError> {
        Ok(0)
    }
}

/// An iterator of steps, as a [`Source`] with no runs.
struct Each<I>(I);

impl<I: Iterator<Item = Result<Step, CassetteError>>> Iterator for Each<I> {
    type Item = Result<Step, CassetteError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next()
    }
}

impl<I: Iterator<Item = Result<Step, CassetteError>> + Send> Source for Each<I> {}

impl Steps {
    /// The steps `steps` makes, as they are asked for.
    pub fn new(steps: impl Iterator<Item = Result<Step, CassetteError>> + Send + 'static) -> Self {
        Steps::of(Each(steps))
    }

    /// The steps of `source`, with its runs.
    pub fn of(source: impl Source + 'static) -> Self {
        Steps {
            source: Box::new(source),
            peeked: None,
        }
    }

    /// The next step if `take` takes it; else it stays the next.
    pub fn next_if(
        &mut self,
        take: impl FnOnce(&Result<Step, CassetteError>) -> bool,
    ) -> Option<Result<Step, CassetteError>> {
        let next = self.next()?;
        if take(&next) {
            Some(next)
        } else {
            self.peeked = Some(next);
            None
        }
    }

    /// The next run of plain messages, as [`Source::run`]; 0 when a step was looked
    /// at and not taken (it comes first).
    pub fn run(&mut self, out: &mut Vec<u8>, limit: usize, responses: bool) -> Result<usize, CassetteError> {
        if self.peeked.is_some() {
            return Ok(0);
        }
        self.source.run(out, limit, responses)
    }
}

impl Iterator for Steps {
    type Item = Result<Step, CassetteError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.peeked.take().or_else(|| self.source.next())
    }
}

impl From<Vec<Step>> for Steps {
    fn from(steps: Vec<Step>) -> Self {
        Steps::new(steps.into_iter().map(Ok))
    }
}

impl Default for Steps {
    /// No steps.
    fn default() -> Self {
        Steps::from(Vec::new())
    }
}

impl std::fmt::Debug for Steps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Steps").finish_non_exhaustive()
    }
}

/// The agent's answer to one client request.
#[derive(Debug, Default)]
pub struct Reply {
    /// What the agent does, in order. The response to the request is one of the
    /// `Send`s (unless the process ends first, or never answers).
    pub steps: Steps,
    /// How the request differs from the recording, when it does (a request the
    /// recording does not have): the reply is then the mock's own.
    pub divergence: Option<String>,
    /// The session the recorded request named, when the live request names another:
    /// the reply's messages name the recorded one, which a live server names as the
    /// client's.
    pub recorded_session: Option<String>,
}

impl Reply {
    /// A reply of one message, at once.
    pub fn send(line: Vec<u8>) -> Self {
        Reply {
            steps: Steps::from(vec![Step::Send {
                at: Duration::ZERO,
                line,
            }]),
            divergence: None,
            recorded_session: None,
        }
    }
}

/// A conversation the mock plays: what the agent does first, how it answers each of
/// the client's requests, and how it ends when the client closes stdin.
pub trait Conversation {
    /// What the agent does when it starts, before any request.
    fn start(&mut self) -> Steps;

    /// The agent's answer to `request`, a client request (`Kind::Request`).
    fn reply(&mut self, request: &rpc::Message<'_>) -> Reply;

    /// How the process ends once the client has closed stdin.
    fn ending(&self) -> Exit;

    /// Nobody reads the replies' [`Reply::divergence`]s (the run is neither journaled
    /// nor strict): a conversation may leave unsaid what only they would say. By
    /// default nothing changes.
    fn divergences_unread(&mut self) {}

    /// The client answered the agent's request `id` (a [`Wait::Answer`] of the
    /// steps played) with `answer`: its `result`, or `{"error": ...}`. Steps made
    /// after the wait may depend on it (a file the client read, the terminal it
    /// made); a conversation that plays as recorded ignores it.
    fn answered(&mut self, id: &str, method: &str, answer: &serde_json::Value) {
        let _ = (id, method, answer);
    }

    /// What the agent still sends when the client cancels a turn, before it answers
    /// the prompt `cancelled`: the release of each terminal it made and has not
    /// released (the protocol has the agent release every terminal it makes; release
    /// kills the command). Not waited for. A conversation that plays as recorded
    /// sends nothing more.
    fn cancelled(&mut self) -> Steps {
        Steps::default()
    }
}

/// A conversation told readably, one message a line, in order: `->` the client's,
/// `<-` the agent's, `!!` its stderr. Ids are shown, times are not, long texts are
/// cut: what a snapshot of a case keeps.
///
/// ```text
/// -> initialize #0
/// <- result #0
/// <- update agent_message_chunk "I'll read the README.md file"
/// <- request session/request_permission #0 "Write summary.txt"
/// -> answer #0 selected allow-once
/// <- result #2 end_turn
/// ```
pub fn summary<'a>(messages: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    messages
        .into_iter()
        .map(|(dir, line)| summarize(dir, line))
        .collect::<Vec<_>>()
        .join("\n")
}

fn summarize(dir: &str, line: &str) -> String {
    let arrow = match dir {
        "in" => "->",
        "out" => "<-",
        _ => return format!("!! {}", cut(line)),
    };
    let Some(message) = rpc::Message::parse(line.as_bytes()) else {
        return format!("{arrow} (not JSON-RPC) {}", cut(line));
    };
    let id = message.id_text();
    let params = message.params_value();
    let text = match message.kind {
        rpc::Kind::Request => {
            let title = params["toolCall"]["title"]
                .as_str()
                .map(|t| format!(" \"{}\"", cut(t)))
                .unwrap_or_default();
            if dir == "out" {
                format!("request {} #{id}{title}", message.method())
            } else {
                format!("{} #{id}", message.method())
            }
        }
        rpc::Kind::Notification if message.method() == methods::SESSION_UPDATE => {
            let update = &params["update"];
            let kind = update["sessionUpdate"].as_str().unwrap_or("?");
            let detail = update["content"]["text"]
                .as_str()
                .map(|t| format!(" \"{}\"", cut(t)))
                .or_else(|| update["title"].as_str().map(|t| format!(" \"{}\"", cut(t))))
                .or_else(|| update["status"].as_str().map(|s| format!(" {s}")))
                .unwrap_or_default();
            format!("update {kind}{detail}")
        }
        rpc::Kind::Notification => message.method().to_owned(),
        rpc::Kind::Response => {
            let parse = |raw: Option<&serde_json::value::RawValue>| {
                raw.and_then(|r| serde_json::from_str::<serde_json::Value>(r.get()).ok())
            };
            match (parse(message.result), parse(message.error)) {
                (_, Some(error)) => format!(
                    "error #{id} {} {}",
                    error["code"],
                    cut(error["message"].as_str().unwrap_or_default())
                ),
                (Some(result), None) => {
                    let outcome = &result["outcome"];
                    let detail = result["stopReason"]
                        .as_str()
                        .map(str::to_owned)
                        .or_else(|| {
                            outcome["outcome"].as_str().map(|o| {
                                format!("{o} {}", outcome["optionId"].as_str().unwrap_or_default())
                                    .trim_end()
                                    .to_owned()
                            })
                        })
                        .map(|d| format!(" {d}"))
                        .unwrap_or_default();
                    let word = if dir == "in" {
                        "answer"
                    } else {
                        rpc::members::RESULT
                    };
                    format!("{word} #{id}{detail}")
                }
                (None, None) => format!("response #{id}"),
            }
        }
    };
    format!("{arrow} {text}")
}

/// At most 60 characters of a text, on one line.
fn cut(text: &str) -> String {
    let one_line = text.replace('\n', "\\n");
    match one_line.char_indices().nth(60) {
        Some((at, _)) => format!("{}...", &one_line[..at]),
        None => one_line,
    }
}
