//! Where a recorded conversation's frames are read from as it plays (a dialect's
//! script of a recording): the cassette, indexed in one pass and read again from
//! where each part starts, so memory stays flat whatever its size; or frames held in
//! memory (a generated conversation, a cassette read from a pipe).

use std::fs::File;
use std::io::{BufReader, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::cassette::{Position, Reader, PREFLIGHT_LIMIT};
use crate::error::{CassetteError, Diagnostic, ProblemKind};
use crate::frames::{Frame, FrameResult};

/// The read buffer of a reader of the cassette: as [`crate::cassette::open`]'s, so
/// that the same lines take the fast path. A part shorter than that is read with a
/// buffer of its size.
pub const READ_BUFFER: usize = 256 << 10;

/// Where a frame is on its tape: how many frames come before it, and where a reader of
/// the file was after the frame before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mark {
    /// How many frames come before it.
    pub frame: usize,
    /// Where a reader of the file was, after the frame before it.
    pub position: Position,
}

/// A recording's frames.
#[derive(Debug, Clone)]
pub enum Tape {
    /// A cassette, held open (a file renamed over its path does not change what
    /// plays), with its size and time when it was indexed.
    File {
        /// The cassette's path, for errors.
        path: PathBuf,
        /// The open file.
        file: Arc<File>,
        /// Its size and time of change when it was indexed: a file changed since is
        /// not read as if it were the same.
        len: u64,
        /// Its time of change then.
        modified: Option<SystemTime>,
    },
    /// Frames held in memory.
    Memory(Arc<[Frame]>),
}

impl Tape {
    /// The cassette at `path`, open, and a reader of it from its start (the one pass
    /// that indexes it).
    pub fn open(path: &Path) -> Result<(Tape, Reader<BufReader<At>>), CassetteError> {
        let opened = |source| CassetteError::Open {
            path: path.to_owned(),
            source,
        };
        let file = Arc::new(File::open(path).map_err(opened)?);
        let metadata = file.metadata().map_err(opened)?;
        if metadata.is_dir() {
            return Err(opened(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "it is a directory, not a file",
            )));
        }
        let input = BufReader::with_capacity(READ_BUFFER, At::new(&file, 0));
        let reader = Reader::new(path, input)?;
        let tape = Tape::File {
            path: path.to_owned(),
            file,
            len: metadata.len(),
            modified: metadata.modified().ok(),
        };
        Ok((tape, reader))
    }

    /// Reads the rest of the cassette with `reader` (the one [`Tape::open`] gave, its
    /// header read), handing each frame to `add` with where the frame after it is. A file of up to [`PREFLIGHT_LIMIT`] bytes is
    /// checked in full on this pass, a larger one as every replay reads it (its
    /// events not parsed). Returns where the last frame ends.
    pub fn index(
        &self,
        mut reader: Reader<BufReader<At>>,
        mut add: impl FnMut(&Frame, Mark),
    ) -> Result<u64, CassetteError> {
        if matches!(self, Tape::File { len, .. } if *len > PREFLIGHT_LIMIT) {
            reader = reader.fast();
        }
        let mut frames = 0;
        while let Some(frame) = reader.next() {
            let frame = frame?;
            frames += 1;
            let after = Mark {
                frame: frames,
                position: reader.position(),
            };
            add(&frame, after);
        }
        Ok(reader.position().offset)
    }

    /// As [`Tape::index`], with an [`Indexer`]: where the file is read fast (over
    /// [`PREFLIGHT_LIMIT`]), each stdout line of the writer's shape whole in the read
    /// buffer is offered to [`Indexer::skim`] first, and one it takes is made no frame.
    pub fn index_with(
        &self,
        reader: Reader<BufReader<At>>,
        indexer: &mut impl Indexer,
    ) -> Result<u64, CassetteError> {
        let mut reader = self.reading(reader, PREFLIGHT_LIMIT);
        let mut frames = 0;
        while !index_on(&mut reader, &mut frames, indexer)? {}
        Ok(reader.position().offset)
    }

    /// `reader` (the one [`Tape::open`] gave, its header read) as the tape is read
    /// for its index: fast ([`Reader::fast`]) when the file is larger than
    /// `preflight`, else checked in full a frame at a time (tests give a small
    /// `preflight` to read a small file fast).
    pub fn reading(&self, reader: Reader<BufReader<At>>, preflight: u64) -> Reader<BufReader<At>> {
        if matches!(self, Tape::File { len, .. } if *len > preflight) {
            reader.fast()
        } else {
            reader
        }
    }
    /// The frames from `from` on; `until` is where the part to read ends (the file
    /// is read with a buffer no larger than the part).
    pub fn frames(&self, from: Mark, until: u64) -> Result<Frames, CassetteError> {
        match self {
            Tape::File {
                path,
                file,
                len,
                modified,
            } => {
                let line = from.position.line + 1;
                let now = file.metadata().map_err(|source| CassetteError::Read {
                    path: path.clone(),
                    line,
                    source,
                })?;
                if now.len() != *len || now.modified().ok() != *modified {
                    return Err(changed(path, line, *len, now.len()));
                }
                let size = until.saturating_sub(from.position.offset);
                let capacity = usize::try_from(size).map_or(READ_BUFFER, |size| size.clamp(1, READ_BUFFER));
                let input = BufReader::with_capacity(capacity, At::new(file, from.position.offset));
                Ok(Frames::File(Box::new(Reader::resume(path, input, from.position))))
            }
            Tape::Memory(frames) => Ok(Frames::Memory {
                frames: Arc::clone(frames),
                next: from.frame,
            }),
        }
    }
}

/// Reads on with `reader` (of [`Tape::reading`]), handing what it reads to `indexer`
/// ([`Tape::index_with`]'s one pass, or a part of it): a fast reader's stdout lines
/// of the writer's shape that [`Indexer::skim`] takes are made no frame (a run of them
/// told to [`Indexer::skimmed`]); every other frame is [`Indexer::add`]ed. `frames`
/// counts the frames read (kept by the caller from one part to the next). `true` at
/// the end of the file; `false` when the indexer paused after a frame
/// ([`Indexer::pause`]): calling again reads on from there.
pub fn index_on(
    reader: &mut Reader<BufReader<At>>,
    frames: &mut usize,
    indexer: &mut impl Indexer,
) -> Result<bool, CassetteError> {
    loop {
        let skimmed = reader.fast_lines(|at, event| indexer.skim(at, event))?;
        if skimmed > 0 {
            *frames += usize::try_from(skimmed).unwrap_or(usize::MAX);
            let after = Mark {
                frame: *frames,
                position: Reader::position(reader),
            };
            indexer.skimmed(skimmed, after);
        }
        let Some(frame) = reader.next() else {
            return Ok(true);
        };
        let frame = frame?;
        *frames += 1;
        let after = Mark {
            frame: *frames,
            position: Reader::position(reader),
        };
        indexer.add(&frame, after);
        if indexer.pause() {
            return Ok(false);
        }
    }
}

/// What indexes a tape's frames in [`Tape::index_with`] and [`index_on`].
pub trait Indexer {
    /// The next frame, a stdout line of the writer's shape (its time and event,
    /// borrowed from the read buffer), when nothing but that is needed of it: `true`
    /// when it was taken, `false` to have it read as a frame and [`Indexer::add`]ed.
    fn skim(&mut self, at: Duration, event: &[u8]) -> bool;

    /// The next frame; `after` is where the frame after it is.
    fn add(&mut self, frame: &Frame, after: Mark);

    /// The last `lines` frames were taken by [`Indexer::skim`], one run of them;
    /// `after` is where the frame after the last one is. By default nothing (an
    /// indexer that kept what it needed in `skim`).
    fn skimmed(&mut self, lines: u64, after: Mark) {
        let _ = (lines, after);
    }

    /// Asked after each frame [`Indexer::add`]ed: `true` stops [`index_on`] there (a
    /// part of the tape indexed). By default never.
    fn pause(&mut self) -> bool {
        false
    }
}

/// A tape's frames as they are read.
#[derive(Debug)]
pub enum Frames {
    /// Read from the file.
    File(Box<Reader<BufReader<At>>>),
    /// Taken from memory.
    Memory {
        /// The tape's frames.
        frames: Arc<[Frame]>,
        /// The next one's number.
        next: usize,
    },
}

impl Iterator for Frames {
    type Item = FrameResult;

    fn next(&mut self) -> Option<FrameResult> {
        match self {
            Frames::File(reader) => reader.next(),
            Frames::Memory { frames, next } => {
                let frame = frames.get(*next).cloned()?;
                *next += 1;
                Some(Ok(frame))
            }
        }
    }
}

/// What to do about a cassette that changed while it was replayed.
const HELP_CHANGED: &str = "leave a cassette as it is while mock-agent plays it: record to another \
    file, or play a copy";

/// The error of a cassette that changed after it was indexed.
fn changed(path: &Path, line: u64, was: u64, is: u64) -> CassetteError {
    let (kind, size) = match is.cmp(&was) {
        std::cmp::Ordering::Less => (
            ProblemKind::Truncated,
            format!("it was {was} bytes, it is {is} now"),
        ),
        std::cmp::Ordering::Greater => (ProblemKind::Data, format!("it was {was} bytes, it is {is} now")),
        std::cmp::Ordering::Equal => (ProblemKind::Data, "it was written to".to_owned()),
    };
    CassetteError::from(Diagnostic {
        path: path.to_owned(),
        line,
        column: 0,
        kind,
        message: format!("the cassette changed while mock-agent replayed it ({size})"),
        source_line: None,
        help: HELP_CHANGED.to_owned(),
    })
}

/// The error of a cassette that ends before the frames its index counted.
pub fn ended_early(frames: &Frames) -> CassetteError {
    let (path, line) = match frames {
        Frames::File(reader) => (reader.path().to_owned(), reader.line_no()),
        Frames::Memory { next, .. } => (PathBuf::from("<recording>"), *next as u64),
    };
    CassetteError::from(Diagnostic {
        path,
        line,
        column: 0,
        kind: ProblemKind::Truncated,
        message:
            "the cassette ends here; it went on when mock-agent opened it: it changed while it was replayed"
                .to_owned(),
        source_line: None,
        help: HELP_CHANGED.to_owned(),
    })
}

/// A file read from an offset of its own (`pread`): readers of one open file at
/// different places do not move each other.
#[derive(Debug)]
pub struct At {
    file: Arc<File>,
    offset: u64,
}

impl At {
    /// `file` read from `offset` on.
    pub fn new(file: &Arc<File>, offset: u64) -> At {
        At {
            file: Arc::clone(file),
            offset,
        }
    }
}

impl Read for At {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read_at(buf, self.offset)?;
        self.offset += n as u64;
        Ok(n)
    }
}
