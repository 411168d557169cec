//! Generated Claude Code sessions: a proptest strategy of [`Session`]s (texts,
//! thinking, tool calls that ask or not, undocumented lines, how each turn ends), and
//! the session of a seed. Shrinking makes a failing session smaller: fewer turns,
//! fewer steps, shorter texts, a success instead of an error.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::json;

use super::session::{End, Session, Step, ToolCall, Turn};
use super::wire::{results, types};

/// A piece of text: words, some of them not ASCII, sometimes a line break.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            6 => "[a-z]{1,8}",
            1 => Just("naïve".to_owned()),
            1 => Just("日本語".to_owned()),
            1 => Just("emoji 🎉".to_owned()),
            1 => Just("line\nbreak".to_owned()),
            1 => Just("\"quoted\" \\ back".to_owned()),
        ],
        1..12,
    )
    .prop_map(|words| words.join(" "))
}

fn tool() -> impl Strategy<Value = ToolCall> {
    prop_oneof![
        ("[a-z]{1,8}", text()).prop_map(|(name, content)| ToolCall {
            name: "Write".into(),
            input: json!({"file_path": format!("/work/{name}.txt"), "content": content}),
            asks: true,
            output: format!("File created successfully at: /work/{name}.txt"),
        }),
        ("[a-z]{1,8}", text()).prop_map(|(name, content)| ToolCall {
            name: "Read".into(),
            input: json!({"file_path": format!("/work/{name}.md")}),
            asks: false,
            output: content,
        }),
        (text(), any::<bool>()).prop_map(|(output, asks)| ToolCall {
            name: "Bash".into(),
            input: json!({"command": "ls -la", "description": "List files"}),
            asks,
            output,
        }),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        5 => text().prop_map(Step::Text),
        1 => text().prop_map(Step::Thinking),
        3 => tool().prop_map(Step::Tool),
        1 => prop_oneof![
            Just(json!({"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}})),
            Just(json!({"type": types::SYSTEM, "subtype": "compact_boundary", "compact_metadata": {"trigger": "auto", "pre_tokens": 1000}})),
            Just(json!({"type": types::SYSTEM, "subtype": "future_subtype", "note": "not documented"})),
        ]
        .prop_map(Step::Unknown),
    ]
}

fn end() -> impl Strategy<Value = End> {
    prop_oneof![
        8 => Just(End::Success),
        1 => Just(End::ApiError {
            status: 401,
            text: crate::faults::claude::NOT_LOGGED_IN.into(),
            error: crate::faults::claude::AUTH_ERROR.into(),
        }),
        1 => text().prop_map(|t| End::Error {
            subtype: results::ERROR_DURING_EXECUTION.into(),
            errors: vec![t],
        }),
    ]
}

/// A turn: steps that end with a text (the answer), and its end.
fn turn() -> impl Strategy<Value = Turn> {
    (prop::collection::vec(step(), 0..6), text(), end()).prop_map(|(mut steps, last, end)| {
        steps.push(Step::Text(last));
        Turn { steps, end }
    })
}

/// Generated sessions of 1 to 3 turns.
pub fn session() -> impl Strategy<Value = Session> {
    prop::collection::vec(turn(), 1..4).prop_map(|turns| Session { turns })
}

/// The session of a seed: the same on every run and machine, for one version.
pub fn from_seed(seed: u64) -> Session {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    // Not the print-mode session of the same seed: another stream of the generator.
    bytes[8..14].copy_from_slice(b"claude");
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    match session().new_tree(&mut runner) {
        Ok(tree) => tree.current(),
        // Only a filter that rejects everything fails; the strategy has none.
        Err(_) => super::session::default_session("/work"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::claude::play::{Next, Options, Player};
    use crate::dialects::claude::wire::system;

    #[test]
    fn a_seed_is_one_session() {
        assert_eq!(from_seed(7), from_seed(7));
        assert_ne!(from_seed(7), from_seed(8));
    }

    proptest! {
        #[test]
        fn every_generated_turn_is_well_formed(session in session()) {
            let mut options = Options::new("/work", 1);
            options.prompt_tool = true;
            options.states = true;
            options.partial = true;
            let mut player = Player::new(session, options);
            player.begin("hi");
            let mut results = 0;
            loop {
                match player.step() {
                    Next::Send(line) | Next::Ask { line, .. } => {
                        let value: serde_json::Value = serde_json::from_slice(&line).expect("JSON");
                        prop_assert!(value.get("type").is_some());
                        results += usize::from(value["type"] == types::RESULT);
                        prop_assert!(value["subtype"] != system::INIT || value["session_id"].is_string());
                    }
                    Next::Waiting => player.answer(Ok(json!({"behavior": "deny", "message": "no"}))),
                    Next::Done => break,
                }
            }
            prop_assert_eq!(results, 1);
        }
    }
}
