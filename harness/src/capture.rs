//! The few names of the stream-json shape that the cassette format reads in a capture
//! (a file of the JSON lines an agent wrote on stdout, with no header): how a line
//! says its type and time, which type ends a run, and the lines whose text a replay
//! may rewrite. They are Cursor's print-mode names, which captures hold; the dialect's
//! wire model says them too (and every other name of its protocol).

/// The type of the line that ends a run: a capture whose last line is one (and no
/// error) ends with exit 0.
pub const RESULT: &str = "result";

/// The type of the assistant's message lines, which may be deltas of its text.
pub const ASSISTANT: &str = "assistant";

/// The member that says when a line was written, in milliseconds.
pub const TIMESTAMP_MS: &str = "timestamp_ms";

/// The member that closes a segment of the assistant's text (the line before a tool
/// call), which is then not a delta.
pub const MODEL_CALL_ID: &str = "model_call_id";

/// The member every event line of a session carries.
pub const SESSION_ID: &str = "session_id";
