//! Rendering: from the recorded stream to what the CLI prints for the requested
//! options.
//!
//! `stream-json` is the recorded truth. Rendering never re-serializes a line it does
//! not change: a replayed stream is the recorded bytes, except where an option asks
//! for a change:
//!
//! - `--resume ID` rewrites `session_id` in every event that has one;
//! - `--stream-partial-output` given or not normalizes assistant segments the way the
//!   real CLI prints them (see [`segments`]);
//! - `--output-format json` prints the terminal `result` line alone, and nothing when
//!   the run failed; `text` prints one action line per completed tool call and the
//!   final answer (see [`text`]).
//!
//! Stderr lines and the ending pass through unchanged, in recorded order.

mod json;
mod pass;
mod resume;
pub mod segments;
pub mod text;
mod witness;

pub use json::NO_RESULT;
pub use witness::Witness;

use crate::cassette::Recording;
use crate::error::{CassetteError, Diagnostic, ProblemKind};
use crate::format::OutputFormat;
use crate::frames::Frames;

/// What the consumer asked the CLI for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderOptions {
    /// `--output-format`.
    pub format: OutputFormat,
    /// `--stream-partial-output`.
    pub stream_partial_output: bool,
    /// `--resume ID`: the session id every event carries.
    pub resume: Option<String>,
    /// The clock, in milliseconds since the Unix epoch, for the `timestamp_ms` of
    /// deltas made from a recording that carries no timestamps.
    pub now_ms: u64,
}

impl RenderOptions {
    /// Options for one output format, all else default.
    pub fn new(format: OutputFormat) -> Self {
        RenderOptions {
            format,
            ..RenderOptions::default()
        }
    }

    /// With `--stream-partial-output` given or not.
    #[must_use]
    pub fn stream_partial_output(mut self, on: bool) -> Self {
        self.stream_partial_output = on;
        self
    }

    /// With `--resume ID`.
    #[must_use]
    pub fn resume(mut self, id: Option<String>) -> Self {
        self.resume = id;
        self
    }

    /// With this clock for made-up timestamps.
    #[must_use]
    pub fn now_ms(mut self, now_ms: u64) -> Self {
        self.now_ms = now_ms;
        self
    }
}

/// Renders a recording for these options: [`events()`], then [`format()`].
pub fn render(recording: Recording, options: &RenderOptions) -> Result<Frames, CassetteError> {
    let recorded = Recorded::of(&recording, options)?;
    let frames = events(recording.frames, options, recorded);
    Ok(format(frames, options.format, recorded))
}

/// How a recording was made, as far as rendering cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    /// The output format its stdout frames hold.
    pub format: OutputFormat,
    /// Whether it was made with `--stream-partial-output`, where known.
    pub stream_partial_output: Option<bool>,
}

impl Recorded {
    /// How `recording` was made, checked against the options asked for.
    ///
    /// A recording made in `json` or `text` format holds no events to derive another
    /// format from: it replays as it is, in its own format only.
    pub fn of(recording: &Recording, options: &RenderOptions) -> Result<Recorded, CassetteError> {
        let format = recording
            .header
            .as_ref()
            .and_then(|h| h.invocation.output_format)
            .unwrap_or(OutputFormat::StreamJson);
        if format == OutputFormat::StreamJson || format == options.format {
            return Ok(Recorded {
                format,
                stream_partial_output: recording.stream_partial_output,
            });
        }
        Err(Diagnostic {
            path: recording.name.clone(),
            line: 1,
            column: 1,
            kind: ProblemKind::Unsupported,
            message: format!(
                "this cassette was recorded with `--output-format {format}`; it replays as {format} only, not as {}",
                options.format
            ),
            source_line: None,
            help: "record the session with `--output-format stream-json`: every format can be derived from it".into(),
        }
        .into())
    }
}

impl Recorded {
    /// The format the events of this recording are printed in when `asked` is: the
    /// one asked for, from a `stream-json` recording; a `json` or `text` recording's
    /// lines are printed as they stand, as `stream-json` prints events.
    pub fn prints_events_as(&self, asked: OutputFormat) -> OutputFormat {
        if self.format == OutputFormat::StreamJson {
            asked
        } else {
            OutputFormat::StreamJson
        }
    }
}

/// The first phase: the options that change the stream of events (`--resume`,
/// `--stream-partial-output`).
pub fn events(frames: Frames, options: &RenderOptions, recorded: Recorded) -> Frames {
    if recorded.format != OutputFormat::StreamJson {
        return frames;
    }
    let mut frames = frames;
    if let Some(id) = &options.resume {
        frames = Box::new(resume::Resume::new(frames, id.clone()));
    }
    if recorded.stream_partial_output == Some(options.stream_partial_output) {
        // Recorded the way it is asked for: nothing to normalize.
        return frames;
    }
    Box::new(pass::Staged::new(
        frames,
        segments::Segments::new(options.stream_partial_output, options.now_ms),
    ))
}

/// The second phase: the output format, from a stream of events.
pub fn format(frames: Frames, format: OutputFormat, recorded: Recorded) -> Frames {
    format_ending(frames, format, recorded, true)
}

/// [`format()`], saying whether a `json` run that would exit 0 without a result fails
/// ([`NO_RESULT`], exit 1, as the documentation defines a failure): not when an `exit`
/// fault decides how the run ends.
pub fn format_ending(
    frames: Frames,
    format: OutputFormat,
    recorded: Recorded,
    fails_without_result: bool,
) -> Frames {
    if recorded.format != OutputFormat::StreamJson {
        return frames;
    }
    match format {
        OutputFormat::StreamJson => frames,
        OutputFormat::Json => Box::new(pass::Staged::new(frames, json::Json::new(fails_without_result))),
        OutputFormat::Text => Box::new(pass::Staged::new(frames, text::Text::default())),
    }
}
