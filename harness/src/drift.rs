//! Drift: how a stand-in's output differs from its real CLI's on the same scenario.
//!
//! Pure: two runs (the JSON lines each wrote on stdout, and how each ended) and the
//! dialect's [`Rules`] in, a list of [`Difference`]s out. What is compared:
//!
//! - **argv**: whether each side accepted the command line (it wrote a JSON line, or
//!   exited 0);
//! - **lines**: each line's *label* (the values of the dialect's kind keys, `type` and
//!   `subtype` by default: `system/init`), which labels appear on one side only;
//! - **order**: the labels in order, each run of one label taken as one and a pair of
//!   labels repeated at once taken as one (a tool round made twice is the same order);
//! - **fields**: per label, every field path (`message.content[].type`) with the JSON
//!   types it had over all that label's lines (`string`, `number`, `null|object`, ...);
//!   a field the dialect names in [`Rules::values`] is compared by value (its values
//!   normalized: no ids, times, paths or versions), and the keys of an object named in
//!   [`Rules::maps`] are data (model names), read as `*`. A field missing on one side
//!   is reported once, at its shallowest path;
//! - **the ending**: the exit code or signal, and stderr's first line, normalized.
//!
//! A conversation (a server driven by a scripted client: `codex app-server`, ACP) is
//! compared the same way: the server's messages are its lines, a notification or a
//! request of the server labelled by its kind keys (`method`, and a nested one such as
//! `params.update.sessionUpdate`), an answer to one of the client's requests by that
//! request's method, `answer:initialize` or `error:session/new` (the client marks it
//! with [`ANSWERS`]).
//!
//! Each difference has a key, `CASE LABEL FIELD`; an [`AllowList`] (one entry a line,
//! `KEY # why`, `*` matching any run of characters in each of the three words) says
//! which are known and why.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use serde_json::Value;

use crate::error::{Diagnostic, ProblemKind};
use crate::frames::Exit;

/// The member a conversation's client adds to an answer to one of its requests: that
/// request's method. Such a line is labelled `answer:METHOD` (or `error:METHOD`), and
/// the member is not a field.
pub const ANSWERS: &str = "(answers)";

/// What a dialect tells the comparison about its lines (`run::Dialect::drift_rules`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rules {
    /// The keys whose values name a line's kind, in order (`type`, `subtype`): the
    /// label is their values joined by `/`. A key may be a path through objects
    /// (`params.update.sessionUpdate`).
    pub kind_keys: &'static [&'static str],
    /// Field paths compared by value (an enum: `subtype`, `terminal_reason`,
    /// `message.content[].type`), not only by type.
    pub values: &'static [&'static str],
    /// Field paths of objects whose keys are data (`modelUsage`, keyed by model name):
    /// their keys read as `*`.
    pub maps: &'static [&'static str],
}

impl Default for Rules {
    fn default() -> Self {
        Rules::DEFAULT
    }
}

impl Rules {
    /// `type` and `subtype` name a line; nothing compared by value; no maps.
    pub const DEFAULT: Rules = Rules {
        kind_keys: &["type", "subtype"],
        values: &[],
        maps: &[],
    };

    /// The label of a line: its kind keys' values joined by `/` (`system/init`),
    /// `(not an object)` for JSON that is not an object.
    pub fn label(&self, line: &Value) -> String {
        let Some(object) = line.as_object() else {
            return "(not an object)".to_owned();
        };
        if let Some(method) = object.get(ANSWERS).and_then(Value::as_str) {
            let how = if object.contains_key("error") {
                "error"
            } else {
                "answer"
            };
            return format!("{how}:{method}");
        }
        let parts: Vec<String> = self
            .kind_keys
            .iter()
            .filter_map(|key| key.split('.').try_fold(line, |at, part| at.get(part)))
            .map(|value| match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        if parts.is_empty() {
            "(untyped)".to_owned()
        } else {
            parts.join("/")
        }
    }
}

/// How a process ended, as drift compares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ending {
    /// Its exit code or signal; `None` when it was killed for taking too long.
    pub exit: Option<Exit>,
    /// The first line of its stderr, if it wrote one.
    pub stderr_first: Option<String>,
}

/// One run of a CLI: what it wrote on stdout, line by line, and how it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Each stdout line, parsed (a line that is not JSON is a string of its text).
    pub lines: Vec<Value>,
    /// Lines that were not JSON.
    pub not_json: usize,
    /// How it ended.
    pub ending: Ending,
}

impl Run {
    /// A run from its raw stdout and stderr, and how it ended.
    pub fn from_output(stdout: &[u8], stderr: &[u8], exit: Option<Exit>) -> Run {
        let mut lines = Vec::new();
        let mut not_json = 0;
        for line in stdout.split(|b| *b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Value>(line) {
                Ok(value) => lines.push(value),
                Err(_) => not_json += 1,
            }
        }
        let stderr_first = String::from_utf8_lossy(stderr)
            .lines()
            .find(|l| !l.trim().is_empty())
            .map(str::to_owned);
        Run {
            lines,
            not_json,
            ending: Ending { exit, stderr_first },
        }
    }

    /// Whether the command line was taken: a JSON line was written, or the run
    /// exited 0.
    pub fn accepted(&self) -> bool {
        !self.lines.is_empty() || self.ending.exit == Some(Exit::Code(0))
    }
}

/// One difference between the real CLI and the stand-in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Difference {
    /// The case (scenario and invocation) it was seen in.
    pub case: String,
    /// The line's label, or `(argv)`, `(order)`, `(end)`.
    pub label: String,
    /// The field path, or what of the label or ending differs (`(line)`, `exit`).
    pub field: String,
    /// What the real CLI had (`-`: nothing).
    pub real: String,
    /// What the stand-in had (`-`: nothing).
    pub stand_in: String,
}

impl Difference {
    /// Its key in an allow-list: `CASE LABEL FIELD`.
    pub fn key(&self) -> String {
        format!("{} {} {}", self.case, self.label, self.field)
    }
}

/// Absent, in a table.
const NONE: &str = "-";

/// The differences between `real` and `stand_in` on `case`, in the order of the
/// table: argv, order, lines and fields by label, then the ending.
pub fn compare(case: &str, real: &Run, stand_in: &Run, rules: &Rules) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut push = |label: &str, field: &str, real: String, stand_in: String| {
        out.push(Difference {
            case: case.to_owned(),
            label: label.to_owned(),
            field: field.to_owned(),
            real,
            stand_in,
        });
    };
    let yes_no = |run: &Run| if run.accepted() { "yes" } else { "no" }.to_owned();
    if real.accepted() != stand_in.accepted() {
        push("(argv)", "accepted", yes_no(real), yes_no(stand_in));
    }
    if real.not_json != stand_in.not_json {
        push(
            "(lines)",
            "not-json",
            real.not_json.to_string(),
            stand_in.not_json.to_string(),
        );
    }
    let (order_real, order_stand_in) = (order(real, rules), order(stand_in, rules));
    if order_real != order_stand_in {
        push(
            "(order)",
            "labels",
            order_real.join(" "),
            order_stand_in.join(" "),
        );
    }
    let (schema_real, schema_stand_in) = (schema(real, rules), schema(stand_in, rules));
    let labels: BTreeSet<&String> = schema_real.keys().chain(schema_stand_in.keys()).collect();
    for label in labels {
        match (schema_real.get(label), schema_stand_in.get(label)) {
            (Some(r), Some(s)) => {
                for (field, real_types, stand_in_types) in fields(r, s) {
                    push(label, &field, real_types, stand_in_types);
                }
            }
            (r, s) => {
                let count = |fields: Option<&Fields>| {
                    fields.map_or(NONE.to_owned(), |f| format!("{} lines", f.lines))
                };
                push(label, "(line)", count(r), count(s));
            }
        }
    }
    let exit = |run: &Run| match run.ending.exit {
        Some(Exit::Code(code)) => format!("exit {code}"),
        Some(Exit::Signal(signal)) => format!("signal {}", signal.name()),
        None => "timed out".to_owned(),
    };
    if exit(real) != exit(stand_in) {
        push("(end)", "exit", exit(real), exit(stand_in));
    }
    let stderr = |run: &Run| {
        run.ending
            .stderr_first
            .as_deref()
            .map_or(NONE.to_owned(), normalize_text)
    };
    if stderr(real) != stderr(stand_in) {
        push("(end)", "stderr", stderr(real), stderr(stand_in));
    }
    out
}

/// The labels of a run in order: runs of one label as one, and a pair repeated at
/// once (`A B A B`) as one pair.
pub fn order(run: &Run, rules: &Rules) -> Vec<String> {
    let mut labels: Vec<String> = run.lines.iter().map(|l| rules.label(l)).collect();
    labels.dedup();
    let mut out: Vec<String> = Vec::with_capacity(labels.len());
    for label in labels {
        out.push(label);
        let n = out.len();
        if n >= 4 && out[n - 4..n - 2] == out[n - 2..] {
            out.truncate(n - 2);
        }
    }
    out
}

/// A label's fields over all its lines: path to the types (or values) seen.
#[derive(Debug, Default)]
struct Fields {
    lines: usize,
    paths: BTreeMap<String, BTreeSet<String>>,
}

fn schema(run: &Run, rules: &Rules) -> BTreeMap<String, Fields> {
    let mut out: BTreeMap<String, Fields> = BTreeMap::new();
    for line in &run.lines {
        let fields = out.entry(rules.label(line)).or_default();
        fields.lines += 1;
        if let Some(object) = line.as_object() {
            for (key, value) in object.iter().filter(|(key, _)| *key != ANSWERS) {
                walk(key.clone(), value, rules, &mut fields.paths);
            }
        }
    }
    out
}

fn walk(path: String, value: &Value, rules: &Rules, out: &mut BTreeMap<String, BTreeSet<String>>) {
    let seen = if rules.values.contains(&path.as_str()) {
        match value {
            Value::String(s) => format!("{:?}", normalize_text(s)),
            other => other.to_string(),
        }
    } else {
        type_name(value).to_owned()
    };
    out.entry(path.clone()).or_default().insert(seen);
    match value {
        Value::Object(object) => {
            let map = rules.maps.contains(&path.as_str());
            for (key, inner) in object {
                let key = if map { "*" } else { key.as_str() };
                walk(format!("{path}.{key}"), inner, rules, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(format!("{path}[]"), item, rules, out);
            }
        }
        _ => {}
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The path a field hangs from (`a.b[].c` -> `a.b[]`, `a.b[]` -> `a.b`), `None` at the top.
fn parent(path: &str) -> Option<&str> {
    if let Some(array) = path.strip_suffix("[]") {
        return Some(array);
    }
    path.rfind('.').map(|at| &path[..at])
}

/// The fields of one label that differ: each as `(path, real, stand-in)`; a field
/// missing on one side only where its parent is on both.
fn fields(real: &Fields, stand_in: &Fields) -> Vec<(String, String, String)> {
    let paths: BTreeSet<&String> = real.paths.keys().chain(stand_in.paths.keys()).collect();
    let shown = |set: Option<&BTreeSet<String>>| {
        set.map_or(NONE.to_owned(), |s| {
            s.iter().cloned().collect::<Vec<_>>().join("|")
        })
    };
    let both = |path: &str| real.paths.contains_key(path) && stand_in.paths.contains_key(path);
    paths
        .into_iter()
        .filter_map(|path| {
            let (r, s) = (real.paths.get(path), stand_in.paths.get(path));
            let differs = match (r, s) {
                (Some(r), Some(s)) => r != s,
                _ => parent(path).is_none_or(both),
            };
            differs.then(|| (path.clone(), shown(r), shown(s)))
        })
        .collect()
}

/// A text with what changes from run to run taken out: UUIDs (`<uuid>`), absolute
/// paths (`<path>`), versions (`<version>`), times (`<time>`), long hex ids (`<id>`);
/// terminal colors (ANSI escapes) go.
pub fn normalize_text(text: &str) -> String {
    let text = strip_ansi(text);
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            out.push_str(&normalize_word(word));
            word.clear();
        }
    };
    for c in text.chars() {
        if c.is_whitespace() || matches!(c, '"' | '\'' | '(' | ')' | ',' | '[' | ']' | '{' | '}') {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// `text` without its ANSI escape sequences (`ESC [ ... letter`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for inner in chars.by_ref() {
                if inner.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn normalize_word(word: &str) -> String {
    let trimmed = word.trim_end_matches(['.', ':', ';']);
    let tail = &word[trimmed.len()..];
    let kind = if is_uuid(trimmed) {
        Some("<uuid>")
    } else if trimmed.starts_with('/') && trimmed.len() > 1 {
        Some("<path>")
    } else if is_time(trimmed) {
        Some("<time>")
    } else if is_version(trimmed) {
        Some("<version>")
    } else if trimmed.len() >= 16 && trimmed.chars().all(|c| c.is_ascii_hexdigit()) {
        Some("<id>")
    } else {
        None
    };
    kind.map_or_else(|| word.to_owned(), |k| format!("{k}{tail}"))
}

fn is_uuid(word: &str) -> bool {
    let parts: Vec<&str> = word.split('-').collect();
    parts.iter().map(|p| p.len()).collect::<Vec<_>>() == [8, 4, 4, 4, 12]
        && parts.iter().all(|p| p.chars().all(|c| c.is_ascii_hexdigit()))
}

fn is_version(word: &str) -> bool {
    let word = word.strip_prefix('v').unwrap_or(word);
    let parts: Vec<&str> = word.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

fn is_time(word: &str) -> bool {
    let bytes = word.as_bytes();
    bytes.len() >= 19 && bytes[4] == b'-' && bytes[7] == b'-' && bytes[10] == b'T' && bytes[13] == b':'
}

/// One allowed difference: its key's three words (with `*`) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowed {
    /// `CASE LABEL FIELD`, each word possibly with `*`.
    pub key: [String; 3],
    /// Why it is allowed.
    pub why: String,
    /// The allow-list's line.
    pub line: u64,
}

impl Allowed {
    /// Whether it covers `difference`.
    pub fn covers(&self, difference: &Difference) -> bool {
        let words = [&difference.case, &difference.label, &difference.field];
        self.key
            .iter()
            .zip(words)
            .all(|(pattern, word)| glob(pattern, word))
    }
}

/// The differences known and explained: a committed file, one entry a line,
/// `CASE LABEL FIELD # why` (`*` in a word matches any run of characters); blank
/// lines and lines starting with `#` are comments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList {
    /// The entries, in file order.
    pub entries: Vec<Allowed>,
}

/// What an allow-list entry looks like, for its errors.
const ALLOW_HELP: &str = "an entry is `CASE LABEL FIELD # why`, e.g. \
     `*/sdk system/init tools # the stand-in lists fewer tools, on purpose`; every entry says why";

impl AllowList {
    /// Reads an allow-list's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<AllowList, Diagnostic> {
        let mut entries = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = (n + 1) as u64;
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let problem = |column: usize, message: String| {
                Diagnostic {
                    path: path.to_owned(),
                    line,
                    column: column as u64,
                    kind: ProblemKind::Data,
                    message,
                    source_line: None,
                    help: ALLOW_HELP.to_owned(),
                }
                .with_source(raw.as_bytes())
            };
            let Some((key, why)) = raw.split_once('#') else {
                return Err(problem(
                    raw.len() + 1,
                    "the entry does not say why (`# why`)".to_owned(),
                ));
            };
            let why = why.trim();
            if why.is_empty() {
                return Err(problem(raw.len(), "the entry's why is empty".to_owned()));
            }
            let words: Vec<&str> = key.split_whitespace().collect();
            let Ok(key) = <[&str; 3]>::try_from(words.as_slice()) else {
                return Err(problem(
                    1,
                    format!(
                        "the key has {} words; it has three: CASE LABEL FIELD",
                        words.len()
                    ),
                ));
            };
            entries.push(Allowed {
                key: key.map(str::to_owned),
                why: why.to_owned(),
                line,
            });
        }
        Ok(AllowList { entries })
    }

    /// The entry that covers `difference`, if one does.
    pub fn allowing(&self, difference: &Difference) -> Option<&Allowed> {
        self.entries.iter().find(|e| e.covers(difference))
    }
}

/// Whether `word` matches `pattern`, where `*` matches any run of characters.
fn glob(pattern: &str, word: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = word.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// A table of differences, one a line under a heading, the columns aligned:
/// `CASE  TYPE  FIELD  real  stand-in  allowed?`.
pub struct Table<'a> {
    /// The differences, each with the entry that allows it.
    pub rows: &'a [(Difference, Option<&'a Allowed>)],
}

impl fmt::Display for Table<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let clip = |s: &str| {
            if s.chars().count() > 60 {
                format!("{}...", s.chars().take(57).collect::<String>())
            } else {
                s.to_owned()
            }
        };
        let rows: Vec<[String; 6]> = self
            .rows
            .iter()
            .map(|(d, allowed)| {
                [
                    d.case.clone(),
                    d.label.clone(),
                    d.field.clone(),
                    clip(&d.real),
                    clip(&d.stand_in),
                    allowed.map_or("NEW".to_owned(), |a| format!("allowed (line {})", a.line)),
                ]
            })
            .collect();
        let heading = ["CASE", "TYPE", "FIELD", "real", "stand-in", ""].map(str::to_owned);
        let mut widths = [0usize; 6];
        for row in std::iter::once(&heading).chain(&rows) {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for row in std::iter::once(&heading).chain(&rows) {
            let mut line = String::new();
            for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
                if i + 1 == row.len() {
                    line.push_str(cell);
                } else {
                    line.push_str(&format!("{cell:<w$}  "));
                }
            }
            writeln!(f, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(lines: &[Value], code: i32, stderr: &str) -> Run {
        let stdout: String = lines.iter().map(|l| format!("{l}\n")).collect();
        Run::from_output(stdout.as_bytes(), stderr.as_bytes(), Some(Exit::Code(code)))
    }

    const RULES: Rules = Rules {
        kind_keys: &["type", "subtype"],
        values: &["status"],
        maps: &["usage"],
    };

    #[test]
    fn the_same_shapes_with_other_values_do_not_differ() {
        let real = run(
            &[
                json!({"type": "start", "id": "a", "usage": {"m-1": {"n": 1}}}),
                json!({"type": "end", "status": "ok"}),
            ],
            0,
            "",
        );
        let stand_in = run(
            &[
                json!({"type": "start", "id": "b", "usage": {"m-2": {"n": 7}}}),
                json!({"type": "end", "status": "ok"}),
            ],
            0,
            "",
        );
        assert_eq!(compare("c", &real, &stand_in, &RULES), []);
    }

    #[test]
    fn a_renamed_field_a_value_and_an_exit_code_differ() {
        let real = run(
            &[json!({"type": "end", "status": "ok", "num_turns": 2, "usage": {"a": 1}})],
            1,
            "Error at /tmp/x/y: 123e4567-e89b-12d3-a456-426614174000",
        );
        let stand_in = run(
            &[json!({"type": "end", "status": "fine", "turns": 2, "usage": {}})],
            0,
            "Error at /home/u: 00000000-0000-0000-0000-000000000000",
        );
        let keys: Vec<String> = compare("c", &real, &stand_in, &RULES)
            .iter()
            .map(Difference::key)
            .collect();
        assert_eq!(
            keys,
            [
                "c end num_turns",
                "c end status",
                "c end turns",
                "c end usage.*",
                "c (end) exit"
            ]
        );
    }

    #[test]
    fn a_missing_object_is_one_difference_not_one_per_field() {
        let real = run(&[json!({"type": "a", "x": {"y": {"z": 1}, "w": [1]}})], 0, "");
        let stand_in = run(&[json!({"type": "a"})], 0, "");
        let found = compare("c", &real, &stand_in, &RULES);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].field.as_str(), found[0].stand_in.as_str()), ("x", "-"));
    }

    #[test]
    fn order_takes_repeated_rounds_as_one() {
        let lines: Vec<Value> = ["s", "a", "a", "u", "a", "u", "a", "r"]
            .iter()
            .map(|t| json!({"type": t}))
            .collect();
        assert_eq!(order(&run(&lines, 0, ""), &RULES), ["s", "a", "u", "a", "r"]);
        let other = run(
            &[json!({"type": "s"}), json!({"type": "r"}), json!({"type": "a"})],
            0,
            "",
        );
        let found = compare("c", &run(&lines, 0, ""), &other, &RULES);
        assert_eq!(found[0].label, "(order)");
    }

    #[test]
    fn a_line_type_on_one_side_is_one_row() {
        let real = run(&[json!({"type": "x", "subtype": "y", "a": 1})], 0, "");
        let stand_in = run(&[], 0, "");
        let found = compare("c", &real, &stand_in, &RULES);
        assert!(found
            .iter()
            .any(|d| d.key() == "c x/y (line)" && d.real == "1 lines"));
    }

    #[test]
    fn a_conversation_s_lines_are_labelled_by_nested_kinds_and_answers_by_their_request() {
        const ACP: Rules = Rules {
            kind_keys: &["method", "params.update.sessionUpdate"],
            values: &[],
            maps: &[],
        };
        let update = json!({"method": "note", "params": {"update": {"sessionUpdate": "call"}}});
        assert_eq!(ACP.label(&update), "note/call");
        // Whatever its members (JSON-RPC's or not), an answer is named by its mark.
        let answer = json!({"id": 1, "value": {"sessionId": "s"}, ANSWERS: "open"});
        assert_eq!(ACP.label(&answer), "answer:open");
        let error = json!({"id": 2, "error": {"code": -32603}, ANSWERS: "go"});
        assert_eq!(ACP.label(&error), "error:go");
        // The mark is not a field: the same answer without it has the same fields.
        let real = Run {
            lines: vec![answer.clone()],
            not_json: 0,
            ending: Ending {
                exit: None,
                stderr_first: None,
            },
        };
        let mut stand_in = real.clone();
        stand_in.lines[0]["value"]["sessionId"] = json!(7);
        let found = compare("c", &real, &stand_in, &ACP);
        assert_eq!(
            found.iter().map(Difference::key).collect::<Vec<_>>(),
            ["c answer:open value.sessionId"]
        );
        assert!(!schema(&real, &ACP)["answer:open"].paths.contains_key(ANSWERS));
    }

    #[test]
    fn texts_lose_ids_paths_versions_and_times() {
        assert_eq!(
            normalize_text("at /a/b.txt: 2.1.331 (v1.0.0) 2026-11-27T14:58:00.145Z 0123456789abcdef01"),
            "at <path>: <version> (<version>) <time> <id>"
        );
        assert_eq!(
            normalize_text("\x1b[2m2026-11-27T19:44:37.060628Z\x1b[0m \x1b[31mERROR\x1b[0m x"),
            "<time> ERROR x"
        );
    }

    #[test]
    fn an_allow_list_says_why_and_globs_each_word() {
        let text =
            "# known\n*/sdk system/init tools # fewer tools, on purpose\n\ntext/* (end) exit # inferred\n";
        let list = AllowList::parse(text, Path::new("a.allow")).expect("parses");
        assert_eq!(list.entries.len(), 2);
        let d = |case: &str, label: &str, field: &str| Difference {
            case: case.into(),
            label: label.into(),
            field: field.into(),
            real: String::new(),
            stand_in: String::new(),
        };
        assert_eq!(
            list.allowing(&d("x/sdk", "system/init", "tools")).map(|a| a.line),
            Some(2)
        );
        assert!(list.allowing(&d("x/print", "system/init", "tools")).is_none());
        assert!(list.allowing(&d("text/print", "(end)", "exit")).is_some());
        let no_why = AllowList::parse("a b c\n", Path::new("a.allow")).unwrap_err();
        assert_eq!((no_why.line, no_why.column), (1, 6));
        assert!(no_why.message.contains("why"));
        let two = AllowList::parse("a b # x\n", Path::new("a.allow")).unwrap_err();
        assert!(two.message.contains("three"), "{}", two.message);
    }

    #[test]
    fn globs_match_runs_of_characters() {
        assert!(glob("*", ""));
        assert!(glob("a*c", "abbc"));
        assert!(glob("usage.*", "usage.cache.x"));
        assert!(!glob("a*c", "abcd"));
        assert!(glob("*x*", "axb"));
        assert!(!glob("ab", "abc"));
    }
}
