//! Secrets kept out of the cassette: [`Redactor`] replaces them by [`MARKER`], in the
//! bytes as they are and in the decoded value of every JSON string, and finds any left.
//!
//! A JSON string may spell a secret with escapes (`"sk-test\u002dSECRET"`), which a
//! reader of the cassette decodes back into the secret. So a line with a backslash is
//! also looked at decoded: its escapes (`\uXXXX`, surrogate pairs, `\n`, `\/`, ...)
//! are decoded left to right, as a JSON parser decodes a string, and an occurrence of
//! a secret in the decoded text replaces the bytes that spelled it, escapes and all,
//! by the marker. The rest of the line keeps its bytes, and a JSON line stays valid
//! JSON: the marker has nothing to escape. Lines without a backslash, nearly all of
//! them, are not decoded.

use std::borrow::Cow;
use std::ops::Range;

use memchr::memmem::Finder;

use super::{RecordOptions, MARKER, SECRET_ENV};

/// Replaces secrets in bytes, and finds any left.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Each secret, and its JSON-escaped form where that differs; longest first.
    secrets: Vec<Finder<'static>>,
    home: Option<Finder<'static>>,
}

/// How many times a line is decoded and redacted again at most: a marker put in
/// place could only make a new occurrence with a secret that overlaps the marker.
const ROUNDS: usize = 4;

impl Redactor {
    /// The secrets of an invocation: the default environment variables and `names`,
    /// `--api-key` and `-H`/`--header` values in `argv`, and `extra` strings.
    pub fn new(
        argv: &[String],
        env: impl Fn(&str) -> Option<String>,
        names: &[String],
        extra: &[String],
    ) -> Self {
        let mut secrets: Vec<String> = Vec::new();
        for name in SECRET_ENV.iter().copied().chain(names.iter().map(String::as_str)) {
            secrets.extend(env(name));
        }
        let mut args = argv.iter();
        while let Some(arg) = args.next() {
            let value = match arg.as_str() {
                "--api-key" | "-H" | "--header" => args.next().cloned(),
                other => other
                    .strip_prefix("--api-key=")
                    .or_else(|| other.strip_prefix("--header="))
                    .or_else(|| other.strip_prefix("-H").filter(|v| !v.is_empty()))
                    .map(str::to_owned),
            };
            if let Some(value) = value {
                // A header's value is the secret; its name is not.
                if let Some((_, secret)) = value.split_once(':') {
                    secrets.push(secret.trim().to_owned());
                    // `Bearer TOKEN`: the token alone is a secret too.
                    secrets.extend(secret.split_whitespace().last().map(str::to_owned));
                }
                secrets.push(value);
            }
        }
        secrets.extend(extra.iter().cloned());
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        // The marker itself is no secret: a run of a cassette recorded with a key in
        // its arguments has the marker there.
        for secret in secrets.into_iter().filter(|s| s.len() >= 4 && s != super::MARKER) {
            let quoted = serde_json::to_string(&secret).unwrap_or_default();
            // One quote off each end: a secret may begin or end with an escaped one.
            let escaped = quoted
                .strip_prefix('"')
                .and_then(|q| q.strip_suffix('"'))
                .unwrap_or(&quoted);
            if escaped != secret {
                patterns.push(escaped.as_bytes().to_vec());
            }
            patterns.push(secret.into_bytes());
        }
        // Longest first, so that a secret inside another goes with it.
        patterns.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        patterns.dedup();
        Redactor {
            secrets: patterns.iter().map(|p| Finder::new(p).into_owned()).collect(),
            home: None,
        }
    }

    /// The redactor of a recording: the secrets of the environment, of `argv` and of
    /// the options, and the home directory when the options say so.
    pub(super) fn of_process(argv: &[String], options: &RecordOptions) -> Self {
        Redactor::new(
            argv,
            |name| std::env::var(name).ok().filter(|v| !v.is_empty()),
            &options.secret_env,
            &options.secrets,
        )
        .home(if options.redact_home {
            std::env::var("HOME").ok()
        } else {
            None
        })
    }

    /// Also replaces this home directory by `~`.
    #[must_use]
    pub fn home(mut self, home: Option<String>) -> Self {
        self.home = home
            .filter(|h| h.len() > 1)
            .map(|h| Finder::new(h.as_bytes()).into_owned());
        self
    }

    /// The bytes with every secret replaced.
    pub fn apply(&self, bytes: &[u8]) -> Vec<u8> {
        self.redact(bytes).into_owned()
    }

    /// The bytes with every secret replaced, borrowed when there was none (the
    /// common case, and the cheap one).
    pub fn redact<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let mut out = Cow::Borrowed(bytes);
        for secret in &self.secrets {
            if secret.find(&out).is_some() {
                out = Cow::Owned(replace(&out, secret, MARKER.as_bytes()));
            }
        }
        if self.decoded_secret(&out).is_some() {
            if let Some(redacted) = self.redact_decoded(&out) {
                out = Cow::Owned(redacted);
            }
        }
        if let Some(home) = &self.home {
            if home.find(&out).is_some() {
                out = Cow::Owned(replace(&out, home, b"~"));
            }
        }
        out
    }

    /// The first characters of a secret still in `bytes`, as they are or decoded,
    /// if one is.
    pub fn leak(&self, bytes: &[u8]) -> Option<String> {
        if self.secrets.is_empty() {
            return None;
        }
        let found = self
            .secrets
            .iter()
            .find(|s| s.find(bytes).is_some())
            .or_else(|| self.decoded_secret(bytes))?;
        let shown: String = String::from_utf8_lossy(found.needle()).chars().take(3).collect();
        Some(format!("{shown}…"))
    }

    pub(super) fn apply_str(&self, text: &str) -> String {
        String::from_utf8_lossy(&self.redact(text.as_bytes())).into_owned()
    }

    /// A secret in the decoded text of `bytes`, spelled with at least one escape (the
    /// ones spelled without are found as they are). Only bytes with an escape decode
    /// to something else, and only from a secret's length before the first escape:
    /// before it, the decoded text is the bytes themselves. Nor is it kept where each
    /// decoded byte came from: that is for the rare line that holds a secret.
    fn decoded_secret(&self, bytes: &[u8]) -> Option<&Finder<'static>> {
        let longest = self.secrets.first()?.needle().len();
        let first_escape = memchr::memchr(b'\\', bytes)?;
        let bytes = &bytes[first_escape.saturating_sub(longest)..];
        let mut decoded = Vec::with_capacity(bytes.len());
        unescape(bytes, |piece| match piece {
            Piece::Raw(range) => decoded.extend_from_slice(&bytes[range]),
            Piece::Escape(_, ch) => decoded.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes()),
        });
        self.secrets.iter().find(|s| s.find(&decoded).is_some())
    }

    /// The bytes with each secret found in their decoded text replaced, or `None`
    /// when the decoded text holds none.
    fn redact_decoded(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        let mut out: Option<Vec<u8>> = None;
        for _ in 0..ROUNDS {
            let current = out.as_deref().unwrap_or(bytes);
            let decoded = &Decoded::of(current);
            let mut spans: Vec<Range<usize>> = self
                .secrets
                .iter()
                .flat_map(|s| {
                    let len = s.needle().len();
                    s.find_iter(&decoded.bytes)
                        .map(move |at| decoded.source(at..at + len))
                })
                .collect();
            if spans.is_empty() {
                break;
            }
            spans.sort_by_key(|r| r.start);
            let mut next = Vec::with_capacity(current.len());
            let mut done = 0;
            for span in spans {
                if span.end <= done {
                    continue;
                }
                next.extend_from_slice(&current[done..span.start.max(done)]);
                if span.start >= done {
                    next.extend_from_slice(MARKER.as_bytes());
                }
                done = span.end;
            }
            next.extend_from_slice(&current[done..]);
            out = Some(next);
        }
        out
    }
}

fn replace(haystack: &[u8], needle: &Finder<'_>, with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut done = 0;
    for at in needle.find_iter(haystack) {
        out.extend_from_slice(&haystack[done..at]);
        out.extend_from_slice(with);
        done = at + needle.needle().len();
    }
    out.extend_from_slice(&haystack[done..]);
    out
}

/// Bytes with their JSON escapes decoded, each decoded byte knowing where in the
/// source it came from.
#[derive(Debug)]
struct Decoded {
    bytes: Vec<u8>,
    /// For each decoded byte, the offset in the source of what it was decoded from
    /// (the bytes of one escape share it); then the source's length.
    starts: Vec<usize>,
}

impl Decoded {
    /// The decoded bytes of `source` ([`unescape`]), each with where it came from.
    fn of(source: &[u8]) -> Decoded {
        let mut decoded = Decoded {
            bytes: Vec::with_capacity(source.len()),
            starts: Vec::with_capacity(source.len() + 1),
        };
        unescape(source, |piece| match piece {
            Piece::Raw(range) => {
                decoded.bytes.extend_from_slice(&source[range.clone()]);
                decoded.starts.extend(range);
            }
            Piece::Escape(at, ch) => {
                for byte in ch.encode_utf8(&mut [0; 4]).bytes() {
                    decoded.bytes.push(byte);
                    decoded.starts.push(at);
                }
            }
        });
        decoded.starts.push(source.len());
        decoded
    }

    /// The source bytes that decoded into `range`, whole escapes included.
    fn source(&self, range: Range<usize>) -> Range<usize> {
        let start = self.starts[range.start];
        let last = self.starts[range.end - 1];
        // The end is where the first decoded byte of another source unit starts.
        let end = self.starts[range.end..]
            .iter()
            .copied()
            .find(|&s| s != last)
            .unwrap_or(last + 1);
        start..end
    }
}

/// A piece of a source being decoded.
enum Piece {
    /// Bytes that stay as they are.
    Raw(Range<usize>),
    /// A valid escape at this offset, and what it stands for.
    Escape(usize, char),
}

/// Decodes `source` left to right as a JSON parser decodes a string, piece by piece:
/// each valid escape (`\n`, `\u00e9`, a surrogate pair) is what it stands for; an
/// invalid escape or a lone surrogate stays as it is.
fn unescape(source: &[u8], mut piece: impl FnMut(Piece)) {
    let mut at = 0;
    while let Some(backslash) = memchr::memchr(b'\\', &source[at..]).map(|i| at + i) {
        match escape(&source[backslash..]) {
            Some((ch, len)) => {
                if at < backslash {
                    piece(Piece::Raw(at..backslash));
                }
                piece(Piece::Escape(backslash, ch));
                at = backslash + len;
            }
            None => {
                piece(Piece::Raw(at..backslash + 1));
                at = backslash + 1;
            }
        }
    }
    if at < source.len() {
        piece(Piece::Raw(at..source.len()));
    }
}

/// The character a JSON escape at the start of `text` stands for, and its length.
fn escape(text: &[u8]) -> Option<(char, usize)> {
    let simple = match *text.get(1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let high = hex4(text.get(2..6)?)?;
            if let 0xD800..=0xDBFF = high {
                let low = text
                    .get(6..8)
                    .filter(|p| *p == b"\\u")
                    .and_then(|_| hex4(text.get(8..12)?))
                    .filter(|low| (0xDC00..=0xDFFF).contains(low))?;
                let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                return char::from_u32(code).map(|c| (c, 12));
            }
            return char::from_u32(high).map(|c| (c, 6));
        }
        _ => return None,
    };
    Some((simple, 2))
}

fn hex4(digits: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(digits).ok()?;
    if text.len() != 4 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn redactor(secret: &str) -> Redactor {
        let env = |name: &str| (name == "CURSOR_API_KEY").then(|| secret.to_owned());
        Redactor::new(&[], env, &[], &[])
    }

    #[test]
    fn secrets_from_env_argv_and_the_user_are_replaced() {
        let argv: Vec<String> = [
            "-p",
            "--api-key",
            "key-from-argv",
            "-H",
            "Authorization: Bearer tok-123456",
            "hi",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let env = |name: &str| (name == "CURSOR_API_KEY").then(|| "sk-env-secret".to_owned());
        let redactor =
            Redactor::new(&argv, env, &[], &["my/pass\"word".to_owned()]).home(Some("/home/dev".into()));
        let text = br#"sk-env-secret key-from-argv tok-123456 "my/pass\"word" /home/dev/x my/pass"word"#;
        let out = String::from_utf8(redactor.apply(text)).expect("utf-8");
        assert_eq!(
            out,
            r#"[REDACTED] [REDACTED] [REDACTED] "[REDACTED]" ~/x [REDACTED]"#
        );
        assert_eq!(redactor.leak(out.as_bytes()), None);
        assert!(redactor.leak(b"x sk-env-secret").is_some());
    }

    #[test]
    fn a_key_that_is_the_marker_already_is_no_secret() {
        // Replaying a cassette recorded with `--api-key KEY` runs `--api-key [REDACTED]`.
        let argv = vec!["--api-key".to_owned(), MARKER.to_owned(), "acp".to_owned()];
        let redactor = Redactor::new(&argv, |_| None, &[], &[]);
        let invocation = br#"["--api-key","[REDACTED]","acp"]"#;
        assert_eq!(redactor.apply(invocation), invocation.to_vec());
        assert_eq!(redactor.leak(invocation), None);
    }

    #[test]
    fn secrets_spelled_with_escapes_are_replaced() {
        let redactor = redactor("sk-test-SECRET123");
        for (line, expected) in [
            (r#"{"k":"sk-test-SECRET\u0031\u00323"}"#, r#"{"k":"[REDACTED]"}"#),
            (
                r#"{"k":"\u0073\u006b-test-SECRET123","n":"\u00e9"}"#,
                r#"{"k":"[REDACTED]","n":"\u00e9"}"#,
            ),
            (
                r#"{"k":"a sk-test\u002dSECRET123 b"}"#,
                r#"{"k":"a [REDACTED] b"}"#,
            ),
            // An escaped backslash is no escape of what follows.
            (
                r#"{"k":"\\u0073k-test-SECRET123"}"#,
                r#"{"k":"\\u0073k-test-SECRET123"}"#,
            ),
        ] {
            assert!(
                redactor.leak(line.as_bytes()).is_some() || line == expected,
                "{line}"
            );
            let out = redactor.apply(line.as_bytes());
            assert_eq!(String::from_utf8_lossy(&out), expected);
            assert_eq!(redactor.leak(&out), None, "{expected}");
        }
        // The first example, exactly as the issue shows it, leaves no secret decoded.
        let out = redactor.apply(br#"{"k":"sk-test-SECRET\u0031\u00323"}"#);
        let value: serde_json::Value = serde_json::from_slice(&out).expect("still JSON");
        assert_eq!(value["k"], "[REDACTED]");
    }

    #[test]
    fn a_secret_past_astral_escapes_is_mapped_back_whole() {
        let redactor = redactor("key-\u{1F600}-tail");
        let line = br#"{"k":"x\ud83d\ude00 key-\uD83D\uDE00-tail y"}"#;
        let out = redactor.apply(line);
        assert_eq!(
            String::from_utf8_lossy(&out),
            r#"{"k":"x\ud83d\ude00 [REDACTED] y"}"#
        );
        assert_eq!(redactor.leak(&out), None);
    }

    /// A character of a secret, spelled as JSON may spell it inside a string.
    fn spelled(c: char, how: u8) -> String {
        let mut units = [0u16; 2];
        let escaped: String = c
            .encode_utf16(&mut units)
            .iter()
            .map(|u| {
                if how.is_multiple_of(2) {
                    format!("\\u{u:04x}")
                } else {
                    format!("\\u{u:04X}")
                }
            })
            .collect();
        match (how % 4, c) {
            (0 | 1, _) => escaped,
            (2, '/') => "\\/".to_owned(),
            (2, '"') => "\\\"".to_owned(),
            (2, '\\') => "\\\\".to_owned(),
            _ => escaped_plainly(&c.to_string()),
        }
    }

    /// The text as the inside of a JSON string, escaped as serde_json escapes it.
    fn escaped_plainly(text: &str) -> String {
        let quoted = serde_json::to_string(text).unwrap_or_default();
        quoted[1..quoted.len() - 1].to_owned()
    }

    proptest! {
        /// However a JSON string spells a secret, with escapes anywhere, no decoded
        /// string of the redacted line holds it, and the line is still JSON.
        #[test]
        fn escaped_secrets_are_always_replaced(
            secret in "[a-z]{2}-[a-zA-Z0-9/\"é\u{1F600}-]{6,14}",
            hows in prop::collection::vec(any::<u8>(), 32),
            before in "[a-z \\\\é]{0,40}",
            after in "[a-z \\\\é]{0,6}",
        ) {
            let redactor = redactor(&secret);
            let body: String = secret
                .chars()
                .zip(hows.iter().cycle())
                .map(|(c, how)| if how % 8 < 4 { spelled(c, *how) } else { escaped_plainly(&c.to_string()) })
                .collect();
            let line = format!(
                r#"{{"a":"{}{}{}","b":1}}"#,
                escaped_plainly(&before),
                body,
                escaped_plainly(&after)
            );
            let decoded: serde_json::Value = serde_json::from_str(&line).map_err(|e| TestCaseError::fail(format!("{line}: {e}")))?;
            prop_assert!(decoded["a"].as_str().unwrap_or_default().contains(secret.as_str()), "{}", line);
            prop_assert!(redactor.leak(line.as_bytes()).is_some());
            let out = redactor.apply(line.as_bytes());
            let value: serde_json::Value = serde_json::from_slice(&out).map_err(|e| TestCaseError::fail(format!("{}: {e}", String::from_utf8_lossy(&out))))?;
            let text = value["a"].as_str().unwrap_or_default();
            prop_assert!(!text.contains(secret.as_str()), "{} -> {}", line, String::from_utf8_lossy(&out));
            prop_assert!(text.contains(MARKER));
            prop_assert_eq!(redactor.leak(&out), None);
        }
    }
}
