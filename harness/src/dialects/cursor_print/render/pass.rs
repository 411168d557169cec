//! One pass over a stream of frames, written once: each frame in, any frames out, in
//! order ([`Staged`] drives a [`Pass`]).

use std::collections::VecDeque;

use crate::frames::FrameResult;

/// What a rendering stage does with each frame.
pub(crate) trait Pass {
    /// Takes the next frame of the stream, queueing what it lets out.
    fn frame(&mut self, frame: FrameResult);

    /// The stream is over: queues what is held back.
    fn finish(&mut self) {}

    /// The frames let out and not yet taken.
    fn queue(&mut self) -> &mut VecDeque<FrameResult>;
}

/// A [`Pass`] over the frames of `inner`, as an iterator.
pub(crate) struct Staged<I, P> {
    inner: I,
    pass: P,
    done: bool,
}

impl<I, P> Staged<I, P> {
    pub(crate) fn new(inner: I, pass: P) -> Self {
        Staged {
            inner,
            pass,
            done: false,
        }
    }
}

impl<I: Iterator<Item = FrameResult>, P: Pass> Iterator for Staged<I, P> {
    type Item = FrameResult;

    fn next(&mut self) -> Option<FrameResult> {
        loop {
            if let Some(item) = self.pass.queue().pop_front() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            match self.inner.next() {
                Some(frame) => self.pass.frame(frame),
                None => {
                    self.done = true;
                    self.pass.finish();
                }
            }
        }
    }
}
