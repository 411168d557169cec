//! What the checker finds: rules by their stable ids, severities, findings, and the
//! report that keeps the first few findings of each rule and counts the rest.

use std::fmt;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Something a consumer must cope with, but the protocol allows or does not say.
    Warning,
    /// A broken invariant of the protocol.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A rule the checker applies, named by a stable id ([`Rule::as_str`]) that
/// `mock-agent lint` prints in brackets: `[tool-call-pairs]`.
///
/// The ids never change; this list may grow in any minor release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// `init-first` (error): the first event is `system`/`init`.
    InitFirst,
    /// `one-user` (error): there is one `user` event, and it is the second event.
    OneUser,
    /// `tool-call-pairs`: a tool call is `started` before it is `completed`, with the
    /// same `call_id`, and each started call completes once. An error, except a call
    /// left open by a run with no `result` (cut short), which is a warning.
    ToolCallPairs,
    /// `one-result` (error): there is at most one `result`.
    OneResult,
    /// `result-last` (error): nothing comes after the `result`.
    ResultLast,
    /// `result`: a run that exits 0 has a `result` (an error); a run that does not say
    /// how it ended and has none was cut short (a warning).
    Result,
    /// `one-session` (error): every event carries the same `session_id`.
    OneSession,
    /// `result-text` (error): `result.result` is the assistant text, concatenated.
    ResultText,
    /// `fields` (error): an event of a known type has the fields of that type, of the
    /// right types.
    Fields,
    /// `not-json` (warning): a stdout line that is not a JSON object.
    NotJson,
    /// `event-type` (warning): an event type this version does not know, or an object
    /// with no `type`.
    EventType,
    /// `tool-kind` (warning): a tool kind this version does not know.
    ToolKind,
    /// `subtype` (warning): a subtype the documentation does not list.
    Subtype,
    /// `secret` (warning): a value in a recording that looks like an API key or token.
    Secret,
    /// `cli-version` (warning): a cassette recorded with a CLI older than asked for, or
    /// with one it does not name.
    CliVersion,
    /// `format` (warning): a cassette recorded with `--output-format json` or `text`,
    /// which holds no event stream to check.
    Format,
}

impl Rule {
    /// Every rule, in the order of this enum.
    pub const ALL: [Rule; 16] = [
        Rule::InitFirst,
        Rule::OneUser,
        Rule::ToolCallPairs,
        Rule::OneResult,
        Rule::ResultLast,
        Rule::Result,
        Rule::OneSession,
        Rule::ResultText,
        Rule::Fields,
        Rule::NotJson,
        Rule::EventType,
        Rule::ToolKind,
        Rule::Subtype,
        Rule::Secret,
        Rule::CliVersion,
        Rule::Format,
    ];

    /// The rule's stable id, e.g. `init-first`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Rule::InitFirst => "init-first",
            Rule::OneUser => "one-user",
            Rule::ToolCallPairs => "tool-call-pairs",
            Rule::OneResult => "one-result",
            Rule::ResultLast => "result-last",
            Rule::Result => "result",
            Rule::OneSession => "one-session",
            Rule::ResultText => "result-text",
            Rule::Fields => "fields",
            Rule::NotJson => "not-json",
            Rule::EventType => "event-type",
            Rule::ToolKind => "tool-kind",
            Rule::Subtype => "subtype",
            Rule::Secret => "secret",
            Rule::CliVersion => "cli-version",
            Rule::Format => "format",
        }
    }

    /// Where the rule is in [`Rule::ALL`].
    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One broken rule, at a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The line of the file (or the 1-based stdout line) it is about; 0 for the end.
    pub line: u64,
    /// The rule; its id (`init-first`) is stable.
    pub rule: Rule,
    /// What is wrong, in plain words.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} [{}]", self.severity, self.message, self.rule)
    }
}

/// The findings of one rule past the first few, counted but not kept.
///
/// Displays as `... and 9,999,995 more [not-json]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elided {
    /// The rule.
    pub rule: Rule,
    /// How many of them are errors.
    pub errors: u64,
    /// How many of them are warnings.
    pub warnings: u64,
}

impl Elided {
    /// How many findings were left out.
    pub fn count(&self) -> u64 {
        self.errors + self.warnings
    }
}

impl fmt::Display for Elided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "... and {} more [{}]", Grouped(self.count()), self.rule)
    }
}

/// The findings of a run: the first few of each rule, and how many more there were.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The findings kept (the first [`Checker::shown_per_rule`](super::Checker::shown_per_rule)
    /// of each rule), in line order, end-of-run findings last.
    pub findings: Vec<Finding>,
    /// For each rule with more findings than were kept, how many more, in the order
    /// of [`Rule::ALL`].
    pub elided: Vec<Elided>,
}

impl Report {
    /// How many findings have this severity, kept or not.
    pub fn count(&self, severity: Severity) -> u64 {
        let kept = self.findings.iter().filter(|f| f.severity == severity).count() as u64;
        let elided: u64 = self
            .elided
            .iter()
            .map(|e| match severity {
                Severity::Error => e.errors,
                Severity::Warning => e.warnings,
            })
            .sum();
        kept + elided
    }

    /// Whether no finding is an error.
    pub fn passes(&self) -> bool {
        self.count(Severity::Error) == 0
    }

    /// `N error(s), M warning(s)`, with thousands separated (`1,000,001`).
    pub fn summary(&self) -> String {
        format!(
            "{} error(s), {} warning(s)",
            Grouped(self.count(Severity::Error)),
            Grouped(self.count(Severity::Warning))
        )
    }
}

/// A number with its thousands separated by commas: `9,999,995`.
struct Grouped(u64);

impl fmt::Display for Grouped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.0.to_string();
        for (i, digit) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                f.write_str(",")?;
            }
            write!(f, "{digit}")?;
        }
        Ok(())
    }
}

/// How many findings of one rule were found, and how many of them were left out.
#[derive(Debug, Clone, Copy, Default)]
struct RuleCount {
    found: u64,
    elided_errors: u64,
    elided_warnings: u64,
}

/// Findings as they are found, in bounded memory: the first `shown_per_rule` of each
/// rule are kept, the rest only counted.
#[derive(Debug, Clone)]
pub(super) struct Tally {
    pub(super) shown_per_rule: usize,
    kept: Vec<Finding>,
    per_rule: [RuleCount; Rule::ALL.len()],
}

impl Tally {
    pub(super) fn new(shown_per_rule: usize) -> Self {
        Tally {
            shown_per_rule,
            kept: Vec::new(),
            per_rule: [RuleCount::default(); Rule::ALL.len()],
        }
    }

    /// Records a finding; its message is made only when the finding is kept.
    pub(super) fn add(
        &mut self,
        severity: Severity,
        line: u64,
        rule: Rule,
        message: impl FnOnce() -> String,
    ) {
        let count = &mut self.per_rule[rule.index()];
        count.found += 1;
        if count.found <= self.shown_per_rule as u64 {
            self.kept.push(Finding {
                severity,
                line,
                rule,
                message: message(),
            });
        } else {
            match severity {
                Severity::Error => count.elided_errors += 1,
                Severity::Warning => count.elided_warnings += 1,
            }
        }
    }

    /// The report: the kept findings in line order (those about the end, line 0, last;
    /// findings of one line in the order they were found), then what was left out.
    pub(super) fn report(self) -> Report {
        let mut findings = self.kept;
        findings.sort_by_key(|f| if f.line == 0 { u64::MAX } else { f.line });
        let elided = Rule::ALL
            .iter()
            .zip(self.per_rule)
            .filter(|(_, count)| count.elided_errors + count.elided_warnings > 0)
            .map(|(rule, count)| Elided {
                rule: *rule,
                errors: count.elided_errors,
                warnings: count.elided_warnings,
            })
            .collect();
        Report { findings, elided }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_distinct_and_in_order() {
        for (i, rule) in Rule::ALL.iter().enumerate() {
            assert_eq!(rule.index(), i, "{rule} is out of place in Rule::ALL");
            assert!(
                rule.as_str().chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{rule}"
            );
        }
        let mut ids: Vec<&str> = Rule::ALL.iter().map(|r| r.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Rule::ALL.len());
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        let shown: Vec<String> = [0, 7, 999, 1_000, 12_345, 999_999, 9_999_995, 1_000_000_000]
            .iter()
            .map(|n| Grouped(*n).to_string())
            .collect();
        assert_eq!(
            shown,
            [
                "0",
                "7",
                "999",
                "1,000",
                "12,345",
                "999,999",
                "9,999,995",
                "1,000,000,000"
            ]
        );
    }

    #[test]
    fn a_tally_keeps_the_first_of_each_rule_and_counts_the_rest() {
        let mut tally = Tally::new(2);
        for line in 1..=5 {
            tally.add(Severity::Warning, line, Rule::NotJson, || format!("noise {line}"));
        }
        tally.add(Severity::Error, 3, Rule::OneUser, || "user".into());
        tally.add(Severity::Error, 0, Rule::ToolCallPairs, || "open a".into());
        tally.add(Severity::Warning, 0, Rule::ToolCallPairs, || "open b".into());
        tally.add(Severity::Error, 0, Rule::ToolCallPairs, || "open c".into());
        tally.add(Severity::Warning, 0, Rule::ToolCallPairs, || "open d".into());
        let report = tally.report();
        let kept: Vec<(u64, &str)> = report
            .findings
            .iter()
            .map(|f| (f.line, f.message.as_str()))
            .collect();
        assert_eq!(
            kept,
            [
                (1, "noise 1"),
                (2, "noise 2"),
                (3, "user"),
                (0, "open a"),
                (0, "open b")
            ]
        );
        assert_eq!(
            report.elided,
            [
                Elided {
                    rule: Rule::ToolCallPairs,
                    errors: 1,
                    warnings: 1
                },
                Elided {
                    rule: Rule::NotJson,
                    errors: 0,
                    warnings: 3
                },
            ]
        );
        assert_eq!(report.elided[1].to_string(), "... and 3 more [not-json]");
        assert_eq!(
            (report.count(Severity::Error), report.count(Severity::Warning)),
            (3, 7)
        );
        assert_eq!(report.summary(), "3 error(s), 7 warning(s)");
        assert!(!report.passes());
    }
}
