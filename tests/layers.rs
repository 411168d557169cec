//! The layering of both crates: no loop of top-level modules. A module may import
//! from another only if that one does not import it back, directly or through others
//! (shared/DESIGN.md: the machinery names no dialect; the dialects are built on it).
//! A loop names each import that closes it, with its file and line. The rule is the
//! shipped code's: unit tests (a `#[cfg(test)]` module, a `tests.rs` or `*_tests.rs`
//! file) may import from anywhere, as the crate's own test suite does (the ACP
//! machinery's tests tell a print-mode session, whose story the registry gives).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::support::root;

/// Every `crate::NAME` a source text refers to, with its 1-based line: plain paths
/// (`use crate::frames::Frame;`, `crate::faults::parse(...)`) and groups
/// (`use crate::{cassette::Recording, frames::Frames};`).
fn imports(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    // The depth of braces inside a unit-test module, while in one.
    let mut in_test: Option<i64> = None;
    for (index, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        if let Some(depth) = in_test.as_mut() {
            *depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
            if *depth <= 0 {
                in_test = None;
            }
            continue;
        }
        if code == "#[cfg(test)]" {
            let next = lines.get(index + 1).map_or("", |l| l.trim());
            let module = next.split_whitespace().any(|w| w == "mod");
            if module && next.ends_with('{') {
                in_test = Some(0);
                continue;
            }
        }
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

/// The top-level module a source file belongs to (`run` for `run/fuzz.rs`); `None`
/// for the crate's root (`lib.rs`, `main.rs`), which lists the modules.
fn top_level(src: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(src).expect("under src");
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib" && name != "main").then(|| name.to_owned())
}

/// Each import from one top-level module to another: `(from, to) -> [FILE:LINE]`.
fn edges(src: &Path) -> BTreeMap<(String, String), Vec<String>> {
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let modules: BTreeSet<String> = crate::support::rust_sources(src)
        .iter()
        .filter_map(|p| top_level(src, p))
        .collect();
    for path in crate::support::rust_sources(src) {
        let Some(from) = top_level(src, &path) else {
            continue;
        };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let in_tests_folder = path.components().any(|c| c.as_os_str() == "tests");
        if name == "tests.rs" || name.ends_with("_tests.rs") || in_tests_folder {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("reads the source");
        for (line, imported) in imports(&text) {
            let to = imported.split("::").next().unwrap_or_default().to_owned();
            if to != from && modules.contains(&to) {
                let at = format!("{}:{line}", path.strip_prefix(src).expect("under src").display());
                edges.entry((from.clone(), to)).or_default().push(at);
            }
        }
    }
    edges
}

/// The imports that close a loop of top-level modules: `FILE:LINE: A imports B, which
/// imports A back (through ...)`.
fn loops(src: &Path) -> Vec<String> {
    let edges = edges(src);
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().push(to);
    }
    // The path from `a` to `b` along imports, if there is one.
    let path = |a: &str, b: &str| -> Option<Vec<String>> {
        let mut seen = BTreeSet::from([a.to_owned()]);
        let mut queue = vec![vec![a.to_owned()]];
        while !queue.is_empty() {
            let mut later = Vec::new();
            for route in queue {
                let last = route.last().expect("a route has a start").clone();
                for n in next.get(last.as_str()).into_iter().flatten() {
                    let mut longer = route.clone();
                    longer.push((*n).to_owned());
                    if *n == b {
                        return Some(longer);
                    }
                    if seen.insert((*n).to_owned()) {
                        later.push(longer);
                    }
                }
            }
            queue = later;
        }
        None
    };
    let mut problems = Vec::new();
    for ((from, to), places) in &edges {
        if let Some(back) = path(to, from) {
            for place in places {
                problems.push(format!(
                    "{place}: `{from}` imports `{to}`, which imports it back ({})",
                    back.join(" -> ")
                ));
            }
        }
    }
    problems
}

#[test]
fn harness_has_no_loop_of_top_level_modules() {
    let problems = loops(&root().join("harness/src"));
    assert!(problems.is_empty(), "loops of modules:\n{}", problems.join("\n"));
}

#[test]
fn mock_agent_has_no_loop_of_top_level_modules() {
    let problems = loops(&root().join("mock-agent/src"));
    assert!(problems.is_empty(), "loops of modules:\n{}", problems.join("\n"));
}

#[test]
fn a_loop_is_found_and_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path();
    std::fs::create_dir(src.join("b")).expect("b/");
    std::fs::write(src.join("lib.rs"), "pub mod a;\npub mod b;\npub mod c;\n").expect("lib.rs");
    std::fs::write(src.join("a.rs"), "use crate::b::X;\n").expect("a.rs");
    std::fs::write(src.join("b/mod.rs"), "// use crate::a;\nuse crate::c::Y;\n").expect("b");
    std::fs::write(src.join("c.rs"), "pub struct Y;\n").expect("c.rs");
    assert!(loops(src).is_empty());
    std::fs::write(src.join("c.rs"), "fn f() { crate::a::g() }\n").expect("c.rs");
    let found = loops(src);
    assert_eq!(
        found,
        [
            "a.rs:1: `a` imports `b`, which imports it back (b -> c -> a)",
            "b/mod.rs:2: `b` imports `c`, which imports it back (c -> a -> b)",
            "c.rs:1: `c` imports `a`, which imports it back (a -> b -> c)",
        ]
    );
}

#[test]
fn a_unit_test_module_s_imports_are_not_the_shipped_code_s() {
    let text = "use crate::a::x;\n#[cfg(test)]\npub mod testing {\n    use crate::b::y;\n    fn f() { crate::c::z() }\n}\nfn g() { crate::d::w() }\n";
    let names: Vec<String> = imports(text).into_iter().map(|(_, name)| name).collect();
    assert_eq!(names, ["a::x", "d::w"]);
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
