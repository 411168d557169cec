//! `--output-format json`: the terminal `result` line alone, at the end of a
//! successful run; nothing on stdout when the run failed.

use std::collections::VecDeque;

use crate::frames::{Frame, Line, Stream};
use crate::peek::Peek;
use crate::source::FrameResult;

pub(crate) struct Json<I> {
    inner: I,
    result: Option<Line>,
    queue: VecDeque<FrameResult>,
}

impl<I> Json<I> {
    pub(crate) fn new(inner: I) -> Self {
        Json {
            inner,
            result: None,
            queue: VecDeque::new(),
        }
    }
}

impl<I: Iterator<Item = FrameResult>> Iterator for Json<I> {
    type Item = FrameResult;

    fn next(&mut self) -> Option<FrameResult> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                return Some(item);
            }
            match self.inner.next()? {
                Ok(Frame::Line(line)) if line.stream == Stream::Stdout => {
                    if Peek::parse(&line.bytes).is_some_and(|p| p.is_type("result")) {
                        self.result = Some(line);
                    }
                }
                Ok(Frame::End(end)) => {
                    if let (true, Some(mut line)) = (end.exit.success(), self.result.take()) {
                        line.at = end.at;
                        line.newline = true;
                        self.queue.push_back(Ok(Frame::Line(line)));
                    }
                    self.queue.push_back(Ok(Frame::End(end)));
                }
                other => return Some(other),
            }
        }
    }
}
