//! Reports of a run: the normalized record of each case (what [`super::snapshot`]
//! keeps), and JUnit XML.
//!
//! A record holds the case, what a correct consumer concludes, how the consumer ended,
//! each property, and its stdout and stderr, normalized so that it is the same on every
//! run: the case's temporary directory becomes `[TMP]`, UUIDs `[UUID]`, 13-digit
//! millisecond timestamps `[TIMESTAMP]`.

use std::fmt::Write as _;
use std::path::Path;

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
    let conversations = outcome
        .journal
        .iter()
        .filter_map(|e| e.acp.as_ref().map(|c| (c, e.crashed())));
    for (n, (conversation, crashed)) in conversations.enumerate() {
        // What raced the agent's death is left out: the record is the same on every run.
        let messages = conversation
            .settled(crashed)
            .map(|m| (m.dir.as_str(), m.line.as_str()));
        let told = normalize(&crate::dialects::cursor_acp::summary(messages), &outcome.dir);
        let _ = writeln!(text, "--- conversation {} ---\n{}", n + 1, clip(&told));
        for divergence in &conversation.divergences {
            // Live session ids, made up by the mock, are UUIDs.
            let _ = writeln!(text, "divergence: {}", normalize(divergence, &outcome.dir));
        }
    }
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
}
