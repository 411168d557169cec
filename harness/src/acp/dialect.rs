//! A profile's registration: how the machinery plays, judges, fuzzes and draws a
//! conversation with an ACP agent (see [`crate::run::Dialect`]). Every ACP agent is
//! an [`AcpDialect`] of its [`Profile`].

use super::check::AcpChecker;
use super::profile::Profile;
use super::rpc::{Kind, Message};
use super::wire::{methods, stop_reasons, updates};
use crate::cassette::Header;
use crate::check::Lint;
use crate::error::CassetteError;
use crate::format::OutputFormat;
use crate::journal::{Conversation, Entry};
use crate::run::dialect::{About, CaseResult};
#[cfg(feature = "generate")]
use crate::run::fuzz::{Fuzz, FuzzReport};
use crate::run::{Case, CaseSource, Dialect, Label, Outcome};
#[cfg(feature = "generate")]
use crate::run::{Generated, RunError, Runner};
#[cfg(feature = "generate")]
use {crate::error::WriteError, std::path::Path};

/// An ACP agent as a dialect: the one machinery, with `profile`'s habits.
#[derive(Debug, Clone, Copy)]
pub struct AcpDialect {
    /// What the agent does that another does not.
    pub profile: &'static Profile,
    /// Its names (the profile's) and what it takes.
    about: About,
}

impl AcpDialect {
    /// The dialect of `profile`'s agent.
    pub const fn new(profile: &'static Profile) -> AcpDialect {
        let names = (profile.name, profile.title, profile.programs);
        let about = About::typed::<super::faults::AcpFault>(names, acp_faults)
            .consumer("ACP client")
            .test_flags(profile.test_flags)
            .unknown(
                "an update of an unknown kind or with an unknown field",
                &[super::wire::undocumented::UPDATE],
            )
            // A failed turn leaves the agent running: the run's end is the client's.
            .outlives_a_failure();
        AcpDialect { profile, about }
    }
}

/// A case of `profile`'s server mode: its expectation is what a correct ACP client
/// concludes from the source's conversation with the faults (see [`super::expect`]).
/// A generated source is the conversation generated from its seed
/// ([`super::generate::from_seed`], default knobs), not a print-mode session told
/// through ACP.
pub fn case(
    profile: &'static Profile,
    source: CaseSource,
    faults: &str,
    name: String,
) -> Result<Case, CassetteError> {
    let parsed = super::faults::parse(faults, super::faults::FROM_ENV).map_err(CassetteError::from)?;
    // What the agent serves for the source (a generated source: the conversation
    // generated from the seed).
    let (mut conversation, _) = super::conversation_of(&source.source(), profile)?;
    let (expect, segments) = super::expect::expectation(conversation.as_mut(), parsed);
    Ok(Case::conversation(
        (profile.dialect)(),
        name,
        source,
        faults,
        (expect, segments),
    ))
}

/// The faults of server mode's matrix, in the placements that matter: at
/// `initialize`, at `session/new`, mid-turn, while a permission request waits, at the
/// prompt's response and after it; and those a client must shrug off. Whether a
/// correct client fails on `authenticate-hangs` depends on whether it authenticates:
/// what it concludes is worked out from the requests it sent ([`Case::lived`]).
pub fn acp_faults() -> Vec<(String, String)> {
    let (initialize, prompt) = (methods::INITIALIZE, methods::SESSION_PROMPT);
    let (chunk, tool_call) = (updates::AGENT_MESSAGE_CHUNK, updates::TOOL_CALL);
    let (refusal, tool_updates) = (stop_reasons::REFUSAL, updates::TOOL_CALL_UPDATE);
    let faults: Vec<(&str, String)> = vec![
        ("clean", String::new()),
        ("crash@initialize", "crash-on-initialize".into()),
        ("late@initialize", format!("late:method={initialize},ms=300")),
        ("auth-required", "auth-required".into()),
        ("authenticate-hangs", "authenticate-hangs".into()),
        ("session-services-failed", "session-services-failed".into()),
        ("early-update@session-new", "early-update".into()),
        (
            "crash@mid-turn",
            format!("crash:at={chunk},text=\"Error: lost the model connection\""),
        ),
        (
            "signal-kill@mid-turn",
            format!("crash:at={tool_call},signal=KILL"),
        ),
        ("eof@mid-line", format!("eof:at={chunk},byte=20")),
        ("malformed@mid-turn", format!("malformed:at={tool_call}")),
        ("crash@asking", "crash-while-asking".into()),
        (
            "error@prompt",
            format!("error:method={prompt},code=-32603,message=\"Internal error\""),
        ),
        ("no-response@prompt", format!("no-response:method={prompt}")),
        ("late@prompt", format!("late:method={prompt},ms=500")),
        // The preset is named after the stop reason.
        (refusal, refusal.into()),
        ("max-tokens", "max-tokens".into()),
        (
            "stderr@after-turn",
            "stderr:text=\"warning: slow network\",after=30".into(),
        ),
        ("stderr-flood", "stderr-flood:bytes=1048576".into()),
        ("unknown-update", format!("unknown-update:at={tool_call}")),
        ("unknown-field", "unknown-field".into()),
        ("duplicate@tool-call", format!("duplicate:at={tool_call}")),
        ("drop-tool-updates", format!("drop:kind={tool_updates}")),
        ("reorder", "reorder".into()),
        ("huge-1m", format!("huge:bytes=1048577,at={chunk}")),
        ("chunk-7", "chunk:size=7".into()),
        ("chunk-random", "chunk:random".into()),
        ("coalesce", "coalesce".into()),
        // Requests a client did not offer: a correct one answers them with an error.
        ("unoffered-tools", "unoffered-tools".into()),
    ];
    crate::run::matrix::labelled(faults)
}

/// Every request the agent sent was answered: the journal's messages hold a
/// response of the client's for each (the agent ending first excuses the last).
fn answers_requests(outcome: &Outcome) -> Result<(), String> {
    let mut unanswered = Vec::new();
    for entry in &outcome.journal {
        let Some(conversation) = &entry.acp else { continue };
        let mut asked: Vec<(String, String)> = Vec::new();
        for message in &conversation.messages {
            let Some(parsed) = Message::parse(message.line.as_bytes()) else {
                continue;
            };
            match (message.dir.as_str(), parsed.kind) {
                ("out", Kind::Request) => {
                    asked.push((parsed.id_text().to_owned(), parsed.method().to_owned()))
                }
                ("in", Kind::Response) => asked.retain(|(id, _)| id != parsed.id_text()),
                _ => {}
            }
        }
        // A request the agent sent just before it died by itself (a crash, not a
        // signal from outside) could not be answered.
        let crashed = !matches!(entry.exit, crate::journal::ExitRecord::Code(0)) && entry.signal.is_none();
        if crashed {
            asked.pop();
        }
        unanswered.extend(asked.into_iter().map(|(id, method)| format!("{method} {id}")));
    }
    if unanswered.is_empty() {
        Ok(())
    } else {
        Err(format!("never answered the agent's {}", unanswered.join(", ")))
    }
}

/// The messages of `conversation` that are the same on every run of the same client:
/// all of them, but when the agent died by itself (`crashed`, see
/// [`Entry::crashed`]), the client's responses to its requests that it never took
/// (none of [`Conversation::answers`]): they came while it was dying, and whether one
/// was read before the end is a race (`crash-while-asking`).
pub fn settled(
    conversation: &Conversation,
    crashed: bool,
) -> impl Iterator<Item = &crate::journal::MessageRecord> {
    conversation.messages.iter().filter(move |m| {
        !(crashed && m.dir == crate::journal::IN) || {
            let message = Message::parse(m.line.as_bytes());
            !message.is_some_and(|message| {
                message.kind == Kind::Response
                    && !conversation.answers.iter().any(|a| a.id == message.id_text())
            })
        }
    })
}

impl Dialect for AcpDialect {
    fn about(&self) -> &About {
        &self.about
    }

    fn case(&self, source: CaseSource, format: OutputFormat, faults: &str, name: String) -> CaseResult {
        let _ = format;
        case(self.profile, source, faults, name)
    }

    /// With what a correct client concludes from the requests it actually sent (the
    /// last conversation of the run's journal, see
    /// [`super::expect::expectation_of_run`]); when the client sent no request, the
    /// case as it is.
    fn lived(&self, case: &Case, outcome: &Outcome) -> Case {
        let (this, mut case) = (case, case.clone());
        let Some(run) = outcome.journal.iter().rev().find_map(|e| e.acp.as_ref()) else {
            return case;
        };
        let Ok(faults) = super::faults::parse(&this.faults, super::faults::FROM_ENV) else {
            return case;
        };
        let Ok((mut conversation, _)) = super::conversation_of(&this.source.source(), self.profile) else {
            return case;
        };
        if let Some((expect, segments)) =
            super::expect::expectation_of_run(conversation.as_mut(), faults, run)
        {
            case.expect = expect;
            case.segments = segments;
        }
        case
    }

    fn writes_unknown(&self, case: &Case) -> bool {
        case.faults.contains("unknown-update") || case.faults.contains("unknown-field")
    }

    fn answers_requests(&self, outcome: &Outcome) -> Option<Result<(), String>> {
        Some(answers_requests(outcome))
    }

    fn told(&self, entry: &Entry) -> Option<(String, Vec<String>)> {
        let conversation = entry.acp.as_ref()?;
        // What raced the agent's death is left out: the record is the same on every run.
        let messages = settled(conversation, entry.crashed()).map(|m| (m.dir.as_str(), m.line.as_str()));
        Some((super::summary(messages), conversation.divergences.clone()))
    }

    fn conversation<'e>(&self, entry: &'e Entry) -> Option<&'e Conversation> {
        entry.acp.as_ref()
    }

    /// An update is labelled by its kind: `session/update: tool_call`.
    fn label(&self, value: &serde_json::Value) -> Option<Label> {
        let method = value.get("method")?.as_str()?;
        if method != methods::SESSION_UPDATE || value.get("id").is_some() {
            return None;
        }
        let update = value.pointer("/params/update/sessionUpdate")?.as_str()?;
        Some(Label {
            label: format!("{method}: {update}"),
            asks: false,
            error: false,
        })
    }

    /// Messages are told apart by `method` and an update's kind; the enums a client
    /// branches on (a tool call's status and kind, the permission options, the stop
    /// reason, an error's code) are compared by value.
    fn drift_rules(&self) -> crate::drift::Rules {
        crate::drift::Rules {
            kind_keys: &["method", "params.update.sessionUpdate"],
            values: &[
                "params.update.status",
                "params.update.kind",
                "params.update.content[].type",
                "params.toolCall.status",
                "params.toolCall.kind",
                "params.options[].optionId",
                "params.options[].kind",
                "result.stopReason",
                "error.code",
            ],
            maps: &[],
        }
    }

    fn claims(&self, header: &Header) -> bool {
        header.invocation.acp && (self.profile.claims)(&header.invocation)
    }

    fn checker(&self) -> Box<dyn Lint> {
        Box::new(AcpChecker::new())
    }

    /// The conversation of `seed`, of at most `size` messages both ways: written as a
    /// cassette, or told one message a line.
    #[cfg(feature = "generate")]
    fn generate(&self, seed: u64, size: Option<usize>, out: Option<&Path>) -> Result<Generated, WriteError> {
        use super::generate::{from_seed, ConversationConfig};
        let mut config = ConversationConfig::of(self.profile);
        if let Some(size) = size {
            config = config.max_messages(size);
        }
        let transcript = from_seed(seed, &config);
        let Some(out) = out else {
            return Ok(crate::run::Generated::Told(format!("{}\n", transcript.summary())));
        };
        let path = transcript.write_cassette(out)?;
        let play = format!(
            "serve it with `MOCK_AGENT_CASSETTE={} {}`",
            path.display(),
            self.profile.launch
        );
        Ok(crate::run::Generated::Written {
            path,
            lines: transcript.messages.len(),
            unit: "messages",
            play,
        })
    }

    /// Generated conversations (see [`super::generate`]) with server-mode faults,
    /// against an ACP client. Each case is the conversation written as a cassette,
    /// served by the agent with the faults in `MOCK_AGENT_FAULTS` (they act on
    /// the live conversation, so they are not written into it): the minimal case is
    /// that cassette, with its faults in a `.faults` file beside it.
    #[cfg(feature = "generate")]
    fn fuzz(&self, fuzz: &Fuzz, runner: &Runner<'_>) -> Result<FuzzReport, RunError> {
        use super::generate::{faulted, ConversationConfig};
        fuzz.search_live(
            runner,
            (self.profile.dialect)(),
            self.profile.fuzz_stem,
            faulted(ConversationConfig::of(self.profile), 2),
        )
    }
}
