//! A cassette file played from its index, and one changed while it plays.

use crate::acp::profile::testing::PROFILE;
use serde_json::json;

use super::tests::request as request_line;
use super::*;
use crate::acp::wire::{self, stop_reasons, updates};
use crate::cassette;

/// The client's prompt.
fn prompt() -> String {
    prompt_of(r#""p""#)
}

/// A prompt of the client's with this id.
fn prompt_of(id: &str) -> String {
    let params = json!({"sessionId": "s", "prompt": []});
    String::from_utf8(request_line(id, methods::SESSION_PROMPT, &params)).expect("utf-8")
}

/// The script a cassette of the tests opens to.
#[track_caller]
fn cassette_script(opened: Result<Option<Script>, CassetteError>) -> Script {
    opened.expect("opens").expect("an ACP cassette")
}

/// The cassette with the line of the update that says `chunk` broken (its first
/// bytes not JSON).
fn broken_at(text: &str, chunk: &str) -> Vec<u8> {
    let line = text
        .find(chunk)
        .and_then(|at| text[..at].rfind('\n'))
        .expect("an update");
    let mut broken = text.as_bytes().to_vec();
    broken[line + 1..line + 6].fill(b'#');
    broken
}

/// `a` and `b` are the same (said without printing megabytes when they differ).
#[track_caller]
fn assert_same<T: PartialEq>(a: &[T], b: &[T], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    let differ = a.iter().zip(b).position(|(a, b)| a != b);
    assert_eq!(differ, None, "{what}: {differ:?} differs");
}

/// Two scripts' replies are the same, step by step.
#[track_caller]
fn assert_same_replies(a: &[Result<Vec<Step>, String>], b: &[Result<Vec<Step>, String>]) {
    assert_eq!(a.len(), b.len());
    for (i, (a, b)) in a.iter().zip(b).enumerate() {
        assert_same(
            a.as_ref().expect("plays"),
            b.as_ref().expect("plays"),
            &format!("reply {i}"),
        );
    }
}

/// A frame of a line of JSON-RPC that went `dir` (`in`, `out`), at `t` if given.
fn frame(t: Option<u64>, dir: &str, line: &[u8]) -> String {
    let line = String::from_utf8_lossy(line);
    match t {
        Some(t) => format!(r#"{{"t":{t},"{dir}":{line}}}"#),
        None => format!(r#"{{"{dir}":{line}}}"#),
    }
}

/// A cassette of every kind of frame, one long turn crossing the read buffer many
/// times (one update longer than the buffer), and a short exchange after it.
fn cassette() -> String {
    let ask = json!({"sessionId": "s"});
    let mut c = vec![
        r#"{"mock_agent_cassette":2,"invocation":{"acp":true}}"#.to_owned(),
        r#"{"t":1,"err":"starting"}"#.to_owned(),
        frame(Some(2), "in", &rpc::request(0, methods::INITIALIZE, &json!({}))),
        frame(
            Some(3),
            "out",
            &rpc::response("0", &json!({"protocolVersion": 1})),
        ),
        r#"{"t":4,"in":"not json-rpc"}"#.to_owned(),
        frame(Some(10), "in", &rpc::request(1, methods::SESSION_PROMPT, &ask)),
    ];
    for i in 0..3_000 {
        let text = if i == 1_500 {
            "é".repeat(200_000)
        } else {
            format!("chunk {i} naïve \"q\"")
        };
        let update = wire::text_chunk(updates::AGENT_MESSAGE_CHUNK, &text);
        let line = rpc::notification(
            methods::SESSION_UPDATE,
            &json!({"sessionId": "s", "update": update}),
        );
        c.push(frame(Some(11 + i / 100), "out", &line));
        if i % 700 == 0 {
            c.push(r#"{"out":"a line that is not JSON"}"#.to_owned());
            c.push(r#"{"out_b64":"/w=="}"#.to_owned());
            c.push(r#"{"stall_ms":5}"#.to_owned());
        }
    }
    let set_mode = json!({"sessionId": "s", "modeId": "ask"});
    c.extend([
        frame(
            Some(50),
            "out",
            &rpc::request(7, methods::REQUEST_PERMISSION, &ask),
        ),
        frame(Some(60), "in", &rpc::response("7", &wire::selected("allow-once"))),
        frame(Some(61), "in", &rpc::notification(methods::SESSION_CANCEL, &ask)),
        r#"{"t":62,"err":"stopping"}"#.to_owned(),
        frame(
            Some(63),
            "out",
            &rpc::response("1", &wire::stop(stop_reasons::CANCELLED)),
        ),
        String::new(),
        frame(
            Some(70),
            "in",
            &rpc::request(2, methods::SESSION_SET_MODE, &set_mode),
        ),
        frame(None, "out", &rpc::response("2", &json!({}))),
        r#"{"t":80,"exit":0}"#.to_owned(),
    ]);
    c.join("\n") + "\n"
}

fn write(text: &str) -> tempfile::TempPath {
    let path = tempfile::Builder::new()
        .suffix(".cassette")
        .tempfile()
        .expect("a temp file")
        .into_temp_path();
    std::fs::write(&path, text).expect("writes");
    path
}

fn request(line: &str) -> Message<'_> {
    Message::parse(line.as_bytes()).expect("parses")
}

/// Every reply of a script to the requests of the cassette's client.
fn replies(script: &mut Script) -> Vec<Result<Vec<Step>, String>> {
    let mut replies = vec![script
        .start()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())];
    let lines: Vec<String> = [
        request_line(r#""i""#, methods::INITIALIZE, &json!({})),
        prompt().into_bytes(),
        request_line(
            r#""m""#,
            methods::SESSION_SET_MODE,
            &json!({"sessionId": "s", "modeId": "ask"}),
        ),
    ]
    .into_iter()
    .map(|line| String::from_utf8(line).expect("utf-8"))
    .collect();
    for line in &lines {
        let reply = script.reply(&request(line));
        replies.push(
            reply
                .steps
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string()),
        );
    }
    replies
}

#[test]
fn a_cassette_file_plays_from_its_index_as_the_recording_held_in_memory() {
    let path = write(&cassette());
    let mut file = cassette_script(Script::open(&path, &PROFILE));
    let mut memory = Script::new(cassette::open(&path).expect("opens"), &PROFILE).expect("cuts");
    let (from_file, in_memory) = (replies(&mut file), replies(&mut memory));
    assert_same_replies(&from_file, &in_memory);
    let turn = in_memory[2].as_ref().expect("the turn");
    // The updates, the lines that are not JSON, the permission request, its
    // answer, the cancel, stderr, the response with the live id.
    assert_eq!(turn.len(), 3_000 + 5 * 2 + 5);
    assert_eq!(
        turn.last(),
        Some(&Step::Send {
            at: Duration::from_millis(53),
            line: rpc::response(r#""p""#, &wire::stop(stop_reasons::CANCELLED))
        })
    );
    assert!(turn
        .iter()
        .any(|s| matches!(s, Step::Send { line, .. } if line.len() > 400_000)));
    assert!(turn.iter().any(|s| matches!(s, Step::Await { wait: Wait::Answer { method, .. }, .. } if method == methods::REQUEST_PERMISSION)));
    assert_eq!(file.ending(), Exit::Code(0));
}

#[test]
fn a_cassette_changed_after_it_was_indexed_fails_to_play_with_an_error() {
    // Cut short: the size says so before a byte is read.
    let path = write(&cassette());
    let mut script = cassette_script(Script::open(&path, &PROFILE));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .expect("opens");
    file.set_len(4_000).expect("truncates");
    let error = script
        .reply(&request(&prompt()))
        .steps
        .find_map(Result::err)
        .expect("an error");
    let text = error.to_string();
    assert!(
        text.contains(":7: file cut short: the cassette changed while mock-agent replayed it"),
        "{text}"
    );
    assert_eq!(error.exit_code(), crate::exit_codes::INVALID_INPUT);

    // Written over in place, its size and time kept: the frames say so.
    let text = cassette();
    let path = write(&text);
    let modified = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .expect("mtime");
    let mut script = cassette_script(Script::open(&path, &PROFILE));
    std::fs::write(&path, broken_at(&text, "chunk 2000")).expect("writes");
    let file = std::fs::File::options().write(true).open(&path).expect("opens");
    file.set_modified(modified).expect("keeps the time");
    let steps: Vec<_> = script.reply(&request(&prompt())).steps.collect();
    let error = steps
        .last()
        .and_then(|s| s.as_ref().err())
        .expect("ends with an error");
    assert!(error.to_string().contains("invalid JSON"), "{error}");
    assert!(steps.len() > 2_000, "the frames before it play");
}

/// What `steps` play, a line of text a step: an agent message as `out LINE`, any
/// other step as it prints; with `runs`, the messages that runs hand over in one
/// piece are taken so ([`Steps::run`], responses among them when `runs` says) and
/// counted.
fn transcript(mut steps: Steps, runs: Option<bool>) -> (Vec<Vec<u8>>, usize) {
    let (mut told, mut in_runs, mut run) = (Vec::new(), 0, Vec::new());
    loop {
        if let Some(responses) = runs {
            let count = steps.run(&mut run, 64 << 10, responses).expect("reads");
            if count > 0 {
                in_runs += count;
                let lines = run.strip_suffix(b"\n").expect("each line ends");
                told.extend(lines.split(|b| *b == b'\n').map(|l| [b"out ", l].concat()));
                assert_eq!(lines.split(|b| *b == b'\n').count(), count);
                run.clear();
                continue;
            }
        }
        match steps.next() {
            None => break,
            Some(Ok(Step::Send { line, .. })) => told.push([b"out ".as_slice(), &line].concat()),
            Some(step) => told.push(format!("{:?}", step.expect("plays")).into_bytes()),
        }
    }
    (told, in_runs)
}

#[test]
fn a_turn_s_runs_cut_out_of_the_file_play_as_its_steps_do() {
    let path = write(&cassette());
    // Each of: a live prompt id that is not the recorded one (its response is made
    // live, so it is no run's), and the recorded one; runs with and without responses.
    for (id, responses) in [(r#""p""#, false), (r#""p""#, true), ("1", true), ("1", false)] {
        let prompt = prompt_of(id);
        let play = |runs| {
            let mut script = cassette_script(Script::open(&path, &PROFILE));
            let _ = script.start().count();
            // The recorded `initialize` was id 0: a live id 0 keeps every id as recorded.
            let initialize = if id == "1" { "0" } else { r#""i""# };
            let _ = script.reply(&request(&initialize_of(initialize))).steps.count();
            transcript(script.reply(&request(&prompt)).steps, runs)
        };
        let ((stepped, none), (ran, in_runs)) = (play(None), play(Some(responses)));
        assert_eq!(none, 0);
        assert!(
            in_runs > 2_900,
            "{id}: most of the turn's updates come in runs: {in_runs}"
        );
        assert_same(&stepped, &ran, &format!("{id} {responses}: line"));
        let last = ran.last().expect("a response");
        assert!(last.starts_with(format!(r#"out {{"jsonrpc":"2.0","id":{id},"#).as_bytes()));
    }
}

fn initialize_of(id: &str) -> String {
    String::from_utf8(request_line(id, methods::INITIALIZE, &json!({}))).expect("utf-8")
}

/// A cassette indexed as a large one is (its agent messages that ask nothing skipped in
/// runs, not parsed) plays the same steps, in steps or in runs, as one checked in full.
#[test]
fn a_cassette_indexed_in_runs_plays_as_one_indexed_a_frame_at_a_time() {
    let path = write(&cassette());
    let open = |preflight| cassette_script(Script::open_over(&path, &PROFILE, preflight));
    let (mut checked, mut skimmed) = (open(crate::cassette::PREFLIGHT_LIMIT), open(0));
    let sections = |s: &Script| {
        let sections = s.exchanges.iter().map(|e| (e.section.frames, e.section.until));
        sections.collect::<Vec<_>>()
    };
    assert_eq!(sections(&checked), sections(&skimmed));
    let (a, b) = (replies(&mut checked), replies(&mut skimmed));
    assert_same_replies(&a, &b);
    // The permission request inside the turn was indexed (it is awaited).
    assert!(b[2]
        .as_ref()
        .expect("the turn")
        .iter()
        .any(|s| matches!(s, Step::Await { wait: Wait::Answer { method, .. }, .. } if method == methods::REQUEST_PERMISSION)));
}

/// In a run with responses (every live id the recorded one) the lines are not looked
/// at: the index says where the agent's requests are, and none is in a run (its
/// answer is awaited), whether the index was made a frame at a time or in runs.
#[test]
fn no_request_of_the_agent_s_is_in_a_run() {
    let path = write(&cassette());
    for preflight in [crate::cassette::PREFLIGHT_LIMIT, 0] {
        let mut script = cassette_script(Script::open_over(&path, &PROFILE, preflight));
        let _ = script.start().count();
        let _ = script.reply(&request(&initialize_of("0"))).steps.count();
        let prompt = prompt_of("1");
        let mut steps = script.reply(&request(&prompt)).steps;
        let (mut in_runs, mut asked_alone, mut run) = (0, 0, Vec::new());
        loop {
            if steps.run(&mut run, 64 << 10, true).expect("reads") > 0 {
                for line in run.strip_suffix(b"\n").expect("ends").split(|b| *b == b'\n') {
                    in_runs += 1;
                    let kind = Message::parse(line).map(|m| m.kind);
                    assert_ne!(kind, Some(Kind::Request), "{}", String::from_utf8_lossy(line));
                }
                run.clear();
                continue;
            }
            match steps.next() {
                None => break,
                Some(Ok(Step::Send { line, .. })) => {
                    if Message::parse(&line).is_some_and(|m| m.kind == Kind::Request) {
                        asked_alone += 1;
                    }
                }
                Some(step) => drop(step.expect("plays")),
            }
        }
        assert_eq!(asked_alone, 1, "the permission request is a step of its own");
        assert!(in_runs > 2_900, "{in_runs}");
    }
}

/// An agent message told to ask nothing at a glance is no request; a request is never
/// told so, whatever spells its keys.
#[test]
fn a_request_is_never_told_to_ask_nothing() {
    let asks = Asks::default();
    let lines: [&[u8]; 12] = [
        br#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"id":"x"}}}"#,
        br#"{"jsonrpc":"2.0","method":"session/update","params":{"t":"a \"q\" \r"}}"#,
        br#"{"jsonrpc":"2.0","method":"session/update","params":{}}"#,
        br#"{"jsonrpc":"2.0","method":"session/request_permission","params":{},"id":4}"#,
        br#"{"jsonrpc":"2.0","method":"fs/read_text_file","params":{"t":"\\"},"\u0069d":4}"#,
        br#"{"jsonrpc":"2.0","method":"x","params":{"t":"\\u0069d"},"id":"a"}"#,
        br#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}"#,
        br#"{"jsonrpc":"2.0","id":3,"result":{"method":"nested"}}"#,
        br#"{"jsonrpc":"2.0","id":3,"\u006dethod":"terminal/create","params":{}}"#,
        br#"{"jsonrpc":"2.0","id":3,"method":"terminal/create","params":{}}"#,
        br#"{"id":3,"jsonrpc":"2.0","method":"terminal/create"}"#,
        br#"{"jsonrpc":"2.0","id":3,"result":{"t":"\"q\" \\ \r"}}"#,
    ];
    let mut told = Vec::new();
    for line in lines {
        let request = Message::parse(line).is_some_and(|m| m.kind == Kind::Request);
        let may = asks.may_ask(line);
        assert!(may || !request, "{}", String::from_utf8_lossy(line));
        told.push(may);
    }
    // What is surely no request is told so at a glance.
    assert_eq!(
        told,
        [false, false, false, true, true, true, false, false, true, true, true, false]
    );
}

/// An `initialize` of a client that offers files and a terminal (nothing the agent
/// asks for is left out), or one that offers nothing.
fn initialize_offering(id: &str, all: bool) -> String {
    let params = json!({"protocolVersion": 1, "clientCapabilities": {
        "fs": {"readTextFile": all, "writeTextFile": all}, "terminal": all
    }});
    String::from_utf8(request_line(id, methods::INITIALIZE, &params)).expect("utf-8")
}

/// The script of the cassette at `path` read as it plays, after its start and the
/// `initialize` of a client that offers everything.
fn started_lazily(path: &std::path::Path) -> Script {
    let mut script = cassette_script(Script::open_lazily_over(path, &PROFILE, 0));
    let _ = script.start().count();
    let init = initialize_offering("0", true);
    let _ = script.reply(&request(&init)).steps.count();
    script
}

/// What a script does: its start, then each reply to `requests` (its steps as a
/// transcript, in runs when `runs` says, and its divergence); a step is dropped
/// unplayed past `drop_after` steps of a reply.
fn played(script: &mut Script, requests: &[String], runs: Option<bool>, drop_after: usize) -> Vec<String> {
    let mut told = vec![format!("{:?}", transcript(script.start(), runs).0.len())];
    for line in requests {
        let reply = script.reply(&request(line));
        let steps = if drop_after == usize::MAX {
            transcript(reply.steps, runs).0
        } else {
            let mut steps = reply.steps;
            (0..drop_after)
                .map_while(|_| steps.next())
                .map(|s| format!("{s:?}").into_bytes())
                .collect()
        };
        let digest = steps.iter().fold(crate::digest::FNV1A_OFFSET, |h, line| {
            crate::digest::fnv1a_from(h, line)
        });
        told.push(format!(
            "{} steps, {digest:x}, {:?}, {:?}",
            steps.len(),
            reply.divergence,
            reply.recorded_session
        ));
    }
    told
}

/// A large cassette is read once, as it plays: each section indexed as its steps are
/// read. In any order of requests, with or without runs, whether the client offers
/// what the agent asks for or not (then the section is indexed before it plays),
/// it plays as the same cassette indexed in full first.
#[test]
fn a_cassette_read_as_it_plays_plays_as_one_indexed_first() {
    let path = write(&cassette());
    let set_mode = String::from_utf8(request_line(
        r#""m""#,
        methods::SESSION_SET_MODE,
        &json!({"sessionId": "s", "modeId": "ask"}),
    ))
    .expect("utf-8");
    let other_session = String::from_utf8(request_line(
        r#""o""#,
        methods::SESSION_PROMPT,
        &json!({"sessionId": "other", "prompt": []}),
    ))
    .expect("utf-8");
    for all in [true, false] {
        let init = initialize_offering("0", all);
        let orders: [Vec<String>; 4] = [
            vec![init.clone(), prompt(), set_mode.clone()],
            vec![init.clone(), set_mode.clone(), prompt(), prompt()],
            vec![
                set_mode.clone(),
                init.clone(),
                other_session.clone(),
                set_mode.clone(),
            ],
            vec![prompt(), init.clone(), set_mode.clone()],
        ];
        for (n, requests) in orders.iter().enumerate() {
            for runs in [None, Some(false), Some(true)] {
                for drop_after in [usize::MAX, 20] {
                    let mut first = cassette_script(Script::open_over(
                        &path,
                        &PROFILE,
                        crate::cassette::PREFLIGHT_LIMIT,
                    ));
                    let mut read_on = cassette_script(Script::open_lazily_over(&path, &PROFILE, 0));
                    assert!(read_on.exchanges.is_empty() && read_on.reading.is_some());
                    let (a, b) = (
                        played(&mut first, requests, runs, drop_after),
                        played(&mut read_on, requests, runs, drop_after),
                    );
                    assert_eq!(
                        a, b,
                        "order {n}, offers all {all}, runs {runs:?}, drop {drop_after}"
                    );
                }
            }
        }
    }
}

/// The turn of a client that offers what the agent asks for is read as it plays, in
/// runs (its requests are no run's): the file was not read to its end before.
#[test]
fn a_turn_read_as_it_plays_comes_in_runs() {
    let path = write(&cassette());
    let mut script = started_lazily(&path);
    let prompt = prompt_of("1");
    let steps = script.reply(&request(&prompt)).steps;
    assert!(script.reading.is_some(), "the turn is read as it plays");
    let (told, in_runs) = transcript(steps, Some(true));
    assert!(in_runs > 2_900, "{in_runs}");
    let asked = told.iter().filter(|l| {
        l.strip_prefix(b"out ".as_slice())
            .and_then(Message::parse)
            .is_some_and(|m| m.kind == Kind::Request)
    });
    assert_eq!(asked.count(), 1, "the permission request is a step of its own");
    // The turn's steps found the request after it.
    script.catch_up();
    assert!(script
        .exchanges
        .iter()
        .any(|e| e.method == methods::SESSION_SET_MODE));
}

/// A large cassette broken in a section fails where it is broken (its line and
/// column), after the steps before it: as the preflight of a small one says it.
#[test]
fn a_large_cassette_broken_in_a_turn_fails_there_as_it_plays() {
    let broken = broken_at(&cassette(), "chunk 2000");
    let path = write(std::str::from_utf8(&broken).expect("utf-8"));
    let checked = Script::open(&path, &PROFILE).expect_err("a small one is checked first");
    let mut script = started_lazily(&path);
    let steps: Vec<_> = script.reply(&request(&prompt())).steps.collect();
    let error = steps
        .last()
        .and_then(|s| s.as_ref().err())
        .expect("ends with an error");
    assert_eq!(error.to_string(), checked.to_string());
    assert!(steps.len() > 2_000, "the frames before it play");
}

/// Where nobody reads the replies' divergences, a client with a terminal and no files
/// has the agent's file requests left out as the section is read (not indexed
/// first): the same steps as when it was indexed first, and no word of it.
#[test]
fn a_request_the_client_lacks_is_left_out_as_it_is_found() {
    let text = cassette();
    let at = text
        .find("chunk 1000")
        .and_then(|at| text[..at].rfind('\n'))
        .expect("an update");
    let read = rpc::request(
        8,
        methods::FS_READ_TEXT_FILE,
        &json!({"sessionId": "s", "path": "/a"}),
    );
    let inserted = [
        frame(Some(20), "out", &read),
        frame(Some(20), "in", &rpc::response("8", &json!({"content": "x"}))),
    ]
    .join("\n");
    let path = write(&format!("{}\n{inserted}{}", &text[..at], &text[at..]));
    let init = {
        let params = json!({"protocolVersion": 1, "clientCapabilities": {
            "fs": {"readTextFile": false, "writeTextFile": false}, "terminal": true
        }});
        String::from_utf8(request_line("0", methods::INITIALIZE, &params)).expect("utf-8")
    };
    let prompt = prompt_of("1");
    for runs in [None, Some(false), Some(true)] {
        let turn = |script: &mut Script| {
            let _ = script.start().count();
            let _ = script.reply(&request(&init)).steps.count();
            let reply = script.reply(&request(&prompt));
            // Read as it plays: the request after it is not found yet.
            script.catch_up();
            let unread = !script
                .exchanges
                .iter()
                .any(|e| e.method == methods::SESSION_SET_MODE);
            (transcript(reply.steps, runs).0, reply.divergence, unread)
        };
        let mut first = cassette_script(Script::open_over(
            &path,
            &PROFILE,
            crate::cassette::PREFLIGHT_LIMIT,
        ));
        let mut read_on = cassette_script(Script::open_lazily_over(&path, &PROFILE, 0));
        read_on.divergences_unread();
        let ((a, said, _), (b, unsaid, unread)) = (turn(&mut first), turn(&mut read_on));
        assert!(unread, "the turn is read as it plays");
        assert!(said.is_some_and(|s| s.contains(methods::FS_READ_TEXT_FILE)));
        assert_eq!(unsaid, None);
        assert_same(&a, &b, &format!("{runs:?}: line"));
        assert!(!b
            .iter()
            .any(|l| l.ends_with(&read) || l == &[b"out ".as_slice(), &read].concat()));
        assert!(a.len() > 3_000);
    }
}
