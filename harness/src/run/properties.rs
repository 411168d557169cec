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
//! | `ignores-unknown` | server mode and Claude Code, with an unknown update kind, field or message type: the client copes as it does without (a crash or a hang the source's clean case shares, in the same run, is not blamed on it) |
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

mod crash;
mod settle;

use super::{Case, Outcome, Status};
use crate::expect::Expectation;
use crash::uncaught;
pub(crate) use settle::Settling;

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
    if verdicts.is_empty() || verdicts.iter().any(|v| !v.held) {
        return None;
    }
    never_acted(case, outcome)
}

/// Why no fault of `case` acted in any of the agent's runs (the journal's `fired`):
/// `None` when one did, when the journal does not say, or when the case has no faults.
pub(super) fn never_acted(case: &Case, outcome: &Outcome) -> Option<String> {
    if case.faults.trim().is_empty() {
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
        1 => format!("the agent's run had no place for {its} act (it ended before"),
        n => format!("none of the agent's {n} runs had a place for {its} act (each ended before"),
    };
    Some(format!(
        "{which} never acted: {runs}, or its output format has none), so the case played as \
         the clean one"
    ))
}

/// How the agent had ended, told for a program still waiting when it was killed: when
/// every run of the agent's ended by itself (none was ended from outside, by the
/// runner's kill), how the last one ended (its time is in the case's record: the
/// cause stays one for the cases it breaks).
fn agent_gone(outcome: &Outcome) -> Option<String> {
    if outcome.journal.is_empty() || outcome.journal.iter().any(|e| e.signal.is_some()) {
        return None;
    }
    let last = outcome.journal.iter().max_by_key(|e| e.ended_at_ms)?;
    let how = match &last.exit {
        crate::journal::ExitRecord::Code(code) => format!("exited {code}"),
        crate::journal::ExitRecord::Signal(signal) => format!("died of SIG{signal}"),
    };
    Some(format!(
        "; the agent had ended ({how}) and the program went on waiting: it did not notice the \
         agent's end (its exit, or the end of its stdout)"
    ))
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

    /// How a consumer that did not report a failure is said to have taken the run:
    /// by its exit (the default), or by the failure check it was given (`--failure-when-*`).
    fn took_as_success(&self) -> &'static str {
        match self.failure {
            None => "the consumer exited 0",
            Some(_) => {
                "the consumer did not report it (its failure check, `--failure-when-*`, found no failure)"
            }
        }
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
        let unsettled = outcome
            .node
            .is_some_and(|end| end.unsettled(outcome.status, &outcome.stderr));
        verdict(
            Property::Ends,
            if unsettled {
                Err(
                    "it ended only because nothing was left to wait on: a top-level `await` never settled \
                     (Node.js exit 13), so it was still waiting for the agent; a program that keeps \
                     anything alive (a server, a bot, a timer) waits for ever here"
                        .to_owned(),
                )
            } else if ended {
                Ok(())
            } else {
                let mut told = format!("still running after {:.1} s: killed", outcome.wall.as_secs_f64());
                if !outcome.left_agents.is_empty() {
                    let which: Vec<String> = outcome.left_agents.iter().map(ToString::to_string).collect();
                    told += &format!(
                        "; so was the agent it started outside its process group (process {}), \
                         which may have kept its output open",
                        which.join("; ")
                    );
                }
                // A program that had done its work and was slow to exit (or to start, on
                // a loaded machine) is told apart from one that waited for ever.
                let printed = match &case.expect {
                    Expectation::Success { answer } => {
                        let stdout = String::from_utf8_lossy(&outcome.stdout);
                        !answer.trim().is_empty() && reports_answer(&stdout, answer, &case.segments)
                    }
                    Expectation::Failure => false,
                };
                let flood = crate::faults::lines::STDERR_FLOOD.name;
                let flooded = case
                    .faults
                    .split(';')
                    .any(|fault| fault.trim().split(':').next() == Some(flood));
                let gone = if printed || flooded {
                    None
                } else {
                    agent_gone(outcome)
                };
                told += if printed {
                    "; it had printed the answer, so it was slow to exit, or to start on a \
                     loaded machine (a longer --timeout tells which)"
                } else if let Some(gone) = &gone {
                    gone
                } else if flooded {
                    // Not silent: blocked on a full stderr pipe that nobody read.
                    "; the agent wrote a flood of stderr (`stderr-flood`): where a program pipes \
                     the agent's stderr and reads it only after stdout ends, the agent is blocked \
                     on the full pipe and both wait for ever (a longer --timeout does not help): \
                     read stderr while reading stdout (a thread, `communicate()`), or do not pipe it"
                } else {
                    // The Claude Agent SDKs give up on an unanswered `initialize` after 60 s.
                    "; a program that gives up on a silent agent by itself, later than that, \
                     passes with a longer --timeout"
                };
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
                        Err(format!(
                            "{}, so it took the run for a success, but it showed nothing of the answer: \
                             a run its SDK cannot read is a failure to report, or an answer to show",
                            self.took_as_success()
                        )),
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
                    Some(refusal) => Err(format!("{refusal}; but {}", self.took_as_success())),
                    None => Err(format!("the agent failed, but {}", self.took_as_success())),
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
                    (false, Status::Exited(0)) if self.success.is_none() && passed_on(outcome, answer, case) => {
                        Err("the agent succeeded, but the consumer's stdout holds its answer only inside the \
                             agent's own JSON it passed on (JSON-escaped, as the agent wrote it), not as text \
                             its user reads; a program whose output is the agent's JSON, for other programs \
                             to read, can switch this check off (`--off reports-success`)"
                            .into())
                    }
                    (false, Status::Exited(0))
                        if self.success.is_none()
                            && reports_answer(&String::from_utf8_lossy(&outcome.stderr), answer, &case.segments) =>
                    {
                        Err("the agent succeeded, but its answer is not in the consumer's stdout: it is on \
                             its stderr (written there by the program, or by an agent whose stderr the \
                             program passes through), where this check does not look; only a program \
                             that shows its answer on stderr by design, its stdout being for other \
                             programs, should switch this check off (`--off reports-success`)"
                            .into())
                    }
                    (false, Status::Exited(0)) => Err(format!(
                        "the agent succeeded, but its answer is not in the consumer's stdout{}",
                        cut_at_a_pipe(outcome.stdout.len())
                    )),
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
                Err(left_processes(&outcome.left_processes))
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
        "the agent refused the program's arguments and ran nothing ({ended}); it said: {}",
        said.join(" | ")
    ))
}

/// What to add to a missed answer when the consumer's stdout stopped at a pipe's
/// size (64 KiB, 128 KiB, 256 KiB, 1 MiB): the mark of a program that exited before
/// its writes to a pipe were flushed (Node.js's `process.exit()` with writes pending
/// drops the rest); empty otherwise.
fn cut_at_a_pipe(len: usize) -> String {
    const SIZES: [usize; 4] = [64 << 10, 128 << 10, 256 << 10, 1 << 20];
    if SIZES.contains(&len) {
        format!(
            " (its stdout stops at exactly {len} bytes, a pipe's size: a program that exits before \
             its writes to a pipe are flushed loses the rest; in Node.js, `process.exit()` does so \
             with writes pending: set `process.exitCode` and return instead)"
        )
    } else {
        String::new()
    }
}

/// How long a word of the refused arguments, and all of them, may be as a failure
/// tells them.
const ARGV_WORD: usize = 60;
const ARGV_ALL: usize = 300;

/// The arguments the agent's CLI refused ([`refused`]), as a failure tells them: each
/// word quoted for a shell, its line breaks as `\n`, a word over 60 characters and
/// the whole over 300 cut (`...`). Apart from the verdict's words, which are the
/// same in every case the same mistake breaks (a prompt or a path differs by case).
pub(crate) fn refused_arguments(outcome: &Outcome) -> Option<String> {
    refused(outcome)?;
    let entry = outcome.journal.iter().rev().find(|e| e.rejected.is_some())?;
    let clip = |text: String, most: usize| match text.char_indices().nth(most) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    };
    let words: Vec<String> = entry
        .argv
        .iter()
        .map(|word| super::repro::quote(&clip(word.replace('\n', "\\n"), ARGV_WORD)))
        .collect();
    Some(clip(words.join(" "), ARGV_ALL))
}

/// What `no-leftover` says of processes of the consumer's group left running: which
/// they were (process id, command line, who started them).
fn left_processes(left: &[super::Leftover]) -> String {
    match left {
        [] => "left a process running after it ended that held its stdout or stderr open, outside \
               its process group, and not an agent it started (which would be named): look for \
               what it starts in a session of its own; it was not killed"
            .to_owned(),
        [one] => format!("left a process running after it ended: {one}; it was killed"),
        many => {
            let which: Vec<String> = many.iter().map(ToString::to_string).collect();
            format!(
                "left {} processes running after it ended: {}; they were killed",
                many.len(),
                which.join("; ")
            )
        }
    }
}

/// What `no-leftover` says of agents left running outside the consumer's group.
fn left_agents(left: &[super::Leftover]) -> String {
    let pids: Vec<String> = left.iter().map(ToString::to_string).collect();
    let (agents, them) = if pids.len() == 1 {
        ("the agent", "it was")
    } else {
        ("agents", "they were")
    };
    format!(
        "left {agents} running after it ended (process {}), outside its own process group: \
         a program that starts the agent in a session of its own must end its whole group \
         (an agent may run as more than one process); {them} killed",
        pids.join("; ")
    )
}

/// `ignores-unknown`, in a case whose faults write something undocumented: the
/// consumer coped when it ended, did not crash and reported the answer as it does
/// without. When one of those broke, the unknown line is blamed only on evidence
/// that it was the cause: the consumer died (a crash, a signal), hung, or said the
/// unknown thing's name in its output (`Unknown message type: forecast_event`).
/// Otherwise the failure is the other property's to tell (a program that shows no
/// answer in the clean case either), and this one is not judged: `None`.
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
        return Some(held(broke_the_client(dialect)));
    }
    None
}

/// `ignores-unknown`'s detail when its evidence is a crash or a run that did not end.
pub(super) fn broke_the_client(dialect: &dyn super::Dialect) -> String {
    format!("{} broke the client", dialect.unknown_told())
}

/// Whether the consumer's stdout holds the answer as the agent's JSON holds it (its
/// text JSON-escaped, or as it is where it needs no escape, or told in the strings of
/// the agent's own objects in order, a delta an object): the agent's output passed on,
/// which [`Dialect::shown_text`](super::Dialect::shown_text) does not count as shown.
fn passed_on(outcome: &Outcome, answer: &str, case: &Case) -> bool {
    let stdout = String::from_utf8_lossy(&outcome.stdout);
    let escaped = serde_json::to_string(answer).unwrap_or_default();
    if answer.trim().is_empty() {
        return false;
    }
    if stdout.contains(escaped.trim_matches('"')) || reports_answer(&stdout, answer, &case.segments) {
        return true;
    }
    let (_, objects) = split_own(&stdout, case.dialect.own_objects());
    let mut strings = Vec::new();
    for object in objects {
        strings_of(&serde_json::Value::Object(object), &mut strings);
    }
    told_in_order(&strings, answer)
}

/// Whether `answer` (white space aside) is some of `strings` joined in order (deltas).
fn told_in_order(strings: &[String], answer: &str) -> bool {
    let answer = normalize_space(answer);
    let mut rest = answer.as_str();
    for string in strings {
        let string = string.split_whitespace().collect::<Vec<_>>().join(" ");
        if rest.is_empty() {
            break;
        }
        if !string.is_empty() && rest.starts_with(&string) {
            rest = rest[string.len()..].trim_start();
        }
    }
    rest.is_empty()
}

/// The strings of `value`, in document order, into `into`.
fn strings_of(value: &serde_json::Value, into: &mut Vec<String>) {
    match value {
        serde_json::Value::String(text) => into.push(text.clone()),
        serde_json::Value::Array(values) => values.iter().for_each(|v| strings_of(v, into)),
        serde_json::Value::Object(object) => object.values().for_each(|v| strings_of(v, into)),
        _ => {}
    }
}

/// `output` without the JSON objects in it that are the agent's own (`own`: its
/// events, its envelope; [`Dialect::own_objects`](super::Dialect::own_objects)), as
/// it wrote them or as a consumer re-serialized them, each taken out whole, the same
/// way for every dialect.
pub(crate) fn without_events(output: &str, own: &[super::OwnObject]) -> String {
    split_own(output, own).0
}

type Objects = Vec<serde_json::Map<String, serde_json::Value>>;
/// `output` without the agent's own objects, and those objects, in order.
fn split_own(output: &str, own: &[super::OwnObject]) -> (String, Objects) {
    let mut objects = Vec::new();
    if own.is_empty() || !output.contains('{') {
        return (output.to_owned(), objects);
    }
    let mut kept = String::with_capacity(output.len());
    let mut rest = output;
    while let Some(at) = rest.find('{') {
        kept.push_str(&rest[..at]);
        let from = &rest[at..];
        // An object's first key follows its brace: a quick look before parsing.
        let keyed = from[1..].trim_start().starts_with('"');
        let mut values = serde_json::Deserializer::from_str(from).into_iter::<serde_json::Value>();
        match keyed.then(|| values.next()).flatten() {
            Some(Ok(serde_json::Value::Object(object))) if own.iter().any(|o| o.matches(&object)) => {
                rest = &from[values.byte_offset()..];
                objects.push(object);
            }
            _ => {
                kept.push('{');
                rest = &from[1..];
            }
        }
    }
    kept.push_str(rest);
    (kept, objects)
}

#[cfg(test)]
mod tests {
    use super::{find, reports_answer, told_in_order, without_events};
    use crate::run::OwnObject;

    /// Objects told by a kind's names and a key, or by keys alone, taken out whole
    /// wherever they are (compact, pretty-printed, re-serialized, inside text); the
    /// consumer's own JSON and braces of text kept.
    #[test]
    fn the_agent_s_own_objects_are_taken_out_whole_and_nothing_else() {
        let own = [
            OwnObject {
                keys: &["at"],
                kind: Some(("kind", &["said", "done"])),
            },
            OwnObject {
                keys: &["reply", "costs"],
                kind: None,
            },
        ];
        let said = r#"{"kind":"said","at":1,"text":{"a":"Hello"}}"#;
        assert_eq!(without_events(&format!("{said}\n{said}\n"), &own), "\n\n");
        assert_eq!(
            without_events("x {\n  \"reply\": \"Hi\",\n  \"costs\": {}\n} y", &own),
            "x  y"
        );
        assert_eq!(
            without_events(r#"{"kind": "done", "at": 2}"#, &own),
            "",
            "re-serialized"
        );
        for kept in [
            r#"{"kind":"aside","at":1}"#,
            r#"{"kind":"said"}"#,
            r#"{"reply":"Hi"}"#,
            "{\"kind\" is a word} {} {{",
        ] {
            assert_eq!(without_events(kept, &own), kept);
        }
        assert_eq!(without_events(said, &[]), said, "a dialect that names none");
        // Inside the consumer's own JSON, the agent's object is still the agent's.
        assert_eq!(
            without_events(&format!(r#"{{"log":{said}}}"#), &own),
            r#"{"log":}"#
        );
        // An answer told in deltas, one object each, is found in their order.
        let deltas = ["said", "2026", "The README", "said", " says", "hi."].map(String::from);
        assert!(told_in_order(&deltas, "The README says hi."));
        assert!(!told_in_order(&deltas, "The README says bye."));
        assert!(!told_in_order(&deltas[4..], "The README says hi."));
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
