//! Timing: when each frame is written.
//!
//! Given as `MOCK_AGENT_TIMING` or `--timing`, comma-separated:
//!
//! | item | meaning |
//! | --- | --- |
//! | `instant` | everything at once, as fast as the pipe takes it (the default) |
//! | `recorded` | the gaps of the recording (`t` of a cassette, `timestamp_ms` of a capture) |
//! | `scale=F` | recorded gaps times F (implies `recorded`) |
//! | `fixed=MS` | one stdout line (agent message) every MS milliseconds after the one before |
//! | `jitter=MS` | each stdout line up to MS later, at random (seeded) |
//! | `first-byte=MS` | nothing before MS milliseconds; the schedule starts then |
//!
//! e.g. `recorded,scale=0.5,jitter=3`. Random choices take the seed
//! (`MOCK_AGENT_SEED`, `--seed`): the same seed gives the same delays.
//!
//! One [`Clock`] says when each step is due, for print mode's plans
//! ([`Timing::apply`]) and server mode's conversations alike; its documentation says
//! what each item does in both.

use std::time::Duration;

use crate::error::{Diagnostic, Origin};
use crate::frames::{Frame, FrameResult, Frames, Stream};

/// The base schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Base {
    /// All at once.
    Instant,
    /// The recorded times, scaled.
    Recorded {
        /// The factor on recorded times.
        scale: f64,
    },
    /// One stdout line every so often.
    Fixed(Duration),
}

/// When each frame is written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// The base schedule.
    pub base: Base,
    /// Up to this much later, for each stdout line.
    pub jitter: Duration,
    /// Nothing before this.
    pub first_byte: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            base: Base::Instant,
            jitter: Duration::ZERO,
            first_byte: Duration::ZERO,
        }
    }
}

/// What a bad timing spec is told to do.
const HELP: &str =
    "timing is instant, recorded, scale=F, fixed=MS, jitter=MS, first-byte=MS, joined by commas";

impl Timing {
    /// Timing from the environment of the program under test.
    pub const FROM_ENV: Origin<'static> = Origin {
        name: "MOCK_AGENT_TIMING",
        help: HELP,
    };

    /// Timing from `--timing` on the mock's own command line.
    pub const FROM_FLAG: Origin<'static> = Origin {
        name: "--timing",
        help: HELP,
    };

    /// Parses `recorded,scale=0.5,jitter=3`.
    pub fn parse(spec: &str, origin: Origin<'_>) -> Result<Timing, Diagnostic> {
        let mut timing = Timing::default();
        let mut base: Option<(&str, usize)> = None;
        let mut scale: Option<f64> = None;
        let mut offset = 0;
        for item in spec.split(',') {
            let column = offset + 1 + (item.len() - item.trim_start().len());
            offset += item.len() + 1;
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let fail = |message: String| origin.error(spec, column, message);
            let (key, value) = match item.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (item, None),
            };
            let millis = |value: Option<&str>| -> Result<Duration, Diagnostic> {
                let text = value.ok_or_else(|| fail(format!("`{key}` needs a value: `{key}=MS`")))?;
                match text.parse::<f64>().ok().and_then(crate::cassette::millis_f64) {
                    Some(d) => Ok(d),
                    None => Err(fail(format!("`{key}={text}`: {key} is milliseconds, 0 or more"))),
                }
            };
            let mut set_base = |name: &'static str| match base {
                Some((other, _)) if other != name => Err(fail(format!(
                    "`{name}` and `{other}` are two schedules; give one"
                ))),
                _ => {
                    base = Some((name, column));
                    Ok(())
                }
            };
            match key {
                "instant" if value.is_none() => set_base("instant")?,
                "recorded" if value.is_none() => set_base("recorded")?,
                "fixed" => {
                    set_base("fixed")?;
                    timing.base = Base::Fixed(millis(value)?);
                }
                "scale" => {
                    let text = value.ok_or_else(|| fail("`scale` needs a value: `scale=F`".into()))?;
                    match text.parse::<f64>() {
                        Ok(f) if f.is_finite() && f >= 0.0 => scale = Some(f),
                        _ => return Err(fail(format!("`scale={text}`: scale is a factor, 0 or more"))),
                    }
                }
                "jitter" => timing.jitter = millis(value)?,
                "first-byte" => timing.first_byte = millis(value)?,
                _ => {
                    return Err(fail(format!(
                        "unknown timing `{item}`; use instant, recorded, scale=F, fixed=MS, jitter=MS, first-byte=MS"
                    )))
                }
            }
        }
        match (base.map(|(name, _)| name), scale) {
            (Some("instant"), Some(_)) => {
                let column = base.map_or(1, |(_, c)| c);
                return Err(origin.error(
                    spec,
                    column,
                    "`scale` applies to recorded times; `instant` has none",
                ));
            }
            (Some("recorded"), _) | (None, Some(_)) => {
                timing.base = Base::Recorded {
                    scale: scale.unwrap_or(1.0),
                }
            }
            _ => {}
        }
        Ok(timing)
    }

    /// Rewrites the time of every frame for this timing. Random delays come from `seed`.
    ///
    /// The plan of a print-mode run is a script with no waits: each frame is due when
    /// [`Clock::due`] says, the clock never rebased.
    pub fn apply(self, frames: Frames, seed: u64) -> Frames {
        Box::new(Schedule {
            inner: frames,
            clock: Clock::new(self, seed),
        })
    }
}

/// The one clock of both modes: when each step of a script is due, on the live clock
/// (from the start of the run).
///
/// A script is what the agent does: messages (stdout lines in print mode, agent
/// messages in server mode), stderr lines and the end, each at its recorded time, and
/// waits for the client in between (server mode only). The clock counts from a *base*:
/// the start of the run, then (server mode) the arrival of each request and the end of
/// each wait ([`Clock::rebase`]). A print-mode plan is a script with no waits: one
/// base, the start. Given the same timing, seed and gaps from the base, print mode and
/// server mode compute the same due times.
///
/// - `instant`: every step is due at the base.
/// - `recorded`, `scale=F`: the base plus the recorded gap from the base, times F. A
///   product past what a [`Duration`] holds saturates at [`Duration::MAX`] (a wait for
///   ever), never a panic: `scale=1e300` is a very slow run.
/// - `fixed=MS`: **one message every MS after the previous message**, and never before
///   the base (the agent cannot answer a request before it comes): the first message
///   of a run is due at the base, and a reply to a request that comes long after the
///   last message is due at once. Stderr lines and the end come with the message
///   before them. Why: it is the rule print mode always had (lines at 0, MS, 2 MS, ...),
///   and the one a reader of "one line every MS" expects of a conversation too; the
///   alternative, MS after each request, made a reply's first message late by MS in
///   server mode only.
/// - `jitter=MS`: each message up to MS later, at random (seeded). The delay is the
///   message's own: it does not push the messages after it later (they keep their
///   schedule), but none is ever due before the one before it.
/// - `first-byte=MS`: **the agent is ready MS after it starts: no base is before MS**.
///   Nothing, stdout or stderr, is written before MS, and in print mode the whole
///   schedule moves MS later (the recorded gaps, or the fixed spacing, are kept after
///   the first byte). In server mode this delays the steps of what the client asks
///   before MS (the reply to `initialize`), and nothing after. Why: "time to first
///   byte" is a slow start; a clamp that put every line recorded before MS at MS
///   would lose the gaps of the start of the recording, and a delay of every reply
///   would be a slower agent, which `scale` already is.
///
/// Every due time is at or after the one before it: steps keep their order.
#[derive(Debug, Clone)]
pub struct Clock {
    timing: Timing,
    rng: fastrand::Rng,
    /// The base on the live clock.
    base: Duration,
    /// The base on the recording's clock.
    base_recorded: Duration,
    /// When the last message was due, before its jitter: `fixed` counts from it.
    last_message: Option<Duration>,
    /// The last due time given.
    last: Duration,
}

impl Clock {
    /// A clock for `timing`, its random delays drawn from `seed`; the base is the start
    /// of the run on both clocks.
    pub fn new(timing: Timing, seed: u64) -> Clock {
        Clock {
            timing,
            rng: fastrand::Rng::with_seed(seed),
            base: Duration::ZERO,
            base_recorded: Duration::ZERO,
            last_message: None,
            last: Duration::ZERO,
        }
    }

    /// Steps count from here on: `live` on the live clock is `recorded` on the
    /// recording's (a request came, a wait ended).
    ///
    /// What was due after `live` and is not yet sent never will be (a cancel
    /// interrupted it): it holds nothing back.
    pub fn rebase(&mut self, live: Duration, recorded: Duration) {
        self.base = live;
        self.base_recorded = recorded;
        self.last = live;
        self.last_message = self.last_message.map(|last| last.min(live));
    }

    /// When the step recorded at `recorded` (on the recording's clock) is due on the
    /// live clock. `message`: a stdout line, an agent message (what `fixed` spaces and
    /// `jitter` delays); else a stderr line or the end.
    pub fn due(&mut self, recorded: Duration, message: bool) -> Duration {
        let ready = self.base.max(self.timing.first_byte);
        let mut due = match self.timing.base {
            Base::Instant => ready,
            Base::Recorded { scale } => {
                ready.saturating_add(scaled(recorded.saturating_sub(self.base_recorded), scale))
            }
            Base::Fixed(every) if message => {
                let due = self
                    .last_message
                    .map_or(ready, |last| ready.max(last.saturating_add(every)));
                self.last_message = Some(due);
                due
            }
            Base::Fixed(_) => ready,
        };
        if message && !self.timing.jitter.is_zero() {
            let max = u64::try_from(self.timing.jitter.as_micros()).unwrap_or(u64::MAX);
            due = due.saturating_add(Duration::from_micros(self.rng.u64(0..=max)));
        }
        let due = due.max(self.last);
        self.last = due;
        due
    }
}

/// `gap` times `scale`, saturating at [`Duration::MAX`].
pub fn scaled(gap: Duration, scale: f64) -> Duration {
    Duration::try_from_secs_f64(gap.as_secs_f64() * scale).unwrap_or(Duration::MAX)
}

struct Schedule {
    inner: Frames,
    clock: Clock,
}

impl Iterator for Schedule {
    type Item = FrameResult;

    fn next(&mut self) -> Option<FrameResult> {
        let frame = match self.inner.next()? {
            Ok(frame) => frame,
            Err(e) => return Some(Err(e)),
        };
        let message = matches!(&frame, Frame::Line(l) if l.stream == Stream::Stdout);
        let at = self.clock.due(frame.at(), message);
        Some(Ok(frame.with_at(at)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::{Ending, Exit, Line};

    const ORIGIN: Origin<'static> = Timing::FROM_ENV;

    fn times(spec: &str, recorded: &[u64], seed: u64) -> Vec<u64> {
        let timing = Timing::parse(spec, ORIGIN).expect("parses");
        let mut frames: Vec<FrameResult> = recorded
            .iter()
            .map(|ms| Ok(Frame::Line(Line::stdout(Duration::from_millis(*ms), "{}"))))
            .collect();
        frames.push(Ok(Frame::End(Ending {
            at: Duration::from_millis(recorded.last().copied().unwrap_or(0)),
            exit: Exit::Code(0),
        })));
        timing
            .apply(Box::new(frames.into_iter()), seed)
            .map(|f| u64::try_from(f.expect("ok").at().as_millis()).unwrap_or(u64::MAX))
            .collect()
    }

    #[test]
    fn schedules() {
        assert_eq!(times("instant", &[0, 10, 30], 0), [0, 0, 0, 0]);
        assert_eq!(times("", &[0, 10, 30], 0), [0, 0, 0, 0]);
        assert_eq!(times("recorded", &[0, 10, 30], 0), [0, 10, 30, 30]);
        assert_eq!(times("scale=0.5", &[0, 10, 30], 0), [0, 5, 15, 15]);
        assert_eq!(times("fixed=7", &[0, 10, 30], 0), [0, 7, 14, 14]);
        assert_eq!(times("recorded,first-byte=100", &[0, 10], 0), [100, 110, 110]);
        // Ten lines: the first at 100 ms, the last at 100 + 9 x 20 ms.
        let ten = times("fixed=20,first-byte=100", &[0; 10], 0);
        assert_eq!(ten, [100, 120, 140, 160, 180, 200, 220, 240, 260, 280, 280]);
        let jittered = times("recorded,jitter=5", &[0, 10, 30], 42);
        assert_eq!(jittered, times("recorded,jitter=5", &[0, 10, 30], 42), "seeded");
        let others: Vec<Vec<u64>> = (0..8)
            .map(|seed| times("recorded,jitter=5", &[0, 10, 30], seed))
            .collect();
        assert!(
            others.iter().any(|o| *o != jittered),
            "another seed, other delays"
        );
        assert!(jittered.windows(2).all(|w| w[0] <= w[1]), "{jittered:?}");
        assert!(jittered
            .iter()
            .zip([0, 10, 30, 30])
            .all(|(j, r)| *j >= r && *j <= r + 5));
    }

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn a_huge_scale_saturates() {
        // 1e300 times any gap is past what a Duration holds: a wait for ever, no panic.
        let mut clock = Clock::new(Timing::parse("scale=1e300", ORIGIN).expect("parses"), 0);
        assert_eq!(clock.due(MS(0), true), MS(0));
        assert_eq!(clock.due(MS(1), true), Duration::MAX);
        assert_eq!(clock.due(MS(2), false), Duration::MAX);
        let mut clock = Clock::new(
            Timing::parse("scale=1e300,first-byte=5,jitter=5", ORIGIN).expect("parses"),
            3,
        );
        clock.rebase(Duration::MAX - MS(1), MS(0));
        assert_eq!(clock.due(MS(7), true), Duration::MAX);
        assert_eq!(scaled(Duration::MAX, 2.0), Duration::MAX);
        assert_eq!(times("scale=1e300", &[0, 10], 0), [0, u64::MAX, u64::MAX]);
    }

    /// The due times of steps recorded at `recorded` ms, played as server mode plays
    /// a reply: the clock rebased where the live client's request came (`live` ms),
    /// the recorded times counted from the request (`at` ms on the recording).
    fn served(spec: &str, seed: u64, live: u64, at: u64, recorded: &[(u64, bool)]) -> Vec<u64> {
        let mut clock = Clock::new(Timing::parse(spec, ORIGIN).expect("parses"), seed);
        clock.rebase(MS(live), MS(at));
        recorded
            .iter()
            .map(|(ms, message)| clock.due(MS(*ms), *message).as_millis() as u64)
            .collect()
    }

    #[test]
    fn print_mode_and_server_mode_keep_the_same_time() {
        // Print mode: a plan of stdout lines at 0, 10 and 30 ms, then the end.
        // Server mode: the same gaps in a reply to a request at 0 ms.
        let steps = [(0, true), (10, true), (30, true), (30, false)];
        for spec in [
            "instant",
            "recorded",
            "scale=0.5",
            "scale=1e300",
            "fixed=7",
            "fixed=7,first-byte=100",
            "recorded,first-byte=100",
            "recorded,jitter=5",
            "fixed=20,jitter=30,first-byte=3",
        ] {
            for seed in [0, 42] {
                assert_eq!(
                    times(spec, &[0, 10, 30], seed),
                    served(spec, seed, 0, 0, &steps),
                    "{spec}, seed {seed}"
                );
            }
        }
    }

    #[test]
    fn a_reply_counts_from_its_request() {
        // The request came at 1000 ms live, 400 ms on the recording.
        let reply = [(400, true), (410, false), (430, true)];
        assert_eq!(served("recorded", 0, 1000, 400, &reply), [1000, 1010, 1030]);
        assert_eq!(served("scale=2", 0, 1000, 400, &reply), [1000, 1020, 1060]);
        // first-byte: the agent is ready at 1500 ms; a later request is not delayed.
        assert_eq!(
            served("recorded,first-byte=1500", 0, 1000, 400, &reply),
            [1500, 1510, 1530]
        );
        assert_eq!(
            served("recorded,first-byte=500", 0, 1000, 400, &reply),
            [1000, 1010, 1030]
        );
        // fixed: every 7 ms after the message before; the first at once.
        assert_eq!(served("fixed=7", 0, 1000, 400, &reply), [1000, 1000, 1007]);

        // Across requests: a message 7 ms after the one before, never before its
        // request.
        let timing = Timing::parse("fixed=7", ORIGIN).expect("parses");
        let mut clock = Clock::new(timing, 0);
        let due = |clock: &mut Clock| clock.due(MS(0), true);
        assert_eq!([due(&mut clock), due(&mut clock)], [MS(0), MS(7)]);
        clock.rebase(MS(9), MS(0));
        assert_eq!(due(&mut clock), MS(14), "7 ms after the last message");
        clock.rebase(MS(100), MS(0));
        assert_eq!(due(&mut clock), MS(100), "the request came long after it");
        // A message that waited for ever and was cancelled holds nothing back.
        let mut clock = Clock::new(Timing::parse("scale=1e300", ORIGIN).expect("parses"), 0);
        assert_eq!(clock.due(MS(5), true), Duration::MAX);
        clock.rebase(MS(50), MS(0));
        assert_eq!(clock.due(MS(0), true), MS(50));
        // A jittered message does not push the next: it keeps its schedule, after it.
        let timing = Timing::parse("fixed=10,jitter=9", ORIGIN).expect("parses");
        let dues: Vec<Duration> = {
            let mut clock = Clock::new(timing, 5);
            (0..50).map(|_| clock.due(MS(0), true)).collect()
        };
        assert!(dues.windows(2).all(|w| w[0] <= w[1]), "{dues:?}");
        assert!(dues
            .iter()
            .enumerate()
            .all(|(i, d)| *d >= MS(10 * i as u64) && *d <= MS(10 * i as u64 + 9)));
    }

    #[test]
    fn bad_specs_name_the_part() {
        let err = |spec: &str| Timing::parse(spec, ORIGIN).expect_err(spec).to_string();
        assert!(err("recorded,scale=x").starts_with("MOCK_AGENT_TIMING:1:10: invalid data: `scale=x`"));
        assert!(err("fast").contains("unknown timing `fast`"));
        assert!(err("instant,recorded").contains("two schedules"));
        assert!(err("instant,scale=2").contains("`scale` applies to recorded times"));
        assert!(err("jitter").contains("`jitter` needs a value"));
    }
}
