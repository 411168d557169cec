//! Frames: the currency of the pipeline.
//!
//! Every source (cassette, capture, the built-in default session) yields frames;
//! rendering, faults and timing map frames to frames; the executor writes them. A
//! [`Line`] is one line of output on stdout or stderr, exactly as bytes, with the
//! time it was written; an [`Ending`] says how the process ends.

use std::fmt;
use std::time::Duration;

use crate::error::CassetteError;

/// Which output stream a line goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stream {
    /// Standard output: the events.
    Stdout,
    /// Standard error: messages.
    Stderr,
    /// Standard input: what the process read, in server mode the client's messages.
    /// Recorded, never written.
    Stdin,
}

impl Stream {
    /// Its name in messages: `stdout`, `stderr` or `stdin`.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
            Stream::Stdin => "stdin",
        }
    }
}

/// One line of output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// When it was written, from the start of the run.
    pub at: Duration,
    /// Where it goes.
    pub stream: Stream,
    /// Its bytes, without the final newline. Not necessarily UTF-8 or JSON.
    pub bytes: Vec<u8>,
    /// Whether a `\n` follows. `false` only for the last line of a stream that was
    /// cut off.
    pub newline: bool,
}

impl Line {
    /// A complete stdout line at `at`.
    pub fn stdout(at: Duration, bytes: impl Into<Vec<u8>>) -> Self {
        Line {
            at,
            stream: Stream::Stdout,
            bytes: bytes.into(),
            newline: true,
        }
    }

    /// A complete stderr line at `at`.
    pub fn stderr(at: Duration, bytes: impl Into<Vec<u8>>) -> Self {
        Line {
            at,
            stream: Stream::Stderr,
            bytes: bytes.into(),
            newline: true,
        }
    }
}

/// How a process ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exits with this code.
    Code(i32),
    /// It dies by this signal.
    Signal(Signal),
}

impl Exit {
    /// Whether this is `exit 0`.
    pub fn success(self) -> bool {
        self == Exit::Code(0)
    }
}

impl Exit {
    /// How a child process ended: its exit code, or the signal it died by (every
    /// signal Linux has, 1 to 64). A number past those (no Linux kernel sends one)
    /// becomes the exit code a shell reports for it, 128 + the number; a status
    /// with neither code nor signal (a stopped process, which `wait` does not
    /// return) is 1.
    pub fn from_status(status: std::process::ExitStatus) -> Exit {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(number)) => {
                Signal::from_number(number).map_or(Exit::Code(128_i32.saturating_add(number)), Exit::Signal)
            }
            (None, None) => Exit::Code(1),
        }
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Code(code) => write!(f, "exit code {code}"),
            Exit::Signal(signal) => write!(f, "signal {signal}"),
        }
    }
}

/// The end of a run: when, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ending {
    /// When the process ended, from the start of the run.
    pub at: Duration,
    /// How it ended.
    pub exit: Exit,
}

/// One step of a run. Every performer handles every kind, so the list is closed
/// within a cassette format version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A line of output.
    Line(Line),
    /// Nothing is written for a while (from a `stall` fault).
    Stall {
        /// When the stall starts.
        at: Duration,
        /// How long it lasts; `None`: until the process gets SIGTERM or SIGINT.
        duration: Option<Duration>,
    },
    /// Stdout is closed; the process goes on (from a `close-stdout` fault).
    CloseStdout {
        /// When.
        at: Duration,
    },
    /// The end; always the last frame.
    End(Ending),
}

impl Frame {
    /// When this frame happens, from the start of the run.
    pub fn at(&self) -> Duration {
        match self {
            Frame::Line(line) => line.at,
            Frame::Stall { at, .. } | Frame::CloseStdout { at } => *at,
            Frame::End(end) => end.at,
        }
    }

    /// The same frame at another time.
    #[must_use]
    pub fn with_at(mut self, to: Duration) -> Self {
        match &mut self {
            Frame::Line(line) => line.at = to,
            Frame::Stall { at, .. } | Frame::CloseStdout { at } => *at = to,
            Frame::End(end) => end.at = to,
        }
        self
    }
}

/// The signals a process can be recorded dying by, or be told to die by: every Linux
/// signal, named as `kill -l` names them (without `SIG`), and the real-time signals,
/// which have a number and no name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Signal {
    /// SIGHUP (1).
    Hup,
    /// SIGINT (2).
    Int,
    /// SIGQUIT (3).
    Quit,
    /// SIGILL (4).
    Ill,
    /// SIGTRAP (5).
    Trap,
    /// SIGABRT (6), also called SIGIOT.
    Abrt,
    /// SIGBUS (7).
    Bus,
    /// SIGFPE (8).
    Fpe,
    /// SIGKILL (9).
    Kill,
    /// SIGUSR1 (10).
    Usr1,
    /// SIGSEGV (11).
    Segv,
    /// SIGUSR2 (12).
    Usr2,
    /// SIGPIPE (13).
    Pipe,
    /// SIGALRM (14).
    Alrm,
    /// SIGTERM (15).
    Term,
    /// SIGSTKFLT (16).
    Stkflt,
    /// SIGCHLD (17), also called SIGCLD.
    Chld,
    /// SIGCONT (18).
    Cont,
    /// SIGSTOP (19).
    Stop,
    /// SIGTSTP (20).
    Tstp,
    /// SIGTTIN (21).
    Ttin,
    /// SIGTTOU (22).
    Ttou,
    /// SIGURG (23).
    Urg,
    /// SIGXCPU (24).
    Xcpu,
    /// SIGXFSZ (25).
    Xfsz,
    /// SIGVTALRM (26).
    Vtalrm,
    /// SIGPROF (27).
    Prof,
    /// SIGWINCH (28).
    Winch,
    /// SIGIO (29), also called SIGPOLL.
    Io,
    /// SIGPWR (30).
    Pwr,
    /// SIGSYS (31).
    Sys,
    /// A real-time signal, 32 to 64: it has a number and no name of its own.
    Realtime(Realtime),
}

/// A real-time signal's number, 32 to 64 (Linux's `SIGRTMIN` to `SIGRTMAX`; the C
/// library keeps the first two for itself, so its `SIGRTMIN` is 34).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Realtime(u8);

impl Realtime {
    /// The lowest real-time signal number on Linux.
    pub const MIN: i32 = 32;
    /// The highest real-time signal number on Linux.
    pub const MAX: i32 = 64;

    /// The real-time signal with this number, if it is one (32 to 64).
    pub fn new(number: i32) -> Option<Realtime> {
        u8::try_from(number)
            .ok()
            .filter(|n| (Self::MIN..=Self::MAX).contains(&i32::from(*n)))
            .map(Realtime)
    }

    /// Its number.
    pub fn number(self) -> i32 {
        i32::from(self.0)
    }
}

/// What a signal does to a process that does not handle it (signal(7)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DefaultAction {
    /// The process ends.
    Terminate,
    /// The process ends and dumps core.
    Core,
    /// Nothing.
    Ignore,
    /// The process stops.
    Stop,
    /// A stopped process goes on.
    Continue,
}

/// Every named signal: the signal, its name, its number, its default action.
const NAMED: &[(Signal, &str, i32, DefaultAction)] = {
    use DefaultAction::{Continue as Cont, Core, Ignore as Ign, Stop, Terminate as Term};
    &[
        (Signal::Hup, "HUP", 1, Term),
        (Signal::Int, "INT", 2, Term),
        (Signal::Quit, "QUIT", 3, Core),
        (Signal::Ill, "ILL", 4, Core),
        (Signal::Trap, "TRAP", 5, Core),
        (Signal::Abrt, "ABRT", 6, Core),
        (Signal::Bus, "BUS", 7, Core),
        (Signal::Fpe, "FPE", 8, Core),
        (Signal::Kill, "KILL", 9, Term),
        (Signal::Usr1, "USR1", 10, Term),
        (Signal::Segv, "SEGV", 11, Core),
        (Signal::Usr2, "USR2", 12, Term),
        (Signal::Pipe, "PIPE", 13, Term),
        (Signal::Alrm, "ALRM", 14, Term),
        (Signal::Term, "TERM", 15, Term),
        (Signal::Stkflt, "STKFLT", 16, Term),
        (Signal::Chld, "CHLD", 17, Ign),
        (Signal::Cont, "CONT", 18, Cont),
        (Signal::Stop, "STOP", 19, Stop),
        (Signal::Tstp, "TSTP", 20, Stop),
        (Signal::Ttin, "TTIN", 21, Stop),
        (Signal::Ttou, "TTOU", 22, Stop),
        (Signal::Urg, "URG", 23, Ign),
        (Signal::Xcpu, "XCPU", 24, Core),
        (Signal::Xfsz, "XFSZ", 25, Core),
        (Signal::Vtalrm, "VTALRM", 26, Term),
        (Signal::Prof, "PROF", 27, Term),
        (Signal::Winch, "WINCH", 28, Ign),
        (Signal::Io, "IO", 29, Term),
        (Signal::Pwr, "PWR", 30, Term),
        (Signal::Sys, "SYS", 31, Core),
    ]
};

/// Other names of named signals, as other tools spell them.
const ALIASES: &[(&str, Signal)] = &[("IOT", Signal::Abrt), ("CLD", Signal::Chld), ("POLL", Signal::Io)];

/// The names of the real-time signals, which are their numbers.
const REALTIME_NAMES: [&str; 33] = [
    "32", "33", "34", "35", "36", "37", "38", "39", "40", "41", "42", "43", "44", "45", "46", "47", "48",
    "49", "50", "51", "52", "53", "54", "55", "56", "57", "58", "59", "60", "61", "62", "63", "64",
];

/// The C library's `SIGRTMIN` and `SIGRTMAX` on Linux (glibc), which `kill -l` counts
/// from: `RTMIN+1` is 35, `RTMAX-1` is 63.
const RTMIN: i32 = 34;
const RTMAX: i32 = 64;

impl Signal {
    fn entry(self) -> Option<&'static (Signal, &'static str, i32, DefaultAction)> {
        NAMED.iter().find(|(s, ..)| *s == self)
    }

    /// The name without `SIG`, e.g. `TERM`; a real-time signal, which has no name,
    /// by its number, e.g. `34`.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Realtime(rt) => REALTIME_NAMES[(rt.number() - Realtime::MIN) as usize],
            named => named.entry().map_or("", |(_, name, ..)| name),
        }
    }

    /// Whether it has a name of its own (every signal but the real-time ones).
    pub fn is_named(self) -> bool {
        !matches!(self, Signal::Realtime(_))
    }

    /// The signal number on Linux.
    pub fn number(self) -> i32 {
        match self {
            Signal::Realtime(rt) => rt.number(),
            named => named.entry().map_or(0, |(_, _, n, _)| *n),
        }
    }

    /// What it does to a process that does not handle it.
    pub fn default_action(self) -> DefaultAction {
        match self {
            Signal::Realtime(_) => DefaultAction::Terminate,
            named => named
                .entry()
                .map_or(DefaultAction::Terminate, |(.., action)| *action),
        }
    }

    /// Whether it ends a process that does not handle it: a process can die by it.
    pub fn ends_process(self) -> bool {
        matches!(
            self.default_action(),
            DefaultAction::Terminate | DefaultAction::Core
        )
    }

    /// Whether a process that does not handle it dumps core (when its core size
    /// limit allows).
    pub fn dumps_core(self) -> bool {
        self.default_action() == DefaultAction::Core
    }

    /// Parses a name as `kill -l` prints it, with or without `SIG`, in any case
    /// (`TERM`, `SIGTERM`, `term`, `SIGRTMIN+2`, `RTMAX`), another common name
    /// (`IOT`, `CLD`, `POLL`) or a number from 1 to 64 (`15`, `34`). `RTMIN` and
    /// `RTMAX` count as the C library counts them on Linux: `RTMIN` is 34.
    pub fn parse(text: &str) -> Option<Signal> {
        let upper = text.trim().to_ascii_uppercase();
        let name = upper.strip_prefix("SIG").unwrap_or(&upper);
        if let Some(found) = NAMED.iter().find(|(_, n, ..)| *n == name) {
            return Some(found.0);
        }
        if let Some((_, signal)) = ALIASES.iter().find(|(n, _)| *n == name) {
            return Some(*signal);
        }
        let offset = |rest: &str| -> Option<i32> {
            match rest {
                "" => Some(0),
                digits if digits.bytes().all(|b| b.is_ascii_digit()) && digits.len() <= 2 => {
                    digits.parse().ok()
                }
                _ => None,
            }
        };
        let number = if let Some(rest) = name.strip_prefix("RTMIN") {
            RTMIN + offset(rest.strip_prefix('+').unwrap_or(rest))?
        } else if let Some(rest) = name.strip_prefix("RTMAX") {
            RTMAX - offset(rest.strip_prefix('-').unwrap_or(rest))?
        } else if !name.is_empty() && name.len() <= 2 && name.bytes().all(|b| b.is_ascii_digit()) {
            name.parse().ok()?
        } else {
            return None;
        };
        // `RTMIN+n` and `RTMAX-n` name only the C library's real-time signals.
        if name.starts_with("RT") && !(RTMIN..=RTMAX).contains(&number) {
            return None;
        }
        Signal::from_number(number)
    }

    /// The signal with this number on Linux, 1 to 64.
    pub fn from_number(number: i32) -> Option<Signal> {
        match Realtime::new(number) {
            Some(rt) => Some(Signal::Realtime(rt)),
            None => NAMED.iter().find(|(_, _, n, _)| *n == number).map(|(s, ..)| *s),
        }
    }

    /// Every named signal (1 to 31), in order of number, for listings. The
    /// real-time ones are [`Signal::every`]'s last.
    pub fn all() -> impl Iterator<Item = Signal> {
        NAMED.iter().map(|(s, ..)| *s)
    }

    /// Every signal, 1 to 64, in order of number.
    pub fn every() -> impl Iterator<Item = Signal> {
        (1..=Realtime::MAX).filter_map(Signal::from_number)
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How stdout writes are split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunking {
    /// Every write at most this many bytes, across line boundaries.
    Size(usize),
    /// Writes split at seeded random offsets.
    Random,
}

/// How the frames of a plan are to be written: what the executor needs besides
/// the frames themselves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Delivery {
    /// Frames are written at their time, each stdout line on its own (not only when the
    /// buffer fills). Untimed, frames go as fast as the streams take them, whatever
    /// their time says (stalls still last as long as they say).
    pub timed: bool,
    /// Split stdout writes (`chunk` fault).
    pub chunking: Option<Chunking>,
    /// Write several lines at once even when timed (`coalesce` fault): up to this
    /// many lines share a write, at the time of the last.
    pub coalesce: Option<usize>,
    /// The seed of random choices (`chunk:random`).
    pub seed: u64,
    /// Step mode: wait for one byte from this file (a FIFO, `/dev/fd/N`) before each
    /// stdout line. At its end of file, the rest goes without waiting.
    pub step: Option<std::path::PathBuf>,
    /// End at once on SIGTERM and SIGINT, and report which came: the plan can wait.
    pub signals: bool,
}

/// One frame, or the error that ends the stream.
pub type FrameResult = Result<Frame, CassetteError>;

/// A stream of frames; it ends with a [`Frame::End`] or an error.
pub type Frames = Box<dyn Iterator<Item = FrameResult>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_parse_by_name_and_number() {
        for signal in Signal::every() {
            assert_eq!(Signal::parse(signal.name()), Some(signal));
            assert_eq!(Signal::parse(&format!("SIG{}", signal.name())), Some(signal));
            assert_eq!(Signal::parse(&signal.number().to_string()), Some(signal));
            assert_eq!(Signal::from_number(signal.number()), Some(signal));
        }
        assert_eq!(Signal::every().count(), 64);
        assert_eq!(Signal::all().count(), 31);
        assert_eq!(Signal::parse("term"), Some(Signal::Term));
        assert_eq!(Signal::parse("NOPE"), None);
        assert_eq!(Signal::parse("0"), None);
        assert_eq!(Signal::parse("65"), None);
        assert_eq!(Signal::parse("iot"), Some(Signal::Abrt));
        assert_eq!(Signal::parse("POLL"), Some(Signal::Io));
    }

    /// The names and numbers of `kill -l` on Linux (bash, glibc).
    #[test]
    fn names_and_numbers_are_those_of_kill_l() {
        let kill_l = "1) SIGHUP 2) SIGINT 3) SIGQUIT 4) SIGILL 5) SIGTRAP 6) SIGABRT 7) SIGBUS 8) SIGFPE 9) SIGKILL 10) SIGUSR1 11) SIGSEGV 12) SIGUSR2 13) SIGPIPE 14) SIGALRM 15) SIGTERM 16) SIGSTKFLT 17) SIGCHLD 18) SIGCONT 19) SIGSTOP 20) SIGTSTP 21) SIGTTIN 22) SIGTTOU 23) SIGURG 24) SIGXCPU 25) SIGXFSZ 26) SIGVTALRM 27) SIGPROF 28) SIGWINCH 29) SIGIO 30) SIGPWR 31) SIGSYS 34) SIGRTMIN 35) SIGRTMIN+1 36) SIGRTMIN+2 37) SIGRTMIN+3 38) SIGRTMIN+4 39) SIGRTMIN+5 40) SIGRTMIN+6 41) SIGRTMIN+7 42) SIGRTMIN+8 43) SIGRTMIN+9 44) SIGRTMIN+10 45) SIGRTMIN+11 46) SIGRTMIN+12 47) SIGRTMIN+13 48) SIGRTMIN+14 49) SIGRTMIN+15 50) SIGRTMAX-14 51) SIGRTMAX-13 52) SIGRTMAX-12 53) SIGRTMAX-11 54) SIGRTMAX-10 55) SIGRTMAX-9 56) SIGRTMAX-8 57) SIGRTMAX-7 58) SIGRTMAX-6 59) SIGRTMAX-5 60) SIGRTMAX-4 61) SIGRTMAX-3 62) SIGRTMAX-2 63) SIGRTMAX-1 64) SIGRTMAX";
        let mut pairs = kill_l.split_whitespace();
        while let (Some(number), Some(name)) = (pairs.next(), pairs.next()) {
            let number: i32 = number.trim_end_matches(')').parse().expect("a number");
            let signal = Signal::parse(name).unwrap_or_else(|| panic!("{name} parses"));
            assert_eq!(signal.number(), number, "{name}");
            if number < Realtime::MIN {
                assert_eq!(format!("SIG{signal}"), name);
            } else {
                assert_eq!(signal.name(), number.to_string());
                assert!(!signal.is_named());
            }
        }
        assert_eq!(
            Signal::parse("RTMIN+16"),
            Some(Signal::parse("RTMAX-14").expect("parses"))
        );
        assert_eq!(Signal::parse("RTMIN+31"), None);
        assert_eq!(Signal::parse("RTMAX-31"), None);
    }

    #[test]
    fn core_dumping_signals_are_those_of_signal_7() {
        let core: Vec<&str> = Signal::every()
            .filter(|s| s.dumps_core())
            .map(Signal::name)
            .collect();
        assert_eq!(
            core,
            ["QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "SEGV", "XCPU", "XFSZ", "SYS"]
        );
        let lasting: Vec<&str> = Signal::every()
            .filter(|s| !s.ends_process())
            .map(Signal::name)
            .collect();
        assert_eq!(
            lasting,
            ["CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "WINCH"]
        );
    }

    #[test]
    fn every_signal_of_a_status_is_kept() {
        use std::os::unix::process::ExitStatusExt;
        for signal in Signal::every() {
            let status = std::process::ExitStatus::from_raw(signal.number());
            assert_eq!(Exit::from_status(status), Exit::Signal(signal));
        }
        assert_eq!(
            Exit::from_status(std::process::ExitStatus::from_raw(3 << 8)),
            Exit::Code(3)
        );
    }
}
