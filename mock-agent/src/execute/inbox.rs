//! The channel of the client's lines, from the thread that reads stdin to the agent
//! (the ACP server, Claude Code's stand-in), bounded by bytes: stdin is read only as
//! fast as the agent takes what was read.
//!
//! A client that writes faster than the agent handles its lines (a flood while the
//! agent writes a long turn to a client that does not read, or waits for a step byte
//! or a timing delay) fills its own pipe, not the mock's memory: at most
//! [`IN_FLIGHT`] bytes wait in the channel (or one line, when it is longer).

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::mpsc;

/// The most bytes of the client's lines read and not yet taken by the agent.
pub const IN_FLIGHT: usize = 4 << 20;

/// What a message costs besides its bytes (its allocation, its place in the channel).
pub const OVERHEAD: usize = 64;

/// A message of the channel, and the bytes it holds.
pub trait Cost {
    /// The bytes it holds (a line's length; [`OVERHEAD`] for one that holds none).
    fn cost(&self) -> usize;
}

/// How often a sender that waits for room looks whether the server is gone.
const GONE_POLL: Duration = Duration::from_millis(100);

/// The bytes in flight.
#[derive(Default)]
struct Budget {
    used: Mutex<usize>,
    freed: Condvar,
}

/// A channel of the client's lines, bounded by [`IN_FLIGHT`] bytes.
pub fn channel<T: Cost>() -> (Sender<T>, Inbox<T>) {
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

/// The reading thread's end: sends block while the channel is full.
pub struct Sender<T> {
    sender: mpsc::UnboundedSender<T>,
    budget: Arc<Budget>,
}

/// The agent is gone: nothing more is read.
#[derive(Debug)]
pub struct Gone;

impl<T: Cost> Sender<T> {
    /// Sends `incoming` once the channel has room for it (at once when it is empty,
    /// whatever the size); `Err` when the agent is gone.
    pub fn send(&self, incoming: T) -> Result<(), Gone> {
        let cost = incoming.cost();
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

/// The agent's end: what it takes makes room for the reading thread.
pub struct Inbox<T> {
    receiver: mpsc::UnboundedReceiver<T>,
    budget: Arc<Budget>,
}

impl<T: Cost> Inbox<T> {
    /// The next message; `None` once the reading thread is gone.
    pub async fn recv(&mut self) -> Option<T> {
        let incoming = self.receiver.recv().await;
        self.taken(incoming)
    }

    /// The next message already there, if any.
    pub fn try_recv(&mut self) -> Option<T> {
        let incoming = self.receiver.try_recv().ok();
        self.taken(incoming)
    }

    fn taken(&self, incoming: Option<T>) -> Option<T> {
        if let Some(incoming) = &incoming {
            let mut used = self.budget.used.lock().unwrap_or_else(PoisonError::into_inner);
            *used = used.saturating_sub(incoming.cost());
            self.budget.freed.notify_one();
        }
        incoming
    }
}
