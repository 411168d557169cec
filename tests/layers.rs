//! The layering of both crates: a module imports only from the modules below it, in
//! the order each crate's `lib.rs` documents (shared/DESIGN.md's layers). An import
//! that points up names its file, line and path.

use std::path::Path;

use crate::support::root;

/// `harness`'s modules, lowest first (see `harness/src/lib.rs`). A module is named by
/// its path; a file belongs to the longest path of this list that it lies under (a
/// dialect's folder spans layers: its wire model is at the bottom, its rules, scripts
/// and strategies are built on the machinery below them).
const HARNESS: &[&str] = &[
    // 1. the stream model, and each dialect's wire model
    "exit_codes",
    "digest",
    "error",
    "dialects",
    "dialects::cursor_print::events",
    "dialects::cursor_acp::wire",
    "dialects::cursor_acp::rpc",
    "dialects::claude::wire",
    "dialects::claude::session",
    "dialects::claude::play",
    "dialects::codex::wire",
    "dialects::codex::session",
    "dialects::codex::args",
    "dialects::codex::schema",
    "dialects::codex::exec",
    "dialects::codex::app_server",
    "peek",
    "format",
    "frames",
    "models",
    "dialects::cursor_acp::conversation",
    // 2. recorded runs
    "cassette",
    "journal",
    // 3. the pure stages, then what is built on them
    "dialects::cursor_print::render",
    "timing",
    "faults",
    "dialects::cursor_print::faults",
    "dialects::claude::faults",
    "check::findings",
    "dialects::cursor_acp::tell",
    "dialects::cursor_acp::faults",
    "dialects::cursor_print::check",
    "dialects::cursor_acp::check",
    "dialects::claude::check",
    "check",
    "dialects::cursor_print::expect",
    "dialects::cursor_acp::expect",
    "dialects::claude::expect",
    "dialects::claude::cassette",
    "scenario",
    "dialects::cursor_acp::script",
    "dialects::cursor_print",
    "generate::config",
    "dialects::cursor_print::generate",
    "dialects::cursor_acp::generate",
    "dialects::claude::generate",
    "generate",
    "source",
    // a source's conversation (`conversation`), and the summary of one
    "dialects::cursor_acp",
    "dialects::claude",
    // 4. the runner
    "run",
];

/// `mock-agent`'s modules, lowest first (see `mock-agent/src/lib.rs`).
const MOCK_AGENT: &[&str] = &[
    "process", "args", "library", "settings", "execute", "record", "serve", "claude", "agent", "commands",
];

/// Every `crate::NAME` a source text refers to, with its 1-based line: plain paths
/// (`use crate::frames::Frame;`, `crate::faults::parse(...)`) and groups
/// (`use crate::{cassette::Recording, frames::Frames};`).
fn imports(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // The first name of each top-level item of the group.
                let mut depth = 0;
                let mut name = String::new();
                let mut named = false;
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            if !name.is_empty() {
                                found.push((
                                    index + 1,
                                    std::mem::take(&mut name).trim_end_matches(':').to_owned(),
                                ));
                            }
                            named = false;
                        }
                        c if depth == 0 && !named && (c.is_alphanumeric() || c == '_' || c == ':') => {
                            name.push(c)
                        }
                        _ if !name.is_empty() => {
                            found.push((
                                index + 1,
                                std::mem::take(&mut name).trim_end_matches(':').to_owned(),
                            ));
                            named = true;
                        }
                        _ => {}
                    }
                }
                if !name.is_empty() {
                    found.push((index + 1, name.trim_end_matches(':').to_owned()));
                }
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                found.push((index + 1, name.trim_end_matches(':').to_owned()));
            }
        }
    }
    found
}

/// The longest module of `order` that `path` (`a::b::c`) is, or lies in.
fn listed<'a>(order: &[&'a str], path: &str) -> Option<&'a str> {
    order
        .iter()
        .filter(|m| path == **m || path.starts_with(&format!("{m}::")))
        .max_by_key(|m| m.len())
        .copied()
}

/// Each upward import in a crate: `FILE:LINE: MODULE imports crate::NAME`.
fn upward_imports(src: &Path, order: &[&str]) -> Vec<String> {
    let rank = |name: &str| order.iter().position(|m| *m == name);
    let mut problems = Vec::new();
    for path in crate::support::rust_sources(src) {
        let relative = path.strip_prefix(src).expect("under src");
        let path_name = relative
            .with_extension("")
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .filter(|c| *c != "mod")
            .collect::<Vec<_>>()
            .join("::");
        if path_name == "lib" || path_name == "main" {
            continue;
        }
        let module = listed(order, &path_name).unwrap_or(&path_name).to_owned();
        let Some(own) = rank(&module) else {
            problems.push(format!(
                "{}: the module `{module}` is in no layer: add it to tests/layers.rs and lib.rs",
                path.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("reads the source");
        for (line, path) in imports(&text) {
            let Some(name) = listed(order, &path) else {
                continue;
            };
            match rank(name) {
                Some(theirs) if theirs > own => problems.push(format!(
                    "{}:{line}: `{module}` imports `crate::{name}`, a layer above it",
                    relative.display()
                )),
                _ => {}
            }
        }
    }
    problems.sort();
    problems
}

#[test]
fn harness_imports_only_from_lower_layers() {
    let problems = upward_imports(&root().join("harness/src"), HARNESS);
    assert!(problems.is_empty(), "upward imports:\n{}", problems.join("\n"));
}

#[test]
fn mock_agent_imports_only_from_lower_layers() {
    let problems = upward_imports(&root().join("mock-agent/src"), MOCK_AGENT);
    assert!(problems.is_empty(), "upward imports:\n{}", problems.join("\n"));
}

#[test]
fn the_checker_sees_plain_paths_and_groups() {
    let text = "use crate::frames::Frame;\n// use crate::run;\nuse crate::{cassette::Recording, format, render::{self, x}};\nlet f = crate::faults::parse(s);\n";
    let expected = [
        (1, "frames::Frame"),
        (3, "cassette::Recording"),
        (3, "format"),
        (3, "render"),
        (4, "faults::parse"),
    ];
    let expected: Vec<(usize, String)> = expected.iter().map(|(l, n)| (*l, (*n).to_owned())).collect();
    assert_eq!(imports(text), expected);
}
