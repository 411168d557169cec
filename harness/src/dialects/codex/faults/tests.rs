//! The faults acting on what `codex exec --json` writes, and the presets ending as
//! `REAL-CODEX.md` records the real CLI's failures.

use serde_json::{json, Value};

use super::*;
use crate::dialects::codex::session::default_session;
use crate::dialects::codex::wire::messages;

fn injector(spec: &str) -> Injector {
    Injector::new(parse(spec, FROM_ENV).expect("faults"))
}

fn line(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).expect("JSON")
}

fn values(outs: &[Out]) -> Vec<Value> {
    outs.iter()
        .filter_map(|o| match o {
            Out::Line(l) => serde_json::from_slice(l).ok(),
            _ => None,
        })
        .collect()
}

fn played(spec: &str) -> Vec<Out> {
    written(
        &default_session("/work"),
        &parse(spec, FROM_ENV).expect("faults"),
        0,
    )
}

#[test]
fn eof_cuts_the_turn_s_end() {
    let mut faults = injector("eof:byte=5");
    assert_eq!(faults.line(line(&json!({"type": events::TURN_STARTED}))).len(), 1);
    let out = faults.line(line(&json!({"type": events::TURN_COMPLETED})));
    assert_eq!(out, vec![Out::Cut(br#"{"typ"#.to_vec()), Out::End(Exit::Code(1))]);
}

#[test]
fn at_takes_an_item_type_and_after_counts_lines() {
    let mut faults = injector("exit:code=3,at=command_execution;unknown:after=1");
    assert_eq!(
        faults.line(line(&json!({"type": events::THREAD_STARTED}))).len(),
        1
    );
    let second = faults.line(line(&json!({"type": events::TURN_STARTED})));
    assert_eq!(second[0], Out::Line(unknown_line(Unknown::Event)));
    let started =
        json!({"type": events::ITEM_STARTED, "item": {"id": "item_0", "type": items::COMMAND_EXECUTION}});
    assert_eq!(faults.line(line(&started)), vec![Out::End(Exit::Code(3))]);
    assert!(faults.report().iter().all(|(_, acted)| *acted));
}

#[test]
fn a_clean_run_ends_with_turn_completed_and_exit_0() {
    let outs = played("");
    let lines = values(&outs);
    assert_eq!(lines[0]["type"], events::THREAD_STARTED);
    assert_eq!(lines.last().expect("lines")["type"], events::TURN_COMPLETED);
    assert_eq!(outs.last(), Some(&Out::End(Exit::Code(0))));
}

#[test]
fn presets_end_as_the_real_cli() {
    // 401: five reconnects, then `error` and `turn.failed` with one message, exit 1.
    let outs = played("unauthorized");
    let lines = values(&outs);
    let reconnects = lines
        .iter()
        .filter(|l| {
            l["type"] == events::ERROR
                && l["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("Reconnecting... "))
        })
        .count();
    assert_eq!(reconnects, 5);
    let (error, failed) = (&lines[lines.len() - 2], &lines[lines.len() - 1]);
    assert_eq!(error["type"], events::ERROR);
    assert_eq!(failed["type"], events::TURN_FAILED);
    assert_eq!(error["message"], failed["error"]["message"]);
    assert!(failed["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("401 Unauthorized")));
    assert!(!lines.iter().any(|l| l["type"] == events::ITEM_COMPLETED));
    assert_eq!(outs.last(), Some(&Out::End(Exit::Code(1))));

    let lines = values(&played("rate-limited"));
    assert_eq!(
        lines.last().expect("a line")["error"]["message"],
        messages::RATE_LIMITED
    );

    // An unknown model: the warning item before `turn.started`.
    let lines = values(&played("unknown-model"));
    assert_eq!(lines[1]["item"]["type"], items::ERROR);
    assert_eq!(lines[2]["type"], events::TURN_STARTED);

    // A failed last call: the work before it, not the final message.
    let lines = values(&played("turn-failed:text=boom"));
    assert!(lines
        .iter()
        .any(|l| l["item"]["type"] == items::COMMAND_EXECUTION));
    assert!(!lines
        .iter()
        .any(|l| l["item"]["text"] == "Created made.txt and notes.md."));
    assert_eq!(lines.last().expect("a line")["error"]["message"], "boom");

    // A cut stream: the partial message again on each of the five retries.
    let lines = values(&played("stream-cut"));
    let partials = lines
        .iter()
        .filter(|l| l["item"]["text"] == "Created made.tx")
        .count();
    assert_eq!(partials, 6);
    assert_eq!(
        lines.last().expect("a line")["error"]["message"],
        messages::STREAM_CUT
    );
}

#[test]
fn huge_is_as_long_as_asked_and_malformed_is_not_json() {
    assert_eq!(huge_line(2_000_000).len(), 2_000_000);
    assert!(serde_json::from_slice::<Value>(&malformed_line()).is_err());
    assert!(malformed_line().starts_with(b"{\"type\":"));
    assert!(serde_json::from_slice::<Value>(&unknown_line(Unknown::Item)).is_ok());
}

#[test]
fn unreached_faults_act_at_the_end() {
    crate::faults::lines::assert_unreached_act_at_the_end(|spec| injector(spec).end());
}

/// `turn-failed` without its text fails the turn as the full context window does
/// (app-server tells it `contextWindowExceeded`, exec by its message); with a text, as
/// any other failure.
#[test]
fn a_turn_failed_by_default_is_the_full_context_window() {
    for (spec, failure) in [
        ("turn-failed", Failure::ContextWindow),
        (
            "turn-failed:text=boom",
            Failure::Other {
                message: "boom".into(),
            },
        ),
    ] {
        let mut session = default_session("/work");
        injector(spec).prepare(&mut session);
        assert!(
            session
                .turns
                .iter()
                .all(|t| t.end == End::Failed(failure.clone())),
            "{spec}: {:?}",
            session.turns
        );
    }
}
