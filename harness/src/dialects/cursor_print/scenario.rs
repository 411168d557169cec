//! A scenario: everything that decides a run besides its source (the output format
//! and CLI options, the faults, the timing, the seed), and the plan it makes of a
//! recording:
//!
//! ```text
//! recording ─> render::events ─> faults on events ─> render::format ─> faults on output ─> timing ─> executor
//! ```

use std::path::PathBuf;

use crate::cassette::Recording;
use crate::dialects::cursor_print::faults::Fault;
use crate::dialects::cursor_print::faults::{self, Applied};
use crate::dialects::cursor_print::render::{self, RenderOptions};
use crate::error::CassetteError;
use crate::format::OutputFormat;
use crate::frames::{Delivery, Frames};
use crate::timing::Timing;

/// How many lines `coalesce` puts in one write.
pub const COALESCE_LINES: usize = 16;

/// Everything that decides a run besides its source.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Scenario {
    /// The CLI options that change the output.
    pub render: RenderOptions,
    /// The faults, in order.
    pub faults: Vec<Fault>,
    /// When frames are written.
    pub timing: Timing,
    /// The seed of every random choice.
    pub seed: u64,
    /// Step mode's file.
    pub step: Option<PathBuf>,
}

/// A recording made ready to perform.
pub struct Plan {
    /// The frames to perform.
    pub frames: Frames,
    /// The faults, and which of them acted (once the frames are consumed).
    pub applied: Applied,
    /// How to write them.
    pub delivery: Delivery,
}

impl Scenario {
    /// A scenario with these render options and nothing else.
    pub fn new(render: RenderOptions) -> Self {
        Scenario {
            render,
            ..Scenario::default()
        }
    }

    /// Plans a run of `recording`.
    pub fn plan(&self, recording: Recording) -> Result<Plan, CassetteError> {
        let recorded = render::Recorded::of(&recording, &self.render)?;
        let printed_as = recorded.prints_events_as(self.render.format);
        let applied = Applied::new(self.faults.clone(), self.render.now_ms).printed_as(printed_as);
        let frames = render::events(recording.frames, &self.render, recorded);
        // Without a fault, the stages of the faults on events only watch the stream
        // (whether a result is lost, parsing every stdout line to know): printed as
        // `stream-json`, the stream they watch is the one written, so they change
        // nothing, and the plain replay does not pay for them.
        let watched = !self.faults.is_empty() || printed_as != OutputFormat::StreamJson;
        let frames = if watched {
            faults::apply_events(frames, &applied)
        } else {
            frames
        };
        // An `exit` fault decides how the run ends, in every format.
        let exit_decides = self.faults.iter().any(|f| matches!(f, Fault::Exit { .. }));
        let frames = render::format_ending(frames, self.render.format, recorded, !exit_decides);
        let frames = faults::apply_output(frames, &applied);
        // The default timing needs no schedule: an untimed executor never waits.
        let timed = self.timing != Timing::default();
        let frames = if timed {
            self.timing.apply(frames, self.seed)
        } else {
            frames
        };
        let mut delivery = Delivery {
            timed,
            seed: self.seed,
            step: self.step.clone(),
            ..Delivery::default()
        };
        for fault in &self.faults {
            match fault {
                Fault::Chunk(chunking) => delivery.chunking = Some(*chunking),
                Fault::Coalesce => delivery.coalesce = Some(COALESCE_LINES),
                _ => {}
            }
        }
        // A run that can wait must end at once on SIGTERM or SIGINT.
        delivery.signals = delivery.timed
            || delivery.step.is_some()
            || self.faults.iter().any(|f| {
                matches!(
                    f,
                    Fault::Stall { .. } | Fault::CloseStdout { .. } | Fault::StderrFlood { .. }
                )
            });
        Ok(Plan {
            frames,
            applied,
            delivery,
        })
    }
}
