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
use super::{report, CaseResult, Flaky, Summary};

pub use picture::Picture;

/// How many of a stream's last lines a case shows.
pub const TAIL_LINES: usize = 20;

/// How long a line of a stream may be before it is cut.
const LINE_CHARS: usize = 300;

/// How much of a stream a case shows, at most: its last lines up to this many bytes.
const TAIL_BYTES: usize = 4_000;

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
        let not_run = summary.not_run().count();
        let not_applicable = summary.not_applicable().count();
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
        rows.sort_by_key(|row| (row.passed || row.not_applicable.is_some()) && !row.snapshot_fails);
        let page = Page {
            title: self.title.to_owned(),
            total: self.results.len(),
            passed: self.results.len() - failed - not_run - not_applicable,
            failed,
            not_run,
            not_applicable,
            flaky: self.flaky.iter().map(ToString::to_string).collect(),
            causes,
            snapshots: self.snapshot_counts(),
            cases: rows,
        };
        // A template whose values all display cannot fail to render.
        page.render()
            .unwrap_or_else(|e| format!("<!doctype html><p>mock-agent: the report did not render: {e}</p>"))
    }

    fn snapshot_counts(&self) -> Option<String> {
        self.snapshot_dir?;
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
            not_run: result.not_run.as_ref().map(ToString::to_string),
            not_applicable: result
                .not_applicable
                .clone()
                .filter(|_| result.not_run.is_none() && !result.failed()),
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
            // A case not run shows why where its broken properties would be.
            broken: result
                .verdicts
                .iter()
                .filter(|v| !v.held)
                .map(|v| v.name.clone())
                .chain(result.not_run.as_ref().map(|_| "not run".to_owned()))
                .collect(),
            properties: result
                .verdicts
                .iter()
                .map(|v| PropertyRow {
                    name: v.name.clone(),
                    held: v.held,
                    detail: v.detail.clone(),
                })
                .chain(result.not_run.as_ref().map(|not_run| PropertyRow {
                    name: "not run".to_owned(),
                    held: false,
                    detail: not_run.to_string(),
                }))
                .collect(),
            expected: report::clip(&report::expected(&result.case)),
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
    let mut shown: Vec<String> = Vec::new();
    let mut size = 0;
    for line in lines.iter().rev().take(TAIL_LINES) {
        let mut short: String = line.chars().take(LINE_CHARS).collect();
        if short.len() < line.len() {
            short.push('…');
        }
        size += short.len() + 1;
        if size > TAIL_BYTES && !shown.is_empty() {
            break;
        }
        shown.push(short);
    }
    shown.reverse();
    let skipped = lines.len() - shown.len();
    Tail {
        skipped,
        text: shown.join("\n"),
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
    not_run: usize,
    not_applicable: usize,
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
    /// Why the case was not run (no verdict given), if it was not.
    not_run: Option<String>,
    /// Why no fault of the case acted for this consumer (no verdict given), if none did.
    not_applicable: Option<String>,
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
}

struct DiffLine {
    class: &'static str,
    text: String,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::format::OutputFormat;
    use crate::journal::{Entry, ExitRecord};
    use crate::run::{Case, CaseSource, Outcome, Status, Verdict};

    /// A failing print-mode case whose consumer printed `stdout` and `stderr`.
    fn failing(name: &str, stdout: Vec<u8>, stderr: Vec<u8>) -> CaseResult {
        let case = Case::new(
            CaseSource::Default,
            OutputFormat::StreamJson,
            "eof:after=3,byte=10",
            name.to_owned(),
        )
        .expect("a case");
        let mut entry = Entry::new(1, Vec::new(), 0);
        entry.output_format = Some(OutputFormat::StreamJson);
        entry.exit = ExitRecord::Code(0);
        CaseResult {
            case,
            outcome: Outcome {
                wall: Duration::from_millis(12),
                ..Outcome::ended(Status::Exited(0), (stdout, stderr), vec![entry], "/tmp/x".into())
            },
            verdicts: vec![Verdict {
                name: "reports-failure".to_owned(),
                held: false,
                detail: "the agent failed, but the consumer exited 0".to_owned(),
            }],
            repro: "cd /x && sh -c 'bot'".to_owned(),
            not_run: None,
            not_applicable: None,
        }
    }

    #[test]
    fn everything_the_consumer_printed_is_escaped() {
        let result = failing(
            "default/<b>",
            b"<script>alert(1)</script>".to_vec(),
            b"a & \"b\"".to_vec(),
        );
        let page = Report::new(std::slice::from_ref(&result)).render();
        assert!(!page.contains("<script>"), "{page}");
        assert!(!page.contains("<b>"), "the case's name too");
        assert!(page.contains("alert(1)"));
        assert!(page.contains("<svg"), "a failing case has its picture");
        assert!(page.contains("reports-failure"));
    }

    #[test]
    fn a_changed_snapshot_shows_its_diff() {
        let dir = tempfile::tempdir().expect("temp dir");
        let result = failing("default/eof@mid-line", b"old answer\n".to_vec(), Vec::new());
        let policy = snapshot::Policy::from_lookup(|_| None).expect("the policy");
        let old = report::record(&result);
        snapshot::check(dir.path(), &result.case.name, &old, &policy.accepting()).expect("written");
        let mut changed = result.clone();
        changed.outcome.stdout = b"new answer\n".to_vec();
        let checked =
            vec![
                snapshot::check(dir.path(), &changed.case.name, &report::record(&changed), &policy)
                    .expect("checked"),
            ];
        assert_eq!(checked[0].state, SnapshotState::Changed);
        let results = [changed];
        let page = Report::new(&results).snapshots(&checked, dir.path()).render();
        assert!(page.contains("Snapshot diff"), "{page}");
        assert!(page.contains("<span class=\"del\">- old answer</span>"), "{page}");
        assert!(page.contains("<span class=\"ins\">+ new answer</span>"), "{page}");
    }

    #[test]
    fn a_report_of_400_cases_stays_within_a_few_megabytes() {
        // Each keeps what a result keeps of its streams at most (`KEPT`, and more).
        let line = "x".repeat(1000) + "\n";
        let big = line.repeat(100).into_bytes();
        let results: Vec<CaseResult> = (0..400)
            .map(|n| failing(&format!("case-{n}"), big.clone(), big.clone()))
            .collect();
        let page = Report::new(&results).render();
        assert!(page.len() < 6 << 20, "{} bytes", page.len());
        // The last lines of each stream up to `TAIL_BYTES`, a picture of a few frames.
        let per_case = page.len() / 400;
        assert!(per_case < 15_000, "{per_case} bytes a case");
        assert!(page.contains("87 before"), "the lines left out are counted");
    }

    /// A case whose expected answer is a megabyte (`huge-1m`) shows its start and end.
    #[test]
    fn a_huge_expected_answer_is_clipped() {
        let mut result = failing("default/huge-1m", Vec::new(), Vec::new());
        result.case.expect = crate::expect::Expectation::Success {
            answer: format!("The start.{}The end.", "x".repeat(1 << 20)),
        };
        let page = Report::new(std::slice::from_ref(&result)).render();
        assert!(page.len() < 100_000, "{} bytes", page.len());
        assert!(page.contains("The start.") && page.contains("The end."), "{page}");
    }
}
