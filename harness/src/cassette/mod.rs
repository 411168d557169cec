//! Cassettes: recorded runs, one JSON value per line.
//!
//! A cassette is a header line, one frame per line of output, and an end line:
//!
//! ```text
//! {"mock_agent_cassette":1,"invocation":{"argv":["-p","--output-format","stream-json","hi"],"prompt":"hi","output_format":"stream-json","cwd":"/work","cli_version":"2026.10.01-e373342"}}
//! {"t":0,"out":{…the first event, an object, as the agent printed it…}}
//! {"t":412.5,"out":"[debug] a line that is not an event"}
//! {"t":950,"err":"RetriableError: [unavailable] upstream"}
//! {"t":951,"exit":1}
//! ```
//!
//! - `t`: milliseconds from the start of the run (optional; defaults to the previous
//!   frame's time; never decreases).
//! - `out` / `err`: a line on stdout / stderr. A line that is a JSON object is embedded
//!   as that object, byte for byte, so a cassette diff reads like the stream; any other
//!   line is a JSON string. `out_b64` / `err_b64` hold a line that is not UTF-8, in
//!   base64. `"nl":false` marks a last line that had no final newline.
//! - the end line: `"exit":CODE` or `"signal":"TERM"`.
//!
//! A bare capture (`cursor-agent -p --output-format stream-json ... > x.ndjson`) is read
//! as a cassette too: every line goes to stdout; it ends with exit code 0 when its last
//! event is a successful `result`, else 1.
//!
//! The whole format is documented in `docs/cassette-format.md`. Readers stream: memory
//! does not grow with the file.

mod copy;
mod line;
mod read;
pub mod tape;
mod write;

pub use copy::{copy_capture, copy_capture_to, copy_cassette, CassetteCopied, Copied, CopyError, COPY_BLOCK};
pub(crate) use read::millis_f64;
pub use read::out_event;
pub use read::{open, Position, Reader};
pub use write::{encode_frame, line_too_long, stale_temporaries, Writer};

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

/// Members of a JSON object that a model keeps as they are (those it does not name).
pub type Extra = serde_json::Map<String, serde_json::Value>;
use crate::format::OutputFormat;
use crate::frames::Frames;

/// An opened source: its header (for cassettes) and its frames.
pub struct Recording {
    /// The name errors refer to: the file, or `<default session>`.
    pub name: PathBuf,
    /// The cassette header; `None` for captures and the default session.
    pub header: Option<Header>,
    /// Whether the stream was recorded with `--stream-partial-output`, where known
    /// (a capture does not say).
    pub stream_partial_output: Option<bool>,
    /// The frames, read lazily.
    pub frames: Frames,
}

impl std::fmt::Debug for Recording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recording")
            .field("name", &self.name)
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

/// Cassette files up to this size are read through once, in full, before replay, so
/// that a broken one fails before anything is printed (a pipe is read once, and
/// checked as it streams). Larger ones are checked as they
/// stream, and the events of lines in the writer's own shape only for being UTF-8
/// (`mock-agent` checks them in full when it reads the file otherwise).
pub const PREFLIGHT_LIMIT: u64 = 16 << 20;

/// The longest line a cassette or capture may hold, without its newline: 96 MiB.
///
/// Far above any event the CLI prints, and room for the largest event a `huge` fault
/// makes ([`crate::faults`], 64 MiB) written as a cassette frame, even in base64. A
/// longer line is an error (the wrong file, or `/dev/zero`), found without reading
/// more than this much of it.
pub const MAX_LINE_BYTES: usize = 96 << 20;

/// The newest cassette format version this build reads and writes.
///
/// - 1: print mode: `out`, `err`, stalls, a closed stdout, the ending;
/// - 2: also `in` frames (what the process read on stdin: in server mode, the
///   client's messages) and `invocation.acp`. Written only for recordings of
///   `cursor-agent acp`, so that a mock-agent that reads only format 1 says to
///   upgrade rather than misread one.
pub const FORMAT_VERSION: u64 = 2;

/// The version of print-mode cassettes, which every build since the first reads.
pub const PRINT_FORMAT_VERSION: u64 = 1;

/// The key of the header line that marks a file as a cassette, holding its version.
pub const MAGIC_KEY: &str = "mock_agent_cassette";

/// The key of a cassette's invocation that names the dialect of its recording
/// (`"dialect":"claude"`), for every dialect but print mode's and server mode's, whose
/// cassettes came first and say it by their version and `acp`.
pub const DIALECT_KEY: &str = "dialect";

/// The first line of a cassette.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The format version, [`FORMAT_VERSION`].
    #[serde(rename = "mock_agent_cassette")]
    pub version: u64,
    /// How the recorded run was invoked.
    #[serde(default)]
    pub invocation: Invocation,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Header {
    /// A version-1 header for this invocation (print mode).
    pub fn new(invocation: Invocation) -> Self {
        Header {
            version: PRINT_FORMAT_VERSION,
            invocation,
            extra: Extra::new(),
        }
    }

    /// A version-2 header for a recording of the dialect `name` (`claude`): its
    /// invocation names it under [`DIALECT_KEY`].
    pub fn of_dialect(mut invocation: Invocation, name: &str) -> Self {
        invocation
            .extra
            .insert(DIALECT_KEY.into(), serde_json::Value::String(name.into()));
        Header {
            version: FORMAT_VERSION,
            invocation,
            extra: Extra::new(),
        }
    }

    /// The dialect the invocation names under [`DIALECT_KEY`], if it names one.
    pub fn dialect(&self) -> Option<&str> {
        self.invocation
            .extra
            .get(DIALECT_KEY)
            .and_then(serde_json::Value::as_str)
    }

    /// A version-2 header for a recording of server mode (`cursor-agent acp`).
    pub fn acp(mut invocation: Invocation) -> Self {
        invocation.acp = true;
        Header {
            version: FORMAT_VERSION,
            invocation,
            extra: Extra::new(),
        }
    }
}

/// How a recorded run was invoked. Every field is optional: a capture knows none.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Invocation {
    /// The arguments after the program name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argv: Vec<String>,
    /// The prompt the agent was given.
    pub prompt: Option<String>,
    /// The `--output-format` of the run. Stdout frames hold that format.
    pub output_format: Option<OutputFormat>,
    /// Whether `--stream-partial-output` was given.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stream_partial_output: bool,
    /// The working directory.
    pub cwd: Option<String>,
    /// Whether this is a recording of server mode (`cursor-agent acp`): its `in`
    /// frames are the client's messages.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub acp: bool,
    /// What `cursor-agent --version` printed, where known.
    pub cli_version: Option<String>,
    /// The environment variables set for the run that change what the CLI writes
    /// (its dialect says which: e.g. a variable by which an SDK asks for more lines),
    /// by name. A replay to a client that sets them gives back what was recorded.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub env: std::collections::BTreeMap<String, String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Extra,
}
