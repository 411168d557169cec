//! The knobs of generated conversations.

use crate::acp::profile::Profile;

/// The knobs of [`conversation`](super::conversation).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConversationConfig {
    /// At most this many sessions (the first new, later ones new or loaded).
    pub max_sessions: usize,
    /// At most this many turns (prompts) a session.
    pub max_turns: usize,
    /// At most this many steps a turn: a thought, a message chunk, a plan, a batch
    /// of tool calls.
    pub max_steps: usize,
    /// At most this many tool calls in parallel.
    pub max_parallel_tools: usize,
    /// At most this many characters of text a chunk.
    pub max_text: usize,
    /// How often a turn fails (a JSON-RPC error, `refusal`, `max_tokens`,
    /// `max_turn_requests`), in percent.
    pub failure_percent: u32,
    /// How often the client cancels a turn after the first, in percent.
    pub cancel_percent: u32,
    /// At most this many messages, both directions (at least [`MIN_MESSAGES`]: the
    /// handshake, a session and one turn); `None`: no limit.
    pub max_messages: Option<usize>,
    /// The agent whose conversations they are.
    pub profile: &'static Profile,
}

/// The fewest messages a conversation has: `initialize` and its answer,
/// `session/new`, its answer and `available_commands_update`, a prompt and its
/// answer.
pub const MIN_MESSAGES: usize = 7;

impl ConversationConfig {
    /// Conversations of `profile`'s agent, of the usual size: 2 sessions of 2 turns
    /// of up to 5 steps.
    pub fn of(profile: &'static Profile) -> Self {
        ConversationConfig {
            max_sessions: 2,
            max_turns: 2,
            max_steps: 5,
            max_parallel_tools: 3,
            max_text: 80,
            failure_percent: 20,
            cancel_percent: 15,
            max_messages: None,
            profile,
        }
    }

    /// These conversations made large: many sessions, turns and steps, long text.
    #[must_use]
    pub fn larger(self) -> Self {
        ConversationConfig {
            max_sessions: 3,
            max_turns: 4,
            max_steps: 12,
            max_text: 1_000,
            ..self
        }
    }

    /// With at most `messages` messages (at least [`MIN_MESSAGES`]).
    #[must_use]
    pub fn max_messages(self, messages: usize) -> Self {
        ConversationConfig {
            max_messages: Some(messages.max(MIN_MESSAGES)),
            ..self
        }
    }

    /// Conversations with `profile`'s agent.
    #[must_use]
    pub fn profile(self, profile: &'static Profile) -> Self {
        ConversationConfig { profile, ..self }
    }

    /// With this share of failed turns, in percent.
    #[must_use]
    pub fn failures(self, percent: u32) -> Self {
        ConversationConfig {
            failure_percent: percent.min(100),
            ..self
        }
    }

    /// With this share of turns after the first cancelled by the client, in percent.
    #[must_use]
    pub fn cancels(self, percent: u32) -> Self {
        ConversationConfig {
            cancel_percent: percent.min(100),
            ..self
        }
    }
}
