//! The report of a run as one self-contained HTML file: no network, no script, no
//! font but the reader's own. The summary first (the cases, the failures grouped by
//! cause, the flaky cases, the snapshots), then a row per case that opens to its
//! properties (each broken one with what was expected and what was seen), how the
//! consumer and the agent ended, the last lines of its stdout and stderr, the line
//! that runs it again, the difference from its snapshot, and a picture (see
//! [`picture`]): a timeline in print mode, a sequence diagram in server mode.
//!
//! Rendered by askama from `harness/templates/report.html`, which escapes every value.
//! What each case embeds is bounded (the last [`TAIL_LINES`] lines of each stream,
//! pictures of failing cases only, [`DIFF_LINES`] lines of a diff), so that a report of
//! 400 cases stays within a few megabytes.
//!
//! ```no_run
//! # use harness::run::{html, CaseResult};
//! # fn results() -> Vec<CaseResult> { Vec::new() }
//! let results = results();
//! let page = html::Report::new(&results).title("my bot against the matrix").render();
//! std::fs::write("report.html", page).expect("written");
//! ```

pub mod picture;

use std::path::Path;

use askama::Template;

use super::snapshot::{self, Checked, SnapshotState};
use super::{describe, report, CaseResult, Flaky, Summary};

pub use picture::Picture;

/// How many of a stream's last lines a case shows.
pub const TAIL_LINES: usize = 40;

/// How long a line of a stream may be before it is cut.
const LINE_CHARS: usize = 400;

/// How many lines of a snapshot's diff a case shows.
pub const DIFF_LINES: usize = 200;

/// The report of a run: its results, and optionally its snapshots and flaky cases.
#[derive(Debug, Clone, Copy)]
#[must_use]
pub struct Report<'a> {
    results: &'a [CaseResult],
    snapshots: &'a [Checked],
    snapshot_dir: Option<&'a Path>,
    flaky: &'a [Flaky],
    title: &'a str,
}

impl<'a> Report<'a> {
    /// The report of these results.
    pub fn new(results: &'a [CaseResult]) -> Self {
        Report {
            results,
            snapshots: &[],
            snapshot_dir: None,
            flaky: &[],
            title: "mock-agent report",
        }
    }

    /// With the snapshots checked in `dir`: each changed one shows its diff.
    pub fn snapshots(mut self, checked: &'a [Checked], dir: &'a Path) -> Self {
        self.snapshots = checked;
        self.snapshot_dir = Some(dir);
        self
    }

    /// With the cases whose verdicts differed between repeats.
    pub fn flaky(mut self, flaky: &'a [Flaky]) -> Self {
        self.flaky = flaky;
        self
    }

    /// With this title (the consumer's command, say).
    pub fn title(mut self, title: &'a str) -> Self {
        self.title = title;
        self
    }

    /// The HTML page.
    pub fn render(&self) -> String {
        let summary = Summary::new(self.results, self.snapshots).flaky(self.flaky);
        let failed = summary.failed().count();
        let causes = summary
            .causes()
            .into_iter()
            .map(|(cause, cases)| CauseRow {
                count: cases.len(),
                cause,
                cases: cases.into_iter().map(str::to_owned).collect(),
            })
            .collect();
        // Failing cases first, then the rest, each in the run's order.
        let mut rows: Vec<CaseRow> = self.results.iter().map(|r| self.row(r)).collect();
        rows.sort_by_key(|row| row.passed && !row.snapshot_fails);
        let page = Page {
            title: self.title.to_owned(),
            total: self.results.len(),
            passed: self.results.len() - failed,
            failed,
            flaky: self.flaky.iter().map(ToString::to_string).collect(),
            causes,
            snapshots: self.snapshot_counts(),
            cases: rows,
        };
        // A template whose values all display cannot fail to render.
        page.render().unwrap_or_else(|e| format!("<!doctype html><p>mock-agent: the report did not render: {e}</p>"))
    }

    fn snapshot_counts(&self) -> Option<String> {
        if self.snapshot_dir.is_none() {
            return None;
        }
        let count = |state| self.snapshots.iter().filter(|c| c.state == state).count();
        Some(format!(
            "{} new, {} changed, {} matching",
            count(SnapshotState::New),
            count(SnapshotState::Changed),
            count(SnapshotState::Matches)
        ))
    }

    fn row(&self, result: &CaseResult) -> CaseRow {
        let outcome = &result.outcome;
        let checked = self.snapshots.iter().find(|c| c.case == result.case.name);
        let diff = checked
            .filter(|c| c.state == SnapshotState::Changed)
            .zip(self.snapshot_dir)
            .and_then(|(_, dir)| {
                let old = snapshot::recorded(dir, &result.case.name)?;
                Some(diff(&old, &report::record(result)))
            });
        let passed = result.passed();
        let seen = report::status(outcome.status);
        CaseRow {
            name: result.case.name.clone(),
            passed,
            snapshot_fails: checked.is_some_and(|c| c.fails),
            snapshot: checked.map(|c| {
                match c.state {
                    SnapshotState::Matches => "snapshot matches",
                    SnapshotState::Changed if c.accepted() => "snapshot changed (accepted)",
                    SnapshotState::Changed => "snapshot differs",
                    SnapshotState::New if c.accepted() => "new snapshot (accepted)",
                    SnapshotState::New => "new snapshot",
                }
                .to_owned()
            }),
            faults: result.case.faults.clone(),
            broken: result
                .verdicts
                .iter()
                .filter(|v| !v.held)
                .map(|v| v.name.clone())
                .collect(),
            properties: result
                .verdicts
                .iter()
                .map(|v| PropertyRow {
                    name: v.name.clone(),
                    held: v.held,
                    detail: v.detail.clone(),
                })
                .collect(),
            expected: describe(&result.case.expect),
            seen,
            agent: report::agent_end(result),
            wall_ms: outcome.wall.as_millis(),
            stdout: tail(&outcome.stdout),
            stderr: tail(&outcome.stderr),
            repro: result.repro.clone(),
            diff,
            // Pictures of failing cases only: a passing one is seldom looked at.
            picture: if passed { None } else { picture::of(result) },
        }
    }
}

/// The last [`TAIL_LINES`] lines of a stream, each cut at [`LINE_CHARS`], with how
/// many lines came before them.
fn tail(bytes: &[u8]) -> Tail {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    let skipped = lines.len().saturating_sub(TAIL_LINES);
    let shown: Vec<String> = lines[skipped..]
        .iter()
        .map(|line| {
            let mut short: String = line.chars().take(LINE_CHARS).collect();
            if short.len() < line.len() {
                short.push('…');
            }
            short
        })
        .collect();
    Tail {
        skipped,
        text: shown.join("\n"),
        bytes: bytes.len(),
    }
}

/// The unified diff of a snapshot and the record that differs from it, line by line,
/// at most [`DIFF_LINES`].
fn diff(old: &str, new: &str) -> Vec<DiffLine> {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut lines = Vec::new();
    for group in diff.grouped_ops(3) {
        lines.push(DiffLine {
            class: "hunk",
            text: "⋯".to_owned(),
        });
        for op in group {
            for change in diff.iter_changes(&op) {
                let (class, sign) = match change.tag() {
                    similar::ChangeTag::Delete => ("del", '-'),
                    similar::ChangeTag::Insert => ("ins", '+'),
                    similar::ChangeTag::Equal => ("same", ' '),
                };
                let text = change.value().trim_end_matches('\n');
                lines.push(DiffLine {
                    class,
                    text: format!("{sign} {}", text.chars().take(LINE_CHARS).collect::<String>()),
                });
            }
        }
    }
    if lines.len() > DIFF_LINES {
        let more = lines.len() - DIFF_LINES;
        lines.truncate(DIFF_LINES);
        lines.push(DiffLine {
            class: "hunk",
            text: format!("… {more} more lines"),
        });
    }
    lines
}

/// The page, as the template sees it.
#[derive(Template)]
#[template(path = "report.html")]
struct Page {
    title: String,
    total: usize,
    passed: usize,
    failed: usize,
    flaky: Vec<String>,
    causes: Vec<CauseRow>,
    snapshots: Option<String>,
    cases: Vec<CaseRow>,
}

struct CauseRow {
    count: usize,
    cause: String,
    cases: Vec<String>,
}

struct CaseRow {
    name: String,
    passed: bool,
    snapshot_fails: bool,
    snapshot: Option<String>,
    faults: String,
    broken: Vec<String>,
    properties: Vec<PropertyRow>,
    expected: String,
    seen: String,
    agent: Option<String>,
    wall_ms: u128,
    stdout: Tail,
    stderr: Tail,
    repro: String,
    diff: Option<Vec<DiffLine>>,
    picture: Option<Picture>,
}

struct PropertyRow {
    name: String,
    held: bool,
    detail: String,
}

struct Tail {
    /// Lines left out before `text`.
    skipped: usize,
    text: String,
    /// The stream's length, as kept.
    bytes: usize,
}

struct DiffLine {
    class: &'static str,
    text: String,
}
