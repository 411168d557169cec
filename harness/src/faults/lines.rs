//! The faults that act on a stream of JSON lines, one machinery for every dialect
//! whose agent writes one JSON value a line on stdout: what they are ([`LineFault`]),
//! how the one grammar reads them (`build`), and how they act on the lines a run
//! writes ([`Injector`]).
//!
//! A dialect gives what is its own through two small traits: its fault type
//! ([`Faults`]: the line faults among its own, and where each is placed) and the
//! shape of its lines ([`Stream`]: which words a line answers to in `at=WORD`, and the
//! lines the faults write: a line that is not JSON, one of an unknown type, a huge
//! one). The dialect's folder keeps its words; nothing here names one.
//!
//! A fault placed `after=N` acts after the N-th line (0: before the first), one
//! placed `at=WORD` before the first line that answers to WORD. A stream that has a
//! final line (a `result`: [`Stream::is_final`]) ends a run "there, without a result"
//! when a fault that ends the run (`exit`, `signal`, `eof`) has not been reached by
//! then, unless it is placed at [`AT_END`]. A fault never reached acts at the end
//! ([`Injector::end`]).

use std::time::Duration;

use super::catalogue::Described;
use super::spec::{Args, LinePlace, Words};
use super::MAX_BYTES;
use crate::error::{Diagnostic, Origin};
use crate::frames::{Exit, Signal};

/// `stderr`, placed at a line (`at=WORDS` in its arguments: `TYPE`, `METHOD`), with
/// `example`: the entry of every dialect whose faults are placed at its lines.
pub const fn stderr_entry(args: &'static str, example: &'static str) -> Described {
    super::catalogue::e(
        "stderr",
        args,
        "writes T on stderr before that line (default at the start)",
        example,
    )
    .placed(super::catalogue::LINE, Some(super::catalogue::Site::After(0)))
}

/// `stderr-flood`, as every dialect whose faults are placed at its lines has it.
pub const STDERR_FLOOD: Described = super::catalogue::e(
    "stderr-flood",
    "bytes=N, after=N|at=TYPE",
    "writes N bytes of log lines on stderr before that line (default 1 MiB, at the start): a program that reads stdout alone, with stderr piped and unread, stalls the CLI",
    "stderr-flood:bytes=1048576",
)
.placed(super::catalogue::LINE, Some(super::catalogue::Site::After(0)));

/// A dialect's faults given in `MOCK_AGENT_FAULTS`, with `help` (where `mock-agent
/// faults` lists them).
pub(crate) const fn from_env(help: &'static str) -> Origin<'static> {
    Origin {
        name: "MOCK_AGENT_FAULTS",
        help,
    }
}

/// How a dialect whose faults are placed at its stdout lines, and that has no methods,
/// words the placement keys: `one_of` when more than one is given, `empty_at` when
/// `at=` is empty.
pub(crate) const fn stdout_words(one_of: &'static str, empty_at: &'static str) -> Words {
    Words {
        after: "a number of stdout lines",
        byte: "a byte offset inside the line",
        one_of,
        empty_at: Some(empty_at),
        no_method: None,
    }
}

/// What is said of `name`, which is no fault of `of` (`Codex's dialect`), whose
/// faults are `section`.
pub(crate) fn not_a_fault(name: &str, of: &str, section: &[Described]) -> String {
    format!(
        "`{name}` is not a fault of {of}; they are {}",
        super::catalogue::names(section)
    )
}

/// Asserts that each spec of `refused` fails to read, by `parse`, with an error that
/// says the text paired with it.
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_refused<F: std::fmt::Debug>(
    parse: impl Fn(&str) -> Result<Vec<F>, Diagnostic>,
    refused: &[(&str, &str)],
) {
    for (spec, says) in refused {
        let e = parse(spec).expect_err(spec).to_string();
        assert!(e.contains(says), "{spec}: {e}");
    }
}

/// Asserts that each entry of `section` reads, by `parse`, as one fault of its name.
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_examples_parse<F: Faults>(
    section: &[Described],
    parse: impl Fn(&str) -> Result<Vec<F>, Diagnostic>,
) {
    for entry in section {
        let faults = parse(entry.example).unwrap_or_else(|e| panic!("{}: {e}", entry.name));
        assert_eq!(faults.len(), 1, "{}", entry.name);
        assert_eq!(faults[0].name(), entry.name);
    }
}

/// Asserts what every dialect's parser must do: read each entry of `section` as one
/// fault of its name ([`assert_examples_parse`]), and refuse a bad value where it
/// stands (`eof:after=x`: column 5) and each spec of `refused` with the text paired
/// with it ([`assert_refused`]).
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_parser<F: Faults>(
    section: &[Described],
    parse: impl Fn(&str) -> Result<Vec<F>, Diagnostic>,
    refused: &[(&str, &str)],
) {
    assert_examples_parse(section, &parse);
    assert_refused(&parse, &[("eof:after=x", "MOCK_AGENT_FAULTS:1:5")]);
    assert_refused(parse, refused);
}

/// Asserts where a dialect's faults act when not placed, as its catalogue says: `exit`
/// at the line type `exit_at`, `malformed` after `malformed_after` lines, `stderr`
/// after none.
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_defaults<F: Faults>(
    parse: impl Fn(&str) -> Result<Vec<F>, Diagnostic>,
    (exit_at, malformed_after): (&str, u64),
) {
    let faults = parse("exit;malformed;stderr:text=x").expect("faults");
    let places: Vec<_> = faults.iter().map(Faults::place).collect();
    let (exit_at, malformed_after) = (LinePlace::At(exit_at.into()), LinePlace::After(malformed_after));
    assert_eq!(
        places,
        [Some(&exit_at), Some(&malformed_after), Some(&LinePlace::After(0))]
    );
}

/// The tests of a dialect's parser whose faults act on its lines (`parse` and
/// `FROM_ENV` in scope), as a module `parser_tests`: each example of its section of
/// the catalogue (`$fault`'s) parses, and each spec of `refused` is refused with the
/// text paired with it ([`assert_parser`]); with `defaults`, unplaced faults act where
/// the catalogue says ([`assert_defaults`]).
macro_rules! parser_tests {
    ($fault:ty, refused: $refused:expr $(, defaults: $defaults:expr)?) => {
        #[cfg(test)]
        mod parser_tests {
            use super::*;

            #[test]
            fn each_example_parses_and_a_bad_spec_says_where() {
                let section = <$fault as $crate::faults::spec::Typed>::CATALOGUE;
                $crate::faults::lines::assert_parser(section, |spec| parse(spec, FROM_ENV), &$refused);
            }

            $(
                #[test]
                fn defaults_are_where_the_catalogue_says() {
                    $crate::faults::lines::assert_defaults(|spec| parse(spec, FROM_ENV), $defaults);
                }
            )?
        }
    };
}
pub(crate) use parser_tests;

/// Asserts that faults placed where nothing comes (a stall at a type no line has, an
/// exit after more lines than there are) act at the end, in their order: `end` gives
/// what an injector of a fault list does at the end of a run with no line.
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_unreached_act_at_the_end(end: impl Fn(&str) -> Vec<Out>) {
    assert_eq!(
        end("stall:ms=5,at=nothing;exit:code=4,after=99"),
        vec![
            Out::Stall(Some(Duration::from_millis(5))),
            Out::End(Exit::Code(4))
        ]
    );
}

/// The place after the final line: `at=end`.
pub const AT_END: &str = "end";

/// What `huge` writes when `bytes=` is not given: one byte past the 1 MiB line caps
/// of the SDKs' readers.
pub const HUGE: usize = (1 << 20) + 1;

/// One fault acting on the lines of stdout. `K`: what `unknown` writes, when a
/// dialect writes more than one kind of unknown line.
#[derive(Debug, Clone, PartialEq)]
pub enum LineFault<K = ()> {
    /// The process ends there, without writing that line.
    Exit {
        /// Where.
        at: LinePlace,
        /// How: an exit code or a signal.
        exit: Exit,
        /// After this many bytes of the line (a signal only).
        byte: Option<usize>,
    },
    /// Stdout stops in the middle of the line; exit 1.
    Eof {
        /// Where.
        at: LinePlace,
        /// How many bytes of the line are written (default half).
        byte: Option<usize>,
    },
    /// Nothing is written for a while, or ever.
    Stall {
        /// Where.
        at: LinePlace,
        /// How long; `None`: for ever.
        duration: Option<Duration>,
    },
    /// A line that starts as JSON and is not.
    Malformed {
        /// Where.
        at: LinePlace,
    },
    /// A line of an undocumented type.
    Unknown {
        /// Where.
        at: LinePlace,
        /// Which.
        kind: K,
    },
    /// A line of this many bytes.
    Huge {
        /// Where.
        at: LinePlace,
        /// The line's length.
        bytes: usize,
    },
    /// A line on stderr.
    Stderr {
        /// Where.
        at: LinePlace,
        /// The text.
        text: String,
        /// Whether it is a flood of lines (`stderr-flood`) rather than a message.
        flood: bool,
    },
}

impl<K> LineFault<K> {
    /// The fault's name in the catalogue.
    pub fn name(&self) -> &'static str {
        match self {
            LineFault::Exit {
                exit: Exit::Signal(_),
                ..
            } => "signal",
            LineFault::Exit { .. } => "exit",
            LineFault::Eof { .. } => "eof",
            LineFault::Stall { .. } => "stall",
            LineFault::Malformed { .. } => "malformed",
            LineFault::Unknown { .. } => "unknown",
            LineFault::Huge { .. } => "huge",
            LineFault::Stderr { flood: false, .. } => "stderr",
            LineFault::Stderr { flood: true, .. } => "stderr-flood",
        }
    }

    /// Where the fault acts.
    pub fn place(&self) -> &LinePlace {
        match self {
            LineFault::Exit { at, .. }
            | LineFault::Eof { at, .. }
            | LineFault::Stall { at, .. }
            | LineFault::Malformed { at }
            | LineFault::Unknown { at, .. }
            | LineFault::Huge { at, .. }
            | LineFault::Stderr { at, .. } => at,
        }
    }

    /// Whether the fault ends the run, without its final line (`exit`, `signal`,
    /// `eof`).
    pub fn ends_run(&self) -> bool {
        matches!(self, LineFault::Exit { .. } | LineFault::Eof { .. })
    }
}

/// The line fault of `entry` (`exit`, `signal`, `eof`, `stall`, `malformed`,
/// `unknown`, `huge`, `stderr`, `stderr-flood`), its keys read from `args` with the
/// dialect's `words`; `None` when the entry is none of them. `huge`: `huge`'s length
/// when `bytes=` is not given; `kind`: reads what `unknown` writes.
pub(crate) fn build<K>(
    entry: &Described,
    args: &mut Args<'_>,
    words: &Words,
    huge: usize,
    kind: impl FnOnce(&mut Args<'_>) -> Result<K, Diagnostic>,
) -> Result<Option<LineFault<K>>, Diagnostic> {
    let column = args.column();
    let place = |args: &mut Args<'_>| args.line_place(entry, words);
    Ok(Some(match entry.name {
        "exit" => {
            let exit = Exit::Code(args.exit_code()?.unwrap_or(1));
            LineFault::Exit {
                at: place(args)?,
                exit,
                byte: None,
            }
        }
        "signal" => {
            let exit = Exit::Signal(args.signal("name")?.unwrap_or(Signal::Kill));
            let (at, byte) = (place(args)?, args.byte(entry, words)?);
            LineFault::Exit { at, exit, byte }
        }
        "eof" => LineFault::Eof {
            at: place(args)?,
            byte: args.byte(entry, words)?,
        },
        "stall" => LineFault::Stall {
            duration: args.millis()?,
            at: place(args)?,
        },
        "malformed" => LineFault::Malformed { at: place(args)? },
        "unknown" => {
            let kind = kind(args)?;
            LineFault::Unknown {
                kind,
                at: place(args)?,
            }
        }
        "huge" => LineFault::Huge {
            bytes: args.size("bytes")?.unwrap_or(huge).min(MAX_BYTES),
            at: place(args)?,
        },
        "stderr" => LineFault::Stderr {
            text: args
                .text("text")
                .ok_or_else(|| args.err(column, "`stderr` needs `text=...`".into()))?,
            at: place(args)?,
            flood: false,
        },
        "stderr-flood" => LineFault::Stderr {
            text: String::from_utf8_lossy(&super::flood(args.size("bytes")?.unwrap_or(1 << 20)))
                .trim_end()
                .to_owned(),
            at: place(args)?,
            flood: true,
        },
        _ => return Ok(None),
    }))
}

/// What the CLI writes or does, in order, for one line it meant to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    /// A whole line on stdout (without its newline).
    Line(Vec<u8>),
    /// The start of a line, and nothing more: stdout ends there.
    Cut(Vec<u8>),
    /// A line on stderr.
    Stderr(Vec<u8>),
    /// Nothing for this long; `None`: for ever.
    Stall(Option<Duration>),
    /// The process ends so.
    End(Exit),
}

impl Out {
    /// The whole stdout line it is, if it is one.
    pub fn into_line(self) -> Option<Vec<u8>> {
        match self {
            Out::Line(line) => Some(line),
            _ => None,
        }
    }
}

/// A dialect's faults, as the line machinery sees them.
pub trait Faults: Clone + std::fmt::Debug {
    /// What `unknown` writes (see [`LineFault`]).
    type Kind: Clone + std::fmt::Debug;

    /// The fault's name in the catalogue.
    fn name(&self) -> &'static str;

    /// The fault, when it is one of the line faults.
    fn line(&self) -> Option<&LineFault<Self::Kind>>;

    /// Where the fault acts, when it acts at a line (the line faults', and any of the
    /// dialect's own that [`Stream::act`] performs).
    fn place(&self) -> Option<&LinePlace> {
        self.line().map(LineFault::place)
    }
}

/// The shape of a dialect's lines: what the line faults read of them and write.
pub trait Stream: Clone + std::fmt::Debug + Default {
    /// The dialect's faults.
    type Fault: Faults;

    /// Whether the stream has a final line ([`Stream::is_final`]), so that the lines'
    /// words are read for the faults that end the run too.
    const HAS_FINAL: bool = false;

    /// The words `line` answers to in `at=WORD` (its type, its subtype, ...).
    fn words(&self, line: &[u8]) -> Vec<String>;

    /// Called with every line before the faults act on it (what the lines it adds
    /// must name).
    fn see(&mut self, line: &[u8]) {
        let _ = line;
    }

    /// The line the run means to write, changed by the faults that change every line
    /// (marking those that acted).
    fn rewrite(&mut self, faults: &mut [(Self::Fault, bool)], line: Vec<u8>) -> Vec<u8> {
        let _ = faults;
        line
    }

    /// Whether the line of `words` is the run's final one (a result), before which a
    /// fault that ends the run acts if it has not yet.
    fn is_final(&self, words: &[String]) -> bool {
        let _ = words;
        false
    }

    /// A line that starts as JSON and is not.
    fn malformed(&self) -> Vec<u8>;

    /// A line of an undocumented type.
    fn unknown(&self, kind: &<Self::Fault as Faults>::Kind) -> Vec<u8>;

    /// A line `bytes` long (as close as JSON allows).
    fn huge(&self, bytes: usize) -> Vec<u8>;

    /// The line `eof` cuts when the run has written its last.
    fn final_line(&self) -> Vec<u8>;

    /// Performs one of the dialect's own placed faults (not a line fault): how the
    /// process ends, when it ends it.
    fn act(&self, fault: &Self::Fault) -> Option<Out> {
        let _ = fault;
        None
    }
}

/// Applies a dialect's faults to the lines of one run.
#[derive(Debug, Clone)]
pub struct Injector<S: Stream> {
    faults: Vec<(S::Fault, bool)>,
    lines: u64,
    stream: S,
}

impl<S: Stream> Injector<S> {
    /// An injector of `faults`.
    pub fn new(faults: Vec<S::Fault>) -> Self {
        Injector::on(S::default(), faults)
    }

    /// An injector of `faults` on `stream`.
    pub fn on(stream: S, faults: Vec<S::Fault>) -> Self {
        Injector {
            faults: faults.into_iter().map(|f| (f, false)).collect(),
            lines: 0,
            stream,
        }
    }

    /// Each fault's name, and whether it acted.
    pub fn report(&self) -> Vec<(&'static str, bool)> {
        self.faults.iter().map(|(f, acted)| (f.name(), *acted)).collect()
    }

    /// Whether a fault named `name` acted.
    pub fn acted(&self, name: &str) -> bool {
        self.faults.iter().any(|(f, acted)| *acted && f.name() == name)
    }

    /// The faults, each with whether it acted (a dialect's own faults act through
    /// these: a preset marks itself acted).
    pub fn faults_mut(&mut self) -> &mut [(S::Fault, bool)] {
        &mut self.faults
    }

    /// The faults, each with whether it acted.
    pub fn faults(&self) -> &[(S::Fault, bool)] {
        &self.faults
    }

    /// The stream the faults act on.
    pub fn stream_mut(&mut self) -> &mut S {
        &mut self.stream
    }

    /// What becomes of `line`, one the CLI means to write now.
    pub fn line(&mut self, line: Vec<u8>) -> Vec<Out> {
        // The line's words are read only when a fault waits for one (`at=WORD`, or
        // the final line to end the run before).
        let typed = self.faults.iter().any(|(fault, acted)| {
            !acted
                && (matches!(fault.place(), Some(LinePlace::At(_)))
                    || (S::HAS_FINAL && fault.line().is_some_and(LineFault::ends_run)))
        });
        let words = if typed {
            self.stream.words(&line)
        } else {
            Vec::new()
        };
        let last = S::HAS_FINAL && self.stream.is_final(&words);
        self.stream.see(&line);
        let mut line = Some(self.stream.rewrite(&mut self.faults, line));
        let mut out = Vec::new();
        for i in 0..self.faults.len() {
            let (fault, acted) = &self.faults[i];
            let due = fault.place().is_some_and(|at| {
                reached(at, self.lines, &words)
                    || (last
                        && fault.line().is_some_and(LineFault::ends_run)
                        && *at != LinePlace::At(AT_END.to_owned()))
            });
            if *acted || !due {
                continue;
            }
            self.faults[i].1 = true;
            let fault = self.faults[i].0.clone();
            if let Some(end) = self.act(&fault, &mut line, &mut out) {
                out.push(end);
                return out;
            }
        }
        if let Some(line) = line {
            out.push(Out::Line(line));
            self.lines += 1;
        }
        out
    }

    /// What the faults not yet reached do when the run ends: they act there.
    pub fn end(&mut self) -> Vec<Out> {
        let mut out = Vec::new();
        for i in 0..self.faults.len() {
            if self.faults[i].1 || self.faults[i].0.place().is_none() {
                continue;
            }
            self.faults[i].1 = true;
            let fault = self.faults[i].0.clone();
            if let Some(end) = self.act(&fault, &mut None, &mut out) {
                out.push(end);
                return out;
            }
        }
        out
    }

    /// Everything the process writes for `said` (what it meant to write: its stdout
    /// lines and stderr, ending with `exit`) with the faults acting on its stdout
    /// lines: the lines, what the faults made of them, and how it ends (always last).
    pub fn play(&mut self, said: impl IntoIterator<Item = Out>, exit: Exit) -> Vec<Out> {
        let mut outs = Vec::new();
        for said in said {
            let Out::Line(line) = said else {
                outs.push(said);
                continue;
            };
            for out in self.line(line) {
                let ends = matches!(out, Out::End(_));
                outs.push(out);
                if ends {
                    return outs;
                }
            }
        }
        for out in self.end() {
            let ends = matches!(out, Out::End(_));
            outs.push(out);
            if ends {
                return outs;
            }
        }
        outs.push(Out::End(exit));
        outs
    }

    /// Performs `fault` before `line` (taken when the fault ends the stream there);
    /// the end of the process when it ends it.
    fn act(&self, fault: &S::Fault, line: &mut Option<Vec<u8>>, out: &mut Vec<Out>) -> Option<Out> {
        let Some(lined) = fault.line() else {
            return self.stream.act(fault);
        };
        match lined {
            LineFault::Exit { exit, byte, .. } => {
                if let (Some(byte), Some(line)) = (byte, line.take()) {
                    out.push(Out::Cut(line[..(*byte).min(line.len())].to_vec()));
                }
                Some(Out::End(*exit))
            }
            LineFault::Eof { byte, .. } => {
                let line = line.take().unwrap_or_else(|| self.stream.final_line());
                let cut = byte.unwrap_or(line.len() / 2).min(line.len());
                out.push(Out::Cut(line[..cut].to_vec()));
                Some(Out::End(Exit::Code(1)))
            }
            LineFault::Stall { duration, .. } => {
                out.push(Out::Stall(*duration));
                None
            }
            LineFault::Malformed { .. } => {
                out.push(Out::Line(self.stream.malformed()));
                None
            }
            LineFault::Unknown { kind, .. } => {
                out.push(Out::Line(self.stream.unknown(kind)));
                None
            }
            LineFault::Huge { bytes, .. } => {
                out.push(Out::Line(self.stream.huge(*bytes)));
                None
            }
            LineFault::Stderr { text, .. } => {
                out.push(Out::Stderr(text.as_bytes().to_vec()));
                None
            }
        }
    }
}

/// Whether a fault placed `at` acts before the line of `words`, the `lines`-th.
fn reached(at: &LinePlace, lines: u64, words: &[String]) -> bool {
    match at {
        LinePlace::After(n) => lines >= *n,
        LinePlace::At(word) => words.iter().any(|w| w == word),
    }
}

/// Whether a fault of `faults` writes a line a reader cannot take: one that is not
/// JSON, or a huge one (longer than `cap` bytes; `None`: any).
pub fn unreadable<F: Faults>(faults: &[F], cap: Option<usize>) -> bool {
    faults.iter().any(|f| match f.line() {
        Some(LineFault::Malformed { .. }) => true,
        Some(LineFault::Huge { bytes, .. }) => cap.is_none_or(|cap| *bytes > cap),
        _ => false,
    })
}

/// Whether the faults write a line of a type no documentation names (`unknown`).
pub fn writes_unknown<F: Faults>(faults: &[F]) -> bool {
    faults
        .iter()
        .any(|f| matches!(f.line(), Some(LineFault::Unknown { .. })))
}

/// Whether the faults make a run the real CLI never makes: an exit 0 placed in the
/// middle of a run (`exit:code=0`).
pub fn exits_zero<F: Faults>(faults: &[F]) -> bool {
    faults.iter().any(|f| {
        matches!(
            f.line(),
            Some(LineFault::Exit {
                exit: Exit::Code(0),
                ..
            })
        )
    })
}
