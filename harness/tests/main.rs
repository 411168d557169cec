//! The harness library's own tests: what holds of the model, the cassette format and
//! generated sessions, without the `mock-agent` binary (the end-to-end suite, `tests/`
//! at the workspace root, runs that).

mod shared; // strategies and helpers, shared with the end-to-end suite

mod acp_check; // the ACP checker on whole conversations: each rule, and no panic
mod cassette; // cassette write -> read gives the frames back, whatever the bytes
mod events; // the event model round-trips through JSON and keeps what it does not know
mod generate; // generated sessions: valid, consistent, labelled right, their bytes kept
mod run; // the runner as a test author uses it: typed properties, try_/assert_ pairs, errors and exit codes
