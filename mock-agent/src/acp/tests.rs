//! The server's clock against print mode's, on paused time.

use std::time::Duration;

use harness::acp::faults::Injector;
use harness::acp::rpc::{self, Message};
use harness::acp::wire::methods;
use harness::acp::{Conversation, Reply, Step, Steps};
use harness::frames::{Delivery, Ending, Exit, Frame, FrameResult, Line};
use harness::timing::{Clock, Timing};

use super::client::Incoming;
use super::{ServeOptions, Server};
use crate::execute::tests::Recorder;
use crate::execute::{self, ExecOptions, Output};

/// A conversation that sends its lines when it starts, then ends; or, with a reply,
/// answers each request with the reply's lines.
struct Monologue(Vec<(u64, &'static str)>, Option<Vec<(u64, &'static str)>>);

fn sends(lines: &[(u64, &'static str)]) -> Vec<Step> {
    lines
        .iter()
        .map(|(ms, text)| Step::Send {
            at: Duration::from_millis(*ms),
            line: text.as_bytes().to_vec(),
        })
        .collect()
}

impl Conversation for Monologue {
    fn start(&mut self) -> Steps {
        let mut steps = sends(&self.0);
        if self.1.is_none() {
            let at = Duration::from_millis(self.0.last().map_or(0, |l| l.0));
            steps.push(Step::End {
                at,
                exit: Exit::Code(0),
            });
        }
        Steps::from(steps)
    }

    fn reply(&mut self, _: &Message<'_>) -> Reply {
        Reply {
            steps: Steps::from(sends(self.1.as_deref().unwrap_or_default())),
            divergence: None,
            recorded_session: None,
        }
    }

    fn ending(&self) -> Exit {
        Exit::Code(0)
    }
}

/// Each line written, with the time (ms) its newline was written.
fn lines(writes: Vec<(u128, Vec<u8>)>) -> Vec<(u128, String)> {
    let mut lines = Vec::new();
    let mut line = Vec::new();
    for (ms, bytes) in writes {
        for byte in bytes {
            if byte == b'\n' {
                lines.push((ms, String::from_utf8_lossy(&line).into_owned()));
                line.clear();
            } else {
                line.push(byte);
            }
        }
    }
    lines
}

fn delivery(timing: Timing) -> ExecOptions {
    let mut delivery = Delivery::default();
    delivery.timed = timing != Timing::default();
    ExecOptions::new(delivery)
}

/// The lines print mode writes for a plan of `recorded` stdout lines, and when.
async fn printed(timing: Timing, seed: u64, recorded: &[(u64, &'static str)]) -> Vec<(u128, String)> {
    let mut frames: Vec<FrameResult> = recorded
        .iter()
        .map(|(ms, text)| Ok(Frame::Line(Line::stdout(Duration::from_millis(*ms), *text))))
        .collect();
    let at = Duration::from_millis(recorded.last().map_or(0, |l| l.0));
    frames.push(Ok(Frame::End(Ending {
        at,
        exit: Exit::Code(0),
    })));
    let mut out = Recorder::new();
    let plan = timing.apply(Box::new(frames.into_iter()), seed);
    execute::perform(plan, &mut out, Vec::new(), &delivery(timing)).await;
    lines(out.writes)
}

/// The lines server mode writes for a conversation of `recorded` agent messages, and
/// when.
async fn served(timing: Timing, seed: u64, recorded: &[(u64, &'static str)]) -> Vec<(u128, String)> {
    let (_client, inbox) = crate::execute::inbox::channel();
    let conversation = Monologue(recorded.to_vec(), None);
    serve_paused(timing, seed, conversation, inbox).await
}

/// The lines a server writes for `conversation`, the client's messages coming from
/// `inbox`, and when.
async fn serve_paused(
    timing: Timing,
    seed: u64,
    conversation: Monologue,
    inbox: crate::execute::inbox::Inbox<super::client::Incoming>,
) -> Vec<(u128, String)> {
    let mut out = Recorder::new();
    let output = Output::new(&mut out, Vec::new(), &delivery(timing)).expect("an output");
    let options = ServeOptions {
        timing,
        seed,
        ..ServeOptions::default()
    };
    let injector = Injector::new(Vec::new());
    let mut server = Server::new(Box::new(conversation), output, inbox, injector, &options);
    assert_eq!(server.run_to_end().await.ok(), Some(Exit::Code(0)));
    drop(server);
    lines(out.writes)
}

#[tokio::test(start_paused = true)]
async fn print_mode_and_server_mode_write_at_the_same_times() {
    let recorded = [(0, "a"), (10, "b"), (30, "c"), (31, "d")];
    for spec in [
        "instant",
        "recorded",
        "scale=0.5",
        "fixed=7",
        "fixed=20,first-byte=100",
        "recorded,first-byte=100",
        "recorded,jitter=5",
        "fixed=3,jitter=30,first-byte=2",
    ] {
        let timing = Timing::parse(spec, Timing::FROM_ENV).expect("parses");
        for seed in [0, 42] {
            let print = printed(timing, seed, &recorded).await;
            let server = served(timing, seed, &recorded).await;
            assert_eq!(print.len(), 4, "{spec}: {print:?}");
            assert_eq!(print, server, "{spec}, seed {seed}");
            // And when the clock says (the timer's ticks are whole milliseconds).
            let mut clock = Clock::new(timing, seed);
            let dues: Vec<u128> = recorded
                .iter()
                .map(|(ms, _)| {
                    clock
                        .due(Duration::from_millis(*ms), true)
                        .as_micros()
                        .div_ceil(1000)
                })
                .collect();
            let times: Vec<u128> = print.iter().map(|(ms, _)| *ms).collect();
            assert_eq!(times, dues, "{spec}, seed {seed}");
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_huge_scale_waits_for_ever_in_both_modes() {
    let timing = Timing::parse("scale=1e300", Timing::FROM_ENV).expect("parses");
    let recorded = [(0, "a"), (10, "b")];
    let year = Duration::from_secs(365 * 24 * 3600);
    let print = tokio::time::timeout(year, printed(timing, 0, &recorded)).await;
    let server = tokio::time::timeout(year, served(timing, 0, &recorded)).await;
    assert!(print.is_err() && server.is_err(), "still waiting a year later");
}

/// The lines server mode writes when it starts with `start`, then answers a request
/// that comes at `request` ms with `reply`, and when.
async fn replied(
    spec: &str,
    start: &[(u64, &'static str)],
    request: u64,
    reply: &[(u64, &'static str)],
) -> Vec<(u128, String)> {
    let timing = Timing::parse(spec, Timing::FROM_ENV).expect("parses");
    let (client, inbox) = crate::execute::inbox::channel();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(request)).await;
        let line = rpc::request(1, methods::SESSION_NEW, &serde_json::json!({}));
        let _ = client.send(Incoming::Line(line));
        tokio::time::sleep(Duration::from_secs(3600)).await;
        let _ = client.send(Incoming::Eof);
    });
    let conversation = Monologue(start.to_vec(), Some(reply.to_vec()));
    serve_paused(timing, 0, conversation, inbox).await
}

#[tokio::test(start_paused = true)]
async fn a_reply_is_timed_from_its_request() {
    let start = [(0, "a"), (10, "b")];
    let reply = [(0, "c"), (20, "d")];
    // (timing, when the request comes, when the four lines are written)
    let cases = [
        ("recorded", 1000, [0, 10, 1000, 1020]),
        ("scale=2", 1000, [0, 20, 1000, 1040]),
        // fixed: every MS after the message before, never before the request.
        ("fixed=300", 1000, [0, 300, 1000, 1300]),
        ("fixed=600", 1000, [0, 600, 1200, 1800]),
        // first-byte: the start waits; a request after it does not.
        ("recorded,first-byte=2000", 3000, [2000, 2010, 3000, 3020]),
    ];
    for (spec, request, expected) in cases {
        let written = replied(spec, &start, request, &reply).await;
        let times: Vec<u128> = written.into_iter().map(|(ms, _)| ms).collect();
        assert_eq!(times, expected, "{spec}");
    }
    // The reply to a request that came before the first byte waits for it.
    let early = replied("recorded,first-byte=2000", &[], 5, &reply).await;
    assert_eq!(early, [(2000, "c".to_owned()), (2020, "d".to_owned())]);
}
