//! A [`Session`] told as `gemini -p` tells it: pure. Given the session and what the
//! command line and stdin say, [`play`] returns the `stream-json` lines and the
//! stderr lines between them, the exit code, and what `json` and `text` modes write
//! instead ([`Played`]); the process writes them (its clock spacing the lines).
//!
//! `stream-json` (observed, 0.61.0): `init`, the prompt echoed as a user `message`,
//! each round's chunks as assistant `message`s (`delta` true) then its
//! `tool_use`/`tool_result` pairs, and always a final `result` with `stats`: `success`
//! (exit 0); `error` with `[API Error: ...]` (exit the HTTP status mod 256); `error`
//! with `FatalTurnLimitedError` (exit 53); or, for an empty answer, an `error` line
//! and a `result` `error` **without** an `error` field, exit **0**.
//!
//! `json`: one document, pretty-printed, no trailing newline: `session_id`,
//! `response` (the last round's text only), `stats`; a failure writes nothing on
//! stdout and its error document on stderr. `text`: the text as it streams, a newline
//! at the end; an API error is `An unexpected critical error occurred:[object Object]`
//! on stderr and exit 1.

use serde_json::{json, Map, Value};

use super::session::{ApiError, End, Session, ToolResult, Usage};
use super::wire::{
    doc, error_types, events, exits, fields, messages, roles, severity, stats, status, stderr,
};

/// How far apart the lines' timestamps are (and the process's lines, on its clock).
pub const PACE_MS: u64 = 40;

/// The time (Unix milliseconds) a played run starts at: its timestamps' and tool ids'
/// first, the same on every run (2026-11-27T12:00:00.000Z).
pub const START_MS: u64 = 1_795_780_800_000;

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct Run<'a> {
    /// The session played.
    pub session: &'a Session,
    /// The prompt (stdin and `-p`, as [`super::args::Args::prompt_with`] made it).
    pub prompt: &'a str,
    /// The session's id (`--session-id`, the resumed one, or a new one).
    pub session_id: &'a str,
    /// The model (`-m`, else [`super::wire::MODEL`]).
    pub model: &'a str,
    /// `--yolo` (or `--approval-mode yolo`): its stderr warning.
    pub yolo: bool,
    /// When it starts (Unix milliseconds).
    pub start_ms: u64,
}

/// What a run writes, in order: a `stream-json` line, or a stderr line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// A stdout line of `stream-json` (without its newline).
    Line(String),
    /// A stderr line (without its newline).
    Stderr(String),
}

/// What `json` mode writes at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Doc {
    /// The document on stdout (no trailing newline).
    Stdout(String),
    /// Nothing on stdout: the error document on stderr.
    Stderr(String),
}

/// A run, told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// `stream-json`'s stdout lines and the stderr lines between them, in order.
    pub said: Vec<Said>,
    /// The exit code (`stream-json` and `json`).
    pub exit: i32,
    /// What `json` mode writes in place of the `result` line.
    pub doc: Doc,
    /// Text mode's exit code (1 on an API error).
    pub text_exit: i32,
    /// Text mode's stderr lines at the end.
    pub text_stderr: Vec<String>,
}

/// An ISO timestamp of `ms` as JavaScript's `toISOString` writes it.
pub fn iso(ms: u64) -> String {
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    jiff::Timestamp::from_millisecond(ms)
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// A tool call's id, as 0.61.0 makes it: `<name>__<name>_<epoch ms>_<n>`.
pub fn tool_id(name: &str, ms: u64, n: usize) -> String {
    format!("{name}__{name}_{ms}_{n}")
}

/// The stderr lines every run starts with (observed, without a 256-color terminal and
/// without ripgrep), and `--yolo`'s warning, twice.
pub fn stderr_start(yolo: bool) -> Vec<String> {
    let mut lines = vec![stderr::COLOR.to_owned(), stderr::RIPGREP.to_owned()];
    if yolo {
        lines.extend([stderr::YOLO.to_owned(), stderr::YOLO.to_owned()]);
    }
    lines
}

/// The run: every line, the exit code, and what the other formats write.
pub fn play(run: &Run<'_>) -> Played {
    let mut said: Vec<Said> = stderr_start(run.yolo).into_iter().map(Said::Stderr).collect();
    let n = std::cell::Cell::new(0u64);
    let line = |said: &mut Vec<Said>, mut value: Value| {
        if let Some(object) = value.as_object_mut() {
            let mut ordered = Map::new();
            ordered.insert("type".into(), object.shift_remove("type").unwrap_or(Value::Null));
            ordered.insert(
                "timestamp".into(),
                Value::from(iso(run.start_ms + n.get() * PACE_MS)),
            );
            ordered.extend(std::mem::take(object));
            value = Value::Object(ordered);
        }
        n.set(n.get() + 1);
        said.push(Said::Line(value.to_string()));
    };
    line(
        &mut said,
        json!({"type": events::INIT, "session_id": run.session_id, "model": run.model}),
    );
    line(
        &mut said,
        json!({"type": events::MESSAGE, "role": roles::USER, "content": run.prompt}),
    );
    let session = run.session;
    let mut tools = 0usize;
    for round in &session.rounds {
        for chunk in &round.chunks {
            line(
                &mut said,
                json!({"type": events::MESSAGE, "role": roles::ASSISTANT, "content": chunk, fields::DELTA: true}),
            );
        }
        for tool in &round.tools {
            let id = tool_id(&tool.name, run.start_ms, tools);
            tools += 1;
            line(
                &mut said,
                json!({"type": events::TOOL_USE, "tool_name": tool.name, "tool_id": id, "parameters": tool.parameters}),
            );
            match &tool.result {
                ToolResult::Success(output) => line(
                    &mut said,
                    json!({"type": events::TOOL_RESULT, "tool_id": id, "status": status::SUCCESS, "output": output}),
                ),
                ToolResult::Error {
                    output,
                    kind,
                    message,
                } => {
                    line(
                        &mut said,
                        json!({"type": events::TOOL_RESULT, "tool_id": id, "status": status::ERROR, "output": output,
                            "error": {"type": kind, "message": message}}),
                    );
                    said.push(Said::Stderr(stderr::tool_failed(&tool.name, output)));
                }
            }
        }
    }
    let elapsed = n.get() * PACE_MS;
    let (usage, duration) = match session.end {
        End::Api(_) => (Usage::default(), 0),
        End::TurnLimit => (session.usage, 0),
        _ => (session.usage, elapsed),
    };
    let stats = stream_stats(&usage, run.model, duration, tools);
    let stats_doc = doc_stats(session, &usage, run.model, elapsed);
    let doc_of = |error: Option<Value>| {
        let mut document =
            json!({doc::SESSION_ID: run.session_id, doc::RESPONSE: session.answer(), doc::STATS: stats_doc});
        if let Some(error) = error {
            document[doc::ERROR] = error;
        }
        Doc::Stdout(pretty(&document))
    };
    let error_doc = |kind: &str, message: &str, code: i32| {
        Doc::Stderr(pretty(&json!({doc::SESSION_ID: run.session_id,
            doc::ERROR: {"type": kind, "message": message, "code": code}})))
    };
    match &session.end {
        End::Completed => {
            line(
                &mut said,
                json!({"type": events::RESULT, "status": status::SUCCESS, "stats": stats}),
            );
            Played {
                said,
                exit: 0,
                doc: doc_of(None),
                text_exit: 0,
                text_stderr: Vec::new(),
            }
        }
        End::EmptyAnswer => {
            line(
                &mut said,
                json!({"type": events::ERROR, "severity": severity::ERROR, "message": messages::EMPTY_RESPONSE}),
            );
            line(
                &mut said,
                json!({"type": events::RESULT, "status": status::ERROR, "stats": stats}),
            );
            Played {
                said,
                exit: 0,
                doc: doc_of(Some(
                    json!({"type": error_types::INVALID_STREAM, "message": messages::EMPTY_RESPONSE}),
                )),
                text_exit: 0,
                text_stderr: vec![format!("[ERROR] {}", messages::EMPTY_RESPONSE)],
            }
        }
        End::TurnLimit => {
            line(
                &mut said,
                json!({"type": events::RESULT, "status": status::ERROR,
                    "error": {"type": error_types::TURN_LIMITED, "message": messages::TURN_LIMIT}, "stats": stats}),
            );
            Played {
                said,
                exit: exits::TURN_LIMIT,
                doc: error_doc(error_types::TURN_LIMITED, messages::TURN_LIMIT, exits::TURN_LIMIT),
                text_exit: exits::TURN_LIMIT,
                text_stderr: vec![messages::TURN_LIMIT.to_owned()],
            }
        }
        End::Api(error) => {
            let body = messages::api_body(error.code, &error.status, &error.message);
            said.push(Said::Stderr(format!("{} _ApiError: {body}", stderr::API_REPORT)));
            line(
                &mut said,
                json!({"type": events::RESULT, "status": status::ERROR,
                    "error": {"type": error_types::UNKNOWN, "message": api_message(error, &body)}, "stats": stats}),
            );
            let exit = api_exit(error);
            Played {
                said,
                exit,
                doc: error_doc(error_types::ERROR, &body, i32::from(error.code)),
                text_exit: exits::GENERAL,
                text_stderr: vec![stderr::CRITICAL.to_owned()],
            }
        }
    }
}

/// A failed `result`'s message for an API error (429 adds the quota hint).
fn api_message(error: &ApiError, body: &str) -> String {
    let message = messages::api_error(body);
    if error.code == 429 {
        format!("{message}\n{}", messages::QUOTA_HINT)
    } else {
        message
    }
}

/// The exit code of an API error: its status mod 256, but 1 for a model not found
/// (`ModelNotFoundError`).
pub fn api_exit(error: &ApiError) -> i32 {
    if error.code == 404 {
        exits::GENERAL
    } else {
        exits::of_http(error.code)
    }
}

/// `JSON.stringify(value, null, 2)`.
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// `result.stats`.
pub fn stream_stats(usage: &Usage, model: &str, duration_ms: u64, tool_calls: usize) -> Value {
    let counts = |with_models: bool| {
        let mut object = Map::new();
        object.insert(stats::TOTAL_TOKENS.into(), json!(usage.total()));
        object.insert(stats::INPUT_TOKENS.into(), json!(usage.input_tokens));
        object.insert(stats::OUTPUT_TOKENS.into(), json!(usage.output_tokens));
        object.insert(stats::CACHED.into(), json!(usage.cached));
        object.insert(
            stats::INPUT.into(),
            json!(usage.input_tokens.saturating_sub(usage.cached)),
        );
        if with_models {
            object.insert(stats::DURATION_MS.into(), json!(duration_ms));
            object.insert(stats::TOOL_CALLS.into(), json!(tool_calls));
        }
        object
    };
    let mut all = counts(true);
    let mut models = Map::new();
    models.insert(model.to_owned(), Value::Object(counts(false)));
    all.insert(stats::MODELS.into(), Value::Object(models));
    Value::Object(all)
}

/// The `json` document's `stats`.
fn doc_stats(session: &Session, usage: &Usage, model: &str, latency: u64) -> Value {
    let requests = session.rounds.len().max(1);
    let tokens = json!({"input": usage.input_tokens.saturating_sub(usage.cached), "prompt": usage.input_tokens,
        "candidates": usage.output_tokens, "total": usage.total(), "cached": usage.cached, "thoughts": 0, "tool": 0});
    let api =
        json!({"totalRequests": requests, "totalErrors": 0, "totalLatencyMs": latency, "errorsByType": {}});
    let mut by_name = Map::new();
    let (mut success, mut fail) = (0u64, 0u64);
    for tool in session.rounds.iter().flat_map(|r| &r.tools) {
        let ok = matches!(tool.result, ToolResult::Success(_));
        if ok {
            success += 1;
        } else {
            fail += 1;
        }
        let entry = by_name.entry(tool.name.clone()).or_insert_with(|| {
            json!({"count": 0, status::SUCCESS: 0, "fail": 0, "durationMs": 0,
                "decisions": {"accept": 0, "reject": 0, "modify": 0, "auto_accept": 0}})
        });
        let bump = |v: &mut Value| *v = json!(v.as_u64().unwrap_or(0) + 1);
        bump(&mut entry["count"]);
        bump(&mut entry[if ok { status::SUCCESS } else { "fail" }]);
        bump(&mut entry["decisions"]["accept"]);
    }
    let calls = success + fail;
    json!({
        "models": {model: {"api": api, "tokens": tokens, "roles": {"main": {"totalRequests": requests, "totalErrors": 0,
            "totalLatencyMs": latency, "tokens": tokens}}}},
        "tools": {"totalCalls": calls, "totalSuccess": success, "totalFail": fail, "totalDurationMs": 0,
            "totalDecisions": {"accept": calls, "reject": 0, "modify": 0, "auto_accept": 0}, "byName": by_name},
        "files": {"totalLinesAdded": 0, "totalLinesRemoved": 0}
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::gemini::session::default_session;

    fn run(session: &Session) -> Played {
        play(&Run {
            session,
            prompt: "hi",
            session_id: "s",
            model: "gemini-2.5-flash",
            yolo: false,
            start_ms: START_MS,
        })
    }

    fn lines(played: &Played) -> Vec<Value> {
        played
            .said
            .iter()
            .filter_map(|s| match s {
                Said::Line(l) => Some(serde_json::from_str(l).expect("JSON")),
                Said::Stderr(_) => None,
            })
            .collect()
    }

    #[test]
    fn the_default_session_is_told_as_the_cli_tells_it() {
        let played = run(&default_session("/w"));
        let lines = lines(&played);
        let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap_or("")).collect();
        assert_eq!(
            types,
            [
                "init",
                "message",
                "message",
                "message",
                "tool_use",
                "tool_result",
                "message",
                "message",
                "result"
            ]
        );
        assert_eq!(lines[0]["timestamp"], "2026-11-27T12:00:00.000Z");
        assert_eq!(lines[4]["tool_id"], lines[5]["tool_id"]);
        assert_eq!(lines[4]["tool_id"], "read_file__read_file_1795780800000_0");
        assert_eq!(lines[8]["stats"]["tool_calls"], 1);
        assert_eq!(
            lines[8]["stats"]["models"]["gemini-2.5-flash"]["total_tokens"],
            40
        );
        assert_eq!(played.exit, 0);
        let Doc::Stdout(document) = &played.doc else {
            panic!("a document on stdout")
        };
        assert!(document.starts_with("{\n  \"session_id\": \"s\",\n  \"response\": \"The README says hi.\""));
        assert!(!document.ends_with('\n'));
    }

    #[test]
    fn the_endings_are_the_cli_s() {
        let mut session = default_session("/w");
        session.rounds.clear();
        session.end = End::Api(ApiError::unauthorized());
        let played = run(&session);
        assert_eq!((played.exit, played.text_exit), (145, 1));
        let last = lines(&played).pop().expect("a result");
        assert_eq!(last["status"], "error");
        assert!(last["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("[API Error: {\"error\":{\"code\":401")));
        assert!(matches!(played.doc, Doc::Stderr(_)));
        session.end = End::Api(ApiError::rate_limited());
        assert_eq!(run(&session).exit, 173);
        session.end = End::EmptyAnswer;
        let played = run(&session);
        let lines = lines(&played);
        assert_eq!(played.exit, 0);
        assert_eq!(lines[lines.len() - 2]["type"], "error");
        assert!(lines[lines.len() - 1].get("error").is_none());
        session.end = End::TurnLimit;
        assert_eq!(run(&session).exit, 53);
    }
}
