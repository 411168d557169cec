//! A run of a turn's lines taken at once: what [`Script::step`] would send one at a
//! time as they are, read from the cassette's buffer where it can be.

use super::{index, Item, Playing, Script};
use crate::cassette::tape::Frames;
use crate::dialects::claude::wire::{control, system, types};

impl Script {
    /// The turn's next lines while [`Script::step`] would send each as it is, with no
    /// wait, skip or note (a line of its stream, a state line, `init`, a request
    /// nobody waits for; no `result`, no request waited for), appended to `out` each
    /// with its newline while `out` holds less than `limit` bytes; how many. What
    /// [`Script::step`] gives as [`super::Next::Send`] or [`super::Next::Ask`] one at a time, taken
    /// at once: a line read from the cassette's buffer is not made a `Frame` nor an
    /// item first, and a line none of the stream is not parsed again (the index knows
    /// which play as they are). [`Script::at`] is the last one's time then.
    pub fn stream_run(&mut self, out: &mut Vec<u8>, limit: usize) -> u64 {
        // Stream events told around a recording's lines go out one at a time.
        if self.partial.is_some() || !self.told.is_empty() {
            return 0;
        }
        let mut count = 0;
        while out.len() < limit {
            // What was read ahead comes first; then the cassette's buffer, and a line
            // it does not give (not one of the run's, or across the buffer's end) is
            // read as an item.
            if let Some(item) = self.ahead.front() {
                if !self.as_is(item) {
                    break;
                }
                if let Some(Item::Line { at, line, .. } | Item::Ask { at, line, .. }) = self.ahead.pop_front()
                {
                    out.extend_from_slice(&line);
                    out.push(b'\n');
                    self.at = at;
                    count += 1;
                }
                continue;
            }
            let taken = self.fast_stream(out, limit);
            count += taken;
            if taken == 0 {
                self.fill();
                if self.ahead.is_empty() {
                    break;
                }
            }
        }
        // While the turn has things left, one is read ahead.
        self.fill();
        count
    }

    /// Whether [`Script::step`] sends `item` as it is, and does nothing else of it but
    /// take its time: a line but a `result` (and but a state line to a client that
    /// reads none), a request nobody waits for (but `can_use_tool` to a client that
    /// did not ask to be asked).
    fn as_is(&self, item: &Item) -> bool {
        match item {
            Item::Line { kind: None, .. } => true,
            Item::Line {
                kind: Some((kind, subtype)),
                ..
            } => {
                kind != types::RESULT
                    && (self.states
                        || kind != types::SYSTEM
                        || subtype.as_deref() != Some(system::SESSION_STATE_CHANGED))
            }
            Item::Ask {
                subtype, answered, ..
            } => !answered && (self.asks || subtype != control::CAN_USE_TOOL),
            Item::Await { .. } | Item::Interrupt => false,
        }
    }

    /// The turn's next stdout lines that [`Script::step`] would send as they are, in
    /// the cassette's read buffer (none held in memory), appended to `out` as
    /// [`Script::stream_run`] does; how many. A line of the stream is known by its
    /// first key; any other by the index ([`index::Index::plays_as_is`]), for a client that
    /// asks to be asked and reads states (to another, only the stream's lines).
    fn fast_stream(&mut self, out: &mut Vec<u8>, limit: usize) -> u64 {
        if self.live.is_some() {
            return self.stream_live(out, limit);
        }
        let Some(Playing {
            frames: Frames::File(reader),
            next,
            until,
        }) = self.playing.as_mut()
        else {
            return 0;
        };
        let index = &self.index;
        let others = self.asks && self.states;
        let (first, room) = (*next, until.saturating_sub(*next));
        let (mut taken, mut at) = (0usize, self.at);
        let read = reader.fast_lines(|t, event| {
            if taken >= room
                || out.len() >= limit
                || !(index::streamed(event) || (others && index.plays_as_is(first + taken)))
            {
                return false;
            }
            out.extend_from_slice(event);
            out.push(b'\n');
            at = t;
            taken += 1;
            true
        });
        *next += taken;
        self.at = at;
        if let Err(e) = read {
            self.error = Some(e);
            self.playing = None;
        }
        taken as u64
    }
}
