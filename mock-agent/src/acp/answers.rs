//! Where the agent waits for the client: its answer to a request of the agent's, the
//! cancel the recording has; and the end of a cancelled turn.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncWrite;

use harness::acp::{rpc, wire, Step, CANCEL_WAIT};
use harness::frames::Exit;
use harness::journal;

use super::client::{Awaiting, Turn};
use super::{millis, strict_error, Interrupted, Live, Server};
use crate::execute::{Stop, TakeBuffer};

impl<O: TakeBuffer, E: AsyncWrite + Unpin> Server<O, E> {
    /// Waits for the client's answer to the agent's request `id`.
    pub(super) async fn await_answer(
        &mut self,
        id: &str,
        method: &str,
        recorded: Option<Value>,
        live: Option<&mut Live>,
    ) -> Result<Option<Interrupted>, Stop> {
        let asked_at = self.output.elapsed();
        if !self.client.answered.contains_key(id) {
            let interrupted = if self.client.eof {
                Some(Interrupted::Eof)
            } else {
                let mut turn = Turn {
                    client: &mut self.client,
                    live: live.as_deref(),
                    awaiting: Awaiting::Answer(id),
                };
                // No time ends this wait: only the client.
                self.output.wait_until(Duration::MAX, false, &mut turn).await?
            };
            match interrupted {
                None | Some(Interrupted::Came) => {}
                Some(Interrupted::Cancelled) => {
                    self.client.withdraw(id);
                    // The protocol's way to withdraw a request still waiting.
                    let params =
                        json!({"requestId": serde_json::from_str::<Value>(id).unwrap_or(Value::Null)});
                    // A crash placed on this message ends the process all the same.
                    if let Some(exit) = self
                        .send(rpc::notification(wire::methods::CANCEL_REQUEST, &params))
                        .await?
                    {
                        return Ok(Some(Interrupted::Ended(exit)));
                    }
                    return Ok(Some(Interrupted::Cancelled));
                }
                Some(interrupted) => return Ok(Some(interrupted)),
            }
        }
        let Some((value, at)) = self.client.answered.remove(id) else {
            return Ok(Some(Interrupted::Eof));
        };
        self.conversation.answered(id, method, &value);
        if let Some(journal) = &mut self.client.journal {
            journal.answer(&journal::Answer {
                id: id.to_owned(),
                method: method.to_owned(),
                answer: value.clone(),
                after_ms: millis(at.saturating_sub(asked_at)),
            });
        }
        if let Some(recorded) = recorded.filter(|recorded| *recorded != value) {
            let divergence =
                format!("the client answered {method} {id} with {value}; the recording answered {recorded}");
            if let Some(live) = live.filter(|live| self.strict && !live.responded) {
                live.responded = true;
                let error = strict_error(&live.id, &divergence);
                self.diverge(divergence);
                if let Some(exit) = self.send(error).await? {
                    return Ok(Some(Interrupted::Ended(exit)));
                }
                // The turn ends here: answered, nothing more to cancel.
                return Ok(Some(Interrupted::Cancelled));
            }
            self.diverge(divergence);
        }
        Ok(None)
    }

    /// Waits, for at most [`CANCEL_WAIT`], for the `session/cancel` the recording has.
    pub(super) async fn await_cancel(
        &mut self,
        method: &str,
        live: Option<&Live>,
    ) -> Result<Option<Interrupted>, Stop> {
        if self.client.eof {
            return Ok(None);
        }
        let deadline = self.output.elapsed().saturating_add(CANCEL_WAIT);
        let mut turn = Turn {
            client: &mut self.client,
            live,
            awaiting: Awaiting::Notification(method),
        };
        match self.output.wait_until(deadline, false, &mut turn).await? {
            None => {
                self.diverge(format!(
                    "the recording has the client's {method} here; none came within {} s: the recording goes on",
                    CANCEL_WAIT.as_secs()
                ));
                Ok(None)
            }
            Some(Interrupted::Came) => Ok(None),
            Some(interrupted) => Ok(Some(interrupted)),
        }
    }

    /// Ends a cancelled turn: the prompt answered `cancelled`.
    /// `recorded_later`: the recording has the client cancel this turn, later.
    pub(super) async fn cancel(
        &mut self,
        live: Option<&Live>,
        recorded_later: bool,
    ) -> Result<Option<Exit>, Stop> {
        let Some(live) = live.filter(|l| !l.responded) else {
            return Ok(None);
        };
        if self.recorded {
            let what = if recorded_later {
                "earlier than the recording did"
            } else {
                "where the recording did not"
            };
            self.diverge(format!(
                "the client cancelled {} {} {what}: answered cancelled",
                live.method, live.id
            ));
        }
        // The terminals the turn made, released (not waited for).
        for step in self.conversation.cancelled() {
            if let Ok(Step::Send { line, .. }) = step {
                let line = self.sessions.name(line);
                if let Some(exit) = self.send(line).await? {
                    return Ok(Some(exit));
                }
            }
        }
        let line = rpc::response(&live.id, &wire::stop(wire::stop_reasons::CANCELLED));
        self.send(line).await
    }
}
