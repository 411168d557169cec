//! What the dialects whose CLI writes one JSON value a line share besides their faults
//! ([`crate::faults::lines`]): a cassette header that names the dialect, a recorded
//! run read back as its lines ([`Recorded`]), and a run written as a cassette at time
//! zero ([`write_cassette`]) and a case whose faults may exit 0 mid-run ([`case`]). Each dialect gives its names;
//! none is named here.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::cassette::{Header, Writer};
use crate::error::{CassetteError, WriteError};
use crate::expect::{Expectation, MISBEHAVING};
use crate::faults::lines::{exits_zero, Faults};
use crate::format::OutputFormat;
use crate::frames::{Ending, Exit, Frame, Line, Stream};

use super::dialect::Dialect;
use super::matrix::{Case, CaseSource};

/// A case of `dialect` in `format` with the fault list `faults` (read as `parsed`) and
/// what a careful consumer concludes of it, `(expect, segments)`: named `name`, and
/// marked [`MISBEHAVING`] when a fault exits 0 in the middle of a run (what the real
/// CLI never does).
pub fn case<F: Faults>(
    dialect: &'static dyn Dialect,
    name: String,
    (source, format): (CaseSource, OutputFormat),
    (faults, parsed): (&str, &[F]),
    (expect, segments): (Expectation, Vec<String>),
) -> Case {
    let mut name = name;
    if exits_zero(parsed) && !name.ends_with(MISBEHAVING) {
        name.push_str(MISBEHAVING);
    }
    let mut case = Case::conversation(dialect, name, source, faults, (expect, segments));
    case.format = format;
    case
}

/// A standard matrix, `(label, spec)`: `clean`, then each of `presets` (the ways the
/// real CLI fails) under its own name, then the `placed` faults.
pub fn matrix(presets: &[&str], placed: Vec<(&str, String)>) -> Vec<(String, String)> {
    let clean = std::iter::once(("clean".to_owned(), String::new()));
    let presets = presets.iter().map(|p| ((*p).to_owned(), (*p).to_owned()));
    let placed = placed.into_iter().map(|(label, spec)| (label.to_owned(), spec));
    clean.chain(presets).chain(placed).collect()
}

/// The stderr faults of a standard matrix: a line the real CLI writes there
/// (`stderr-message`, `text`), and a flood of 1 MiB (`stderr-flood`).
pub fn stderr_faults(text: &str) -> Vec<(&'static str, String)> {
    vec![
        ("stderr-message", format!("stderr:text=\"{text}\"")),
        ("stderr-flood", "stderr-flood:bytes=1048576".to_owned()),
    ]
}

/// The unreadable lines of a standard matrix: one that is not JSON, at `at`
/// (`malformed`), and one of 1 MiB (`huge-1m`).
pub fn unreadable(at: &str) -> Vec<(&'static str, String)> {
    vec![
        ("malformed", format!("malformed:at={at}")),
        ("huge-1m", "huge".to_owned()),
    ]
}

/// Writes a cassette at `path` with `header`: `lines` (each on its stream), then the
/// end, `exit`; all at time zero.
pub fn write_cassette(
    path: &Path,
    header: &Header,
    lines: impl IntoIterator<Item = (Stream, Vec<u8>)>,
    exit: Exit,
) -> Result<PathBuf, WriteError> {
    let mut writer = Writer::create(path, header)?;
    for (stream, bytes) in lines {
        writer.write(&Frame::Line(Line {
            at: Duration::ZERO,
            stream,
            bytes,
            newline: true,
        }))?;
    }
    writer.write(&Frame::End(Ending {
        at: Duration::ZERO,
        exit,
    }))?;
    writer.finish()
}

/// A recorded run of a CLI that writes lines: its stdout and stderr lines and how it
/// ended. `D`: the dialect it is a recording of (each dialect reads more of it).
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded<D> {
    /// Its stdout lines, in order, without their newlines.
    pub stdout: Vec<Vec<u8>>,
    /// Its stderr lines.
    pub stderr: Vec<Vec<u8>>,
    /// How it ended (exit 0 when the recording does not say).
    pub exit: Exit,
    /// Its dialect.
    pub dialect: PhantomData<D>,
}

impl<D> Recorded<D> {
    /// A run that wrote `stdout` and `stderr` and ended with `exit`.
    pub fn new(stdout: Vec<Vec<u8>>, stderr: Vec<Vec<u8>>, exit: Exit) -> Self {
        Recorded {
            stdout,
            stderr,
            exit,
            dialect: PhantomData,
        }
    }

    /// Reads the recording at `path`.
    pub fn open(path: &Path) -> Result<Self, CassetteError> {
        let mut reader = crate::cassette::open(path)?;
        let mut recording = Recorded::new(Vec::new(), Vec::new(), Exit::Code(0));
        for frame in reader.by_ref() {
            match frame? {
                Frame::Line(line) if line.stream == Stream::Stdout => recording.stdout.push(line.bytes),
                Frame::Line(line) if line.stream == Stream::Stderr => recording.stderr.push(line.bytes),
                Frame::End(end) => recording.exit = end.exit,
                _ => {}
            }
        }
        Ok(recording)
    }

    /// Its stdout lines that are JSON, read.
    pub fn values(&self) -> impl Iterator<Item = Value> + '_ {
        self.stdout
            .iter()
            .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
    }
}
