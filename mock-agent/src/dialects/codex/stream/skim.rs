//! The summary of a large recording told by a skim: its bytes searched a block at a
//! time for the few words a line that matters holds, and only such lines read, rather
//! than each line framed and looked at ([`Summary::read`]'s full pass).
//!
//! A stdout line changes what [`Said`] holds only if it spells `thread.started`,
//! `turn.failed`, `turn.completed` or `agent_message` (its type, or its item's), or a
//! `\u` escape (which may spell any of them): any other escape stands for no letter.
//! Of those, the first `thread.started` line that sets the thread counts, any
//! `turn.failed` line, and the last line that sets the message or the usage. A stderr
//! frame spells `"err"` (or a `\u` escape). The ending is the last line, the last
//! stdout line's time the one before it. Where any of this cannot be told so (a `\u`
//! escape anywhere, a line that matters not of the writer's shape, a last line that is
//! no ending, ...), the skim gives up and the full pass is read: what the summary
//! says is the same either way (tested). The skim checks neither the lines it does
//! not read nor the UTF-8 of the file: the replay reads it from its start
//! (`checked_from` unset), so a broken line of a large file fails when the replay
//! reaches it, with its file, line and column.
//!
//! A file of [`PART`] bytes or more is skimmed in parts at once, one a thread (two
//! when two cores are there): the skim is the wait before the first line, and the
//! consumer has nothing to read meanwhile. Each part is a span of whole lines; what
//! the parts kept is joined in their order ([`Kept::then`]), as one skim of the whole
//! would have kept it, or the skim gives up when a part does (tested against one part).

use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::Path;

use memchr::memmem::Finder;

use harness::cassette::{out_event, Position, Reader};
use harness::frames::{Frame, Stream};

use super::{Said, Summary};
use crate::execute::recorded;

/// The bytes read and searched at a time (whole lines of them).
const BLOCK: usize = 256 << 10;

/// The least size of a part of a file skimmed in parts.
const PART: u64 = 8 << 20;

/// What the skim keeps of the lines it read.
#[derive(Default)]
struct Kept {
    stderr: Vec<Vec<u8>>,
    thread_id: Option<String>,
    failed: bool,
    /// The last line that spells `agent_message`, and the last that spells
    /// `turn.completed`.
    message: Option<Vec<u8>>,
    usage: Option<Vec<u8>>,
    /// The last line, and the one before it.
    last: Vec<u8>,
    before_last: Vec<u8>,
    /// How many lines were seen as the last or the one before (at most 2 counted).
    seen: u8,
}

impl Kept {
    /// What one skim keeps of this part's lines followed by `next`'s.
    fn then(mut self, next: Kept) -> Kept {
        self.stderr.extend(next.stderr);
        let (last, before_last) = match next.seen {
            0 => (self.last, self.before_last),
            1 => (next.last, self.last),
            _ => (next.last, next.before_last),
        };
        Kept {
            stderr: self.stderr,
            thread_id: self.thread_id.or(next.thread_id),
            failed: self.failed || next.failed,
            message: next.message.or(self.message),
            usage: next.usage.or(self.usage),
            last,
            before_last,
            seen: self.seen.saturating_add(next.seen).min(2),
        }
    }
}

/// The summary of the cassette at `path` told by a skim; `None` where the skim cannot
/// tell it (read the full pass then).
pub(super) fn summary(path: &Path) -> Option<Summary> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    summary_in(path, cores.min(2), PART)
}

/// [`summary`], the file skimmed in up to `parts` parts of at least `least` bytes at
/// once.
pub(super) fn summary_in(path: &Path, parts: usize, least: u64) -> Option<Summary> {
    let reader = harness::cassette::open(path).ok()?;
    reader.header()?;
    let start = reader.position().offset;
    drop(reader);
    let len = std::fs::metadata(path).ok()?.len();
    // Each part's block is made (and freed) by this thread: a part's thread leaves no
    // memory of its own behind for the replay's peak.
    let mut window = vec![0u8; BLOCK];
    let spans = spans(path, start, len, parts, least, &mut window)?;
    let mut blocks: Vec<Vec<u8>> = std::iter::once(window)
        .chain(spans.iter().skip(1).map(|_| vec![0u8; BLOCK]))
        .collect();
    let kept = std::thread::scope(|scope| {
        let (first, rest) = spans.split_first()?;
        let (block, blocks) = blocks.split_first_mut()?;
        let others: Vec<_> = rest
            .iter()
            .zip(blocks)
            .map(|(&span, block)| scope.spawn(move || skim_span(path, span, block)))
            .collect();
        let mut kept = skim_span(path, *first, block)?;
        for other in others {
            kept = kept.then(other.join().ok()??);
        }
        Some(kept)
    })?;
    // What the last lines say: the ending, and the last stdout line's time.
    let Some(Frame::End(end)) = frame(path, &kept.last) else {
        return None;
    };
    let (last_at, _) = out_event(&kept.before_last)?;
    let (final_message, usage) = (
        match &kept.message {
            Some(line) => Some(said(line)?.final_message?),
            None => None,
        },
        match &kept.usage {
            Some(line) => {
                let said = said(line)?;
                said.completed.then_some(said.usage)?
            }
            None => Default::default(),
        },
    );
    Some(Summary {
        recorded: recorded::Summary {
            stderr: kept.stderr,
            exit: Some(end.exit),
            last_at: Some(last_at),
            checked_from: None,
        },
        exit: end.exit,
        thread_id: kept.thread_id,
        failed: kept.failed,
        usage,
        final_message,
    })
}

/// The words searched for, each searcher made once.
struct Words {
    escape: Finder<'static>,
    err: Finder<'static>,
    thread: Finder<'static>,
    failed: Finder<'static>,
    message: Finder<'static>,
    completed: Finder<'static>,
}

/// The spans of whole lines (from, to; the last to the end of the file) of the file
/// at `path` from `start` (a line's start) to `len` for `parts` parts, each of at
/// least `least` bytes (`window` of [`BLOCK`] bytes read into to find their ends);
/// `None` where a part's end is not found.
fn spans(
    path: &Path,
    start: u64,
    len: u64,
    parts: usize,
    least: u64,
    window: &mut [u8],
) -> Option<Vec<(u64, Option<u64>)>> {
    let size = len.saturating_sub(start);
    let parts = u64::try_from(parts.max(1))
        .ok()?
        .min((size / least.max(1)).max(1));
    let mut spans = Vec::new();
    let mut from = start;
    for n in 1..parts {
        // The part ends after the first line end at or past its share of the bytes
        // (none: the rest is the last part).
        let near = (start + size / parts * n).max(from);
        let Some(end) = line_end(path, near, window)? else {
            break;
        };
        spans.push((from, Some(end)));
        from = end;
    }
    spans.push((from, None));
    Some(spans)
}

/// Where the line that holds the byte at `at` of the file at `path` ends (after its
/// newline), read into `window`: `Some(None)` when no newline follows, `None` when it
/// is not within `window`'s length (or the file cannot be read).
fn line_end(path: &Path, at: u64, window: &mut [u8]) -> Option<Option<u64>> {
    let mut file = std::fs::File::open(path).ok()?;
    file.seek(SeekFrom::Start(at)).ok()?;
    let mut filled = 0;
    while filled < window.len() {
        match file.read(&mut window[filled..]) {
            Ok(0) => return Some(None),
            Ok(read) => {
                if let Some(n) = memchr::memchr(b'\n', &window[filled..filled + read]) {
                    return Some(Some(at + (filled + n) as u64 + 1));
                }
                filled += read;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    None
}

/// What a skim of the span `(from, to)` of the file at `path` keeps, read a `buf`
/// at a time.
fn skim_span(path: &Path, (from, to): (u64, Option<u64>), buf: &mut [u8]) -> Option<Kept> {
    let mut file = std::fs::File::open(path).ok()?;
    file.seek(SeekFrom::Start(from)).ok()?;
    match to {
        Some(to) => skim(path, &mut file.take(to - from), buf),
        None => skim(path, &mut file, buf),
    }
}

/// Reads `file` to its end a block (`buf`) at a time, keeping what the summary
/// needs; `None` where a skim cannot tell it.
fn skim(path: &Path, file: &mut impl Read, buf: &mut [u8]) -> Option<Kept> {
    use harness::dialects::codex::wire::{events, items};
    let words = Words {
        escape: Finder::new(b"\\u"),
        err: Finder::new(b"\"err\""),
        thread: Finder::new(events::THREAD_STARTED.as_bytes()),
        failed: Finder::new(events::TURN_FAILED.as_bytes()),
        message: Finder::new(items::AGENT_MESSAGE.as_bytes()),
        completed: Finder::new(events::TURN_COMPLETED.as_bytes()),
    };
    let mut kept = Kept::default();
    let (mut filled, mut eof) = (0, false);
    loop {
        while filled < buf.len() && !eof {
            match file.read(&mut buf[filled..]) {
                Ok(0) => eof = true,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
        // Whole lines (a block with none holds a line too long to skim).
        let end = if eof {
            filled
        } else {
            memchr::memrchr(b'\n', &buf[..filled])? + 1
        };
        if end > 0 {
            block(path, &buf[..end], &words, &mut kept)?;
        }
        buf.copy_within(end..filled, 0);
        filled -= end;
        if eof {
            return Some(kept);
        }
    }
}

/// What one block of whole lines says, kept; `None` where a skim cannot tell it.
fn block(path: &Path, block: &[u8], words: &Words, kept: &mut Kept) -> Option<()> {
    if words.escape.find(block).is_some() {
        return None;
    }
    let mut last_err = None;
    for at in words.err.find_iter(block) {
        let line = line_at(block, at);
        // A line is read once, whatever it spells twice.
        if last_err == Some(line.as_ptr()) {
            continue;
        }
        last_err = Some(line.as_ptr());
        if out_event(line).is_some() {
            // A stdout line whose event spells it: what it says is told below.
            continue;
        }
        match frame(path, line)? {
            Frame::Line(l) if l.stream == Stream::Stderr => kept.stderr.push(l.bytes),
            _ => {}
        }
    }
    if kept.thread_id.is_none() {
        for at in words.thread.find_iter(block) {
            kept.thread_id = said(line_at(block, at))?.thread_id;
            if kept.thread_id.is_some() {
                break;
            }
        }
    }
    if !kept.failed {
        for at in words.failed.find_iter(block) {
            if said(line_at(block, at))?.failed {
                kept.failed = true;
                break;
            }
        }
    }
    if let Some(at) = last(&words.message, block) {
        kept.message = Some(line_at(block, at).to_vec());
    }
    if let Some(at) = last(&words.completed, block) {
        kept.usage = Some(line_at(block, at).to_vec());
    }
    let mut lines = block.strip_suffix(b"\n").unwrap_or(block).rsplit(|&b| b == b'\n');
    if let Some(last) = lines.next() {
        kept.before_last = match lines.next() {
            Some(before) => {
                kept.seen = 2;
                before.to_vec()
            }
            None => {
                kept.seen = kept.seen.saturating_add(1).min(2);
                std::mem::take(&mut kept.last)
            }
        };
        kept.last = last.to_vec();
    }
    Some(())
}

/// Where the last of `finder`'s word in `block` starts: windows of it searched
/// forward, from its end back (a forward search is the vectorized one).
fn last(finder: &Finder<'_>, block: &[u8]) -> Option<usize> {
    const WINDOW: usize = 16 << 10;
    let overlap = finder.needle().len().saturating_sub(1);
    let mut end = block.len();
    while end > 0 {
        let start = end.saturating_sub(WINDOW);
        // Each word that starts in `start..end` is whole in the window.
        let window = &block[start..(end + overlap).min(block.len())];
        if let Some(at) = finder.find_iter(window).last() {
            return Some(start + at);
        }
        end = start;
    }
    None
}

/// The line of `block` that holds the byte at `at` (no newline).
fn line_at(block: &[u8], at: usize) -> &[u8] {
    let start = memchr::memrchr(b'\n', &block[..at]).map_or(0, |n| n + 1);
    let end = memchr::memchr(b'\n', &block[at..]).map_or(block.len(), |n| at + n);
    &block[start..end]
}

/// What a stdout line of the writer's shape says, alone; `None` for any other line.
fn said(line: &[u8]) -> Option<Said> {
    let (_, event) = out_event(line)?;
    let mut said = Said::default();
    said.line(event);
    said.finish();
    Some(said)
}

/// The frame `line` holds, read as the replay reads it; `None` for none.
fn frame(path: &Path, line: &[u8]) -> Option<Frame> {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line);
    bytes.push(b'\n');
    Reader::resume(path, Cursor::new(bytes), Position::default())
        .next()?
        .ok()
}
