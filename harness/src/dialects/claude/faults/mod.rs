//! The catalogue's faults of Claude Code's dialect, applied: the presets change the
//! session before it is played ([`Injector::prepare`]), the others act on the lines
//! the CLI writes ([`Injector::line`]) and on its answers to the client's control
//! requests ([`Injector::answer`]). See its `parse` for the grammar.
//!
//! A fault that ends the run (`exit`, `signal`, `eof`) ends it "there, without a
//! result", as the catalogue says: when its place has not come by the time a result
//! is due (`exit:at=can_use_tool` and a client that is never asked, `after=50` on a
//! shorter turn), it acts there, before the result, which is not written (`eof` cuts
//! it). `at=end` is the one place after the last result. The other faults, never
//! reached, act at the end ([`Injector::end`]).

use serde_json::Value;

use super::play::{self, Options};
use super::session::{End, Session, Step};
use super::wire::{kind_of, types};
mod catalogue;
mod typed;

use super::args::OutputFormat;
pub use crate::faults::lines::Out;
use crate::faults::lines::{self, LineFault};
pub use catalogue::CATALOGUE;
pub use typed::*;

/// How the client's control request `subtype` is answered, by a fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// It never answers.
    Never,
    /// It answers with this error.
    Error(String),
}

/// What Claude Code writes on stdout, as its faults read it and write into it.
#[derive(Debug, Clone, Default)]
pub struct Lines {
    /// The session's id, for the lines the faults add (`unknown`).
    session_id: String,
}

impl lines::Stream for Lines {
    type Fault = ClaudeFault;

    const HAS_FINAL: bool = true;

    /// A line's `type`, and its `subtype` or its request's.
    fn words(&self, line: &[u8]) -> Vec<String> {
        kind_of(line).map_or_else(Vec::new, |(kind, subtype)| {
            std::iter::once(kind).chain(subtype).collect()
        })
    }

    /// `line` without the fields `missing` leaves out.
    fn rewrite(&mut self, faults: &mut [(ClaudeFault, bool)], line: Vec<u8>) -> Vec<u8> {
        let mut line = line;
        for (fault, acted) in faults {
            let ClaudeFault::Missing { field } = fault else {
                continue;
            };
            let quoted = format!("\"{field}\"");
            if !line.windows(quoted.len()).any(|w| w == quoted.as_bytes()) {
                continue;
            }
            let Ok(mut value) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            let mut removed = value
                .as_object_mut()
                .and_then(|o| o.shift_remove(field.as_str()))
                .is_some();
            if let Some(message) = value.get_mut("message").and_then(Value::as_object_mut) {
                removed |= message.shift_remove(field.as_str()).is_some();
            }
            if removed {
                *acted = true;
                line = serde_json::to_vec(&value).unwrap_or(line);
            }
        }
        line
    }

    fn is_final(&self, words: &[String]) -> bool {
        words.first().is_some_and(|kind| kind == types::RESULT)
    }

    fn malformed(&self) -> Vec<u8> {
        play::malformed_line()
    }

    fn unknown(&self, _: &()) -> Vec<u8> {
        play::unknown_line(&self.session_id)
    }

    fn huge(&self, bytes: usize) -> Vec<u8> {
        play::huge_line(bytes)
    }

    fn final_line(&self) -> Vec<u8> {
        b"{\"type\":\"result\",\"subtype\":\"success\"}".to_vec()
    }
}

/// Applies faults to one run.
pub type Injector = lines::Injector<Lines>;

/// `faults` without those that change nothing a client reading `format` sees, and
/// the names of those. In `json` and `text` the CLI prints its result alone (`text`:
/// the result's text), so a fault that adds or breaks another line (`malformed`,
/// `unknown`, `huge`), or leaves out a field the printed result does not show, has no
/// meaning there: it is not applied, and the journal says it did not act (the case
/// is not applicable to a client of that format).
pub fn shown_in(faults: Vec<ClaudeFault>, format: OutputFormat) -> (Vec<ClaudeFault>, Vec<&'static str>) {
    let hidden = |fault: &ClaudeFault| match (fault, format) {
        (_, OutputFormat::StreamJson) => false,
        (
            ClaudeFault::Line(
                LineFault::Malformed { .. } | LineFault::Unknown { .. } | LineFault::Huge { .. },
            ),
            _,
        ) => true,
        (ClaudeFault::Missing { field }, OutputFormat::Text) => field != super::wire::fields::RESULT,
        _ => false,
    };
    let (hidden, shown): (Vec<ClaudeFault>, Vec<ClaudeFault>) = faults.into_iter().partition(hidden);
    (shown, hidden.iter().map(ClaudeFault::name).collect())
}

impl Injector {
    /// The presets: every turn of `session` ends as they say. A failed login fails
    /// the turn's first API call, so the model says nothing before the synthetic
    /// message (as the real CLI: `init`, the synthetic `assistant`, the `result`).
    pub fn prepare(&mut self, session: &mut Session, options: &mut Options) {
        self.stream_mut().session_id.clone_from(&options.session_id);
        for (fault, acted) in self.faults_mut() {
            let ClaudeFault::Ending(ending) = fault else {
                continue;
            };
            *acted = true;
            let end = match ending {
                Ending::NotLoggedIn | Ending::InvalidApiKey => End::ApiError {
                    status: 401,
                    text: if *ending == Ending::NotLoggedIn {
                        NOT_LOGGED_IN
                    } else {
                        INVALID_KEY
                    }
                    .to_owned(),
                    error: AUTH_ERROR.to_owned(),
                },
                Ending::RateLimited => End::ApiError {
                    status: 429,
                    text: RATE_LIMITED.to_owned(),
                    error: RATE_LIMIT_ERROR.to_owned(),
                },
                Ending::ConnectionLost => End::ApiError {
                    status: 0,
                    text: CONNECTION_LOST.to_owned(),
                    error: SERVER_ERROR.to_owned(),
                },
                Ending::MaxTurns => {
                    options.max_turns = Some(1);
                    continue;
                }
                Ending::Error(text) => End::Error {
                    subtype: super::wire::results::ERROR_DURING_EXECUTION.to_owned(),
                    errors: vec![text.clone()],
                },
            };
            for turn in &mut session.turns {
                if matches!(end, End::ApiError { .. }) {
                    // A lost connection cuts the first answer in half (the stream
                    // ended mid-answer); a refused call answers nothing.
                    let cut = (*ending == Ending::ConnectionLost)
                        .then(|| first_half(&turn.steps))
                        .flatten();
                    turn.steps.clear();
                    turn.steps.extend(cut.map(Step::Text));
                }
                turn.end = end.clone();
            }
        }
    }

    /// How the client's control request `subtype` is answered, when a fault says.
    pub fn answer(&mut self, subtype: &str) -> Option<Answer> {
        for (fault, acted) in self.faults_mut() {
            match fault {
                ClaudeFault::NoResponse { method } if method == subtype => {
                    *acted = true;
                    return Some(Answer::Never);
                }
                ClaudeFault::Error { method, message } if method == subtype => {
                    *acted = true;
                    return Some(Answer::Error(message.clone()));
                }
                _ => {}
            }
        }
        None
    }
}

/// The first half of the turn's first text (its first character at least).
fn first_half(steps: &[Step]) -> Option<String> {
    let text = steps.iter().find_map(|step| match step {
        Step::Text(text) if !text.is_empty() => Some(text),
        _ => None,
    })?;
    let count = text.chars().count();
    Some(text.chars().take(count.div_ceil(2)).collect())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::dialects::claude::faults::{parse, FROM_ENV};
    use crate::dialects::claude::wire::{control, system, types};
    use crate::frames::Exit;

    fn injector(spec: &str) -> Injector {
        Injector::new(parse(spec, FROM_ENV).expect("faults"))
    }

    fn line(value: &Value) -> Vec<u8> {
        serde_json::to_vec(value).expect("JSON")
    }

    fn init() -> Vec<u8> {
        line(&json!({"type": types::SYSTEM, "subtype": system::INIT}))
    }

    #[test]
    fn eof_cuts_the_result() {
        let mut faults = injector("eof:byte=5");
        assert_eq!(faults.line(init()).len(), 1);
        let out = faults.line(line(&json!({"type": types::RESULT})));
        assert_eq!(out, vec![Out::Cut(br#"{"typ"#.to_vec()), Out::End(Exit::Code(1))]);
    }

    #[test]
    fn at_takes_a_request_subtype_and_after_counts_lines() {
        let mut faults = injector("exit:code=3,at=can_use_tool;unknown:after=1");
        assert_eq!(faults.line(init()).len(), 1);
        let second = faults.line(line(&json!({"type": types::ASSISTANT})));
        assert!(matches!(&second[0], Out::Line(l) if *l == play::unknown_line("")));
        let ask = faults.line(line(
            &json!({"type": types::CONTROL_REQUEST, "request": {"subtype": control::CAN_USE_TOOL}}),
        ));
        assert_eq!(ask, vec![Out::End(Exit::Code(3))]);
        assert!(faults.report().iter().all(|(_, acted)| *acted));
    }

    #[test]
    fn missing_leaves_the_field_out() {
        let mut faults = injector("missing:field=model");
        let out = faults.line(line(
            &json!({"type": types::ASSISTANT, "message": {"model": "m", "content": []}}),
        ));
        assert_eq!(
            out,
            vec![Out::Line(line(
                &json!({"type": types::ASSISTANT, "message": {"content": []}})
            ))]
        );
    }

    #[test]
    fn missing_keeps_the_order_of_the_other_fields() {
        let mut faults = injector("missing:field=num_turns");
        let out = faults.line(line(
            &json!({"type": types::RESULT, "num_turns": 2, "session_id": "s", "uuid": "u"}),
        ));
        assert_eq!(
            out,
            vec![Out::Line(line(
                &json!({"type": types::RESULT, "session_id": "s", "uuid": "u"})
            ))]
        );
    }

    #[test]
    fn huge_is_as_long_as_asked() {
        assert_eq!(play::huge_line(2_000_000).len(), 2_000_000);
    }

    #[test]
    fn presets_change_every_turn() {
        let mut session = super::super::session::default_session("/w");
        let mut options = Options::new("/w", 1);
        injector("not-logged-in").prepare(&mut session, &mut options);
        assert!(session
            .turns
            .iter()
            .all(|t| t.steps.is_empty()
                && matches!(&t.end, End::ApiError { text, .. } if text == NOT_LOGGED_IN)));
        injector("max-turns").prepare(&mut session, &mut options);
        assert_eq!(options.max_turns, Some(1));
    }

    #[test]
    fn an_ending_fault_whose_place_never_comes_acts_before_the_result() {
        let result = || line(&json!({"type": types::RESULT}));
        for spec in [
            "exit:code=1,at=can_use_tool",
            "exit:code=2,after=99",
            "signal:name=TERM,at=nothing",
        ] {
            let mut faults = injector(spec);
            assert_eq!(faults.line(init()).len(), 1, "{spec}");
            let out = faults.line(result());
            assert!(matches!(out.as_slice(), [Out::End(_)]), "{spec}: {out:?}");
            assert!(faults.report().iter().all(|(_, acted)| *acted));
        }
        let mut eof = injector("eof:at=can_use_tool,byte=5");
        assert_eq!(
            eof.line(result()),
            vec![Out::Cut(br#"{"typ"#.to_vec()), Out::End(Exit::Code(1))]
        );
        // `at=end` is after the last result; the faults that do not end the run wait
        // for the end too.
        let mut end = injector("stall:ms=5,at=nothing;exit:code=3,at=end");
        assert!(matches!(end.line(result()).as_slice(), [Out::Line(_)]));
        assert_eq!(
            end.end(),
            vec![
                Out::Stall(Some(Duration::from_millis(5))),
                Out::End(Exit::Code(3))
            ]
        );
    }

    #[test]
    fn unreached_faults_act_at_the_end() {
        crate::faults::lines::assert_unreached_act_at_the_end(|spec| injector(spec).end());
    }
}
