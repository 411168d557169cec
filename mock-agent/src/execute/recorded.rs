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

use harness::cassette::{Position, Reader, COPY_BLOCK, PREFLIGHT_LIMIT};
use harness::error::CassetteError;
use harness::faults::lines::{Injector, Out, Stream as Lines};
use harness::frames::{Ending, Exit, Frame, FrameResult, Line, Stream};

use crate::settings::Settings;

/// A reader of the cassette at `path`: a file of up to [`PREFLIGHT_LIMIT`] bytes
/// checked in full, a larger one read as every replay reads it (its events not
/// parsed).
pub fn open(path: &Path) -> Result<Reader<BufReader<std::fs::File>>, CassetteError> {
    let reader = harness::cassette::open(path)?;
    let large = std::fs::metadata(path).is_ok_and(|m| m.len() > PREFLIGHT_LIMIT);
    Ok(if large { reader.fast() } else { reader })
}

/// The frames of `outs` (what the faults made of a played session's lines): the nth
/// stdout write (a line, or the start of one) at `times[n]`, else at the later of the
/// last of `times` and `n` `pace`s; what comes between writes, at the time of the
/// write before. What [`Replay`] performs of a recording, held whole.
pub fn frames(outs: impl IntoIterator<Item = Out>, times: &[Duration], pace: Duration) -> Vec<FrameResult> {
    let mut writes = 0usize;
    let mut at = Duration::ZERO;
    let mut next = || {
        let time = times.get(writes).copied().unwrap_or_else(|| {
            let n = u32::try_from(writes).unwrap_or(u32::MAX);
            times
                .last()
                .copied()
                .unwrap_or_default()
                .max(pace.saturating_mul(n))
        });
        writes += 1;
        time
    };
    let mut line = |at: &mut Duration, bytes, newline| {
        *at = next().max(*at);
        let mut line = Line::stdout(*at, bytes);
        line.newline = newline;
        Frame::Line(line)
    };
    outs.into_iter()
        .map(|out| {
            Ok(match out {
                Out::Line(bytes) => line(&mut at, bytes, true),
                Out::Cut(bytes) => line(&mut at, bytes, false),
                Out::Stderr(bytes) => Frame::Line(Line::stderr(at, bytes)),
                Out::Stall(duration) => Frame::Stall { at, duration },
                Out::End(exit) => Frame::End(Ending { at, exit }),
            })
        })
        .collect()
}

/// The most of stdin a one-way stand-in reads as its prompt (a larger one is the
/// mock's own error).
pub const MAX_STDIN: usize = 64 << 20;

/// stdin, read to its end, unless it is a terminal and `at_terminal` is false (`None`:
/// not read); `Err`: the mock's own error (a prompt over [`MAX_STDIN`]). A stdin that
/// cannot be read gives what was read of it.
pub fn read_stdin(at_terminal: bool) -> Result<Option<String>, String> {
    use std::io::{IsTerminal, Read};
    let stdin = std::io::stdin();
    if stdin.is_terminal() && !at_terminal {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    let mut limited = stdin.lock().take(MAX_STDIN as u64 + 1);
    let _ = limited.read_to_end(&mut bytes);
    if bytes.len() > MAX_STDIN {
        return Err(format!(
            "the prompt on stdin is over {} MiB: give a shorter one",
            MAX_STDIN >> 20
        ));
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Whether no line of a run waits (for its time, for a step): a replay may then
/// write a run of lines at once ([`Replay::at_once`]).
pub fn untimed(settings: &Settings) -> bool {
    settings.timing == harness::timing::Timing::default() && settings.step.is_none()
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
    /// Where its first frame starts, once the whole file was read through and checked
    /// (by [`Summary::read`]): the replay reads on from there without checking the
    /// UTF-8 of its lines again ([`Reader::resume`]).
    pub checked_from: Option<Position>,
}

impl Summary {
    /// The summary of the recording at `path`, in one pass; `line` sees each stdout
    /// line (a dialect learns what else it needs there).
    pub fn read(path: &Path, mut line: impl FnMut(&[u8])) -> Result<Summary, CassetteError> {
        let mut summary = Summary::default();
        let mut frames = open(path)?;
        let start = frames.position();
        loop {
            // A large cassette's stdout lines, looked at in the read buffer (a small
            // one's reader is checking it, and reads none so).
            let mut last_at = None;
            frames.fast_lines(|at, event| {
                last_at = Some(at);
                line(event);
                true
            })?;
            if last_at.is_some() {
                summary.last_at = last_at;
            }
            let Some(frame) = frames.next() else {
                break;
            };
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
        // A capture's reader has more to remember than a position.
        summary.checked_from = (!frames.is_capture()).then_some(start);
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
    /// No fault, and no line waits (for its time, for a step): a run of lines is
    /// written as one slice of the read buffer ([`Replay::at_once`]).
    copy: bool,
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
        // Checked by the summary's pass: read without parsing the events (nor checking
        // their UTF-8 again, when the pass read the whole file).
        let frames = match summary.checked_from {
            Some(position) => {
                use std::io::{Seek, SeekFrom};
                let mut file = std::fs::File::open(path).map_err(|source| CassetteError::Open {
                    path: path.to_owned(),
                    source,
                })?;
                file.seek(SeekFrom::Start(position.offset))
                    .map_err(|source| CassetteError::Read {
                        path: path.to_owned(),
                        line: position.line + 1,
                        source,
                    })?;
                Reader::resume(path, BufReader::with_capacity(256 << 10, file), position)
            }
            None => harness::cassette::open(path)?.fast(),
        };
        Ok(Replay {
            frames,
            injector,
            plain,
            copy: false,
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

    /// Writes the lines due at once a run at a time when `untimed` (the run waits for
    /// no line: no timing, no step mode; [`untimed`]) and no fault acts on a line:
    /// each run of recorded stdout lines in the read buffer is one frame of their bytes,
    /// as they stand, with no `Frame` nor parse of each. What is written is the same.
    #[must_use]
    pub fn at_once(mut self, untimed: bool) -> Self {
        self.copy = untimed && self.plain;
        self
    }

    /// Whether runs of lines are written at once ([`Replay::at_once`]): no fault, no
    /// line waits, so the run may be performed as a copy is
    /// ([`super::planned::perform_at_once_on_stdio`]).
    pub fn copies(&self) -> bool {
        self.copy
    }

    /// A run of recorded stdout lines as one frame (each with its newline), up to
    /// [`COPY_BLOCK`] bytes, read from the cassette with nothing read ahead; `None`
    /// when the next frame is no stdout line (it is read ahead then).
    fn copied(&mut self) -> Option<FrameResult> {
        let mut bytes = Vec::new();
        let mut at = self.at;
        loop {
            let read = self.frames.fast_lines(|t, event| {
                if bytes.len() >= COPY_BLOCK {
                    return false;
                }
                if bytes.capacity() == 0 {
                    bytes.reserve(COPY_BLOCK + (64 << 10));
                }
                bytes.extend_from_slice(event);
                bytes.push(b'\n');
                at = t;
                true
            });
            match read {
                Ok(0) => {}
                Ok(n) => {
                    self.lines += usize::try_from(n).unwrap_or(usize::MAX);
                    continue;
                }
                Err(e) => {
                    self.out.push_back(Err(e));
                    self.done = true;
                    break;
                }
            }
            if bytes.len() >= COPY_BLOCK {
                break;
            }
            // A line that crosses the end of the read buffer, or a frame of another
            // kind or shape: read as a frame.
            match self.frames.next() {
                Some(Ok(Frame::Line(line))) if line.stream == Stream::Stdout => {
                    bytes.extend_from_slice(&line.bytes);
                    bytes.push(b'\n');
                    at = line.at;
                    self.lines += 1;
                }
                Some(Ok(frame)) => {
                    self.ahead.push_back(frame);
                    break;
                }
                Some(Err(e)) => {
                    self.out.push_back(Err(e));
                    self.done = true;
                    break;
                }
                None => break,
            }
        }
        if bytes.is_empty() {
            return self.out.pop_front();
        }
        self.at = at.max(self.at);
        let mut line = Line::stdout(self.at, bytes);
        line.newline = false;
        Some(Ok(Frame::Line(line)))
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
            if self.copy && self.ahead.is_empty() {
                if let Some(frame) = self.copied() {
                    return Some(frame);
                }
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

/// What the tests of a line dialect's replay share: a recording to replay, and what a
/// replay performs.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use harness::cassette::{Header, Writer};

    /// Writes a recording at `path`: `stderr` first, then `lines` 10 ms apart, then the
    /// ending.
    pub(crate) fn write(path: &Path, header: &Header, stderr: &[u8], lines: Vec<Vec<u8>>, exit: Exit) {
        let mut writer = Writer::create(path, header).expect("creates");
        writer
            .write(&Frame::Line(Line::stderr(Duration::ZERO, stderr.to_vec())))
            .expect("writes");
        let mut at = Duration::ZERO;
        for line in lines {
            at += Duration::from_millis(10);
            writer
                .write(&Frame::Line(Line::stdout(at, line)))
                .expect("writes");
        }
        writer.write(&Frame::End(Ending { at, exit })).expect("writes");
        writer.finish().expect("finishes");
    }

    /// What `replay` writes: its stdout bytes, its stderr lines, its ending; and how
    /// many frames it took.
    pub(crate) fn written<S: Lines>(replay: Replay<S>) -> (Vec<u8>, Vec<Vec<u8>>, Option<Exit>, usize) {
        let (mut stdout, mut stderr, mut exit, mut frames) = (Vec::new(), Vec::new(), None, 0);
        for frame in replay {
            frames += 1;
            match frame.expect("a frame") {
                Frame::Line(line) if line.stream == Stream::Stdout => {
                    stdout.extend_from_slice(&line.bytes);
                    if line.newline {
                        stdout.push(b'\n');
                    }
                }
                Frame::Line(line) => stderr.push(line.bytes),
                Frame::End(end) => exit = Some(end.exit),
                _ => {}
            }
        }
        (stdout, stderr, exit, frames)
    }

    /// The frames `replay` performs, then what its faults report.
    pub(crate) fn performed<S: Lines>(replay: Replay<S>, injector: &Rc<RefCell<Injector<S>>>) -> Vec<String> {
        shown(replay, || injector.borrow().report())
    }

    /// `frames` as the tests compare them, then what `report` says once they are
    /// all made (what the faults report).
    pub(crate) fn shown<R: std::fmt::Debug>(
        frames: impl IntoIterator<Item = FrameResult>,
        report: impl FnOnce() -> R,
    ) -> Vec<String> {
        let mut shown: Vec<String> = frames
            .into_iter()
            .map(|f| format!("{:?}", f.expect("a frame")))
            .collect();
        shown.push(format!("{:?}", report()));
        shown
    }

    /// When the stdout lines of the recording at `path` were written.
    pub(crate) fn stdout_times(path: &Path) -> Vec<Duration> {
        harness::cassette::open(path)
            .expect("opens")
            .filter_map(|frame| match frame.expect("reads") {
                Frame::Line(line) if line.stream == Stream::Stdout => Some(line.at),
                _ => None,
            })
            .collect()
    }

    /// Asserts of the recordings `recording` writes of seeds 0 to 5 (in a folder of
    /// their own, returned with their paths) that, with each fault spec of `specs`,
    /// their replay `streamed` performs what `whole`, the run of the recording read
    /// whole first, performed.
    pub(crate) fn assert_streamed_as_whole(
        recording: impl Fn(u64, &Path),
        specs: &[&str],
        streamed: impl Fn(&Path, &str) -> Vec<String>,
        whole: impl Fn(&Path, &str) -> Vec<String>,
    ) -> (tempfile::TempDir, Vec<std::path::PathBuf>) {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut paths = Vec::new();
        for seed in 0..6 {
            let path = dir.path().join(format!("{seed}.cassette"));
            recording(seed, &path);
            for spec in specs {
                assert_eq!(streamed(&path, spec), whole(&path, spec), "seed {seed}, {spec:?}");
            }
            paths.push(path);
        }
        (dir, paths)
    }
}
