//! The fault grammar: `name[:key=value[,key=value...]]`, several joined by `;`.
//!
//! A value may be double-quoted to hold `,` or `;` (`text="a, b"`), with `\"`, `\\`
//! and `\n` escapes inside the quotes.

use std::time::Duration;

use super::{Anchor, Fault, Placement, Preset};
use crate::dialects::cursor_print::events::event_type;
use crate::error::{Diagnostic, Origin};
use crate::frames::Chunking;
use crate::frames::Signal;

/// One `name:key=value,...` item with the column where each part starts.
pub(crate) struct Item {
    pub(crate) name: String,
    pub(crate) column: usize,
    pairs: Vec<Pair>,
}

struct Pair {
    key: String,
    value: String,
    column: usize,
}

/// The largest `bytes=` a fault takes: 64 MiB, already far past every line cap.
pub const MAX_BYTES: usize = 64 << 20;

/// Keys that may stand without `=VALUE`.
const FLAGS: &[&str] = &["random"];

/// Faults from the environment of the program under test.
pub const FROM_ENV: Origin<'static> = Origin {
    name: "MOCK_AGENT_FAULTS",
    help: "`mock-agent faults` lists every fault with an example",
};

/// Faults from `--fault` on the mock's own command line.
pub const FROM_FLAG: Origin<'static> = Origin {
    name: "--fault",
    help: "`mock-agent faults` lists every fault with an example",
};

/// Parses a `;`-separated list of faults.
pub fn parse(spec: &str, origin: Origin<'_>) -> Result<Vec<Fault>, Diagnostic> {
    let mut faults = Vec::new();
    for item in split_items(spec, origin)? {
        faults.extend(build(&item, spec, origin)?);
    }
    Ok(faults)
}

/// Splits the spec into items, honouring quotes. Columns are 1-based bytes.
pub(crate) fn split_items(spec: &str, origin: Origin<'_>) -> Result<Vec<Item>, Diagnostic> {
    let mut items = Vec::new();
    let bytes = spec.as_bytes();
    let mut i = 0;
    while i <= bytes.len() {
        // One item: name, then optional `:pairs`, up to `;` or the end.
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b';') {
            i += 1;
        }
        if i >= bytes.len() {
            break;
        }
        let start = i;
        while i < bytes.len() && !matches!(bytes[i], b':' | b';') {
            i += 1;
        }
        let name = spec[start..i].trim().to_owned();
        let mut item = Item {
            name,
            column: start + 1,
            pairs: Vec::new(),
        };
        if i < bytes.len() && bytes[i] == b':' {
            i += 1;
            loop {
                let key_start = i;
                while i < bytes.len() && !matches!(bytes[i], b'=' | b',' | b';') {
                    i += 1;
                }
                let key = spec[key_start..i].trim().to_owned();
                if key.is_empty() {
                    return Err(origin.error(
                        spec,
                        key_start + 1,
                        "a key is missing here: write `key=value`, or end the fault without `:` or `,`",
                    ));
                }
                if item.pairs.iter().any(|p| p.key == key) {
                    return Err(origin.error(spec, key_start + 1, format!("`{key}` is given twice")));
                }
                if i >= bytes.len() || bytes[i] != b'=' {
                    if !FLAGS.contains(&key.as_str()) {
                        return Err(origin.error(
                            spec,
                            key_start + 1,
                            format!("`{key}` needs a value: write `{key}=VALUE`"),
                        ));
                    }
                    item.pairs.push(Pair {
                        key,
                        value: String::new(),
                        column: key_start + 1,
                    });
                    if i < bytes.len() && bytes[i] == b',' {
                        i += 1;
                        continue;
                    }
                    break;
                }
                i += 1;
                let (value, next) = read_value(spec, i).map_err(|(col, msg)| origin.error(spec, col, msg))?;
                item.pairs.push(Pair {
                    key,
                    value,
                    column: key_start + 1,
                });
                i = next;
                if i < bytes.len() && bytes[i] == b',' {
                    i += 1;
                    continue;
                }
                break;
            }
        }
        if item.name.is_empty() {
            return Err(origin.error(spec, start + 1, "a fault name is missing here"));
        }
        items.push(item);
        if i < bytes.len() && bytes[i] != b';' {
            return Err(origin.error(
                spec,
                i + 1,
                format!(
                    "unexpected `{}`: after a value comes `,` and another key, or `;` and another fault",
                    spec[i..].chars().next().unwrap_or(' ')
                ),
            ));
        }
        i += 1;
    }
    Ok(items)
}

/// Reads a value from `start`: up to `,` or `;`, or a quoted string.
fn read_value(spec: &str, start: usize) -> Result<(String, usize), (usize, String)> {
    let bytes = spec.as_bytes();
    if bytes.get(start) != Some(&b'"') {
        let mut end = start;
        while end < bytes.len() && !matches!(bytes[end], b',' | b';') {
            end += 1;
        }
        return Ok((spec[start..end].trim().to_owned(), end));
    }
    let mut value = String::new();
    let mut chars = spec[start + 1..].char_indices();
    while let Some((offset, c)) = chars.next() {
        match c {
            '"' => return Ok((value, start + 1 + offset + 1)),
            '\\' => match chars.next() {
                Some((_, 'n')) => value.push('\n'),
                Some((_, 't')) => value.push('\t'),
                Some((_, other)) => value.push(other),
                None => break,
            },
            c => value.push(c),
        }
    }
    Err((start + 1, "this quoted value has no closing `\"`".into()))
}

/// Reads the pairs of one item against the keys a fault takes.
/// The keys of one item, read one at a time; [`Args::finish`] fails on a key no one
/// read.
pub(crate) struct Args<'a> {
    item: &'a Item,
    spec: &'a str,
    origin: Origin<'a>,
    used: Vec<bool>,
}

impl<'a> Args<'a> {
    pub(crate) fn new(item: &'a Item, spec: &'a str, origin: Origin<'a>) -> Self {
        Args {
            used: vec![false; item.pairs.len()],
            item,
            spec,
            origin,
        }
    }

    pub(crate) fn err(&self, column: usize, message: String) -> Diagnostic {
        self.origin.error(self.spec, column, message)
    }

    pub(crate) fn get(&mut self, key: &str) -> Option<(&'a str, usize)> {
        let index = self.item.pairs.iter().position(|p| p.key == key)?;
        self.used[index] = true;
        let pair = &self.item.pairs[index];
        Some((pair.value.as_str(), pair.column))
    }

    pub(crate) fn text(&mut self, key: &str) -> Option<String> {
        self.get(key).map(|(v, _)| v.to_owned())
    }

    pub(crate) fn number<T: std::str::FromStr>(
        &mut self,
        key: &str,
        what: &str,
    ) -> Result<Option<T>, Diagnostic> {
        match self.get(key) {
            None => Ok(None),
            Some((value, column)) => value
                .parse()
                .map(Some)
                .map_err(|_| self.err(column, format!("`{key}={value}`: {key} is {what}"))),
        }
    }

    /// A number of bytes, at most [`MAX_BYTES`].
    pub(crate) fn size(&mut self, key: &str) -> Result<Option<usize>, Diagnostic> {
        let Some(n) = self.number::<usize>(key, "a number of bytes")? else {
            return Ok(None);
        };
        if n > MAX_BYTES {
            let column = self.get(key).map_or(self.item.column, |(_, c)| c);
            return Err(self.err(column, format!("`{key}={n}`: at most {MAX_BYTES} bytes (64 MiB)")));
        }
        Ok(Some(n))
    }

    pub(crate) fn required<T: std::str::FromStr>(&mut self, key: &str, what: &str) -> Result<T, Diagnostic> {
        self.number(key, what)?.ok_or_else(|| {
            self.err(
                self.item.column,
                format!("`{}` needs `{key}=...` ({what})", self.item.name),
            )
        })
    }

    /// `after=N` or `at=TYPE` (not both), and `byte=K` where `cut` allows it.
    pub(crate) fn placement(&mut self, default: Anchor, cut: bool) -> Result<Placement, Diagnostic> {
        let after = self.number::<usize>("after", "a number of stdout lines")?;
        let at = self.get("at");
        let anchor = match (after, at) {
            (Some(_), Some((_, column))) => {
                return Err(self.err(column, "give `after=N` or `at=TYPE`, not both".into()))
            }
            (Some(n), None) => Anchor::After(n),
            (None, Some(("end", _))) => Anchor::End,
            (None, Some(("", column))) => {
                return Err(self.err(column, "`at=` needs an event type, e.g. `at=result`".into()))
            }
            (None, Some((kind, _))) => Anchor::At(kind.to_owned()),
            (None, None) => default,
        };
        let byte = if cut {
            self.number::<usize>("byte", "a byte offset inside the line")?
        } else {
            None
        };
        Ok(Placement { anchor, byte })
    }

    /// Fails on a key the fault does not take.
    pub(crate) fn finish(self) -> Result<(), Diagnostic> {
        self.finish_with(super::catalogue())
    }

    /// Fails on a key the fault does not take, as `catalogue` describes it.
    pub(crate) fn finish_with(self, catalogue: &[super::Described]) -> Result<(), Diagnostic> {
        match self.used.iter().position(|u| !u) {
            None => Ok(()),
            Some(i) => {
                let pair = &self.item.pairs[i];
                let takes = catalogue
                    .iter()
                    .find(|e| e.name == self.item.name)
                    .map_or(String::new(), |e| match e.usage {
                        "" => " (it takes no keys)".to_owned(),
                        usage => format!(" (it takes: {usage})"),
                    });
                Err(self.err(
                    pair.column,
                    format!("`{}` does not take `{}`{takes}", self.item.name, pair.key),
                ))
            }
        }
    }
}

fn build(item: &Item, spec: &str, origin: Origin<'_>) -> Result<Vec<Fault>, Diagnostic> {
    let mut args = Args::new(item, spec, origin);
    let result = match item.name.as_str() {
        "eof" => Fault::Eof {
            at: args.placement(Anchor::At(event_type::RESULT.into()), true)?,
        },
        "stderr" => Fault::Stderr {
            text: args
                .text("text")
                .ok_or_else(|| args.err(item.column, "`stderr` needs `text=...`".into()))?,
            at: args.placement(Anchor::End, false)?,
        },
        "stderr-flood" => Fault::StderrFlood {
            bytes: args.size("bytes")?.unwrap_or(1 << 20),
            at: args.placement(Anchor::After(0), false)?,
        },
        "exit" => Fault::Exit {
            code: {
                let code: i32 = args.required("code", "an exit code, 0 to 255")?;
                if !(0..=255).contains(&code) {
                    let column = args.get("code").map_or(item.column, |(_, c)| c);
                    return Err(args.err(column, format!("`code={code}`: an exit code is 0 to 255")));
                }
                code
            },
        },
        "signal" => {
            let name = args.get("name");
            let signal = match name {
                None => Signal::Kill,
                Some((value, column)) => Signal::parse(value).ok_or_else(|| {
                    let names: Vec<_> = Signal::all().map(Signal::name).collect();
                    args.err(
                        column,
                        format!("`{value}` is not a signal; use one of {}", names.join(", ")),
                    )
                })?,
            };
            Fault::Signal {
                signal,
                at: args.placement(Anchor::At(event_type::RESULT.into()), true)?,
            }
        }
        "stall" => Fault::Stall {
            duration: args
                .number::<u64>("ms", "milliseconds")?
                .map(Duration::from_millis),
            at: args.placement(Anchor::At(event_type::RESULT.into()), true)?,
        },
        "close-stdout" => Fault::CloseStdout {
            at: args.placement(Anchor::At(event_type::RESULT.into()), true)?,
        },
        "malformed" => Fault::Malformed {
            at: args.placement(Anchor::After(1), false)?,
        },
        "noise" => Fault::Noise {
            text: args
                .text("text")
                .unwrap_or_else(|| "[debug] mock-agent noise".into()),
            at: args.placement(Anchor::After(1), false)?,
        },
        "drop" => Fault::Drop {
            kind: args.text("type").filter(|t| !t.is_empty()).ok_or_else(|| {
                args.err(
                    item.column,
                    "`drop` needs `type=...`, e.g. `drop:type=result`".into(),
                )
            })?,
        },
        "duplicate" => Fault::Duplicate {
            at: args.placement(Anchor::At(event_type::RESULT.into()), false)?,
        },
        "reorder" => Fault::Reorder,
        "unknown-event" => Fault::UnknownEvent {
            at: args.placement(Anchor::After(1), false)?,
        },
        "unknown-field" => Fault::UnknownField {
            at: args.placement(Anchor::Every, false)?,
        },
        "chunk" => {
            let size = args.get("size");
            let random = args.get("random");
            let chunking = match (size, random) {
                (Some(_), Some((_, column))) => {
                    return Err(args.err(column, "give `size=N` or `random`, not both".into()));
                }
                (None, Some((value, column))) if !value.is_empty() && value != "1" && value != "true" => {
                    return Err(args.err(column, format!("`random={value}`: write `random` alone")));
                }
                (Some((value, column)), _) => match value.parse::<usize>() {
                    Ok(n) if n > 0 => Chunking::Size(n),
                    _ => {
                        return Err(args.err(
                            column,
                            format!("`size={value}`: size is a number of bytes, 1 or more"),
                        ))
                    }
                },
                (None, Some(_)) => Chunking::Random,
                (None, None) => {
                    return Err(args.err(item.column, "`chunk` needs `size=N` or `random`".into()));
                }
            };
            Fault::Chunk(chunking)
        }
        "coalesce" => Fault::Coalesce,
        "huge" => Fault::Huge {
            bytes: args.size("bytes")?.unwrap_or((1 << 20) + 1),
            at: args.placement(Anchor::At(event_type::RESULT.into()), false)?,
        },
        "crlf" => Fault::Crlf,
        "invalid-utf8" => Fault::InvalidUtf8 {
            at: args.placement(Anchor::At(event_type::ASSISTANT.into()), false)?,
        },
        name => match Preset::from_name(name) {
            Some(preset) => {
                let model = args.text("model");
                args.finish()?;
                return Ok(preset.faults(model.as_deref()));
            }
            None => {
                let known: Vec<&str> = super::catalogue().iter().map(|e| e.name).collect();
                return Err(args.err(
                    item.column,
                    format!("unknown fault `{name}`; known: {}", known.join(", ")),
                ));
            }
        },
    };
    args.finish()?;
    Ok(vec![result])
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGIN: Origin<'static> = Origin {
        name: "MOCK_AGENT_FAULTS",
        help: "see `mock-agent faults`",
    };

    fn ok(spec: &str) -> Vec<Fault> {
        parse(spec, ORIGIN).unwrap_or_else(|e| panic!("{spec}: {e}"))
    }

    fn err(spec: &str) -> String {
        match parse(spec, ORIGIN) {
            Ok(f) => panic!("{spec} parsed: {f:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn parses_names_keys_and_quoted_values() {
        assert_eq!(
            ok("eof:after=3,byte=10"),
            vec![Fault::Eof {
                at: Placement {
                    anchor: Anchor::After(3),
                    byte: Some(10)
                }
            }]
        );
        assert_eq!(
            ok(r#"stderr:text="a, b; \"c\"",at=result ; exit:code=2"#),
            vec![
                Fault::Stderr {
                    text: "a, b; \"c\"".into(),
                    at: Placement {
                        anchor: Anchor::At(event_type::RESULT.into()),
                        byte: None
                    }
                },
                Fault::Exit { code: 2 }
            ]
        );
        assert_eq!(ok("chunk:size=7"), vec![Fault::Chunk(Chunking::Size(7))]);
        assert_eq!(ok("chunk:random"), vec![Fault::Chunk(Chunking::Random)]);
        assert_eq!(ok("chunk:random=1"), vec![Fault::Chunk(Chunking::Random)]);
        assert_eq!(ok("signal:name=SIGTERM,after=0").len(), 1);
        assert!(ok("auth-required").len() >= 3);
        assert!(ok(" ; ").is_empty());
    }

    #[test]
    fn errors_name_the_bad_part() {
        insta::assert_snapshot!(err("eof;eofx:after=1"), @r"
        MOCK_AGENT_FAULTS:1:5: invalid data: unknown fault `eofx`; known: eof, stderr, stderr-flood, exit, signal, stall, close-stdout, malformed, noise, drop, duplicate, reorder, unknown-event, unknown-field, chunk, coalesce, huge, crlf, invalid-utf8, auth-required, trust-required, quota, unknown-model, session-in-use, connection-lost
          |
        1 | eof;eofx:after=1
          |     ^
        help: see `mock-agent faults`
        ");
        assert!(
            err("eof:after=x").contains("1:5: invalid data: `after=x`: after is a number of stdout lines")
        );
        assert!(err("eof:after=1,at=result").contains("give `after=N` or `at=TYPE`, not both"));
        assert!(err("noise:byte=3").contains("`noise` does not take `byte`"));
        assert!(err("exit").contains("`exit` needs `code=...`"));
        assert!(err("signal:name=BOOM").contains("`BOOM` is not a signal"));
        assert!(err(r#"stderr:text="open"#).contains("no closing"));
        assert!(err("eof:after").contains("`after` needs a value"));
        assert!(err("chunk:size=0").contains("size is a number of bytes, 1 or more"));
        assert!(err("drop").contains("`drop` needs `type=...`"));
    }
}
