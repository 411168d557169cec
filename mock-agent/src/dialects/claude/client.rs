//! The client's side of Claude Code's stand-in: its lines, read on a thread of their
//! own ([`crate::execute::lines`], [`Reading::STRICT`](crate::execute::lines::Reading::STRICT))
//! and handed over through a channel bounded by bytes ([`crate::execute::inbox`]),
//! and the listener of the executor's waits ([`Client`], the machinery's).
//!
//! Memory stays bounded whatever the client writes: a line is at most [`MAX_LINE`]
//! bytes (a longer one ends the run, see [`Event::TooLong`]), at most
//! [`inbox::IN_FLIGHT`] bytes wait in the channel, and at most [`QUEUED`] bytes of what
//! came during a turn wait in the agent for their turn; past them the client is not
//! read until the turn has taken some, and its own pipe fills.

use crate::execute::inbox;

pub use crate::execute::lines::MAX_LINE;

/// The most bytes of the client's lines (and prompts queued) that wait in the agent
/// for their turn; past them it stops reading the client until it has taken some.
pub const QUEUED: usize = 16 << 20;

/// What comes from the client (a line over [`MAX_LINE`] ends the reading).
pub(super) use crate::execute::lines::Incoming as Event;

pub(super) type Inbox = inbox::Inbox<Event>;

/// A wait listens to the client: whatever comes ends it, to be handled by the agent
/// (`full`: the agent holds [`QUEUED`] bytes already).
pub(super) use crate::execute::conversation::Client;
