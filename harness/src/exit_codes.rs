//! Exit codes of `mock-agent`, stable and documented.
//!
//! When the mock stands in for the CLI, it ends the way the recording says: the
//! recorded exit code, or death by the recorded signal. The emulated CLI's own
//! errors (an unknown option, say) exit with [`AGENT_ERROR`], as the real CLI does.
//!
//! `mock-agent test` and `mock-agent fuzz` exit with [`CASES_FAILED`] when a case
//! broke a property (or a snapshot fails the run): the consumer failed, not the agent
//! and not the mock.
//!
//! They exit with [`CASES_NOT_RUN`] when a case was not run (the consumer never ran
//! the agent, or the agent did not get the case's settings): the run tested nothing
//! there, so it is neither a pass nor a failure. It wins over [`CASES_FAILED`].
//!
//! Errors of the mock's own, never to be confused with an agent failure, use the
//! codes of BSD's `sysexits.h` below. Their messages start with `mock-agent:`.

/// Success.
pub const OK: i32 = 0;

/// The emulated CLI failed as the real one does (unknown option, bad option value).
pub const AGENT_ERROR: i32 = 1;

/// `mock-agent test` or `fuzz`: a case broke a property of the consumer's, or a
/// snapshot fails the run. (The code cargo-nextest gives a failing test run.)
pub const CASES_FAILED: i32 = 100;

/// `mock-agent test` or `fuzz`: a case was not run: the consumer never ran the agent
/// (it ran another `claude`, say), or the agent did not get the case's settings. No
/// verdict is given on such a case; this code wins over [`CASES_FAILED`].
pub const CASES_NOT_RUN: i32 = 99;

/// A wrong command line of `mock-agent`'s own subcommands, or a bad `MOCK_AGENT_*`
/// setting.
pub const USAGE: i32 = 64;

/// A cassette, capture or other input file is malformed: bad JSON, a wrong field, a
/// file cut short, an unsupported format version. Also Claude Code's stand-in when a
/// line on its stdin is over 64 MiB.
pub const INVALID_INPUT: i32 = 65;

/// An input file does not exist or cannot be opened.
pub const NO_INPUT: i32 = 66;

/// `mock-agent test` or `fuzz`: the consumer cannot be started (no shell to run its
/// command with, say). Not a failure of the consumer's: nothing of it ran.
pub const CANNOT_RUN: i32 = 69;

/// A bug in `mock-agent`: please report it.
pub const INTERNAL: i32 = 70;

/// An output file (a cassette, the journal) cannot be created or written.
pub const CANNOT_CREATE: i32 = 73;

/// Reading an input or writing an output failed part way (other than a closed pipe,
/// which is a quiet exit).
pub const IO_ERROR: i32 = 74;

/// Every code with its name and meaning, for `--help` texts and documentation tests.
pub const ALL: &[(i32, &str, &str)] = &[
    (OK, "OK", "the run succeeded"),
    (
        AGENT_ERROR,
        "AGENT_ERROR",
        "the emulated CLI failed as the real one does",
    ),
    (
        CASES_FAILED,
        "CASES_FAILED",
        "mock-agent test or fuzz: a case broke a property, or a snapshot fails the run",
    ),
    (
        CASES_NOT_RUN,
        "CASES_NOT_RUN",
        "mock-agent test or fuzz: a case was not run: the consumer never ran the agent, or the agent did not get the case's settings",
    ),
    (
        USAGE,
        "USAGE",
        "a wrong mock-agent command line or MOCK_AGENT_* setting",
    ),
    (
        INVALID_INPUT,
        "INVALID_INPUT",
        "a malformed cassette or input file",
    ),
    (NO_INPUT, "NO_INPUT", "an input file cannot be opened"),
    (
        CANNOT_RUN,
        "CANNOT_RUN",
        "mock-agent test or fuzz: the consumer cannot be started",
    ),
    (INTERNAL, "INTERNAL", "a bug in mock-agent"),
    (CANNOT_CREATE, "CANNOT_CREATE", "an output file cannot be written"),
    (IO_ERROR, "IO_ERROR", "reading or writing failed part way"),
];
