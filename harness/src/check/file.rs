//! Checking a cassette or capture file: its stream, the way it ends, and what a
//! recording should not hold (secrets) or should say (the CLI that made it).

use std::path::Path;

use super::{Report, Rule};
use crate::cassette::Header;
use crate::error::CassetteError;
use crate::format::OutputFormat;
use crate::frames::{Exit, Frame, Stream};

/// A checker of a recording's lines, by one dialect's rules: what [`check_file_with`]
/// feeds a file's lines to. Each dialect's folder implements it for its checker.
pub trait Lint {
    /// A finding about the recording itself (a secret in it, the CLI that made it),
    /// at `line` of the file.
    fn recording_finding(&mut self, line: u64, rule: Rule, message: String);

    /// A line of the recording, on `stream` (stdout: the agent's; stdin: the
    /// client's, in a conversation).
    fn line(&mut self, line: u64, stream: Stream, bytes: &[u8]);

    /// The report, with the checks made at the end of the run (`exit`: how the
    /// recording ended, `None` when it does not say).
    fn finish(self: Box<Self>, exit: Option<Exit>) -> Report;

    /// The report of the findings so far, with no end-of-run checks (a recording
    /// with nothing to check).
    fn stop(self: Box<Self>) -> Report;

    /// Whether a recording made in an output format other than `stream-json` holds
    /// no stream for these rules to check (print mode's `json` and `text`).
    fn needs_stream_json(&self) -> bool {
        false
    }
}

/// Checks a cassette or capture with the checker `choose` gives for its header (a
/// capture has none): the protocol of its stdout (and, in a conversation, of what
/// the client sent), and, for a cassette, the way it ends. Findings name the lines of
/// the file. A recording made in `json` or `text` format, where the checker needs
/// `stream-json`, holds no event stream: its report has one warning saying so. Values
/// that look like secrets are warnings wherever they are; with `max_age` (e.g.
/// `2026.10.01`), so is a cassette recorded with an older CLI, or with one it does
/// not name.
///
/// The file is read as a stream: memory stays flat however long it is (see the
/// [module documentation](super#bounded-memory)).
pub fn check_file_with(
    path: &Path,
    max_age: Option<&str>,
    choose: impl FnOnce(Option<&Header>) -> Box<dyn Lint>,
) -> Result<Report, CassetteError> {
    let mut reader = crate::cassette::open(path)?;
    let mut checker = choose(reader.header());
    if let Some(header) = reader.header() {
        if let Some(min) = max_age {
            match header.invocation.cli_version.as_deref() {
                Some(version) if older(version, min) => checker.recording_finding(
                    1,
                    Rule::CliVersion,
                    format!("recorded with CLI {version}, older than {min}: record it again"),
                ),
                Some(_) => {}
                None => checker.recording_finding(
                    1,
                    Rule::CliVersion,
                    "the cassette does not say which CLI recorded it (record with --cli-version)".into(),
                ),
            }
        }
        let text = serde_json::to_string(header).unwrap_or_default();
        if let Some(secret) = secret_like(&text) {
            checker.recording_finding(1, Rule::Secret, secret_message(&secret));
        }
        if let Some(format) = header
            .invocation
            .output_format
            .filter(|f| *f != OutputFormat::StreamJson && checker.needs_stream_json())
        {
            checker.recording_finding(
                1,
                Rule::Format,
                format!("recorded with `--output-format {format}`: there are no events to check"),
            );
            return Ok(checker.stop());
        }
    }
    let mut exit = None;
    while let Some(frame) = reader.next() {
        match frame? {
            Frame::Line(line) => {
                if let Some(secret) = secret_like(&String::from_utf8_lossy(&line.bytes)) {
                    checker.recording_finding(reader.line_no(), Rule::Secret, secret_message(&secret));
                }
                checker.line(reader.line_no(), line.stream, &line.bytes);
            }
            Frame::End(end) => exit = Some(end.exit),
            _ => {}
        }
    }
    // A capture's exit is made up from its last line: it says nothing.
    Ok(checker.finish(if reader.is_capture() { None } else { exit }))
}

fn secret_message(secret: &str) -> String {
    let shown: String = secret.chars().take(8).collect();
    format!("a value that looks like a secret (`{shown}…`): redact it (`mock-agent record --redact`)")
}

/// Prefixes of API keys and tokens, each with the fewest token characters that must
/// follow it. Keys in the `sk-` style come in every length, down to test keys such as
/// `sk-test-SECRET123`.
const SECRET_PREFIXES: &[(&str, usize)] = &[
    ("sk-", 8),
    ("sk_", 8),
    ("key_", 16),
    ("crsr_", 16),
    ("ghp_", 16),
    ("gho_", 16),
    ("xoxb-", 16),
    ("xoxp-", 16),
    ("AKIA", 16),
    ("Bearer ", 16),
];

/// A value in `text` that looks like a secret: a known key prefix at the start of a
/// word, followed by token characters (letters, digits, `_`, `-`, `.`): 8 or more
/// after `sk-` and `sk_`, 16 or more after the others (`ghp_`, `Bearer `, ...).
/// `[REDACTED]` values are not secrets.
pub fn secret_like(text: &str) -> Option<String> {
    let token = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.';
    for (prefix, min_len) in SECRET_PREFIXES {
        let mut from = 0;
        while let Some(i) = text[from..].find(prefix) {
            let start = from + i;
            let boundary = text[..start].chars().next_back().is_none_or(|c| !token(c));
            let body: String = text[start + prefix.len()..]
                .chars()
                .take_while(|c| token(*c))
                .collect();
            if boundary && body.len() >= *min_len && !body.contains("REDACTED") {
                return Some(format!("{prefix}{body}"));
            }
            from = start + prefix.len();
        }
    }
    None
}

/// Whether CLI version `a` is older than `b`: their dates (`2026.10.01`) compared.
pub fn older(a: &str, b: &str) -> bool {
    let date = |v: &str| -> Vec<u64> {
        v.split('-')
            .next()
            .unwrap_or("")
            .split('.')
            .map(|n| n.parse().unwrap_or(0))
            .collect()
    };
    date(a) < date(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets() {
        assert_eq!(
            secret_like("key sk-live-0123456789abcdef in text"),
            Some("sk-live-0123456789abcdef".into())
        );
        assert_eq!(secret_like("Bearer [REDACTED]"), None);
        assert_eq!(
            secret_like("task-0123456789abcdefgh"),
            None,
            "a word that merely ends in sk-"
        );
    }

    #[test]
    fn sk_keys_are_secrets_from_eight_characters() {
        assert_eq!(
            secret_like(r#"{"env":"OPENAI_API_KEY=sk-test-SECRET123"}"#),
            Some("sk-test-SECRET123".into())
        );
        assert_eq!(secret_like("sk-12345678"), Some("sk-12345678".into()));
        assert_eq!(secret_like("sk_live_abcd1234"), Some("sk_live_abcd1234".into()));
        assert_eq!(secret_like("sk-1234567"), None, "seven characters are not enough");
        assert_eq!(secret_like("sk-learn"), None);
        assert_eq!(secret_like("sk-[REDACTED]"), None);
        // Other prefixes still want 16.
        assert_eq!(secret_like("ghp_0123456789abcde"), None);
        assert_eq!(
            secret_like("ghp_0123456789abcdef"),
            Some("ghp_0123456789abcdef".into())
        );
    }

    #[test]
    fn versions() {
        assert!(older("2026.01.15-abc1234", "2026.10.01"));
        assert!(!older("2026.10.01-e373342", "2026.10.01"));
        assert!(!older("2027.01.01-x", "2026.12.31"));
    }
}
