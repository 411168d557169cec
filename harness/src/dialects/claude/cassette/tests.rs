use std::time::Duration;

use serde_json::json;

use super::*;
use crate::dialects::claude::faults::{parse, FROM_ENV};
use crate::frames::{Ending, Frame, Line, Stream};

use crate::dialects::claude::wire::{behaviors, states, INTERRUPTED};

// The recorded lines, in the CLI's and the SDK's shapes.
fn init() -> String {
    json!({"type": types::CONTROL_REQUEST, "request_id": "req_1_aa", "request": {"subtype": control::INITIALIZE, "hooks": null}}).to_string()
}
fn init_answer() -> String {
    json!({"type": types::CONTROL_RESPONSE, "response": {"subtype": control::SUCCESS, "request_id": "req_1_aa", "response": {"pid": 7, "claude_code_version": "2.1.331"}}}).to_string()
}
fn prompt() -> String {
    json!({"type": types::USER, "session_id": "", "message": {"role": types::USER, "content": "hi"}, "parent_tool_use_id": null}).to_string()
}
fn state(state: &str) -> String {
    json!({"type": types::SYSTEM, "subtype": system::SESSION_STATE_CHANGED, "state": state, "sdk_host_only": true}).to_string()
}
fn running() -> String {
    state(states::RUNNING)
}
fn idle() -> String {
    state(states::IDLE)
}
fn assistant(id: &str, block: Value) -> String {
    json!({"type": types::ASSISTANT, "message": {"id": id, "model": "m", "content": [block]}}).to_string()
}
fn text() -> String {
    assistant("msg_1", json!({"type": blocks::TEXT, "text": "I'll write it."}))
}
fn tool() -> String {
    assistant(
        "msg_1",
        json!({"type": blocks::TOOL_USE, "id": "toolu_1", "name": "Write", "input": {"file_path": "/w/a.txt"}}),
    )
}
fn ask() -> String {
    json!({"type": types::CONTROL_REQUEST, "request_id": "perm-1", "request": {"subtype": control::CAN_USE_TOOL,
        "tool_name": "Write", "input": {"file_path": "/w/a.txt"}, "tool_use_id": "toolu_1"}})
    .to_string()
}
fn allow() -> String {
    json!({"type": types::CONTROL_RESPONSE, "response": {"subtype": control::SUCCESS, "request_id": "perm-1",
        "response": {"behavior": behaviors::ALLOW, "updatedInput": {"file_path": "/w/a.txt"}}}})
    .to_string()
}
fn tool_result() -> String {
    json!({"type": types::USER, "message": {"role": types::USER, "content": [{"tool_use_id": "toolu_1",
        "type": blocks::TOOL_RESULT, "content": "File created"}]}})
    .to_string()
}
fn done() -> String {
    assistant("msg_2", json!({"type": blocks::TEXT, "text": "Done."}))
}
fn result() -> String {
    json!({"type": types::RESULT, "subtype": results::SUCCESS, "is_error": false, fields::RESULT: "Done.", "num_turns": 2})
        .to_string()
}

fn line(at: u64, stream: Stream, text: &str) -> FrameResult {
    Ok(Frame::Line(Line {
        at: Duration::from_millis(at),
        stream,
        bytes: text.as_bytes().to_vec(),
        newline: true,
    }))
}

/// `(ms, ">" for the client's | "<" for the CLI's | "e" for its stderr, line)`, then
/// exit 0.
fn frames_of(lines: &[(u64, &str, String)]) -> Vec<Frame> {
    lines
        .iter()
        .map(|(at, dir, text)| {
            let stream = match *dir {
                ">" => Stream::Stdin,
                "e" => Stream::Stderr,
                _ => Stream::Stdout,
            };
            line(*at, stream, text).expect("a frame")
        })
        .chain([Frame::End(Ending {
            at: Duration::from_secs(1),
            exit: Exit::Code(0),
        })])
        .collect()
}

/// The script of `lines` (see [`frames_of`]).
fn recording(lines: &[(u64, &str, String)]) -> Script {
    Script::new(frames_of(lines).into_iter().map(Ok)).expect("script")
}

/// The lines of a whole SDK conversation: initialize, one prompt, one permission
/// allowed.
fn conversation_lines() -> Vec<(u64, &'static str, String)> {
    vec![
        (0, ">", init()),
        (5, "<", init_answer()),
        (6, ">", prompt()),
        (10, "<", running()),
        (20, "<", text()),
        (30, "<", tool()),
        (31, "<", ask()),
        (40, ">", allow()),
        (45, "<", tool_result()),
        (50, "<", done()),
        (60, "<", result()),
        (61, "<", idle()),
    ]
}

/// The script of [`conversation_lines`].
fn conversation() -> Script {
    recording(&conversation_lines())
}

/// Plays the turn, answering the CLI's requests with `answer`: the lines written.
fn play(script: &mut Script, answer: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        match script.step() {
            Next::Send(line) => out.push(String::from_utf8(line).expect("utf-8")),
            Next::Ask { id, line } => {
                assert_eq!(script.waiting_for(), Some(id.as_str()));
                out.push(String::from_utf8(line).expect("utf-8"));
            }
            Next::Waiting => script.answer(Ok(answer.clone())),
            Next::Done => return out,
        }
    }
}

#[test]
fn a_control_request_gets_the_recorded_answer_with_the_live_id() {
    let mut script = conversation();
    let (lines, at) = script
        .request(&json!("live_7"), control::INITIALIZE)
        .expect("recorded");
    assert_eq!(at, Duration::ZERO);
    assert_eq!(
        lines,
        vec![init_answer().replace("req_1_aa", "live_7").into_bytes()]
    );
    assert_eq!(script.at(), Duration::from_millis(5));
    // A second initialize: the recording has none left.
    assert!(script.request(&json!("x"), control::INITIALIZE).is_none());
    assert_eq!(script.take_divergences().len(), 1);
}

#[test]
fn a_prompt_plays_the_recorded_turn_byte_for_byte_waiting_for_the_answer() {
    let mut script = conversation();
    script.begin();
    assert_eq!(script.base(), Duration::from_millis(6));
    let mut seen = Vec::new();
    let mut waited = false;
    loop {
        match script.step() {
            Next::Send(line) => seen.push(String::from_utf8(line).expect("utf-8")),
            Next::Ask { id, line } => {
                assert_eq!(id, "perm-1");
                seen.push(String::from_utf8(line).expect("utf-8"));
            }
            Next::Waiting => {
                // Nothing more until the client answers.
                assert_eq!(script.step(), Next::Waiting);
                waited = true;
                script.answer(Ok(json!({"behavior": behaviors::ALLOW, "updatedInput": {}})));
                assert_eq!(script.base(), Duration::from_millis(40));
            }
            Next::Done => break,
        }
    }
    assert!(waited);
    assert_eq!(
        seen,
        [
            running(),
            text(),
            tool(),
            ask(),
            tool_result(),
            done(),
            result(),
            idle()
        ]
    );
    assert!(script.take_divergences().is_empty());
    assert!(!script.last_is_error());
}

#[test]
fn a_different_answer_is_a_divergence_and_the_recording_goes_on() {
    let mut script = conversation();
    script.begin();
    let lines = play(
        &mut script,
        &json!({"behavior": behaviors::DENY, "message": "no"}),
    );
    assert_eq!(lines.len(), 8);
    let divergences = script.take_divergences();
    assert_eq!(divergences.len(), 1, "{divergences:?}");
    assert!(
        divergences[0].contains("`deny`") && divergences[0].contains("`allow`"),
        "{}",
        divergences[0]
    );
}

#[test]
fn an_answer_before_its_recorded_place_is_taken() {
    let mut script = conversation();
    script.begin();
    while !matches!(script.step(), Next::Ask { .. }) {}
    script.answer(Ok(json!({"behavior": behaviors::ALLOW})));
    assert_eq!(script.waiting_for(), None);
    assert_eq!(
        play(&mut script, &json!(null)),
        [tool_result(), done(), result(), idle()]
    );
}

#[test]
fn more_prompts_than_recorded_play_the_last_turn_again() {
    let mut script = conversation();
    script.begin();
    let first = play(&mut script, &json!({"behavior": behaviors::ALLOW}));
    script.begin();
    assert_eq!(play(&mut script, &json!({"behavior": behaviors::ALLOW})), first);
    let divergences = script.take_divergences();
    assert!(divergences[0].contains("prompt 2"), "{divergences:?}");
}

#[test]
fn an_interrupt_skips_to_where_the_recorded_client_interrupted() {
    let interrupt = json!({"type": types::CONTROL_REQUEST, "request_id": "req_2_bb", "request": {"subtype": control::INTERRUPT}}).to_string();
    let answer = json!({"type": types::CONTROL_RESPONSE, "response": {"subtype": control::SUCCESS, "request_id": "req_2_bb",
        "response": {"still_queued": []}}})
    .to_string();
    let marker = json!({"type": types::USER, "message": {"role": types::USER, "content": [{"type": blocks::TEXT, "text": INTERRUPTED}]}}).to_string();
    let failed = json!({"type": types::RESULT, "subtype": results::ERROR_DURING_EXECUTION, "is_error": true, "errors": [INTERRUPTED]}).to_string();
    let mut script = recording(&[
        (0, ">", prompt()),
        (1, "<", running()),
        (2, "<", text()),
        (3, ">", interrupt),
        (4, "<", answer.clone()),
        (5, "<", marker.clone()),
        (6, "<", failed.clone()),
    ]);
    script.begin();
    assert_eq!(script.step(), Next::Send(running().into()));
    let (lines, at) = script
        .request(&json!("i1"), control::INTERRUPT)
        .expect("recorded");
    assert_eq!(lines, [answer.replace("req_2_bb", "i1").into_bytes()]);
    assert_eq!(at, Duration::from_millis(3));
    // text() was skipped: the client interrupted before it.
    assert_eq!(play(&mut script, &json!(null)), [marker.clone(), failed.clone()]);
    assert!(script.last_is_error());
    assert!(script.take_divergences().is_empty());

    // A live client that does not interrupt: the turn plays on, a divergence noted.
    script.begin();
    assert_eq!(
        play(&mut script, &json!(null)),
        [running(), text(), marker, failed]
    );
    assert_eq!(script.take_divergences().len(), 2);
}

#[test]
fn the_recording_read_as_a_session() {
    let session = conversation().session().expect("reads");
    assert_eq!(session.turns.len(), 1);
    let turn = &session.turns[0];
    assert_eq!(turn.end, End::Success);
    assert_eq!(turn.answer(), "Done.");
    let asking: Vec<_> = turn.asking().collect();
    assert_eq!(asking.len(), 1);
    assert_eq!(asking[0].name, "Write");
    assert_eq!(asking[0].output, "File created");
}

#[test]
fn the_expectation_is_the_recorded_result() {
    let script = conversation();
    let expect = |spec: &str| expectation(&script, &parse(spec, FROM_ENV).expect("faults")).0;
    assert_eq!(
        expect(""),
        Expectation::Success {
            answer: "Done.".into()
        }
    );
    for spec in ["eof", "signal", "no-response", "error:method=initialize"] {
        assert_eq!(expect(spec), Expectation::Failure, "{spec}");
    }
    let failed = recording(&[
        (0, ">", prompt()),
        (
            1,
            "<",
            json!({"type": types::RESULT, "subtype": results::SUCCESS, "is_error": true, fields::RESULT: "Not logged in"}).to_string(),
        ),
    ]);
    assert_eq!(expectation(&failed, &[]).0, Expectation::Failure);
}

#[test]
fn ids_are_made_live_in_any_spelling() {
    let spaced = |id: &str| {
        format!(
            r#"{{"type": "{}", "response": {{"request_id": {id}, "response": {{}}}}}}"#,
            types::CONTROL_RESPONSE
        )
    };
    assert_eq!(
        with_id(spaced("\"r1\"").as_bytes(), "\"r1\"", "\"live\""),
        spaced("\"live\"").into_bytes()
    );
    // An id spelled otherwise than its JSON text: the line is written again.
    let escaped = format!(
        r#"{{"type":"{}","response":{{"request_id":"\u0072\u0031"}}}}"#,
        types::CONTROL_RESPONSE
    );
    assert_eq!(
        with_id(escaped.as_bytes(), "\"r1\"", "7"),
        format!(
            r#"{{"type":"{}","response":{{"request_id":7}}}}"#,
            types::CONTROL_RESPONSE
        )
        .into_bytes()
    );
}

#[test]
fn a_cassette_of_another_dialect_is_refused() {
    let dir = std::env::temp_dir().join(format!("claude-cassette-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("acp.cassette");
    std::fs::write(
        &path,
        "{\"mock_agent_cassette\":2,\"invocation\":{\"acp\":true}}\n{\"t\":1,\"exit\":0}\n",
    )
    .expect("write");
    let error = Script::open(&path).expect_err("not claude").to_string();
    assert!(error.contains("not a recording of Claude Code"), "{error}");
    let claude = dir.join("claude.cassette");
    let header = serde_json::to_string(&header(Invocation::default())).expect("header");
    std::fs::write(
        &claude,
        format!(
            "{header}\n{{\"t\":1,\"in\":{}}}\n{{\"t\":2,\"out\":{}}}\n{{\"t\":3,\"exit\":0}}\n",
            prompt(),
            result()
        ),
    )
    .expect("write");
    let mut script = Script::open(&claude).expect("claude");
    script.begin();
    assert_eq!(script.step(), Next::Send(result().into()));
    std::fs::remove_dir_all(&dir).expect("clean");
}

/// The frames of `recording`'s lines, written as a cassette too: the script of the
/// frames in memory and the script of the file.
fn both(lines: &[(u64, &str, String)], dir: &std::path::Path) -> (Script, Script) {
    let frames = frames_of(lines);
    let path = dir.join("both.cassette");
    let mut writer = crate::cassette::Writer::create(&path, &header(Invocation::default())).expect("creates");
    for frame in &frames {
        writer.write(frame).expect("writes");
    }
    writer.finish().expect("finishes");
    let memory = Script::new(frames.into_iter().map(Ok)).expect("script");
    (memory, Script::open(&path).expect("opens"))
}

/// Plays every turn of `script` for `prompts` prompts, interrupting at the first
/// line of turn `interrupt` and answering the CLI's requests before their place:
/// what it wrote, when, and its divergences.
fn played(script: &mut Script, prompts: usize, interrupt: Option<usize>) -> Vec<String> {
    let mut out = Vec::new();
    for turn in 0..prompts {
        script.begin();
        out.push(format!("base {:?} in turn {}", script.base(), script.in_turn()));
        let mut first = true;
        loop {
            let next = script.step();
            out.push(format!("{next:?} at {:?}", script.at()));
            if first && interrupt == Some(turn) {
                let answer = script.request(&json!("live"), control::INTERRUPT);
                out.push(format!("{answer:?}"));
            }
            first = false;
            match next {
                Next::Ask { .. } => script.answer(Ok(json!({"behavior": behaviors::ALLOW}))),
                Next::Waiting => script.answer(Err("refused".into())),
                Next::Send(_) => {}
                Next::Done => break,
            }
        }
        out.extend(script.take_divergences());
        out.push(format!("error {}", script.last_is_error()));
    }
    assert!(script.take_error().is_none());
    out
}

#[test]
fn a_cassette_plays_from_the_file_as_its_frames_in_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let interrupt = json!({"type": types::CONTROL_REQUEST, "request_id": "req_2_bb", "request": {"subtype": control::INTERRUPT}}).to_string();
    let stopped = json!({"type": types::CONTROL_RESPONSE, "response": {"subtype": control::SUCCESS, "request_id": "req_2_bb",
        "response": {"still_queued": []}}})
    .to_string();
    let mut lines = conversation_lines();
    lines.extend([
        (70, ">", prompt()),
        (71, "<", running()),
        (72, "<", text()),
        (73, ">", interrupt),
        (74, "<", stopped),
        (75, "<", done()),
        (76, "<", result()),
        (77, "<", idle()),
        (80, "<", text()),
    ]);
    for (prompts, interrupt) in [(1, None), (2, None), (3, Some(1)), (2, Some(0))] {
        let (mut memory, mut file) = both(&lines, dir.path());
        assert_eq!(memory.session_id(), file.session_id());
        assert_eq!(
            played(&mut memory, prompts, interrupt),
            played(&mut file, prompts, interrupt),
            "{prompts} prompts, interrupt {interrupt:?}"
        );
        assert_eq!(memory.session().expect("reads"), file.session().expect("reads"));
        assert_eq!(expectation(&memory, &[]), expectation(&file, &[]));
    }
    // Three turns, the last line after the last result in the last.
    let (memory, _) = both(&lines, dir.path());
    assert_eq!(memory.session().expect("reads").turns.len(), 2);
}

#[test]
fn a_cassette_changed_while_it_plays_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lines = [(0, ">", prompt()), (1, "<", text()), (2, "<", result())];
    let (_, mut file) = both(&lines, dir.path());
    std::fs::write(dir.path().join("both.cassette"), "cut").expect("writes");
    file.begin();
    assert_eq!(file.step(), Next::Done);
    let error = file.take_error().expect("an error").to_string();
    assert!(error.contains("changed while mock-agent replayed it"), "{error}");
}

/// What one turn's play wrote and did: each line written with the script's time
/// after it, each step that wrote no line (its time), the divergences, and whether the
/// last result was an error.
#[derive(Debug, Default, PartialEq)]
struct Told {
    lines: Vec<(String, Duration)>,
    steps: Vec<String>,
}

/// Answers what the script asks as [`played`] does.
fn answered(script: &mut Script, next: &Next) {
    match next {
        Next::Ask { .. } => script.answer(Ok(json!({"behavior": behaviors::ALLOW}))),
        Next::Waiting => script.answer(Err("refused".into())),
        Next::Send(_) | Next::Done => {}
    }
}

/// Plays every turn one step at a time ([`Script::step`]).
fn played_in_steps(script: &mut Script, prompts: usize) -> Told {
    played_stepwise(script, prompts, None)
}

/// Plays every turn as [`played_in_steps`] does, writing a run with
/// [`Script::stream_run`] (of at most `limit` bytes) before each step. A run's lines
/// get the time the script has after it (checked against the steps' `want` for its
/// last line; each line before it is given `want`'s time).
fn played_in_runs(script: &mut Script, prompts: usize, limit: usize, want: &Told) -> Told {
    played_stepwise(script, prompts, Some((limit, want)))
}

/// Plays every turn one step at a time, with `runs` (a limit and the steps' `want`)
/// a run before each step ([`played_in_runs`]).
fn played_stepwise(script: &mut Script, prompts: usize, runs: Option<(usize, &Told)>) -> Told {
    let mut told = Told::default();
    for _ in 0..prompts {
        script.begin();
        loop {
            if let Some((limit, want)) = runs {
                let mut run = Vec::new();
                let n = script.stream_run(&mut run, limit);
                let text = String::from_utf8(run).expect("utf-8");
                assert_eq!(text.matches('\n').count() as u64, n, "{text}");
                for line in text.lines() {
                    let at = want
                        .lines
                        .get(told.lines.len())
                        .map_or(Duration::MAX, |(_, at)| *at);
                    told.lines.push((line.to_owned(), at));
                }
                if n > 0 {
                    let last = told.lines.last().map(|(_, at)| *at);
                    assert_eq!(
                        Some(script.at()),
                        last,
                        "the time after a run of {n}, limit {limit}"
                    );
                    continue;
                }
            }
            let next = script.step();
            match &next {
                Next::Send(line) | Next::Ask { line, .. } => told
                    .lines
                    .push((String::from_utf8(line.clone()).expect("utf-8"), script.at())),
                Next::Waiting | Next::Done => told.steps.push(format!("{next:?} at {:?}", script.at())),
            }
            answered(script, &next);
            if next == Next::Done {
                break;
            }
        }
        told.steps.extend(script.take_divergences());
        told.steps.push(format!("error {}", script.last_is_error()));
    }
    assert!(script.take_error().is_none());
    told
}

/// A long conversation of three turns: a long stream, lines of other kinds in it
/// (`init`, states, requests the client did not answer, stderr), an error at last.
fn long_lines() -> Vec<(u64, &'static str, String)> {
    let system_init =
        json!({"type": types::SYSTEM, "subtype": system::INIT, "session_id": "s-1", "tools": ["Write"]})
            .to_string();
    // A request of the CLI's that its client did not answer.
    let unanswered = ask().replace("perm-1", "perm-9");
    let failed = json!({"type": types::RESULT, "subtype": results::SUCCESS, "is_error": true, fields::RESULT: "API Error"})
        .to_string();
    let mut lines = conversation_lines();
    lines.splice(5..5, (0..200).map(|i| (20 + i / 100, "<", text())));
    lines.splice(3..3, [(9, "<", system_init.clone())]);
    lines.extend([(70, ">", prompt()), (71, "<", running()), (71, "<", system_init)]);
    for i in 0..50 {
        lines.push((72 + i / 10, "<", text()));
        if i % 7 == 0 {
            let at = 72 + i / 10;
            lines.extend([
                (at, "<", unanswered.clone()),
                (at, "<", running()),
                (at, "e", "warn".into()),
            ]);
        }
    }
    lines.extend([(80, "<", result()), (81, "<", idle())]);
    lines.extend([(90, ">", prompt()), (91, "<", running()), (92, "<", text())]);
    lines.extend([(93, "<", failed), (94, "<", idle())]);
    lines
}

#[test]
fn a_run_at_once_is_what_the_steps_give_one_at_a_time() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lines = long_lines();
    for (asks, states) in [(true, true), (false, true), (true, false), (false, false)] {
        let (mut memory, _) = both(&lines, dir.path());
        memory.follow(asks, states);
        let want = played_in_steps(&mut memory, 3);
        assert!(want.lines.len() > 250);
        assert!(want.steps.iter().any(|s| s == "error true"));
        for limit in [1, 300, 5000, 1 << 20] {
            let (mut memory, mut file) = both(&lines, dir.path());
            for script in [&mut memory, &mut file] {
                script.follow(asks, states);
                let got = played_in_runs(script, 3, limit, &want);
                assert_eq!(got, want, "limit {limit}, asks {asks}, states {states}");
            }
        }
    }
}

#[test]
fn the_index_of_lines_skimmed_is_the_index_of_their_frames() {
    use crate::cassette::tape::{Indexer, Mark};
    let mut lines = long_lines();
    // Kinds that only a parse tells: a result spelled with an escape, a word of a
    // kind in a line of another kind, a line that does not parse.
    let escaped = format!(
        r#"{{"type":"res\u0075lt","subtype":"{}","is_error":true}}"#,
        results::SUCCESS
    );
    let worded = json!({"type": types::SYSTEM, "subtype": "note", "text": types::RESULT}).to_string();
    lines.extend([
        (100, ">", prompt()),
        (101, "<", worded),
        (101, "<", format!("{{\"type\":\"{}\",", types::SYSTEM)),
        (102, "<", escaped),
        (103, "<", idle()),
        (104, "<", text()),
    ]);
    let (mut framed, mut skimmed) = (
        index::Builder::new(Mark::default()),
        index::Builder::new(Mark::default()),
    );
    let mut taken = 0;
    for (n, frame) in frames_of(&lines).iter().enumerate() {
        let after = Mark {
            frame: n + 1,
            position: crate::cassette::Position::default(),
        };
        framed.add(frame, after);
        let skim =
            matches!(frame, Frame::Line(l) if l.stream == Stream::Stdout && skimmed.skim(l.at, &l.bytes));
        if skim {
            taken += 1;
        } else {
            Indexer::add(&mut skimmed, frame, after);
        }
    }
    assert!(taken > 250, "{taken} lines skimmed");
    let (framed, skimmed) = (framed.index(0), skimmed.index(0));
    assert_eq!(framed.turns.len(), 4);
    assert_eq!(skimmed, framed);
}

#[test]
fn a_line_surely_plain_spells_no_kind_the_index_tells_apart() {
    let plain = index::Plain::default();
    let init =
        json!({"type": types::SYSTEM, "subtype": system::INIT, "tools": [blocks::TOOL_RESULT]}).to_string();
    assert!(plain.surely(running().as_bytes()));
    assert!(plain.surely(init.as_bytes()));
    let escaped = format!(r#"{{"type":"res\u0075lt","subtype":"{}"}}"#, results::SUCCESS);
    let worded = json!({"type": types::SYSTEM, "text": types::RESULT}).to_string();
    for line in [result(), ask(), init_answer(), escaped, worded] {
        assert!(!plain.surely(line.as_bytes()), "{line}");
    }
}

/// The frames of `lines` written as a cassette, opened to play in one pass (read
/// fast whatever its size).
fn live(lines: &[(u64, &str, String)], dir: &std::path::Path) -> Script {
    let _ = both(lines, dir);
    Script::open_over(&dir.join("both.cassette"), 0).expect("opens")
}

#[test]
fn a_cassette_played_in_one_pass_plays_as_its_frames_in_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The first turn's stream in one pass: requests nobody answered (the same id asked
    // again, the turn's end), one answered, states and `init` among them.
    let mut lines = long_lines();
    let again = (0..30).flat_map(|_| [(20, "<", text()), (20, "<", ask())]);
    lines.splice(8..8, again.collect::<Vec<_>>());
    for (asks, states) in [(true, true), (false, true), (true, false), (false, false)] {
        let (mut memory, _) = both(&lines, dir.path());
        memory.follow(asks, states);
        let want = played_in_steps(&mut memory, 4);
        assert!(want.lines.len() > 280);
        let mut stepped = live(&lines, dir.path());
        stepped.follow(asks, states);
        assert_eq!(
            played_in_steps(&mut stepped, 4),
            want,
            "steps, asks {asks}, states {states}"
        );
        for limit in [1, 300, 5000, 1 << 20] {
            let mut file = live(&lines, dir.path());
            file.follow(asks, states);
            let got = played_in_runs(&mut file, 4, limit, &want);
            assert_eq!(got, want, "limit {limit}, asks {asks}, states {states}");
        }
    }
}

#[test]
fn a_cassette_played_in_one_pass_answers_and_interrupts_as_its_frames_in_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let interrupt = json!({"type": types::CONTROL_REQUEST, "request_id": "req_2_bb", "request": {"subtype": control::INTERRUPT}}).to_string();
    let mut lines = conversation_lines();
    lines.splice(4..4, [(11, ">", interrupt), (12, "<", text())]);
    lines.extend([(70, ">", prompt()), (71, "<", running()), (72, "<", text())]);
    for (prompts, interrupt) in [(1, None), (2, None), (3, Some(1)), (2, Some(0)), (1, Some(0))] {
        let (mut memory, _) = both(&lines, dir.path());
        let mut file = live(&lines, dir.path());
        assert_eq!(
            played(&mut memory, prompts, interrupt),
            played(&mut file, prompts, interrupt),
            "{prompts} prompts, interrupt {interrupt:?}"
        );
        assert_eq!(memory.session_id(), file.session_id());
    }
    let (memory, _) = both(&lines, dir.path());
    let file = live(&lines, dir.path());
    assert_eq!(memory.session().expect("reads"), file.session().expect("reads"));
    assert_eq!(expectation(&memory, &[]), expectation(&file, &[]));
}

#[test]
fn the_first_turn_of_a_large_cassette_is_read_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut lines = conversation_lines();
    let stream = (0..300).flat_map(|_| [(30, "<", text()), (30, "<", running()), (30, "<", ask())]);
    lines.splice(6..6, stream.collect::<Vec<_>>());
    let mut file = live(&lines, dir.path());
    assert!(file.live.is_some(), "paused before the first turn");
    let answer = file.request(&json!("live-1"), control::INITIALIZE);
    assert!(answer.is_some_and(|(lines, _)| lines.len() == 1));
    file.begin();
    let mut run = Vec::new();
    assert!(file.stream_run(&mut run, 4096) > 0);
    assert!(file.live.is_some(), "the stream is played as it is indexed");
    while file.stream_run(&mut run, 1 << 20) > 0 {}
    // Up to the request the recorded client answered, the index made whole there.
    assert_eq!(run.iter().filter(|b| **b == b'\n').count(), 903);
    assert!(file.live.is_none(), "indexed whole at the request answered");
    assert!(matches!(file.step(), Next::Ask { .. }));
    assert_eq!(file.waiting_for(), Some("perm-1"));
    file.answer(Ok(json!({"behavior": behaviors::ALLOW})));
    // The rest plays as it was recorded.
    let (mut memory, _) = both(&lines, dir.path());
    memory.begin();
    let mut all = Vec::new();
    while memory.stream_run(&mut all, 1 << 20) > 0 {}
    assert_eq!(all, run);
    let rest = |script: &mut Script| {
        let mut out = Vec::new();
        loop {
            match script.step() {
                Next::Send(line) | Next::Ask { line, .. } => out.push(line),
                Next::Waiting => script.answer(Ok(json!({"behavior": behaviors::ALLOW}))),
                Next::Done => return out,
            }
        }
    };
    assert!(matches!(memory.step(), Next::Ask { .. }));
    memory.answer(Ok(json!({"behavior": behaviors::ALLOW})));
    assert_eq!(rest(&mut file), rest(&mut memory));
    assert!(file.take_error().is_none());
}

#[test]
fn a_request_is_unanswered_when_the_lines_after_it_say_so() {
    let plain = index::Plain::default();
    let frame = |dir: &str, line: &str| format!("{{\"t\":1,\"{dir}\":{line}}}\n");
    let ask = ask();
    let other = ask.replace("perm-1", "perm-2");
    let cases = [
        (vec![frame("out", &text()), frame("out", &ask)], true),
        (vec![frame("out", &running()), frame("out", &result())], true),
        (vec![frame("out", &other), frame("out", &ask)], true),
        (
            vec![frame("out", &text()), frame("in", &allow()), frame("out", &ask)],
            false,
        ),
        (vec![frame("out", &text()), frame("out", &other)], false),
        (vec![frame("out", &text())], false),
        (vec![frame("err", "\"warn\""), frame("out", &ask)], false),
        // A line cut at the buffer's end tells nothing.
        (
            vec![frame("out", &text()), frame("out", &ask).trim_end().to_owned()],
            false,
        ),
    ];
    for (rest, unanswered) in cases {
        let rest = rest.concat();
        let settled = index::settled_after("perm-1", rest.as_bytes(), &plain);
        assert_eq!(settled.is_some(), unanswered, "{rest}");
    }
    // The same id asked again: the bytes after that line, to know it when it is read.
    let rest = [frame("out", &ask), frame("out", &text())].concat();
    assert_eq!(
        index::settled_after("perm-1", rest.as_bytes(), &plain),
        Some(Some(frame("out", &text()).len()))
    );
}

/// A line stopped at and the lines after it taken at once (`Reader::fast_take_ahead`)
/// leave the reader where reading them one at a time leaves it: the same position,
/// then the same frames.
#[test]
fn lines_taken_ahead_leave_the_reader_where_reading_them_leaves_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut lines = conversation_lines();
    lines.splice(4..4, (0..20).map(|i| (10 + i / 4, "<", text())));
    let _ = both(&lines, dir.path());
    let path = dir.path().join("both.cassette");
    let open = || crate::cassette::open(&path).expect("opens").fast();
    for after in [0, 1, 5, 19] {
        let (mut one, mut ahead) = (open(), open());
        // Up to the state line the stream follows.
        let (mut before, running) = (0, running());
        loop {
            let mut seen = false;
            ahead
                .fast_lines_ahead(|_, event, _| {
                    seen = event == running.as_bytes();
                    false
                })
                .expect("reads");
            if seen {
                break;
            }
            ahead.next().expect("a frame").expect("reads");
            before += 1;
        }
        let mut taken = None;
        ahead
            .fast_lines_ahead(|t, _, rest| {
                let (mut bytes, mut last) = (0, t);
                for _ in 0..after {
                    let end = bytes + memchr::memchr(b'\n', &rest[bytes..]).expect("a whole line");
                    last = crate::cassette::out_event(&rest[bytes..end])
                        .expect("a stdout line")
                        .0;
                    bytes = end + 1;
                }
                taken = Some((rest.len() - bytes, last));
                false
            })
            .expect("reads");
        let (left, last) = taken.expect("stopped at a line");
        ahead
            .fast_take_ahead(left, after as u64 + 1, last)
            .expect("takes");
        for _ in 0..before + after + 1 {
            one.next().expect("a frame").expect("reads");
        }
        assert_eq!(ahead.position(), one.position(), "{after} lines after");
        let rest = |reader: crate::cassette::Reader<_>| reader.map(|f| f.expect("reads")).collect::<Vec<_>>();
        assert_eq!(rest(ahead), rest(one), "{after} lines after");
    }
}
