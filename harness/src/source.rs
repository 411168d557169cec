//! Sources: where the frames of a run come from, as the process is told (`--cassette`,
//! `--generate`, neither): each dialect reads a source its own way (print mode's
//! `Source::open`, each player's session).

use std::path::PathBuf;

pub use crate::cassette::PREFLIGHT_LIMIT;

/// Where a run's frames come from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Source {
    /// The built-in example session.
    Default,
    /// A cassette or bare capture file.
    Cassette(PathBuf),
    /// The session generated from a seed (each dialect generates its own from it).
    #[cfg(feature = "generate")]
    Generated {
        /// The seed.
        seed: u64,
        /// The knobs.
        config: SessionConfig,
    },
}

impl Source {
    /// A short description for journals: `default`, or the path.
    pub fn describe(&self) -> String {
        match self {
            Source::Default => "default".to_owned(),
            Source::Cassette(path) => path.display().to_string(),
            #[cfg(feature = "generate")]
            Source::Generated { seed, .. } => format!("generated:{seed}"),
        }
    }
}

/// What a session may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Only what the documentation describes: `system`, `user`, `assistant`,
    /// `tool_call` with `readToolCall`, `writeToolCall` and `function`, `result`; no
    /// timestamps, no thinking.
    Seeds,
    /// Everything the real CLI was seen to do (the REAL-*.md notes): thinking, every tool kind, parallel
    /// calls completing out of order, `timestamp_ms`, `model_call_id`, `usage`,
    /// connection trouble.
    Real,
}

/// The knobs of a generated session.
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
