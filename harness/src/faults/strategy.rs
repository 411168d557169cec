//! Typed fault strategies: a dialect's faults as proptest draws them, typed as the
//! parser makes them, each with its text in the grammar (what `MOCK_AGENT_FAULTS` is
//! given to replay it). One skeleton ([`Drawn`], [`cut`], [`list`]) serves every
//! dialect; [`print()`] is print mode's, `harness::dialects::cursor_acp::faults::strategy` server mode's.

use std::fmt::Display;

use proptest::prelude::*;

use super::{Anchor, Fault, Placement, Preset};
use crate::dialects::cursor_print::events::event_type;
use crate::frames::{Chunking, Signal};

/// One item of a fault list as a strategy draws it: its text in the grammar, and the
/// typed faults it stands for (several for a preset).
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn<F> {
    /// The item in the grammar, e.g. `eof:after=3,byte=10`.
    pub spec: String,
    /// Its faults, as the dialect's parser makes them of `spec`.
    pub faults: Vec<F>,
}

impl<F> Drawn<F> {
    /// One fault, written `spec`.
    pub fn one(spec: impl Into<String>, fault: F) -> Self {
        Drawn {
            spec: spec.into(),
            faults: vec![fault],
        }
    }

    /// Several faults (a preset), written `spec`.
    pub fn many(spec: impl Into<String>, faults: Vec<F>) -> Self {
        Drawn {
            spec: spec.into(),
            faults,
        }
    }

    /// A fault placed at `place`, written `name:{place}` (or `name:{keys},{place}`).
    fn placed<P: Display>(name: &str, keys: &str, place: P, fault: impl FnOnce(P) -> F) -> Self {
        let spec = match keys {
            "" => format!("{name}:{place}"),
            keys => format!("{name}:{keys},{place}"),
        };
        Drawn::one(spec, fault(place))
    }
}

/// The items' texts and their faults, in order.
pub fn split<F>(items: Vec<Drawn<F>>) -> (Vec<String>, Vec<F>) {
    let mut specs = Vec::with_capacity(items.len());
    let mut faults = Vec::new();
    for item in items {
        specs.push(item.spec);
        faults.extend(item.faults);
    }
    (specs, faults)
}

/// Lists of 0 to `max` items of `item`: their texts and their faults.
pub fn list<F: Clone + std::fmt::Debug>(
    item: impl Strategy<Value = Drawn<F>>,
    max: usize,
) -> impl Strategy<Value = (Vec<String>, Vec<F>)> {
    prop::collection::vec(item, 0..=max).prop_map(split)
}

/// A place, and whether (and after how many bytes, below 120) the line is cut there:
/// `(place, byte)`, for the cutting faults of every dialect.
pub fn cut<P: Clone + std::fmt::Debug>(
    place: impl Strategy<Value = P> + Clone,
) -> impl Strategy<Value = (P, Option<usize>)> + Clone {
    (place, prop::option::of(0usize..120))
}

/// The fault `fault` at each place `places` draws, written `name:{place}` (or
/// `name:{keys},{place}`).
pub fn placed<P, F>(
    places: impl Strategy<Value = P> + Clone,
    name: &'static str,
    keys: &'static str,
    fault: fn(P) -> F,
) -> impl Strategy<Value = Drawn<F>> + Clone
where
    P: Display + Clone + std::fmt::Debug,
    F: Clone + std::fmt::Debug,
{
    places.prop_map(move |p| Drawn::placed(name, keys, p, fault))
}

/// Print mode's faults, in the placements that matter: every fault and preset.
pub fn print() -> impl Strategy<Value = Drawn<Fault>> {
    let anchor = prop_oneof![
        Just(Anchor::After(0)),
        (1usize..12).prop_map(Anchor::After),
        prop::sample::select(vec![
            event_type::ASSISTANT,
            event_type::TOOL_CALL,
            event_type::RESULT,
            "end"
        ])
        .prop_map(|at| match at {
            "end" => Anchor::End,
            at => Anchor::At(at.to_owned()),
        }),
    ];
    let placement = anchor.clone().prop_map(|anchor| Placement { anchor, byte: None });
    let cut = cut(anchor).prop_map(|(anchor, byte)| Placement { anchor, byte });
    let on = |name, keys, fault: fn(Placement) -> Fault| placed(placement.clone(), name, keys, fault);
    prop_oneof![
        placed(cut.clone(), "eof", "", |at| Fault::Eof { at }),
        placed(cut.clone(), "signal", "name=TERM", |at| Fault::Signal {
            signal: Signal::Term,
            at
        }),
        (1u32..30, cut).prop_map(|(ms, p)| Drawn::placed("stall", &format!("ms={ms}"), p, |at| {
            Fault::Stall {
                duration: Some(std::time::Duration::from_millis(ms.into())),
                at,
            }
        })),
        on("malformed", "", |at| Fault::Malformed { at }),
        on("noise", "", |at| Fault::Noise {
            text: super::print::NOISE.to_owned(),
            at
        }),
        on("duplicate", "", |at| Fault::Duplicate { at }),
        on("unknown-event", "", |at| Fault::UnknownEvent { at }),
        on("stderr", "text=oops", |at| Fault::Stderr {
            text: "oops".to_owned(),
            at
        }),
        on("huge", "bytes=70000", |at| Fault::Huge { bytes: 70_000, at }),
        prop::sample::select(unplaced()),
    ]
}

/// Print mode's faults drawn as they are, not placed.
fn unplaced() -> Vec<Drawn<Fault>> {
    let drop = |kind: &str| Drawn::one(format!("drop:type={kind}"), Fault::Drop { kind: kind.into() });
    let default =
        |name: &str, fault: fn(Placement) -> Fault| Drawn::one(name, fault(Placement::default_of(name)));
    let preset = |name: &str| {
        let faults = Preset::from_name(name).map_or_else(Vec::new, |p| p.faults(None));
        Drawn::many(name, faults)
    };
    vec![
        drop(event_type::RESULT),
        drop(event_type::TOOL_CALL),
        drop(event_type::ASSISTANT),
        // Not `exit:code=0`: on a run without a result, only a misbehaving agent does
        // that (see `expect::misbehaving_of`); fuzzing draws what the real CLI does.
        Drawn::one("exit:code=1", Fault::Exit { code: 1 }),
        Drawn::one("reorder", Fault::Reorder),
        default("unknown-field", |at| Fault::UnknownField { at }),
        Drawn::one("crlf", Fault::Crlf),
        default("invalid-utf8", |at| Fault::InvalidUtf8 { at }),
        Drawn::one("chunk:size=7", Fault::Chunk(Chunking::Size(7))),
        Drawn::one("chunk:random", Fault::Chunk(Chunking::Random)),
        Drawn::one("coalesce", Fault::Coalesce),
        Drawn::one(
            "stderr-flood:bytes=100000",
            Fault::StderrFlood {
                bytes: 100_000,
                at: Placement::default_of("stderr-flood"),
            },
        ),
        preset("auth-required"),
        preset("trust-required"),
        preset("quota"),
        preset("unknown-model"),
        preset("session-in-use"),
        preset("connection-lost"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest! {
        #[test]
        fn a_drawn_fault_is_what_its_text_parses_to(drawn in print()) {
            let parsed = super::super::parse(&drawn.spec, super::super::FROM_ENV).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(parsed, drawn.faults);
        }
    }

    #[test]
    fn every_unplaced_fault_is_what_its_text_parses_to() {
        for drawn in unplaced() {
            assert_eq!(
                super::super::parse(&drawn.spec, super::super::FROM_ENV).expect("parses"),
                drawn.faults,
                "{}",
                drawn.spec
            );
        }
    }
}
