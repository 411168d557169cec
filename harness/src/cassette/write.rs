//! Atomic cassette writer: a temporary file beside the target, renamed into place
//! when complete. A crash or an error leaves nothing under the final name.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine as _;
use serde::de::IgnoredAny;
use tempfile::NamedTempFile;

use super::Header;
use crate::error::WriteError;
use crate::frames::{Exit, Frame, Stream};

/// Writes a cassette frame by frame; [`Writer::finish`] makes it appear.
#[derive(Debug)]
pub struct Writer {
    path: PathBuf,
    out: BufWriter<NamedTempFile>,
    scratch: Vec<u8>,
}

impl Writer {
    /// Starts a cassette at `path` with this header. The file appears only on
    /// [`Writer::finish`].
    pub fn create(path: &Path, header: &Header) -> Result<Self, WriteError> {
        let io = |source| WriteError::Io {
            path: path.to_owned(),
            source,
        };
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".mock-agent-")
            .suffix(".cassette.tmp")
            .tempfile_in(dir)
            .map_err(io)?;
        let mut writer = Writer {
            path: path.to_owned(),
            out: BufWriter::new(tmp),
            scratch: Vec::new(),
        };
        serde_json::to_writer(&mut writer.out, header).map_err(|e| io(e.into()))?;
        writer.out.write_all(b"\n").map_err(io)?;
        Ok(writer)
    }

    /// Appends one frame.
    pub fn write(&mut self, frame: &Frame) -> Result<(), WriteError> {
        self.scratch.clear();
        encode_frame(frame, &mut self.scratch);
        self.out
            .write_all(&self.scratch)
            .map_err(|source| WriteError::Io {
                path: self.path.clone(),
                source,
            })
    }

    /// Flushes, syncs and renames the cassette into place.
    pub fn finish(self) -> Result<PathBuf, WriteError> {
        let path = self.path;
        let io = |source| WriteError::Io {
            path: path.clone(),
            source,
        };
        let tmp = self.out.into_inner().map_err(|e| io(e.into_error()))?;
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist(&path).map_err(|e| io(e.error))?;
        Ok(path)
    }
}

/// Appends the cassette line of one frame, with its newline, to `out`.
pub fn encode_frame(frame: &Frame, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"t\":");
    write_millis(frame.at(), out);
    match frame {
        Frame::Line(line) => {
            let key = match line.stream {
                Stream::Stdout => "out",
                Stream::Stderr => "err",
                Stream::Stdin => "in",
            };
            if is_embeddable_object(&line.bytes) {
                push_key(out, key);
                out.extend_from_slice(&line.bytes);
            } else if let Ok(text) = std::str::from_utf8(&line.bytes) {
                push_key(out, key);
                // Writing a string to a Vec cannot fail.
                let _ = serde_json::to_writer(&mut *out, text);
            } else {
                push_key(out, &format!("{key}_b64"));
                out.push(b'"');
                out.extend_from_slice(
                    base64::engine::general_purpose::STANDARD
                        .encode(&line.bytes)
                        .as_bytes(),
                );
                out.push(b'"');
            }
            if !line.newline {
                out.extend_from_slice(b",\"nl\":false");
            }
        }
        Frame::Stall { duration, .. } => {
            push_key(out, "stall_ms");
            match duration {
                Some(d) => write_millis(*d, out),
                None => out.extend_from_slice(b"null"),
            }
        }
        Frame::CloseStdout { .. } => {
            push_key(out, "close");
            out.extend_from_slice(b"\"stdout\"");
        }
        Frame::End(end) => match end.exit {
            Exit::Code(code) => {
                push_key(out, "exit");
                out.extend_from_slice(code.to_string().as_bytes());
            }
            Exit::Signal(signal) => {
                push_key(out, "signal");
                // A signal with no name (a real-time one) is written as its number.
                if signal.is_named() {
                    out.push(b'"');
                    out.extend_from_slice(signal.name().as_bytes());
                    out.push(b'"');
                } else {
                    out.extend_from_slice(signal.number().to_string().as_bytes());
                }
            }
        },
    }
    out.extend_from_slice(b"}\n");
}

fn push_key(out: &mut Vec<u8>, key: &str) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
}

/// Milliseconds, with microsecond precision and no trailing `.0`.
fn write_millis(at: Duration, out: &mut Vec<u8>) {
    let micros = at.as_micros();
    out.extend_from_slice((micros / 1000).to_string().as_bytes());
    let frac = micros % 1000;
    if frac != 0 {
        let digits = format!(".{frac:03}");
        out.extend_from_slice(digits.trim_end_matches('0').as_bytes());
    }
}

/// Whether a line can be stored as an embedded object and read back byte for byte:
/// one JSON object, nothing around it.
fn is_embeddable_object(bytes: &[u8]) -> bool {
    // Skipping a string does not check its UTF-8: the line as a whole must be text.
    bytes.first() == Some(&b'{')
        && bytes.last() == Some(&b'}')
        && std::str::from_utf8(bytes).is_ok_and(|text| serde_json::from_str::<IgnoredAny>(text).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::{Ending, Line, Signal};

    fn encode(frame: Frame) -> String {
        let mut out = Vec::new();
        encode_frame(&frame, &mut out);
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn lines_are_embedded_as_objects_strings_or_base64() {
        let at = Duration::from_micros(12_345);
        assert_eq!(
            encode(Frame::Line(Line::stdout(at, r#"{"type":"x"}"#))),
            "{\"t\":12.345,\"out\":{\"type\":\"x\"}}\n"
        );
        assert_eq!(
            encode(Frame::Line(Line::stderr(Duration::from_millis(3), "oops \"x\""))),
            "{\"t\":3,\"err\":\"oops \\\"x\\\"\"}\n"
        );
        let mut cut = Line::stdout(Duration::ZERO, vec![0xff, b'{']);
        cut.newline = false;
        assert_eq!(
            encode(Frame::Line(cut)),
            "{\"t\":0,\"out_b64\":\"/3s=\",\"nl\":false}\n"
        );
        // An object with bytes that are not UTF-8 in a string is no JSON text: base64.
        let mut bytes = br#"{"text":""#.to_vec();
        bytes.extend([0xff, 0xfe]);
        bytes.extend(br#""}"#);
        assert!(encode(Frame::Line(Line::stdout(Duration::ZERO, bytes))).contains("\"out_b64\""));
        // Leading white space would be lost by an embedded object: stored as text.
        assert_eq!(
            encode(Frame::Line(Line::stdout(Duration::ZERO, " {}"))),
            "{\"t\":0,\"out\":\" {}\"}\n"
        );
        assert_eq!(
            encode(Frame::End(Ending {
                at: Duration::from_millis(1500),
                exit: Exit::Signal(Signal::Term)
            })),
            "{\"t\":1500,\"signal\":\"TERM\"}\n"
        );
        assert_eq!(
            encode(Frame::End(Ending {
                at: Duration::ZERO,
                exit: Exit::Signal(Signal::from_number(34).expect("a signal"))
            })),
            "{\"t\":0,\"signal\":34}\n"
        );
    }
}
