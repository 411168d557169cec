//! What a generated session may hold: the [`Profile`] and the knobs of
//! [`SessionConfig`].

/// Milliseconds since the epoch at which generated sessions start.
pub(crate) const BASE_MS: u64 = 1_790_000_000_000;

/// The working directory of generated sessions.
pub(crate) const PROJECT: &str = "/home/dev/project";

/// What a session may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Only what the documentation describes: `system`, `user`, `assistant`,
    /// `tool_call` with `readToolCall`, `writeToolCall` and `function`, `result`; no
    /// timestamps, no thinking.
    Seeds,
    /// Everything shared/REAL-CLI.md describes: thinking, every tool kind, parallel
    /// calls completing out of order, `timestamp_ms`, `model_call_id`, `usage`,
    /// connection trouble.
    Real,
}

/// The knobs of [`crate::dialects::cursor_print::generate::session`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionConfig {
    /// What the session may hold.
    pub profile: Profile,
    /// At most this many model calls (each: text, then maybe tool calls).
    pub max_model_calls: usize,
    /// At most this many tool calls in parallel.
    pub max_parallel_tools: usize,
    /// At most this many characters of assistant text per segment.
    pub max_text: usize,
    /// `Some(true)`: recorded with `--stream-partial-output` (deltas, then the whole
    /// segment); `Some(false)`: without; `None`: either.
    pub stream_partial_output: Option<bool>,
    /// How often a run fails (no result, a message on stderr, exit 1), in percent.
    pub failure_percent: u32,
    /// At most this many events, about (at least 4: init, user, text, result); `None`:
    /// no limit.
    pub max_events: Option<usize>,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            profile: Profile::Real,
            max_model_calls: 4,
            max_parallel_tools: 3,
            max_text: 80,
            stream_partial_output: None,
            failure_percent: 20,
            max_events: None,
        }
    }
}

impl SessionConfig {
    /// The documented profile only.
    #[must_use]
    pub fn seeds() -> Self {
        SessionConfig {
            profile: Profile::Seeds,
            stream_partial_output: Some(false),
            ..SessionConfig::default()
        }
    }

    /// Large sessions: many model calls, long text.
    #[must_use]
    pub fn large() -> Self {
        SessionConfig {
            max_model_calls: 40,
            max_text: 4_000,
            ..SessionConfig::default()
        }
    }

    /// With at most `events` events.
    #[must_use]
    pub fn max_events(mut self, events: usize) -> Self {
        self.max_events = Some(events.max(4));
        self
    }

    /// With this share of failed runs, in percent.
    #[must_use]
    pub fn failures(mut self, percent: u32) -> Self {
        self.failure_percent = percent.min(100);
        self
    }

    /// With this profile.
    #[must_use]
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        if profile == Profile::Seeds {
            self.stream_partial_output = Some(false);
        }
        self
    }
}
