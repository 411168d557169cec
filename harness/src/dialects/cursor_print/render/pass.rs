//! One pass over a stream of frames, written once: each frame in, any frames out, in
//! order ([`Staged`] drives a [`Pass`]).

use std::collections::VecDeque;

use crate::frames::{FrameResult, Line};

/// What a rendering stage does with each frame.
pub(crate) trait Pass {
    /// Takes the next frame of the stream, putting what it lets out in `out`.
    fn frame(&mut self, frame: FrameResult, out: &mut VecDeque<FrameResult>);

    /// The stream is over: lets out what is held back.
    fn finish(&mut self, _out: &mut VecDeque<FrameResult>) {}
}

/// A [`Pass`] over the frames of `inner`, as an iterator.
pub(crate) struct Staged<I, P> {
    inner: I,
    pass: P,
    /// What the pass let out, not yet taken.
    queue: VecDeque<FrameResult>,
    done: bool,
}

impl<I, P> Staged<I, P> {
    pub(crate) fn new(inner: I, pass: P) -> Self {
        Staged {
            inner,
            pass,
            queue: VecDeque::new(),
            done: false,
        }
    }
}

impl<I: Iterator<Item = FrameResult>, P: Pass> Iterator for Staged<I, P> {
    type Item = FrameResult;

    fn next(&mut self) -> Option<FrameResult> {
        while self.queue.is_empty() && !self.done {
            match self.inner.next() {
                Some(frame) => self.pass.frame(frame, &mut self.queue),
                None => {
                    self.done = true;
                    self.pass.finish(&mut self.queue);
                }
            }
        }
        self.queue.pop_front()
    }
}

/// Stdout lines read whole: a line written in parts (a fault that pauses inside it,
/// then goes on) is one line where it ends; what is left at the end of the stream is
/// the last line.
#[derive(Default)]
pub(crate) struct Whole {
    partial: Option<Line>,
}

impl Whole {
    /// The whole line `line` ends, if it ends one.
    pub(crate) fn line(&mut self, line: Line) -> Option<Line> {
        let line = match self.partial.take() {
            Some(mut before) => {
                before.bytes.extend_from_slice(&line.bytes);
                before.newline = line.newline;
                before.at = line.at;
                before
            }
            None => line,
        };
        if line.newline {
            Some(line)
        } else {
            self.partial = Some(line);
            None
        }
    }

    /// The last line, left without its newline when the stream ended.
    pub(crate) fn rest(&mut self) -> Option<Line> {
        self.partial.take()
    }
}
