//! The lint of a CLI that writes one JSON value a line on stdout: a checker reads the
//! recording's stdout lines one at a time and tells what it found at the end
//! ([`StdoutLint`]); [`Stdout`] makes it a [`Lint`]. Each dialect gives its checker;
//! none is named here.

use super::findings::{Report, Rule, Severity, Tally};
use super::Lint;
use crate::frames::{Exit, Stream};

/// A checker of a CLI's stdout lines, by a dialect's rules.
pub(crate) trait StdoutLint: Default {
    /// Its findings so far.
    fn findings(&mut self) -> &mut Tally;

    /// One stdout line (without its newline); `line` is where it is.
    fn line(&mut self, line: u64, bytes: &[u8]);

    /// The end of the recording: `exit` is how the CLI ended, where known.
    fn finish(self, exit: Option<Exit>) -> Report;
}

/// The [`Lint`] of a recording whose stdout lines `C` checks (the other streams hold
/// nothing of its rules).
#[derive(Debug, Default)]
pub(crate) struct Stdout<C>(pub(crate) C);

impl<C: StdoutLint> Lint for Stdout<C> {
    fn recording_finding(&mut self, line: u64, rule: Rule, message: String) {
        self.0.findings().add(Severity::Warning, line, rule, || message);
    }

    fn line(&mut self, line: u64, stream: Stream, bytes: &[u8]) {
        if stream == Stream::Stdout {
            self.0.line(line, bytes);
        }
    }

    fn finish(self: Box<Self>, exit: Option<Exit>) -> Report {
        self.0.finish(exit)
    }

    fn stop(self: Box<Self>) -> Report {
        self.0.finish(None)
    }
}
