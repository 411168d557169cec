//! The progress of a long recording, for the person who runs `mock-agent record` at a
//! terminal: a spinner (indicatif) with the time since the start and what passed on
//! each stream, cleared when the recording ends.
//!
//! # Where it is drawn, and why so seldom
//!
//! The recorder stands in for the real CLI: its stdout and stderr are the CLI's as its
//! caller sees them, and a program that reads the agent's stderr (to show it, to log
//! it, to parse an error) must read the CLI's bytes and nothing else. So progress is
//! drawn only when nothing but a person can see it, and never as plain lines:
//!
//! - **asked for**: only the `mock-agent record` command asks ([`super::RecordOptions`]'s
//!   `progress`, off with `--no-progress`). The shim (`cursor-agent` recording with
//!   `MOCK_AGENT_RECORD`) never does: it runs under the program under test, whose
//!   view of the agent's stderr it is;
//! - **stderr is a terminal**: a pipe or a file is read by a program or kept as a log
//!   of the CLI's stderr; nothing is added to it, not even a line at the end;
//! - **stdin is a terminal**: a person typed the command; a program that runs the
//!   recorder gives it a pipe or `/dev/null`, even when it lets its stderr go to the
//!   terminal it was started from (an editor started from a shell);
//! - **stdout is not a terminal**: the CLI's stream goes to a file or a pipe. When it
//!   scrolls on the terminal it shows the progress itself, and a spinner redrawn on
//!   the line under it would be cut into by its lines (they reach the terminal from
//!   the recorder's pumps, not through indicatif);
//! - **print mode**: in server mode the terminal, if any, is the client's.
//!
//! Not `/dev/tty`: a recorder run by a program from a person's shell would draw on
//! that person's terminal, which they did not ask for.
//!
//! The one thing that shares the terminal with the spinner is the CLI's own stderr
//! (in print mode, at most an error at the end of a failed run). A line of it written
//! while the spinner is drawn starts after the spinner on the same line; the spinner is
//! drawn again under it.
//!
//! The counts come from the chunks on their way from the pumps to the cassette's
//! writer: when progress is drawn, [`Progress::watch`] passes each one on through a
//! thread of its own (one chunk at a time, so the pumps' buffers stay as few as they
//! are), counting it. When it is not, nothing of this runs.

use std::io::IsTerminal;
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use harness::frames::Stream;
use indicatif::{HumanBytes, HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::pump::Event;

/// How often the spinner turns (and its time is drawn again) while nothing passes.
const TICK: Duration = Duration::from_millis(200);

/// How often the counts are drawn again at most.
const REDRAW: Duration = Duration::from_millis(100);

/// Whether a recording asked to show its progress shows it, from what its streams
/// are (see the module's documentation).
pub(super) fn wanted(asked: bool, acp: bool, stdin_tty: bool, stdout_tty: bool, stderr_tty: bool) -> bool {
    asked && !acp && stdin_tty && stderr_tty && !stdout_tty
}

/// The progress of a recording: drawn, or nothing.
#[derive(Debug)]
pub(super) struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// The progress of this process's recording: drawn on stderr when it is
    /// [`wanted`], else nothing.
    pub(super) fn start(asked: bool, acp: bool) -> Self {
        let shown = wanted(
            asked,
            acp,
            std::io::stdin().is_terminal(),
            std::io::stdout().is_terminal(),
            std::io::stderr().is_terminal(),
        );
        Progress::drawn_on(shown.then(ProgressDrawTarget::stderr))
    }

    /// Drawn on `target`, or nothing.
    fn drawn_on(target: Option<ProgressDrawTarget>) -> Self {
        let bar = target.map(|target| {
            let bar = ProgressBar::with_draw_target(None, target);
            let style = ProgressStyle::with_template("{spinner} recording {elapsed_precise} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            bar.set_style(style);
            bar.enable_steady_tick(TICK);
            bar
        });
        Progress { bar }
    }

    /// The events the cassette's writer reads: `events` itself when nothing is
    /// drawn, else the same events, in the same order, passed on one at a time by a
    /// thread that counts them. When the writer goes away (it failed), the thread
    /// drops `events`, so that the pumps go on passing the output on as they do
    /// without it.
    pub(super) fn watch(&self, events: Receiver<Event>) -> Receiver<Event> {
        let Some(bar) = self.bar.clone() else {
            return events;
        };
        let (sender, receiver) = std::sync::mpsc::sync_channel(0);
        // Taken back when no thread can be started: then nothing is counted.
        let slot = Arc::new(Mutex::new(Some(events)));
        let theirs = Arc::clone(&slot);
        let spawned = std::thread::Builder::new()
            .name("record-progress".into())
            .spawn(move || {
                let events = theirs.lock().ok().and_then(|mut slot| slot.take());
                if let Some(events) = events {
                    pass_on(&events, &sender, &bar);
                }
            });
        let taken_back = match spawned {
            Ok(_) => None,
            Err(_) => slot.lock().ok().and_then(|mut slot| slot.take()),
        };
        taken_back.unwrap_or(receiver)
    }

    /// The recording is over: the spinner goes, leaving the terminal as it was.
    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// What passed on each stream so far.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Counts {
    /// Lines (newlines) and bytes of stdout, stderr and stdin.
    pub(super) lines: [u64; 3],
    pub(super) bytes: [u64; 3],
}

impl Counts {
    fn add(&mut self, stream: Stream, chunk: &[u8]) {
        let i = match stream {
            Stream::Stdout => 0,
            Stream::Stderr => 1,
            Stream::Stdin => 2,
        };
        self.lines[i] += memchr::memchr_iter(b'\n', chunk).count() as u64;
        self.bytes[i] += chunk.len() as u64;
    }

    /// `stdout 1,204 lines (356.20 KiB) · stderr 1 line (12 B)`: the streams that
    /// had something.
    fn message(&self) -> String {
        let mut parts = Vec::new();
        for (i, name) in ["stdout", "stderr", "stdin"].iter().enumerate() {
            if self.bytes[i] == 0 {
                continue;
            }
            let lines = self.lines[i];
            let unit = if lines == 1 { "line" } else { "lines" };
            parts.push(format!(
                "{name} {} {unit} ({})",
                HumanCount(lines),
                HumanBytes(self.bytes[i])
            ));
        }
        if parts.is_empty() {
            "waiting for the command's output".to_owned()
        } else {
            parts.join(" · ")
        }
    }
}

/// Passes each event of `events` on to `sender`, counting the chunks on `bar`, until
/// either end goes away.
fn pass_on(events: &Receiver<Event>, sender: &SyncSender<Event>, bar: &ProgressBar) -> Counts {
    let mut counts = Counts::default();
    let mut drawn = Instant::now();
    bar.set_message(counts.message());
    while let Ok(event) = events.recv() {
        if let Event::Chunk {
            stream, buffer, len, ..
        } = &event
        {
            counts.add(*stream, &buffer[..*len]);
            if drawn.elapsed() >= REDRAW {
                bar.set_message(counts.message());
                drawn = Instant::now();
            }
        }
        if sender.send(event).is_err() {
            break;
        }
    }
    bar.set_message(counts.message());
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_is_drawn_only_for_a_person_at_a_terminal_whose_output_goes_elsewhere() {
        // asked, acp, stdin, stdout, stderr a terminal
        assert!(wanted(true, false, true, false, true));
        for (asked, acp, stdin, stdout, stderr) in [
            (false, false, true, false, true), // the shim, or --no-progress
            (true, true, true, false, true),   // server mode
            (true, false, false, false, true), // run by a program (stdin a pipe)
            (true, false, true, true, true),   // the CLI's stream scrolls on the terminal
            (true, false, true, false, false), // stderr a pipe or a file: the caller's
        ] {
            assert!(
                !wanted(asked, acp, stdin, stdout, stderr),
                "{asked} {acp} {stdin} {stdout} {stderr}"
            );
        }
    }

    fn chunk(stream: Stream, bytes: &[u8]) -> Event {
        Event::Chunk {
            stream,
            at: Duration::ZERO,
            buffer: bytes.to_vec(),
            len: bytes.len(),
        }
    }

    #[test]
    fn not_drawn_it_hands_the_events_over_as_they_are() {
        let (sender, events) = std::sync::mpsc::sync_channel(4);
        let progress = Progress::start(false, false);
        assert!(progress.bar.is_none());
        let events = progress.watch(events);
        sender.send(chunk(Stream::Stdout, b"a\n")).expect("sends");
        drop(sender);
        assert!(matches!(events.recv(), Ok(Event::Chunk { len: 2, .. })));
        assert!(events.recv().is_err());
    }

    #[test]
    fn drawn_it_passes_every_event_on_in_order_and_counts_the_chunks() {
        let progress = Progress::drawn_on(Some(ProgressDrawTarget::hidden()));
        let (sender, events) = std::sync::mpsc::sync_channel(8);
        let events = progress.watch(events);
        let sent = [
            chunk(Stream::Stdout, b"{\"type\":\"system\"}\n{\"ty"),
            chunk(Stream::Stderr, b"warning\n"),
            chunk(Stream::Stdout, b"pe\":\"result\"}\n"),
            Event::Closed {
                stream: Stream::Stdout,
                at: Duration::from_millis(5),
            },
        ];
        let writer = std::thread::spawn(move || events.iter().collect::<Vec<Event>>());
        for event in sent {
            sender.send(event).expect("sends");
        }
        drop(sender);
        let got = writer.join().expect("the writer");
        let told: Vec<(String, Vec<u8>)> = got
            .iter()
            .map(|e| match e {
                Event::Chunk {
                    stream, buffer, len, ..
                } => (format!("{stream:?}"), buffer[..*len].to_vec()),
                Event::Closed { stream, .. } => (format!("closed {stream:?}"), Vec::new()),
            })
            .collect();
        assert_eq!(
            told,
            [
                ("Stdout".into(), b"{\"type\":\"system\"}\n{\"ty".to_vec()),
                ("Stderr".into(), b"warning\n".to_vec()),
                ("Stdout".into(), b"pe\":\"result\"}\n".to_vec()),
                ("closed Stdout".into(), Vec::new()),
            ]
        );
        let bar = progress.bar.as_ref().expect("drawn");
        assert_eq!(bar.message(), "stdout 2 lines (36 B) · stderr 1 line (8 B)");
    }

    #[test]
    fn a_writer_that_went_away_lets_the_pumps_go_on() {
        let progress = Progress::drawn_on(Some(ProgressDrawTarget::hidden()));
        let (sender, events) = std::sync::mpsc::sync_channel(1);
        let events = progress.watch(events);
        drop(events);
        // The thread drops the pumps' receiver once it finds the writer gone: a
        // send fails, as it does without progress, rather than block for ever.
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut failed = false;
        while Instant::now() < deadline {
            if sender.send(chunk(Stream::Stdout, b"x\n")).is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed, "the pumps' sends fail once the writer is gone");
    }
}
