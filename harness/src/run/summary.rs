//! The summary of a run of the matrix, the same wherever it is shown: printed by
//! `mock-agent test`, and the message of [`super::assert_matrix`]'s panic.
//!
//! ```text
//! case                                             broken properties
//! default/auth-required                            reports-failure
//!     reports-failure: the agent failed, but the consumer exited 0
//!     expected: failure; seen: exit code 0
//!     stdout: nothing
//!     stderr, last 1 lines:
//!       | bot: done
//!     repro: (d=/tmp/mock-agent-repro/default-auth-required && cd /home/me/bot && mkdir -p "$d" && ... sh -c 'python3 bot.py')
//! default/quota                                    snapshot differs
//! by cause:
//!   1 case breaks reports-failure: the agent failed, but the consumer exited 0 (the agent exited 1): default/auth-required
//! not run (no verdict: the mock was not part of the case as the case set it):
//!   default/eof@mid-line                           the agent got other settings than the case's: MOCK_AGENT_FAULTS was unset, the case's is `eof:at=mid-line`
//!   help: the mock reads its settings from its environment, else from `.mock-agent.env` beside ...
//! 42 cases: 40 passed, 1 failed, 1 not run; snapshots: 0 new, 1 changed
//! ```
//!
//! A case whose faults never acted for this consumer (see
//! [`super::CaseResult::not_applicable`]) is listed under `not applicable`, with why,
//! and counted apart (`41 cases: 38 passed, 0 failed, 3 not applicable; ...`): it
//! tested nothing, and fails nothing.
//!
//! Each failing case is explained (see [`super::report::explain`]), then the failures
//! are grouped by cause: the property and why it broke. The cases not run follow,
//! each with why, and what to do (each hint once); they count as neither passed nor
//! failed.

use std::fmt;

use super::snapshot::{Checked, SnapshotState};
use super::CaseResult;

/// The hint where a program ran the agent in some cases of a run and not in others.
const KEPT_ANSWERS: &str = "it ran the agent in other cases of this run: a program that keeps what the agent said between runs (a cache, a saved session, in its user folders) answers later cases without it; give each case a fresh one (its cache in the case's directory, or a setting that turns it off)";

/// The results of a run and its snapshots, summarized.
#[derive(Debug, Clone, Copy)]
pub struct Summary<'a> {
    results: &'a [CaseResult],
    snapshots: &'a [Checked],
    flaky: &'a [Flaky],
}

impl CaseResult {
    /// The names of the properties the case broke, in the order of its verdicts
    /// (`[]` when every one held, or when it did not run).
    pub fn broken(&self) -> Vec<&str> {
        self.verdicts
            .iter()
            .filter(|v| !v.held)
            .map(|v| v.name.as_str())
            .collect()
    }
}

/// A case whose verdicts differ between the runs of a repeated run (`--repeat N`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flaky {
    /// The case.
    pub case: String,
    /// How many times it ran.
    pub runs: usize,
    /// How many of those runs broke a property.
    pub failed: usize,
    /// Each property broken in some runs and held in others, with the runs (from 1)
    /// it broke in.
    pub properties: Vec<(String, Vec<usize>)>,
}

impl std::fmt::Display for Flaky {
    /// `default/clean: 1 of 3 runs failed; reports-success broke in run 1`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} of {} runs failed", self.case, self.failed, self.runs)?;
        for (name, runs) in &self.properties {
            let runs: Vec<String> = runs.iter().map(usize::to_string).collect();
            let s = if runs.len() == 1 { "" } else { "s" };
            write!(f, "; {name} broke in run{s} {}", runs.join(", "))?;
        }
        Ok(())
    }
}

/// The results of a run in which each case ran `times` times in a row (`results` holds
/// a case's runs one after another): one result a case, the first failing run of it
/// when one failed, and the cases whose verdicts differ between runs.
pub fn repeated(results: Vec<CaseResult>, times: usize) -> (Vec<CaseResult>, Vec<Flaky>) {
    let times = times.max(1);
    let mut kept = Vec::with_capacity(results.len() / times);
    let mut flaky = Vec::new();
    let mut runs = results.into_iter().peekable();
    while runs.peek().is_some() {
        let group: Vec<CaseResult> = runs.by_ref().take(times).collect();
        let first = group[0].broken();
        let all_ran = group.iter().all(|r| r.not_run.is_none());
        if all_ran && group.iter().any(|r| r.broken() != first) {
            let mut properties: Vec<(String, Vec<usize>)> = Vec::new();
            for (n, result) in group.iter().enumerate() {
                for name in result.broken() {
                    match properties.iter_mut().find(|(p, _)| p == name) {
                        Some((_, runs)) => runs.push(n + 1),
                        None => properties.push((name.to_owned(), vec![n + 1])),
                    }
                }
            }
            properties.retain(|(_, runs)| runs.len() < group.len());
            flaky.push(Flaky {
                case: group[0].case.name.clone(),
                runs: group.len(),
                failed: group.iter().filter(|r| r.failed()).count(),
                properties,
            });
        }
        // A case not run in some run is not run: no verdict stands on the others.
        let shown = group
            .iter()
            .position(|r| r.not_run.is_some())
            .or_else(|| group.iter().position(|r| !r.passed()))
            .unwrap_or(0);
        kept.extend(group.into_iter().nth(shown));
    }
    (kept, flaky)
}

impl<'a> Summary<'a> {
    /// The summary of these results and their checked snapshots (none when the run
    /// keeps no snapshots).
    pub fn new(results: &'a [CaseResult], snapshots: &'a [Checked]) -> Self {
        Summary {
            results,
            snapshots,
            flaky: &[],
        }
    }

    /// With the cases whose verdicts differed between repeats (see [`repeated`]):
    /// they fail the run, flaky.
    pub fn flaky(mut self, flaky: &'a [Flaky]) -> Self {
        self.flaky = flaky;
        self
    }

    /// The cases that ran and broke a property.
    pub fn failed(&self) -> impl Iterator<Item = &'a CaseResult> {
        self.results.iter().filter(|r| r.failed())
    }

    /// The cases not run (see [`CaseResult::not_run`]): neither passed nor failed.
    pub fn not_run(&self) -> impl Iterator<Item = &'a CaseResult> {
        self.results.iter().filter(|r| r.not_run.is_some())
    }

    /// The cases not applicable to the consumer (see [`CaseResult::not_applicable`]):
    /// neither passed nor failed, and no failure of the run.
    pub fn not_applicable(&self) -> impl Iterator<Item = &'a CaseResult> {
        self.results
            .iter()
            .filter(|r| r.not_applicable.is_some() && !r.failed() && r.not_run.is_none())
    }

    /// The snapshots that fail the run (see [`Checked::fails`]).
    pub fn failing_snapshots(&self) -> impl Iterator<Item = &'a Checked> {
        self.snapshots.iter().filter(|c| c.fails)
    }

    /// Whether every case ran, every property held, no case is flaky and no snapshot
    /// fails the run.
    pub fn passed(&self) -> bool {
        self.failed().next().is_none()
            && self.not_run().next().is_none()
            && self.flaky.is_empty()
            && self.failing_snapshots().next().is_none()
    }

    /// The exit code of the run (see [`crate::exit_codes`]): `CASES_NOT_RUN` when a
    /// case was not run, else `CASES_FAILED` when it did not pass, else `OK`.
    pub fn exit_code(&self) -> i32 {
        use crate::exit_codes;
        if self.not_run().next().is_some() {
            exit_codes::CASES_NOT_RUN
        } else if self.passed() {
            exit_codes::OK
        } else {
            exit_codes::CASES_FAILED
        }
    }

    /// The failures grouped by cause, the most frequent first: each cause (a
    /// property, why it broke, and in print mode how the agent ended when that
    /// matters: `reports-failure: the agent failed, but the consumer exited 0 (the
    /// agent exited 0 without a successful result)`; the processes a case left named
    /// `...`) with the cases it broke in.
    pub fn causes(&self) -> Vec<(String, Vec<&'a str>)> {
        let mut causes: Vec<(String, Vec<&str>)> = Vec::new();
        for result in self.failed() {
            let agent = super::report::agent_end(result);
            for verdict in result.verdicts.iter().filter(|v| !v.held) {
                let mut cause = format!("{}: {}", verdict.name, verdict.detail);
                // The processes a case left are its own (their ids, their command
                // lines): the cause is that it left them.
                let outcome = &result.outcome;
                for left in outcome.left_processes.iter().chain(&outcome.left_agents) {
                    cause = cause.replace(&left.to_string(), "...");
                }
                if let Some(agent) = agent.as_deref().filter(|_| verdict.name == "reports-failure") {
                    cause = format!("{cause} ({agent})");
                }
                match causes.iter_mut().find(|(c, _)| *c == cause) {
                    Some((_, cases)) => cases.push(&result.case.name),
                    None => causes.push((cause, vec![&result.case.name])),
                }
            }
        }
        // Stable: causes as frequent as each other keep the order they were met in.
        causes.sort_by_key(|(_, cases)| std::cmp::Reverse(cases.len()));
        causes
    }

    fn count(&self, state: SnapshotState) -> (usize, usize) {
        let of_state = self.snapshots.iter().filter(|c| c.state == state);
        let accepted = of_state.clone().filter(|c| c.accepted()).count();
        (of_state.count(), accepted)
    }
}

impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.failed().next().is_some() {
            writeln!(f, "{:<48} broken properties", "case")?;
        }
        for result in self.failed() {
            writeln!(f, "{:<48} {}", result.case.name, result.broken().join(", "))?;
            f.write_str(&super::report::explain(result))?;
        }
        for checked in self.snapshots.iter().filter(|c| !c.accepted()) {
            match checked.state {
                SnapshotState::Matches => {}
                SnapshotState::Changed => writeln!(f, "{:<48} snapshot differs", checked.case)?,
                SnapshotState::New => writeln!(f, "{:<48} new snapshot", checked.case)?,
            }
        }
        let causes = self.causes();
        if !causes.is_empty() {
            writeln!(f, "by cause:")?;
        }
        for (cause, cases) in &causes {
            let shown: Vec<&str> = cases.iter().take(3).copied().collect();
            let more = match cases.len().saturating_sub(3) {
                0 => String::new(),
                n => format!(", and {n} more"),
            };
            let (n, breaks) = match cases.len() {
                1 => ("1 case".to_owned(), "breaks"),
                n => (format!("{n} cases"), "break"),
            };
            writeln!(f, "  {n} {breaks} {cause}: {}{more}", shown.join(", "))?;
        }
        if self.not_run().next().is_some() {
            writeln!(
                f,
                "not run (no verdict: the mock was not part of the case as the case set it):"
            )?;
        }
        let mut hints: Vec<&str> = Vec::new();
        for result in self.not_run() {
            let Some(not_run) = &result.not_run else { continue };
            writeln!(f, "  {:<46} {}", result.case.name, not_run.reason)?;
            if !hints.contains(&not_run.hint.as_str()) {
                hints.push(&not_run.hint);
            }
        }
        // Some cases ran the agent and others did not: the program answered those from
        // what it kept of an earlier run, not from a wrong path.
        let ran_in_others = self.results.iter().any(|r| r.not_run.is_none());
        let never_ran = self.not_run().any(|r| {
            r.not_run
                .as_ref()
                .is_some_and(|n| n.hint == r.case.dialect.never_ran_hint())
        });
        if ran_in_others && never_ran {
            hints.push(KEPT_ANSWERS);
        }
        for hint in hints {
            writeln!(f, "  help: {hint}")?;
        }
        let not_applicable: Vec<&CaseResult> = self.not_applicable().collect();
        if !not_applicable.is_empty() {
            writeln!(
                f,
                "not applicable (no verdict: no fault of the case acted for this consumer, so it tested nothing the clean case does not):"
            )?;
        }
        for result in &not_applicable {
            let why = result.not_applicable.as_deref().unwrap_or_default();
            writeln!(f, "  {:<46} {why}", result.case.name)?;
        }
        for flaky in self.flaky {
            writeln!(f, "flaky: {flaky}")?;
        }
        let failed = self.failed().count();
        let not_run = match self.not_run().count() {
            0 => String::new(),
            n => format!(", {n} not run"),
        };
        let not_run = match not_applicable.len() {
            0 => not_run,
            n => format!("{not_run}, {n} not applicable"),
        };
        let (new, new_accepted) = self.count(SnapshotState::New);
        let (changed, changed_accepted) = self.count(SnapshotState::Changed);
        let accepted = |n: usize| {
            if n > 0 {
                format!(" ({n} accepted)")
            } else {
                String::new()
            }
        };
        let flaky = match self.flaky.len() {
            0 => String::new(),
            n => format!(" ({n} flaky)"),
        };
        write!(
            f,
            "{}: {} passed, {failed} failed{flaky}{not_run}; snapshots: {new} new{}, {changed} changed{}",
            cases_counted(self.results.len()),
            self.results.iter().filter(|r| r.passed()).count(),
            accepted(new_accepted),
            accepted(changed_accepted),
        )?;
        let review = self
            .snapshots
            .iter()
            .find_map(|c| c.wrote.as_ref().filter(|_| !c.accepted()));
        if let Some(dir) = review.and_then(|path| path.parent()) {
            let dir = super::repro::quote(&dir.display().to_string());
            write!(
                f,
                "\nreview the .snap.new files with `mock-agent snapshots review {dir}` (or accept them all: `mock-agent snapshots accept {dir}`; `cargo insta review` in a Cargo project)"
            )?;
        }
        Ok(())
    }
}

/// `n` cases, in words: `1 case`, `2 cases`.
pub fn cases_counted(n: usize) -> String {
    match n {
        1 => "1 case".to_owned(),
        n => format!("{n} cases"),
    }
}
