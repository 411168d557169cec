//! The lint of a CLI that writes one JSON value a line on stdout: a checker reads the
//! recording's stdout lines one at a time and tells what it found at the end
//! (`StdoutLint`, crate-internal); [`Stdout`] makes it a [`Lint`]. Each dialect gives
//! its checker; none is named here.

use serde_json::Value;

use super::findings::{Report, Rule, Severity, Tally};
use super::Lint;
use crate::frames::{Exit, Stream};

/// A stdout line, read as a JSON object with a string `type`; `None`, with a finding
/// at `line`, when it is not one (`not_json`: what a reader does with a line that is
/// not JSON).
pub(crate) fn read(findings: &mut Tally, line: u64, bytes: &[u8], not_json: &'static str) -> Option<Value> {
    let value = match serde_json::from_slice::<Value>(bytes) {
        Ok(value) if value.is_object() => value,
        _ => {
            findings.add(Severity::Error, line, Rule::NotJson, || {
                format!("not a JSON object: {not_json}")
            });
            return None;
        }
    };
    if !value.get("type").is_some_and(Value::is_string) {
        findings.add(Severity::Warning, line, Rule::EventType, || {
            "a line without a `type`".into()
        });
        return None;
    }
    Some(value)
}

/// Counts a stdout line among the `seen` ones and reads it (see [`read`]): whether it
/// is the run's first line, and its value.
pub(crate) fn next(
    findings: &mut Tally,
    seen: &mut u64,
    (line, bytes): (u64, &[u8]),
    not_json: &'static str,
) -> Option<(bool, Value)> {
    *seen += 1;
    let first = *seen == 1;
    read(findings, line, bytes, not_json).map(|value| (first, value))
}

/// Tells of a line at `line` of the type `kind` that lacks what consumers read
/// (`missing`, each as it is said: "a `usage` object"); nothing when it lacks nothing.
pub(crate) fn missing(findings: &mut Tally, line: u64, kind: &str, missing: &[&str]) {
    if !missing.is_empty() {
        findings.add(Severity::Error, line, Rule::Fields, || {
            format!("a `{kind}` line without {}", missing.join(", "))
        });
    }
}

/// The type of a line [`read`] took.
pub(crate) fn kind(value: &Value) -> &str {
    value.get("type").and_then(Value::as_str).unwrap_or_default()
}

/// Checks that the run's `first` line, and only it, is of the type `init` (`kind`:
/// the type of the line at `line`; `one`: what a run has one of, said of a second).
/// Checks too that `kind` is one of `known`, the types the CLI writes (`unknown`:
/// what is said of another).
pub(crate) fn opens_and_known(
    findings: &mut Tally,
    (line, first, kind): (u64, bool, &str),
    (init, one): (&str, &str),
    (known, unknown): (&[&str], &str),
) {
    if first != (kind == init) {
        findings.add(Severity::Error, line, Rule::InitFirst, || {
            if first {
                format!("the run opens with `{kind}`, not `{init}`")
            } else {
                format!("a second `{kind}`: {one}")
            }
        });
    }
    if !known.contains(&kind) {
        findings.add(Severity::Warning, line, Rule::EventType, || {
            format!("`{kind}` is a line type {unknown}")
        });
    }
}

/// A checker of a CLI's stdout lines, by a dialect's rules. The rules every such CLI
/// has are checked here, in this order: each line is a JSON object with a string
/// `type` (else no more is checked of it), nothing comes after the run's end, the
/// first line opens the run and no other does, the type is one the CLI writes; then
/// the checker's own rules ([`value`](StdoutLint::value)).
pub(crate) trait StdoutLint: Default {
    /// What a reader of the CLI's output does with a line that is not JSON (the
    /// `not-json` error says it).
    const NOT_JSON: &'static str;
    /// The type of the line that opens a run, and what a run has one of (said of a
    /// second): see [`opens_and_known`].
    const OPENS: (&'static str, &'static str);
    /// The line types the CLI writes, and what is said of another.
    const KNOWN: (&'static [&'static str], &'static str);

    /// The checker's findings, and the count of stdout lines it has seen.
    fn tally(&mut self) -> (&mut Tally, &mut u64);

    /// How the run's end is said ("the turn ended on line 4") when a line after it is
    /// to be told: once, the checker remembers it told.
    fn ended(&mut self) -> Option<String>;

    /// The checker's own rules for the stdout line at `line`, a JSON object whose
    /// `type` is `kind`.
    fn value(&mut self, line: u64, kind: &str, value: &Value);

    /// The end of the recording: `exit` is how the CLI ended, where known.
    fn finish(self, exit: Option<Exit>) -> Report;

    /// One stdout line (without its newline); `line` is where it is.
    fn line(&mut self, line: u64, bytes: &[u8]) {
        let (findings, seen) = self.tally();
        let Some((first, value)) = next(findings, seen, (line, bytes), Self::NOT_JSON) else {
            return;
        };
        let kind = kind(&value);
        if let Some(ended) = self.ended() {
            self.tally().0.add(Severity::Error, line, Rule::ResultLast, || {
                format!("`{kind}` after {ended}")
            });
        }
        opens_and_known(self.tally().0, (line, first, kind), Self::OPENS, Self::KNOWN);
        self.value(line, kind, &value);
    }
}

/// The [`Lint`] of a recording whose stdout lines `C` checks (the other streams hold
/// nothing of its rules).
#[derive(Debug, Default)]
pub struct Stdout<C>(pub C);

impl<C: StdoutLint> Lint for Stdout<C> {
    fn recording_finding(&mut self, line: u64, rule: Rule, message: String) {
        self.0.tally().0.add(Severity::Warning, line, rule, || message);
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

/// The report of a checker `C` on `lines` (numbered from 1), ended by `exit`.
#[cfg(test)]
pub(crate) fn report<C: StdoutLint>(lines: &[Vec<u8>], exit: Option<Exit>) -> Report {
    let mut checker = C::default();
    for (n, line) in lines.iter().enumerate() {
        checker.line(n as u64 + 1, line);
    }
    checker.finish(exit)
}
