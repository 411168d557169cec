//! An agent's profile: what one ACP agent does that another does not.
//!
//! ACP is one protocol that several agents speak (`cursor-agent acp`, `gemini --acp`,
//! the adapters of Claude Code and Codex), each with its habits: its `initialize`
//! answer and auth methods, the modes and models of `session/new`, when it sends its
//! commands, the ids of its permission options, what its prompt result carries, when
//! `session/load` answers, which client methods it uses, the shapes of its errors.
//! The machinery of this folder (the teller, the script, the generator, the faults,
//! the checks, the dialect's registration) is one; a [`Profile`] is the data and small
//! hooks it asks. A profile's folder (`dialects/NAME/`) holds only its profile.

use serde_json::Value;

use super::rpc::{self, codes};
use super::tell::Story;
use crate::cassette::{Invocation, Recording};
use crate::error::CassetteError;
use crate::run::Dialect;

/// When the agent sends its `available_commands_update`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commands {
    /// Right after its answer to `session/new`.
    AfterNew,
    /// At the start of a session's first `session/prompt`.
    FirstPrompt,
}

/// When the agent answers `session/load`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadAnswer {
    /// After the whole history is replayed (as the spec says).
    AfterReplay,
    /// After the first replayed update, before the rest of the history.
    AfterFirst,
}

/// How the agent reports a tool call in its updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolShape {
    /// `rawInput` on the `tool_call`, the tool's output in `rawOutput` on its end;
    /// the `tool_call` before the permission request.
    Raw,
    /// No `rawInput` or `rawOutput`: every message about a tool call says its
    /// `title`, `kind`, `content` (a write's diff) and `locations` (see
    /// [`tell::describe`](super::tell::describe)); a tool call that does not ask is
    /// announced `in_progress`; the permission request is the first mention of one
    /// that asks.
    Described,
}

/// The error lines an agent writes, in its shapes.
#[derive(Debug, Clone, Copy)]
pub struct Errors {
    /// A method it does not know: `(id, method)`.
    pub method_not_found: fn(&str, &str) -> Vec<u8>,
    /// A session id nobody made: `(id, session, method)`.
    pub unknown_session: fn(&str, &str, &str) -> Vec<u8>,
    /// A setter naming a mode, model or option that does not exist: `(id, what)`.
    pub invalid_setting: fn(&str, &str) -> Vec<u8>,
    /// A session method when not logged in: `(id)`.
    pub auth_required: fn(&str) -> Vec<u8>,
}

/// Which of the choices the spec leaves to an agent it makes: what `session/new`
/// offers and takes, what a turn ends with, when `session/load` answers, which client
/// methods it uses, how it reports tool calls, its error shapes.
#[derive(Clone, Copy)]
pub struct Habits {
    /// The mode ids `session/new` offers (`session/set_mode` takes).
    pub modes: &'static [&'static str],
    /// Whether `session/set_model` takes this model id.
    pub known_model: fn(&str) -> bool,
    /// Whether `session/new` offers `configOptions` (and `session/set_config_option`
    /// exists).
    pub config_options: bool,
    /// The result of `session/prompt` with this stop reason, after `turns` turns.
    pub prompt_result: fn(&str, u64) -> Value,
    /// Whether a successful turn ends with `usage_update` and (a session's first)
    /// `session_info_update`.
    pub usage_updates: bool,
    /// When `session/load` answers.
    pub load: LoadAnswer,
    /// Whether it runs commands in the client's terminal (`terminal/*`) when offered.
    pub terminal: bool,
    /// Whether it reads files through the client (`fs/read_text_file`) when offered
    /// (else only for its edits).
    pub fs_reads: bool,
    /// How it reports tool calls.
    pub tools: ToolShape,
    /// Its error shapes.
    pub errors: Errors,
}

impl Habits {
    /// Every choice the spec offers, as its reference agent makes them: every mode, the
    /// known models, config options, usage updates, `session/load` answered after the
    /// replay, the client's terminal and file reads, `rawInput` and `rawOutput`, the
    /// spec's errors.
    pub const SPEC: Habits = Habits {
        modes: super::wire::modes::ALL,
        known_model: |id| crate::models::MODELS.iter().any(|(m, _)| *m == id),
        config_options: true,
        prompt_result: |reason, _| super::wire::stop(reason),
        usage_updates: true,
        load: LoadAnswer::AfterReplay,
        terminal: true,
        fs_reads: true,
        tools: ToolShape::Raw,
        errors: Errors::SPEC,
    };
}

/// What one ACP agent does that another does not (see the module's docs).
#[derive(Clone, Copy)]
pub struct Profile {
    /// The dialect's name (`--dialect NAME`).
    pub name: &'static str,
    /// Its heading in `mock-agent faults`.
    pub title: &'static str,
    /// The executables a case puts on the consumer's `PATH`.
    pub programs: &'static [&'static str],
    /// How it is launched, as a user would type it (`cursor-agent acp`).
    pub launch: &'static str,
    /// The arguments it is launched with (a generated recording's header says them).
    pub argv: &'static [&'static str],
    /// The flags of `mock-agent test` that choose it.
    pub test_flags: &'static str,
    /// The stem of its fuzz failures' cassettes (`fuzz-acp`).
    pub fuzz_stem: &'static str,
    /// Its registered dialect.
    pub dialect: fn() -> &'static dyn Dialect,
    /// Whether a recording's invocation is one of its runs.
    pub claims: fn(&Invocation) -> bool,
    /// The result of `initialize`.
    pub initialize: fn() -> Value,
    /// The method id a client authenticates with.
    pub auth_method: &'static str,
    /// The result of `session/new` for this session id.
    pub session_new: fn(&str) -> Value,
    /// When it sends its commands, and the update that lists them.
    pub commands: (Commands, fn() -> Value),
    /// The `options` of `session/request_permission`: allow once, allow always,
    /// reject once (and more).
    pub permission_options: fn() -> Value,
    /// Which of the spec's choices it makes ([`Habits::SPEC`] unless said).
    pub habits: Habits,
    /// How a source that is no recording of an ACP agent (the built-in default
    /// session, a print-mode cassette, a capture) becomes the story it tells
    /// ([`tell`](super::tell)).
    pub story: fn(Recording) -> Result<Story, CassetteError>,
}

impl std::fmt::Debug for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Profile")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Profile {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Profile {}

impl Errors {
    /// The error shapes of the spec's reference agent ([`spec_errors`]).
    pub const SPEC: Errors = Errors {
        method_not_found: spec_errors::method_not_found,
        unknown_session: spec_errors::unknown_session,
        invalid_setting: spec_errors::invalid_setting,
        auth_required: spec_errors::auth_required,
    };
}

impl Profile {
    /// The option id of the first permission option of this kind, if it offers one.
    pub fn option_id(&self, kind: &str) -> Option<String> {
        (self.permission_options)()
            .as_array()?
            .iter()
            .find(|o| o["kind"] == kind)
            .and_then(|o| o["optionId"].as_str())
            .map(str::to_owned)
    }
}

/// The error shapes of the spec's reference agent: `-32601` with the method in
/// `data`, `-32602` for an unknown session or setting, `-32000` when not logged in.
pub mod spec_errors {
    use super::*;

    /// `-32601` `Method not found`, the method in `data`.
    pub fn method_not_found(id: &str, method: &str) -> Vec<u8> {
        rpc::error(
            id,
            codes::METHOD_NOT_FOUND,
            "Method not found",
            Some(&Value::from(method)),
        )
    }

    /// `-32602` `Session ... not found`.
    pub fn unknown_session(id: &str, session: &str, method: &str) -> Vec<u8> {
        let _ = method;
        rpc::error(
            id,
            codes::INVALID_PARAMS,
            &format!("Session {session} not found"),
            None,
        )
    }

    /// `-32602` with what is wrong.
    pub fn invalid_setting(id: &str, what: &str) -> Vec<u8> {
        rpc::error(id, codes::INVALID_PARAMS, what, None)
    }

    /// `-32000` `Authentication required`.
    pub fn auth_required(id: &str) -> Vec<u8> {
        rpc::error(id, codes::AUTH_REQUIRED, "Authentication required", None)
    }
}

/// Agents for the machinery's unit tests (`profile_tests.rs`): the spec's choices,
/// as Cursor's agent makes them, with every habit a client can meet.
#[cfg(test)]
#[path = "profile_tests.rs"]
pub(crate) mod testing;
