//! One line of a cassette, read without the reader: a frame's fields
//! ([`RawFrame`]), the fast paths that skip parsing a usual line ([`canonical_out`],
//! [`skim`]), and the small conversions the reader's errors use.

use std::borrow::Cow;
use std::time::Duration;

use base64::Engine as _;
use serde_json::value::RawValue;

use crate::frames::{Ending, Exit, Frame, Line, Signal, Stream};
use crate::peek::raw_fields;

raw_fields! {
    /// One frame line as written: exactly one of the content keys. Fields are kept raw
    /// so that an error can name the field and point at its value.
    #[serde(deny_unknown_fields)]
    pub(super) struct RawFrame {
        t, out, out_b64, err, err_b64, #[serde(rename = "in")] input, in_b64, nl, exit, signal, stall_ms, close,
    }
}

/// A wrong field of a frame: where its value starts, and what is wrong.
pub(super) struct FieldError {
    pub(super) column: u64,
    pub(super) message: String,
}

impl RawFrame<'_> {
    pub(super) fn decode(self, line: &[u8], last_at: Duration) -> Result<Frame, FieldError> {
        // The 1-based column of a raw value: it borrows from `line`.
        let column =
            |raw: &RawValue| (raw.get().as_ptr() as usize).saturating_sub(line.as_ptr() as usize) as u64 + 1;
        let wrong = |raw: &RawValue, message: String| FieldError {
            column: column(raw),
            message,
        };
        let at = match self.t {
            None => last_at,
            Some(raw) => match raw.get().parse::<f64>().ok().and_then(millis_f64) {
                Some(at) => at,
                None => {
                    return Err(wrong(
                        raw,
                        format!(
                            "`t` is `{}`; it must be a number of milliseconds, 0 or more",
                            raw.get()
                        ),
                    ))
                }
            },
        };
        if at < last_at {
            let raw = self.t.map_or(1, column);
            return Err(FieldError {
                column: raw,
                message: format!(
                    "`t` goes back in time ({} ms after {} ms); frames are in the order they happened",
                    millis(at),
                    millis(last_at)
                ),
            });
        }
        let contents = [
            ("out", self.out),
            ("out_b64", self.out_b64),
            ("err", self.err),
            ("err_b64", self.err_b64),
            ("in", self.input),
            ("in_b64", self.in_b64),
            ("exit", self.exit),
            ("signal", self.signal),
            ("stall_ms", self.stall_ms),
            ("close", self.close),
        ];
        let present: Vec<_> = contents.iter().filter_map(|(k, v)| v.map(|v| (*k, v))).collect();
        let (key, raw) = match present[..] {
            [one] => one,
            [] => {
                return Err(FieldError {
                    column: 1,
                    message: "a frame holds one of `out`, `out_b64`, `err`, `err_b64`, `in`, `in_b64`, `stall_ms`, `close`, `exit`, `signal`; this one holds none"
                        .into(),
                })
            }
            [_, (second, raw), ..] => {
                let keys: Vec<_> = present.iter().map(|(k, _)| format!("`{k}`")).collect();
                return Err(wrong(
                    raw,
                    format!("a frame holds one content key; this one holds {} (remove `{second}`, or split the frame)", keys.join(" and ")),
                ));
            }
        };
        let newline = match self.nl {
            None => true,
            Some(raw) => match raw.get() {
                "true" => true,
                "false" => false,
                other => return Err(wrong(raw, format!("`nl` is `{other}`; it must be true or false"))),
            },
        };
        let line = |stream, bytes| {
            Ok(Frame::Line(Line {
                at,
                stream,
                bytes,
                newline,
            }))
        };
        match key {
            "out" | "err" | "in" => {
                let stream = match key {
                    "out" => Stream::Stdout,
                    "err" => Stream::Stderr,
                    _ => Stream::Stdin,
                };
                let text = raw.get();
                match text.as_bytes().first() {
                    Some(b'{') => line(stream, text.as_bytes().to_vec()),
                    Some(b'"') => match serde_json::from_str::<String>(text) {
                        Ok(s) => line(stream, s.into_bytes()),
                        Err(e) => Err(wrong(raw, format!("`{key}`: {}", bare_message(&e)))),
                    },
                    _ => Err(wrong(
                        raw,
                        format!("`{key}` holds `{text}`; it must be a JSON object (an event) or a string (any other line)"),
                    )),
                }
            }
            "out_b64" | "err_b64" | "in_b64" => {
                let stream = match key {
                    "out_b64" => Stream::Stdout,
                    "err_b64" => Stream::Stderr,
                    _ => Stream::Stdin,
                };
                let Ok(text) = serde_json::from_str::<Cow<'_, str>>(raw.get()) else {
                    return Err(wrong(
                        raw,
                        format!("`{key}` holds `{}`; it must be a base64 string", raw.get()),
                    ));
                };
                match base64::engine::general_purpose::STANDARD.decode(text.as_bytes()) {
                    Ok(bytes) => line(stream, bytes),
                    Err(base64::DecodeError::InvalidByte(offset, byte)) => Err(FieldError {
                        column: column(raw) + 1 + offset as u64,
                        message: format!(
                            "`{key}` is not valid base64: {:?} at offset {offset} (standard alphabet, padded)",
                            char::from(byte)
                        ),
                    }),
                    Err(e) => Err(wrong(raw, format!("`{key}` is not valid base64: {e} (standard alphabet, padded)"))),
                }
            }
            "stall_ms" => match raw.get() {
                "null" => Ok(Frame::Stall { at, duration: None }),
                text => match text.parse::<f64>().ok().and_then(millis_f64) {
                    Some(duration) => Ok(Frame::Stall {
                        at,
                        duration: Some(duration),
                    }),
                    None => Err(wrong(
                        raw,
                        format!("`stall_ms` is `{text}`; it must be milliseconds, or null for ever"),
                    )),
                },
            },
            "close" => match raw.get() {
                "\"stdout\"" => Ok(Frame::CloseStdout { at }),
                text => Err(wrong(
                    raw,
                    format!("`close` is `{text}`; the only stream it closes is \"stdout\""),
                )),
            },
            "exit" => match raw.get().parse::<i32>().ok().filter(|c| (0..=255).contains(c)) {
                Some(code) => Ok(Frame::End(Ending {
                    at,
                    exit: Exit::Code(code),
                })),
                None => Err(wrong(
                    raw,
                    format!(
                        "`exit` is `{}`; it must be an exit code, a whole number from 0 to 255",
                        raw.get()
                    ),
                )),
            },
            _ => {
                // A name (`"TERM"`, `"SIGTERM"`, `"15"`) or a number (`34`).
                let signal = match serde_json::from_str::<Cow<'_, str>>(raw.get()) {
                    Ok(name) => Signal::parse(&name),
                    Err(_) => raw.get().parse().ok().and_then(Signal::from_number),
                };
                match signal {
                    Some(signal) => Ok(Frame::End(Ending {
                        at,
                        exit: Exit::Signal(signal),
                    })),
                    None => Err(wrong(
                        raw,
                        format!(
                            "`signal` is `{}`; it must be a signal's name as `kill -l` prints it (\"TERM\", \"USR1\", ...) or its number, 1 to 64",
                            raw.get()
                        ),
                    )),
                }
            }
        }
    }
}

/// The time and event of a line of the shape `{"t":MS,"out":{EVENT}}`, where MS is a
/// plain decimal number; `None` for any other shape. The event's JSON is not checked:
/// a frame has no key but `t` and `out` here, so the event runs to the last `}` but
/// one.
pub(super) fn canonical_out(line: &[u8]) -> Option<(Duration, &[u8])> {
    let rest = line.strip_prefix(b"{\"t\":")?;
    // `INT[.FRAC]`, both plain digits, then the comma (a time is a few bytes: counted
    // by hand, not searched for).
    let digits = |d: &[u8]| d.iter().take_while(|b| b.is_ascii_digit()).count();
    let (int, rest) = rest.split_at(digits(rest));
    let (frac, rest) = match rest.strip_prefix(b".") {
        Some(after) => {
            let (frac, rest) = after.split_at(digits(after));
            (Some(frac), rest)
        }
        None => (None, rest),
    };
    if int.is_empty() || frac.is_some_and(<[u8]>::is_empty) {
        return None;
    }
    let event = rest.strip_prefix(b",\"out\":")?.strip_suffix(b"}")?;
    if event.first() != Some(&b'{') || event.last() != Some(&b'}') {
        return None;
    }
    Some((millis_to_duration(int, frac)?, event))
}

/// The head (`{"t":MS,"out":`) of the last line [`LastHead::canonical_out`] read, and
/// its time: a session's lines mostly share their time (a long turn recorded at
/// once), so the next line with the same head bytes has the same time, read without
/// parsing its digits again.
#[derive(Debug, Default)]
pub(super) struct LastHead {
    len: usize,
    bytes: [u8; 32],
    at: Duration,
}

impl LastHead {
    /// [`canonical_out`] of `line`, the same answer for every line.
    pub(super) fn canonical_out<'a>(&mut self, line: &'a [u8]) -> Option<(Duration, &'a [u8])> {
        let len = self.len;
        if len > 0 && line.len() > len && line[..len] == self.bytes[..len] {
            let event = line[len..].strip_suffix(b"}")?;
            if event.first() == Some(&b'{') && event.last() == Some(&b'}') {
                return Some((self.at, event));
            }
            return None;
        }
        let (at, event) = canonical_out(line)?;
        let head = line.len() - event.len() - 1;
        if head <= self.bytes.len() {
            self.bytes[..head].copy_from_slice(&line[..head]);
            self.len = head;
            self.at = at;
        }
        Some((at, event))
    }
}

/// What a capture line says without being parsed.
pub(super) struct Skim {
    pub(super) timestamp_ms: Option<u64>,
}

/// Reads the type and the time of an event line in the usual shape: `type` first,
/// and `timestamp_ms`, if the line has one, last. `None` for a `result` (its
/// `is_error` decides how the capture ends), and for any line whose time is elsewhere
/// or whose type is not first: those are parsed.
pub(super) fn skim(line: &[u8]) -> Option<Skim> {
    let kind = crate::peek::sniff_type(line)?;
    if kind == crate::capture::RESULT.as_bytes() {
        return None;
    }
    const KEY: &[u8] = b"\"timestamp_ms\":";
    let body = line.strip_suffix(b"}")?;
    let digits = body.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let (head, number) = body.split_at(body.len() - digits);
    if digits > 0 && head.ends_with(KEY) {
        let ts = std::str::from_utf8(number).ok()?.parse().ok()?;
        return Some(Skim {
            timestamp_ms: Some(ts),
        });
    }
    if memchr::memmem::find(line, KEY).is_some() {
        return None;
    }
    Some(Skim { timestamp_ms: None })
}

/// Milliseconds as a duration: `None` unless finite, 0 or more, and within the range
/// of a duration.
pub(crate) fn millis_f64(ms: f64) -> Option<Duration> {
    if !ms.is_finite() || ms < 0.0 {
        return None;
    }
    Duration::try_from_secs_f64(ms / 1000.0).ok()
}

/// `INT[.FRAC]` milliseconds, both plain digits, as a duration (to the nanosecond).
pub(super) fn millis_to_duration(int: &[u8], frac: Option<&[u8]>) -> Option<Duration> {
    let whole = int
        .iter()
        .try_fold(0u64, |n, d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')))?;
    let mut nanos = 0u64;
    let mut scale = 100_000u64;
    for d in frac.unwrap_or_default() {
        nanos += u64::from(d - b'0') * scale;
        scale /= 10;
    }
    Duration::from_millis(whole).checked_add(Duration::from_nanos(nanos))
}

/// Splits a line read with `read_until` into its bytes and whether it had `\n`.
pub(super) fn trim_newline(buf: &[u8]) -> (&[u8], bool) {
    match buf.strip_suffix(b"\n") {
        Some(line) => (line, true),
        None => (buf, false),
    }
}

/// serde_json's message without its " at line L column C" suffix, and without the
/// names of this reader's own types (`expected struct Invocation` says `expected a
/// JSON object`).
pub(super) fn bare_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let text = match text.rfind(" at line ") {
        Some(i) => &text[..i],
        None => &text,
    };
    match text.find("expected struct ") {
        Some(i) => format!("{}expected a JSON object", &text[..i]),
        None => text.to_owned(),
    }
}

pub(super) fn millis(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    format!("{ms}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head cache answers as `canonical_out` does, line after line: heads alike
    /// and not, times with a fraction, tails that break the shape after a cached head.
    #[test]
    fn the_last_head_reads_what_canonical_out_reads() {
        let lines: &[&[u8]] = &[
            br#"{"t":100,"out":{"a":1}}"#,
            br#"{"t":100,"out":{"b":2}}"#,
            br#"{"t":100,"out":{"b":2}"#,
            br#"{"t":100,"out":[1]}"#,
            br#"{"t":100,"out":}"#,
            br#"{"t":100,"out":{"c":3}}"#,
            br#"{"t":1000,"out":{"d":4}}"#,
            br#"{"t":10,"out":{"e":5}}"#,
            br#"{"t":10.5,"out":{"f":6}}"#,
            br#"{"t":10.5,"out":{"f":6}} "#,
            br#"{"t":10.50,"out":{"g":7}}"#,
            br#"{"t":10.5,"in":{"h":8}}"#,
            br#"{"t":10.5,"out":{"i":9}}"#,
            br#"{"t":100000000000000000000000,"out":{"j":10}}"#,
            br#"{"t":100,"out":{}}"#,
        ];
        let mut head = LastHead::default();
        for line in lines {
            assert_eq!(
                head.canonical_out(line),
                canonical_out(line),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
