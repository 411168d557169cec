//! Generated conversations of server mode: proptest strategies for ACP conversations
//! nobody recorded.
//!
//! A conversation is not random message soup: it is built from a *plan* by the
//! protocol's state machine, so every generated conversation is one a real client
//! and the real agent could have had:
//!
//! 1. the handshake: `initialize`, then maybe `authenticate`;
//! 2. sessions: the first one `session/new` (answered, then
//!    `available_commands_update`), later ones new or `session/load`ed (their history
//!    replayed as `user_message_chunk`s and `agent_message_chunk`s before the answer);
//!    maybe a `session/set_mode` from the client;
//! 3. turns: `session/prompt`, then `agent_thought_chunk`s, `agent_message_chunk`s,
//!    `plan`s and tool calls of every ACP kind (`read`, `edit`, `delete`, `move`,
//!    `search`, `execute`, `think`, `fetch`, `switch_mode`, `other`): each a
//!    `tool_call` (`pending`), maybe a `session/request_permission` the agent waits
//!    on (the client allows once, always, or rejects), then its `tool_call_update`
//!    (`completed`, or `failed`), parallel ones completing out of order; a
//!    `switch_mode` tool is followed by `current_mode_update`;
//! 4. the end of each turn: `stopReason: end_turn`, or a failed end (a JSON-RPC
//!    error, `refusal`, `max_tokens`, `max_turn_requests`), or the client's
//!    `session/cancel` (while the agent streams, or while its permission request
//!    waits: then the client answers it `cancelled`) and `stopReason: cancelled`.
//!
//! The client cancels only turns after the first: a client that sends one prompt, as
//! most do (and as [`super::expect`]'s canonical client does), never meets a cancel
//! the recording has and it does not send (the mock would wait
//! [`super::CANCEL_WAIT`] for it).
//!
//! A generated conversation is a [`Transcript`]: the client's messages (`in`) and the
//! agent's (`out`) in order, in the shapes the real agent sends. Written as a cassette
//! ([`Transcript::write_cassette`], format 2, `Header::acp`), `mock-agent acp`
//! replays it with `MOCK_AGENT_CASSETTE`; [`from_seed`] makes the conversation of a
//! seed, the same on every run and machine (for one version of mock-agent), as
//! `mock-agent generate --acp --seed N` and `MOCK_AGENT_GENERATE=N cursor-agent acp`
//! do. Proptest shrinks the plan, not bytes: a failing conversation shrinks to fewer
//! sessions, turns, steps and tools, and texts of fewer words (words, ids and paths
//! stay as drawn: when each shrink step is a run of the client under test, that keeps
//! shrinking short).
//!
//! The strategy takes the profile of the agent whose conversations it makes (each
//! ACP dialect's folder exports its `PROFILE`):
//!
//! ```
//! use harness::acp::generate::{conversation, ConversationConfig};
//! use harness::acp::profile::Profile;
//! use proptest::prelude::*;
//! use proptest::test_runner::TestRunner;
//!
//! /// Every generated conversation of `profile`'s agent prompts at least once.
//! fn every_turn_is_answered(profile: &'static Profile) {
//!     let mut runner = TestRunner::new(ProptestConfig::with_cases(16));
//!     let strategy = conversation(ConversationConfig::of(profile));
//!     runner
//!         .run(&strategy, |transcript| {
//!             let prompts = transcript.summary().lines().filter(|l| l.starts_with("-> session/prompt")).count();
//!             prop_assert!(prompts >= 1);
//!             Ok(())
//!         })
//!         .unwrap();
//! }
//! # every_turn_is_answered(&harness::dialects::gemini::acp::PROFILE);
//! ```
//!
//! [`faulted`] overlays server-mode faults (see [`super::faults`]) and labels each
//! [`FaultedTranscript`] with what a correct client concludes ([`super::expect`]).

mod build;
mod config;
mod plan;
mod transcript;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::expect::Expectation;

use build::build;
pub use config::{ConversationConfig, MIN_MESSAGES};
pub use plan::TOOL_KINDS;
use plan::{fallback_plan, plan};
pub use transcript::{Direction, Exchange, Transcript};

/// A conversation with faults overlaid, and what a correct client concludes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultedTranscript {
    /// The conversation.
    pub transcript: Transcript,
    /// The faults, each as given to `MOCK_AGENT_FAULTS`.
    pub faults: Vec<String>,
    /// What a correct client concludes.
    pub expect: Expectation,
}

impl FaultedTranscript {
    /// The faults as one `MOCK_AGENT_FAULTS` value (`;`-joined); empty for none.
    pub fn spec(&self) -> String {
        self.faults.join(";")
    }
}
impl crate::run::fuzz::LiveCase for FaultedTranscript {
    fn write_cassette(&self, path: &std::path::Path) -> Result<std::path::PathBuf, crate::error::WriteError> {
        self.transcript.write_cassette(path)
    }

    fn spec(&self) -> String {
        FaultedTranscript::spec(self)
    }

    fn lines(&self) -> usize {
        self.transcript.messages.len()
    }
}

/// A strategy for valid conversations with these knobs.
pub fn conversation(config: ConversationConfig) -> impl Strategy<Value = Transcript> {
    plan(&config).prop_map(move |plan| build(&plan, &config))
}
/// A strategy for conversations with 0 to `max_faults` server-mode faults overlaid,
/// each labelled with what a correct client concludes.
pub fn faulted(config: ConversationConfig, max_faults: usize) -> impl Strategy<Value = FaultedTranscript> {
    (
        conversation(config),
        crate::faults::strategy::list(super::faults::strategy(), max_faults),
    )
        .prop_map(|(transcript, (faults, typed))| {
            let (expect, _) = transcript.expectation(typed);
            FaultedTranscript {
                transcript,
                faults,
                expect,
            }
        })
}

/// The conversation of a seed: the same on every run and machine, for one version.
pub fn from_seed(seed: u64, config: &ConversationConfig) -> Transcript {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    // Not the print-mode session of the same seed: another stream of the generator.
    bytes[8..11].copy_from_slice(b"acp");
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    match plan(config).new_tree(&mut runner) {
        Ok(tree) => build(&tree.current(), config),
        // Only a filter that rejects everything fails; the plan has none.
        Err(_) => build(&fallback_plan(), config),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use agent_client_protocol_schema::v1 as schema;
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    use super::*;
    use crate::acp::rpc::{Kind, Message};
    use crate::acp::wire::methods;

    /// `value` read as the schema's `T`, or why not.
    fn read_as<T: DeserializeOwned>(value: Value, what: &str) -> Result<(), String> {
        serde_json::from_value::<T>(value.clone())
            .map(drop)
            .map_err(|e| format!("{what}: {e}: {value}"))
    }

    /// Every message of a generated conversation reads as the schema's type for it:
    /// what we generate is the schema's shape (Cursor's extra fields, such as the
    /// `models` block, are left to the schema to ignore).
    #[test]
    fn generated_messages_have_the_schema_s_shape() {
        let config = ConversationConfig::large();
        for seed in 0..30 {
            let transcript = from_seed(seed, &config);
            // The method of each waiting request, by side and id.
            let mut asked: HashMap<(&str, String), String> = HashMap::new();
            for exchange in &transcript.messages {
                let message = Message::parse(exchange.line.as_bytes()).expect("JSON-RPC");
                let params = message.params_value();
                let checked = match (message.kind, message.method()) {
                    (Kind::Notification, methods::SESSION_UPDATE) => {
                        read_as::<schema::SessionNotification>(params, methods::SESSION_UPDATE)
                    }
                    (Kind::Notification, methods::SESSION_CANCEL) => {
                        read_as::<schema::CancelNotification>(params, methods::SESSION_CANCEL)
                    }
                    (Kind::Request, method) => {
                        asked.insert(
                            (exchange.dir.as_str(), message.id_text().to_owned()),
                            method.to_owned(),
                        );
                        match method {
                            methods::INITIALIZE => read_as::<schema::InitializeRequest>(params, method),
                            methods::AUTHENTICATE => read_as::<schema::AuthenticateRequest>(params, method),
                            methods::SESSION_NEW => read_as::<schema::NewSessionRequest>(params, method),
                            methods::SESSION_LOAD => read_as::<schema::LoadSessionRequest>(params, method),
                            methods::SESSION_SET_MODE => {
                                read_as::<schema::SetSessionModeRequest>(params, method)
                            }
                            methods::SESSION_PROMPT => read_as::<schema::PromptRequest>(params, method),
                            methods::REQUEST_PERMISSION => {
                                read_as::<schema::RequestPermissionRequest>(params, method)
                            }
                            methods::FS_READ_TEXT_FILE => {
                                read_as::<schema::ReadTextFileRequest>(params, method)
                            }
                            methods::FS_WRITE_TEXT_FILE => {
                                read_as::<schema::WriteTextFileRequest>(params, method)
                            }
                            methods::TERMINAL_CREATE => {
                                read_as::<schema::CreateTerminalRequest>(params, method)
                            }
                            methods::TERMINAL_OUTPUT => {
                                read_as::<schema::TerminalOutputRequest>(params, method)
                            }
                            methods::TERMINAL_WAIT_FOR_EXIT => {
                                read_as::<schema::WaitForTerminalExitRequest>(params, method)
                            }
                            methods::TERMINAL_RELEASE => {
                                read_as::<schema::ReleaseTerminalRequest>(params, method)
                            }
                            other => Err(format!("a request the generator does not make: {other}")),
                        }
                    }
                    (Kind::Response, _) => {
                        let asker = match exchange.dir {
                            Direction::In => Direction::Out,
                            Direction::Out => Direction::In,
                        };
                        let method = asked
                            .remove(&(asker.as_str(), message.id_text().to_owned()))
                            .unwrap_or_default();
                        let result: Value = message
                            .result
                            .and_then(|r| serde_json::from_str(r.get()).ok())
                            .unwrap_or(Value::Null);
                        match method.as_str() {
                            _ if message.error.is_some() => Ok(()),
                            methods::INITIALIZE => read_as::<schema::InitializeResponse>(result, &method),
                            methods::SESSION_NEW => read_as::<schema::NewSessionResponse>(result, &method),
                            methods::SESSION_PROMPT => read_as::<schema::PromptResponse>(result, &method),
                            methods::REQUEST_PERMISSION => {
                                read_as::<schema::RequestPermissionResponse>(result, &method)
                            }
                            methods::FS_READ_TEXT_FILE => {
                                read_as::<schema::ReadTextFileResponse>(result, &method)
                            }
                            methods::FS_WRITE_TEXT_FILE => {
                                read_as::<schema::WriteTextFileResponse>(result, &method)
                            }
                            methods::TERMINAL_CREATE => {
                                read_as::<schema::CreateTerminalResponse>(result, &method)
                            }
                            methods::TERMINAL_OUTPUT => {
                                read_as::<schema::TerminalOutputResponse>(result, &method)
                            }
                            methods::TERMINAL_WAIT_FOR_EXIT => {
                                read_as::<schema::WaitForTerminalExitResponse>(result, &method)
                            }
                            methods::TERMINAL_RELEASE => {
                                read_as::<schema::ReleaseTerminalResponse>(result, &method)
                            }
                            _ => Ok(()),
                        }
                    }
                    (Kind::Notification, other) => {
                        Err(format!("a notification the generator does not send: {other}"))
                    }
                };
                if let Err(why) = checked {
                    panic!("seed {seed}: {why}");
                }
            }
        }
    }

    /// Generated conversations have what the real agent sends: the client's file
    /// reads and writes and terminals where the client offers them (answered, or
    /// refused with an error the agent reports as the tool's failure), every kind of
    /// permission option chosen, content that is not text, usage and titles.
    #[test]
    fn generated_conversations_cover_what_the_real_agent_sends() {
        let config = ConversationConfig::large();
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..60 {
            let transcript = from_seed(seed, &config);
            let init = Message::parse(transcript.messages[0].line.as_bytes()).expect("the first message");
            let offered = crate::acp::wire::Capabilities::of_initialize(&init.params_value());
            for exchange in &transcript.messages {
                let message = Message::parse(exchange.line.as_bytes()).expect("JSON-RPC");
                let params = message.params_value();
                if exchange.dir == Direction::Out && message.kind == Kind::Request {
                    assert!(
                        offered.allow(message.method()),
                        "seed {seed}: {} to {offered:?}",
                        message.method()
                    );
                    seen.insert(message.method().to_owned());
                }
                if let Some(kind) = params["update"]["sessionUpdate"].as_str() {
                    seen.insert(kind.to_owned());
                    if let Some(block) = params["update"]["content"]["type"].as_str() {
                        seen.insert(format!("content {block}"));
                    }
                }
                if exchange.dir == Direction::In && message.kind == Kind::Response {
                    if message.error.is_some() {
                        seen.insert("client error".to_owned());
                    }
                    if let Some(option) = message
                        .result
                        .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                    {
                        if let Some(id) = option["outcome"]["optionId"].as_str() {
                            seen.insert(format!("chose {id}"));
                        }
                    }
                }
            }
        }
        for wanted in [
            methods::FS_READ_TEXT_FILE,
            methods::FS_WRITE_TEXT_FILE,
            methods::TERMINAL_CREATE,
            methods::TERMINAL_WAIT_FOR_EXIT,
            methods::TERMINAL_OUTPUT,
            methods::TERMINAL_RELEASE,
            "client error",
            "chose reject-always",
            "content image",
            "content resource",
            "content resource_link",
            crate::acp::wire::updates::USAGE_UPDATE,
            crate::acp::wire::updates::SESSION_INFO_UPDATE,
        ] {
            assert!(seen.contains(wanted), "no {wanted} in 60 seeds: {seen:?}");
        }
    }

    /// A profile that describes its tool calls (Gemini CLI's habit) gets generated
    /// conversations in its shape: no `rawInput` or `rawOutput`; a tool that does
    /// not ask announced `in_progress` with its locations; one that asks first
    /// mentioned by its permission request, with its content and locations; every
    /// end saying its content and kind.
    #[test]
    fn a_describing_agent_s_generated_tool_calls_are_described() {
        use crate::acp::profile::testing::DESCRIBING;
        use crate::acp::wire::{tool_statuses, updates};
        let config = ConversationConfig::of(&DESCRIBING).larger();
        let (mut announced, mut asked, mut ended) = (0, 0, 0);
        for seed in 0..40 {
            let transcript = from_seed(seed, &config);
            let mut asking = std::collections::HashSet::new();
            for exchange in &transcript.messages {
                assert!(
                    !exchange.line.contains("\"rawInput\"") && !exchange.line.contains("\"rawOutput\""),
                    "seed {seed}: {}",
                    exchange.line
                );
                let message = Message::parse(exchange.line.as_bytes()).expect("JSON-RPC");
                let params = message.params_value();
                if message.kind == Kind::Request && message.method() == methods::REQUEST_PERMISSION {
                    let call = &params["toolCall"];
                    assert!(
                        call["content"].is_array() && call["locations"].is_array(),
                        "seed {seed}: {call}"
                    );
                    asking.insert(call["toolCallId"].to_string());
                    asked += 1;
                }
                let update = &params["update"];
                match update["sessionUpdate"].as_str() {
                    Some(updates::TOOL_CALL) => {
                        assert_eq!(
                            update["status"],
                            tool_statuses::IN_PROGRESS,
                            "seed {seed}: {update}"
                        );
                        assert!(update["locations"].is_array(), "seed {seed}: {update}");
                        assert!(
                            !asking.contains(&update["toolCallId"].to_string()),
                            "seed {seed}: announced after its permission request: {update}"
                        );
                        announced += 1;
                    }
                    Some(updates::TOOL_CALL_UPDATE)
                        if update["status"] == tool_statuses::COMPLETED
                            || update["status"] == tool_statuses::FAILED =>
                    {
                        assert!(
                            update["content"].is_array() && update["kind"].is_string(),
                            "seed {seed}: {update}"
                        );
                        ended += 1;
                    }
                    _ => {}
                }
            }
        }
        assert!(
            announced > 20 && asked > 5 && ended > 20,
            "{announced} announced, {asked} asked, {ended} ended"
        );
    }

    #[test]
    fn a_seed_gives_the_same_conversation_and_another_seed_another() {
        let config = ConversationConfig::default();
        assert_eq!(from_seed(7, &config), from_seed(7, &config));
        assert_ne!(from_seed(7, &config), from_seed(8, &config));
    }

    #[test]
    fn the_budget_keeps_a_conversation_whole() {
        let configs = [
            (ConversationConfig::default().max_messages(12), 50),
            (ConversationConfig::large().max_messages(40), 3),
            (ConversationConfig::default().max_messages(0), 10),
        ];
        for (config, seed) in configs
            .iter()
            .flat_map(|(c, n)| (0..*n).map(move |seed| (c, seed)))
        {
            let transcript = from_seed(seed, config);
            let most = config.max_messages.unwrap_or_default();
            assert!(transcript.messages.len() <= most, "{}", transcript.summary());
            let prompts = transcript
                .messages
                .iter()
                .filter(|m| {
                    Message::parse(m.line.as_bytes())
                        .is_some_and(|m| m.method() == crate::acp::wire::methods::SESSION_PROMPT)
                })
                .count();
            assert!(prompts >= 1, "{}", transcript.summary());
        }
    }

    #[test]
    fn the_first_turn_is_never_cancelled_and_a_correct_client_concludes_from_it() {
        let config = ConversationConfig::default().cancels(100).failures(0);
        for seed in 0..20 {
            let transcript = from_seed(seed, &config);
            let summary = transcript.summary();
            let lines: Vec<&str> = summary.lines().collect();
            let ended = lines.iter().position(|l| l.ends_with(" end_turn"));
            let cancelled = lines.iter().position(|l| l.starts_with("-> session/cancel"));
            assert!(
                ended.is_some_and(|e| cancelled.is_none_or(|c| e < c)),
                "{summary}"
            );
            let (expect, _) = transcript.expectation(Vec::new());
            assert!(matches!(expect, Expectation::Success { .. }), "{summary}");
        }
    }
}
