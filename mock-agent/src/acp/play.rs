//! The steps of a reply, each at the time the clock says, and the agent's messages
//! with the faults placed on them.

use std::time::Duration;

use tokio::io::AsyncWrite;

use harness::acp::faults::Out;
use harness::acp::rpc::{self, Kind, Message};
use harness::acp::{methods, Step, Steps, Wait};
use harness::frames::{Exit, Frame, Line};

use super::client::{Awaiting, Turn};
use super::{Interrupted, Live, Server, RUN_BYTES};
use crate::execute::{ExecError, Stop, TakeBuffer};

impl<O: TakeBuffer, E: AsyncWrite + Unpin> Server<O, E> {
    /// Performs the steps of one reply, as they are made (a recording's are read from
    /// its cassette one at a time); `Some(exit)` when the process is to end. A
    /// cassette that cannot be read on is the mock's error.
    ///
    /// The reply's times count from now (the request came), and from the end of each
    /// wait for the client ([`harness::timing::Clock::rebase`]).
    pub(super) async fn play(&mut self, steps: Steps, mut live: Option<Live>) -> Result<Option<Exit>, Stop> {
        self.clock.rebase(self.output.elapsed(), Duration::ZERO);
        let mut steps = steps;
        while let Some(step) = steps.next() {
            let step = step.map_err(ExecError::Cassette)?;
            let outcome = match step {
                Step::Send { at, line } => {
                    let line = self.sessions.name(line);
                    let due = self.clock.due(at, true);
                    match self.wait(due, true, live.as_ref()).await? {
                        Some(interrupted) => Err(interrupted),
                        None => {
                            let response = live.as_ref().is_some_and(|live| {
                                !live.responded
                                    && !rpc::surely_not_response(&line)
                                    && Message::parse(&line)
                                        .is_some_and(|m| m.kind == Kind::Response && m.id_text() == live.id)
                            });
                            if let Some(live) = live.as_mut().filter(|_| response) {
                                live.responded = true;
                                if let Some(delay) = self.injector.late(&live.method) {
                                    // Nothing but the time (or the end of stdin) ends it.
                                    let due = self.output.elapsed().saturating_add(delay);
                                    self.wait(due, true, None).await?;
                                }
                            }
                            if !response && self.plain {
                                // Once the request is answered, no message of the
                                // turn is its response.
                                let answered = live.as_ref().is_none_or(|live| live.responded);
                                self.send_run(line, &mut steps, answered).await?;
                            } else if let Some(exit) = self.send(line).await? {
                                return Ok(Some(exit));
                            }
                            Ok(())
                        }
                    }
                }
                Step::Stderr { at, line } => {
                    let due = self.clock.due(at, false);
                    match self.wait(due, false, live.as_ref()).await? {
                        Some(interrupted) => Err(interrupted),
                        None => {
                            self.note("err", &line);
                            self.output
                                .perform(Frame::Line(Line::stderr(Duration::ZERO, line)))
                                .await?;
                            Ok(())
                        }
                    }
                }
                Step::Await { at, wait } => {
                    if matches!(wait, Wait::Answer { .. }) {
                        if let Some(crash) = self.injector.asking() {
                            self.write(crash.out).await?;
                            return Ok(crash.end);
                        }
                    }
                    let waited = match wait {
                        Wait::Answer { id, method, recorded } => {
                            self.await_answer(&id, &method, recorded, live.as_mut()).await?
                        }
                        Wait::Notification { method } => self.await_cancel(&method, live.as_ref()).await?,
                    };
                    self.clock.rebase(self.output.elapsed(), at);
                    waited.map_or(Ok(()), Err)
                }
                Step::End { at, exit } => {
                    let due = self.clock.due(at, false);
                    if let Some(interrupted) = self.wait(due, false, live.as_ref()).await? {
                        Err(interrupted)
                    } else {
                        return Ok(Some(exit));
                    }
                }
            };
            match outcome {
                Ok(()) | Err(Interrupted::Came) => {}
                Err(Interrupted::Eof) => return Ok(Some(self.conversation.ending())),
                Err(Interrupted::Ended(exit)) => return Ok(Some(exit)),
                Err(Interrupted::Cancelled) => {
                    // Only a recording's rest is looked at: a told turn's steps are
                    // made as they are taken (what it made, its terminals, it tells
                    // on cancel).
                    let recorded_later = self.recorded
                        && steps.any(|s| {
                        matches!(s, Ok(Step::Await { wait: Wait::Notification { ref method }, .. }) if method == methods::SESSION_CANCEL)
                    });
                    return self.cancel(live.as_ref(), recorded_later).await;
                }
            }
        }
        Ok(None)
    }

    /// Waits until `due` (a `message` of the agent's is due then), listening to the
    /// client: a cancel of the turn that answers `live` interrupts it; answers are
    /// kept; anything else waits its turn. Once stdin has ended, nothing is waited
    /// for: the agent finishes at once.
    async fn wait(
        &mut self,
        due: Duration,
        message: bool,
        live: Option<&Live>,
    ) -> Result<Option<Interrupted>, Stop> {
        let due = if self.client.eof { Duration::ZERO } else { due };
        let mut turn = Turn {
            client: &mut self.client,
            live,
            awaiting: Awaiting::Time,
        };
        match self.output.wait_until(due, message, &mut turn).await? {
            // The end of stdin came: the wait is over.
            Some(Interrupted::Came) => Ok(None),
            interrupted => Ok(interrupted),
        }
    }

    /// Sends `line` and the agent messages that follow it at once, written together
    /// (up to [`RUN_BYTES`]): in a plain run (see [`Server::plain`]) a long turn's
    /// updates. A response, or any other step, ends the run: it is played as usual.
    /// Messages sent as recorded, unjournaled, come in one piece from the recording
    /// ([`Steps::run`]), not a step each. With `answered` (the request is answered, or
    /// there is none), responses are in the run too.
    async fn send_run(&mut self, line: Vec<u8>, steps: &mut Steps, answered: bool) -> Result<(), Stop> {
        self.note("out", &line);
        self.client.asking(&line);
        let mut run = std::mem::take(&mut self.run);
        run.clear();
        run.reserve(RUN_BYTES + line.len().max(1 << 10));
        run.extend_from_slice(&line);
        run.push(b'\n');
        let whole = self.client.journal.is_none() && self.sessions.as_recorded();
        while run.len() < RUN_BYTES {
            if whole
                && steps
                    .run(&mut run, RUN_BYTES, answered)
                    .map_err(ExecError::Cassette)?
                    > 0
            {
                continue;
            }
            let next = steps.next_if(
                |step| matches!(step, Ok(Step::Send { line, .. }) if answered || rpc::surely_not_response(line)),
            );
            let Some(Ok(Step::Send { line, .. })) = next else {
                break;
            };
            let line = self.sessions.name(line);
            self.note("out", &line);
            self.client.asking(&line);
            run.extend_from_slice(&line);
            run.push(b'\n');
        }
        // Handed to the writer whole (not copied); it gives back a buffer to fill next.
        let performed = self.output.perform_buffer(&mut run).await;
        self.run = run;
        performed
    }

    /// Sends one agent message (taken, not copied: a long turn writes many), with
    /// the faults placed on it; `Some(exit)` when a fault ends the process there.
    pub(super) async fn send(&mut self, line: Vec<u8>) -> Result<Option<Exit>, Stop> {
        let sent = self.injector.message(line);
        self.write(sent.out).await?;
        Ok(sent.end)
    }

    /// Writes what the faults and the conversation say, as it is.
    pub(super) async fn write(&mut self, out: Vec<Out>) -> Result<(), Stop> {
        for out in out {
            let line = match out {
                Out::Stderr(bytes) => {
                    self.note("err", &bytes);
                    Line::stderr(Duration::ZERO, bytes)
                }
                Out::Line { bytes, newline } => {
                    self.note("out", &bytes);
                    self.client.asking(&bytes);
                    let mut line = Line::stdout(Duration::ZERO, bytes);
                    line.newline = newline;
                    line
                }
            };
            self.output.perform(Frame::Line(line)).await?;
        }
        Ok(())
    }
}
