//! Claude Code (`claude`), as the Claude Agent SDKs drive it: stream-json both ways,
//! with a control protocol of requests and answers in each direction.
//!
//! - [`wire`]: every name of the dialect, and the client's lines read into types;
//! - [`session`]: the session model (turns of blocks and tool calls) and the built-in
//!   default session;
//! - [`play`]: a session told as the CLI's lines, turn by turn, answering the client;
//! - [`expect`]: what a correct consumer concludes from a case;
//! - [`generate`]: generated sessions (a proptest strategy) and the session of a seed;
//! - [`faults`]: the catalogue's faults of this dialect, applied to the lines;
//! - [`cassette`]: a recording of the real CLI, replayed as a script that follows the
//!   client.

pub mod args;
pub mod cassette;
pub mod check;
pub mod dialect;
pub mod expect;
pub mod faults;
#[cfg(feature = "generate")]
pub mod generate;
pub mod play;
pub mod session;
pub mod wire;

pub use play::{Next, Options, Player};
pub use session::{default_session, Session};

use crate::error::CassetteError;
use crate::source::Source;

/// The session a source plays in this dialect: the default session, the session of a
/// seed, a recording of Claude Code as the session model tells it (see
/// [`cassette::Script::session`]; the process replays the recording itself).
pub fn session_of(source: &Source) -> Result<Session, CassetteError> {
    match source {
        Source::Cassette(path) => cassette::Script::open(path)?.session(),
        #[cfg(feature = "generate")]
        Source::Generated { seed, .. } => Ok(
            <dialect::Claude as crate::run::generator::Generator>::from_seed(*seed),
        ),
        _ => Ok(default_session("/work")),
    }
}
