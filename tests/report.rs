//! `mock-agent test --report`: the HTML report of a failing consumer, rendered by a real
//! browser (headless Chromium, installed by scripts/chromium.sh when missing), its DOM
//! checked: the failing case, its broken property, the tail of its stderr, a picture.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{mock_std, root, said};

/// Headless Chromium: scripts/chromium.sh finds it, or installs Debian's `chromium`.
/// A browser that cannot be had fails the test, saying why.
fn chromium() -> PathBuf {
    let found = Command::new(root().join("scripts/chromium.sh"))
        .output()
        .expect("runs scripts/chromium.sh");
    assert!(
        found.status.success(),
        "no headless Chromium for the report's browser test: scripts/chromium.sh failed ({}):\n{}\nhelp: install it (`apt-get install -y chromium` as root) or set CHROMIUM",
        found.status,
        String::from_utf8_lossy(&found.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&found.stdout).trim())
}

/// Chromium's arguments for a headless run as any user (root included), with a
/// profile of its own in `profile`.
fn headless(browser: &Path, profile: &Path) -> Command {
    let mut cmd = Command::new("timeout");
    cmd.arg("120").arg(browser).args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--hide-scrollbars",
    ]);
    cmd.arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

/// Headless Chromium run with `args` on `page`, which must succeed: what it wrote.
fn browse(page: &Path, args: &[&str]) -> Output {
    let browser = chromium();
    let profile = tempfile::tempdir().expect("temp dir");
    let out = headless(&browser, profile.path())
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("runs chromium");
    assert!(
        out.status.success(),
        "chromium {} failed ({}): {}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The DOM of `page` as the browser has it once loaded.
fn dom(page: &Path) -> String {
    String::from_utf8_lossy(&browse(page, &["--dump-dom"]).stdout).into_owned()
}

/// Runs `mock-agent test` with `args` and `--report`, expecting failures; returns the
/// report's text and its path (in `dir`).
fn report(dir: &Path, args: &[&str]) -> (String, PathBuf) {
    let path = dir.join("report.html");
    let out = mock_std()
        .arg("test")
        .args(args)
        .arg("--report")
        .arg(&path)
        .output()
        .expect("runs mock-agent test");
    assert_eq!(
        out.status.code(),
        Some(harness::exit_codes::CASES_FAILED),
        "the consumer is buggy: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).expect("the report is written");
    (text, path)
}

/// What every report is: one file that loads nothing (no script, no stylesheet, font
/// or image from elsewhere).
fn self_contained(html: &str) {
    for needle in [
        "<script",
        "<link",
        "<img",
        "<iframe",
        "@import",
        "url(http",
        "src=",
        "href=\"http",
    ] {
        assert!(!html.contains(needle), "the report loads something: {needle}");
    }
}

/// The `<details>` element of case `name` in the DOM.
fn case_of<'a>(dom: &'a str, name: &str) -> &'a str {
    let start = dom
        .find(&format!("id=\"case-{name}\""))
        .unwrap_or_else(|| panic!("no row for {name} in the DOM:\n{dom}"));
    let end = dom[start..].find("</details>").map_or(dom.len(), |e| start + e);
    &dom[start..end]
}

#[test]
fn a_print_mode_report_shows_the_failure_its_stderr_and_a_timeline() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The shell line adds a stderr line of its own to the buggy consumer's run.
    let consumer = "python3 tests/consumers/ignores_exit.py; echo 'bot: gave up <early> & said so' >&2";
    let (html, path) = report(
        dir.path(),
        &["--consumer", consumer, "--filter", "eof@mid-line", "--jobs", "1"],
    );
    self_contained(&html);
    let dom = dom(&path);
    let case = case_of(&dom, "default/eof@mid-line");
    assert!(case.contains("data-property=\"reports-failure\""), "{case}");
    assert!(
        case.contains("the agent failed, but the consumer exited 0"),
        "{case}"
    );
    // Escaped in the file, text again in the DOM.
    assert!(
        html.contains("bot: gave up &#60;early&#62; &#38; said so")
            || html.contains("bot: gave up &lt;early&gt; &amp; said so")
    );
    assert!(
        case.contains("bot: gave up &lt;early&gt; &amp; said so"),
        "the stderr tail: {case}"
    );
    assert!(case.contains("<svg"), "a picture: {case}");
    assert!(
        case.contains("fault: eof:after=3,byte=10"),
        "where the fault hit: {case}"
    );
    assert!(
        case.contains("consumer: exit code 0 after"),
        "when the consumer exited: {case}"
    );
    assert!(dom.contains("1 failed"), "the summary");
}

#[test]
fn an_acp_report_shows_the_failure_its_stderr_and_a_sequence_diagram() {
    let dir = tempfile::tempdir().expect("temp dir");
    let consumer = "python3 tests/consumers/acp_error_as_success.py; echo 'client: turn over' >&2";
    let (html, path) = report(
        dir.path(),
        &[
            "--acp",
            "--consumer",
            consumer,
            "--filter",
            "error@prompt",
            "--jobs",
            "1",
        ],
    );
    self_contained(&html);
    let dom = dom(&path);
    let case = case_of(&dom, "default/error@prompt");
    assert!(case.contains("data-property=\"reports-failure\""), "{case}");
    assert!(case.contains("client: turn over"), "the stderr tail: {case}");
    assert!(case.contains("<svg"), "a picture: {case}");
    let prompt = harness::dialects::cursor_acp::wire::methods::SESSION_PROMPT;
    assert!(
        case.contains(&format!("{prompt} #")),
        "the prompt's request: {case}"
    );
    assert!(case.contains("error #"), "the error answered: {case}");
    assert!(
        case.contains("fault: error:method="),
        "where the fault hit: {case}"
    );
}

/// The screenshot in README.md: `MOCK_AGENT_SCREENSHOT=docs/report.png cargo test -p
/// mock-agent --test e2e -- report_screenshot --ignored` makes it again.
#[test]
#[ignore = "writes docs/report.png; run it to make the README's screenshot again"]
fn report_screenshot() {
    let dir = tempfile::tempdir().expect("temp dir");
    let consumer = "python3 tests/consumers/ignores_exit.py; echo 'bot: done' >&2";
    let (_, path) = report(
        dir.path(),
        &["--consumer", consumer, "--filter", "@mid-line", "--jobs", "1"],
    );
    let out_file = std::env::var("MOCK_AGENT_SCREENSHOT").unwrap_or_else(|_| "docs/report.png".to_owned());
    let out_file = root().join(out_file);
    let screenshot = format!("--screenshot={}", out_file.display());
    browse(&path, &[&screenshot, "--window-size=1200,900"]);
    assert!(out_file.exists());
}

#[test]
fn a_fuzz_report_shows_each_minimal_failing_case_run_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("fuzz.html");
    let out = mock_std()
        .args(["fuzz", "--consumer", "python3 tests/consumers/ignores_exit.py"])
        .args(["--cases", "10", "--seed", "1", "--shrink-time", "2", "--out"])
        .arg(dir.path().join("failures"))
        .arg("--report")
        .arg(&path)
        .output()
        .expect("runs mock-agent fuzz");
    assert_eq!(out.status.code(), Some(harness::exit_codes::CASES_FAILED));
    let html = std::fs::read_to_string(&path).expect("the report is written");
    self_contained(&html);
    assert!(html.contains("id=\"case-fuzz/fuzz-1\""), "{html}");
    assert!(html.contains("data-property=\"reports-failure\""), "{html}");
    assert!(html.contains("<svg"), "a picture: {html}");
}

/// The consumer may follow `--`, as `record`'s does: each argument as it is, quoted for
/// the shell. The folders of `--junit` and `--report` are made before the run, and
/// the report's title is a command that runs the same test again.
#[test]
fn a_consumer_after_dashes_runs_and_the_reports_folders_are_made() {
    let dir = tempfile::tempdir().expect("temp dir");
    let junit = dir.path().join("out/junit/cases.xml");
    let page = dir.path().join("out/html/report.html");
    let consumer = root().join("tests/consumers/careful.py");
    let out = mock_std()
        .args(["test", "--dialect", "cursor-print", "--filter", "default/clean"])
        .arg("--junit")
        .arg(&junit)
        .arg("--report")
        .arg(&page)
        .args(["--", "python3"])
        .arg(&consumer)
        .arg("a prompt with spaces")
        .output()
        .expect("runs mock-agent test");
    let said = said(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("1 passed"), "{said}");
    assert!(std::fs::read_to_string(&junit)
        .expect("junit written")
        .contains("default/clean"));
    let html = std::fs::read_to_string(&page).expect("report written");
    // The title: the command, quoted as one word (`'` is `&#39;` in the page).
    assert!(
        html.contains("mock-agent test --dialect cursor-print --consumer &#39;python3 "),
        "{html}"
    );
    assert!(html.contains("a prompt with spaces"), "{html}");
    // Both ways of giving the consumer at once is a usage error.
    let both = mock_std()
        .args(["test", "--consumer", "true", "--", "true"])
        .output()
        .expect("runs");
    assert_eq!(both.status.code(), Some(harness::exit_codes::USAGE));
}

/// A consumer that killed the agent (SIGKILL: the agent writes no journal) is told so,
/// not that it never ran the agent: its start was recorded.
#[test]
fn an_agent_killed_by_the_consumer_is_not_told_as_never_run() {
    let out = mock_std()
        .args(["test", "--dialect", "cursor-print", "--filter", "default/clean", "--timeout", "20"])
        .args([
            "--consumer",
            "MOCK_AGENT_TIMING=first-byte=20000 cursor-agent -p hi >/dev/null & pid=$!; sleep 1; kill -9 $pid; wait $pid; exit 0",
        ])
        .output()
        .expect("runs mock-agent test");
    let said = said(&out);
    assert_eq!(
        out.status.code(),
        Some(harness::exit_codes::CASES_FAILED),
        "{said}"
    );
    assert!(said.contains("the agent did not end on its own"), "{said}");
    assert!(!said.contains("never ran the agent"), "{said}");
}
