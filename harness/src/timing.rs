//! Timing: when each frame is written.
//!
//! Given as `MOCK_AGENT_TIMING` or `--timing`, comma-separated:
//!
//! | item | meaning |
//! | --- | --- |
//! | `instant` | everything at once, as fast as the pipe takes it (the default) |
//! | `recorded` | the gaps of the recording (`t` of a cassette, `timestamp_ms` of a capture) |
//! | `scale=F` | recorded gaps times F (implies `recorded`) |
//! | `fixed=MS` | one stdout line every MS milliseconds |
//! | `jitter=MS` | each stdout line up to MS later, at random (seeded) |
//! | `first-byte=MS` | nothing before MS milliseconds |
//!
//! e.g. `recorded,scale=0.5,jitter=3`. Random choices take the seed
//! (`MOCK_AGENT_SEED`, `--seed`): the same seed gives the same delays.

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
    pub fn apply(self, frames: Frames, seed: u64) -> Frames {
        Box::new(Schedule {
            inner: frames,
            timing: self,
            rng: fastrand::Rng::with_seed(seed),
            lines: 0,
            last: Duration::ZERO,
        })
    }
}

struct Schedule {
    inner: Frames,
    timing: Timing,
    rng: fastrand::Rng,
    lines: u32,
    last: Duration,
}

impl Iterator for Schedule {
    type Item = FrameResult;

    fn next(&mut self) -> Option<FrameResult> {
        let frame = match self.inner.next()? {
            Ok(frame) => frame,
            Err(e) => return Some(Err(e)),
        };
        let stdout_line = matches!(&frame, Frame::Line(l) if l.stream == Stream::Stdout);
        let mut at = match self.timing.base {
            Base::Instant => Duration::ZERO,
            Base::Recorded { scale } => {
                Duration::try_from_secs_f64(frame.at().as_secs_f64() * scale).unwrap_or(Duration::MAX)
            }
            Base::Fixed(every) if stdout_line => every.checked_mul(self.lines).unwrap_or(Duration::MAX),
            Base::Fixed(_) => self.last.saturating_sub(self.timing.first_byte),
        };
        at = at.saturating_add(self.timing.first_byte);
        if stdout_line {
            self.lines += 1;
            if !self.timing.jitter.is_zero() {
                let max = self.timing.jitter.as_micros() as u64;
                at = at.saturating_add(Duration::from_micros(self.rng.u64(0..=max)));
            }
        }
        let at = at.max(self.last);
        self.last = at;
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
            .map(|f| f.expect("ok").at().as_millis() as u64)
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
