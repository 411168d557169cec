//! Whether the mock was part of a case: a case whose consumer never ran the agent, or
//! whose agent did not get the case's settings, is not run (an error of the run, never
//! a verdict on the consumer).
//!
//! The mock records each start, with each setting it read and where from (see
//! [`crate::journal::settings`]); its journal entries say the same. The runner
//! compares the settings that decide what the case plays ([`CASE_SETTINGS`]) with the
//! ones it handed out.

use std::collections::BTreeMap;

use super::{Case, Consumer, Outcome, Status};
use crate::journal::settings::{Setting, PREFIX};

/// The settings that decide what a case plays: the agent must have got each as the
/// case set it (or unset, as the case left it).
pub const CASE_SETTINGS: &[&str] = &["MOCK_AGENT_CASSETTE", "MOCK_AGENT_GENERATE", "MOCK_AGENT_FAULTS"];

/// Why a case was not run, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotRun {
    /// Why: `the consumer never ran the agent`, or which setting the agent got
    /// otherwise than the case set it.
    pub reason: String,
    /// What makes the consumer run the mock with the case's settings.
    pub hint: String,
}

impl std::fmt::Display for NotRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}\nhelp: {}", self.reason, self.hint)
    }
}

/// Every `MOCK_AGENT_*` setting the runner hands the mock in `case` (in the
/// environment and the settings file): the case's, then the consumer's own, which win.
pub(super) fn handed_out(case: &Case, consumer: &Consumer) -> Vec<(String, String)> {
    let mut settings = case.env();
    for (name, value) in &consumer.env {
        if name.starts_with(PREFIX) {
            settings.retain(|(n, _)| n != name);
            settings.push((name.clone(), value.clone()));
        }
    }
    settings
}

/// Why the case was not run, or `None` when the mock was part of it with the case's
/// settings: every time the consumer ran the agent, it got each of
/// [`CASE_SETTINGS`] as the case set it.
pub(super) fn not_run(case: &Case, consumer: &Consumer, outcome: &Outcome) -> Option<NotRun> {
    // What each run of the agent read: its start record (written even when it was
    // killed before its end), else its journal entry (a mock without start records).
    let runs: Vec<&[Setting]> = if outcome.starts.is_empty() {
        outcome.journal.iter().map(|e| &e.settings[..]).collect()
    } else {
        outcome.starts.iter().map(|s| &s.settings[..]).collect()
    };
    if runs.is_empty() {
        // How the consumer ended, and the last thing it said: it may have failed
        // before it could run anything (a broken install, a wrong command).
        let last = String::from_utf8_lossy(&outcome.stderr)
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| l.trim().chars().take(200).collect::<String>());
        let ended = match (outcome.status, last) {
            (Status::TimedOut, _) => " (it timed out)".to_owned(),
            (Status::Exited(code), Some(last)) if code != 0 => format!(" (it exited {code}: {last})"),
            (Status::Exited(code), None) if code != 0 => format!(" (it exited {code})"),
            (Status::Signaled(signal), _) => format!(" (it died by signal {signal})"),
            _ => String::new(),
        };
        return Some(NotRun {
            reason: format!("the {} never ran the agent{ended}", case.dialect.consumer_noun()),
            hint: case.dialect.never_ran_hint(),
        });
    }
    // A mock run in the case that got none of its settings said so, and played nothing.
    if let Some(lost) = outcome.starts.iter().find_map(|s| s.lost.as_deref()) {
        return Some(NotRun {
            reason: format!("the agent ran without the case's settings: {lost}"),
            hint: format!(
                "the {} must run the agent by the path the case puts first on PATH (its `bin/`, where `{}` is) or `{{mock}}`, or pass it the MOCK_AGENT_* variables",
                case.dialect.consumer_noun(),
                crate::journal::settings::FILE_NAME
            ),
        });
    }
    let handed: BTreeMap<String, String> = handed_out(case, consumer).into_iter().collect();
    let expected = |name: &str| handed.get(name).filter(|v| !v.is_empty());
    for (n, settings) in runs.iter().enumerate() {
        // A mock that journals always read `MOCK_AGENT_JOURNAL` (or `_STARTED`): a run
        // that names no setting is of one that does not tell (an older mock, a
        // stand-in of a test), and is taken at its word.
        if settings.is_empty() {
            continue;
        }
        for name in CASE_SETTINGS {
            let got = settings.iter().find(|s| s.name == *name && !s.value.is_empty());
            if got.map(|s| &s.value) == expected(name) {
                continue;
            }
            let got = match got {
                Some(s) => format!("`{}` (from {})", s.value, s.from),
                None => "unset".to_owned(),
            };
            let case_has = match expected(name) {
                Some(value) => format!("`{value}`"),
                None => "unset".to_owned(),
            };
            let which = if runs.len() > 1 {
                format!(" (run {} of {})", n + 1, runs.len())
            } else {
                String::new()
            };
            return Some(NotRun {
                reason: format!(
                    "the agent{which} got other settings than the case's: {name} was {got}, the case's is {case_has}"
                ),
                hint: format!(
                    "the mock reads its settings from its environment, else from `{}` beside the path it was run by (the case's `bin/` on PATH, or `{{mock}}`); a {} that runs the mock by another path (a copy, or the binary itself) must pass it `MOCK_AGENT_*` in its environment, and one must not set them itself",
                    crate::journal::settings::FILE_NAME,
                    case.dialect.consumer_noun()
                ),
            });
        }
    }
    None
}
