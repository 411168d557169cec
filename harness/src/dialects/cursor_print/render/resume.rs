//! `--resume ID`: every `session_id` of the output equals ID.

use crate::frames::FrameResult;
use crate::frames::{Frame, Stream};
use crate::peek::Peek;

/// Rewrites `session_id` in the stdout events that carry another one.
pub(crate) struct Resume<I> {
    inner: I,
    id: String,
}

impl<I> Resume<I> {
    pub(crate) fn new(inner: I, id: String) -> Self {
        Resume { inner, id }
    }
}

impl<I: Iterator<Item = FrameResult>> Iterator for Resume<I> {
    type Item = FrameResult;

    fn next(&mut self) -> Option<FrameResult> {
        let mut item = self.inner.next()?;
        if let Ok(Frame::Line(line)) = &mut item {
            if line.stream == Stream::Stdout {
                if let Some(range) = Peek::parse(&line.bytes).and_then(|p| p.session_id_span(&line.bytes)) {
                    // Only the value's bytes change: the rest of the line stays as recorded.
                    let id = serde_json::to_string(&self.id).unwrap_or_default();
                    if line.bytes[range.clone()] != *id.as_bytes() {
                        line.bytes.splice(range, id.into_bytes());
                    }
                }
            }
        }
        Some(item)
    }
}
