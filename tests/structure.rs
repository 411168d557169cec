//! The shape of the code, as issue 17 set it: no source file too long to read, no
//! mutable global in the library, and each dialect's wire names said in one file.

use std::path::{Path, PathBuf};

use crate::support::root;

/// The longest a source file may be.
const MAX_LINES: usize = 900;

/// Every `.rs` file under `dir`, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("reads the source folder")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The library's and the process's sources, with their text.
fn all_sources() -> Vec<(PathBuf, String)> {
    ["harness/src", "mock-agent/src"]
        .iter()
        .flat_map(|dir| sources(&root().join(dir)))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("reads the source");
            (path, text)
        })
        .collect()
}

#[test]
fn no_source_file_is_over_900_lines() {
    let long: Vec<String> = all_sources()
        .iter()
        .filter(|(_, text)| text.lines().count() > MAX_LINES)
        .map(|(path, text)| format!("{}: {} lines", path.display(), text.lines().count()))
        .collect();
    assert!(
        long.is_empty(),
        "split these (at most {MAX_LINES} lines a file):\n{}",
        long.join("\n")
    );
}

/// A `static` whose value can change (a lock, an atomic, a cell, a lazily set value),
/// `static mut`, or a thread-local: state of the process, which belongs to the
/// process (`mock-agent`), not to a library a test author imports.
fn mutable_global(line: &str) -> bool {
    let code = line.trim_start();
    if code.starts_with("//") {
        return false;
    }
    if code.contains("static mut ") || code.contains("thread_local!") {
        return true;
    }
    // The type of a `static NAME: TYPE = ...;`.
    let Some(declared) = code
        .strip_prefix("pub ")
        .unwrap_or(code)
        .strip_prefix("pub(crate) ")
        .unwrap_or(code.strip_prefix("pub ").unwrap_or(code))
        .strip_prefix("static ")
    else {
        return false;
    };
    let ty = declared
        .split_once(':')
        .map_or("", |(_, rest)| rest.split('=').next().unwrap_or(""));
    [
        "Mutex", "RwLock", "Atomic", "Cell", "OnceLock", "OnceCell", "LazyLock", "Lazy<",
    ]
    .iter()
    .any(|kind| ty.contains(kind))
}

#[test]
fn the_library_has_no_mutable_global() {
    let found: Vec<String> = sources(&root().join("harness/src"))
        .iter()
        .flat_map(|path| {
            let text = std::fs::read_to_string(path).expect("reads the source");
            text.lines()
                .enumerate()
                .filter(|(_, line)| mutable_global(line))
                .map(|(i, line)| format!("{}:{}: {}", path.display(), i + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        found.is_empty(),
        "mutable globals in harness:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_global_check_sees_them() {
    assert!(mutable_global(
        "static ACTIVE: std::sync::Mutex<Option<u8>> = Mutex::new(None);"
    ));
    assert!(mutable_global("    pub static N: AtomicU64 = AtomicU64::new(0);"));
    assert!(mutable_global("static mut X: u8 = 0;"));
    assert!(mutable_global(
        "thread_local! { static X: Cell<u8> = Cell::new(0) }"
    ));
    assert!(!mutable_global("const NAMES: &[&str] = &[\"a\"];"));
    assert!(!mutable_global("static NAMES: &[&str] = &[\"Mutex\"];"));
    assert!(!mutable_global("// static ACTIVE: Mutex<u8>"));
}
