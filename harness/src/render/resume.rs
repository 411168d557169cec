//! `--resume ID`: every `session_id` of the output equals ID.

use serde_json::{Map, Value};

use crate::frames::{Frame, Stream};
use crate::peek::Peek;
use crate::source::FrameResult;

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
                let differs = Peek::parse(&line.bytes)
                    .and_then(|p| p.session_id().map(|sid| sid != self.id.as_str()))
                    .unwrap_or(false);
                if differs {
                    if let Ok(mut event) = serde_json::from_slice::<Map<String, Value>>(&line.bytes) {
                        event.insert("session_id".into(), Value::String(self.id.clone()));
                        if let Ok(bytes) = serde_json::to_vec(&event) {
                            line.bytes = bytes;
                        }
                    }
                }
            }
        }
        Some(item)
    }
}
