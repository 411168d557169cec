//! Settings of the mock that come from the environment.
//!
//! The program under test spawns the mock with the real CLI's arguments, so
//! everything that is the mock's own comes from `MOCK_AGENT_*` variables.
//!
//! | variable | meaning | default |
//! | --- | --- | --- |
//! | `MOCK_AGENT_CASSETTE` | replay this cassette or bare capture | the built-in default session |
//! | `MOCK_AGENT_JOURNAL` | append one JSON line per invocation to this file | no journal |
//! | `MOCK_AGENT_CLI_VERSION` | what `--version` prints | [`DEFAULT_CLI_VERSION`] |
//! | `MOCK_AGENT_ACCOUNT` | who `status` says is logged in; empty: nobody | `someone@example.com` |
//!
//! An empty `MOCK_AGENT_CASSETTE` or `MOCK_AGENT_JOURNAL` counts as unset.

use std::ffi::OsString;
use std::path::PathBuf;

/// What `--version` prints unless `MOCK_AGENT_CLI_VERSION` says otherwise.
pub const DEFAULT_CLI_VERSION: &str = "2026.10.01-e373342";

/// Who `status` says is logged in unless `MOCK_AGENT_ACCOUNT` says otherwise.
pub const DEFAULT_ACCOUNT: &str = "someone@example.com";

/// The mock's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settings {
    /// `MOCK_AGENT_CASSETTE`.
    pub cassette: Option<PathBuf>,
    /// `MOCK_AGENT_JOURNAL`.
    pub journal: Option<PathBuf>,
    /// `MOCK_AGENT_CLI_VERSION`.
    pub cli_version: String,
    /// `MOCK_AGENT_ACCOUNT`; `None` when logged out.
    pub account: Option<String>,
}

impl Settings {
    /// Reads the settings from the process environment.
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var_os(name))
    }

    /// Reads the settings through `lookup` (for tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>) -> Self {
        let path = |name: &str| lookup(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let text = |name: &str| lookup(name).map(|v| v.to_string_lossy().into_owned());
        Settings {
            cassette: path("MOCK_AGENT_CASSETTE"),
            journal: path("MOCK_AGENT_JOURNAL"),
            cli_version: text("MOCK_AGENT_CLI_VERSION")
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| DEFAULT_CLI_VERSION.to_owned()),
            account: match text("MOCK_AGENT_ACCOUNT") {
                None => Some(DEFAULT_ACCOUNT.to_owned()),
                Some(v) if v.is_empty() => None,
                Some(v) => Some(v),
            },
        }
    }
}
