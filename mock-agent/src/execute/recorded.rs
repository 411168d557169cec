//! A one-way recording (a line dialect's cassette) replayed as it stands, streamed:
//! its stdout lines read from the cassette as they are written, through the line
//! faults ([`harness::faults::lines::Injector`]), each at its recorded time. Memory
//! stays flat whatever the recording's size; what is written, and when, is what the
//! whole recording read first and handed to [`harness::faults::lines::Injector::play`]
//! gives.
//!
//! What the replay needs before its first line (the recorded stderr, how the run
//! ended, its last stdout line's time) comes from a first pass ([`Summary`], or a
//! dialect's own pass that learns more).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::BufReader;
use std::path::Path;
use std::rc::Rc;
use std::time::Duration;

use harness::cassette::{Reader, PREFLIGHT_LIMIT};
use harness::error::CassetteError;
use harness::faults::lines::{Injector, Out, Stream as Lines};
use harness::frames::{Ending, Exit, Frame, FrameResult, Line, Stream};

/// A reader of the cassette at `path`: a file of up to [`PREFLIGHT_LIMIT`] bytes
/// checked in full, a larger one read as every replay reads it (its events not
/// parsed).
pub fn open(path: &Path) -> Result<Reader<BufReader<std::fs::File>>, CassetteError> {
    let reader = harness::cassette::open(path)?;
    let large = std::fs::metadata(path).is_ok_and(|m| m.len() > PREFLIGHT_LIMIT);
    Ok(if large { reader.fast() } else { reader })
}

/// What a replay needs before its lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The recorded stderr lines (written first, as the real CLIs' come before their
    /// lines).
    pub stderr: Vec<Vec<u8>>,
    /// How the recording ended (exit 0 when it does not say).
    pub exit: Option<Exit>,
    /// The time of its last stdout line.
    pub last_at: Option<Duration>,
}

impl Summary {
    /// The summary of the recording at `path`, in one pass; `line` sees each stdout
    /// line (a dialect learns what else it needs there).
    pub fn read(path: &Path, mut line: impl FnMut(&[u8])) -> Result<Summary, CassetteError> {
        let mut summary = Summary::default();
        for frame in open(path)? {
            match frame? {
                Frame::Line(l) if l.stream == Stream::Stdout => {
                    summary.last_at = Some(l.at);
                    line(&l.bytes);
                }
                Frame::Line(l) if l.stream == Stream::Stderr => summary.stderr.push(l.bytes),
                Frame::End(end) => summary.exit = Some(end.exit),
                _ => {}
            }
        }
        Ok(summary)
    }
}

/// The frames the replay performs: the recorded stderr, then the recorded stdout
/// lines through the faults, each at its time, then the recorded ending (or the
/// faults'). The nth line written is at the time of the nth recorded stdout line (a
/// later one when a fault wrote more lines than it read: it is read ahead), past the
/// last one `n` paces; what comes between lines, at the time of the line before.
pub struct Replay<S: Lines> {
    frames: Reader<BufReader<std::fs::File>>,
    /// The faults, shared with the run (which reports what they did).
    injector: Rc<RefCell<Injector<S>>>,
    /// No fault at all: each line is written as it was read.
    plain: bool,
    /// Frames to give, in order.
    out: VecDeque<FrameResult>,
    /// Frames read ahead for their time, not yet played.
    ahead: VecDeque<Frame>,
    /// Times of recorded stdout lines read and not yet given to a line.
    times: VecDeque<Duration>,
    /// The recording's last stdout line's time.
    last_at: Duration,
    /// How far apart lines past the recording's last are.
    pace: Duration,
    exit: Exit,
    /// Lines written.
    lines: usize,
    at: Duration,
    done: bool,
}

impl<S: Lines> Replay<S> {
    /// The replay of the recording at `path` (summed up as `summary`) with
    /// `injector`'s faults; lines past the recording's last are `pace` apart.
    pub fn new(
        path: &Path,
        summary: &Summary,
        pace: Duration,
        injector: Rc<RefCell<Injector<S>>>,
    ) -> Result<Self, CassetteError> {
        let out = summary
            .stderr
            .iter()
            .map(|line| Ok(Frame::Line(Line::stderr(Duration::ZERO, line.clone()))))
            .collect();
        let plain = injector.borrow().faults().is_empty();
        Ok(Replay {
            // Checked by the summary's pass: read without parsing the events.
            frames: harness::cassette::open(path)?.fast(),
            injector,
            plain,
            out,
            ahead: VecDeque::new(),
            times: VecDeque::new(),
            last_at: summary.last_at.unwrap_or_default(),
            pace,
            exit: summary.exit.unwrap_or(Exit::Code(0)),
            lines: 0,
            at: Duration::ZERO,
            done: false,
        })
    }

    /// The next recorded frame: read ahead, or from the cassette (its stdout line's
    /// time noted then).
    fn read(&mut self) -> Option<Result<Frame, CassetteError>> {
        if let Some(frame) = self.ahead.pop_front() {
            return Some(Ok(frame));
        }
        let frame = self.frames.next()?;
        if let Ok(Frame::Line(line)) = &frame {
            if line.stream == Stream::Stdout {
                self.times.push_back(line.at);
            }
        }
        Some(frame)
    }

    /// The time of the next line written.
    fn next_time(&mut self) -> Duration {
        while self.times.is_empty() {
            match self.frames.next() {
                Some(Ok(frame)) => {
                    if let Frame::Line(line) = &frame {
                        if line.stream == Stream::Stdout {
                            self.times.push_back(line.at);
                        }
                    }
                    self.ahead.push_back(frame);
                }
                // An error is met again when the frame is played.
                _ => break,
            }
        }
        let n = u32::try_from(self.lines).unwrap_or(u32::MAX);
        self.lines += 1;
        self.times
            .pop_front()
            .unwrap_or_else(|| self.last_at.max(self.pace.saturating_mul(n)))
    }

    /// A line as it is written: at its time, the frame it was read in reused.
    fn written(&mut self, mut line: Line, newline: bool) -> Frame {
        self.at = self.next_time().max(self.at);
        line.at = self.at;
        line.newline = newline;
        Frame::Line(line)
    }

    /// What the faults make of `outs`, queued as frames; `true` once the run ends.
    fn queue(&mut self, outs: Vec<Out>) -> bool {
        for out in outs {
            let frame = match out {
                Out::Line(bytes) => self.written(Line::stdout(Duration::ZERO, bytes), true),
                Out::Cut(bytes) => self.written(Line::stdout(Duration::ZERO, bytes), false),
                Out::Stderr(bytes) => Frame::Line(Line::stderr(self.at, bytes)),
                Out::Stall(duration) => Frame::Stall {
                    at: self.at,
                    duration,
                },
                Out::End(exit) => {
                    self.out.push_back(Ok(Frame::End(Ending { at: self.at, exit })));
                    return true;
                }
            };
            self.out.push_back(Ok(frame));
        }
        false
    }
}

impl<S: Lines> Iterator for Replay<S> {
    type Item = FrameResult;

    fn next(&mut self) -> Option<FrameResult> {
        loop {
            if let Some(frame) = self.out.pop_front() {
                return Some(frame);
            }
            if self.done {
                return None;
            }
            match self.read() {
                Some(Ok(Frame::Line(line))) if line.stream == Stream::Stdout => {
                    if self.plain {
                        // Without a fault a line is written as it was read (what
                        // `Injector::line` gives then), without a queue.
                        return Some(Ok(self.written(line, true)));
                    }
                    let outs = self.injector.borrow_mut().line(line.bytes);
                    self.done = self.queue(outs);
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    self.done = true;
                    return Some(Err(e));
                }
                None => {
                    let outs = self.injector.borrow_mut().end();
                    self.done = true;
                    if !self.queue(outs) {
                        self.out.push_back(Ok(Frame::End(Ending {
                            at: self.at,
                            exit: self.exit,
                        })));
                    }
                }
            }
        }
    }
}
