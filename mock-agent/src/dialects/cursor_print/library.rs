//! A cassette library: a directory of cassettes, matched to invocations the way VCR
//! matches requests, for the shim's record modes.
//!
//! An invocation is matched on a canonical key: the prompt, the output format,
//! `--stream-partial-output` and the model, by default; `MOCK_AGENT_MATCH_ON` names
//! the fields (`prompt,output_format,partial,model,argv,cwd`), or adds and removes
//! some (`+argv,-model`). Identical invocations (the turns of a `--resume`
//! conversation) replay their cassettes in recorded order; the journal says how many
//! were played already. With `MOCK_AGENT_PLAYBACK_REPEATS=1`, the last one replays
//! again once they are used up.

use std::path::{Path, PathBuf};

use crate::dialects::cursor_print::args::{self, AgentArgs};
use harness::cassette::{self, Invocation};
use harness::journal;

pub use crate::settings::{MatchOn, DEFAULT_FIELDS, FIELDS};

/// What stands for the prompt in the key of a server-mode invocation, whose
/// messages come only once it runs: conversations are matched on the other fields
/// (the model, the arguments when `MOCK_AGENT_MATCH_ON` names them), and only with
/// recordings of conversations.
pub const ACP_PROMPT: &str = "<acp>";

/// The values of an invocation that keys are made of.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Key {
    /// Field name and value, for the fields matched on.
    pub values: Vec<(&'static str, String)>,
}

impl Key {
    /// The key of a live invocation.
    pub fn of(args: &AgentArgs, argv: &[String], prompt: &str, cwd: &str, on: &MatchOn) -> Key {
        Key {
            values: on
                .fields()
                .iter()
                .map(|field| {
                    let value = match *field {
                        "prompt" => prompt.to_owned(),
                        "output_format" => args.output_format.to_string(),
                        "partial" => args.stream_partial_output.to_string(),
                        "model" => args.model.clone().unwrap_or_default(),
                        "argv" => argv.join(" "),
                        _ => cwd.to_owned(),
                    };
                    (*field, value)
                })
                .collect(),
        }
    }

    /// The key of a recorded invocation (see [`ACP_PROMPT`] for conversations).
    pub fn recorded(invocation: &Invocation, on: &MatchOn) -> Key {
        let args = args::parse(&invocation.argv).unwrap_or_default();
        let prompt = match invocation.acp {
            true => ACP_PROMPT.to_owned(),
            false => invocation.prompt.clone().unwrap_or_default(),
        };
        let mut key = Key::of(
            &args,
            &invocation.argv,
            &prompt,
            invocation.cwd.as_deref().unwrap_or(""),
            on,
        );
        for (field, value) in &mut key.values {
            match *field {
                "output_format" => {
                    *value = invocation.output_format.unwrap_or_default().to_string();
                }
                "partial" => *value = invocation.stream_partial_output.to_string(),
                _ => {}
            }
        }
        key
    }

    /// The fields where two keys differ, with both values.
    pub fn differences(&self, other: &Key) -> Vec<(&'static str, String, String)> {
        self.values
            .iter()
            .zip(&other.values)
            .filter(|(a, b)| a.1 != b.1)
            .map(|(a, b)| (a.0, a.1.clone(), b.1.clone()))
            .collect()
    }

    /// A short stable digest, for file names.
    pub fn digest(&self) -> String {
        let text: String = self.values.iter().map(|(f, v)| format!("{f}={v}\u{0}")).collect();
        let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        format!("{:08x}", hash >> 32)
    }
}

/// A cassette of the library and its key.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The file.
    pub path: PathBuf,
    /// Its key.
    pub key: Key,
}

/// The cassettes of a library directory, in name order (recorded order for repeats).
pub fn entries(dir: &Path, on: &MatchOn) -> Vec<Stored> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = read
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cassette"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let reader = cassette::open(&path).ok()?;
            let invocation = reader.header()?.invocation.clone();
            Some(Stored {
                key: Key::recorded(&invocation, on),
                path,
            })
        })
        .collect()
}

/// What the library has for an invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// This cassette is the next to play.
    Play(PathBuf),
    /// Cassettes match, and all of them were played already.
    UsedUp(usize),
    /// None matches.
    Miss,
}

/// The cassette to play for `key`: the first matching one the journal does not show
/// played yet (or the last, with `repeats`).
pub fn find(entries: &[Stored], key: &Key, journal: &[journal::Entry], repeats: bool) -> Found {
    let matching: Vec<&Stored> = entries.iter().filter(|e| e.key == *key).collect();
    if matching.is_empty() {
        return Found::Miss;
    }
    let played = |entry: &Stored| {
        let name = entry.path.display().to_string();
        journal.iter().any(|j| j.source.as_deref() == Some(name.as_str()))
    };
    match matching.iter().find(|e| !played(e)) {
        Some(next) => Found::Play(next.path.clone()),
        None if repeats => Found::Play(matching[matching.len() - 1].path.clone()),
        None => Found::UsedUp(matching.len()),
    }
}

/// A readable miss: the closest cassette, and the fields that differ.
pub fn miss_message(dir: &Path, entries: &[Stored], key: &Key) -> String {
    let closest = entries.iter().min_by_key(|e| e.key.differences(key).len());
    let mut message = format!("no cassette in {} matches this invocation", dir.display());
    if let Some(entry) = closest {
        message.push_str(&format!(
            "; the closest is {}, which differs in",
            entry.path.display()
        ));
        for (field, recorded, live) in entry.key.differences(key) {
            message.push_str(&format!(" {field} (recorded {recorded:?}, given {live:?})"));
        }
    }
    message
}

/// Where a new recording of `key` goes: `SLUG-DIGEST-N.cassette`, N after the ones
/// there are.
pub fn new_path(dir: &Path, key: &Key, entries: &[Stored]) -> PathBuf {
    let prompt = key
        .values
        .iter()
        .find(|(f, _)| *f == "prompt")
        .map_or("", |(_, v)| v.as_str());
    let mut slug: String = prompt
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    slug = slug.trim_matches('-').to_owned();
    if slug.is_empty() {
        slug = "session".into();
    }
    let n = entries.iter().filter(|e| e.key == *key).count() + 1;
    dir.join(format!("{slug}-{}-{n:03}.cassette", key.digest()))
}

/// The library's cassettes that the journal shows no invocation played.
pub fn unused(dir: &Path, journal: &[journal::Entry]) -> Vec<PathBuf> {
    entries(dir, &MatchOn::default())
        .into_iter()
        .map(|e| e.path)
        .filter(|p| {
            let name = p.display().to_string();
            !journal.iter().any(|j| j.source.as_deref() == Some(name.as_str()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_on_is_a_list_or_changes_to_the_default() {
        assert_eq!(
            MatchOn::parse("prompt,model").expect("ok").fields(),
            ["prompt", "model"]
        );
        assert_eq!(
            MatchOn::parse("+argv,-model").expect("ok").fields(),
            ["prompt", "output_format", "partial", "argv"]
        );
        assert!(MatchOn::parse("prompt,colour")
            .expect_err("bad")
            .contains("`colour` is not a field"));
    }
}
