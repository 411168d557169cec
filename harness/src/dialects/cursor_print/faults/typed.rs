//! Print mode's faults (`cursor-agent -p`): placed at a stdout line (`after=N`), an
//! event type (`at=TYPE`, `at=end`) and a byte inside the line (`byte=K`).

use std::time::Duration;

use super::super::events::{event_type, subtype};
use super::catalogue::CATALOGUE;
use crate::error::Diagnostic;
use crate::faults::catalogue::{names, Described, Site};
use crate::faults::spec::{Args, Build, Typed, Words, Written};
use crate::frames::{Chunking, Signal};

/// Where a fault acts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Anchor {
    /// Before the stdout event with this 0-based index (after the N-th).
    After(usize),
    /// Before the first stdout event of this type.
    At(String),
    /// At the end, before the process ends.
    End,
    /// On every event (`unknown-field` without a placement).
    Every,
}

/// An anchor and, for cutting faults, a byte offset inside the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// Which line.
    pub anchor: Anchor,
    /// After how many bytes of it.
    pub byte: Option<usize>,
}

/// One fault.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// Stdout stops at the placement and the process ends.
    Eof {
        /// Where.
        at: Placement,
    },
    /// A message on stderr.
    Stderr {
        /// The text; `{session_id}` is replaced by the session's id.
        text: String,
        /// Where.
        at: Placement,
    },
    /// Many bytes on stderr, before going on.
    StderrFlood {
        /// How many.
        bytes: usize,
        /// Where.
        at: Placement,
    },
    /// The process ends with this exit code.
    Exit {
        /// The code.
        code: i32,
    },
    /// The process dies by this signal at the placement.
    Signal {
        /// Which signal.
        signal: Signal,
        /// Where.
        at: Placement,
    },
    /// Nothing more is written for a while, or forever.
    Stall {
        /// How long; `None` is forever (until a signal).
        duration: Option<Duration>,
        /// Where.
        at: Placement,
    },
    /// Stdout is closed at the placement; the process goes on.
    CloseStdout {
        /// Where.
        at: Placement,
    },
    /// A line that is not valid JSON: the start of the next event.
    Malformed {
        /// Where.
        at: Placement,
    },
    /// A line that is not JSON.
    Noise {
        /// The text.
        text: String,
        /// Where.
        at: Placement,
    },
    /// Every event of this type is left out.
    Drop {
        /// The event type.
        kind: String,
    },
    /// An event is written twice.
    Duplicate {
        /// Which.
        at: Placement,
    },
    /// Parallel tool calls complete in the other order.
    Reorder,
    /// An event of a type no consumer knows.
    UnknownEvent {
        /// Where.
        at: Placement,
    },
    /// A field no consumer knows, on one event or every event.
    UnknownField {
        /// Which.
        at: Placement,
    },
    /// Stdout writes split across line boundaries.
    Chunk(Chunking),
    /// Many lines in one write.
    Coalesce,
    /// One event grows to this many bytes, still valid JSON.
    Huge {
        /// The line's length, without its newline.
        bytes: usize,
        /// Which event.
        at: Placement,
    },
    /// Lines end with `\r\n`.
    Crlf,
    /// Bytes that are not UTF-8 inside an event's text.
    InvalidUtf8 {
        /// Which event.
        at: Placement,
    },
    /// Stdout lines written at the placement (the presets' events). `{session_id}` and
    /// `{timestamp_ms}` are filled in from the stream.
    Insert {
        /// The lines.
        lines: Vec<String>,
        /// Where.
        at: Placement,
    },
}

impl Fault {
    /// The fault's name in the grammar (presets appear as the faults they stand for).
    pub fn name(&self) -> &'static str {
        match self {
            Fault::Eof { .. } => "eof",
            Fault::Stderr { .. } => "stderr",
            Fault::StderrFlood { .. } => "stderr-flood",
            Fault::Exit { .. } => "exit",
            Fault::Signal { .. } => "signal",
            Fault::Stall { .. } => "stall",
            Fault::CloseStdout { .. } => "close-stdout",
            Fault::Malformed { .. } => "malformed",
            Fault::Noise { .. } => "noise",
            Fault::Drop { .. } => "drop",
            Fault::Duplicate { .. } => "duplicate",
            Fault::Reorder => "reorder",
            Fault::UnknownEvent { .. } => "unknown-event",
            Fault::UnknownField { .. } => "unknown-field",
            Fault::Chunk(_) => "chunk",
            Fault::Coalesce => "coalesce",
            Fault::Huge { .. } => "huge",
            Fault::Crlf => "crlf",
            Fault::InvalidUtf8 { .. } => "invalid-utf8",
            Fault::Insert { .. } => "insert",
        }
    }

    /// Whether the fault acts on the rendered output lines rather than the events.
    pub fn acts_on_output(&self) -> bool {
        matches!(
            self,
            Fault::Malformed { .. } | Fault::Noise { .. } | Fault::Crlf | Fault::InvalidUtf8 { .. }
        )
    }
}

/// The real CLI's failures, reproduced as shared/REAL-CLI.md describes them: stdout so
/// far, the message on stderr, exit 1, no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// Not logged in.
    AuthRequired,
    /// The workspace is not trusted.
    TrustRequired,
    /// Out of usage, after `init` and `user`.
    Quota,
    /// `--model` names a model the account cannot use.
    UnknownModel,
    /// `--resume` names a session in use.
    SessionInUse,
    /// The connection drops after `init` and `user`; reconnect and retry events.
    ConnectionLost,
}

/// The message of [`Preset::AuthRequired`].
pub const AUTH_REQUIRED: &str = "Authentication required. Please run 'cursor-agent login' first, or set CURSOR_API_KEY environment variable.";

impl Preset {
    const ALL: [(Preset, &'static str); 6] = [
        (Preset::AuthRequired, "auth-required"),
        (Preset::TrustRequired, "trust-required"),
        (Preset::Quota, "quota"),
        (Preset::UnknownModel, "unknown-model"),
        (Preset::SessionInUse, "session-in-use"),
        (Preset::ConnectionLost, "connection-lost"),
    ];

    /// The preset with this name.
    pub fn from_name(name: &str) -> Option<Preset> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(p, _)| *p)
    }

    /// The faults the preset stands for. `model` names the model of `unknown-model`.
    pub fn faults(self, model: Option<&str>) -> Vec<Fault> {
        let at = |anchor| Placement { anchor, byte: None };
        let stdout_until = |anchor| Fault::Eof { at: at(anchor) };
        let message = |text: String| Fault::Stderr {
            text,
            at: at(Anchor::End),
        };
        let fail = Fault::Exit { code: 1 };
        // `init` and `user` are the first two events.
        let after_user = Anchor::After(2);
        match self {
            Preset::AuthRequired => vec![stdout_until(Anchor::After(0)), message(AUTH_REQUIRED.into()), fail],
            Preset::TrustRequired => vec![
                stdout_until(Anchor::After(0)),
                message(
                    "⚠ Workspace Trust Required\n\nThe agent can read, edit and run commands in this directory.\n\
                     Pass --trust, --yolo, or -f if you trust this directory"
                        .into(),
                ),
                fail,
            ],
            Preset::Quota => vec![
                stdout_until(after_user),
                message(
                    "ActionRequiredError: Increase limits for faster responses You're out of usage. \
                     Switch to Auto, or ask your admin to increase your limits."
                        .into(),
                ),
                fail,
            ],
            Preset::UnknownModel => vec![
                stdout_until(Anchor::After(0)),
                message(format!(
                    "Cannot use this model: {}. Available models: {}",
                    model.unwrap_or("gpt-9"),
                    crate::models::ids().collect::<Vec<_>>().join(", ")
                )),
                fail,
            ],
            Preset::SessionInUse => vec![
                stdout_until(Anchor::After(0)),
                message("Error: Session ID \"{session_id}\" is already in use.".into()),
                fail,
            ],
            Preset::ConnectionLost => vec![
                stdout_until(after_user),
                Fault::Insert {
                    lines: vec![
                        trouble(event_type::CONNECTION, subtype::RECONNECTING, ""),
                        trouble(event_type::RETRY, subtype::STARTING, r#","is_resume":false"#),
                    ],
                    at: at(Anchor::End),
                },
                message("RetriableError: [unavailable] upstream connect error or disconnect/reset before headers".into()),
                fail,
            ],
        }
    }
}

/// A line of connection trouble (`connection`, `retry`) as the real CLI prints it, its
/// first attempt, with `rest` (fields, each after a comma) at its end; `{session_id}`
/// and `{timestamp_ms}` are filled in as it is written.
fn trouble(kind: &str, sub: &str, rest: &str) -> String {
    format!(
        r#"{{"type":"{kind}","subtype":"{sub}","session_id":"{{session_id}}","timestamp_ms":{{timestamp_ms}},"attempt":1{rest}}}"#
    )
}

/// The text of `noise` that gives none.
pub(crate) const NOISE: &str = "[debug] mock-agent noise";

impl std::fmt::Display for Placement {
    /// The placement in the grammar: `after=N`, `at=TYPE`, `at=end`, with `,byte=K`;
    /// empty on every event.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.anchor {
            Anchor::After(n) => write!(f, "after={n}")?,
            Anchor::At(at) => write!(f, "at={at}")?,
            Anchor::End => f.write_str("at=end")?,
            Anchor::Every => {}
        }
        match self.byte {
            Some(k) => write!(f, ",byte={k}"),
            None => Ok(()),
        }
    }
}

impl Placement {
    /// Where the print-mode fault `name` acts when it is not placed (at the end for a
    /// name that is not placed).
    pub fn default_of(name: &str) -> Placement {
        let default = crate::faults::entry(CATALOGUE, name).and_then(|e| e.default);
        Placement {
            anchor: default.map_or(Anchor::End, Anchor::from_site),
            byte: None,
        }
    }
}

impl Anchor {
    fn from_site(site: Site) -> Anchor {
        match site {
            Site::End => Anchor::End,
            Site::Every => Anchor::Every,
            site => Written::of(site).map_or(Anchor::End, Anchor::from_written),
        }
    }

    fn from_written(written: Written) -> Anchor {
        match written {
            Written::After(n) => Anchor::After(usize::try_from(n).unwrap_or(usize::MAX)),
            Written::At(at) if at == "end" => Anchor::End,
            Written::At(at) | Written::Method(at) => Anchor::At(at),
        }
    }
}

impl Typed for Fault {
    const CATALOGUE: &'static [Described] = CATALOGUE;
    const WORDS: Words = crate::faults::lines::stdout_words(
        "give `after=N` or `at=TYPE`, not both",
        "`at=` needs an event type, e.g. `at=result`",
    );

    // Print mode's own words for an unknown name (it came first), not `OF`'s.
    const OF: &'static str = "print mode";
    const BUILD: Build<Self> = build;

    fn unknown(name: &str) -> String {
        format!("unknown fault `{name}`; known: {}", names(CATALOGUE))
    }
}

crate::faults::spec::parser!(Fault, "print mode's");

/// Where a print-mode fault acts: placed, or at its entry's default.
fn placement(entry: &Described, args: &mut Args<'_>) -> Result<Placement, Diagnostic> {
    let anchor = match args.site(entry, &Fault::WORDS)? {
        Some(written) => Anchor::from_written(written),
        None => entry.default.map_or(Anchor::End, Anchor::from_site),
    };
    let byte = args.byte(entry, &Fault::WORDS)?;
    Ok(Placement { anchor, byte })
}

fn build(entry: &Described, args: &mut Args<'_>) -> Result<Vec<Fault>, Diagnostic> {
    let column = args.column();
    let result = match entry.name {
        "eof" => Fault::Eof {
            at: placement(entry, args)?,
        },
        "stderr" => Fault::Stderr {
            text: args
                .text("text")
                .ok_or_else(|| args.err(column, "`stderr` needs `text=...`".into()))?,
            at: placement(entry, args)?,
        },
        "stderr-flood" => Fault::StderrFlood {
            bytes: args.size("bytes")?.unwrap_or(1 << 20),
            at: placement(entry, args)?,
        },
        "exit" => Fault::Exit {
            code: {
                let code: i32 = args.required("code", "an exit code, 0 to 255")?;
                if !(0..=255).contains(&code) {
                    let column = args.get("code").map_or(column, |(_, c)| c);
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
                at: placement(entry, args)?,
            }
        }
        "stall" => Fault::Stall {
            duration: args
                .number::<u64>("ms", "milliseconds")?
                .map(Duration::from_millis),
            at: placement(entry, args)?,
        },
        "close-stdout" => Fault::CloseStdout {
            at: placement(entry, args)?,
        },
        "malformed" => Fault::Malformed {
            at: placement(entry, args)?,
        },
        "noise" => Fault::Noise {
            text: args.text("text").unwrap_or_else(|| NOISE.into()),
            at: placement(entry, args)?,
        },
        "drop" => Fault::Drop {
            kind: args.text("type").filter(|t| !t.is_empty()).ok_or_else(|| {
                args.err(
                    column,
                    format!("`drop` needs `type=...`, e.g. `drop:type={}`", event_type::RESULT),
                )
            })?,
        },
        "duplicate" => Fault::Duplicate {
            at: placement(entry, args)?,
        },
        "reorder" => Fault::Reorder,
        "unknown-event" => Fault::UnknownEvent {
            at: placement(entry, args)?,
        },
        "unknown-field" => Fault::UnknownField {
            at: placement(entry, args)?,
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
                    return Err(args.err(column, "`chunk` needs `size=N` or `random`".into()));
                }
            };
            Fault::Chunk(chunking)
        }
        "coalesce" => Fault::Coalesce,
        "huge" => Fault::Huge {
            bytes: args.size("bytes")?.unwrap_or((1 << 20) + 1),
            at: placement(entry, args)?,
        },
        "crlf" => Fault::Crlf,
        "invalid-utf8" => Fault::InvalidUtf8 {
            at: placement(entry, args)?,
        },
        name => {
            let preset = Preset::from_name(name).ok_or_else(|| args.err(column, Fault::unknown(name)))?;
            return Ok(preset.faults(args.text("model").as_deref()));
        }
    };
    Ok(vec![result])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Origin;

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
            ok(&format!(
                r#"stderr:text="a, b; \"c\"",at={} ; exit:code=2"#,
                event_type::RESULT
            )),
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
        assert!(err(&format!("eof:after=1,at={}", event_type::RESULT))
            .contains("give `after=N` or `at=TYPE`, not both"));
        assert!(err("noise:byte=3").contains("`noise` does not take `byte`"));
        assert!(err("exit").contains("`exit` needs `code=...`"));
        assert!(err("signal:name=BOOM").contains("`BOOM` is not a signal"));
        assert!(err(r#"stderr:text="open"#).contains("no closing"));
        assert!(err("eof:after").contains("`after` needs a value"));
        assert!(err("chunk:size=0").contains("size is a number of bytes, 1 or more"));
        assert!(err("drop").contains("`drop` needs `type=...`"));
    }
}
