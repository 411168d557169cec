//! A served conversation's journal, kept on disk as it passes ([`Spooled`]): each
//! message, answer and divergence is written, already serialized, to an unnamed
//! temporary file beside the journal the moment it passes, and read back a line at a
//! time into the journal's entry at the end ([`append_spooled`]). A long turn costs
//! the process the longest message, not the whole conversation twice (its lines, then
//! the entry serialized): 77 MiB of messages cost 185 MiB when they were held.
//!
//! The entry written is byte for byte what [`super::append`] writes of the same
//! [`Entry`] with the same messages held in [`Conversation`].

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, Write};
use std::path::Path;

use serde::ser::{Error as _, SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use super::{Answer, Conversation, Entry, JournalError};

/// What a spool writes before it reaches its file.
const BUFFER: usize = 64 << 10;

/// A conversation's journal as it passes: its messages, the client's answers and the
/// divergences, each on disk from the moment it is added (see the module's doc).
#[derive(Debug)]
pub struct Spooled {
    messages: List,
    answers: List,
    divergences: List,
    /// Whose conversation: Claude Code's (the entry's `claude` field), else server
    /// mode's (`acp`).
    claude: bool,
}

/// A [`MessageRecord`](super::MessageRecord) of borrowed parts: the same fields, in
/// the same order.
#[derive(Serialize)]
struct Message<'a> {
    dir: &'a str,
    at_ms: u64,
    line: &'a str,
}

impl Spooled {
    /// The journal of a conversation whose entry goes to the journal at `journal`: its
    /// spool files are made in the same folder (else in the temporary folder; else,
    /// when neither can hold a file, in memory).
    pub fn new(journal: &Path) -> Self {
        let dir = match journal.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
            _ => ".".into(),
        };
        let list = || List {
            dir: dir.clone(),
            store: None,
            count: 0,
            error: None,
        };
        Spooled {
            messages: list(),
            answers: list(),
            divergences: list(),
            claude: false,
        }
    }

    /// As [`Spooled::new`], for Claude Code's conversation: the entry's `claude` field.
    pub fn claude(journal: &Path) -> Self {
        Spooled {
            claude: true,
            ..Spooled::new(journal)
        }
    }

    /// Adds a message that went `dir` ([`super::IN`], [`super::OUT`], [`super::ERR`])
    /// `at_ms` from the start: the line, as text (lossy where it is not UTF-8).
    pub fn message(&mut self, dir: &str, at_ms: u64, line: &[u8]) {
        let line = String::from_utf8_lossy(line);
        self.messages.push(&Message {
            dir,
            at_ms,
            line: &line,
        });
    }

    /// Adds the client's answer to one of the agent's requests.
    pub fn answer(&mut self, answer: &Answer) {
        self.answers.push(answer);
    }

    /// Adds a divergence.
    pub fn divergence(&mut self, divergence: &str) {
        self.divergences.push(&divergence);
    }

    /// How many messages it holds.
    pub fn messages(&self) -> usize {
        self.messages.count
    }
}

/// One list of a conversation, serialized one JSON value a line.
#[derive(Debug)]
struct List {
    /// Where its file goes.
    dir: std::path::PathBuf,
    /// Made at the first value.
    store: Option<Store>,
    count: usize,
    /// The first write that failed: the entry cannot be written whole.
    error: Option<io::Error>,
}

#[derive(Debug)]
enum Store {
    File(BufWriter<File>),
    Memory(Vec<u8>),
}

impl List {
    fn push(&mut self, value: &impl Serialize) {
        if self.error.is_some() {
            return;
        }
        let dir = &self.dir;
        let store = self.store.get_or_insert_with(|| {
            match tempfile::tempfile_in(dir).or_else(|_| tempfile::tempfile()) {
                Ok(file) => Store::File(BufWriter::with_capacity(BUFFER, file)),
                Err(_) => Store::Memory(Vec::new()),
            }
        });
        let written = match store {
            Store::File(file) => serde_json::to_writer(&mut *file, value)
                .map_err(io::Error::from)
                .and_then(|()| file.write_all(b"\n")),
            Store::Memory(bytes) => serde_json::to_writer(&mut *bytes, value)
                .map_err(io::Error::from)
                .map(|()| bytes.push(b'\n')),
        };
        match written {
            Ok(()) => self.count += 1,
            Err(e) => self.error = Some(e),
        }
    }

    /// The values, to read back from the start.
    fn reader(self) -> io::Result<Reader> {
        if let Some(e) = self.error {
            return Err(e);
        }
        Ok(match self.store {
            None => Reader::Memory(io::Cursor::new(Vec::new())),
            Some(Store::Memory(bytes)) => Reader::Memory(io::Cursor::new(bytes)),
            Some(Store::File(file)) => {
                let mut file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
                file.rewind()?;
                Reader::File(BufReader::with_capacity(BUFFER, file))
            }
        })
    }
}

enum Reader {
    File(BufReader<File>),
    Memory(io::Cursor<Vec<u8>>),
}

impl Reader {
    fn as_read(&mut self) -> &mut dyn BufRead {
        match self {
            Reader::File(file) => file,
            Reader::Memory(bytes) => bytes,
        }
    }
}

/// A spooled list followed by the values held in the entry: one JSON array.
struct Items<'a, T> {
    spooled: RefCell<Option<Reader>>,
    held: &'a [T],
}

impl<T: Serialize> Serialize for Items<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        if let Some(reader) = self.spooled.borrow_mut().as_mut() {
            let reader = reader.as_read();
            let mut line = Vec::new();
            loop {
                line.clear();
                if reader.read_until(b'\n', &mut line).map_err(S::Error::custom)? == 0 {
                    break;
                }
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                let text = String::from_utf8(std::mem::take(&mut line)).map_err(S::Error::custom)?;
                let value = RawValue::from_string(text).map_err(S::Error::custom)?;
                seq.serialize_element(&value)?;
            }
        }
        for value in self.held {
            seq.serialize_element(value)?;
        }
        seq.end()
    }
}

/// Serializes each of these variables as the field of its name, in order: the names
/// are the fields' own, as serde's derive has them.
macro_rules! fields {
    ($s:ident: $($field:ident),* $(,)?) => {
        $( $s.serialize_field(stringify!($field), $field)?; )*
    };
}

/// The `acp` field: the spooled lists, then what the entry's own conversation holds.
struct Acp<'a> {
    messages: Items<'a, super::MessageRecord>,
    answers: Items<'a, Answer>,
    divergences: Items<'a, String>,
}

impl Serialize for Acp<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Acp {
            messages,
            answers,
            divergences,
        } = self;
        let mut s = serializer.serialize_struct("Conversation", 3)?;
        fields!(s: messages, answers, divergences);
        s.end()
    }
}

/// An entry whose `acp` field (`claude` field, for Claude Code's) is [`Acp`]: every
/// field of [`Entry`], in its order (the compiler lists a field added there and not
/// here).
struct Written<'a> {
    entry: &'a Entry,
    acp: Acp<'a>,
    claude: bool,
}

impl Serialize for Written<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Entry {
            pid,
            argv,
            prompt,
            stdin,
            cwd,
            output_format,
            stream_partial_output,
            source,
            faults,
            seed,
            exit,
            stdout_closed,
            stdout_closed_at_ms,
            signal,
            stdin_open,
            error,
            rejected,
            answer,
            acp,
            claude,
            settings,
            settings_file,
            started_at_ms,
            ended_at_ms,
        } = self.entry;
        let spooled = &self.acp;
        let mut s = serializer.serialize_struct("Entry", 22)?;
        fields!(s: pid, argv, prompt, stdin, cwd, output_format, stream_partial_output, source,
            faults, seed, exit, stdout_closed, stdout_closed_at_ms, signal, stdin_open, error);
        if let Some(rejected) = rejected {
            s.serialize_field("rejected", rejected)?;
        }
        if let Some(answer) = answer {
            s.serialize_field("answer", answer)?;
        }
        if self.claude {
            // As `Entry` says: `acp` absent unless server mode journaled it.
            if let Some(acp) = acp {
                s.serialize_field("acp", acp)?;
            }
            s.serialize_field("claude", spooled)?;
        } else {
            s.serialize_field("acp", spooled)?;
            // As `Entry` says: absent unless Claude Code's dialect journaled it.
            if let Some(claude) = claude {
                s.serialize_field("claude", claude)?;
            }
        }
        if !settings.is_empty() {
            s.serialize_field("settings", settings)?;
        }
        if let Some(settings_file) = settings_file {
            s.serialize_field("settings_file", settings_file)?;
        }
        fields!(s: started_at_ms, ended_at_ms);
        s.end()
    }
}

/// Appends `entry` to the journal at `path`, its `acp` conversation (`claude`, when
/// made by [`Spooled::claude`]) the one `spooled` kept (followed by what `entry.acp`,
/// or `entry.claude`, holds, if anything), streamed from the spool into the journal:
/// as [`super::append`] writes the same entry with the same conversation held, with
/// memory for one message at a time.
pub fn append_spooled(path: &Path, entry: &Entry, spooled: Spooled) -> Result<(), JournalError> {
    let fail = |source| JournalError {
        path: path.to_owned(),
        source,
    };
    let held = if spooled.claude { &entry.claude } else { &entry.acp };
    let (messages, answers, divergences) = match held {
        Some(Conversation {
            messages,
            answers,
            divergences,
        }) => (&messages[..], &answers[..], &divergences[..]),
        None => (&[][..], &[][..], &[][..]),
    };
    let written = Written {
        entry,
        claude: spooled.claude,
        acp: Acp {
            messages: Items {
                spooled: RefCell::new(Some(spooled.messages.reader().map_err(fail)?)),
                held: messages,
            },
            answers: Items {
                spooled: RefCell::new(Some(spooled.answers.reader().map_err(fail)?)),
                held: answers,
            },
            divergences: Items {
                spooled: RefCell::new(Some(spooled.divergences.reader().map_err(fail)?)),
                held: divergences,
            },
        },
    };
    super::write_locked(path, |out| {
        serde_json::to_writer(&mut *out, &written).map_err(io::Error::from)?;
        out.write_all(b"\n")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{self, FaultRecord, MessageRecord};

    fn entry() -> Entry {
        let mut entry = Entry::new(7, vec!["acp".into(), "\"acp\":{\"messages\":[".into()], 1);
        entry.cwd = Some("/w".into());
        entry.faults = vec![FaultRecord {
            name: "late".into(),
            fired: true,
        }];
        entry.signal = Some("TERM".into());
        entry.stdin_open = Some(true);
        entry.ended_at_ms = 9;
        entry
    }

    #[test]
    fn a_spooled_entry_is_written_as_the_held_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let lines: [(&str, u64, &[u8]); 4] = [
            (journal::IN, 0, br#"{"a":1,"b":[true]}"#),
            (journal::OUT, 3, "caf\u{e9} \u{1F600} \t\"q\"\\".as_bytes()),
            (journal::ERR, 4, b"not utf-8: \xff\xfe end"),
            (journal::IN, 5, b""),
        ];
        let answer = Answer {
            id: "0".into(),
            method: "ask".into(),
            answer: serde_json::json!({"picked": ["first", 1, null]}),
            after_ms: 12,
        };
        let mut held = entry();
        held.acp = Some(Conversation {
            messages: lines
                .iter()
                .map(|(dir, at_ms, line)| MessageRecord {
                    dir: (*dir).into(),
                    at_ms: *at_ms,
                    line: String::from_utf8_lossy(line).into_owned(),
                })
                .collect(),
            answers: vec![answer.clone()],
            divergences: vec!["the client answered id 9 \"x\"".into()],
        });
        let journal = dir.path().join("held.jsonl");
        journal::append(&journal, &held).expect("appends");

        let spooled_journal = dir.path().join("spooled.jsonl");
        let mut spooled = Spooled::new(&spooled_journal);
        for (dir, at_ms, line) in lines {
            spooled.message(dir, at_ms, line);
        }
        spooled.answer(&answer);
        spooled.divergence("the client answered id 9 \"x\"");
        let mut entry = entry();
        entry.acp = Some(Conversation::default());
        append_spooled(&spooled_journal, &entry, spooled).expect("appends");

        let read = |path| std::fs::read_to_string(path).expect("reads");
        assert_eq!(read(&spooled_journal), read(&journal));
        // Nothing left beside the journal.
        assert_eq!(std::fs::read_dir(dir.path()).expect("lists").count(), 2);
    }

    #[test]
    fn an_empty_conversation_is_written_as_the_held_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut held = entry();
        held.acp = Some(Conversation::default());
        journal::append(&dir.path().join("a"), &held).expect("appends");
        append_spooled(&dir.path().join("b"), &held, Spooled::new(&dir.path().join("b"))).expect("appends");
        let read = |name| std::fs::read_to_string(dir.path().join(name)).expect("reads");
        assert_eq!(read("b"), read("a"));
    }

    #[test]
    fn a_spooled_claude_conversation_is_written_as_the_held_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let line = br#"{"a":[1,"caf\u00e9"]}"#;
        let mut held = entry();
        held.claude = Some(Conversation {
            messages: vec![MessageRecord {
                dir: journal::OUT.into(),
                at_ms: 3,
                line: String::from_utf8_lossy(line).into_owned(),
            }],
            answers: Vec::new(),
            divergences: vec!["the client asked set_model".into()],
        });
        journal::append(&dir.path().join("a"), &held).expect("appends");
        let mut spooled = Spooled::claude(&dir.path().join("b"));
        spooled.message(journal::OUT, 3, line);
        spooled.divergence("the client asked set_model");
        let mut entry = entry();
        entry.claude = Some(Conversation::default());
        append_spooled(&dir.path().join("b"), &entry, spooled).expect("appends");
        let read = |name| std::fs::read_to_string(dir.path().join(name)).expect("reads");
        assert_eq!(read("b"), read("a"));
        assert!(!read("b").contains(r#","acp":{"#));
    }
}
