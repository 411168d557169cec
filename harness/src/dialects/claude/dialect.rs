//! Claude Code's registration: how the machinery plays, judges, fuzzes and draws a run
//! of `claude` as the Agent SDKs drive it (see [`crate::run::Dialect`]).

use super::check::ClaudeChecker;
use super::wire::{control, types, DIALECT};
use crate::check::Lint;
use crate::error::CassetteError;
use crate::format::OutputFormat;
use crate::journal::{Conversation, Entry};
use crate::run::dialect::{About, CaseResult};
use crate::run::lines;
use crate::run::{Case, CaseSource, Dialect, Label, Matrix, Outcome};
use crate::source::Source;

/// Claude Code: `claude`, as the Agent SDKs run it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Claude;

/// Claude Code's names and what it takes.
static ABOUT: About = About::typed::<super::faults::ClaudeFault>(
    (
        DIALECT,
        "claude (Claude Code, `claude` / `mock-agent claude`)",
        &["claude"],
    ),
    claude_faults,
)
.consumer("Claude Code program")
.unknown("a message of an unknown type", &[super::wire::UNKNOWN_TYPE])
.owns(super::wire::OWN_OBJECTS);

impl Case {
    /// A case of Claude Code's dialect: its expectation is what a careful SDK program
    /// concludes from the source's session with the faults, every permission asked
    /// for allowed (see [`super::expect`]).
    pub fn claude(source: CaseSource, faults: &str, name: String) -> Result<Case, CassetteError> {
        let parsed = super::faults::parse(faults, super::faults::FROM_ENV).map_err(CassetteError::from)?;
        let (expect, segments) = match source.source() {
            Source::Cassette(path) => {
                let script = super::cassette::Script::open(&path)?;
                super::cassette::expectation(&script, &parsed)
            }
            other => {
                let session = super::session_of(&other)?;
                super::expect::expectation(&session, &parsed, None)
            }
        };
        Ok(crate::run::lines::case(
            super::super::CLAUDE,
            name,
            (source, OutputFormat::StreamJson),
            (faults, &parsed),
            (expect, segments),
        ))
    }
}

impl Matrix {
    /// Claude Code's matrix (`claude`, as the Agent SDKs run it) over the default
    /// session (and generated sessions), with [`claude_faults`].
    pub fn claude(cassettes: Vec<std::path::PathBuf>) -> Self {
        Matrix::of(super::super::CLAUDE, cassettes)
    }
}

/// Claude Code's standard faults: the ways the real CLI fails (its presets), where a
/// run can stop (an exit, a signal, a cut line, a stall) at the places an SDK program
/// is in the middle of something (the `initialize` answer, a permission request, the
/// result), what the SDKs are known not to read (a line past the Python SDK's
/// buffer, a missing `num_turns`, a line that is not JSON), and what they must
/// ignore (an undocumented type, a stderr line).
pub fn claude_faults() -> Vec<(String, String)> {
    use super::wire::{control, types};
    let (result, asking, assistant) = (types::RESULT, control::CAN_USE_TOOL, types::ASSISTANT);
    let presets = ["not-logged-in", "invalid-api-key", "max-turns", "error-result"];
    let placed: Vec<(&str, String)> = vec![
        ("exit-1@asking", format!("exit:code=1,at={asking}")),
        ("exit-1@result", format!("exit:code=1,at={result}")),
        (
            "signal-kill@assistant",
            format!("signal:name=KILL,at={assistant}"),
        ),
        ("eof@result", format!("eof:at={result},byte=40")),
        ("stall@result", format!("stall:at={result}")),
        ("stall-2s@assistant", format!("stall:ms=2000,at={assistant}")),
        (
            "no-response@initialize",
            format!("no-response:method={}", control::INITIALIZE),
        ),
        (
            "error@initialize",
            format!("error:method={},message=\"Not ready\"", control::INITIALIZE),
        ),
        ("unknown-type", "unknown:after=2".into()),
    ];
    let unreadable = lines::unreadable(assistant);
    let missing = vec![("missing-num-turns", "missing:field=num_turns".to_owned())];
    let stderr = lines::stderr_faults("warning: slow network");
    lines::matrix(&presets, [placed, stderr, unreadable, missing].concat())
}

/// Whether a Claude Code case's success or failure stands (see
/// [`super::expect::judged`]).
fn claude_judged(case: &Case) -> bool {
    super::faults::parse(&case.faults, super::faults::FROM_ENV)
        .map(|faults| super::expect::judged(&faults))
        .unwrap_or(true)
}

/// Whether a Claude Code case writes a line of an undocumented type.
fn claude_unknown(case: &Case) -> bool {
    super::faults::parse(&case.faults, super::faults::FROM_ENV)
        .is_ok_and(|faults| crate::faults::lines::writes_unknown(&faults))
}

/// `answers-requests` for Claude Code: every `control_request` of the CLI's that the
/// client asked for (a `can_use_tool` under `--permission-prompt-tool stdio`, a hook
/// it registered) got a `control_response` with its `request_id`. One asked just
/// before the CLI died by itself could not be answered; one the client never asked
/// for (a recording replayed to a client started otherwise) is not the client's to
/// answer.
fn answers_claude_requests(outcome: &Outcome) -> Result<(), String> {
    use super::wire::{types, Inbound};
    let mut unanswered = Vec::new();
    for entry in &outcome.journal {
        let Some(conversation) = &entry.claude else {
            continue;
        };
        let prompts = super::expect::asks(&entry.argv);
        let hooks = conversation
            .messages
            .iter()
            .any(|m| m.dir == crate::journal::IN && m.line.contains("\"hookCallbackIds\""));
        let mut asked: Vec<(serde_json::Value, String)> = Vec::new();
        for message in &conversation.messages {
            match message.dir.as_str() {
                crate::journal::OUT => {
                    let Ok(value) = serde_json::from_str::<serde_json::Value>(&message.line) else {
                        continue;
                    };
                    if value.get("type").and_then(serde_json::Value::as_str) == Some(types::CONTROL_REQUEST) {
                        let subtype = value
                            .pointer("/request/subtype")
                            .and_then(serde_json::Value::as_str)
                            .unwrap_or_default();
                        let opted = if subtype == super::wire::control::CAN_USE_TOOL {
                            prompts
                        } else {
                            hooks
                        };
                        if opted {
                            asked.push((value["request_id"].clone(), subtype.to_owned()));
                        }
                    }
                }
                crate::journal::IN => {
                    if let Ok(Inbound::Response { id, .. }) = Inbound::parse(message.line.as_bytes()) {
                        asked.retain(|(asked, _)| *asked != id);
                    }
                }
                _ => {}
            }
        }
        let crashed = !matches!(entry.exit, crate::journal::ExitRecord::Code(0)) && entry.signal.is_none();
        if crashed {
            asked.pop();
        }
        unanswered.extend(
            asked
                .into_iter()
                .map(|(id, subtype)| format!("{subtype} {}", id.as_str().unwrap_or_default())),
        );
    }
    if unanswered.is_empty() {
        Ok(())
    } else {
        Err(format!("never answered the agent's {}", unanswered.join(", ")))
    }
}

impl Dialect for Claude {
    fn about(&self) -> &About {
        &ABOUT
    }

    fn never_ran_hint(&self) -> String {
        "if the program got as far as starting Claude Code, it did not run `claude` from PATH: a Python SDK program runs the CLI bundled in its wheel first, a TypeScript one its platform package's; give it the mock's path, `ClaudeAgentOptions(cli_path=...)` or `pathToClaudeCodeExecutable`, e.g. from `--mock-env` (see docs/claude.md, \"Testing a program built on an SDK\")".to_owned()
    }

    /// The agent refused to skip permissions as root outside a sandbox, as the real CLI
    /// refuses it: the program runs the tests as root and the environment says no
    /// sandbox. The case tested nothing of the program; the same program run by a user
    /// other than root, or with `IS_SANDBOX=1`, goes on.
    fn refused(&self, case: &Case, outcome: &Outcome) -> Option<crate::run::NotRun> {
        let _ = case;
        let refusal = super::wire::ROOT_BYPASS;
        outcome
            .journal
            .iter()
            .any(|entry| entry.rejected.as_deref() == Some(refusal))
            .then(|| {
                let sandbox = super::wire::env::IS_SANDBOX;
                let here = match std::env::var(sandbox) {
                    Ok(value) if !value.is_empty() => {
                        format!(" (the tests' environment has `{sandbox}={value}`)")
                    }
                    _ => String::new(),
                };
                let bubblewrap = super::wire::env::BUBBLEWRAP;
                crate::run::NotRun {
                    reason: format!(
                        "the agent refused to skip permissions as root before the case began (`{refusal}`): \
                         the program asks for it (`--dangerously-skip-permissions` or `--permission-mode \
                         bypassPermissions`), the tests run as root, and nothing says it is a sandbox"
                    ),
                    hint: format!(
                        "run the tests as a user other than root, or set `{sandbox}=1` in their environment \
                         where root is meant (a container): Claude Code takes only `1`{here}; a program that \
                         passes the agent only `CLAUDE_*` variables (as SDK programs do) drops it: set \
                         `{bubblewrap}=1` instead, which such a program passes on"
                    ),
                }
            })
    }

    fn case(&self, source: CaseSource, format: OutputFormat, faults: &str, name: String) -> CaseResult {
        let _ = format;
        Case::claude(source, faults, name)
    }

    /// A Claude Code case as the consumer played it: the expectation with only the
    /// faults that acted in its last run (a fault on `initialize` does nothing to a
    /// consumer that never sends it: `claude -p`).
    fn lived(&self, case: &Case, outcome: &Outcome) -> Case {
        let (this, mut case) = (case, case.clone());
        let Some(entry) = outcome.journal.iter().rev().find(|e| e.claude.is_some()) else {
            return case;
        };
        // What the mock wrote, as its journal keeps it: what the consumer had to read.
        if let Some((expect, segments)) = super::expect::from_journal(entry) {
            case.expect = expect;
            case.segments = segments;
            return case;
        }
        let Ok(faults) = super::faults::parse(&this.faults, super::faults::FROM_ENV) else {
            return case;
        };
        if faults.len() != entry.faults.len() {
            return case;
        }
        let acted: Vec<_> = faults
            .into_iter()
            .zip(&entry.faults)
            .filter(|(_, record)| record.fired)
            .map(|(fault, _)| fault)
            .collect();
        let lived = match this.source.source() {
            Source::Cassette(path) => super::cassette::Script::open(&path)
                .ok()
                .map(|script| super::cassette::expectation(&script, &acted)),
            other => super::session_of(&other)
                .ok()
                .map(|session| super::expect::expectation(&session, &acted, Some(&entry.argv))),
        };
        if let Some((expect, segments)) = lived {
            case.expect = expect;
            case.segments = segments;
        }
        case
    }

    /// A preset rewrites the session before it is played: a cassette is replayed as
    /// recorded, following the client, and a preset does nothing to it.
    fn applies(&self, source: &CaseSource, faults: &str) -> bool {
        let presets = || {
            faults
                .split(';')
                .filter_map(|item| item.split(':').next())
                .any(|name| {
                    super::faults::CATALOGUE
                        .iter()
                        .any(|e| e.preset && e.name == name.trim())
                })
        };
        !matches!(source, CaseSource::Cassette(_)) || !presets()
    }

    fn judged(&self, case: &Case) -> bool {
        claude_judged(case)
    }

    fn writes_unknown(&self, case: &Case) -> bool {
        claude_unknown(case)
    }

    fn answers_requests(&self, outcome: &Outcome) -> Option<Result<(), String>> {
        Some(answers_claude_requests(outcome))
    }

    fn told(&self, entry: &Entry) -> Option<(String, Vec<String>)> {
        let conversation = entry.claude.as_ref()?;
        let messages = conversation
            .messages
            .iter()
            .map(|m| (m.dir.as_str(), m.line.as_str()));
        Some((super::wire::summary(messages), Vec::new()))
    }

    fn conversation<'e>(&self, entry: &'e Entry) -> Option<&'e Conversation> {
        entry.claude.as_ref()
    }

    /// A line labelled by its type and subtype (a control request by its request's
    /// subtype).
    fn label(&self, value: &serde_json::Value) -> Option<Label> {
        let kind = value.get("type")?.as_str()?;
        if !types::ALL.contains(&kind) {
            return None;
        }
        let subtype = value
            .get("subtype")
            .or_else(|| value.pointer("/request/subtype"))
            .or_else(|| value.pointer("/response/subtype"))
            .and_then(|s| s.as_str());
        let error = value.get("is_error").and_then(serde_json::Value::as_bool) == Some(true)
            || subtype == Some(control::ERROR);
        Some(Label {
            label: match subtype {
                Some(subtype) => format!("{kind} {subtype}"),
                None => kind.to_owned(),
            },
            asks: kind == types::CONTROL_REQUEST,
            error,
        })
    }

    /// Lines are told apart by `type` and `subtype`; the enums a consumer branches on
    /// are compared by value; `modelUsage` is keyed by model name.
    fn drift_rules(&self) -> crate::drift::Rules {
        crate::drift::Rules {
            values: &[
                "subtype",
                "state",
                "is_error",
                "terminal_reason",
                "stop_reason",
                "error",
                "api_error_status",
                "permissionMode",
                "message.content[].type",
                "message.content[].is_error",
                "response.subtype",
            ],
            maps: &["modelUsage", "model_usage_since_last_result"],
            ..crate::drift::Rules::DEFAULT
        }
    }

    fn checker(&self) -> Box<dyn Lint> {
        Box::<ClaudeChecker>::default()
    }

    crate::run::dialect::generated_by!(Claude);
}
