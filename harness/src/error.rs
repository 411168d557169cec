//! Errors of the library, each mapped to a documented exit code
//! ([`crate::exit_codes`]).
//!
//! A problem in an input file is a [`Diagnostic`]: it names the file, line and column,
//! shows the offending line with a caret, says what kind of problem it is (a JSON
//! syntax error, a wrong field, a file cut short, an unsupported version) and what to
//! do about it.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::exit_codes;

/// What kind of problem a [`Diagnostic`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemKind {
    /// The text is not valid JSON.
    Syntax,
    /// Valid JSON, but a field is missing, unknown or of the wrong type.
    Data,
    /// The file ends in the middle of a value or before its last line.
    Truncated,
    /// The file is of a format version this build does not read.
    Version,
    /// The file cannot serve the request (e.g. a `text` recording asked for `json`).
    Unsupported,
}

impl ProblemKind {
    fn label(self) -> &'static str {
        match self {
            ProblemKind::Syntax => "invalid JSON",
            ProblemKind::Data => "invalid data",
            ProblemKind::Truncated => "file cut short",
            ProblemKind::Version => "unsupported version",
            ProblemKind::Unsupported => "cannot replay",
        }
    }
}

/// A problem at a place in an input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file, as the user named it.
    pub path: PathBuf,
    /// 1-based line number.
    pub line: u64,
    /// 1-based column (in bytes), 0 when the problem concerns the whole line.
    pub column: u64,
    /// What kind of problem.
    pub kind: ProblemKind,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The offending line, when there is one.
    pub source_line: Option<String>,
    /// What to do about it.
    pub help: String,
}

impl Diagnostic {
    /// Attaches the text of the offending line (lossily decoded, trimmed of its line
    /// ending). Of a long line, only what the message shows is kept: up to a little
    /// past the column.
    #[must_use]
    pub fn with_source(mut self, line: &[u8]) -> Self {
        let keep = (self.column as usize).saturating_add(4 * EXCERPT_CHARS);
        let line = &line[..line.len().min(keep)];
        let text = String::from_utf8_lossy(line);
        self.source_line = Some(text.trim_end_matches(['\n', '\r']).to_owned());
        self
    }
}

/// A diagnostic is its own cause: it has no source.
impl std::error::Error for Diagnostic {}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.path.display(), self.line)?;
        if self.column > 0 {
            write!(f, ":{}", self.column)?;
        }
        write!(f, ": {}: {}", self.kind.label(), self.message)?;
        if let Some(source) = &self.source_line {
            let (shown, caret) = excerpt(source, self.column as usize);
            let gutter = self.line.to_string();
            let pad = " ".repeat(gutter.len());
            write!(f, "\n{pad} |\n{gutter} | {shown}")?;
            if let Some(caret) = caret {
                write!(f, "\n{pad} | {}^", " ".repeat(caret))?;
            }
        }
        write!(f, "\nhelp: {}", self.help)
    }
}

/// At most this many characters of a line are shown around the column.
const EXCERPT_CHARS: usize = 100;

/// Cuts a long line to a window around `column` (1-based, in bytes) and returns
/// the window and the caret's position in it, in characters.
fn excerpt(line: &str, column: usize) -> (String, Option<usize>) {
    // Only the characters near the column are looked at (a line may be 96 MiB long):
    // a window from a character boundary well before it.
    let mut from = column.saturating_sub(4 * EXCERPT_CHARS + 1).min(line.len());
    while !line.is_char_boundary(from) {
        from -= 1;
    }
    let chars: Vec<(usize, char)> = line[from..]
        .char_indices()
        .map(|(i, c)| (from + i, c))
        .take(8 * EXCERPT_CHARS)
        .collect();
    // The character the column points at (serde_json points just past a
    // problem at the end of a line).
    let at = (column > 0).then(|| {
        chars
            .iter()
            .position(|(byte, _)| *byte + 1 >= column)
            .unwrap_or(chars.len())
    });
    let centre = at.unwrap_or(0);
    let start = centre.saturating_sub(EXCERPT_CHARS / 2);
    let end = (start + EXCERPT_CHARS).min(chars.len());
    let shown_to = chars.get(end).map_or(line.len(), |(byte, _)| *byte);
    let cut_before = from > 0 || start > 0;
    let mut shown = String::new();
    if cut_before {
        shown.push('…');
    }
    shown.extend(chars[start..end].iter().map(|(_, c)| match c {
        '\t' => ' ',
        c if c.is_control() => '�',
        c => *c,
    }));
    if shown_to < line.len() {
        shown.push('…');
    }
    let caret = at.map(|at| at - start + usize::from(cut_before));
    (shown, caret)
}

/// An error reading a cassette or capture.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CassetteError {
    /// The file cannot be opened.
    #[error(
        "{}: cannot open: {source}\nhelp: check the path given to `replay` or in MOCK_AGENT_CASSETTE",
        path.display()
    )]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Reading failed part way.
    #[error("{}:{line}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The line being read.
        line: u64,
        /// Why.
        source: io::Error,
    },
    /// The content is wrong at a place.
    #[error("{0}")]
    Invalid(Box<Diagnostic>),
}

impl CassetteError {
    /// The exit code the binary ends with on this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            CassetteError::Open { .. } => exit_codes::NO_INPUT,
            CassetteError::Read { .. } => exit_codes::IO_ERROR,
            CassetteError::Invalid(_) => exit_codes::INVALID_INPUT,
        }
    }

    /// The diagnostic, for errors about the content.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            CassetteError::Invalid(d) => Some(d),
            _ => None,
        }
    }
}

impl From<Diagnostic> for CassetteError {
    fn from(d: Diagnostic) -> Self {
        CassetteError::Invalid(Box::new(d))
    }
}

/// An error writing a cassette. Nothing is left under the final name.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// Creating, writing or renaming failed.
    #[error("{}: cannot write the cassette: {source}", path.display())]
    Io {
        /// The cassette's final path.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A line would take more room in the cassette than a reader accepts.
    #[error(
        "{}: cannot write the cassette: a line of the {stream} takes more than {} MiB in it, more than a cassette holds; nothing was written\nhelp: a stream with no newline for that long is not a stream of events: keep the command's output with `>` instead",
        path.display(),
        limit >> 20
    )]
    LineTooLong {
        /// The cassette's final path.
        path: PathBuf,
        /// The stream of the line: `stdout`, `stderr` or `stdin`.
        stream: &'static str,
        /// The most bytes a line of a cassette holds.
        limit: usize,
    },
}

impl WriteError {
    /// The exit code the binary ends with on this error.
    pub fn exit_code(&self) -> i32 {
        exit_codes::CANNOT_CREATE
    }
}

/// An error and its causes, for a person: `error: cause: its cause`, each cause said
/// once. A cause whose message its error already shows (an error that says
/// `{source}` in its own message) is not said again.
pub fn report(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let message = e.to_string();
        if !message.is_empty() && !text.contains(&message) {
            text.push_str(": ");
            text.push_str(&message);
        }
        cause = e.source();
    }
    text
}

/// Where a setting came from, for errors: a variable (`MOCK_AGENT_FAULTS`) or a
/// flag (`--fault`), and what to tell the user to do about a bad value.
#[derive(Debug, Clone, Copy)]
pub struct Origin<'a> {
    /// The variable or flag, e.g. `MOCK_AGENT_FAULTS`.
    pub name: &'a str,
    /// What to tell the user to do.
    pub help: &'a str,
}

impl Origin<'_> {
    /// A problem at `column` (1-based) of `spec`, a setting from this origin.
    pub fn error(&self, spec: &str, column: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            path: self.name.into(),
            line: 1,
            column: column as u64,
            kind: ProblemKind::Data,
            message: message.into(),
            source_line: None,
            help: self.help.to_owned(),
        }
        .with_source(spec.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(column: u64, line: &str) -> String {
        Diagnostic {
            path: "x.ndjson".into(),
            line: 7,
            column,
            kind: ProblemKind::Syntax,
            message: "expected `,` or `}`".into(),
            source_line: None,
            help: "fix it".into(),
        }
        .with_source(line.as_bytes())
        .to_string()
    }

    #[test]
    fn a_report_says_each_cause_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot run `bot`")]
        struct Outer(#[source] Middle);
        #[derive(Debug, thiserror::Error)]
        #[error("x.cassette: cannot open: {0}")]
        struct Middle(#[source] io::Error);
        let e = Outer(Middle(io::Error::new(io::ErrorKind::NotFound, "No such file")));
        assert_eq!(
            report(&e),
            "cannot run `bot`: x.cassette: cannot open: No such file",
            "the innermost cause, which the middle one shows, is not said twice"
        );
    }

    #[test]
    fn caret_points_at_the_column() {
        insta::assert_snapshot!(diag(9, r#"{"a":1 "b":2}"#), @r#"
        x.ndjson:7:9: invalid JSON: expected `,` or `}`
          |
        7 | {"a":1 "b":2}
          |         ^
        help: fix it
        "#);
    }

    #[test]
    fn long_lines_are_cut_around_the_column() {
        let line = format!("{}X{}", "a".repeat(300), "b".repeat(300));
        let shown = diag(301, &line);
        let text_line = shown.lines().nth(2).unwrap_or_default();
        let caret_line = shown.lines().nth(3).unwrap_or_default();
        let caret = caret_line.find('^').unwrap_or(0);
        assert_eq!(text_line.chars().nth(caret), Some('X'), "{shown}");
        assert!(text_line.chars().count() < 120, "{shown}");
    }

    #[test]
    fn a_line_of_many_megabytes_is_cut_without_reading_it_all() {
        let line = format!("{}X{}", "é".repeat(3 << 20), "b".repeat(3 << 20));
        let column = "é".len() * (3 << 20) + 1;
        let shown = diag(column as u64, &line);
        let text_line = shown.lines().nth(2).unwrap_or_default();
        let caret = shown.lines().nth(3).unwrap_or_default().find('^').unwrap_or(0);
        assert_eq!(text_line.chars().nth(caret), Some('X'), "{shown}");
        assert!(
            text_line.starts_with("7 | …") && text_line.ends_with('…'),
            "{shown}"
        );
        // Only the window is kept, not the megabytes after it.
        let kept = Diagnostic {
            path: "x".into(),
            line: 1,
            column: 10,
            kind: ProblemKind::Data,
            message: String::new(),
            source_line: None,
            help: String::new(),
        }
        .with_source(line.as_bytes());
        assert!(kept.source_line.is_some_and(|l| l.len() < 1024));
    }
}
