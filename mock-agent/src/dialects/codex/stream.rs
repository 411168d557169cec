//! A recording of `codex exec --json` replayed as it stands, streamed: one pass over
//! the cassette learns what the run needs before its lines ([`Summary`]: the thread,
//! how the turn ended, its last message, the recorded stderr), and a second reads its
//! stdout lines as they are written, through the faults ([`Replay`]). Memory stays
//! flat whatever the recording's size; what is written, and when, is what the whole
//! recording read first would give (`Recording::open`, `with_faults`).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::BufReader;
use std::path::Path;
use std::rc::Rc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use harness::cassette::{Reader, PREFLIGHT_LIMIT};
use harness::dialects::codex::faults::{Injector, Out};
use harness::dialects::codex::recording::usage_of;
use harness::dialects::codex::session::Usage;
use harness::dialects::codex::wire::{events, items};
use harness::error::CassetteError;
use harness::frames::{Ending, Exit, Frame, FrameResult, Line, Stream};

use super::exec::PACE;

/// What the replay of a recording needs before its lines.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Summary {
    /// Its stderr lines (written first, as the real CLI's come before its lines).
    pub(super) stderr: Vec<Vec<u8>>,
    /// How it ended (exit 0 when the recording does not say).
    pub(super) exit: Exit,
    /// The thread it started (`thread.started`'s id).
    pub(super) thread_id: Option<String>,
    /// Its turn failed (`turn.failed`).
    pub(super) failed: bool,
    /// The usage its turn reported.
    pub(super) usage: Usage,
    /// Its last `agent_message`.
    pub(super) final_message: Option<String>,
    /// The time of its last stdout line.
    pub(super) last_at: Option<Duration>,
}

/// A reader of the cassette at `path` (its events not parsed when it is over
/// [`PREFLIGHT_LIMIT`], as every replay reads such a file).
fn open(path: &Path) -> Result<Reader<BufReader<std::fs::File>>, CassetteError> {
    let reader = harness::cassette::open(path)?;
    let large = std::fs::metadata(path).is_ok_and(|m| m.len() > PREFLIGHT_LIMIT);
    Ok(if large { reader.fast() } else { reader })
}

impl Summary {
    /// The summary of the recording at `path`, in one pass.
    pub(super) fn read(path: &Path) -> Result<Summary, CassetteError> {
        let mut summary = Summary {
            stderr: Vec::new(),
            exit: Exit::Code(0),
            thread_id: None,
            failed: false,
            usage: Usage::default(),
            final_message: None,
            last_at: None,
        };
        for frame in open(path)? {
            match frame? {
                Frame::Line(line) if line.stream == Stream::Stdout => {
                    summary.last_at = Some(line.at);
                    summary.line(&line.bytes);
                }
                Frame::Line(line) if line.stream == Stream::Stderr => summary.stderr.push(line.bytes),
                Frame::End(end) => summary.exit = end.exit,
                _ => {}
            }
        }
        Ok(summary)
    }

    /// One stdout line. Only `thread.started`, `item.completed` and the turn's end
    /// say what the summary holds; the lines of the others are known by their first
    /// key and not parsed.
    fn line(&mut self, line: &[u8]) {
        const SKIPPED: [&[u8]; 3] = [
            b"{\"type\":\"item.started\",",
            b"{\"type\":\"item.updated\",",
            b"{\"type\":\"turn.started\",",
        ];
        if SKIPPED.iter().any(|prefix| line.starts_with(prefix)) {
            return;
        }
        if line.starts_with(b"{\"type\":\"item.completed\",") {
            if let Ok(completed) = serde_json::from_slice::<Completed<'_>>(line) {
                if completed.item.kind.as_deref() == Some(items::AGENT_MESSAGE) {
                    let text = completed.item.text.and_then(Text::into_str).unwrap_or_default();
                    self.final_message = Some(text.into_owned());
                }
                return;
            }
        }
        let Ok(value) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        match value.get("type").and_then(Value::as_str) {
            Some(events::THREAD_STARTED) if self.thread_id.is_none() => {
                self.thread_id = value.get("thread_id").and_then(Value::as_str).map(str::to_owned);
            }
            Some(events::ITEM_COMPLETED) => {
                let item = &value["item"];
                if item.get("type").and_then(Value::as_str) == Some(items::AGENT_MESSAGE) {
                    let text = item.get("text").and_then(Value::as_str).unwrap_or_default();
                    self.final_message = Some(text.to_owned());
                }
            }
            Some(events::TURN_COMPLETED) => self.usage = usage_of(&value["usage"]),
            Some(events::TURN_FAILED) => self.failed = true,
            _ => {}
        }
    }
}

/// An `item.completed` line, as far as its last message goes.
#[derive(Deserialize)]
struct Completed<'a> {
    #[serde(borrow)]
    item: CompletedItem<'a>,
}

#[derive(Deserialize)]
struct CompletedItem<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Text<'a>>,
}

/// An item's `text`: a string, or anything else (no text).
#[derive(Deserialize)]
#[serde(untagged)]
enum Text<'a> {
    Str(#[serde(borrow)] Cow<'a, str>),
    Other(serde::de::IgnoredAny),
}

impl<'a> Text<'a> {
    fn into_str(self) -> Option<Cow<'a, str>> {
        match self {
            Text::Str(text) => Some(text),
            Text::Other(_) => None,
        }
    }
}

/// The frames the replay performs: the recorded stderr, then the recorded stdout
/// lines through the faults, each at its time, then the recorded ending (or the
/// faults'). The nth line written is at the time of the nth recorded stdout line (a
/// later one when a fault wrote more lines than it read: it is read ahead), past the
/// last one `n` [`PACE`]s; what comes between lines, at the time of the line before.
pub(super) struct Replay {
    frames: Reader<BufReader<std::fs::File>>,
    /// The faults, shared with the run (which reports what they did).
    injector: Rc<RefCell<Injector>>,
    /// Frames to give, in order.
    out: VecDeque<FrameResult>,
    /// Frames read ahead for their time, not yet played.
    ahead: VecDeque<Frame>,
    /// Times of recorded stdout lines read and not yet given to a line.
    times: VecDeque<Duration>,
    /// The recording's last stdout line's time.
    last_at: Duration,
    exit: Exit,
    /// Lines written.
    lines: usize,
    at: Duration,
    done: bool,
}

impl Replay {
    /// The replay of the recording at `path` (summed up as `summary`) with `injector`'s
    /// faults.
    pub(super) fn new(
        path: &Path,
        summary: &Summary,
        injector: Rc<RefCell<Injector>>,
    ) -> Result<Replay, CassetteError> {
        let out = summary
            .stderr
            .iter()
            .map(|line| Ok(Frame::Line(Line::stderr(Duration::ZERO, line.clone()))))
            .collect();
        Ok(Replay {
            // Checked by the summary's pass: read without parsing the events.
            frames: harness::cassette::open(path)?.fast(),
            injector,
            out,
            ahead: VecDeque::new(),
            times: VecDeque::new(),
            last_at: summary.last_at.unwrap_or_default(),
            exit: summary.exit,
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
            .unwrap_or_else(|| self.last_at.max(PACE.saturating_mul(n)))
    }

    /// What the faults make of `outs`, queued as frames; `true` once the run ends.
    fn queue(&mut self, outs: Vec<Out>) -> bool {
        for out in outs {
            let frame = match out {
                Out::Line(bytes) => {
                    self.at = self.next_time().max(self.at);
                    Frame::Line(Line::stdout(self.at, bytes))
                }
                Out::Cut(bytes) => {
                    self.at = self.next_time().max(self.at);
                    let mut line = Line::stdout(self.at, bytes);
                    line.newline = false;
                    Frame::Line(line)
                }
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

impl Iterator for Replay {
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

#[cfg(test)]
mod tests {
    use super::*;
    use harness::cassette::{Invocation, Writer};
    use harness::dialects::codex::exec::Thread;
    use harness::dialects::codex::faults::{exec_lines, parse, with_faults, THREAD_MS};
    use harness::dialects::codex::recording::{header, Recording};

    /// A recording of the generated session of `seed`: a stderr line, its lines 10 ms
    /// apart, its ending.
    fn recording(seed: u64, path: &Path) {
        let session = harness::dialects::codex::generate::from_seed(seed);
        let (lines, exit) = exec_lines(&session, Thread::new(seed, THREAD_MS));
        let mut writer = Writer::create(path, &header(Invocation::default())).expect("creates");
        writer
            .write(&Frame::Line(Line::stderr(
                Duration::ZERO,
                b"Reading prompt from stdin...".to_vec(),
            )))
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

    /// What the run performs of the recording read whole first, as it did before
    /// it was streamed.
    fn whole(path: &Path, spec: &str) -> Vec<String> {
        let recording = Recording::open(path).expect("opens");
        let mut injector =
            Injector::new(parse(spec, harness::dialects::codex::faults::FROM_ENV).expect("faults"));
        let mut outs: Vec<Out> = recording.stderr.iter().cloned().map(Out::Stderr).collect();
        outs.extend(with_faults(
            recording.stdout.clone(),
            recording.exit,
            &mut injector,
        ));
        let times: Vec<Duration> = harness::cassette::open(path)
            .expect("opens")
            .filter_map(|frame| match frame.expect("reads") {
                Frame::Line(line) if line.stream == Stream::Stdout => Some(line.at),
                _ => None,
            })
            .collect();
        let mut frames: Vec<String> = super::super::exec::frames(outs, &times)
            .into_iter()
            .map(|f| format!("{:?}", f.expect("a frame")))
            .collect();
        frames.push(format!("{:?}", injector.report()));
        frames
    }

    fn streamed(path: &Path, spec: &str) -> Vec<String> {
        let summary = Summary::read(path).expect("reads");
        let injector = Rc::new(RefCell::new(Injector::new(
            parse(spec, harness::dialects::codex::faults::FROM_ENV).expect("faults"),
        )));
        let replay = Replay::new(path, &summary, Rc::clone(&injector)).expect("opens");
        let mut frames: Vec<String> = replay.map(|f| format!("{:?}", f.expect("a frame"))).collect();
        frames.push(format!("{:?}", injector.borrow().report()));
        frames
    }

    #[test]
    fn a_streamed_replay_performs_what_the_whole_recording_gave() {
        let dir = tempfile::tempdir().expect("temp dir");
        for seed in 0..6 {
            let path = dir.path().join(format!("{seed}.cassette"));
            recording(seed, &path);
            for spec in [
                "",
                "exit:code=3,after=2",
                "unknown:after=1",
                "unknown:kind=item,at=turn.completed",
                "malformed:after=2",
                "eof:at=turn.completed,byte=40",
                "stall:ms=5,after=1",
                "huge:bytes=100,after=1",
                "signal:name=TERM,at=agent_message",
            ] {
                assert_eq!(streamed(&path, spec), whole(&path, spec), "seed {seed}, {spec:?}");
            }
            let recording = Recording::open(&path).expect("opens");
            let summary = Summary::read(&path).expect("reads");
            let turn = recording.session().turn(0);
            assert_eq!(summary.thread_id, recording.thread_id());
            assert_eq!(summary.failed, turn.fails());
            assert_eq!(summary.usage, turn.usage);
            assert_eq!(summary.final_message.as_deref(), turn.final_message());
            assert_eq!((summary.stderr, summary.exit), (recording.stderr, recording.exit));
        }
    }
}
