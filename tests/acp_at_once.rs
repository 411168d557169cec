//! Server mode's plain runs (no fault, no timing, no step mode): the agent's messages
//! that follow one another are gathered in runs, cut out of the cassette's read buffer
//! (no journal) and handed to the writer whole, into a grown stdout pipe. They write
//! what the same replay a message at a time writes (a timing that waits for nothing
//! makes it so), for a cassette checked in full first and for one over
//! `PREFLIGHT_LIMIT` (read as it plays), with the recorded ids and with live ones.

use std::path::Path;

use harness::acp::rpc::{self, Kind, Message};
use harness::cassette::PREFLIGHT_LIMIT;
use harness::frames::{Frame, Stream};

use crate::support::{converse, mock_std, repeated_frames, root, text};

/// cassettes/acp/edit.cassette with its prompt's updates (the lines between the
/// prompt and its response) repeated `repeats` times, times kept in order.
fn long_turn(to: &Path, repeats: usize) {
    let is = |stream: Stream| move |f: &Frame| matches!(f, Frame::Line(l) if l.stream == stream);
    let updates = |frames: &[Frame]| {
        let prompt = frames.iter().rposition(is(Stream::Stdin)).expect("a prompt");
        let response = frames.iter().rposition(is(Stream::Stdout)).expect("its response");
        prompt + 1..response
    };
    let edit = root().join("cassettes/acp/edit.cassette");
    repeated_frames(&edit, to, |frames| (updates(frames), repeats), None);
}

/// The recorded client's requests, each with its recorded id or a live one.
fn requests(cassette: &Path, live: bool) -> String {
    let reader = harness::cassette::open(cassette).expect("opens");
    let mut lines = String::new();
    for frame in reader {
        if let Frame::Line(line) = frame.expect("reads") {
            let request = Message::parse(&line.bytes).filter(|m| m.kind == Kind::Request);
            if line.stream == Stream::Stdin && request.is_some() {
                let bytes = match live {
                    true => rpc::with_id(&line.bytes, &format!("\"live-{}\"", lines.lines().count())),
                    false => line.bytes.clone(),
                };
                lines.push_str(&text(&bytes));
                lines.push('\n');
            }
        }
    }
    lines
}

#[test]
fn a_plain_run_writes_what_a_replay_a_message_at_a_time_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    for repeats in [3, 9_000] {
        let cassette = dir.path().join(format!("{repeats}.cassette"));
        long_turn(&cassette, repeats);
        let large = std::fs::metadata(&cassette).expect("written").len() > PREFLIGHT_LIMIT;
        assert_eq!(large, repeats > 3, "{repeats} repeats");
        for live in [false, true] {
            let requests = requests(&cassette, live);
            assert_eq!(requests.lines().count(), 3, "{requests}");
            let play = |timing: Option<&str>| {
                let mut cmd = mock_std();
                cmd.arg("acp").env("MOCK_AGENT_CASSETTE", &cassette);
                if let Some(timing) = timing {
                    cmd.env("MOCK_AGENT_TIMING", timing);
                }
                converse(cmd, &requests, |_| None)
            };
            let at_once = play(None);
            let one_by_one = play(Some("scale=0"));
            let what = format!("{repeats} repeats, live ids {live}");
            assert!(at_once.status.success(), "{what}: {}", text(&at_once.stderr));
            assert!(at_once.stdout.len() > repeats * 1500, "{what}");
            assert!(at_once.stdout == one_by_one.stdout, "{what}: stdout differs");
            assert_eq!(text(&at_once.stderr), text(&one_by_one.stderr), "{what}");
            assert_eq!(at_once.status.code(), one_by_one.status.code(), "{what}");
            // The prompt's response comes last, with the id it was asked with.
            let last = text(&at_once.stdout).lines().last().map(str::to_owned);
            let id = if live { "\"live-2\"" } else { "2" };
            assert!(
                last.as_deref()
                    .is_some_and(|l| l.contains(&format!("\"id\":{id},\"result\""))),
                "{what}: {last:?}"
            );
        }
    }
}
