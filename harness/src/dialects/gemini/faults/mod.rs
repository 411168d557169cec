//! The catalogue's faults of Gemini CLI's dialect, applied to what `gemini -p` writes:
//! the presets change the session before it is played ([`Injector::prepare`]) or
//! refuse the run ([`refused`]), the others act on the `stream-json` lines
//! ([`Injector::line`]) and at the end ([`Injector::end`]). [`written`] is the whole
//! of it: a session played as a consumer runs `gemini -p`, with the faults, as what
//! the process writes in the output format asked for, and how it ends. `relaunch` is
//! the process's shape, not a line: the process acts on it. See [`parse`] for the
//! grammar.

use std::time::Duration;

use serde_json::{json, Value};

use super::play::{self, Doc, Played, Run, Said, START_MS};
use super::session::{ApiError, End, Round, Session};
use super::wire::{doc, error_types, events, exits, fields, roles, stderr, undocumented, MODEL};
mod catalogue;
mod typed;

use crate::faults::lines;
use crate::format::OutputFormat;
use crate::frames::Exit;
pub use catalogue::CATALOGUE;
pub use typed::*;

/// The presets of a run that starts and fails as the real CLI's does: what the mock
/// writes is clean, and a careful consumer concludes a failure.
#[cfg(test)]
pub(crate) const RUN_FAILURES: &[&str] = &[
    "unauthorized",
    "rate-limited",
    "server-error",
    "model-not-found",
    "empty-answer",
    "turn-limit",
];

/// What the CLI writes or does, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    /// A whole line on stdout (without its newline).
    Line(Vec<u8>),
    /// Bytes on stdout as they are (`json`'s document, `text`'s chunks).
    Raw(Vec<u8>),
    /// The start of a line, and nothing more: stdout ends there.
    Cut(Vec<u8>),
    /// A line on stderr.
    Stderr(Vec<u8>),
    /// Nothing for this long; `None`: for ever.
    Stall(Option<Duration>),
    /// The process ends so.
    End(Exit),
}

impl From<lines::Out> for Out {
    fn from(out: lines::Out) -> Self {
        match out {
            lines::Out::Line(line) => Out::Line(line),
            lines::Out::Cut(bytes) => Out::Cut(bytes),
            lines::Out::Stderr(bytes) => Out::Stderr(bytes),
            lines::Out::Stall(duration) => Out::Stall(duration),
            lines::Out::End(exit) => Out::End(exit),
        }
    }
}

/// What a run is told with besides its session: what the command line, stdin and the
/// environment say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// The prompt.
    pub prompt: String,
    /// The session's id.
    pub session_id: String,
    /// The model.
    pub model: String,
    /// `--yolo`.
    pub yolo: bool,
    /// The user's `settings.json` (named by the no-auth message).
    pub settings: String,
    /// When the run starts (Unix milliseconds).
    pub start_ms: u64,
}

impl Context {
    /// The context of the harness's cases: prompt `hi`, a session id made from
    /// `seed`, the default model.
    pub fn of_seed(seed: u64) -> Self {
        Context {
            prompt: "hi".into(),
            session_id: super::session::uuid_v4(&mut fastrand::Rng::with_seed(seed)),
            model: MODEL.into(),
            yolo: false,
            settings: "/home/user/.gemini/settings.json".into(),
            start_ms: START_MS,
        }
    }

    /// The session told in this context.
    pub fn play(&self, session: &Session) -> Played {
        play::play(&Run {
            session,
            prompt: &self.prompt,
            session_id: &self.session_id,
            model: &self.model,
            yolo: self.yolo,
            start_ms: self.start_ms,
        })
    }
}

/// What `gemini -p` writes on stdout in `stream-json`, as its faults read it and
/// write into it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lines;

impl lines::Stream for Lines {
    type Fault = GeminiFault;

    /// A line's `type`.
    fn words(&self, line: &[u8]) -> Vec<String> {
        kind_of(line).into_iter().collect()
    }

    fn malformed(&self) -> Vec<u8> {
        malformed_line()
    }

    fn unknown(&self, _: &()) -> Vec<u8> {
        unknown_line()
    }

    fn huge(&self, bytes: usize) -> Vec<u8> {
        huge_line(bytes)
    }

    fn final_line(&self) -> Vec<u8> {
        json!({"type": events::RESULT}).to_string().into_bytes()
    }

    /// `child-killed`: the relaunched child dies, the parent exits 0.
    fn act(&self, fault: &GeminiFault) -> Option<lines::Out> {
        matches!(fault, GeminiFault::ChildKilled { .. }).then_some(lines::Out::End(Exit::Code(0)))
    }
}

/// Applies faults to one run.
pub type Injector = lines::Injector<Lines>;

impl Injector {
    /// Marks the faults the process acts on itself (`relaunch`) as acted.
    pub fn relaunched(&mut self) {
        for (fault, acted) in self.faults_mut() {
            if matches!(fault, GeminiFault::Relaunch) {
                *acted = true;
            }
        }
    }

    /// Whether a preset changes how the session ends (a recording is then played from
    /// its session, not replayed line by line), or refuses the run.
    pub fn has_preset(&self) -> bool {
        self.faults()
            .iter()
            .any(|(f, _)| matches!(f, GeminiFault::Ending(_) | GeminiFault::Refusal(_)))
    }

    /// The refusal among the faults, marked acted.
    pub fn refusal(&mut self) -> Option<Refusal> {
        self.faults_mut()
            .iter_mut()
            .find_map(|(fault, acted)| match fault {
                GeminiFault::Refusal(refusal) => {
                    *acted = true;
                    Some(*refusal)
                }
                _ => None,
            })
    }

    /// The presets: the session ends as they say. An API error fails the first call,
    /// so no round comes before it; an empty answer is the last round's; the turn
    /// limit stops the run after the first round that calls a tool.
    pub fn prepare(&mut self, session: &mut Session, model: &str) {
        for (fault, acted) in self.faults_mut() {
            let GeminiFault::Ending(ending) = fault else {
                continue;
            };
            *acted = true;
            let api = match ending {
                Ending::Unauthorized => Some(ApiError::unauthorized()),
                Ending::RateLimited => Some(ApiError::rate_limited()),
                Ending::ServerError => Some(ApiError::server_error()),
                Ending::ModelNotFound => Some(ApiError::model_not_found(model)),
                Ending::EmptyAnswer => {
                    if session.rounds.len() > 1 {
                        session.rounds.pop();
                    } else {
                        session.rounds = vec![Round {
                            chunks: Vec::new(),
                            tools: Vec::new(),
                        }];
                    }
                    session.end = End::EmptyAnswer;
                    None
                }
                Ending::TurnLimit => {
                    let first = session
                        .rounds
                        .iter()
                        .position(|r| !r.tools.is_empty())
                        .unwrap_or(0);
                    session.rounds.truncate(first + 1);
                    session.end = End::TurnLimit;
                    None
                }
            };
            if let Some(api) = api {
                session.rounds.clear();
                session.end = End::Api(api);
            }
        }
    }
}

/// A line's `type`.
fn kind_of(line: &[u8]) -> Option<String> {
    let value = serde_json::from_slice::<Value>(line).ok()?;
    value.get("type").and_then(Value::as_str).map(str::to_owned)
}

/// A line that starts as a message and is not JSON.
pub fn malformed_line() -> Vec<u8> {
    let start = json!({"type": events::MESSAGE, "role": roles::ASSISTANT}).to_string();
    let mut line = start.trim_end_matches('}').as_bytes().to_vec();
    line.extend_from_slice(b",\"content\":\"The fi");
    line
}

/// A line of an event type no CLI writes.
pub fn unknown_line() -> Vec<u8> {
    json!({"type": undocumented::EVENT, "timestamp": play::iso(START_MS), "content": "not documented"})
        .to_string()
        .into_bytes()
}

/// An assistant message `bytes` long (at least the message without content).
pub fn huge_line(bytes: usize) -> Vec<u8> {
    let message = |content: &str| {
        json!({"type": events::MESSAGE, "timestamp": play::iso(START_MS), "role": roles::ASSISTANT,
            "content": content, fields::DELTA: true})
        .to_string()
    };
    let empty = message("").len();
    message(&"x".repeat(bytes.saturating_sub(empty))).into_bytes()
}

/// Everything the process writes for `said` (what it meant to write, ending with
/// `exit`) with the faults acting on its stdout lines: in `stream-json`.
pub fn with_faults(said: Vec<Said>, exit: Exit, injector: &mut Injector) -> Vec<Out> {
    let said = said.into_iter().map(|said| match said {
        Said::Stderr(text) => lines::Out::Stderr(text.into_bytes()),
        Said::Line(line) => lines::Out::Line(line.into_bytes()),
    });
    injector.play(said, exit).into_iter().map(Out::from).collect()
}

/// What a refused run writes (nothing on stdout) and its exit code.
pub fn refused(refusal: Refusal, format: OutputFormat, context: &Context) -> Vec<Out> {
    let (text, code) = match refusal {
        Refusal::NoAuth => (stderr::no_auth(&context.settings), exits::NO_AUTH),
        Refusal::Untrusted => (stderr::UNTRUSTED.to_owned(), exits::UNTRUSTED),
    };
    let said = match (refusal, format) {
        (Refusal::NoAuth, OutputFormat::Json) => play::pretty(&json!({doc::SESSION_ID: context.session_id,
            doc::ERROR: {"type": error_types::ERROR, "message": text, "code": code}})),
        _ => text,
    };
    vec![Out::Stderr(said.into_bytes()), Out::End(Exit::Code(code))]
}

/// `stream-json`'s outs as `format` writes them: `json` writes its document (or its
/// error document on stderr) where the `result` line would be, and nothing for the
/// other lines; `text` writes the assistant chunks as they come, a newline after a
/// tool's result and at the end, and ends as text mode does (exit 1 on an API error).
pub fn render(outs: Vec<Out>, format: OutputFormat, played: &Played) -> Vec<Out> {
    match format {
        OutputFormat::StreamJson => outs,
        OutputFormat::Json => {
            let mut rendered = Vec::new();
            let document = match &played.doc {
                Doc::Stdout(d) | Doc::Stderr(d) => d.clone().into_bytes(),
            };
            for out in outs {
                match out {
                    Out::Line(line) if kind_of(&line).as_deref() == Some(events::RESULT) => {
                        rendered.push(match &played.doc {
                            Doc::Stdout(d) => Out::Raw(d.clone().into_bytes()),
                            Doc::Stderr(d) => Out::Stderr(d.clone().into_bytes()),
                        })
                    }
                    Out::Line(_) | Out::Raw(_) => {}
                    Out::Cut(_) => rendered.push(Out::Cut(document[..document.len() / 2].to_vec())),
                    other => rendered.push(other),
                }
            }
            rendered
        }
        _ => {
            let mut rendered = Vec::new();
            let mut last: Option<u8> = None;
            let mut finished = false;
            for out in outs {
                match out {
                    Out::Line(line) => {
                        let Ok(value) = serde_json::from_slice::<Value>(&line) else {
                            continue;
                        };
                        let kind = value.get("type").and_then(Value::as_str);
                        let newline = |rendered: &mut Vec<Out>, last: &mut Option<u8>| {
                            if last.is_some_and(|b| b != b'\n') {
                                rendered.push(Out::Raw(b"\n".to_vec()));
                                *last = Some(b'\n');
                            }
                        };
                        match kind {
                            Some(events::MESSAGE) if value["role"] == roles::ASSISTANT => {
                                let text = value["content"].as_str().unwrap_or_default();
                                if let Some(&byte) = text.as_bytes().last() {
                                    last = Some(byte);
                                    rendered.push(Out::Raw(text.as_bytes().to_vec()));
                                }
                            }
                            Some(events::TOOL_RESULT) => newline(&mut rendered, &mut last),
                            Some(events::RESULT) => {
                                newline(&mut rendered, &mut last);
                                rendered.extend(
                                    played
                                        .text_stderr
                                        .iter()
                                        .map(|l| Out::Stderr(l.clone().into_bytes())),
                                );
                                finished = true;
                            }
                            _ => {}
                        }
                    }
                    Out::End(Exit::Code(code)) if finished && code == played.exit => {
                        rendered.push(Out::End(Exit::Code(played.text_exit)));
                    }
                    Out::Raw(_) | Out::Cut(_) => {}
                    other => rendered.push(other),
                }
            }
            rendered
        }
    }
}

/// What the process writes for `session` with `faults` in `format`: a refusal, or the
/// presets applied to the session, the session played in `context`, the other faults
/// on its lines, rendered in `format`.
pub fn written_in(
    session: &Session,
    faults: &[GeminiFault],
    context: &Context,
    format: OutputFormat,
) -> Vec<Out> {
    let mut injector = Injector::new(faults.to_vec());
    if let Some(refusal) = injector.refusal() {
        return refused(refusal, format, context);
    }
    let mut session = session.clone();
    injector.prepare(&mut session, &context.model);
    let played = context.play(&session);
    let outs = with_faults(played.said.clone(), Exit::Code(played.exit), &mut injector);
    render(outs, format, &played)
}

/// [`written_in`] `stream-json`, in the harness's context of `seed`.
pub fn written(session: &Session, faults: &[GeminiFault], seed: u64) -> Vec<Out> {
    written_in(session, faults, &Context::of_seed(seed), OutputFormat::StreamJson)
}

/// The `stream-json` lines `gemini -p` writes for `session` in the context of `seed`,
/// and its exit code.
pub fn stream_lines(session: &Session, seed: u64) -> (Vec<Vec<u8>>, Exit) {
    let played = Context::of_seed(seed).play(session);
    let lines = played
        .said
        .into_iter()
        .filter_map(|s| match s {
            Said::Line(l) => Some(l.into_bytes()),
            Said::Stderr(_) => None,
        })
        .collect();
    (lines, Exit::Code(played.exit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::gemini::session::default_session;

    fn stdout(outs: &[Out]) -> String {
        let mut text = String::new();
        for out in outs {
            match out {
                Out::Line(l) => {
                    text.push_str(&String::from_utf8_lossy(l));
                    text.push('\n');
                }
                Out::Raw(b) | Out::Cut(b) => text.push_str(&String::from_utf8_lossy(b)),
                _ => {}
            }
        }
        text
    }

    fn end(outs: &[Out]) -> Exit {
        match outs.last() {
            Some(Out::End(exit)) => *exit,
            other => panic!("{other:?}"),
        }
    }

    fn faults(spec: &str) -> Vec<GeminiFault> {
        parse(spec, FROM_ENV).expect("faults")
    }

    #[test]
    fn each_format_writes_its_own_way() {
        let session = default_session("/w");
        let context = Context::of_seed(0);
        let text = written_in(&session, &[], &context, OutputFormat::Text);
        assert_eq!(
            stdout(&text),
            "I'll read the README first.\nThe README says hi.\n"
        );
        let json = written_in(&session, &[], &context, OutputFormat::Json);
        let document: Value = serde_json::from_str(&stdout(&json)).expect("one document");
        assert_eq!(document["response"], "The README says hi.");
        let failed = written_in(&session, &faults("unauthorized"), &context, OutputFormat::Json);
        assert_eq!(stdout(&failed), "");
        assert_eq!(end(&failed), Exit::Code(145));
        let failed = written_in(&session, &faults("unauthorized"), &context, OutputFormat::Text);
        assert_eq!(end(&failed), Exit::Code(1));
        let refused = written_in(&session, &faults("no-auth"), &context, OutputFormat::StreamJson);
        assert_eq!((stdout(&refused).as_str(), end(&refused)), ("", Exit::Code(41)));
        let cut = written_in(&session, &faults("eof"), &context, OutputFormat::Json);
        assert!(serde_json::from_str::<Value>(&stdout(&cut)).is_err());
    }

    #[test]
    fn faults_act_where_placed() {
        let session = default_session("/w");
        let outs = written(&session, &faults("child-killed:at=tool_result"), 0);
        assert_eq!(end(&outs), Exit::Code(0));
        assert!(!stdout(&outs).contains("\"result\""));
        let outs = written(&session, &faults("unknown:at=result"), 0);
        assert!(stdout(&outs).contains("\"thought\""));
        let outs = written(&session, &faults("turn-limit"), 0);
        assert_eq!(end(&outs), Exit::Code(53));
        assert!(!stdout(&outs).contains("The README says"));
        let outs = written(&session, &faults("empty-answer"), 0);
        assert_eq!(end(&outs), Exit::Code(0));
        assert_eq!(huge_line(5000).len(), 5000);
        assert!(serde_json::from_slice::<Value>(&malformed_line()).is_err());
    }
}
