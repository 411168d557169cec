//! The client's side of Claude Code's stand-in: its lines, read on a thread of their
//! own ([`crate::execute::lines`], [`Reading::STRICT`](crate::execute::lines::Reading::STRICT))
//! and handed over through a channel bounded by bytes ([`crate::execute::inbox`]),
//! and the listener of the executor's waits ([`Client`]).
//!
//! Memory stays bounded whatever the client writes: a line is at most [`MAX_LINE`]
//! bytes (a longer one ends the run, see [`Event::TooLong`]), at most
//! [`inbox::IN_FLIGHT`] bytes wait in the channel, and at most [`QUEUED`] bytes of what
//! came during a turn wait in the agent for their turn; past them the client is not
//! read until the turn has taken some, and its own pipe fills.

use std::time::Duration;

use crate::execute::inbox;
use crate::execute::Listen;

pub use crate::execute::lines::MAX_LINE;

/// The most bytes of the client's lines (and prompts queued) that wait in the agent
/// for their turn; past them it stops reading the client until it has taken some.
pub const QUEUED: usize = 16 << 20;

/// What comes from the client (a line over [`MAX_LINE`] ends the reading).
pub(super) use crate::execute::lines::Incoming as Event;

pub(super) type Inbox = inbox::Inbox<Event>;

/// A wait listens to the client: whatever comes ends it, to be handled by the agent.
/// `eof`: nothing more comes; `full`: the agent holds [`QUEUED`] bytes already, and
/// reads nothing more until it has taken some.
pub(super) struct Client<'a> {
    pub(super) inbox: &'a mut Inbox,
    pub(super) eof: bool,
    pub(super) full: bool,
}

impl Listen for Client<'_> {
    type Event = Event;
    type Interrupt = Event;

    fn try_recv(&mut self) -> Option<Event> {
        if self.eof || self.full {
            return None;
        }
        self.inbox.try_recv()
    }

    async fn recv(&mut self) -> Event {
        if self.eof || self.full {
            return std::future::pending().await;
        }
        self.inbox.recv().await.unwrap_or(Event::Eof)
    }

    fn handle(&mut self, event: Event, _: Duration) -> Option<Event> {
        Some(event)
    }
}
