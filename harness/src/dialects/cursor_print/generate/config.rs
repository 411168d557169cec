//! What a generated session may hold: the [`Profile`] and the knobs of
//! [`SessionConfig`].

/// Milliseconds since the epoch at which generated sessions start.
pub(crate) const BASE_MS: u64 = 1_790_000_000_000;

/// The working directory of generated sessions.
pub(crate) const PROJECT: &str = "/home/dev/project";

pub use crate::source::{Profile, SessionConfig};

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
