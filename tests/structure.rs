//! The shape of the code, as issue 17 set it: no source file too long to read, no
//! mutable global in the library, and each dialect's wire names said in one file.

use std::path::{Path, PathBuf};

use crate::support::{root, rust_sources as sources};

/// The longest a source file may be.
const MAX_LINES: usize = 900;

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

/// Folders no file of ours is in: what builds and installs make (`target`, packages
/// a package manager fetched, Python's caches) and hidden ones (`.git`).
fn made_folder(name: &str) -> bool {
    name.starts_with('.') || ["target", "node_modules", "__pycache__", "dist", "build"].contains(&name)
}

/// The files below `dir` whose names end with one of `extensions`, sorted, but in
/// [`made_folder`]s.
fn files_ending(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.flatten().map(|entry| entry.path()) {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if path.is_dir() {
                if !made_folder(&name) {
                    stack.push(path);
                }
            } else if extensions.iter().any(|e| name.ends_with(&format!(".{e}"))) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Every program file we ship or test with: the Rust of both crates (their tests,
/// examples and build script too), the benchmarks and the end-to-end suite; the
/// Python and TypeScript (and JavaScript) programs the tests run (`tests/`); the
/// Python and JavaScript the packages ship (`python/`, `npm/`).
fn program_files() -> Vec<PathBuf> {
    let root = root();
    let scripts = ["py", "ts", "mjs", "js"];
    let mut files = Vec::new();
    for dir in ["harness", "mock-agent", "benches"] {
        files.extend(files_ending(&root.join(dir), &["rs"]));
    }
    files.extend(files_ending(
        &root.join("tests"),
        &[&["rs"][..], &scripts].concat(),
    ));
    for dir in ["python", "npm"] {
        files.extend(files_ending(&root.join(dir), &scripts));
    }
    files
}

#[test]
fn no_source_file_is_over_900_lines() {
    let files = program_files();
    let seen = |suffix: &str| files.iter().any(|f| f.to_string_lossy().ends_with(suffix));
    assert!(
        [
            "harness/src/lib.rs",
            "mock-agent/src/main.rs",
            "tests/main.rs",
            "benches/replay.rs",
            "tests/consumers/careful.py",
            "tests/npm/project/src/ask.ts",
            "python/mock_agent/agent.py",
            "npm/mock-agent/lib/index.js",
        ]
        .iter()
        .all(|f| seen(f)),
        "the walk reads the crates, the tests, the benchmarks and the packages"
    );
    let long: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(path)
                .expect("reads the file")
                .lines()
                .count();
            (lines > MAX_LINES).then(|| format!("{}: {lines} lines", path.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these (at most {MAX_LINES} lines a file):\n{}",
        long.join("\n")
    );
}

#[test]
fn what_builds_and_installs_make_is_not_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    for file in [
        "a.py",
        "node_modules/x/b.js",
        "sub/c.ts",
        ".venv/d.py",
        "target/e.rs",
        "f.txt",
    ] {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("creates the folder");
        std::fs::write(&path, "x\n").expect("writes");
    }
    let found: Vec<String> = files_ending(dir.path(), &["py", "ts", "js", "rs"])
        .iter()
        .map(|p| {
            p.strip_prefix(dir.path())
                .expect("below")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(found, ["a.py", "sub/c.ts"]);
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

/// The files of each dialect's wire model: the only files that spell its names.
/// ACP's, and each agent's profile (the shapes its messages take).
const ACP_WIRE: &[&str] = &[
    "harness/src/acp/wire.rs",
    "harness/src/acp/rpc.rs",
    "harness/src/dialects/cursor_acp/profile.rs",
    "harness/src/dialects/gemini/acp/profile.rs",
];
/// Print mode's (and the few of its names the cassette format reads in a capture,
/// `capture.rs`).
const PRINT_WIRE: &[&str] = &[
    "harness/src/dialects/cursor_print/events.rs",
    "harness/src/capture.rs",
];
/// Claude Code's wire model: its names (`wire.rs`) and the shapes of the lines the CLI
/// writes (`play.rs`, where each message is made).
const CLAUDE_WIRE: &[&str] = &[
    "harness/src/dialects/claude/wire.rs",
    "harness/src/dialects/claude/play.rs",
    "harness/src/dialects/claude/play/cut.rs",
    "harness/src/dialects/claude/play/partial.rs",
];

/// Gemini CLI's wire model: its names (`wire.rs`), and where its lines are made
/// (`play.rs`).
const GEMINI_WIRE: &[&str] = &[
    "harness/src/dialects/gemini/wire.rs",
    "harness/src/dialects/gemini/play.rs",
];

/// Codex's wire model: its names (`wire.rs`), where its lines are made (`exec.rs` for
/// `codex exec --json`, `app_server.rs` and its `shapes.rs` for `codex app-server`),
/// and the lines `REAL-CODEX.md` records, verbatim, that its tests compare them with.
const CODEX_WIRE: &[&str] = &[
    "harness/src/dialects/codex/wire.rs",
    "harness/src/dialects/codex/exec.rs",
    "harness/src/dialects/codex/app_server.rs",
    "harness/src/dialects/codex/app_server/shapes.rs",
    "harness/src/dialects/codex/tests.rs",
    "harness/src/dialects/codex/app_server_tests.rs",
];

/// Unit tests of a scanner of raw lines, whose lines are spelt as the bytes it scans
/// (escapes, key orders): a constant would hide what is scanned.
const RAW_LINES: &[&str] = &["harness/src/acp/script/file_tests.rs"];

/// Codex's names that no other protocol has: `exec --json`'s line and item types,
/// app-server's methods, notifications and requests (`error`, `initialize` and the
/// like are other dialects' words too).
fn codex_names() -> Vec<&'static str> {
    use harness::dialects::codex::wire::{events, items, rpc};
    let shared = ["error", "initialize", "initialized", "reasoning", "plan"];
    [
        events::ALL,
        items::ALL,
        rpc::methods::ALL,
        rpc::notifications::ALL,
        rpc::server_requests::ALL,
    ]
    .concat()
    .into_iter()
    .filter(|name| !shared.contains(name))
    .collect()
}

/// Claude Code's names, from its wire model: message types, result subtypes, control
/// request subtypes, system subtypes.
fn claude_names() -> Vec<&'static str> {
    use harness::dialects::claude::wire::{control, results, system, types};
    let mut names = types::ALL.to_vec();
    names.extend(results::ALL);
    names.extend([
        control::INITIALIZE,
        control::INTERRUPT,
        control::SET_PERMISSION_MODE,
        control::SET_MODEL,
        control::CAN_USE_TOOL,
        control::HOOK_CALLBACK,
        control::MCP_MESSAGE,
        system::INIT,
        system::SESSION_STATE_CHANGED,
    ]);
    names
}

/// Server mode's names, from its wire model: methods, update kinds, stop reasons,
/// tool kinds, permission option kinds.
fn acp_names() -> Vec<&'static str> {
    use harness::dialects::cursor_acp::wire::{methods, option_kinds, stop_reasons, tool_kinds, updates};
    [
        methods::CLIENT,
        methods::AGENT,
        updates::ALL,
        stop_reasons::ALL,
        tool_kinds::ALL,
        option_kinds::ALL,
    ]
    .concat()
}

/// Print mode's names, from its wire model: event types, their documented subtypes,
/// tool kinds.
fn print_names() -> Vec<&'static str> {
    use harness::dialects::cursor_print::events::{event_type, subtype, TOOL_KEYS};
    let mut names = vec![
        event_type::SYSTEM,
        event_type::USER,
        event_type::ASSISTANT,
        event_type::THINKING,
        event_type::TOOL_CALL,
        event_type::RESULT,
        event_type::CONNECTION,
        event_type::RETRY,
    ];
    names.extend(
        subtype::DOCUMENTED
            .iter()
            .flat_map(|(_, subtypes)| subtypes.iter().copied()),
    );
    names.extend(TOOL_KEYS.iter().copied());
    names
}

/// Gemini CLI's names that no other protocol has: its tool events and the error types
/// of its failures (`init`, `message`, `error` and `result` are other dialects' words
/// too).
fn gemini_names() -> Vec<&'static str> {
    use harness::dialects::gemini::wire::{error_types, events};
    let shared = ["init", "message", "error", "result"];
    let mut names: Vec<&str> = events::ALL
        .iter()
        .copied()
        .filter(|name| !shared.contains(name))
        .collect();
    names.extend([
        error_types::TURN_LIMITED,
        error_types::INVALID_STREAM,
        error_types::FILE_NOT_FOUND,
    ]);
    names
}

#[test]
fn each_wire_name_is_said_in_a_wire_model_only() {
    let sources = all_sources();
    let acp = acp_names();
    let print = print_names();
    assert!(
        acp.len() > 30 && print.len() > 15,
        "the lists are read from the wire models"
    );
    let mut said_elsewhere = Vec::new();
    let claude = claude_names();
    let codex = codex_names();
    let gemini = gemini_names();
    assert!(gemini.len() >= 5, "the list is read from the wire model");
    for name in acp
        .iter()
        .chain(&print)
        .chain(&claude)
        .chain(&codex)
        .chain(&gemini)
    {
        // A wire model may spell a word that is also another dialect's name (`result`
        // is print mode's event and JSON-RPC's member): each says its own once.
        let allowed: Vec<&str> = [
            ACP_WIRE,
            PRINT_WIRE,
            CLAUDE_WIRE,
            CODEX_WIRE,
            GEMINI_WIRE,
            RAW_LINES,
        ]
        .concat();
        let quoted = format!("\"{name}\"");
        for (path, text) in &sources {
            let relative = path
                .strip_prefix(root())
                .unwrap_or(path)
                .to_string_lossy()
                .replace("mock-agent/../", "");
            if text.contains(&quoted) && !allowed.iter().any(|a| relative.ends_with(a)) {
                said_elsewhere.push(format!("{quoted} in {relative}"));
            }
        }
    }
    said_elsewhere.sort();
    said_elsewhere.dedup();
    assert!(
        said_elsewhere.is_empty(),
        "wire names spelled outside their wire model (use its constants):\n{}",
        said_elsewhere.join("\n")
    );
}

/// The ways a source names a registered dialect: its module in `harness::dialects`
/// (by its name, and its folder: `dialects::gemini_acp`, `dialects::gemini`),
/// its registry constant.
fn dialect_names() -> Vec<String> {
    let mut names: Vec<String> = harness::dialects::ALL
        .iter()
        .flat_map(|d| {
            let module = d.name().replace('-', "_");
            [
                format!("dialects::{module}"),
                format!("dialects::{}", folder_of(&module)),
                module.to_uppercase(),
            ]
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Whether a code line (not a comment) names `name` as a path or constant.
fn names_in_code(line: &str, name: &str) -> bool {
    let code = line.trim_start();
    !code.starts_with("//") && {
        let mut rest = code;
        let mut found = false;
        while let Some(at) = rest.find(name) {
            let after = rest[at + name.len()..].chars().next();
            let before = rest[..at].chars().next_back();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if !word(after) && !word(before) {
                found = true;
                break;
            }
            rest = &rest[at + name.len()..];
        }
        found
    }
}

/// Where the sources below `crate_src` (`harness/src` or `mock-agent/src`) name a
/// registered dialect in code, but in the files `may` allows (given their path below
/// `crate_src`): `PATH:LINE: NAME` each.
fn dialects_named_in(crate_src: &str, may: impl Fn(&str) -> bool) -> Vec<String> {
    let names = dialect_names();
    let src = root().join(crate_src);
    let mut named = Vec::new();
    for path in sources(&src) {
        let relative = path
            .strip_prefix(&src)
            .expect("under src")
            .to_string_lossy()
            .into_owned();
        let file_name = relative.rsplit('/').next().unwrap_or(&relative);
        let unit_tests =
            file_name == "tests.rs" || file_name.ends_with("_tests.rs") || relative.contains("tests/");
        if may(&relative) || unit_tests {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("reads the source");
        // Unit tests may name any dialect (the issue: "the registry, docs and tests").
        for (n, line) in shipped_lines(&text) {
            for name in &names {
                if names_in_code(line, name) {
                    named.push(format!("{crate_src}/{relative}:{}: {name}", n + 1));
                }
            }
        }
    }
    named
}

/// Outside its folder (`harness/src/dialects/NAME/`), a dialect is named only by the
/// registry (`dialects/mod.rs`) and the crate's root (`lib.rs`, which keeps the paths
/// of the first releases): the machinery asks through `run::Dialect`.
#[test]
fn the_library_s_machinery_names_no_dialect() {
    let named = dialects_named_in("harness/src", |relative| {
        relative.starts_with("dialects/") || relative == "lib.rs"
    });
    assert!(
        named.is_empty(),
        "the machinery names a dialect (ask through run::Dialect instead):\n{}",
        named.join("\n")
    );
}

#[test]
fn a_dialect_named_in_code_is_seen_and_one_in_a_comment_is_not() {
    assert!(names_in_code(
        "use crate::dialects::claude::wire;",
        "dialects::claude"
    ));
    assert!(names_in_code("let d = CLAUDE;", "CLAUDE"));
    assert!(!names_in_code("// see dialects::claude", "dialects::claude"));
    assert!(!names_in_code("let d = CLAUDE_NAMES;", "CLAUDE"));
    let names = dialect_names();
    for name in [
        "dialects::codex",
        "dialects::cursor_acp",
        "dialects::gemini",
        "GEMINI_ACP",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} is not among {names:?}");
    }
}

/// Outside its folder (`mock-agent/src/dialects/NAME/`), the process crate names a
/// dialect only in its list of CLIs (`dialects/mod.rs`): the executor, the recorder,
/// the settings and the mock's own commands ask through `harness::run::Dialect` and
/// `mock_agent::dialects::Cli`.
#[test]
fn the_process_s_machinery_names_no_dialect() {
    let named = dialects_named_in("mock-agent/src", |relative| relative.starts_with("dialects/"));
    assert!(
        named.is_empty(),
        "the process's machinery names a dialect (ask through the traits instead):\n{}",
        named.join("\n")
    );
}

/// The dialects a dialect's folder may name besides its own, and why. None today: a
/// CLI's second mode that lives in its first's folder is that folder's (`codex exec`
/// and `codex app-server`, `gemini -p` and `gemini --acp`); the ACP machinery
/// (`harness/src/acp/`) tells a dialect-neutral story, a profile says where its stories
/// come from (`Profile::story`), and the registry gives `cursor-agent acp` its
/// profile.
const EDGES: &[(&str, &str, &str)] = &[];

/// The folder of `harness::dialects` that holds the dialect of `module`: the folder of
/// its name, else its CLI's, what comes before the first `_` (`codex_app_server` is in
/// `codex/`).
fn folder_of(module: &str) -> &str {
    if root().join("harness/src/dialects").join(module).is_dir() {
        module
    } else {
        module.split('_').next().unwrap_or(module)
    }
}

/// The code lines of `text` a check of the shipped code reads: not the unit tests
/// (a `#[cfg(test)]` module written in the file, from there on), which may name any
/// dialect.
fn shipped_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .iter()
        .enumerate()
        .position(|(i, line)| {
            line.trim() == "#[cfg(test)]"
                && lines.get(i + 1).is_some_and(|next| {
                    next.trim_start().starts_with("mod ") && next.trim_end().ends_with('{')
                })
        })
        .unwrap_or(lines.len());
    lines[..end].iter().copied().enumerate().collect()
}

/// Inside `dialects/`, a folder names no dialect but its own (a second mode in it
/// included), or as [`EDGES`] allows, in either crate: a new dialect's folder stands
/// alone.
#[test]
fn a_dialect_s_folder_names_only_its_own_dialects() {
    let modules: Vec<String> = harness::dialects::ALL
        .iter()
        .map(|d| d.name().replace('-', "_"))
        .collect();
    let mut named = Vec::new();
    for crate_dir in ["harness/src/dialects", "mock-agent/src/dialects"] {
        let dir = root().join(crate_dir);
        for path in sources(&dir) {
            let relative = path
                .strip_prefix(&dir)
                .expect("under dialects")
                .to_string_lossy()
                .into_owned();
            let Some((folder, file)) = relative.split_once('/') else {
                continue; // the registry, `dialects/mod.rs`
            };
            let file_name = file.rsplit('/').next().unwrap_or(file);
            if file_name == "tests.rs" || file_name.ends_with("_tests.rs") || file.contains("tests/") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("reads the source");
            for (n, line) in shipped_lines(&text) {
                for other in &modules {
                    if folder_of(other) == folder {
                        continue;
                    }
                    let allowed = EDGES.iter().any(|(from, to, _)| *from == folder && to == other);
                    let path_named = names_in_code(line, &format!("dialects::{other}"))
                        || names_in_code(line, &format!("dialects::{}", folder_of(other)));
                    let constant_named = names_in_code(line, &other.to_uppercase());
                    if !allowed && (path_named || constant_named) {
                        named.push(format!("{crate_dir}/{relative}:{}: {other}", n + 1));
                    }
                }
            }
        }
    }
    assert!(
        named.is_empty(),
        "a dialect's folder names another folder's dialect (move what both need below \
         `dialects/`, have the registry give it, or say why in EDGES):\n{}",
        named.join("\n")
    );
}

/// Each registered dialect has its folder: the folder of its name, or (a CLI's second
/// mode) a folder of that name in its CLI's.
#[test]
fn each_dialect_has_its_folder() {
    for dialect in harness::dialects::ALL {
        let module = dialect.name().replace('-', "_");
        let dir = root().join("harness/src/dialects");
        let mode = module.split_once('_').map(|(_, mode)| mode).unwrap_or_default();
        let folder = if folder_of(&module) == module {
            dir.join(&module)
        } else {
            dir.join(folder_of(&module)).join(mode)
        };
        assert!(
            folder.is_dir(),
            "{} has no folder {}",
            dialect.name(),
            folder.display()
        );
    }
}

#[test]
fn the_unit_tests_of_a_file_are_not_shipped_lines() {
    let text = "use a;\n#[cfg(test)]\nmod tests;\nfn f() {}\n#[cfg(test)]\nmod tests {\n    use b;\n}\n";
    let shipped: Vec<&str> = shipped_lines(text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(shipped, ["use a;", "#[cfg(test)]", "mod tests;", "fn f() {}"]);
    assert_eq!(folder_of("codex_app_server"), folder_of("codex"));
    assert_eq!(folder_of("gemini_acp"), "gemini");
    assert_ne!(folder_of("cursor_acp"), folder_of("cursor_print"));
}
