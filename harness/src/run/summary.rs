//! The summary of a run of the matrix, the same wherever it is shown: printed by
//! `mock-agent test`, and the message of [`super::assert_matrix`]'s panic.
//!
//! ```text
//! case                                             broken properties
//! default/auth-required                            reports-failure
//!     reports-failure: the agent failed, but the consumer exited 0
//! default/quota                                    snapshot differs
//! 41 cases: 40 passed, 1 failed; snapshots: 0 new, 1 changed
//! ```

use std::fmt;

use super::snapshot::{Checked, SnapshotState};
use super::CaseResult;

/// The results of a run and its snapshots, summarized.
#[derive(Debug, Clone, Copy)]
pub struct Summary<'a> {
    results: &'a [CaseResult],
    snapshots: &'a [Checked],
}

impl<'a> Summary<'a> {
    /// The summary of these results and their checked snapshots (none when the run
    /// keeps no snapshots).
    pub fn new(results: &'a [CaseResult], snapshots: &'a [Checked]) -> Self {
        Summary { results, snapshots }
    }

    /// The cases that broke a property.
    pub fn failed(&self) -> impl Iterator<Item = &'a CaseResult> {
        self.results.iter().filter(|r| !r.passed())
    }

    /// The snapshots that fail the run (see [`Checked::fails`]).
    pub fn failing_snapshots(&self) -> impl Iterator<Item = &'a Checked> {
        self.snapshots.iter().filter(|c| c.fails)
    }

    /// Whether every property held and no snapshot fails the run.
    pub fn passed(&self) -> bool {
        self.failed().next().is_none() && self.failing_snapshots().next().is_none()
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
            let broken: Vec<&str> = result
                .verdicts
                .iter()
                .filter(|v| !v.held)
                .map(|v| v.name.as_str())
                .collect();
            writeln!(f, "{:<48} {}", result.case.name, broken.join(", "))?;
            for verdict in result.verdicts.iter().filter(|v| !v.held) {
                writeln!(f, "    {}: {}", verdict.name, verdict.detail)?;
            }
        }
        for checked in self.snapshots.iter().filter(|c| !c.accepted()) {
            match checked.state {
                SnapshotState::Matches => {}
                SnapshotState::Changed => writeln!(f, "{:<48} snapshot differs", checked.case)?,
                SnapshotState::New => writeln!(f, "{:<48} new snapshot", checked.case)?,
            }
        }
        let failed = self.failed().count();
        let (new, new_accepted) = self.count(SnapshotState::New);
        let (changed, changed_accepted) = self.count(SnapshotState::Changed);
        let accepted = |n: usize| {
            if n > 0 {
                format!(" ({n} accepted)")
            } else {
                String::new()
            }
        };
        write!(
            f,
            "{} cases: {} passed, {failed} failed; snapshots: {new} new{}, {changed} changed{}",
            self.results.len(),
            self.results.len() - failed,
            accepted(new_accepted),
            accepted(changed_accepted),
        )?;
        if self.snapshots.iter().any(|c| !c.accepted() && c.wrote.is_some()) {
            write!(f, "\nreview the .snap.new files with `cargo insta review`")?;
        }
        Ok(())
    }
}
