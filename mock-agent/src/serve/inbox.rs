//! The channel of the client's lines, from the thread that reads stdin to the server,
//! bounded by bytes: stdin is read only as fast as the server takes what was read.
//!
//! A client that writes faster than the server handles its lines (a flood while the
//! agent writes a long turn to a client that does not read, or waits for a step byte)
//! fills its own pipe, not the mock's memory: at most [`IN_FLIGHT`] bytes wait in the
//! channel (or one line, when it is longer).

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::mpsc;

use super::client::Incoming;

/// The most bytes of the client's lines read and not yet taken by the server.
pub(super) const IN_FLIGHT: usize = 4 << 20;

/// What a message costs besides its bytes (its allocation, its place in the channel).
const OVERHEAD: usize = 64;

/// How often a sender that waits for room looks whether the server is gone.
const GONE_POLL: Duration = Duration::from_millis(100);

/// The bytes in flight.
#[derive(Default)]
struct Budget {
    used: Mutex<usize>,
    freed: Condvar,
}

/// A channel of the client's lines, bounded by [`IN_FLIGHT`] bytes.
pub(super) fn channel() -> (Sender, Inbox) {
    let (sender, receiver) = mpsc::unbounded_channel();
    let budget = Arc::new(Budget::default());
    (
        Sender {
            sender,
            budget: Arc::clone(&budget),
        },
        Inbox { receiver, budget },
    )
}

fn cost(incoming: &Incoming) -> usize {
    match incoming {
        Incoming::Line(line) => line.len() + OVERHEAD,
        Incoming::TooLong(_) | Incoming::Eof => OVERHEAD,
    }
}

/// The reading thread's end: sends block while the channel is full.
pub(super) struct Sender {
    sender: mpsc::UnboundedSender<Incoming>,
    budget: Arc<Budget>,
}

/// The server is gone: nothing more is read.
#[derive(Debug)]
pub(super) struct Gone;

impl Sender {
    /// Sends `incoming` once the channel has room for it (at once when it is empty,
    /// whatever the size); `Err` when the server is gone.
    pub(super) fn send(&self, incoming: Incoming) -> Result<(), Gone> {
        let cost = cost(&incoming);
        let mut used = self.budget.used.lock().unwrap_or_else(PoisonError::into_inner);
        while *used > 0 && used.saturating_add(cost) > IN_FLIGHT {
            if self.sender.is_closed() {
                return Err(Gone);
            }
            used = self
                .budget
                .freed
                .wait_timeout(used, GONE_POLL)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *used += cost;
        drop(used);
        self.sender.send(incoming).map_err(|_| Gone)
    }
}

/// The server's end: what it takes makes room for the reading thread.
pub(super) struct Inbox {
    receiver: mpsc::UnboundedReceiver<Incoming>,
    budget: Arc<Budget>,
}

impl Inbox {
    /// The next message; `None` once the reading thread is gone.
    pub(super) async fn recv(&mut self) -> Option<Incoming> {
        let incoming = self.receiver.recv().await;
        self.taken(incoming)
    }

    /// The next message already there, if any.
    pub(super) fn try_recv(&mut self) -> Option<Incoming> {
        let incoming = self.receiver.try_recv().ok();
        self.taken(incoming)
    }

    fn taken(&self, incoming: Option<Incoming>) -> Option<Incoming> {
        if let Some(incoming) = &incoming {
            let mut used = self.budget.used.lock().unwrap_or_else(PoisonError::into_inner);
            *used = used.saturating_sub(cost(incoming));
            self.budget.freed.notify_one();
        }
        incoming
    }
}
