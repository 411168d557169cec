//! Reports of a run: the normalized record of each case, snapshot files in insta's
//! format, a table, and JUnit XML.
//!
//! A record holds the case, what a correct consumer concludes, how the consumer ended,
//! each property, and its stdout and stderr, redacted so that it is the same on every
//! run: the case's temporary directory becomes `[TMP]`, UUIDs `[UUID]`, 13-digit
//! millisecond timestamps `[TIMESTAMP]`. Snapshots are `NAME.snap` files, new or
//! changed ones `NAME.snap.new`, in insta's format: `cargo insta review` accepts them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{describe, CaseResult, Status};

/// The normalized record of one case, as snapshotted.
pub fn record(result: &CaseResult) -> String {
    let outcome = &result.outcome;
    let mut text = String::new();
    let _ = writeln!(text, "case: {}", result.case.name);
    if !result.case.faults.is_empty() {
        let _ = writeln!(text, "faults: {}", result.case.faults);
    }
    let _ = writeln!(text, "expect: {}", describe(&result.case.expect));
    let status = match outcome.status {
        Status::Exited(code) => format!("exit code {code}"),
        Status::Signaled(signal) => format!("signal {signal}"),
        Status::TimedOut => "timed out".to_owned(),
    };
    let _ = writeln!(text, "status: {status}");
    let _ = writeln!(text, "properties:");
    for verdict in &result.verdicts {
        if verdict.held {
            let _ = writeln!(text, "  ok   {}", verdict.name);
        } else {
            let _ = writeln!(text, "  FAIL {}: {}", verdict.name, verdict.detail);
        }
    }
    let text_of = |bytes: &[u8]| normalize(&String::from_utf8_lossy(bytes), &outcome.dir);
    let _ = writeln!(text, "--- stdout ---\n{}", clip(&text_of(&outcome.stdout)));
    let _ = write!(text, "--- stderr ---\n{}", clip(&text_of(&outcome.stderr)));
    text
}

/// Records keep at most this much of each stream.
const CLIP: usize = 4_000;

fn clip(text: &str) -> String {
    if text.len() <= CLIP {
        return text.to_owned();
    }
    let mut end = CLIP;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[... {} more bytes]\n", &text[..end], text.len() - end)
}

/// Replaces what changes from run to run: the temporary directory, UUIDs, timestamps.
pub fn normalize(text: &str, dir: &Path) -> String {
    let text = text.replace(&dir.display().to_string(), "[TMP]");
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if let Some(len) = uuid_at(&chars[i..]) {
            out.push_str("[UUID]");
            i += len;
            continue;
        }
        let digits = chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 {
            let before = i.checked_sub(1).map(|j| chars[j]);
            if digits == 13 && !before.is_some_and(|c| c.is_ascii_alphanumeric()) {
                out.push_str("[TIMESTAMP]");
            } else {
                out.extend(&chars[i..i + digits]);
            }
            i += digits;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// The length of a UUID (8-4-4-4-12 hex digits) at the start of `chars`.
fn uuid_at(chars: &[char]) -> Option<usize> {
    let groups = [8, 4, 4, 4, 12];
    let mut i = 0;
    for (g, len) in groups.iter().enumerate() {
        if g > 0 {
            if chars.get(i) != Some(&'-') {
                return None;
            }
            i += 1;
        }
        for _ in 0..*len {
            if !chars.get(i)?.is_ascii_hexdigit() {
                return None;
            }
            i += 1;
        }
    }
    (!chars.get(i).is_some_and(char::is_ascii_hexdigit)).then_some(i)
}

/// What comparing a record with its snapshot found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotState {
    /// The same as the snapshot.
    Matches,
    /// No snapshot yet: `NAME.snap.new` written (or `NAME.snap`, when accepting).
    New,
    /// Different from the snapshot: `NAME.snap.new` written (or the snapshot updated).
    Changed,
}

/// The snapshot file of a case in `dir`: its name with `/` made `__`.
pub fn snapshot_path(dir: &Path, case: &str) -> PathBuf {
    let name: String = case
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.@/".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{}.snap", name.replace('/', "__")))
}

/// Compares a record with its snapshot in `dir`, writing `.snap.new` (or `.snap`
/// when `accept`) where they differ.
pub fn compare(dir: &Path, case: &str, record: &str, accept: bool) -> std::io::Result<SnapshotState> {
    compare_with(dir, case, record, if accept { Write::Accept } else { Write::New })
}

/// What [`compare_with`] writes where a record differs from its snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// `NAME.snap.new`, for review.
    New,
    /// `NAME.snap`: accepted.
    Accept,
    /// Nothing (insta's `INSTA_UPDATE=no`).
    Nothing,
}

/// Compares a record with its snapshot in `dir`, writing as `write` says.
pub fn compare_with(dir: &Path, case: &str, record: &str, write: Write) -> std::io::Result<SnapshotState> {
    let path = snapshot_path(dir, case);
    let contents = format!(
        "---\nsource: mock-agent test\nexpression: \"{}\"\n---\n{record}\n",
        case.replace('"', "'")
    );
    let new_path = path.with_extension("snap.new");
    // As insta does, trailing white space is not compared.
    let state = match std::fs::read_to_string(&path) {
        Ok(old) if body(&old).trim_end() == record.trim_end() => SnapshotState::Matches,
        Ok(_) => SnapshotState::Changed,
        Err(_) => SnapshotState::New,
    };
    if state == SnapshotState::Matches {
        let _ = std::fs::remove_file(&new_path);
        return Ok(state);
    }
    match write {
        Write::Nothing => {}
        Write::Accept => {
            std::fs::create_dir_all(dir)?;
            std::fs::write(&path, contents)?;
            let _ = std::fs::remove_file(&new_path);
        }
        Write::New => {
            std::fs::create_dir_all(dir)?;
            std::fs::write(&new_path, contents)?;
        }
    }
    Ok(state)
}

/// The snapshot body: what follows the header.
fn body(snapshot: &str) -> &str {
    let rest = snapshot.strip_prefix("---\n").unwrap_or(snapshot);
    let body = rest.find("\n---\n").map_or(rest, |i| &rest[i + 5..]);
    body.strip_suffix('\n').unwrap_or(body)
}

/// JUnit XML: one test case per case, a failure per broken property.
pub fn junit(results: &[CaseResult], changed: &[String]) -> String {
    let failures = results
        .iter()
        .filter(|r| !r.passed() || changed.contains(&r.case.name))
        .count();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuite name=\"mock-agent\" tests=\"{}\" failures=\"{failures}\">",
        results.len()
    );
    for result in results {
        let _ = write!(
            xml,
            "  <testcase classname=\"mock-agent\" name=\"{}\" time=\"{:.3}\"",
            escape(&result.case.name),
            result.outcome.wall.as_secs_f64()
        );
        let broken: Vec<String> = result
            .verdicts
            .iter()
            .filter(|v| !v.held)
            .map(|v| format!("{}: {}", v.name, v.detail))
            .chain(
                changed
                    .contains(&result.case.name)
                    .then(|| "snapshot differs".to_owned()),
            )
            .collect();
        if broken.is_empty() {
            xml.push_str("/>\n");
        } else {
            let _ = writeln!(
                xml,
                ">\n    <failure message=\"{}\">{}</failure>\n  </testcase>",
                escape(&broken.join("; ")),
                escape(&record(result))
            );
        }
    }
    xml.push_str("</testsuite>\n");
    xml
}

fn escape(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '&' => "&amp;".to_owned(),
            '<' => "&lt;".to_owned(),
            '>' => "&gt;".to_owned(),
            '"' => "&quot;".to_owned(),
            // XML 1.0 has no way to write other control characters.
            c if c.is_control() && c != '\n' && c != '\t' => "\u{fffd}".to_owned(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_what_changes_between_runs() {
        let dir = Path::new("/tmp/mock-agent-case-abc");
        let text = "in /tmp/mock-agent-case-abc/x: c6b62c6f-7ead-4fd6-9922-e952131177ff at 1790000000123, not 12345 or x1790000000123";
        assert_eq!(
            normalize(text, dir),
            "in [TMP]/x: [UUID] at [TIMESTAMP], not 12345 or x1790000000123"
        );
    }

    #[test]
    fn snapshot_bodies_round_trip() {
        let dir = tempfile::tempdir().expect("temp dir");
        let record = "case: a/b\nstatus: exit code 0";
        assert_eq!(
            compare(dir.path(), "a/b", record, false).expect("writes"),
            SnapshotState::New
        );
        assert!(snapshot_path(dir.path(), "a/b")
            .with_extension("snap.new")
            .exists());
        assert_eq!(
            compare(dir.path(), "a/b", record, true).expect("writes"),
            SnapshotState::New
        );
        assert_eq!(
            compare(dir.path(), "a/b", record, false).expect("reads"),
            SnapshotState::Matches
        );
        assert_eq!(
            compare(dir.path(), "a/b", "other", false).expect("reads"),
            SnapshotState::Changed
        );
    }
}
