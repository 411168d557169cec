//! A recording of `codex exec --json` replayed as it stands, streamed: one pass over
//! the cassette learns what the run needs before its lines ([`Summary`]: the thread,
//! how the turn ended, its last message, the recorded stderr; of a large one, a skim
//! that reads only the lines that say it: [`skim`]), and a second reads its
//! stdout lines as they are written, through the faults ([`Replay`]). Memory stays
//! flat whatever the recording's size; what is written, and when, is what the whole
//! recording read first would give (`Recording::open`, `with_faults`).

use std::borrow::Cow;
use std::path::Path;
use std::sync::LazyLock;

use memchr::memmem::Finder;

use serde::Deserialize;
use serde_json::Value;

use harness::cassette::PREFLIGHT_LIMIT;
use harness::dialects::codex::faults::Lines;
use harness::dialects::codex::recording::usage_of;
use harness::dialects::codex::session::Usage;
use harness::dialects::codex::wire::{events, items};
use harness::error::CassetteError;
use harness::frames::Exit;

use crate::execute::recorded;

mod skim;

/// What the replay of a recording needs before its lines.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Summary {
    /// Its stderr lines, how it ended and its last stdout line's time.
    pub(super) recorded: recorded::Summary,
    /// How it ended (exit 0 when the recording does not say).
    pub(super) exit: Exit,
    /// The thread it started (`thread.started`'s id).
    pub(super) thread_id: Option<String>,
    /// Its turn failed (`turn.failed`).
    pub(super) failed: bool,
    /// The usage its turn reported.
    pub(super) usage: Usage,
    /// Its last `agent_message`.
    pub(super) final_message: Option<String>,
}

/// What the stdout lines say.
#[derive(Default)]
struct Said {
    thread_id: Option<String>,
    failed: bool,
    usage: Usage,
    final_message: Option<String>,
    /// The last agent message of the writer's own shape ([`plain_message`]) read since
    /// `final_message` was last set, to parse at the end: such a line sets it when
    /// parsed, so the last one is the only one that counts.
    message: Pending,
    /// The same of the turn's usage ([`plain_usage`]).
    usage_line: Pending,
    /// A turn's end set `usage`.
    completed: bool,
}

/// A line kept to be parsed at the end of the pass (its buffer reused).
#[derive(Default)]
struct Pending {
    line: Vec<u8>,
    kept: bool,
}

impl Pending {
    fn keep(&mut self, line: &[u8]) {
        self.line.clear();
        self.line.extend_from_slice(line);
        self.kept = true;
    }

    /// The kept line, once.
    fn take(&mut self) -> Option<Vec<u8>> {
        std::mem::take(&mut self.kept).then(|| std::mem::take(&mut self.line))
    }
}

impl Summary {
    /// The summary of the recording at `path`, in one pass: a skim of it when it is
    /// over [`PREFLIGHT_LIMIT`] (and a skim can tell it: [`skim`]), else each line.
    pub(super) fn read(path: &Path) -> Result<Summary, CassetteError> {
        if std::fs::metadata(path).is_ok_and(|m| m.len() > PREFLIGHT_LIMIT) {
            if let Some(summary) = skim::summary(path) {
                return Ok(summary);
            }
        }
        Self::read_each(path)
    }

    /// [`Summary::read`] of each line.
    fn read_each(path: &Path) -> Result<Summary, CassetteError> {
        let mut said = Said::default();
        let recorded = recorded::Summary::read(path, |line| said.line(line))?;
        said.finish();
        Ok(Summary {
            exit: recorded.exit.unwrap_or(Exit::Code(0)),
            recorded,
            thread_id: said.thread_id,
            failed: said.failed,
            usage: said.usage,
            final_message: said.final_message,
        })
    }
}

impl Said {
    /// One stdout line. Only `thread.started`, `item.completed` and the turn's end
    /// say what the summary holds; the lines of the others are known by their first
    /// key and not parsed. The last message and the usage of the writer's own shape
    /// are kept and parsed once, at the end ([`Said::finish`]): each line of a turn
    /// is not parsed.
    fn line(&mut self, line: &[u8]) {
        const SKIPPED: [&[u8]; 4] = [
            b"{\"type\":\"item.started\",",
            b"{\"type\":\"item.updated\",",
            b"{\"type\":\"turn.started\",",
            b"{\"type\":\"error\",",
        ];
        // A turn's start with no other member (the real CLI's) says nothing either.
        if SKIPPED.iter().any(|prefix| line.starts_with(prefix)) || line == b"{\"type\":\"turn.started\"}" {
            return;
        }
        // Only the first thread counts.
        if self.thread_id.is_some() && line.starts_with(b"{\"type\":\"thread.started\",") {
            return;
        }
        if plain_message(line) {
            self.message.keep(line);
            return;
        }
        if plain_usage(line) {
            self.usage_line.keep(line);
            return;
        }
        if plain_failure(line) {
            self.failed = true;
            return;
        }
        self.parse(line);
    }

    /// The lines kept to parse at the end, parsed: what they say is the last said.
    fn finish(&mut self) {
        for line in [self.message.take(), self.usage_line.take()]
            .into_iter()
            .flatten()
        {
            self.parse(&line);
        }
    }

    /// What `line` says, parsed.
    fn parse(&mut self, line: &[u8]) {
        if line.starts_with(b"{\"type\":\"item.completed\",") {
            // An item that is no agent message says nothing here: one is, only where
            // the line spells `agent_message` (or may, with a `\u` escape).
            // Searchers made once: a line is short, making one costs what a search does.
            static MESSAGE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(items::AGENT_MESSAGE));
            static ESCAPE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("\\u"));
            let may_be_message = MESSAGE.find(line).is_some() || ESCAPE.find(line).is_some();
            if !may_be_message {
                return;
            }
            if let Ok(completed) = serde_json::from_slice::<Completed<'_>>(line) {
                if completed.item.kind.as_deref() == Some(items::AGENT_MESSAGE) {
                    let text = completed.item.text.and_then(Text::into_str).unwrap_or_default();
                    self.set_message(text.into_owned());
                }
                return;
            }
        }
        let Ok(value) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        match value.get("type").and_then(Value::as_str) {
            Some(events::THREAD_STARTED) if self.thread_id.is_none() => {
                self.thread_id = value.get("thread_id").and_then(Value::as_str).map(str::to_owned);
            }
            Some(events::ITEM_COMPLETED) => {
                let item = &value["item"];
                if item.get("type").and_then(Value::as_str) == Some(items::AGENT_MESSAGE) {
                    let text = item.get("text").and_then(Value::as_str).unwrap_or_default();
                    self.set_message(text.to_owned());
                }
            }
            Some(events::TURN_COMPLETED) => {
                self.usage = usage_of(&value["usage"]);
                self.usage_line.kept = false;
                self.completed = true;
            }
            Some(events::TURN_FAILED) => self.failed = true,
            _ => {}
        }
    }

    /// The last message is `text` (a message kept before it no longer counts).
    fn set_message(&mut self, text: String) {
        self.final_message = Some(text);
        self.message.kept = false;
    }
}

/// Whether `line` is an agent message of the writer's own shape,
/// `{"type":ITEM_COMPLETED,"item":{"id":"ID","type":AGENT_MESSAGE,"text":"TEXT"}}` (the
/// wire model's names, quoted),
/// with no `\u` escape in its text and nothing else: valid JSON whose parse sets the
/// last message (told without parsing it).
fn plain_message(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"{\"type\":\"item.completed\",\"item\":{\"id\":") else {
        return false;
    };
    let Some(rest) = plain_string(rest) else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(b",\"type\":\"agent_message\",\"text\":") else {
        return false;
    };
    plain_string(rest) == Some(b"}}")
}

/// Whether `line` is a turn's end of the writer's own shape,
/// `{"type":TURN_COMPLETED,"usage":{"KEY":N,...}}` (plain keys, whole numbers, and
/// nothing else): valid JSON whose parse sets the usage.
fn plain_usage(line: &[u8]) -> bool {
    let Some(mut rest) = line.strip_prefix(b"{\"type\":\"turn.completed\",\"usage\":{") else {
        return false;
    };
    if rest == b"}}" {
        return true;
    }
    loop {
        let Some(after) = plain_string(rest).and_then(|r| r.strip_prefix(b":")) else {
            return false;
        };
        let digits = after.iter().take_while(|b| b.is_ascii_digit()).count();
        // A JSON number has no leading zero.
        if digits == 0 || (digits > 1 && after[0] == b'0') {
            return false;
        }
        rest = &after[digits..];
        match rest.split_first() {
            Some((b',', next)) => rest = next,
            _ => return rest == b"}}",
        }
    }
}

/// Whether `line` is a turn's failure of the writer's own shape,
/// `{"type":TURN_FAILED,"error":{"message":"TEXT"}}` (no `\u` escape, nothing else):
/// valid JSON whose parse says only that the turn failed.
fn plain_failure(line: &[u8]) -> bool {
    line.strip_prefix(b"{\"type\":\"turn.failed\",\"error\":{\"message\":")
        .and_then(plain_string)
        == Some(b"}}")
}

/// The bytes after the JSON string at the start of `bytes` (valid UTF-8 already),
/// when it is one with no control character and no `\u` escape (any other escape
/// is a valid one); `None` otherwise.
fn plain_string(bytes: &[u8]) -> Option<&[u8]> {
    let mut rest = bytes.strip_prefix(b"\"")?;
    loop {
        // The next quote or backslash (searched for a block at a time), with no control
        // character before it (looked for in a loop the compiler makes a vector one).
        let at = memchr::memchr2(b'"', b'\\', rest)?;
        if rest[..at].iter().fold(false, |control, &b| control | (b < 0x20)) {
            return None;
        }
        match rest[at] {
            b'"' => return Some(&rest[at + 1..]),
            b'\\'
                if matches!(
                    rest.get(at + 1),
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
                ) =>
            {
                rest = &rest[at + 2..];
            }
            _ => return None,
        }
    }
}

/// An `item.completed` line, as far as its last message goes.
#[derive(Deserialize)]
struct Completed<'a> {
    #[serde(borrow)]
    item: CompletedItem<'a>,
}

#[derive(Deserialize)]
struct CompletedItem<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Text<'a>>,
}

/// An item's `text`: a string, or anything else (no text).
#[derive(Deserialize)]
#[serde(untagged)]
enum Text<'a> {
    Str(#[serde(borrow)] Cow<'a, str>),
    Other(serde::de::IgnoredAny),
}

impl<'a> Text<'a> {
    fn into_str(self) -> Option<Cow<'a, str>> {
        match self {
            Text::Str(text) => Some(text),
            Text::Other(_) => None,
        }
    }
}

/// The replay of a recording as it stands, through the faults.
pub(super) type Replay = recorded::Replay<Lines>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::time::Duration;

    use harness::cassette::Invocation;
    use harness::dialects::codex::exec::Thread;
    use harness::dialects::codex::faults::{exec_lines, parse, with_faults, THREAD_MS};
    use harness::dialects::codex::faults::{Injector, Out};
    use harness::dialects::codex::recording::{header, Recording};
    use harness::frames::Frame;

    /// A recording of the generated session of `seed`: a stderr line, its lines 10 ms
    /// apart, its ending.
    fn recording(seed: u64, path: &Path) {
        let session = harness::dialects::codex::generate::from_seed(seed);
        let (lines, exit) = exec_lines(&session, Thread::new(seed, THREAD_MS));
        let header = header(Invocation::default());
        recorded::testing::write(path, &header, b"Reading prompt from stdin...", lines, exit);
    }

    /// What the run performs of the recording read whole first, as it did before
    /// it was streamed.
    fn whole(path: &Path, spec: &str) -> Vec<String> {
        let recording = Recording::open(path).expect("opens");
        let mut injector =
            Injector::new(parse(spec, harness::dialects::codex::faults::FROM_ENV).expect("faults"));
        let mut outs: Vec<Out> = recording.stderr.iter().cloned().map(Out::Stderr).collect();
        outs.extend(with_faults(
            recording.stdout.clone(),
            recording.exit,
            &mut injector,
        ));
        let times = recorded::testing::stdout_times(path);
        let frames = recorded::frames(outs, &times, super::super::exec::PACE);
        recorded::testing::shown(frames, || injector.report())
    }

    fn streamed(path: &Path, spec: &str) -> Vec<String> {
        let summary = Summary::read(path).expect("reads");
        let injector = Rc::new(RefCell::new(Injector::new(
            parse(spec, harness::dialects::codex::faults::FROM_ENV).expect("faults"),
        )));
        let replay = Replay::new(
            path,
            &summary.recorded,
            super::super::exec::PACE,
            Rc::clone(&injector),
        )
        .expect("opens");
        recorded::testing::performed(replay, &injector)
    }

    #[test]
    fn a_streamed_replay_performs_what_the_whole_recording_gave() {
        let specs = [
            "",
            "exit:code=3,after=2",
            "unknown:after=1",
            "unknown:kind=item,at=turn.completed",
            "malformed:after=2",
            "eof:at=turn.completed,byte=40",
            "stall:ms=5,after=1",
            "huge:bytes=100,after=1",
            "signal:name=TERM,at=agent_message",
        ];
        let (_dir, paths) = recorded::testing::assert_streamed_as_whole(recording, &specs, streamed, whole);
        for path in paths {
            let recording = Recording::open(&path).expect("opens");
            let summary = Summary::read(&path).expect("reads");
            let turn = recording.session().turn(0);
            assert_eq!(summary.thread_id, recording.thread_id());
            assert_eq!(summary.failed, turn.fails());
            assert_eq!(summary.usage, turn.usage);
            assert_eq!(summary.final_message.as_deref(), turn.final_message());
            assert_eq!(
                (summary.recorded.stderr, summary.exit),
                (recording.stderr, recording.exit)
            );
        }
    }

    /// What the summary says of `lines` with each parsed where it is read.
    fn parsed_each(lines: &[&[u8]]) -> (Option<String>, bool, Usage, Option<String>) {
        let mut said = Said::default();
        for line in lines {
            said.parse(line);
        }
        (said.thread_id, said.failed, said.usage, said.final_message)
    }

    /// What the summary says of `lines` read as its pass reads them.
    fn summed(lines: &[&[u8]]) -> (Option<String>, bool, Usage, Option<String>) {
        let mut said = Said::default();
        for line in lines {
            said.line(line);
        }
        said.finish();
        (said.thread_id, said.failed, said.usage, said.final_message)
    }

    #[test]
    fn the_lines_kept_for_the_end_say_what_each_parsed_says() {
        // Lines of the writer's shape (kept), and lines that look like them and are
        // not (parsed where they are, or saying nothing).
        let pool: [&[u8]; 23] = [
            b"{\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":\"agent_message\",\"text\":\"one\"}}",
            b"{\"type\":\"item.completed\",\"item\":{\"id\":\"item_1\",\"type\":\"agent_message\",\"text\":\"two \\\"q\\\" \\\\ \\/ \\n\\t\"}}",
            b"{\"type\":\"item.completed\",\"item\":{\"id\":\"item_2\",\"type\":\"agent_message\",\"text\":\"\\u00e9sc\"}}",
            b"{\"type\":\"item.completed\",\"item\":{\"id\":\"item_3\",\"type\":\"agent_message\",\"text\":\"cut",
            b"{\"type\":\"item.completed\",\"item\":{\"id\":\"item_4\",\"type\":\"agent_message\",\"text\":\"x\"},\"type\":\"x\"}",
            b"{\"type\":\"item.completed\",\"item\":{\"id\":\"item_5\",\"type\":\"agent_message\",\"text\":\"bad \\x\"}}",
            b"{\"type\":\"item.completed\",\"item\":{\"id\":\"item_6\",\"type\":\"reasoning\",\"text\":\"not it\"}}",
            b"{\"item\":{\"type\":\"agent_message\",\"text\":\"type last\"},\"type\":\"item.completed\"}",
            b"{\"type\":\"item.completed\",\"item\":{\"id\":\"item_8\",\"type\":\"agent_message\",\"text\":\"dup\",\"text\":\"dup2\"}}",
            b"{\"type\":\"item.completed\",\"item\":{\"id\":\"item_9\",\"type\":\"agent_message\",\"text\":\"tab\tin\"}}",
            b"{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":10,\"cached_input_tokens\":0,\"output_tokens\":5}}",
            b"{\"type\":\"turn.completed\",\"usage\":{}}",
            b"{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":01}}",
            b"{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":7,\"input_tokens\":8}}",
            b"{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":3},\"type\":\"turn.failed\"}",
            b"{\"usage\":{\"output_tokens\":9},\"type\":\"turn.completed\"}",
            b"{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":-1}}",
            b"{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":2,}}",
            b"{\"type\":\"thread.started\",\"thread_id\":\"t-1\"}",
            b"{\"type\":\"turn.started\"}",
            b"{\"type\":\"turn.failed\",\"error\":{\"message\":\"no\"}}",
            b"{\"type\":\"turn.failed\",\"error\":{\"message\":\"no\"},\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"late\"}}",
            b"{\"type\":\"turn.failed\",\"error\":{\"message\":\"\\u0041\"}}",
        ];
        assert!(
            plain_message(pool[0])
                && plain_message(pool[1])
                && plain_usage(pool[10])
                && plain_usage(pool[11])
        );
        for odd in [2, 3, 4, 5, 6, 7, 9] {
            assert!(!plain_message(pool[odd]), "line {odd}");
        }
        for odd in [12, 14, 15, 16, 17] {
            assert!(!plain_usage(pool[odd]), "line {odd}");
        }
        assert!(plain_failure(pool[20]) && !plain_failure(pool[21]) && !plain_failure(pool[22]));
        // Every sequence of up to 3 lines of the pool, and some longer ones.
        let n = pool.len();
        for a in 0..n {
            for b in 0..n {
                for c in 0..n {
                    let lines = [pool[a], pool[b], pool[c]];
                    assert_eq!(summed(&lines), parsed_each(&lines), "lines {a}, {b}, {c}");
                }
            }
        }
        let mut rng = 7u64;
        for _ in 0..2000 {
            let lines: Vec<&[u8]> = (0..8)
                .map(|_| {
                    rng = rng
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    pool[(rng >> 33) as usize % n]
                })
                .collect();
            assert_eq!(summed(&lines), parsed_each(&lines), "{lines:?}");
        }
    }

    #[test]
    fn a_replay_at_once_writes_what_it_writes_a_line_at_a_time() {
        let dir = tempfile::tempdir().expect("temp dir");
        for (seed, repeats) in [(0, 1), (1, 1), (2, 2000), (3, 5000)] {
            let path = dir.path().join(format!("{seed}.cassette"));
            let session = harness::dialects::codex::generate::from_seed(seed);
            let (lines, exit) = exec_lines(&session, Thread::new(seed, THREAD_MS));
            // Many lines: runs cross the read buffer's end and the copy's block.
            let many: Vec<Vec<u8>> = (0..repeats).flat_map(|_| lines.iter().cloned()).collect();
            let header = header(Invocation::default());
            recorded::testing::write(&path, &header, b"Reading prompt from stdin...", many, exit);
            let summary = Summary::read(&path).expect("reads");
            let written = |at_once| {
                let injector = Rc::new(RefCell::new(Injector::new(Vec::new())));
                let replay = Replay::new(&path, &summary.recorded, super::super::exec::PACE, injector)
                    .expect("opens")
                    .at_once(at_once);
                recorded::testing::written(replay)
            };
            let (one, all) = (written(false), written(true));
            assert_eq!(all.0.len(), one.0.len(), "seed {seed}");
            assert!(all.0 == one.0, "seed {seed}: other bytes");
            assert_eq!(all.1, one.1, "seed {seed}");
            assert_eq!(all.2, one.2, "seed {seed}");
            // Lines a run at a time: far fewer frames.
            let fewer = if repeats > 1 { all.3 * 10 } else { all.3 };
            assert!(
                fewer < one.3,
                "seed {seed}: {} frames, {} a line at a time",
                all.3,
                one.3
            );
        }
    }

    /// A recording of `seed`'s lines repeated `repeats` times, with `stderr` lines
    /// after the nth stdout line each, and `extra` stdout lines (an event each, whole)
    /// after the lines of the first repeat.
    fn varied(path: &Path, seed: u64, repeats: usize, stderr: &[(usize, &str)], extra: &[&str]) {
        use harness::cassette::Writer;
        use harness::frames::{Ending, Line};
        let session = harness::dialects::codex::generate::from_seed(seed);
        let (lines, exit) = exec_lines(&session, Thread::new(seed, THREAD_MS));
        let mut stdout: Vec<Vec<u8>> = lines.clone();
        stdout.extend(extra.iter().map(|e| e.as_bytes().to_vec()));
        stdout.extend((1..repeats).flat_map(|_| lines.iter().cloned()));
        let mut writer = Writer::create(path, &header(Invocation::default())).expect("creates");
        let mut at = Duration::ZERO;
        for (n, line) in stdout.into_iter().enumerate() {
            at += Duration::from_millis(3);
            writer
                .write(&Frame::Line(Line::stdout(at, line)))
                .expect("writes");
            for (_, text) in stderr.iter().filter(|(after, _)| *after == n) {
                writer
                    .write(&Frame::Line(Line::stderr(at, text.as_bytes().to_vec())))
                    .expect("writes");
            }
        }
        // A placement past every line: after the last one.
        for (_, text) in stderr.iter().filter(|(after, _)| *after == usize::MAX) {
            writer
                .write(&Frame::Line(Line::stderr(at, text.as_bytes().to_vec())))
                .expect("writes");
        }
        writer.write(&Frame::End(Ending { at, exit })).expect("writes");
        writer.finish().expect("finishes");
    }

    /// Extra stdout lines, stderr placements, whether the skim must tell it.
    type Case<'a> = (&'a [&'a str], &'a [(usize, &'a str)], bool);

    /// The skim of a large recording says what the full pass says, or gives up (then
    /// the full pass is read): for recordings of several sessions, stderr anywhere,
    /// and lines that spell the words it looks for without being what it looks for.
    #[test]
    fn a_skim_says_what_each_line_read_says() {
        let dir = tempfile::tempdir().expect("temp dir");
        use harness::dialects::codex::wire::{events, items};
        let (completed, started) = (events::ITEM_COMPLETED, events::ITEM_STARTED);
        let (turn_completed, agent_message) = (events::TURN_COMPLETED, items::AGENT_MESSAGE);
        let mention = format!(
            r#"{{"type":"{completed}","item":{{"id":"m","type":"reasoning","text":"no {agent_message}, {turn_completed}, turn.failed nor thread.started"}}}}"#
        );
        let message = format!(
            r#"{{"type":"{completed}","item":{{"id":"late","type":"{agent_message}","text":"late \"q\""}}}}"#
        );
        let usage =
            format!(r#"{{"type":"{turn_completed}","usage":{{"input_tokens":3,"output_tokens":4}}}}"#);
        let usage_parsed = format!(r#"{{"usage":{{"input_tokens":5}},"type":"{turn_completed}"}}"#);
        let escaped = format!(
            r#"{{"type":"{completed}","item":{{"id":"e","type":"{agent_message}","text":"\u00e9"}}}}"#
        );
        let not_err = format!(r#"{{"type":"{started}","item":{{"id":"x","type":"y","err":1}}}}"#);
        let (mention, message, usage) = (mention.as_str(), message.as_str(), usage.as_str());
        let (usage_parsed, escaped, not_err) = (usage_parsed.as_str(), escaped.as_str(), not_err.as_str());
        // (extra lines, stderr placements, whether the skim must tell it when the
        // session's lines come again after the extra ones: a mention that is the last
        // line to spell a word gives it up)
        let cases: [Case<'_>; 9] = [
            (&[], &[], true),
            (&[], &[(0, "first"), (3, "middle"), (7, "late")], true),
            (&[mention], &[], false),
            (&[message], &[], true),
            (&[usage], &[(1, "x")], true),
            (&[usage_parsed], &[], true),
            (&[not_err, mention, message], &[(2, "e")], false),
            (&[escaped], &[], false),
            (&[mention], &[(5000, "after the last line")], false),
        ];
        let mut told_past_a_mention = 0;
        for seed in 0..6 {
            for (n, (extra, stderr, told)) in cases.iter().enumerate() {
                for repeats in [1, 3000] {
                    let path = dir.path().join(format!("{seed}-{n}-{repeats}.cassette"));
                    let stderr: Vec<(usize, &str)> = stderr
                        .iter()
                        .map(|&(after, text)| (if after == 5000 { usize::MAX } else { after }, text))
                        .collect();
                    varied(&path, seed, repeats, &stderr, extra);
                    let mut each = Summary::read_each(&path).expect("reads");
                    each.recorded.checked_from = None;
                    let skimmed = skim::summary_in(&path, 1, 1);
                    // In parts (of a byte or more: as many as asked): what one part
                    // tells, or nothing (the full pass is read then).
                    for parts in [2, 3, 7] {
                        let split = skim::summary_in(&path, parts, 1);
                        assert_eq!(split, skimmed, "seed {seed}, case {n}, {repeats}, {parts} parts");
                    }
                    // Once only, the extra lines are the last to spell what they
                    // spell: a mention last gives the skim up.
                    if *told && (repeats > 1 || extra.is_empty()) {
                        assert_eq!(skimmed.as_ref(), Some(&each), "seed {seed}, case {n}, {repeats}");
                    } else if let Some(skimmed) = skimmed {
                        assert_eq!(skimmed, each, "seed {seed}, case {n}, {repeats}");
                        told_past_a_mention += usize::from(extra.contains(&mention));
                    }
                }
            }
        }
        // A mention not last is read past: the skim told those.
        assert!(told_past_a_mention > 0);
    }
}
