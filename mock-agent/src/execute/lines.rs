//! The one reader of the client's lines: a conversation's server (whatever the
//! dialect) reads stdin on a thread of its own with [`read`], and takes the lines from
//! the [`inbox`] channel, bounded by bytes, as it goes.
//!
//! Memory stays bounded whatever the client writes: a line is at most
//! [`Reading::max_line`] bytes (a longer one is [`Incoming::TooLong`]: the reader
//! either stops there or drops it and goes on, as [`AfterTooLong`] says), and at most
//! [`inbox::IN_FLIGHT`] bytes wait in the channel; past them stdin is not read until
//! the server has taken some, and the client's own pipe fills.

use std::io::BufRead;

use super::inbox::{self, Cost};

/// The longest line the stand-ins read from their client. A longer one is the mock's
/// own error: the real CLIs' limits are not known, and a client waiting for an answer
/// to a line that was dropped waits for ever.
pub const MAX_LINE: usize = 64 << 20;

/// The size of the reads of stdin.
const READ_BUFFER: usize = 64 << 10;

/// What comes from the client.
#[derive(Debug, PartialEq, Eq)]
pub enum Incoming {
    /// A line, without its newline.
    Line(Vec<u8>),
    /// A line longer than the limit: this many bytes of it were read.
    TooLong(usize),
    /// The end of stdin.
    Eof,
}

impl Cost for Incoming {
    /// A line costs what it holds allocated (up to twice its length, as it grew).
    fn cost(&self) -> usize {
        match self {
            Incoming::Line(line) => line.capacity() + inbox::OVERHEAD,
            Incoming::TooLong(_) | Incoming::Eof => inbox::OVERHEAD,
        }
    }
}

/// What the reader does after a line over the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterTooLong {
    /// Says so ([`Incoming::TooLong`], the bytes read of it up to here) and reads
    /// nothing more: no [`Incoming::Eof`] follows.
    Stop,
    /// Says so (the line's length) once it has ended, and reads the next line.
    Skip,
}

/// How the client's lines are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    /// The longest line.
    pub max_line: usize,
    /// After a longer one.
    pub after_too_long: AfterTooLong,
    /// A `\r` before the newline is dropped, and empty lines are not sent.
    pub lenient: bool,
}

impl Reading {
    /// Lines of up to [`MAX_LINE`] bytes, the first longer one ending the reading,
    /// each line sent as it is.
    pub const STRICT: Reading = Reading {
        max_line: MAX_LINE,
        after_too_long: AfterTooLong::Stop,
        lenient: false,
    };

    /// Lines of up to [`MAX_LINE`] bytes, a longer one dropped, `\r\n` read as a
    /// newline, empty lines skipped.
    pub const LENIENT: Reading = Reading {
        max_line: MAX_LINE,
        after_too_long: AfterTooLong::Skip,
        lenient: true,
    };
}

/// Reads stdin's lines as [`read`] does.
pub fn read_stdin(sender: &inbox::Sender<Incoming>, reading: Reading, at_end: impl FnOnce()) {
    let stdin = std::io::stdin();
    let input = std::io::BufReader::with_capacity(READ_BUFFER, stdin.lock());
    read(input, sender, reading, at_end);
}

/// Reads `input`'s lines and sends them, only as fast as the server takes them, until
/// its end (a last line without a newline is sent too; then `at_end` runs, and
/// [`Incoming::Eof`] is sent), a line over the limit when [`AfterTooLong::Stop`], or
/// the server is gone. An error reading is taken as the end.
pub fn read(
    mut input: impl BufRead,
    sender: &inbox::Sender<Incoming>,
    reading: Reading,
    at_end: impl FnOnce(),
) {
    let mut line = Vec::new();
    // Bytes of a line over the limit read so far (it is being skipped).
    let mut dropped = 0usize;
    loop {
        let buffer = match input.fill_buf() {
            Ok([]) => break,
            Ok(buffer) => buffer,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let (part, take) = match memchr::memchr(b'\n', buffer) {
            Some(at) => (&buffer[..at], Some(at + 1)),
            None => (buffer, None),
        };
        let used = take.unwrap_or(buffer.len());
        if dropped > 0 || line.len() + part.len() > reading.max_line {
            match reading.after_too_long {
                AfterTooLong::Stop => {
                    let read = line.len() + used;
                    drop(line);
                    let _ = sender.send(Incoming::TooLong(read));
                    return;
                }
                AfterTooLong::Skip => {
                    dropped += line.len() + part.len();
                    line.clear();
                }
            }
        } else {
            line.extend_from_slice(part);
        }
        input.consume(used);
        if take.is_some() {
            let sent = if dropped > 0 {
                Some(Incoming::TooLong(std::mem::take(&mut dropped)))
            } else {
                finish(&mut line, reading)
            };
            if let Some(sent) = sent {
                if sender.send(sent).is_err() {
                    return;
                }
            }
        }
    }
    let last = if dropped > 0 {
        Some(Incoming::TooLong(dropped))
    } else if line.is_empty() {
        None
    } else {
        finish(&mut line, reading)
    };
    if let Some(last) = last {
        if sender.send(last).is_err() {
            return;
        }
    }
    at_end();
    let _ = sender.send(Incoming::Eof);
}

/// The line read, taken from `line`, as it is sent (`None`: not sent).
fn finish(line: &mut Vec<u8>, reading: Reading) -> Option<Incoming> {
    if reading.lenient {
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.is_empty() {
            return None;
        }
    }
    Some(Incoming::Line(std::mem::take(line)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `read` sends of `input` with `reading` (lines of at most 8 bytes), and
    /// whether `at_end` ran.
    fn sent(input: &[u8], after_too_long: AfterTooLong, lenient: bool) -> (Vec<Incoming>, bool) {
        let (sender, mut inbox) = inbox::channel();
        let reading = Reading {
            max_line: 8,
            after_too_long,
            lenient,
        };
        let mut ended = false;
        // A reader that hands out 3 bytes at a time: lines cross reads.
        let input = std::io::BufReader::with_capacity(3, input);
        read(input, &sender, reading, || ended = true);
        drop(sender);
        let mut got = Vec::new();
        while let Some(incoming) = inbox.try_recv() {
            got.push(incoming);
        }
        (got, ended)
    }

    fn line(text: &str) -> Incoming {
        Incoming::Line(text.as_bytes().to_vec())
    }

    #[test]
    fn strict_sends_every_line_as_it_is_and_stops_at_a_long_one() {
        let (got, ended) = sent(b"ab\r\n\ncd\nlast", AfterTooLong::Stop, false);
        assert_eq!(
            got,
            vec![line("ab\r"), line(""), line("cd"), line("last"), Incoming::Eof]
        );
        assert!(ended);
        let (got, ended) = sent(b"ab\n0123456789\ncd\n", AfterTooLong::Stop, false);
        // The long line is told as soon as it is over the limit: 9 bytes read of it.
        assert_eq!(got, vec![line("ab"), Incoming::TooLong(9)]);
        assert!(!ended);
        // Exactly the limit is a line.
        let (got, _) = sent(b"01234567\n", AfterTooLong::Stop, false);
        assert_eq!(got, vec![line("01234567"), Incoming::Eof]);
    }

    #[test]
    fn lenient_drops_a_long_line_and_goes_on_and_skips_empty_ones() {
        let (got, ended) = sent(b"ab\r\n\r\n\n0123456789\ncd\n012345678", AfterTooLong::Skip, true);
        assert_eq!(
            got,
            vec![
                line("ab"),
                Incoming::TooLong(10),
                line("cd"),
                Incoming::TooLong(9),
                Incoming::Eof
            ]
        );
        assert!(ended);
        let (got, _) = sent(b"", AfterTooLong::Skip, true);
        assert_eq!(got, vec![Incoming::Eof]);
    }

    #[test]
    fn nothing_more_is_read_once_the_server_is_gone() {
        let (sender, inbox) = inbox::channel();
        drop(inbox);
        let mut ended = false;
        read(&b"a\nb\n"[..], &sender, Reading::STRICT, || ended = true);
        assert!(!ended);
    }
}
