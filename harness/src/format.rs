//! The CLI's `--output-format`: the vocabulary every stage shares (the cassette's
//! invocation, the journal, rendering, the checker).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The `--output-format` of the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum OutputFormat {
    /// One line of human-readable progress per action, then the answer.
    #[serde(rename = "text")]
    Text,
    /// The terminal `result` object, once, at the end.
    #[serde(rename = "json")]
    Json,
    /// One JSON event per line (NDJSON), as it happens. The default, as documented.
    #[default]
    #[serde(rename = "stream-json")]
    StreamJson,
}

impl OutputFormat {
    /// Every format, in documentation order.
    pub const ALL: [OutputFormat; 3] = [OutputFormat::Text, OutputFormat::Json, OutputFormat::StreamJson];

    /// The name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputFormat::Text => "text",
            OutputFormat::Json => "json",
            OutputFormat::StreamJson => "stream-json",
        }
    }
}

impl fmt::Display for OutputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An `--output-format` value that is not one of the three.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not an output format; expected text, json or stream-json")]
pub struct UnknownFormat(pub String);

impl FromStr for OutputFormat {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OutputFormat::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}
