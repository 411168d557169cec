//! The properties a consumer must hold in every case, each reported by name.
//!
//! | property | holds when |
//! | --- | --- |
//! | `ends` | the consumer ends within its time limit (no hang) |
//! | `no-crash` | it does not die by a signal, nor of an uncaught exception (a Rust panic, a Python traceback or a Node.js stack as the end of its stderr, with a non-zero exit) |
//! | `reports-failure` | when the agent failed, it says so: a non-zero exit (or the user's predicate) |
//! | `reports-success` | when the agent succeeded, it exits 0 and prints the answer (or the user's predicate); where a fault breaks what an SDK can read and either conclusion is right, a consumer that exits 0 shows the answer, not nothing |
//! | `no-leftover` | it leaves no process running (a mock it did not wait for) |
//! | `reads-to-end` | print mode: when the agent succeeded, it read the agent's stdout to the end (the mock's writes never hit a closed pipe) |
//! | `answers-requests` | server mode and Claude Code: every request of the agent's (ACP: permission, fs, terminal, `cursor/ask_question`; Claude: `can_use_tool`, hooks) gets a response |
//! | `ignores-unknown` | server mode and Claude Code, with an unknown update kind, field or message type: the client copes as it does without |
//! | `valid-arguments` | judged only where the agent's CLI refused the program's command line and never ran (the journal says so): it breaks there, with the CLI's words |
//!
//! Where the agent's CLI refused the program's command line (an unknown flag, a value
//! it does not take: exit 2 for Codex, 1 for the others, as the real CLIs end) and no
//! run of it played the case, the agent failed: the case's expectation is a failure,
//! whatever the case, and `ignores-unknown` is not judged (nothing was written).
//!
//! Users add their own with [`Properties::add`] and switch a built-in one off with
//! [`Properties::without`] and its [`Property`].

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{Case, Outcome, Status};
use crate::expect::Expectation;

/// One property's verdict for a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The property's name.
    pub name: String,
    /// Whether it held.
    pub held: bool,
    /// Why not, when it did not.
    pub detail: String,
}

impl Verdict {
    fn of(name: &str, result: Result<(), String>) -> Self {
        Verdict {
            name: name.to_owned(),
            held: result.is_ok(),
            detail: result.err().unwrap_or_default(),
        }
    }
}

/// A user's property: `Ok(())` when it holds, `Err(why)` when not.
pub type Check = Arc<dyn Fn(&Case, &Outcome) -> Result<(), String> + Send + Sync>;

/// A user's predicate on an outcome.
pub type Predicate = Arc<dyn Fn(&Outcome) -> bool + Send + Sync>;

/// A user's predicate on an outcome and the answer expected.
pub type AnswerPredicate = Arc<dyn Fn(&Outcome, &str) -> bool + Send + Sync>;

/// A built-in property, named in reports as the table above names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Property {
    /// `ends`: the consumer ends within its time limit.
    Ends,
    /// `no-crash`: it does not die by a signal, nor of an uncaught exception (judged by
    /// how it ended, not by words in its output).
    NoCrash,
    /// `reports-failure`: when the agent failed, it says so.
    ReportsFailure,
    /// `reports-success`: when the agent succeeded, it exits 0 and prints the answer.
    ReportsSuccess,
    /// `no-leftover`: it leaves no process running.
    NoLeftover,
    /// `reads-to-end`: print mode; it reads the agent's stdout to the end.
    ReadsToEnd,
    /// `answers-requests`: server mode; every request of the agent's gets a response.
    AnswersRequests,
    /// `ignores-unknown`: server mode; an unknown update kind or field changes nothing.
    IgnoresUnknown,
    /// `valid-arguments`: the agent's CLI accepts the program's command line (judged
    /// only where it refused it).
    ValidArguments,
}

impl Property {
    /// Every built-in property, in report order.
    pub const ALL: [Property; 9] = [
        Property::Ends,
        Property::NoCrash,
        Property::ReportsFailure,
        Property::ReportsSuccess,
        Property::NoLeftover,
        Property::ReadsToEnd,
        Property::AnswersRequests,
        Property::IgnoresUnknown,
        Property::ValidArguments,
    ];

    /// Its name in reports, snapshots and `--off`.
    pub const fn name(self) -> &'static str {
        match self {
            Property::Ends => "ends",
            Property::NoCrash => "no-crash",
            Property::ReportsFailure => "reports-failure",
            Property::ReportsSuccess => "reports-success",
            Property::NoLeftover => "no-leftover",
            Property::ReadsToEnd => "reads-to-end",
            Property::AnswersRequests => "answers-requests",
            Property::IgnoresUnknown => "ignores-unknown",
            Property::ValidArguments => "valid-arguments",
        }
    }
}

impl std::fmt::Display for Property {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a built-in property's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no property `{name}`; the properties are {}", Property::ALL.map(Property::name).join(", "))]
pub struct UnknownProperty {
    /// The name given.
    pub name: String,
}

impl std::str::FromStr for Property {
    type Err = UnknownProperty;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Property::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| UnknownProperty {
                name: name.to_owned(),
            })
    }
}

impl TryFrom<&str> for Property {
    type Error = UnknownProperty;

    fn try_from(name: &str) -> Result<Self, Self::Error> {
        name.parse()
    }
}

/// The properties checked, with the user's additions and switches.
#[derive(Clone, Default)]
pub struct Properties {
    off: BTreeSet<Property>,
    added: Vec<(String, Check)>,
    success: Option<AnswerPredicate>,
    failure: Option<Predicate>,
}

impl std::fmt::Debug for Properties {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Properties")
            .field("off", &self.off)
            .field("added", &self.added.iter().map(|(n, _)| n).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// `reads-to-end`, in a dialect that asks it: no run of the agent found its stdout
/// closed.
fn verdict_reads_to_end(
    case: &Case,
    outcome: &Outcome,
    verdict: &mut impl FnMut(Property, Result<(), String>),
) {
    if case.dialect.reads_to_end() {
        let closed = outcome.journal.iter().filter(|e| e.stdout_closed).count();
        verdict(
            Property::ReadsToEnd,
            if closed == 0 {
                Ok(())
            } else {
                Err("closed the agent's stdout before the end".into())
            },
        );
    }
}

/// Why a case that broke none of `verdicts` tested nothing beyond the clean run: it
/// has faults, the consumer ran the agent, and no fault acted in any of its runs (the
/// journal's `fired`: Gemini's `unknown-event` under `-o json`, which writes no event
/// line; ACP's `authenticate-hangs` for a client that never authenticates). Such a
/// case is not applicable to this consumer: neither passed (it proved nothing) nor
/// failed. `None` when a fault acted, when the journal does not say, when the case has
/// no faults, or when a property broke (a failure stands, whatever acted).
pub fn not_applicable(case: &Case, outcome: &Outcome, verdicts: &[Verdict]) -> Option<String> {
    if case.faults.trim().is_empty() || verdicts.is_empty() || verdicts.iter().any(|v| !v.held) {
        return None;
    }
    let faults: Vec<&crate::journal::FaultRecord> = outcome.journal.iter().flat_map(|e| &e.faults).collect();
    if faults.is_empty() || faults.iter().any(|f| f.fired) {
        return None;
    }
    let names: BTreeSet<&str> = faults.iter().map(|f| f.name.as_str()).collect();
    let names: Vec<&str> = names.into_iter().collect();
    let (which, its) = match names.len() {
        1 => (format!("the fault {}", names[0]), "its"),
        _ => (format!("the faults {}", names.join(", ")), "their"),
    };
    let runs = match outcome.journal.len() {
        1 => "the agent's run".to_owned(),
        n => format!("any of the agent's {n} runs"),
    };
    Some(format!(
        "{which} never acted: {runs} did not reach {its} place, so the case played as the clean one"
    ))
}

/// How much of the end of stderr tells an uncaught exception (a traceback's last
/// frames and its exception line are there).
const CRASH_TAIL: usize = 64 << 10;

/// The uncaught exception the consumer died of, if it died of one: judged by how it
/// ended, not by words anywhere in its output. A traceback that a program logs and
/// handles (it goes on, or exits 0), CPython's "Exception ignored in ..." note at
/// exit, or an agent's answer that quotes a traceback is no crash; a run that exits
/// non-zero with an uncaught exception's report as the last thing on stderr is:
///
/// - a Rust panic: exit 101, and `panicked at` on stderr;
/// - Python: a non-zero exit, and stderr ends with a traceback (the last
///   `Traceback (most recent call last):`, then its frames, then the exception line)
///   that Python did not log and go on from (not after `Exception ignored in`, `Task
///   exception was never retrieved` or `future: <Task ...>`);
/// - Node.js: a non-zero exit, a stack (`    at ...`) and the `Node.js v...` line last.
///
/// Death by a signal is judged apart (see [`Property::NoCrash`]).
fn uncaught(outcome: &Outcome) -> Option<&'static str> {
    let Status::Exited(code) = outcome.status else {
        return None;
    };
    if code == 0 {
        return None;
    }
    let tail = &outcome.stderr[outcome.stderr.len().saturating_sub(CRASH_TAIL)..];
    let tail = String::from_utf8_lossy(tail);
    let mut lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
    if code == 101 && tail.contains("panicked at") {
        return Some("a Rust panic (exit 101)");
    }
    // `ValueError: ...`, `json.decoder.JSONDecodeError: ...`: a class name (CapWords,
    // as every exception class is), dotted by its module.
    let exception_line = |l: &str| {
        let name = l.split(':').next().unwrap_or_default();
        let class = name.rsplit('.').next().unwrap_or_default();
        !l.starts_with(' ')
            && class.starts_with(|c: char| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    };
    let chained = |l: &str| l.starts_with("During handling") || l.starts_with("The above exception");
    // What Python logs and goes on from: an exception ignored in a finalizer
    // (`Exception ignored in: <function ... __del__>`), a task's exception nobody
    // awaited, logged when the task is collected (`Task exception was never retrieved`,
    // then `future: <Task ...>`). Printed at exit, after a program's own `sys.exit(1)`.
    // What Python logs at exit comes after the program's own end: an uncaught
    // exception's traceback, then `Exception ignored in: <function
    // BaseSubprocessTransport.__del__ ...>` and its `RuntimeError: Event loop is
    // closed`. Those notes at the end of stderr are taken off, so that what came
    // before them is judged as the end.
    while let Some(header) = lines.iter().rposition(|l| logged_note(l)) {
        let start = if header > 0 && logged_note(lines[header - 1]) {
            header - 1
        } else {
            header
        };
        if note_end(&lines, header, exception_line, chained) != lines.len() {
            break;
        }
        lines.truncate(start);
    }
    let last = lines.last().copied().unwrap_or_default();
    // A traceback right after such a note is the note's own.
    let logged = |start: usize| lines[..start].iter().rev().take(2).any(|l| logged_note(l));
    // The report Python prints at exit: its header, the frames (indented), the
    // exception line, then the rest of the message, whatever it is (`RuntimeError:
    // line one`, then `line two`), or the notes added to it. An exception group's
    // report is drawn in `|` and `+` below its header, indented.
    let header = |l: &str| {
        l.starts_with("Traceback (most recent call last)")
            || l.starts_with("  + Exception Group Traceback (most recent call last)")
    };
    if let Some(start) = lines.iter().rposition(|l| header(l)) {
        let group = lines[start].starts_with(' ');
        let told = |l: &str| exception_line(l.trim_start_matches([' ', '|', '+']).trim_start());
        // The frames, then the exception line (in a group: anywhere in its drawing).
        let body = &lines[start + 1..];
        let said = if group {
            body.iter().position(|l| l.starts_with("  |") && told(l))
        } else {
            body.iter()
                .position(|l| !l.starts_with(' ') && !chained(l))
                .filter(|&i| exception_line(body[i]))
        };
        if let Some(said) = said {
            // What follows the exception line is its message going on, unless the
            // program went on in its own voice: then the traceback was one it logged.
            if !logged(start) && !body[said + 1..].iter().any(|l| own_voice(l)) {
                return Some("an uncaught Python exception");
            }
        }
    }
    // Node.js ends a fatal exception's report with its version; before it, the stack
    // (`    at ...`), or, for a thrown value that is no Error, the caret under the
    // source line and the `--trace-uncaught` hint.
    if last.starts_with("Node.js v")
        && last[9..].starts_with(|c: char| c.is_ascii_digit())
        && lines
            .iter()
            .any(|l| l.starts_with("    at ") || l.trim() == "^" || l.contains("node --trace-uncaught"))
    {
        return Some("an uncaught Node.js exception");
    }
    None
}

/// A line a program writes in its own voice, after a traceback it logged and went on
/// from: a logging record (`ERROR bot: ...`, `WARNING:root:...`, a record that starts
/// with its date) or a report in the form `name: ...` with a lower-case name
/// (`bot: reported the failure`, `error: the agent failed`). An exception's message
/// going on over more lines is anything else (`line two`, `Error output: ...`).
fn own_voice(line: &str) -> bool {
    const LEVELS: [&str; 6] = ["DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL"];
    let word = line.split([' ', ':']).next().unwrap_or_default();
    let dated = line.len() >= 10
        && line.as_bytes()[..10].iter().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    let named = line.split_once(": ").is_some_and(|(name, _)| {
        name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_-.".contains(c))
    });
    LEVELS.contains(&word) || dated || named
}

/// The first line of a note Python logs and goes on from: an exception ignored in a
/// finalizer, a task's exception nobody awaited (its header and `future:` line).
fn logged_note(line: &str) -> bool {
    line.starts_with("Exception ignored in")
        || line.starts_with("Task exception was never retrieved")
        || line.starts_with("future: <Task")
}

/// Where the note whose header is `lines[header]` ends (the index after its last
/// line): its `future:` line, then a traceback (frames, chained ones, the exception
/// line) or an exception line alone.
fn note_end(
    lines: &[&str],
    header: usize,
    exception_line: impl Fn(&str) -> bool,
    chained: impl Fn(&str) -> bool,
) -> usize {
    let n = lines.len();
    let mut i = header + 1;
    while i < n && logged_note(lines[i]) {
        i += 1;
    }
    while i < n && lines[i].starts_with("Traceback (most recent call last)") {
        i += 1;
        while i < n && lines[i].starts_with(' ') {
            i += 1;
        }
        if i < n && exception_line(lines[i]) {
            i += 1;
        }
        if i < n && chained(lines[i]) {
            i += 1;
        } else {
            return i;
        }
    }
    if i < n && exception_line(lines[i]) {
        i += 1;
    }
    i
}

/// `haystack.find(needle)`, without building a searcher for a needle longer than the
/// haystack.
fn find(haystack: &str, needle: &str) -> Option<usize> {
    if needle.len() > haystack.len() {
        return None;
    }
    haystack.find(needle)
}

/// Whether `output` reports the answer: `result.result` verbatim, or the assistant's
/// segments in order (a bot that posts each segment as a message of its own), white
/// space normalized in both.
pub fn reports_answer(output: &str, answer: &str, segments: &[String]) -> bool {
    if find(output, answer.trim()).is_some() {
        return true;
    }
    let output = normalize_space(output);
    let mut rest = output.as_str();
    !segments.is_empty()
        && segments.iter().all(|segment| {
            let segment = normalize_space(segment);
            match find(rest, &segment) {
                Some(at) => {
                    rest = &rest[at + segment.len()..];
                    true
                }
                None => false,
            }
        })
}

/// Runs of white space made one space, and none at either end.
fn normalize_space(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Properties {
    /// The built-in properties.
    pub fn new() -> Self {
        Properties::default()
    }

    /// Without this built-in property: `.without(Property::ReadsToEnd)`.
    ///
    /// A property is named by its variant, so a typo does not compile; a name read at
    /// run time is parsed first (`"reads-to-end".parse::<Property>()`), which tells a
    /// name that is no property's as an error.
    ///
    /// ```compile_fail
    /// let _ = harness::run::Properties::new().without("typo");
    /// ```
    #[must_use]
    pub fn without(mut self, property: Property) -> Self {
        self.off.insert(property);
        self
    }

    /// With a property of the user's.
    #[must_use]
    pub fn add(
        mut self,
        name: impl Into<String>,
        check: impl Fn(&Case, &Outcome) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.added.push((name.into(), Arc::new(check)));
        self
    }

    /// How to tell that the consumer reported success with `answer` (default: exit 0,
    /// and the answer in its stdout).
    #[must_use]
    pub fn success_when(
        mut self,
        predicate: impl Fn(&Outcome, &str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.success = Some(Arc::new(predicate));
        self
    }

    /// How to tell that the consumer reported failure (default: a non-zero exit).
    #[must_use]
    pub fn failure_when(mut self, predicate: impl Fn(&Outcome) -> bool + Send + Sync + 'static) -> Self {
        self.failure = Some(Arc::new(predicate));
        self
    }

    /// Whether the property is checked (not switched off).
    pub fn checks(&self, property: Property) -> bool {
        !self.off.contains(&property)
    }

    /// The case as the consumer played it ([`Case::lived`]: in server mode, what a
    /// correct client concludes from the requests it sent) and the verdict of each
    /// property on the outcome: what the runner concludes of each run, and what
    /// `mock-agent judge` concludes of a run made elsewhere.
    pub fn judge(&self, case: &Case, outcome: &Outcome) -> (Case, Vec<Verdict>) {
        let mut case = case.lived(outcome);
        if refused(outcome).is_some() {
            case.expect = Expectation::Failure;
            case.segments.clear();
        }
        let verdicts = self.check(&case, outcome);
        (case, verdicts)
    }

    /// The verdict of each property on one outcome.
    pub fn check(&self, case: &Case, outcome: &Outcome) -> Vec<Verdict> {
        let mut verdicts = Vec::new();
        let mut verdict = |property: Property, result: Result<(), String>| {
            if self.checks(property) {
                verdicts.push(Verdict::of(property.name(), result));
            }
        };
        let ended = outcome.status != Status::TimedOut;
        verdict(
            Property::Ends,
            if ended {
                Ok(())
            } else {
                let mut told = format!("still running after {:.1} s: killed", outcome.wall.as_secs_f64());
                if !outcome.left_agents.is_empty() {
                    let pids: Vec<String> = outcome.left_agents.iter().map(u32::to_string).collect();
                    told += &format!(
                        "; so was the agent it started outside its process group (process {}), \
                         which may have kept its output open",
                        pids.join(", ")
                    );
                }
                // A program that had done its work and was slow to exit (or to start, on
                // a loaded machine) is told apart from one that waited for ever.
                if let Expectation::Success { answer } = &case.expect {
                    let stdout = String::from_utf8_lossy(&outcome.stdout);
                    if !answer.trim().is_empty() && reports_answer(&stdout, answer, &case.segments) {
                        told += "; it had printed the answer, so it was slow to exit, or to start on a \
                                 loaded machine (a longer --timeout tells which)";
                    }
                }
                Err(told)
            },
        );
        // Each property's work is done only when it is checked.
        if self.checks(Property::NoCrash) {
            let crash = match outcome.status {
                Status::Signaled(signal) => Err(format!("died by signal {signal}")),
                _ => match uncaught(outcome) {
                    Some(what) => Err(format!("died of {what}")),
                    None => Ok(()),
                },
            };
            verdict(Property::NoCrash, crash);
        }
        // The agent's CLI refused the program's command line: it failed, whatever the
        // case, and that is the program's doing.
        let refusal = refused(outcome);
        if let Some(refusal) = &refusal {
            verdict(Property::ValidArguments, Err(refusal.clone()));
        }
        // Where a fault breaks what an SDK can read, the consumer may conclude either.
        let judged = refusal.is_some() || case.dialect.judged(case);
        let failed = Expectation::Failure;
        let expect = if refusal.is_some() { &failed } else { &case.expect };
        match expect {
            // Either conclusion is right where the SDK cannot read the run; a success
            // that shows nothing of the answer is neither.
            Expectation::Success { answer }
                if !judged && ended && self.success.is_none() && self.checks(Property::ReportsSuccess) =>
            {
                let reported_failure = match &self.failure {
                    Some(predicate) => predicate(outcome),
                    None => !matches!(outcome.status, Status::Exited(0)),
                };
                let shown = case
                    .dialect
                    .shown_text(&String::from_utf8_lossy(&outcome.stdout), &case.faults);
                if !reported_failure && shown.trim().is_empty() && !answer.trim().is_empty() {
                    verdict(
                        Property::ReportsSuccess,
                        Err(
                            "the consumer exited 0, so it took the run for a success, but it showed \
                             nothing of the answer: a run its SDK cannot read is a failure to report, \
                             or an answer to show"
                                .into(),
                        ),
                    );
                }
            }
            _ if !judged => {}
            Expectation::Failure => {
                let reported_failure = || match &self.failure {
                    Some(predicate) => predicate(outcome),
                    None => !matches!(outcome.status, Status::Exited(0)),
                };
                let result = match &refusal {
                    _ if !ended || reported_failure() => Ok(()),
                    Some(refusal) => Err(format!("{refusal}; but the consumer exited 0")),
                    None => Err("the agent failed, but the consumer exited 0".to_owned()),
                };
                verdict(Property::ReportsFailure, result);
            }
            Expectation::Success { answer } if self.checks(Property::ReportsSuccess) => {
                let answered = match &self.success {
                    Some(predicate) => predicate(outcome, answer),
                    None => {
                        matches!(outcome.status, Status::Exited(0))
                            && reports_answer(
                                // As its user reads it: the agent's raw events and
                                // noise lines passed on are not the answer shown.
                                &case
                                    .dialect
                                    .shown_text(&String::from_utf8_lossy(&outcome.stdout), &case.faults),
                                answer,
                                &case.segments,
                            )
                    }
                };
                let result = match (answered, outcome.status) {
                    (true, _) => Ok(()),
                    (false, Status::Exited(0)) => {
                        Err("the agent succeeded, but its answer is not in the consumer's stdout".into())
                    }
                    (false, Status::Exited(code @ (126 | 127))) => Err(format!(
                        "the agent succeeded, but the consumer exited {code}: its command was not found or cannot run (check --consumer)"
                    )),
                    (false, Status::Exited(code)) => {
                        Err(format!("the agent succeeded, but the consumer exited {code}"))
                    }
                    (false, _) => Err("the agent succeeded, but the consumer did not say so".into()),
                };
                verdict(Property::ReportsSuccess, result);
                verdict_reads_to_end(case, outcome, &mut verdict);
            }
            Expectation::Success { .. } => verdict_reads_to_end(case, outcome, &mut verdict),
        }
        // A program whose SDK stopped reading at a line it cannot read never saw the
        // requests after it.
        if judged && self.checks(Property::AnswersRequests) {
            if let Some(answered) = case.dialect.answers_requests(outcome) {
                verdict(Property::AnswersRequests, answered);
            }
        }
        verdict(
            Property::NoLeftover,
            if !outcome.left_agents.is_empty() && outcome.status != Status::TimedOut {
                Err(left_agents(&outcome.left_agents))
            } else if outcome.left_running {
                Err("left processes running after it ended (killed)".into())
            } else {
                Ok(())
            },
        );
        for (name, check) in &self.added {
            verdicts.push(Verdict::of(name, check(case, outcome)));
        }
        // Nothing unknown was written where the agent ran nothing.
        let unknown = refusal.is_none() && case.dialect.writes_unknown(case);
        if unknown && self.checks(Property::IgnoresUnknown) {
            if let Some(verdict) = ignores_unknown(case.dialect, outcome, &verdicts) {
                verdicts.push(verdict);
            }
        }
        verdicts
    }
}

/// How many lines of what the agent's CLI said when it refused a command line a
/// verdict shows.
const REFUSAL_LINES: usize = 3;

/// Where the agent's CLI refused the program's command line and no run of it played
/// a session (the journal says so): what happened, in a verdict's words, with the
/// first lines of what the CLI said on stderr.
pub(crate) fn refused(outcome: &Outcome) -> Option<String> {
    if outcome.journal.iter().any(|e| e.source.is_some()) {
        return None;
    }
    let entry = outcome.journal.iter().rev().find(|e| e.rejected.is_some())?;
    let said: Vec<&str> = entry
        .rejected
        .as_deref()
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(REFUSAL_LINES)
        .collect();
    let ended = match &entry.exit {
        crate::journal::ExitRecord::Code(code) => format!("exit {code}"),
        crate::journal::ExitRecord::Signal(signal) => format!("signal {signal}"),
    };
    Some(format!(
        "the agent refused the program's arguments ({}) and ran nothing ({ended}); it said: {}",
        entry.argv.join(" "),
        said.join(" | ")
    ))
}

/// `ignores-unknown`, in a case whose faults write something undocumented: the
/// consumer coped when it ended, did not crash and reported the answer as it does
/// without. When one of those broke, the unknown line is blamed only on evidence
/// that it was the cause: the consumer died (a crash, a signal), hung, or said the
/// unknown thing's name in its output (`Unknown message type: forecast_event`).
/// Otherwise the failure is the other property's to tell (a program that shows no
/// answer in the clean case either), and this one is not judged: `None`.
/// What `no-leftover` says of agents left running outside the consumer's group.
fn left_agents(pids: &[u32]) -> String {
    let pids: Vec<String> = pids.iter().map(u32::to_string).collect();
    let (agents, them) = if pids.len() == 1 {
        ("the agent", "it")
    } else {
        ("agents", "them")
    };
    format!(
        "left {agents} running after it ended (process {}), outside its own process group: \
         a program that starts the agent in a session of its own must end its whole group \
         (an agent may run as more than one process); {them} were killed",
        pids.join(", ")
    )
}

fn ignores_unknown(dialect: &dyn super::Dialect, outcome: &Outcome, verdicts: &[Verdict]) -> Option<Verdict> {
    let broken = |p: Property| verdicts.iter().any(|v| !v.held && v.name == p.name());
    let broke = [Property::Ends, Property::NoCrash, Property::ReportsSuccess]
        .into_iter()
        .any(broken);
    let held = |detail: String| Verdict {
        name: Property::IgnoresUnknown.name().to_owned(),
        held: detail.is_empty(),
        detail,
    };
    if !broke {
        return Some(held(String::new()));
    }
    let output = [&outcome.stdout[..], &outcome.stderr[..]];
    let named = dialect.unknown_words().iter().find(|word| {
        output
            .iter()
            .any(|stream| memchr::memmem::find(stream, word.as_bytes()).is_some())
    });
    if let Some(word) = named {
        return Some(held(format!(
            "the client failed on the undocumented `{word}`, which it names in its output"
        )));
    }
    if broken(Property::NoCrash) || broken(Property::Ends) {
        return Some(held(format!("{} broke the client", dialect.unknown_told())));
    }
    None
}

/// `output` without the JSON objects in it that are events of the agent's.
pub(crate) fn without_events(output: &str) -> String {
    const START: &str = "{\"type\"";
    if !output.contains(START) {
        return output.to_owned();
    }
    let mut kept = String::with_capacity(output.len());
    let mut rest = output;
    while let Some(at) = rest.find(START) {
        kept.push_str(&rest[..at]);
        let from = &rest[at..];
        let mut values = serde_json::Deserializer::from_str(from).into_iter::<serde_json::Value>();
        let event = match values.next() {
            Some(Ok(serde_json::Value::Object(object)))
                if object.get("type").is_some_and(serde_json::Value::is_string)
                    && object.contains_key("session_id") =>
            {
                Some(values.byte_offset())
            }
            _ => None,
        };
        match event {
            Some(end) => rest = &from[end..],
            None => {
                kept.push_str(&from[..1]);
                rest = &from[1..];
            }
        }
    }
    kept.push_str(rest);
    kept
}

#[cfg(test)]
mod tests {
    use super::{find, reports_answer, uncaught};
    use crate::run::{Outcome, Status};

    fn outcome(stdout: &str, stderr: &str) -> Outcome {
        Outcome {
            status: Status::Exited(1),
            stdout: stdout.into(),
            stderr: stderr.into(),
            wall: std::time::Duration::ZERO,
            journal: Vec::new(),
            starts: Vec::new(),
            left_running: false,
            left_agents: Vec::new(),
            dir: "/tmp/case".into(),
        }
    }

    fn ended(code: i32, stderr: &str) -> Outcome {
        let mut outcome = outcome("", stderr);
        outcome.status = Status::Exited(code);
        outcome
    }

    const TRACEBACK: &str = "Traceback (most recent call last):\n  File \"bot.py\", line 3, in <module>\n    main()\n  File \"bot.py\", line 2, in main\n    json.loads(line)\njson.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n";

    #[test]
    fn an_uncaught_exception_is_told_by_how_the_program_ended() {
        assert_eq!(
            uncaught(&ended(1, TRACEBACK)),
            Some("an uncaught Python exception")
        );
        let chained = format!(
            "{TRACEBACK}\nDuring handling of the above exception, another exception occurred:\n\n{TRACEBACK}"
        );
        assert_eq!(
            uncaught(&ended(1, &chained)),
            Some("an uncaught Python exception")
        );
        assert_eq!(
            uncaught(&ended(101, "thread 'main' panicked at src/main.rs:3:5:\nboom\n")),
            Some("a Rust panic (exit 101)")
        );
        let node = "/bot.js:4\n    throw new Error('bad line');\n    ^\n\nError: bad line\n    at Object.<anonymous> (/bot.js:4:11)\n    at Module._compile (node:internal/modules/cjs/loader:1364:14)\n\nNode.js v20.20.2\n";
        assert_eq!(uncaught(&ended(1, node)), Some("an uncaught Node.js exception"));
    }

    #[test]
    fn a_handled_or_quoted_traceback_is_no_crash() {
        // Logged and handled: the program goes on and says more, or exits 0.
        let logged =
            format!("ERROR bot: the agent failed\n{TRACEBACK}bot: reported the failure to the user\n");
        assert_eq!(uncaught(&ended(1, &logged)), None);
        assert_eq!(uncaught(&ended(0, TRACEBACK)), None);
        // CPython's note at exit about a finalizer, exit 0.
        let note = "Exception ignored in: <function Client.__del__ at 0x7f>\nTraceback (most recent call last):\n  File \"c.py\", line 9, in __del__\nRuntimeError: Event loop is closed\n";
        assert_eq!(uncaught(&ended(0, note)), None);
        // The same note, and asyncio's of a task nobody awaited, after the program's
        // own `sys.exit(1)` (an SDK's failed control answer when the agent ended).
        let exited = format!("error: the agent failed: exit 1\n{note}");
        assert_eq!(uncaught(&ended(1, &exited)), None);
        let task = "error: the agent failed\nTask exception was never retrieved\nfuture: <Task finished name='Task-5' coro=<Query._handle_control_request() done> exception=CLIConnectionError('ProcessTransport is not ready for writing')>\nTraceback (most recent call last):\n  File \"query.py\", line 9, in _handle_control_request\nclaude_agent_sdk._errors.CLIConnectionError: ProcessTransport is not ready for writing\n";
        assert_eq!(uncaught(&ended(1, task)), None);
        // But a crash after such a note is a crash.
        let crash_after = format!("{task}{TRACEBACK}");
        assert_eq!(
            uncaught(&ended(1, &crash_after)),
            Some("an uncaught Python exception")
        );
        // A program's uncaught exception, then what CPython logs at exit about the
        // asyncio subprocess transports it left (a real transcript's shape, shortened):
        // the earlier traceback is the crash.
        let transport = "Exception ignored in: <function BaseSubprocessTransport.__del__ at 0x7f2c1a0e4a40>\nTraceback (most recent call last):\n  File \"/usr/lib/python3.11/asyncio/base_subprocess.py\", line 126, in __del__\n    self.close()\n  File \"/usr/lib/python3.11/asyncio/base_events.py\", line 519, in _check_closed\n    raise RuntimeError('Event loop is closed')\nRuntimeError: Event loop is closed\n";
        let pipe = "Exception ignored in: <function _SelectorTransport.__del__ at 0x7f2c1a0f1800>\nTraceback (most recent call last):\n  File \"/usr/lib/python3.11/asyncio/selector_events.py\", line 864, in __del__\nRuntimeError: Event loop is closed\n";
        let died = format!("{TRACEBACK}{transport}{pipe}");
        assert_eq!(uncaught(&ended(1, &died)), Some("an uncaught Python exception"));
        // The same notes after a program that succeeded, or that reported the failure
        // and exited 1 itself, are no crash.
        assert_eq!(uncaught(&ended(0, &died)), None);
        let reported = format!("consumer: agent failed: turn.failed\n{transport}{pipe}");
        assert_eq!(uncaught(&ended(1, &reported)), None);
        let handled = format!("{TRACEBACK}consumer: agent failed\n{transport}");
        assert_eq!(uncaught(&ended(1, &handled)), None);
        // A note without a traceback (the object's repr, then the exception alone).
        let bare =
            format!("{TRACEBACK}Exception ignored in: <socket.socket fd=3>\nResourceWarning: unclosed\n");
        assert_eq!(uncaught(&ended(1, &bare)), Some("an uncaught Python exception"));
        // The agent's answer quoting a traceback, on stdout.
        let mut quoted = ended(1, "");
        quoted.stdout = TRACEBACK.as_bytes().to_vec();
        assert_eq!(uncaught(&quoted), None);
        // Words alone, without the ending of a crash.
        assert_eq!(uncaught(&ended(1, "panicked at the disco\n")), None);
        assert_eq!(
            uncaught(&ended(2, "Uncaught error in the agent's output: skipped\n")),
            None
        );
    }

    #[test]
    fn an_exception_whose_message_spans_lines_is_a_crash() {
        let python = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nRuntimeError: line one\nline two\n";
        assert_eq!(uncaught(&ended(1, python)), Some("an uncaught Python exception"));
        // An SDK's error that carries the agent's stderr, and notes added to it.
        let sdk = format!("{TRACEBACK}Error output: the agent said\n  more of it\n");
        assert_eq!(uncaught(&ended(1, &sdk)), Some("an uncaught Python exception"));
        // An exception group (asyncio's TaskGroup, anyio's), as Python 3.11 draws it.
        let group = "  + Exception Group Traceback (most recent call last):\n  |   File \"<string>\", line 6, in <module>\n  |     return runner.run(main)\n  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n  +-+---------------- 1 ----------------\n    | Traceback (most recent call last):\n    |   File \"<string>\", line 3, in f\n    | ValueError: x\ny\n    +------------------------------------\n";
        assert_eq!(uncaught(&ended(1, group)), Some("an uncaught Python exception"));
        assert_eq!(uncaught(&ended(0, group)), None);
        // Node.js: an Error whose message spans lines, a thrown string (no stack).
        let node = "[eval]:1\nthrow new Error(\"line one\\nline two\")\n^\n\nError: line one\nline two\n    at [eval]:1:7\n\nNode.js v20.20.2\n";
        assert_eq!(uncaught(&ended(1, node)), Some("an uncaught Node.js exception"));
        let thrown = "[eval]:1\nthrow \"a\\nb\"\n^\na\nb\n(Use `node --trace-uncaught ...` to show where the exception was thrown)\n\nNode.js v20.20.2\n";
        assert_eq!(uncaught(&ended(1, thrown)), Some("an uncaught Node.js exception"));
        // The program went on in its own voice after the traceback it logged.
        for own in [
            "bot: gave up\n",
            "ERROR root: gave up\n",
            "WARNING:root:gave up\n",
            "2026-11-27 22:00:01,003 bot gave up\n",
        ] {
            let went_on = format!("{python}{own}");
            assert_eq!(uncaught(&ended(1, &went_on)), None, "{own}");
        }
        assert_eq!(uncaught(&ended(1, "Node.js v20 is required\n")), None);
    }

    #[test]
    fn find_is_str_find() {
        for (haystack, needle) in [("", ""), ("abc", ""), ("abc", "bc"), ("ab", "abc"), ("abc", "d")] {
            assert_eq!(
                find(haystack, needle),
                haystack.find(needle),
                "{haystack:?} {needle:?}"
            );
        }
    }

    #[test]
    fn the_answer_is_reported_verbatim_or_as_its_segments_in_order() {
        let segments = ["I'll read it.".to_owned(), "Done: a summary.".to_owned()];
        let answer = "I'll read it.Done: a summary.";
        assert!(reports_answer(answer, answer, &segments));
        assert!(reports_answer(
            "[bot] I'll read it.\n[bot]   Done:\n a summary.\n",
            answer,
            &segments
        ));
        assert!(
            !reports_answer("Done: a summary. I'll read it.", answer, &segments),
            "out of order"
        );
        assert!(
            !reports_answer("I'll read it.", answer, &segments),
            "a segment missing"
        );
        assert!(!reports_answer("", answer, &[]), "nothing to find");
    }
}
