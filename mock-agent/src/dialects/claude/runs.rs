//! A recording's run of lines written at once: what [`Agent::step`] writes of them one
//! at a time, read into a buffer that is handed to the writing thread as it is (no
//! copy of it), while the next run is read into another.

use tokio::io::AsyncWrite;

use harness::journal;

use super::{Agent, OutputFormat};
use crate::execute::{Handoff, Stop};

/// The most bytes of a run read before it is written: as much as the stdout pipe
/// holds once grown ([`crate::execute::planned::COPY_PIPE`]), so a run is one write
/// that a reading consumer takes whole.
pub(super) const RUN: usize = 1 << 20;

impl<E: AsyncWrite + Unpin> Agent<Handoff, E> {
    /// A run of the recording's lines written as one slice, when nothing asks for a
    /// line on its own: no line waits ([`Agent::untimed`]), no fault, `stream-json`.
    /// What [`Agent::step`] writes of them one at a time (the lines it sends as they
    /// are: see [`super::replay::Teller::stream_run`]), without a `Vec` or a wait each;
    /// a journal notes each line of the run once it is written, as a step notes its
    /// line. `false` when the turn's next step is no such line.
    pub(super) async fn stream_run(&mut self) -> Result<bool, Stop> {
        let at_once =
            self.untimed && self.format == OutputFormat::StreamJson && self.injector.faults().is_empty();
        if !at_once {
            return Ok(false);
        }
        let mut run = std::mem::take(&mut self.run);
        run.clear();
        if self.player.stream_run(&mut run, RUN) == 0 {
            self.run = run;
            return Ok(false);
        }
        let error = self.player.take_error();
        if error.is_some() {
            // One at a time, the line before the frame that failed is not written
            // (the failure is met reading ahead of it): nor is it here.
            let kept = memchr::memrchr(b'\n', &run[..run.len() - 1]).map_or(0, |end| end + 1);
            run.truncate(kept);
        }
        if !run.is_empty() {
            // A copy only when the journal keeps it, as for a line alone.
            let noted = self.journal.is_some().then(|| run.clone());
            let due = self.clock.due(self.player.at(), true);
            self.wait_due(due, true).await?;
            self.run = self.output.perform_run(run).await?;
            for line in noted.iter().flat_map(|run| run.split_inclusive(|b| *b == b'\n')) {
                self.note(journal::OUT, line.strip_suffix(b"\n").unwrap_or(line));
            }
        } else {
            self.run = run;
        }
        match error {
            Some(e) => Err(Stop::Error(e.into())),
            None => Ok(true),
        }
    }
}
