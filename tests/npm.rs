//! The npm packages (npm/, scripts/npm-pack.sh) as a TypeScript user gets them: packed
//! from the binary under test, installed into a project of their own by `npm install
//! ./mock-agent-*.tgz` beside the pinned vitest and the real SDKs (tests/npm/install.sh,
//! kept under the target directory), then real vitest runs the project: the API's own
//! tests and three programs over their dialect's whole matrix, every case a test of its
//! own (a Claude Agent SDK program, a `@openai/codex-sdk` program, an ACP client), green;
//! with the bug planted in each (tests/npm/planted/), red where the bug shows, the broken
//! property named. docs/npm.md shows these files as the test runs them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

use crate::support::{bin, root};

/// The installed project and its copy with the planted bugs.
struct Projects {
    project: PathBuf,
    planted: PathBuf,
}

/// Packs and installs (once per run; tests/npm/install.sh keeps what has not changed),
/// or fails the test saying why, e.g. that the npm registry could not be reached.
fn projects() -> &'static Projects {
    static PROJECTS: OnceLock<Projects> = OnceLock::new();
    PROJECTS.get_or_init(|| {
        let target =
            std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
        let made = Command::new(root().join("tests/npm/install.sh"))
            .arg(bin())
            .arg(target.join("npm-e2e"))
            .output()
            .expect("runs tests/npm/install.sh");
        let stdout = String::from_utf8_lossy(&made.stdout);
        assert!(
            made.status.success(),
            "tests/npm/install.sh could not pack and install the npm packages ({}); the first run \
             needs the npm registry:\n{stdout}{}",
            made.status,
            String::from_utf8_lossy(&made.stderr)
        );
        let mut lines = stdout.lines().map(PathBuf::from);
        let (Some(project), Some(planted)) = (lines.next(), lines.next()) else {
            panic!("tests/npm/install.sh printed no project folders: {stdout}");
        };
        Projects { project, planted }
    })
}

/// The result of each test of a vitest run: its file's name, its title, and its status
/// and failure messages.
struct Vitest {
    tests: BTreeMap<(String, String), (String, String)>,
    output: String,
}

impl Vitest {
    fn of_file<'a>(&'a self, file: &'a str) -> impl Iterator<Item = (&'a String, &'a (String, String))> {
        self.tests
            .iter()
            .filter(move |((f, _), _)| f == file)
            .map(|((_, title), result)| (title, result))
    }
}

/// `npx vitest run` of `files` in `dir`, read through its JSON report.
fn vitest(dir: &Path, files: &[&str]) -> Vitest {
    vitest_with(dir, files, &[])
}

/// `npx vitest run` of `files` in `dir` with the variables `env` too.
fn vitest_with(dir: &Path, files: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Vitest {
    let report = dir.join("vitest-report.json");
    let _ = std::fs::remove_file(&report);
    let mut command = Command::new("npx");
    harness::run::child::without_mock_env(&mut command)
        .current_dir(dir)
        .args([
            "--no-install",
            "vitest",
            "run",
            "--reporter=default",
            "--reporter=json",
        ])
        .arg(format!("--outputFile.json={}", report.display()))
        .args(files)
        .env("NO_COLOR", "1")
        .env_remove("MOCK_AGENT_BIN");
    for (name, value) in env {
        command.env(name, value);
    }
    let ran = command.output().expect("runs npx vitest");
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    let text = std::fs::read_to_string(&report)
        .unwrap_or_else(|e| panic!("vitest wrote no report {} ({e}):\n{output}", report.display()));
    let parsed: Value = serde_json::from_str(&text).expect("vitest's JSON report");
    let mut tests = BTreeMap::new();
    for file in parsed["testResults"].as_array().expect("testResults") {
        let name = Path::new(file["name"].as_str().expect("a file's name"))
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for test in file["assertionResults"].as_array().expect("assertionResults") {
            let failures = test["failureMessages"]
                .as_array()
                .map(|m| m.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n"))
                .unwrap_or_default();
            tests.insert(
                (
                    name.clone(),
                    test["title"].as_str().unwrap_or_default().to_owned(),
                ),
                (test["status"].as_str().unwrap_or_default().to_owned(), failures),
            );
        }
    }
    Vitest { tests, output }
}

/// The names of the cases of a dialect's matrix, as `mock-agent cases` lists them.
fn case_names(dialect: &str) -> Vec<String> {
    let listed = crate::support::mock_std()
        .args(["cases", "--dialect", dialect])
        .output()
        .expect("runs mock-agent cases");
    assert!(listed.status.success(), "{listed:?}");
    String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The example programs: their test file, the title of a case's test, their dialect.
const EXAMPLES: &[(&str, &str, &str)] = &[
    ("claude.test.ts", "summarize copes with", "claude"),
    ("codex.test.ts", "fix copes with", "codex"),
    ("acp.test.ts", "ask copes with", "cursor-acp"),
];

#[test]
fn npm_pack_makes_the_main_package_and_this_platforms_package() {
    let projects = projects();
    let installed = projects.project.join("node_modules");
    let version = env!("CARGO_PKG_VERSION");
    let manifest = |path: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).expect("package.json")).expect("JSON")
    };
    let main = manifest(&installed.join("@mock-agent/mock-agent/package.json"));
    // `mock-agent` on the npm registry is an unrelated package: ours is scoped.
    assert_eq!(main["name"], "@mock-agent/mock-agent");
    assert_eq!(main["version"], version);
    assert_eq!(main["bin"]["mock-agent"], "bin/mock-agent.js");
    assert_eq!(main["exports"]["./vitest"]["types"], "./lib/vitest.d.ts");
    // Every platform's package, at the same version; npm installs the one that matches.
    let optional = main["optionalDependencies"]
        .as_object()
        .expect("optionalDependencies");
    let platforms: Vec<&str> = optional.keys().map(String::as_str).collect();
    assert_eq!(
        platforms,
        [
            "@mock-agent/darwin-arm64",
            "@mock-agent/darwin-x64",
            "@mock-agent/linux-arm64",
            "@mock-agent/linux-x64",
            "@mock-agent/win32-x64"
        ]
    );
    assert!(optional.values().all(|v| v == version), "{optional:?}");
    for name in &platforms {
        let template = root()
            .join("npm/platforms")
            .join(name.trim_start_matches("@mock-agent/"));
        let declared = manifest(&template.join("package.json"));
        assert_eq!(declared["name"], *name);
        let (os, cpu) = name
            .trim_start_matches("@mock-agent/")
            .split_once('-')
            .expect("os-cpu");
        assert_eq!(
            (declared["os"][0].as_str(), declared["cpu"][0].as_str()),
            (Some(os), Some(cpu))
        );
    }
    let platform = manifest(&installed.join("@mock-agent/linux-x64/package.json"));
    assert_eq!(platform["version"], version);
    // The binary it holds is the one under test (stripped of its debug symbols).
    let packed = installed.join("@mock-agent/linux-x64/bin/mock-agent");
    let asked = |binary: &Path| {
        Command::new(binary)
            .args(["dialects", "--json"])
            .output()
            .expect("runs")
    };
    assert_eq!(asked(&packed).stdout, asked(&bin()).stdout);
    // The tarballs the script printed are those a user installs with one glob.
    let tarballs =
        std::fs::read_to_string(projects.project.parent().expect("dir").join("tarballs")).expect("tarballs");
    let names: Vec<&str> = tarballs.lines().filter_map(|l| l.rsplit('/').next()).collect();
    assert_eq!(
        names,
        [
            format!("mock-agent-mock-agent-{version}.tgz"),
            format!("mock-agent-linux-x64-{version}.tgz")
        ]
    );
}

#[test]
fn vitest_runs_the_api_tests_and_every_case_of_each_example_green() {
    let projects = projects();
    let run = vitest(&projects.project, &[]);
    let failed: Vec<_> = run
        .tests
        .iter()
        .filter(|((file, _), (status, _))| {
            status != "passed" && !(file == "record.test.ts" && status == "skipped")
        })
        .collect();
    assert!(failed.is_empty(), "failed: {failed:#?}\n{}", run.output);
    assert_eq!(run.of_file("api.test.ts").count(), 11, "{}", run.output);
    for (file, title, dialect) in EXAMPLES {
        let titles: Vec<&String> = run.of_file(file).map(|(t, _)| t).collect();
        let expected: Vec<String> = case_names(dialect)
            .iter()
            .map(|c| format!("{title} '{c}'"))
            .collect();
        assert_eq!(titles.len(), expected.len(), "{file}: {titles:#?}");
        for name in &expected {
            assert!(titles.contains(&name), "{file}: no test {name}: {titles:#?}");
        }
    }
    // The types of the package are those the examples were written against.
    let mut tsc = Command::new("npx");
    tsc.current_dir(&projects.project)
        .args(["--no-install", "tsc", "-p", "."]);
    let checked = tsc.output().expect("runs tsc");
    assert!(
        checked.status.success(),
        "tsc: {}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
}

#[test]
fn the_bug_planted_in_each_example_is_caught_with_the_property_named() {
    let projects = projects();
    let files: Vec<String> = EXAMPLES
        .iter()
        .map(|(file, _, _)| format!("test/{file}"))
        .collect();
    let run = vitest(
        &projects.planted,
        &files.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    // Where the bug shows, red, the property it breaks named in vitest's output.
    let caught = [
        (
            "claude.test.ts",
            "summarize copes with 'default/clean'",
            "reports-success",
        ),
        (
            "claude.test.ts",
            "summarize copes with 'default/error-result'",
            "reports-failure",
        ),
        (
            "codex.test.ts",
            "fix copes with 'default/turn-failed'",
            "reports-failure",
        ),
        (
            "codex.test.ts",
            "fix copes with 'default/stream-cut'",
            "reports-failure",
        ),
        (
            "acp.test.ts",
            "ask copes with 'default/refusal'",
            "reports-failure",
        ),
        (
            "acp.test.ts",
            "ask copes with 'default/max-tokens'",
            "reports-failure",
        ),
    ];
    for (file, title, property) in caught {
        let (status, failures) = &run.tests[&(file.to_owned(), title.to_owned())];
        assert_eq!(status, "failed", "{file} > {title}\n{}", run.output);
        assert!(
            failures.contains(&format!("name: '{property}'")),
            "{file} > {title}: {failures}"
        );
        assert!(
            run.output.contains(&format!("\"name\": \"{property}\"")),
            "{}",
            run.output
        );
    }
    // Where it does not, green: a case whose agent is killed before it says anything
    // (Claude), cases where it succeeds or crashes (Codex, ACP).
    for (file, title) in [
        (
            "claude.test.ts",
            "summarize copes with 'default/signal-kill@assistant'",
        ),
        ("codex.test.ts", "fix copes with 'default/clean'"),
        ("acp.test.ts", "ask copes with 'default/clean'"),
        ("acp.test.ts", "ask copes with 'default/crash@mid-turn'"),
    ] {
        let (status, failures) = &run.tests[&(file.to_owned(), title.to_owned())];
        assert_eq!(status, "passed", "{file} > {title}: {failures}");
    }
}

#[test]
fn docs_npm_md_shows_the_example_project_as_the_test_runs_it() {
    let docs = std::fs::read_to_string(root().join("docs/npm.md")).expect("docs/npm.md");
    let project = root().join("tests/npm/project");
    let mut shown = Vec::new();
    let mut lines = docs.lines().enumerate();
    while let Some((number, line)) = lines.next() {
        // A block of a file of the project: ```ts src/summarize.ts
        let Some(path) = line
            .strip_prefix("```")
            .and_then(|info| info.split_once(' '))
            .map(|(_, p)| p.trim())
            // (A block the docs test does not run says why, not a file.)
            .filter(|p| !p.starts_with("no-run"))
        else {
            continue;
        };
        let mut text = String::new();
        for (_, line) in lines.by_ref() {
            if line == "```" {
                break;
            }
            text.push_str(line);
            text.push('\n');
        }
        let file = std::fs::read_to_string(project.join(path)).unwrap_or_else(|e| {
            panic!(
                "docs/npm.md:{}: {path} is no file of tests/npm/project ({e})",
                number + 1
            )
        });
        assert_eq!(
            text,
            file,
            "docs/npm.md:{}: {path} differs from tests/npm/project/{path}",
            number + 1
        );
        shown.push(path.to_owned());
    }
    for path in [
        "package.json",
        "src/summarize.ts",
        "test/claude.test.ts",
        "src/fix.ts",
        "test/codex.test.ts",
        "src/ask.ts",
        "test/acp.test.ts",
    ] {
        assert!(
            shown.iter().any(|p| p == path),
            "docs/npm.md does not show {path}: {shown:?}"
        );
    }
}

/// The record modes on the real Claude Code (scripts/real-clis.sh), driven by the real
/// TypeScript Claude Agent SDK in vitest: test/record.test.ts records the run into a
/// cassette through the real CLI, against the scripted model API, offline; the second
/// vitest run replays it with neither the real CLI nor the model API, the same answer,
/// and the key kept out of the cassette.
#[test]
fn vitest_records_the_real_claude_code_once_then_replays_it() {
    use mock_agent::model_api::{Api, Scenario, Server};
    let Some(real) = crate::model_api::real("claude") else {
        return;
    };
    let projects = projects();
    let cassettes = tempfile::tempdir().expect("a folder");
    let server = Server::start(Api::Anthropic, Scenario::builtin()).expect("serves the Messages API");
    let printed = |run: &Vitest| -> String {
        let line = run
            .output
            .lines()
            .find(|l| l.starts_with("RECORD "))
            .map(str::to_owned);
        line.unwrap_or_else(|| panic!("no RECORD line:\n{}", run.output))
    };
    let status = |run: &Vitest| -> Vec<String> {
        run.of_file("record.test.ts")
            .map(|(_, (s, m))| format!("{s} {m}"))
            .collect()
    };
    let recorded = vitest_with(
        &projects.project,
        &["test/record.test.ts"],
        &[
            ("RECORD_CASSETTES", cassettes.path().as_os_str()),
            ("MOCK_AGENT_REAL_CLAUDE", real.as_os_str()),
            ("MODEL_API_URL", server.base_url().as_ref()),
        ],
    );
    assert_eq!(status(&recorded), ["passed "], "{}", recorded.output);
    assert!(
        server.requests().iter().any(|r| r.step.is_some()),
        "the model API was not asked"
    );
    drop(server);
    let line = printed(&recorded);
    assert!(line.starts_with("RECORD RECORDED 0 \""), "{line}");
    let text = std::fs::read_to_string(cassettes.path().join("summarize.cassette")).expect("the cassette");
    assert!(text.contains("\"dialect\":\"claude\""), "{text}");
    assert!(
        !text.contains("sk-ant-test-not-in-the-cassette"),
        "the key is in the cassette"
    );

    let replayed = vitest_with(
        &projects.project,
        &["test/record.test.ts"],
        &[("RECORD_CASSETTES", cassettes.path().as_os_str())],
    );
    assert_eq!(status(&replayed), ["passed "], "{}", replayed.output);
    assert_eq!(
        printed(&replayed).strip_prefix("RECORD REPLAYED 1"),
        line.strip_prefix("RECORD RECORDED 0"),
        "{}",
        replayed.output
    );
}

/// The script that records and replays a program's runs is one file, the binary's:
/// both packages ask it (`mock-agent record --script`, kept out of `--help`), and it
/// goes with no other flag of `record`.
#[test]
fn the_record_script_is_the_binarys() {
    let script = Command::new(bin())
        .args(["record", "--script"])
        .output()
        .expect("runs mock-agent record --script");
    assert!(
        script.status.success(),
        "{}",
        String::from_utf8_lossy(&script.stderr)
    );
    let file = root().join("mock-agent/src/record/record.sh");
    let body = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    assert_eq!(String::from_utf8_lossy(&script.stdout), body);
    assert!(body.ends_with("exec \"$mock\" record --no-progress --out \"$cassette\" \"$@\"\n"));
    let help = Command::new(bin())
        .args(["record", "--help"])
        .output()
        .expect("runs");
    assert!(help.status.success());
    assert!(!String::from_utf8_lossy(&help.stdout).contains("--script"));
    let both = Command::new(bin())
        .args(["record", "--script", "--out", "x.cassette", "--", "true"])
        .output()
        .expect("runs");
    assert_eq!(
        both.status.code(),
        Some(64),
        "{}",
        String::from_utf8_lossy(&both.stderr)
    );
    assert!(both.stdout.is_empty());
}
