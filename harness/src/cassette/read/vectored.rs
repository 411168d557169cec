//! A player's run of lines written straight from the read buffer of a fast reader
//! ([`Reader::fast_write_run`]): the events and their newlines handed to the kernel
//! as slices of the buffer (`writev`), not copied into a buffer of their own first.

use std::io::{self, BufRead, IoSlice, Write};

use super::{canonical_out, Kind, Reader};
use crate::cassette::CopyError;
use crate::error::CassetteError;

/// The most slices one vectored write hands the kernel (Linux's `IOV_MAX`): an event
/// and its newline are two.
pub const WRITE_SLICES: usize = 1024;

/// What [`Reader::fast_write_run`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WrittenRun {
    /// Lines, each an event and its newline.
    pub lines: usize,
    /// Bytes, the newlines counted.
    pub bytes: u64,
}

impl<R: BufRead> Reader<R> {
    /// As [`Reader::fast_run`], the run written to `out` rather than appended to a
    /// buffer: the events of the stdout frames of the writer's shape whole in the read
    /// buffer (their times in order), each with its newline, while less than `limit`
    /// bytes are written, at most `most` of them, and only while `keep` takes the next
    /// one's event. They are written straight from the read buffer, with vectored
    /// writes of up to [`WRITE_SLICES`] slices; a write that takes part of them is
    /// written on from where it stopped (and one interrupted, again). The same lines
    /// as [`Reader::fast_run`] takes, in the same bytes; [`Reader::position`] is after
    /// the last one. 0 lines as [`Reader::fast_run`] says: [`Iterator::next`] reads the
    /// next frame.
    ///
    /// A failed write is [`CopyError::Write`]; the lines of the run are read all the
    /// same (the reader is after them), as the lines [`Reader::fast_run`] appended are
    /// read whether or not their buffer is written.
    ///
    /// Whether it is faster than a copy depends on the lines: each line is two slices
    /// for the kernel to walk, so short lines (a few hundred bytes) cost more so than a
    /// copy of them costs (see benches/RESULTS.md, 2026-11-28, h-perf-acp).
    pub fn fast_write_run(
        &mut self,
        out: &mut impl Write,
        limit: usize,
        most: usize,
        mut keep: impl FnMut(&[u8]) -> bool,
    ) -> Result<WrittenRun, CopyError> {
        let mut written = WrittenRun::default();
        if !self.fast || self.done || self.kind != Kind::Cassette {
            return Ok(written);
        }
        let buf = self.input.fill_buf().map_err(|source| CassetteError::Read {
            path: self.path.clone(),
            line: self.line_no + 1,
            source,
        })?;
        let lines = memchr::memrchr(b'\n', buf).map_or(0, |last| last + 1);
        if !self.reread && self.utf8_checked < lines {
            match simdutf8::compat::from_utf8(&buf[..lines]) {
                Ok(_) => self.utf8_checked = lines,
                Err(e) => self.utf8_checked = e.valid_up_to(),
            }
        }
        let checked = if self.reread {
            lines
        } else {
            self.utf8_checked.min(lines)
        };
        // Where each event taken is in the buffer, and where the run ends.
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let (mut at, mut last_at) = (0, self.last_at);
        let base = buf.as_ptr() as usize;
        for end in memchr::memchr_iter(b'\n', &buf[..checked]) {
            if usize::try_from(written.bytes).unwrap_or(usize::MAX) >= limit || written.lines >= most {
                break;
            }
            let Some((t, event)) = canonical_out(&buf[at..end]) else {
                break;
            };
            if t < last_at || !keep(event) {
                break;
            }
            let start = event.as_ptr() as usize - base;
            spans.push((start, start + event.len()));
            last_at = t;
            at = end + 1;
            written.lines += 1;
            written.bytes += event.len() as u64 + 1;
        }
        let mut slices = Vec::with_capacity(WRITE_SLICES.min(2 * spans.len()));
        let mut result = Ok(());
        for batch in spans.chunks(WRITE_SLICES / 2) {
            slices.clear();
            for &(start, end) in batch {
                slices.push(IoSlice::new(&buf[start..end]));
                slices.push(IoSlice::new(b"\n"));
            }
            result = write_all_vectored(out, &mut slices);
            if result.is_err() {
                break;
            }
        }
        self.input.consume(at);
        self.offset += at as u64;
        self.utf8_checked = self.utf8_checked.saturating_sub(at);
        self.line_no += written.lines as u64;
        self.last_at = last_at;
        result.map(|()| written).map_err(CopyError::Write)
    }
}

/// Writes every byte of `slices` to `out`, vectored, on from where a write that takes
/// part of them stopped.
fn write_all_vectored(out: &mut impl Write, mut slices: &mut [IoSlice<'_>]) -> io::Result<()> {
    while !slices.is_empty() {
        match out.write_vectored(slices) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Cursor};
    use std::path::Path;

    use super::*;
    use crate::frames::Frame;

    /// A cassette of `n` stdout lines of varied lengths, with a stdin line, a stderr
    /// line and a frame not of the writer's shape among them.
    fn cassette(n: usize) -> Vec<u8> {
        let mut text = String::from("{\"mock_agent_cassette\":2,\"invocation\":{\"acp\":true}}\n");
        for i in 0..n {
            let t = 5 + i / 50;
            let line = match i % 97 {
                13 => format!(r#"{{"t":{t},"in":{{"jsonrpc":"2.0","id":3,"method":"session/prompt"}}}}"#),
                41 => format!(r#"{{"t":{t},"err":"warning {i}"}}"#),
                // The writer's shape but for the space: read as a frame.
                70 => format!(r#"{{"t":{t}, "out":{{"a":1}}}}"#),
                _ => format!(
                    r#"{{"t":{t},"out":{{"jsonrpc":"2.0","method":"session/update","params":{{"i":{i},"text":"{}"}}}}}}"#,
                    "é".repeat(i % 300)
                ),
            };
            text.push_str(&line);
            text.push('\n');
        }
        text.push_str("{\"t\":99,\"exit\":0}\n");
        text.into_bytes()
    }

    fn reader(bytes: &[u8], buffer: usize) -> Reader<BufReader<Cursor<Vec<u8>>>> {
        Reader::new(
            Path::new("t.cassette"),
            BufReader::with_capacity(buffer, Cursor::new(bytes.to_vec())),
        )
        .expect("a cassette")
        .fast()
    }

    /// Takes every few bytes it is given, is interrupted now and then, and keeps them.
    struct Stingy {
        kept: Vec<u8>,
        calls: usize,
        fail: Option<usize>,
    }

    impl Write for Stingy {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.write_vectored(&[IoSlice::new(buf)])
        }

        fn write_vectored(&mut self, slices: &[IoSlice<'_>]) -> io::Result<usize> {
            self.calls += 1;
            if self.fail.is_some_and(|after| self.kept.len() >= after) {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            if self.calls.is_multiple_of(5) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            // At most 1000 bytes, ending anywhere (in a slice, after one).
            let mut room = 1 + self.calls * 7919 % 1000;
            let mut taken = 0;
            for slice in slices {
                let n = slice.len().min(room);
                self.kept.extend_from_slice(&slice[..n]);
                taken += n;
                room -= n;
                if room == 0 {
                    break;
                }
            }
            Ok(taken)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Reads `bytes` to its end, runs taken by `run` (0: a frame read, its stdout
    /// bytes kept); what stdout holds, and the position after each step.
    fn play(
        bytes: &[u8],
        buffer: usize,
        mut run: impl FnMut(&mut Reader<BufReader<Cursor<Vec<u8>>>>, &mut Vec<u8>) -> usize,
    ) -> (Vec<u8>, Vec<crate::cassette::Position>) {
        let mut reader = reader(bytes, buffer);
        let (mut out, mut positions) = (Vec::new(), Vec::new());
        loop {
            if run(&mut reader, &mut out) > 0 {
                positions.push(reader.position());
                continue;
            }
            match reader.next() {
                Some(Ok(Frame::Line(line))) if line.stream == crate::frames::Stream::Stdout => {
                    out.extend_from_slice(&line.bytes);
                    out.push(b'\n');
                }
                Some(Ok(_)) => {}
                None => break,
                Some(Err(e)) => panic!("reads: {e}"),
            }
            positions.push(reader.position());
        }
        (out, positions)
    }

    #[test]
    fn a_run_written_vectored_is_the_run_fast_run_collects() {
        let bytes = cassette(3000);
        for buffer in [300, 4096, 64 << 10] {
            for (limit, most) in [(usize::MAX, usize::MAX), (5000, usize::MAX), (usize::MAX, 3)] {
                // A line whose `i` ends in 7 is not taken.
                let keep = |event: &[u8]| memchr::memmem::find(event, b"7,\"text\"").is_none();
                let collected = play(&bytes, buffer, |reader, out| {
                    let before = out.len();
                    reader
                        .fast_run(out, before.saturating_add(limit), most, keep)
                        .expect("reads")
                });
                let mut stingy = Stingy {
                    kept: Vec::new(),
                    calls: 0,
                    fail: None,
                };
                let written = play(&bytes, buffer, |reader, out| {
                    let before = stingy.kept.len();
                    let run = reader
                        .fast_write_run(&mut stingy, limit, most, keep)
                        .expect("writes");
                    assert_eq!(run.bytes as usize, stingy.kept.len() - before, "bytes counted");
                    assert!(run.lines <= most);
                    out.extend_from_slice(&stingy.kept[before..]);
                    run.lines
                });
                assert!(stingy.calls > 100, "partial writes: {}", stingy.calls);
                assert_eq!(collected, written, "buffer {buffer}, limit {limit}, most {most}");
                assert!(written.1.len() < 3000, "runs of several lines");
            }
        }
    }

    #[test]
    fn a_failed_write_is_said_and_the_run_is_read() {
        let bytes = cassette(500);
        let mut reader = reader(&bytes, 64 << 10);
        let mut out = Stingy {
            kept: Vec::new(),
            calls: 0,
            fail: Some(500),
        };
        let failed = reader.fast_write_run(&mut out, usize::MAX, usize::MAX, |_| true);
        assert!(
            matches!(&failed, Err(CopyError::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe),
            "{failed:?}"
        );
        // The run's 13 lines (up to the stdin line) are read all the same.
        assert_eq!(reader.line_no(), 1 + 13);
        assert!(out.kept.len() >= 500);
    }

    #[test]
    fn a_reader_that_is_not_fast_writes_nothing() {
        let bytes = cassette(20);
        let mut slow =
            Reader::new(Path::new("t.cassette"), BufReader::new(Cursor::new(bytes))).expect("reads");
        let mut out = Vec::new();
        let run = slow
            .fast_write_run(&mut out, usize::MAX, usize::MAX, |_| true)
            .expect("reads");
        assert_eq!(run, WrittenRun::default());
        assert!(out.is_empty());
    }
}
