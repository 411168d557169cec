//! Reports of a run: the normalized record of each case (what [`super::snapshot`]
//! keeps), and JUnit XML.
//!
//! A record holds the case, what a correct consumer concludes, how the consumer ended,
//! each property, and its stdout and stderr, normalized so that it is the same on every
//! run: the case's temporary directory becomes `[TMP]`, UUIDs `[UUID]`, 13-digit
//! millisecond timestamps `[TIMESTAMP]`.

use std::fmt::Write as _;
use std::path::Path;

use super::{describe, Case, CaseResult, Status};
use crate::expect::Expectation;

/// The normalized record of one case, as snapshotted.
pub fn record(result: &CaseResult) -> String {
    let outcome = &result.outcome;
    let mut text = String::new();
    let _ = writeln!(text, "case: {}", result.case.name);
    if !result.case.faults.is_empty() {
        let _ = writeln!(text, "faults: {}", result.case.faults);
    }
    let _ = writeln!(text, "expect: {}", describe(&result.case.expect));
    let _ = writeln!(text, "status: {}", status(outcome.status));
    let _ = writeln!(text, "properties:");
    for verdict in &result.verdicts {
        if verdict.held {
            let _ = writeln!(text, "  ok   {}", verdict.name);
        } else {
            let _ = writeln!(text, "  FAIL {}: {}", verdict.name, verdict.detail);
        }
    }
    let text_of = |bytes: &[u8]| normalize(&String::from_utf8_lossy(bytes), &outcome.dir);
    let conversations = outcome.journal.iter().filter_map(|e| result.case.dialect.told(e));
    for (n, (told, divergences)) in conversations.enumerate() {
        let told = normalize(&told, &outcome.dir);
        let _ = writeln!(text, "--- conversation {} ---\n{}", n + 1, clip(&told));
        for divergence in &divergences {
            // Live session ids, made up by the mock, are UUIDs.
            let _ = writeln!(text, "divergence: {}", normalize(divergence, &outcome.dir));
        }
    }
    let _ = writeln!(text, "--- stdout ---\n{}", clip(&text_of(&outcome.stdout)));
    let _ = write!(text, "--- stderr ---\n{}", clip(&text_of(&outcome.stderr)));
    text
}

/// Records keep at most this much of the start of each stream, and as much of its end.
const CLIP: usize = 2_000;

/// `text`, or its first and last [`CLIP`] bytes (at character boundaries) with a
/// line that says how much was left out: the end of a stream (a traceback's last
/// line, the one that says what broke) is kept as well as its start.
pub(super) fn clip(text: &str) -> String {
    if text.len() <= 2 * CLIP {
        return text.to_owned();
    }
    let mut end = CLIP;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut start = text.len() - CLIP;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    // The bytes the runner left out of the stream (see `child::keep`) count too.
    let middle = &text[end..start];
    let left_out: usize = middle
        .split("\n[... ")
        .skip(1)
        .filter_map(|rest| rest.split_once(" bytes left out ...]\n"))
        .filter_map(|(n, _)| n.parse::<usize>().ok())
        .map(|n| n.saturating_sub(super::child::omitted(n as u64).len()))
        .sum();
    format!(
        "{}\n[... {} more bytes ...]\n{}",
        &text[..end],
        middle.len() + left_out,
        &text[start..]
    )
}

/// How the consumer ended, in words: `exit code 1`, `signal 9`, `timed out`.
pub fn status(status: Status) -> String {
    match status {
        Status::Exited(code) => format!("exit code {code}"),
        Status::Signaled(signal) => format!("signal {signal}"),
        Status::TimedOut => "timed out".to_owned(),
    }
}

/// How the agent ended, from the mock's journal (its last run in the case): `the
/// agent exited 0 without a successful result`, `the agent exited 1`, `the agent died
/// by SIGKILL`, `the consumer never ran the agent`. `None` in a dialect where a turn
/// fails without the agent's ending (ACP's server mode, see
/// [`Dialect::ends_with_the_agent`](super::Dialect::ends_with_the_agent)).
pub fn agent_end(result: &CaseResult) -> Option<String> {
    use crate::journal::ExitRecord;
    if !result.case.dialect.ends_with_the_agent() {
        return None;
    }
    let Some(entry) = result.outcome.journal.last() else {
        // The agent writes its journal as it ends: one killed outright (SIGKILL) or
        // still running when the case ended writes none, but its start was recorded.
        return Some(if result.outcome.starts.is_empty() {
            "the consumer never ran the agent".to_owned()
        } else {
            "the agent did not end on its own (killed, or still running when the consumer ended)".to_owned()
        });
    };
    Some(match &entry.exit {
        ExitRecord::Code(0) if result.case.expect == Expectation::Failure => {
            "the agent exited 0 without a successful result".to_owned()
        }
        ExitRecord::Code(code) => format!("the agent exited {code}"),
        ExitRecord::Signal(signal) => format!("the agent died by {signal}"),
    })
}

/// What the judge allows of a consumer in `case` (the case as it was judged: see
/// [`super::Properties::judge`]), in words: `failure`, `success: "ANSWER"`, or, where
/// a fault breaks what the consumer's SDK can read so that either conclusion is right,
/// `either: failure, or success: "ANSWER"`.
pub fn expected(case: &Case) -> String {
    match &case.expect {
        Expectation::Success { .. } if !case.dialect.judged(case) => {
            format!("either: failure, or {}", describe(&case.expect))
        }
        expect => describe(expect),
    }
}

/// How many of a stream's last lines a failure shows.
const LAST_LINES: usize = 4;

/// A failing case explained, each line indented by four spaces: each broken property
/// and why, what a correct consumer concludes and how this one ended, the last lines
/// of its stdout and stderr, and the line that runs the case again in a shell.
pub fn explain(result: &CaseResult) -> String {
    let mut text = String::new();
    for verdict in result.verdicts.iter().filter(|v| !v.held) {
        let _ = writeln!(text, "    {}: {}", verdict.name, verdict.detail);
    }
    let mut expected = expected(&result.case);
    if expected.chars().count() > 80 {
        expected = format!("{}...", expected.chars().take(77).collect::<String>());
    }
    let _ = writeln!(
        text,
        "    expected: {expected}; seen: {}",
        status(result.outcome.status)
    );
    if let Some(agent) = agent_end(result) {
        let _ = writeln!(text, "    {agent}");
    }
    if let Some(argv) = super::properties::refused_arguments(&result.outcome) {
        let _ = writeln!(text, "    the arguments it refused: {argv}");
    }
    for (name, bytes) in [
        ("stdout", &result.outcome.stdout),
        ("stderr", &result.outcome.stderr),
    ] {
        let all = String::from_utf8_lossy(bytes);
        let lines: Vec<&str> = all.lines().filter(|l| !l.trim().is_empty()).collect();
        if lines.is_empty() {
            let _ = writeln!(text, "    {name}: nothing");
            continue;
        }
        let shown = &lines[lines.len().saturating_sub(LAST_LINES)..];
        let _ = writeln!(text, "    {name}, last {} lines:", shown.len());
        for line in shown {
            let mut short: String = line.chars().take(200).collect();
            if short.len() < line.len() {
                short.push_str("...");
            }
            let _ = writeln!(text, "      | {short}");
        }
    }
    let _ = writeln!(text, "    repro: {}", result.repro);
    text
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

/// JUnit XML: one test case per case, a failure per broken property; a case not run
/// is an error (`type="not-run"`, with why and what to do), neither passed nor failed;
/// a case not applicable to the consumer (no fault of it acted) is skipped, with why.
pub fn junit(results: &[CaseResult], changed: &[String]) -> String {
    let failures = results
        .iter()
        .filter(|r| r.failed() || (r.not_run.is_none() && changed.contains(&r.case.name)))
        .count();
    let errors = results.iter().filter(|r| r.not_run.is_some()).count();
    let skipped = |r: &CaseResult| r.not_run.is_none() && !r.failed() && r.not_applicable.is_some();
    let skips = results.iter().filter(|r| skipped(r)).count();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuite name=\"mock-agent\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skips}\">",
        results.len()
    );
    for result in results {
        let _ = write!(
            xml,
            "  <testcase classname=\"mock-agent\" name=\"{}\" time=\"{:.3}\"",
            escape(&result.case.name),
            result.outcome.wall.as_secs_f64()
        );
        if let Some(not_run) = &result.not_run {
            let _ = writeln!(
                xml,
                ">\n    <error type=\"not-run\" message=\"not run: {}\">{}</error>\n  </testcase>",
                escape(&not_run.reason),
                escape(&format!("{not_run}\nrepro: {}", result.repro))
            );
            continue;
        }
        if let Some(why) = result.not_applicable.as_deref().filter(|_| skipped(result)) {
            let _ = writeln!(
                xml,
                ">\n    <skipped message=\"not applicable: {}\"/>\n  </testcase>",
                escape(why)
            );
            continue;
        }
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
                escape(&format!("{}\nrepro: {}", record(result), result.repro))
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
}
