//! The registration of `codex app-server` (`codex-app-server`): JSON-RPC over stdio
//! as the Python SDK (`openai-codex`) and the IDE extensions run it. How the
//! machinery plays, judges, fuzzes and checks a run of it (see
//! [`crate::run::Dialect`]).

use serde_json::Value;

use super::check::AppServerChecker;
use super::expect::{conclude, conversation, from_lines, judged, unanswered, written};
use super::recording::{open_session, DIALECT};
use crate::check::Lint;
use crate::dialects::codex::faults::{parse_app_server, APP_SERVER_FROM_ENV};
use crate::dialects::codex::session::Session;
use crate::dialects::codex::wire::rpc::{items, notifications};
use crate::dialects::codex::wire::undocumented;
use crate::error::CassetteError;
use crate::format::OutputFormat;
use crate::journal::{Conversation, Entry};
use crate::run::dialect::{About, CaseResult, Label};
use crate::run::lines;
use crate::run::{Case, CaseSource, Dialect, Outcome};

/// OpenAI's Codex as `codex app-server`.
#[derive(Debug, Clone, Copy, Default)]
pub struct CodexAppServer;

/// `codex app-server`'s names and what it takes.
static ABOUT: About = About::typed::<crate::dialects::codex::faults::AppServerFault>(
    (
        DIALECT,
        "codex-app-server (OpenAI Codex, `codex app-server` / `mock-agent codex app-server`)",
        &["codex"],
    ),
    app_server_faults,
)
.consumer("app-server client")
// A failed turn leaves the server running: the run's end is the client's.
.outlives_a_failure()
.unknown(
    "a notification of an unknown method or an item of an unknown type",
    &[undocumented::NOTIFICATION, undocumented::ITEM],
);

/// The session of a case's source.
fn session_of(source: &CaseSource) -> Result<Session, CassetteError> {
    Ok(match source {
        CaseSource::Cassette(path) => open_session(path)?,
        #[cfg(feature = "generate")]
        CaseSource::Generated(seed) => crate::dialects::codex::generate::from_seed(*seed),
        _ => crate::dialects::codex::default_session("/work"),
    })
}

/// The presets of the `codex-app-server` section the fuzzer draws, in the matrix
/// with `reconnect-then-ok`: the approval a client must answer, and the ways the real
/// server fails a turn.
pub const PRESETS: [&str; 5] = [
    "approval",
    "unauthorized",
    "rate-limited",
    "turn-failed",
    "stream-cut",
];

/// `codex app-server`'s standard faults: the approval a client must answer, the ways
/// the real server fails a turn (its presets), where the server can stop (an exit, a
/// signal, a cut line, a stall) while a client is in the middle of something, and what
/// a client must let pass (an unknown notification or item type, a stderr line).
pub fn app_server_faults() -> Vec<(String, String)> {
    let (completed, started) = (notifications::TURN_COMPLETED, notifications::TURN_STARTED);
    let (command, message) = (items::COMMAND_EXECUTION, items::AGENT_MESSAGE);
    let presets = [&PRESETS[..], &["reconnect-then-ok"]].concat();
    let placed: Vec<(&str, String)> = vec![
        ("exit-1@command", format!("exit:code=1,at={command}")),
        (
            "signal-kill@agent-message",
            format!("signal:name=KILL,at={message}"),
        ),
        ("eof@turn-completed", format!("eof:at={completed},byte=40")),
        ("exit-0@turn-started", format!("exit:code=0,at={started}")),
        ("stall@turn-completed", format!("stall:at={completed}")),
        ("unknown-notification", format!("unknown:at={started}")),
        ("unknown-item", format!("unknown:kind=item,at={completed}")),
        ("malformed", format!("malformed:at={started}")),
    ];
    let stderr = lines::stderr_faults("WARN codex_core: slow network");
    lines::matrix(&presets, [placed, stderr].concat())
}

impl Dialect for CodexAppServer {
    fn about(&self) -> &About {
        &ABOUT
    }

    fn case_env(&self, dir: &std::path::Path) -> Vec<(String, String)> {
        crate::dialects::codex::dialect::codex_home(dir)
    }

    fn case(&self, source: CaseSource, format: OutputFormat, faults: &str, name: String) -> CaseResult {
        let _ = format;
        let parsed = parse_app_server(faults, APP_SERVER_FROM_ENV).map_err(CassetteError::from)?;
        let (outs, _) = conversation(&session_of(&source)?, &parsed, 0);
        Ok(crate::run::lines::case(
            crate::dialects::CODEX_APP_SERVER,
            name,
            (source, OutputFormat::StreamJson),
            (faults, &parsed),
            conclude(&outs),
        ))
    }

    /// The case as the client played it: concluded from what the server wrote to it
    /// (a client that declines an approval, or interrupts, gets another turn).
    fn lived(&self, case: &Case, outcome: &Outcome) -> Case {
        let mut case = case.clone();
        if let Some(conversation) = outcome.journal.iter().rev().find_map(|e| e.acp.as_ref()) {
            let (expect, segments) = from_lines(written(conversation));
            case.expect = expect;
            case.segments = segments;
        }
        case
    }

    fn judged(&self, case: &Case) -> bool {
        parse_app_server(&case.faults, APP_SERVER_FROM_ENV).map_or(true, |faults| judged(&faults))
    }

    fn writes_unknown(&self, case: &Case) -> bool {
        parse_app_server(&case.faults, APP_SERVER_FROM_ENV)
            .is_ok_and(|faults| crate::faults::lines::writes_unknown(&faults))
    }

    /// Every approval request of the server's got an answer.
    fn answers_requests(&self, outcome: &Outcome) -> Option<Result<(), String>> {
        let waiting: Vec<String> = outcome
            .journal
            .iter()
            .flat_map(unanswered)
            .map(|(method, id)| format!("`{method}` (id {id})"))
            .collect();
        Some(if waiting.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "the server's request {} got no answer",
                waiting.join(", ")
            ))
        })
    }

    fn told(&self, entry: &Entry) -> Option<(String, Vec<String>)> {
        let conversation = entry.acp.as_ref()?;
        let mut told = String::new();
        for message in &conversation.messages {
            let arrow = match message.dir.as_str() {
                crate::journal::IN => "->",
                crate::journal::OUT => "<-",
                _ => "!!",
            };
            let line: String = message.line.chars().take(160).collect();
            told.push_str(&format!("{arrow} {line}\n"));
        }
        Some((told, Vec::new()))
    }

    fn conversation<'e>(&self, entry: &'e Entry) -> Option<&'e Conversation> {
        entry.acp.as_ref()
    }

    /// A message labelled by its method (a response by `result` or `error`).
    fn label(&self, value: &Value) -> Option<Label> {
        let method = value.get("method").and_then(Value::as_str);
        let id = value.get("id");
        let error = value.get(crate::dialects::codex::wire::rpc::ERROR).is_some()
            || method == Some(notifications::ERROR)
            || value.pointer("/params/turn/status").and_then(Value::as_str) == Some("failed");
        Some(Label {
            label: match (method, id) {
                (Some(method), _) => method.to_owned(),
                (None, Some(_)) if value.get(crate::dialects::codex::wire::rpc::ERROR).is_some() => {
                    crate::dialects::codex::wire::rpc::ERROR.to_owned()
                }
                (None, Some(_)) => crate::dialects::codex::wire::rpc::RESULT.to_owned(),
                (None, None) => return None,
            },
            asks: method.is_some() && id.is_some(),
            error,
        })
    }

    /// Lines are told apart by `method` and an item's type (`item/started/agentMessage`);
    /// the enums a client branches on (an item's and a turn's status, a thread's, an
    /// error's kind) are compared by value.
    fn drift_rules(&self) -> crate::drift::Rules {
        crate::drift::Rules {
            kind_keys: &["method", "params.item.type"],
            values: &[
                "params.item.status",
                "params.turn.status",
                "params.status.type",
                "params.willRetry",
                "params.error.codexErrorInfo",
                "params.turn.error.codexErrorInfo",
                "result.decision",
                "error.code",
            ],
            maps: &[],
        }
    }

    fn checker(&self) -> Box<dyn Lint> {
        Box::<AppServerChecker>::default()
    }

    crate::run::dialect::generated_by!(super::generate::AppServer);
}
