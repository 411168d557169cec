//! Snapshots of case records, as insta keeps them: `NAME.snap` files, new and changed
//! ones as `NAME.snap.new` for `cargo insta review`, and the same environment:
//!
//! | `INSTA_UPDATE` | a new or changed record | fails the run? |
//! | --- | --- | --- |
//! | `auto` (unset) | new: `NAME.snap`, on CI nothing; changed: `NAME.snap.new`, on CI nothing | new: on CI only; changed: yes |
//! | `new` | `NAME.snap.new`, on CI too | yes |
//! | `always` (`1`) | `NAME.snap` (accepted) | no |
//! | `unseen` | new: `NAME.snap`; changed: `NAME.snap.new` | only when changed |
//! | `no` | nothing | yes |
//! | `force` | `NAME.snap`, matching ones rewritten too | no |
//!
//! `INSTA_FORCE_PASS=1` keeps a differing snapshot from failing the run (files are
//! written as above); `INSTA_FORCE_UPDATE=1` is `force`. A matching record removes a
//! stale `NAME.snap.new`. Each snapshot's path is appended to
//! `INSTA_SNAPSHOT_REFERENCES_FILE` when it is set, so that
//! `cargo insta test --unreferenced=delete` keeps them.
//!
//! A new snapshot is written and passes outside CI, and fails on CI, as jest keeps
//! them (insta writes a new one for review and fails). [`pending`] lists the
//! `.snap.new` files of a folder, which [`Pending::accept`] and [`Pending::reject`]
//! settle, as `cargo insta review` does (`mock-agent snapshots review|accept|reject`).
//!
//! insta itself reads and compares the files ([`insta::Snapshot::from_file`], and its
//! own normalization: trailing white space, line endings, older formats). What is
//! written by hand, and why: insta has no public way to build and save a snapshot
//! (its only writer, `assert_snapshot!`, panics on a difference, and the release
//! binary aborts on a panic), and its reading of `INSTA_UPDATE` and `CI` is private.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use insta::internals::{SnapshotContents, TextSnapshotContents};
use insta::{Snapshot, TextSnapshotKind};

/// insta's `INSTA_UPDATE` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    /// `auto`: a new snapshot accepted, a changed one for review (`.snap.new`);
    /// nothing on CI.
    Auto,
    /// `always`: accept at once.
    Always,
    /// `new`: `.snap.new`, on CI too.
    New,
    /// `unseen`: accept new snapshots, review changed ones.
    Unseen,
    /// `no`: write nothing.
    No,
    /// `force`: accept, and rewrite matching snapshots too.
    Force,
}

/// What the environment asks of snapshots, read with insta's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// `INSTA_UPDATE` (or the legacy `INSTA_FORCE_UPDATE=1`).
    pub update: Update,
    /// `INSTA_FORCE_PASS=1`.
    pub force_pass: bool,
    /// Whether this is a CI run (`CI`, or `TF_BUILD`).
    pub ci: bool,
}

impl Policy {
    /// Reads `INSTA_UPDATE`, `INSTA_FORCE_UPDATE`, `INSTA_FORCE_PASS` and `CI` as insta
    /// does. A value insta would refuse is an error that says what to use.
    pub fn from_env() -> Result<Policy, String> {
        Policy::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`Policy::from_env`] through `var` (for tests).
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Result<Policy, String> {
        let legacy_force = ["INSTA_FORCE_UPDATE", "INSTA_FORCE_UPDATE_SNAPSHOTS"]
            .iter()
            .any(|name| var(name).as_deref() == Some("1"));
        let update = match var("INSTA_UPDATE").as_deref() {
            _ if legacy_force => Update::Force,
            None | Some("" | "auto") => Update::Auto,
            Some("always" | "1") => Update::Always,
            Some("new") => Update::New,
            Some("unseen") => Update::Unseen,
            Some("no") => Update::No,
            Some("force") => Update::Force,
            Some(other) => {
                return Err(format!(
                    "INSTA_UPDATE={other}: use auto, always, new, unseen, no or force"
                ))
            }
        };
        let force_pass = match var("INSTA_FORCE_PASS").as_deref() {
            None | Some("" | "0") => false,
            Some("1") => true,
            Some(other) => return Err(format!("INSTA_FORCE_PASS={other}: use 0 or 1")),
        };
        let ci = match var("CI").as_deref() {
            Some("false" | "0" | "") => false,
            Some(_) => true,
            None => var("TF_BUILD").is_some(),
        };
        Ok(Policy {
            update,
            force_pass,
            ci,
        })
    }

    /// Accepts every record as it is (`mock-agent test --accept`).
    #[must_use]
    pub fn accepting(mut self) -> Self {
        self.update = Update::Always;
        self
    }

    /// What to write for a record that differs from its snapshot, or has none.
    fn write(&self, exists: bool) -> Write {
        match self.update {
            Update::Always | Update::Force => Write::Accept,
            Update::Auto if self.ci => Write::Nothing,
            Update::Auto if !exists => Write::Accept,
            Update::Auto | Update::New => Write::Review,
            Update::Unseen if exists => Write::Review,
            Update::Unseen => Write::Accept,
            Update::No => Write::Nothing,
        }
    }
}

/// Where a differing record goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Write {
    /// `NAME.snap.new`, for review.
    Review,
    /// `NAME.snap`: accepted.
    Accept,
    /// Nothing.
    Nothing,
}

/// What comparing a record with its snapshot found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotState {
    /// The same as the snapshot.
    Matches,
    /// No snapshot yet.
    New,
    /// Different from the snapshot.
    Changed,
}

/// One case's snapshot, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The case.
    pub case: String,
    /// What the comparison found.
    pub state: SnapshotState,
    /// The file written, if one was.
    pub wrote: Option<PathBuf>,
    /// Whether it fails the run: it differs, was not accepted, and
    /// `INSTA_FORCE_PASS` is off.
    pub fails: bool,
}

impl Checked {
    /// Whether the record was taken as the new snapshot.
    pub fn accepted(&self) -> bool {
        self.wrote
            .as_ref()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "snap"))
    }
}

/// The snapshot file of a case in `dir`: its name with `/` made `__`.
pub fn snapshot_path(dir: &Path, case: &str) -> PathBuf {
    let name: String = case
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.@/".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{}.snap", name.replace('/', "__")))
}

/// Compares a case's record with its snapshot in `dir` with insta's comparison.
pub fn compare(dir: &Path, case: &str, record: &str) -> SnapshotState {
    let path = snapshot_path(dir, case);
    if !path.exists() {
        return SnapshotState::New;
    }
    // insta, too, takes a snapshot it cannot read for one to write again.
    let Ok(old) = Snapshot::from_file(&path) else {
        return SnapshotState::Changed;
    };
    let new = SnapshotContents::Text(TextSnapshotContents::new(
        record.to_owned(),
        TextSnapshotKind::File,
    ));
    if old.contents() == &new {
        SnapshotState::Matches
    } else {
        SnapshotState::Changed
    }
}

/// Checks a case's record against its snapshot in `dir` the way
/// `insta::assert_snapshot!` does under `policy`, without panicking.
pub fn check(dir: &Path, case: &str, record: &str, policy: &Policy) -> std::io::Result<Checked> {
    let path = snapshot_path(dir, case);
    let review = path.with_extension("snap.new");
    let state = compare(dir, case, record);
    reference(&path);
    let write = match state {
        SnapshotState::Matches => {
            let _ = std::fs::remove_file(&review);
            if policy.update != Update::Force {
                return Ok(Checked {
                    case: case.to_owned(),
                    state,
                    wrote: None,
                    fails: false,
                });
            }
            Write::Accept
        }
        SnapshotState::New | SnapshotState::Changed => policy.write(path.exists()),
    };
    let wrote = match write {
        Write::Nothing => None,
        Write::Accept => {
            save(&path, case, record)?;
            let _ = std::fs::remove_file(&review);
            Some(path)
        }
        Write::Review => {
            save(&review, case, record)?;
            Some(review)
        }
    };
    Ok(Checked {
        case: case.to_owned(),
        state,
        fails: state != SnapshotState::Matches && write != Write::Accept && !policy.force_pass,
        wrote,
    })
}

/// A snapshot waiting for review: a `.snap.new` file, and the `.snap` it would
/// replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The case (the snapshot's `expression`), or the file's name.
    pub case: String,
    /// The `.snap.new` file.
    pub path: PathBuf,
    /// The snapshot it replaces, if there is one: its record.
    pub old: Option<String>,
    /// The record waiting.
    pub new: String,
}

impl Pending {
    /// The `.snap` file it becomes.
    pub fn snapshot(&self) -> PathBuf {
        self.path.with_extension("")
    }

    /// Takes it as the snapshot.
    pub fn accept(&self) -> std::io::Result<()> {
        std::fs::rename(&self.path, self.snapshot())
    }

    /// Drops it, keeping the snapshot.
    pub fn reject(&self) -> std::io::Result<()> {
        std::fs::remove_file(&self.path)
    }
}

/// The snapshots waiting for review in `dir` and its folders (`*.snap.new`), sorted by
/// path.
pub fn pending(dir: &Path) -> std::io::Result<Vec<Pending>> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder)? {
            let path = entry?.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.to_string_lossy().ends_with(".snap.new") {
                let (case, new) = read(&path)?;
                let old = match std::fs::read_to_string(path.with_extension("")) {
                    Ok(_) => Some(read(&path.with_extension(""))?.1),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                    Err(e) => return Err(e),
                };
                let case = case.unwrap_or_else(|| {
                    path.file_name()
                        .map(|n| n.to_string_lossy().trim_end_matches(".snap.new").to_owned())
                        .unwrap_or_default()
                });
                found.push(Pending { case, path, old, new });
            }
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

/// The record kept as the snapshot of `case` in `dir`, if there is one that insta reads.
pub fn recorded(dir: &Path, case: &str) -> Option<String> {
    read(&snapshot_path(dir, case)).ok().map(|(_, record)| record)
}

/// A snapshot file's `expression` (the case) and its record, read as insta reads it.
fn read(path: &Path) -> std::io::Result<(Option<String>, String)> {
    let snapshot = Snapshot::from_file(path)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
    let record = match snapshot.contents() {
        SnapshotContents::Text(text) => text.to_string(),
        other => format!("{other:?}"),
    };
    let text = std::fs::read_to_string(path)?;
    let case = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .and_then(|(header, _)| {
            header
                .lines()
                .find_map(|l| l.strip_prefix("expression: "))
                .map(|e| e.trim_matches('"').to_owned())
        });
    Ok((case, record))
}

/// Writes a snapshot file as insta 1.x serializes one: YAML metadata, `---`, the
/// record with trailing white space trimmed and line endings made `\n`.
fn save(path: &Path, case: &str, record: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = format!(
        "---\nsource: mock-agent test\nexpression: {}\n---\n{}\n",
        yaml_scalar(case),
        record.trim_end().replace("\r\n", "\n")
    );
    std::fs::write(path, text)
}

/// Appends the snapshot's path to `INSTA_SNAPSHOT_REFERENCES_FILE`, as insta does.
fn reference(path: &Path) {
    let Some(list) = std::env::var_os("INSTA_SNAPSHOT_REFERENCES_FILE").filter(|v| !v.is_empty()) else {
        return;
    };
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(list) {
        let _ = writeln!(file, "{}", absolute.display());
    }
}

/// A YAML scalar as insta's emitter writes it: plain when it can be, else quoted.
fn yaml_scalar(text: &str) -> String {
    const WORDS: &[&str] = &[
        "yes", "Yes", "YES", "no", "No", "NO", "True", "TRUE", "true", "False", "FALSE", "false", "on", "On",
        "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~",
    ];
    let plain = !(text.is_empty()
        || text.starts_with(' ')
        || text.ends_with(' ')
        || text.starts_with(['&', '*', '?', '|', '-', '<', '>', '=', '!', '%', '@', '.'])
        || text.starts_with("0x")
        || text.contains(|c: char| {
            matches!(
                c,
                ':' | '{' | '}' | '[' | ']' | ',' | '#' | '`' | '"' | '\'' | '\\'
            ) || c.is_control()
        })
        || WORDS.contains(&text)
        || text.parse::<f64>().is_ok());
    if plain {
        return text.to_owned();
    }
    let mut quoted = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\t' => quoted.push_str("\\t"),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            c if c.is_control() => quoted.push_str(&format!("\\u{:04x}", c as u32)),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(vars: &[(&str, &str)]) -> Result<Policy, String> {
        Policy::from_lookup(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn the_environment_is_read_as_insta_reads_it() {
        assert_eq!(policy(&[]).map(|p| (p.update, p.ci)), Ok((Update::Auto, false)));
        assert_eq!(policy(&[("CI", "true")]).map(|p| p.ci), Ok(true));
        assert_eq!(policy(&[("CI", "false")]).map(|p| p.ci), Ok(false));
        assert_eq!(policy(&[("TF_BUILD", "True")]).map(|p| p.ci), Ok(true));
        assert_eq!(
            policy(&[("INSTA_UPDATE", "1")]).map(|p| p.update),
            Ok(Update::Always)
        );
        assert_eq!(
            policy(&[("INSTA_UPDATE", "no"), ("INSTA_FORCE_UPDATE", "1")]).map(|p| p.update),
            Ok(Update::Force)
        );
        assert_eq!(
            policy(&[("INSTA_FORCE_PASS", "1")]).map(|p| p.force_pass),
            Ok(true)
        );
        assert!(policy(&[("INSTA_UPDATE", "sometimes")]).is_err());
        assert!(policy(&[("INSTA_FORCE_PASS", "yes")]).is_err());
    }

    #[test]
    fn each_mode_writes_what_insta_writes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let run = |vars: &[(&str, &str)], record: &str| {
            check(dir.path(), "a/b", record, &policy(vars).expect("policy")).expect("checks")
        };
        let snap = dir.path().join("a__b.snap");
        let review = dir.path().join("a__b.snap.new");
        // On CI, auto writes nothing and fails.
        let checked = run(&[("CI", "1")], "one");
        assert_eq!(
            (checked.state, checked.wrote.clone(), checked.fails),
            (SnapshotState::New, None, true)
        );
        // new: for review.
        let checked = run(&[("INSTA_UPDATE", "new")], "one");
        assert_eq!((checked.wrote, checked.fails), (Some(review.clone()), true));
        // auto, off CI, accepts a new one, and passes.
        let checked = run(&[], "one");
        assert_eq!((checked.wrote, checked.fails), (Some(snap.clone()), false));
        assert!(!review.exists(), "accepting removes the .snap.new");
        // auto: a changed one for review.
        let checked = run(&[], "zero");
        assert_eq!(
            (checked.state, checked.wrote, checked.fails),
            (SnapshotState::Changed, Some(review.clone()), true)
        );
        let pending = pending(dir.path()).expect("lists");
        assert_eq!(pending.len(), 1);
        assert_eq!(
            (
                pending[0].case.as_str(),
                pending[0].old.as_deref(),
                pending[0].new.as_str()
            ),
            ("a/b", Some("one"), "zero")
        );
        pending[0].reject().expect("rejects");
        assert!(!review.exists());
        // unseen accepts a new one.
        std::fs::remove_file(&snap).expect("removes");
        let checked = run(&[("INSTA_UPDATE", "unseen")], "one");
        assert_eq!((checked.wrote, checked.fails), (Some(snap.clone()), false));
        // ... but not a changed one; force-pass keeps it from failing.
        let checked = run(&[("INSTA_UPDATE", "unseen"), ("INSTA_FORCE_PASS", "1")], "two");
        assert_eq!(
            (checked.state, checked.wrote, checked.fails),
            (SnapshotState::Changed, Some(review.clone()), false)
        );
        // A match removes the stale review file; trailing white space is not compared.
        let checked = run(&[], "one \n\n");
        assert_eq!((checked.state, checked.fails), (SnapshotState::Matches, false));
        assert!(!review.exists());
        // no writes nothing.
        let checked = run(&[("INSTA_UPDATE", "no")], "three");
        assert_eq!((checked.wrote, checked.fails), (None, true));
        let written = std::fs::read_to_string(&snap).expect("reads");
        assert_eq!(
            written,
            "---\nsource: mock-agent test\nexpression: a/b\n---\none\n"
        );
    }

    #[test]
    fn names_are_quoted_only_when_yaml_needs_it() {
        assert_eq!(yaml_scalar("default/eof@mid-line"), "default/eof@mid-line");
        assert_eq!(yaml_scalar("a: b"), "\"a: b\"");
        assert_eq!(yaml_scalar("123"), "\"123\"");
        assert_eq!(yaml_scalar("@x"), "\"@x\"");
    }
}
