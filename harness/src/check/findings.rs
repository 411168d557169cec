//! What the checker finds: rules by their stable ids, severities, findings, and the
//! report that keeps the first few findings of each rule and counts the rest.

use std::fmt;

/// How many findings of each rule a report keeps unless told otherwise.
pub const SHOWN_PER_RULE: usize = 5;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// How the real agent is seen to behave, beyond the protocol's letter (Cursor's
    /// own habits): worth knowing, nothing to fix.
    Note,
    /// Something a consumer must cope with, but the protocol allows or does not say.
    Warning,
    /// A broken invariant of the protocol.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A rule the checker applies, named by a stable id ([`Rule::as_str`]) that
/// `mock-agent lint` prints in brackets: `[tool-call-pairs]`.
///
/// The first rules are print mode's (its `Checker`); the rules from
/// [`Rule::JsonRpc`] on are server mode's (its `AcpChecker`),
/// which also applies [`Rule::ToolCallPairs`], [`Rule::Fields`] and [`Rule::ToolKind`]
/// to ACP's shapes. [`Rule::Secret`] and [`Rule::CliVersion`] apply to both.
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
    /// left open by a run with no `result` (cut short), which is a warning. In server
    /// mode: a `tool_call` update comes before the `tool_call_update`s of the same
    /// `toolCallId` (an error); a second `tool_call` of one id is a warning.
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
    /// right types. In server mode: the agent's messages of a known method (an update
    /// of a known kind, a permission request, the results of `initialize`,
    /// `session/new` and `session/prompt`) have the fields the protocol requires; a
    /// client's answer to a permission request has an outcome (a warning: the agent
    /// copes).
    Fields,
    /// `not-json` (warning): a stdout line that is not a JSON object.
    NotJson,
    /// `event-type` (warning): an event type this version does not know, or an object
    /// with no `type`.
    EventType,
    /// `tool-kind` (warning): a tool kind this version does not know (in server mode,
    /// a `kind` outside ACP's list, which clients read as `other`).
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
    /// `json-rpc`: a line is one JSON-RPC 2.0 message (`"jsonrpc":"2.0"`; a request
    /// with a `method` and an `id`, a notification with a `method` and no `id`, or a
    /// response with an `id` and exactly one of `result` and `error`). An error on the
    /// agent's side; a warning on the client's (the agent ignores what it cannot read).
    JsonRpc,
    /// `answered-once` (error): each request is answered once, with its id: the
    /// client's by the agent, the agent's by the client. A request still waiting when
    /// the recording ends is a warning (the agent died, or the client hung up).
    AnsweredOnce,
    /// `turn-order` (error): a prompt's turn ends with its response: no update of the
    /// turn (a message, a thought, a tool call, a plan) comes for that session after
    /// the `session/prompt` response, until the client's next request about it.
    TurnOrder,
    /// `known-session`: messages name only sessions that a `session/new` response or
    /// a `session/load` created (an error); one that comes before the response that
    /// creates its session is a warning.
    KnownSession,
    /// `stop-reason` (error): a `session/prompt` response gives a `stopReason` ACP
    /// defines: `end_turn`, `max_tokens`, `max_turn_requests`, `refusal`,
    /// `cancelled`. A cancelled turn that ends otherwise is a warning.
    StopReason,
    /// `capability` (error): the agent asks only for what the client advertised in
    /// `initialize`: `fs/read_text_file` needs `clientCapabilities.fs.readTextFile`,
    /// `fs/write_text_file` `fs.writeTextFile`, `terminal/*` `terminal`.
    Capability,
    /// `update-kind` (warning): a `sessionUpdate` kind this version does not know;
    /// the mock passes it through, and clients must not choke on it.
    UpdateKind,
    /// `method` (warning): a method ACP does not define (extension methods, named
    /// `_...`, excepted).
    Method,
    /// `cursor-habit` (a note, or a warning where a client can hang on it): Cursor's
    /// own ways beyond ACP's letter: a tool's output in `rawOutput` rather than
    /// `content`, a newline inside a `toolCallId`, the `models` block of `session/new`,
    /// the `cursor/ask_question` request (a warning: it blocks the turn until
    /// answered). Reported once per file each.
    CursorHabit,
}

impl Rule {
    /// Every rule, in the order of this enum.
    pub const ALL: [Rule; 25] = [
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
        Rule::JsonRpc,
        Rule::AnsweredOnce,
        Rule::TurnOrder,
        Rule::KnownSession,
        Rule::StopReason,
        Rule::Capability,
        Rule::UpdateKind,
        Rule::Method,
        Rule::CursorHabit,
    ];

    /// The rule's stable id, e.g. `init-first`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Rule::InitFirst => "init-first",
            Rule::OneUser => "one-user",
            Rule::ToolCallPairs => "tool-call-pairs",
            Rule::OneResult => "one-result",
            Rule::ResultLast => "result-last",
            // Named after the event it asks for (print mode's `result`).
            Rule::Result => crate::capture::RESULT,
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
            Rule::JsonRpc => "json-rpc",
            Rule::AnsweredOnce => "answered-once",
            Rule::TurnOrder => "turn-order",
            Rule::KnownSession => "known-session",
            Rule::StopReason => "stop-reason",
            Rule::Capability => "capability",
            Rule::UpdateKind => "update-kind",
            Rule::Method => "method",
            Rule::CursorHabit => "cursor-habit",
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
    /// How many of them are notes.
    pub notes: u64,
}

impl Elided {
    /// How many findings were left out.
    pub fn count(&self) -> u64 {
        self.errors + self.warnings + self.notes
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
    /// The findings kept (the first `shown_per_rule`
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
                Severity::Note => e.notes,
            })
            .sum();
        kept + elided
    }

    /// Whether no finding is an error.
    pub fn passes(&self) -> bool {
        self.count(Severity::Error) == 0
    }

    /// `N error(s), M warning(s)`, and `, K note(s)` when there are notes, with
    /// thousands separated (`1,000,001`).
    pub fn summary(&self) -> String {
        let mut summary = format!(
            "{} error(s), {} warning(s)",
            Grouped(self.count(Severity::Error)),
            Grouped(self.count(Severity::Warning))
        );
        let notes = self.count(Severity::Note);
        if notes > 0 {
            summary.push_str(&format!(", {} note(s)", Grouped(notes)));
        }
        summary
    }
}

/// A number with its thousands separated by commas: `9,999,995`.
struct Grouped(u64);

impl fmt::Display for Grouped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.0.to_string();
        for (i, digit) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
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
    elided_notes: u64,
}

/// Findings as they are found, in bounded memory: the first `shown_per_rule` of each
/// rule are kept, the rest only counted.
#[derive(Debug, Clone)]
pub(crate) struct Tally {
    pub(crate) shown_per_rule: usize,
    kept: Vec<Finding>,
    per_rule: [RuleCount; Rule::ALL.len()],
}

impl Tally {
    pub(crate) fn new(shown_per_rule: usize) -> Self {
        Tally {
            shown_per_rule,
            kept: Vec::new(),
            per_rule: [RuleCount::default(); Rule::ALL.len()],
        }
    }

    /// Records a finding; its message is made only when the finding is kept.
    pub(crate) fn add(
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
                Severity::Note => count.elided_notes += 1,
            }
        }
    }

    /// The report: the kept findings in line order (those about the end, line 0, last;
    /// findings of one line in the order they were found), then what was left out.
    pub(crate) fn report(self) -> Report {
        let mut findings = self.kept;
        findings.sort_by_key(|f| if f.line == 0 { u64::MAX } else { f.line });
        let elided = Rule::ALL
            .iter()
            .zip(self.per_rule)
            .filter(|(_, count)| count.elided_errors + count.elided_warnings + count.elided_notes > 0)
            .map(|(rule, count)| Elided {
                rule: *rule,
                errors: count.elided_errors,
                warnings: count.elided_warnings,
                notes: count.elided_notes,
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
        tally.add(Severity::Error, 3, Rule::OneUser, || "two users".into());
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
                (3, "two users"),
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
                    warnings: 1,
                    notes: 0
                },
                Elided {
                    rule: Rule::NotJson,
                    errors: 0,
                    warnings: 3,
                    notes: 0
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
