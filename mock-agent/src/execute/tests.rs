//! The executor's tests, on paused time where time matters.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::AsyncWrite;
use tokio::time::Instant;

use harness::frames::{Chunking, Delivery, Ending, Exit, Frame, FrameResult, Line, Stream};

use super::*;

fn plan(lines: &[(u64, Stream, &str)], exit: Exit) -> Vec<FrameResult> {
    let mut frames: Vec<FrameResult> = lines
        .iter()
        .map(|(ms, stream, text)| {
            Ok(Frame::Line(Line {
                at: Duration::from_millis(*ms),
                stream: *stream,
                bytes: text.as_bytes().to_vec(),
                newline: true,
            }))
        })
        .collect();
    let at = Duration::from_millis(lines.last().map_or(0, |l| l.0));
    frames.push(Ok(Frame::End(Ending { at, exit })));
    frames
}

/// Stdout lines at these times (ms), then the end.
fn stdout_plan(lines: &[(u64, &str)]) -> Vec<FrameResult> {
    let lines: Vec<(u64, Stream, &str)> = lines
        .iter()
        .map(|(ms, text)| (*ms, Stream::Stdout, *text))
        .collect();
    plan(&lines, Exit::Code(0))
}

#[tokio::test]
async fn writes_lines_and_ends_as_planned() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let frames = plan(
        &[
            (0, Stream::Stdout, "a"),
            (0, Stream::Stderr, "oops"),
            (0, Stream::Stdout, "b"),
        ],
        Exit::Code(3),
    );
    let outcome = perform(frames, &mut out, &mut err, &ExecOptions::default()).await;
    assert_eq!(outcome.ended.ok(), Some(Exit::Code(3)));
    assert_eq!(out, b"a\nb\n");
    assert_eq!(err, b"oops\n");
    assert_eq!(outcome.stdout_lines, 2);
}

/// A sink that records each write with the (paused) time it happened, in ms from
/// when it was made.
pub(crate) struct Recorder {
    start: Instant,
    pub(crate) writes: Vec<(u128, Vec<u8>)>,
}

impl Recorder {
    pub(crate) fn new() -> Self {
        Recorder {
            start: Instant::now(),
            writes: Vec::new(),
        }
    }
}

impl AsyncWrite for Recorder {
    fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let ms = Instant::now().duration_since(self.start).as_millis();
        self.writes.push((ms, buf.to_vec()));
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The writes of a timed plan on paused time, with `delivery` changed by `with`.
async fn timed_writes(frames: Vec<FrameResult>, with: impl FnOnce(&mut Delivery)) -> Vec<(u128, Vec<u8>)> {
    let mut out = Recorder::new();
    let mut delivery = Delivery::default();
    delivery.timed = true;
    with(&mut delivery);
    perform(frames, &mut out, Vec::new(), &ExecOptions::new(delivery)).await;
    out.writes
}

#[tokio::test(start_paused = true)]
async fn timed_lines_are_written_at_their_time_on_their_own() {
    let frames = stdout_plan(&[(0, "a"), (10, "b"), (25, "c")]);
    assert_eq!(
        timed_writes(frames, |_| {}).await,
        vec![(0, b"a\n".to_vec()), (10, b"b\n".to_vec()), (25, b"c\n".to_vec())]
    );
}

#[tokio::test(start_paused = true)]
async fn stalls_push_the_rest_later_and_chunks_split_across_lines() {
    let mut frames = stdout_plan(&[(0, "abcde"), (5, "fgh")]);
    frames.insert(
        1,
        Ok(Frame::Stall {
            at: Duration::ZERO,
            duration: Some(Duration::from_millis(100)),
        }),
    );
    let writes = timed_writes(frames, |d| d.chunking = Some(Chunking::Size(4))).await;
    assert_eq!(
        writes,
        vec![
            (0, b"abcd".to_vec()),
            (0, b"e\n".to_vec()),
            (105, b"fgh\n".to_vec())
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn coalesce_groups_timed_lines() {
    let frames = stdout_plan(&[(0, "a"), (10, "b"), (20, "c"), (30, "d")]);
    let writes = timed_writes(frames, |d| d.coalesce = Some(3)).await;
    assert_eq!(writes, vec![(20, b"a\nb\nc\n".to_vec()), (30, b"d\n".to_vec())]);
}

#[tokio::test(start_paused = true)]
async fn a_time_past_what_the_clock_holds_is_a_wait_for_ever() {
    // The plan's clock saturates a huge scale at Duration::MAX: the line after it
    // never comes, and nothing panics.
    let frames = stdout_plan(&[(0, "a"), (u64::MAX, "b")]);
    let mut out = Recorder::new();
    let mut delivery = Delivery::default();
    delivery.timed = true;
    let options = ExecOptions::new(delivery);
    let performed = tokio::time::timeout(
        Duration::from_secs(365 * 24 * 3600),
        perform(frames, &mut out, Vec::new(), &options),
    )
    .await;
    assert!(performed.is_err(), "still waiting a year later");
    assert_eq!(out.writes, vec![(0, b"a\n".to_vec())]);
}

struct Closed;
impl AsyncWrite for Closed {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, _: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[test]
fn the_blocking_executor_performs_as_the_runtime_does() {
    let frames = plan(
        &[
            (0, Stream::Stdout, "a"),
            (0, Stream::Stderr, "oops"),
            (0, Stream::Stdout, "b"),
        ],
        Exit::Code(3),
    );
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = perform_blocking(frames, &mut out, &mut err, || {}, None);
    assert_eq!(outcome.ended.ok(), Some(Exit::Code(3)));
    assert_eq!((out.as_slice(), err.as_slice()), (&b"a\nb\n"[..], &b"oops\n"[..]));
    assert_eq!(outcome.stdout_lines, 2);

    // A closed stdout: a quiet end, the recorded stderr still written.
    let frames = plan(
        &[
            (0, Stream::Stderr, "x"),
            (0, Stream::Stdout, "a"),
            (0, Stream::Stderr, "y"),
        ],
        Exit::Code(0),
    );
    let mut err = Vec::new();
    let outcome = perform_blocking(frames, ClosedPipe, &mut err, || {}, None);
    assert!(outcome.stdout_closed());
    assert!(outcome.error().is_none());
    assert_eq!(outcome.exit(), Exit::Code(0));
    assert_eq!(err, b"x\ny\n");

    // A plan without its end is the mock's bug.
    let outcome = perform_blocking(Vec::new(), Vec::new(), Vec::new(), || {}, None);
    assert!(matches!(outcome.error(), Some(ExecError::NoEnd)));
}

struct ClosedPipe;
impl io::Write for ClosedPipe {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::ErrorKind::BrokenPipe.into())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_closed_stdout_is_a_quiet_end() {
    let mut err = Vec::new();
    let frames = plan(
        &[
            (0, Stream::Stderr, "x"),
            (0, Stream::Stdout, "a"),
            (0, Stream::Stderr, "y"),
        ],
        Exit::Code(0),
    );
    let outcome = perform(frames, Closed, &mut err, &ExecOptions::default()).await;
    assert!(outcome.stdout_closed());
    assert!(outcome.error().is_none());
    assert_eq!(outcome.exit(), Exit::Code(0));
    // The recorded stderr still reaches the consumer.
    assert_eq!(err, b"x\ny\n");
}
