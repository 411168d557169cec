//! One pass over a stream of frames, written once: each frame in, any frames out, in
//! order ([`Staged`] drives a [`Pass`]).

use std::collections::VecDeque;

use crate::frames::FrameResult;

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
