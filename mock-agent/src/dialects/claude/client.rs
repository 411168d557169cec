//! The client's side of Claude Code's stand-in: its lines, read on a thread of their
//! own and handed over through a channel bounded by bytes ([`crate::execute::inbox`]),
//! and the listener of the executor's waits ([`Client`]).
//!
//! Memory stays bounded whatever the client writes: a line is at most [`MAX_LINE`]
//! bytes (a longer one ends the run, see [`Event::TooLong`]), at most
//! [`inbox::IN_FLIGHT`] bytes wait in the channel, and at most [`QUEUED`] bytes of what
//! came during a turn wait in the agent for their turn; past them the client is not
//! read until the turn has taken some, and its own pipe fills.

use std::io::BufRead;
use std::time::Duration;

use crate::execute::inbox::{self, Cost};
use crate::execute::Listen;

/// The longest line read from the client. A longer one is the mock's own error: the
/// real CLI's limit is not known, and a client waiting for an answer to a line that
/// was dropped waits for ever.
pub const MAX_LINE: usize = 64 << 20;

/// The most bytes of the client's lines (and prompts queued) that wait in the agent
/// for their turn; past them it stops reading the client until it has taken some.
pub const QUEUED: usize = 16 << 20;

/// What comes from the client.
#[derive(Debug)]
pub(super) enum Event {
    Line(Vec<u8>),
    /// A line longer than [`MAX_LINE`]: this many bytes of it were read, and nothing
    /// more is.
    TooLong(usize),
    Eof,
}

impl Cost for Event {
    /// A line costs what it holds allocated (up to twice its length, as it grew).
    fn cost(&self) -> usize {
        match self {
            Event::Line(line) => line.capacity() + inbox::OVERHEAD,
            Event::TooLong(_) | Event::Eof => inbox::OVERHEAD,
        }
    }
}

pub(super) type Inbox = inbox::Inbox<Event>;
pub(super) type Sender = inbox::Sender<Event>;

/// Reads the client's lines, at most [`MAX_LINE`] bytes each, until the end of stdin
/// or a line longer than that (then it stops reading), only as fast as the agent
/// takes them.
pub(super) fn read_client(sender: &Sender) {
    let stdin = std::io::stdin();
    let mut stdin = stdin.lock();
    let mut line = Vec::new();
    loop {
        let buffer = match stdin.fill_buf() {
            Ok([]) => break,
            Ok(buffer) => buffer,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let (take, end) = match memchr::memchr(b'\n', buffer) {
            Some(at) => (at + 1, true),
            None => (buffer.len(), false),
        };
        if line.len() + take - usize::from(end) > MAX_LINE {
            let read = line.len() + take;
            drop(line);
            let _ = sender.send(Event::TooLong(read));
            return;
        }
        line.extend_from_slice(&buffer[..take]);
        stdin.consume(take);
        if end {
            line.pop();
            if sender.send(Event::Line(std::mem::take(&mut line))).is_err() {
                return;
            }
        }
    }
    if !line.is_empty() {
        let _ = sender.send(Event::Line(line));
    }
    let _ = sender.send(Event::Eof);
}

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
