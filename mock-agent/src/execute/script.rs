//! The one script executor: perform a step at its due time, listening meanwhile to
//! the signals and to the client.
//!
//! A script is what the agent does, in order: each step at a time (the
//! [`harness::timing::Clock`] says when), and, in server mode, waits for the client's
//! messages. Both drivers perform their steps with [`Output::perform_at`] and wait
//! with [`Output::wait_until`]:
//!
//! - the one-way plan of print mode ([`super::perform`]) is a script with no waits:
//!   its listener is [`Silent`], and nothing but a signal interrupts it;
//! - the server of a conversation listens to the client: a message that comes while a
//!   step waits its time is handled then, and may interrupt the wait (a cancel, the
//!   end of stdin); a wait for the client is a wait until a time that never comes
//!   (`Duration::MAX`) that the client's message interrupts.

use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;

use tokio::io::AsyncWrite;
use tokio::time::Instant;

use harness::frames::{Exit, Frame};

use super::{Output, Stop, PRECISE_TAIL};

/// What a wait listens to besides the clock and the signals: the client.
pub trait Listen {
    /// What comes (a line of the client's, the end of stdin).
    type Event;
    /// Why a wait stops before its time (a cancel; what was waited for came).
    type Interrupt;

    /// What has come already, without waiting.
    fn try_recv(&mut self) -> Option<Self::Event>;

    /// The next thing to come; pending for ever when nothing more can.
    fn recv(&mut self) -> impl Future<Output = Self::Event>;

    /// Handles what came at `now` (on the live clock); `Some` when it ends the wait.
    fn handle(&mut self, event: Self::Event, now: Duration) -> Option<Self::Interrupt>;
}

/// The listener of a one-way plan: nobody talks to it.
#[derive(Debug, Default, Clone, Copy)]
pub struct Silent;

impl Listen for Silent {
    type Event = Infallible;
    type Interrupt = Infallible;

    fn try_recv(&mut self) -> Option<Infallible> {
        None
    }

    fn recv(&mut self) -> impl Future<Output = Infallible> {
        std::future::pending()
    }

    fn handle(&mut self, event: Infallible, _: Duration) -> Option<Infallible> {
        match event {}
    }
}

impl<O: AsyncWrite + Unpin, E: AsyncWrite + Unpin> Output<O, E> {
    /// Performs `frame` at `due` (on the live clock): waits until then
    /// ([`Output::wait_until`]), then writes it. `Ok(Err(_))` when the listener
    /// interrupted the wait: the frame is not performed.
    pub async fn perform_at<L: Listen>(
        &mut self,
        due: Duration,
        frame: Frame,
        listener: &mut L,
    ) -> Result<Result<Option<Exit>, L::Interrupt>, Stop> {
        let line = matches!(frame, Frame::Line(_));
        if let Some(interrupt) = self.wait_until(due, line, listener).await? {
            return Ok(Err(interrupt));
        }
        self.perform(frame).await.map(Ok)
    }

    /// Waits until `due` on the live clock (for ever when the clock cannot hold it),
    /// handing `listener` what comes meanwhile; what has come already is handed over
    /// even when nothing is to wait for. Stdout is flushed before a wait, unless the
    /// step waited for is a `line` that joins a group still filling (`coalesce`).
    /// `Some` when the listener ended the wait.
    pub async fn wait_until<L: Listen>(
        &mut self,
        due: Duration,
        line: bool,
        listener: &mut L,
    ) -> Result<Option<L::Interrupt>, Stop> {
        while let Some(event) = listener.try_recv() {
            if let Some(interrupt) = listener.handle(event, self.elapsed()) {
                return Ok(Some(interrupt));
            }
        }
        // Due at once (an untimed run): the clock need not be read.
        if due.is_zero() {
            return Ok(None);
        }
        // A time past what the clock can hold is never reached.
        let deadline = self.start.checked_add(due);
        loop {
            if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                return Ok(None);
            }
            let group_full = self.coalesce.is_none_or(|n| self.unflushed >= n);
            if group_full || !line {
                self.flush().await?;
            }
            let precise = self.precise;
            let came = self
                .signals
                .race(async {
                    match deadline {
                        Some(deadline) => tokio::select! {
                            event = listener.recv() => Some(event),
                            () = sleep_until(deadline, precise) => None,
                        },
                        None => Some(listener.recv().await),
                    }
                })
                .await?;
            let Some(event) = came else {
                return Ok(None);
            };
            if let Some(interrupt) = listener.handle(event, self.elapsed()) {
                return Ok(Some(interrupt));
            }
        }
    }
}

/// Sleeps until `due`: on the runtime's timer, then, when `precise`, the last stretch
/// with the system's sleep (it blocks the runtime for at most [`PRECISE_TAIL`]).
async fn sleep_until(due: Instant, precise: bool) {
    if !precise {
        return tokio::time::sleep_until(due).await;
    }
    if let Some(coarse) = due.checked_sub(PRECISE_TAIL) {
        if Instant::now() < coarse {
            tokio::time::sleep_until(coarse).await;
        }
    }
    let now = Instant::now();
    if now < due {
        std::thread::sleep(due - now);
    }
}
