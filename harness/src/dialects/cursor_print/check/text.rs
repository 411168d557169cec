//! The assistant text of a run, as `result.result` should repeat it.

/// Collects a line's share of the assistant text, counting a segment streamed as
/// deltas and then repeated whole once.
#[derive(Debug, Default)]
pub(super) struct AssistantText {
    /// The text of the open segment's lines.
    open: String,
    open_lines: usize,
    /// Whether every open line is shaped like a delta.
    open_deltas: bool,
    /// The text so far.
    pub(super) total: String,
}

impl AssistantText {
    /// An `assistant` line's text; `delta`: whether it is shaped like a delta.
    pub(super) fn line(&mut self, text: &str, delta: bool) {
        // A whole line closes nothing later: it counts as it is.
        if self.open_lines > 0 && !self.open_deltas {
            self.end_run();
        }
        if !delta && self.open_lines > 0 && text == self.open {
            // A closing line: the open lines were its deltas.
            self.total.push_str(text);
            self.open.clear();
            self.open_lines = 0;
        } else {
            self.open.push_str(text);
            self.open_lines += 1;
            self.open_deltas = delta;
        }
    }

    /// Something else came: the open lines were whole segments.
    pub(super) fn end_run(&mut self) {
        self.total.push_str(&self.open);
        self.open.clear();
        self.open_lines = 0;
    }
}
