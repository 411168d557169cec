//! The client's side of the server: its lines read on a thread of their own, and
//! what the server makes of them while a turn plays (the listener of the executor's
//! waits, [`Turn`]).

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncWrite;

use harness::acp::methods;
use harness::acp::rpc::{Kind, Message};
use harness::journal;

use super::{answer_value, millis, Interrupted, Live, Server};
use crate::execute::inbox;
use crate::execute::{Listen, Stop, TakeBuffer};

/// The most bytes of requests a turn keeps for after it (more when one request is
/// longer): past them it stops reading the client until the turn is over.
const QUEUED: usize = 16 << 20;

/// A line of the client's, or its end (a line over [`MAX_LINE`](super::MAX_LINE) is dropped, and the
/// reading goes on: [`crate::execute::lines::Reading::LENIENT`]).
pub(super) use crate::execute::lines::Incoming;

type Inbox = inbox::Inbox<Incoming>;

/// What the server knows of the client: what it sent that waits its turn, its
/// answers, whether stdin has ended, and the journal of the conversation.
pub(super) struct Client {
    pub(super) inbox: Inbox,
    /// Client requests (and cancels of another prompt) read while a turn played,
    /// handled after it, in order.
    queue: VecDeque<Vec<u8>>,
    /// The bytes in the queue: past [`QUEUED`], the turn stops reading the client.
    queued: usize,
    /// The client's answers to the agent's requests, by id, with when they came.
    pub(super) answered: HashMap<String, (Value, Duration)>,
    /// The ids of the agent's requests written and not answered yet: only an answer
    /// to one of them is kept ([`Client::answer`]).
    asked: HashSet<String>,
    /// Those the agent withdrew (`$/cancel_request`): their late answers are dropped
    /// without a word.
    withdrawn: HashSet<String>,
    pub(super) eof: bool,
    /// The conversation's journal, on disk as it passes.
    pub(super) journal: Option<journal::Spooled>,
}

impl Client {
    pub(super) fn new(inbox: Inbox, journal: Option<&std::path::Path>) -> Self {
        Client {
            inbox,
            queue: VecDeque::new(),
            queued: 0,
            answered: HashMap::new(),
            asked: HashSet::new(),
            withdrawn: HashSet::new(),
            eof: false,
            journal: journal.map(journal::Spooled::new),
        }
    }

    /// The next thing the client sends; pending for ever once stdin has ended.
    async fn recv(&mut self) -> Incoming {
        if self.eof {
            return std::future::pending().await;
        }
        self.inbox.recv().await.unwrap_or(Incoming::Eof)
    }

    /// Keeps `line` for after the turn.
    fn enqueue(&mut self, line: Vec<u8>) {
        self.queued += line.len();
        self.queue.push_back(line);
    }

    /// The line kept first, taken out.
    fn dequeue(&mut self) -> Option<Vec<u8>> {
        let line = self.queue.pop_front()?;
        self.queued -= line.len();
        Some(line)
    }

    /// Whether the queue holds [`QUEUED`] bytes: a turn reads no more of the client
    /// until it is over, so that a client that floods requests fills its own pipe.
    fn queue_full(&self) -> bool {
        self.queued >= QUEUED
    }

    /// Notes the agent's request on `line`, when it is one (a line the agent writes):
    /// the client's answer to it will be taken.
    pub(super) fn asking(&mut self, line: &[u8]) {
        // A request has a top-level "id"; most agent messages have no "id" at all.
        if memchr::memmem::find(line, br#""id""#).is_none() {
            return;
        }
        if let Some(message) = Message::parse(line).filter(|m| m.kind == Kind::Request) {
            self.asked.insert(message.id_text().to_owned());
        }
    }

    /// The agent withdrew its request `id`: an answer that comes still is dropped.
    pub(super) fn withdraw(&mut self, id: &str) {
        if self.asked.remove(id) {
            self.withdrawn.insert(id.to_owned());
        }
    }

    /// Takes the client's answer that came at `now`: kept for the request of the
    /// agent's it answers; dropped (and journaled as a divergence) when the agent never
    /// asked that id or has had its answer, so that it is never taken for the answer to
    /// a later request, nor kept.
    pub(super) fn answer(&mut self, message: &Message<'_>, now: Duration) {
        let id = message.id_text();
        if self.asked.remove(id) {
            self.answered.insert(id.to_owned(), (answer_value(message), now));
        } else if !self.withdrawn.remove(id) && self.journal.is_some() {
            let id = if id.is_empty() { "null" } else { id };
            self.diverge(&format!(
                "the client answered id {id}, which the agent has not asked (or has had its answer): dropped"
            ));
        }
    }

    /// Journals a divergence.
    pub(super) fn diverge(&mut self, divergence: &str) {
        if let Some(journal) = &mut self.journal {
            journal.divergence(divergence);
        }
    }

    /// Journals a line that went `dir` (`in`, `out`, `err`) at `now`.
    pub(super) fn note(&mut self, dir: &str, line: &[u8], now: Duration) {
        if let Some(journal) = &mut self.journal {
            journal.message(dir, millis(now), line);
        }
    }

    /// Journals a line over [`MAX_LINE`](super::MAX_LINE), dropped.
    pub(super) fn note_too_long(&mut self, bytes: usize, now: Duration) {
        let what = format!("[a line of {bytes} bytes, over the limit: dropped]");
        self.note("in", what.as_bytes(), now);
    }

    /// A client message that came at `now`, while the turn answering `live` played.
    fn during_turn(&mut self, incoming: Incoming, live: Option<&Live>, now: Duration) -> Option<Interrupted> {
        let line = match incoming {
            // The turn goes on; what waits for the client ends at the end of stdin.
            Incoming::Eof => {
                self.eof = true;
                return None;
            }
            Incoming::TooLong(bytes) => {
                self.note_too_long(bytes, now);
                return None;
            }
            Incoming::Line(line) => line,
        };
        self.note("in", &line, now);
        let message = Message::parse(&line)?;
        match message.kind {
            Kind::Response => {
                self.answer(&message, now);
                None
            }
            Kind::Notification if message.method() == methods::SESSION_CANCEL => {
                let turn = live.filter(|l| l.method == methods::SESSION_PROMPT && !l.responded);
                let same_session =
                    turn.is_some_and(|l| l.session.is_none() || l.session == message.param_str("sessionId"));
                if !same_session {
                    // It may be for a prompt still waiting its turn.
                    self.enqueue(line);
                }
                same_session.then_some(Interrupted::Cancelled)
            }
            // Ignored, as between turns (journaled above).
            Kind::Notification => None,
            Kind::Request => {
                self.enqueue(line);
                None
            }
        }
    }

    /// Whether the client cancelled the prompt `live` while it waited in the queue (a
    /// `session/cancel` of its session queued after it); takes the cancel out.
    pub(super) fn cancelled_in_queue(&mut self, live: &Live) -> bool {
        if live.method != methods::SESSION_PROMPT {
            return false;
        }
        let cancel = self.queue.iter().position(|line| {
            Message::parse(line).is_some_and(|m| {
                m.kind == Kind::Notification
                    && m.method() == methods::SESSION_CANCEL
                    && (live.session.is_none() || live.session == m.param_str("sessionId"))
            })
        });
        let Some(line) = cancel.and_then(|i| self.queue.remove(i)) else {
            return false;
        };
        self.queued -= line.len();
        true
    }
}

/// What a wait of a turn's waits for, besides its time.
#[derive(Clone, Copy)]
pub(super) enum Awaiting<'a> {
    /// Nothing: only the time.
    Time,
    /// The client's answer to the agent's request with this id.
    Answer(&'a str),
    /// The client's notification of this method.
    Notification(&'a str),
}

/// The listener of the waits of a turn: the client, while the turn that answers `live`
/// plays. A cancel of the turn interrupts it; answers are kept; anything else waits
/// its turn. What it awaits, when it comes, ends the wait ([`Interrupted::Came`]).
pub(super) struct Turn<'a> {
    pub(super) client: &'a mut Client,
    pub(super) live: Option<&'a Live>,
    pub(super) awaiting: Awaiting<'a>,
}

impl Listen for Turn<'_> {
    type Event = Incoming;
    type Interrupt = Interrupted;

    fn try_recv(&mut self) -> Option<Incoming> {
        if self.client.queue_full() {
            return None;
        }
        self.client.inbox.try_recv()
    }

    async fn recv(&mut self) -> Incoming {
        if self.client.queue_full() {
            return std::future::pending().await;
        }
        self.client.recv().await
    }

    fn handle(&mut self, incoming: Incoming, now: Duration) -> Option<Interrupted> {
        match (self.awaiting, &incoming) {
            // The recording goes on without the notification.
            (Awaiting::Notification(_), Incoming::Eof) => {
                self.client.eof = true;
                return Some(Interrupted::Came);
            }
            (Awaiting::Notification(method), Incoming::Line(line))
                if Message::parse(line)
                    .is_some_and(|m| m.kind == Kind::Notification && m.method() == method) =>
            {
                self.client.note("in", line, now);
                return Some(Interrupted::Came);
            }
            (Awaiting::Answer(_), Incoming::Eof) => {
                self.client.eof = true;
                return Some(Interrupted::Eof);
            }
            // The end of stdin ends a delay: the agent finishes at once.
            (Awaiting::Time, Incoming::Eof) => {
                self.client.eof = true;
                return Some(Interrupted::Came);
            }
            _ => {}
        }
        let interrupted = self.client.during_turn(incoming, self.live, now);
        match self.awaiting {
            Awaiting::Answer(id) if interrupted.is_none() && self.client.answered.contains_key(id) => {
                Some(Interrupted::Came)
            }
            _ => interrupted,
        }
    }
}

impl<O: TakeBuffer, E: AsyncWrite + Unpin> Server<O, E> {
    /// The next client message to handle: a queued one, else the next to come;
    /// `None` once stdin has ended.
    pub(super) async fn next(&mut self) -> Result<Option<Vec<u8>>, Stop> {
        if let Some(line) = self.client.dequeue() {
            return Ok(Some(line));
        }
        while !self.client.eof {
            self.output.flush().await?;
            let incoming = self.output.race(self.client.recv()).await?;
            let now = self.output.elapsed();
            match incoming {
                Incoming::Line(line) => {
                    self.client.note("in", &line, now);
                    return Ok(Some(line));
                }
                Incoming::TooLong(bytes) => self.client.note_too_long(bytes, now),
                Incoming::Eof => self.client.eof = true,
            }
        }
        Ok(None)
    }
}
