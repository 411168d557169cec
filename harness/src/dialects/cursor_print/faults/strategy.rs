//! Print mode's faults as proptest draws them (on the skeleton of
//! [`crate::faults::strategy`]).

use proptest::prelude::*;

use super::typed::{Anchor, Fault, Placement, Preset};
use crate::dialects::cursor_print::events::event_type;
use crate::faults::strategy::{cut, placed, Drawn};
use crate::frames::{Chunking, Signal};

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
            text: super::typed::NOISE.to_owned(),
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
            let parsed = super::super::parse(&drawn.spec, crate::faults::FROM_ENV).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(parsed, drawn.faults);
        }
    }

    #[test]
    fn every_unplaced_fault_is_what_its_text_parses_to() {
        for drawn in unplaced() {
            assert_eq!(
                super::super::parse(&drawn.spec, crate::faults::FROM_ENV).expect("parses"),
                drawn.faults,
                "{}",
                drawn.spec
            );
        }
    }
}
