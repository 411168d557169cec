//! `mock-agent drift`: Claude Code 2.1.331, Codex 0.163.0 and Gemini CLI 0.61.0 (installed
//! by scripts/real-clis.sh) and their stand-ins on the same scenarios differ only as
//! tests/drift/claude.allow, codex.allow and gemini.allow explain; a stand-in that changes
//! an exit code, or a field renamed in its output, fails it.

use harness::drift::{compare, AllowList, Run};
use harness::frames::Exit;
use serde_json::Value;

use crate::model_api::real;
use crate::support::{mock_std, root};

fn allow_list() -> AllowList {
    allow_list_of("claude")
}

fn allow_list_of(dialect: &str) -> AllowList {
    let path = root().join(format!("tests/drift/{dialect}.allow"));
    let text = std::fs::read_to_string(&path).expect("reads the allow-list");
    AllowList::parse(&text, &path).expect("a valid allow-list")
}

#[test]
fn drift_of_claude_code_at_the_pinned_version_is_all_in_the_allow_list() {
    let Some(claude) = real("claude") else {
        return;
    };
    let kept = tempfile::tempdir().unwrap();
    let output = mock_std()
        .args(["drift", "--dialect", "claude", "--real"])
        .arg(&claude)
        .arg("--keep")
        .arg(kept.path())
        .output()
        .expect("runs drift");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("CASE "), "the table: {stdout}");
    assert!(!stdout.contains("NEW"), "{stdout}");
    assert!(stderr.contains(", 0 not in the allow-list"), "{stderr}");
    assert!(stderr.contains("(2.1.331 (Claude Code))"), "{stderr}");
    assert!(
        !stderr.contains("allows nothing"),
        "a stale allow-list entry: {stderr}"
    );
    // Each real run is a cassette that says which CLI it was recorded from.
    let cassette = kept.path().join("tool-sdk.cassette");
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&cassette)
            .expect("the real run's cassette")
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["invocation"]["cli_version"], "2.1.331 (Claude Code)");
    assert_eq!(header["invocation"]["dialect"], "claude");
}

#[test]
fn a_stand_in_that_changes_an_exit_code_makes_drift_fail() {
    let Some(claude) = real("claude") else {
        return;
    };
    // The stand-in's result goes, and it exits 3: the ending and the lines differ.
    let output = mock_std()
        .args(["drift", "--dialect", "claude", "--scenario", "text", "--real"])
        .arg(&claude)
        .env("MOCK_AGENT_FAULTS", "exit:code=3,at=result")
        .output()
        .expect("runs drift");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("text/print") && l.contains("(end)"))
        .unwrap_or_else(|| panic!("an ending row: {stdout}"));
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        words,
        ["text/print", "(end)", "exit", "exit", "0", "exit", "3", "NEW"]
    );
}

/// The stand-in's output on the SDK's argv, as drift reads it.
fn stand_in_run() -> Run {
    let mut child = mock_std()
        .args([
            "claude",
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns the stand-in");
    let mut stdin = harness::dialects::claude::play::initialize_request("req_1");
    stdin.push(b'\n');
    stdin.extend(harness::dialects::claude::play::user_message("hi"));
    stdin.push(b'\n');
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), &stdin).unwrap();
    drop(child.stdin.take());
    let output = child.wait_with_output().unwrap();
    Run::from_output(
        &output.stdout,
        &output.stderr,
        Some(Exit::from_status(output.status)),
    )
}

#[test]
fn a_field_renamed_in_the_stand_in_s_output_is_a_difference_no_entry_allows() {
    let rules = harness::dialects::CLAUDE.drift_rules();
    let allow = allow_list();
    let truth = stand_in_run();
    assert!(compare("tool/sdk", &truth, &truth.clone(), &rules).is_empty());
    let mut doctored = truth.clone();
    for line in &mut doctored.lines {
        if let Some(turns) = line.as_object_mut().and_then(|l| l.remove("num_turns")) {
            line["turns"] = turns;
        }
    }
    let found = compare("tool/sdk", &truth, &doctored, &rules);
    let new: Vec<String> = found
        .iter()
        .filter(|d| allow.allowing(d).is_none())
        .map(|d| format!("{} {} {}", d.key(), d.real, d.stand_in))
        .collect();
    assert_eq!(
        new,
        [
            "tool/sdk result/success num_turns number -",
            "tool/sdk result/success turns - number"
        ]
    );
}

#[test]
fn drift_s_own_errors_say_what_to_do() {
    let missing = mock_std()
        .args(["drift", "--dialect", "claude", "--real", "/nonexistent/claude"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(66), "{stderr}");
    assert!(
        stderr.starts_with("mock-agent: /nonexistent/claude: cannot read the real CLI (give its executable;"),
        "{stderr}"
    );
    let none = mock_std()
        .args(["drift", "--dialect", "cursor-acp", "--real", "/bin/sh"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&none.stderr);
    assert_eq!(none.status.code(), Some(64), "{stderr}");
    assert!(stderr.contains("`cursor-acp` has no drift scenarios"), "{stderr}");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.allow");
    std::fs::write(&bad, "text/sdk (end) exit\n").unwrap();
    let output = mock_std()
        .args(["drift", "--dialect", "claude", "--real", "/bin/sh", "--allow"])
        .arg(&bad)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(64), "{stderr}");
    assert!(
        stderr.starts_with(&format!("mock-agent: {}:1:20:", bad.display())),
        "{stderr}"
    );
    assert!(stderr.contains("does not say why"), "{stderr}");
    let unknown = mock_std()
        .args([
            "drift",
            "--dialect",
            "claude",
            "--real",
            "/bin/sh",
            "--scenario",
            "nope",
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&unknown.stderr)
        .contains("`nope` is not a scenario of claude; use one of text, tool"));
}

// Codex: `codex exec --json`, the TypeScript SDK's argv and a script's.

#[test]
fn drift_of_codex_at_the_pinned_version_is_all_in_the_allow_list() {
    let Some(codex) = real("codex") else {
        return;
    };
    let kept = tempfile::tempdir().unwrap();
    let output = mock_std()
        .args(["drift", "--dialect", "codex", "--real"])
        .arg(&codex)
        .arg("--keep")
        .arg(kept.path())
        .output()
        .expect("runs drift");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(!stdout.contains("NEW"), "{stdout}");
    assert!(stderr.contains(", 0 not in the allow-list"), "{stderr}");
    assert!(stderr.contains("(codex-cli 0.163.0)"), "{stderr}");
    assert!(
        !stderr.contains("allows nothing"),
        "a stale allow-list entry: {stderr}"
    );
    // The HTTP errors agree to the line: types, order, fields, exit code, stderr.
    for case in ["http-401/sdk", "http-401/exec", "http-429/sdk", "http-429/exec"] {
        assert!(
            stderr.contains(&format!(
                "{case:<20} real: 9 lines, exit 1; stand-in: 9 lines, exit 1; 0 differences"
            )),
            "{case}: {stderr}"
        );
    }
    let cassette = kept.path().join("tool-sdk.cassette");
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&cassette)
            .expect("the real run's cassette")
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["invocation"]["cli_version"], "codex-cli 0.163.0");
    assert_eq!(header["invocation"]["dialect"], "codex");
}

#[test]
fn a_codex_stand_in_that_changes_an_exit_code_makes_drift_fail() {
    let Some(codex) = real("codex") else {
        return;
    };
    // The stand-in's turn.completed goes, and it exits 3.
    let output = mock_std()
        .args(["drift", "--dialect", "codex", "--scenario", "tool", "--real"])
        .arg(&codex)
        .env("MOCK_AGENT_FAULTS", "exit:code=3,at=turn.completed")
        .output()
        .expect("runs drift");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("tool/exec") && l.contains("(end)"))
        .unwrap_or_else(|| panic!("an ending row: {stdout}"));
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        words,
        ["tool/exec", "(end)", "exit", "exit", "0", "exit", "3", "NEW"]
    );
}

#[test]
fn a_field_renamed_in_the_codex_stand_in_s_output_is_a_difference_no_entry_allows() {
    let rules = harness::dialects::CODEX.drift_rules();
    let allow = allow_list_of("codex");
    let output = mock_std()
        .args(["codex", "exec", "--json", "--skip-git-repo-check", "hi"])
        .env("CODEX_HOME", tempfile::tempdir().unwrap().path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs the stand-in");
    let truth = Run::from_output(
        &output.stdout,
        &output.stderr,
        Some(Exit::from_status(output.status)),
    );
    assert!(compare("tool/sdk", &truth, &truth.clone(), &rules).is_empty());
    let mut doctored = truth.clone();
    for line in &mut doctored.lines {
        if let Some(item) = line.get_mut("item").and_then(Value::as_object_mut) {
            if let Some(output) = item.remove("aggregated_output") {
                item.insert("output".to_owned(), output);
            }
        }
    }
    let found = compare("tool/sdk", &truth, &doctored, &rules);
    let new: Vec<String> = found
        .iter()
        .filter(|d| allow.allowing(d).is_none())
        .map(|d| format!("{} {} {}", d.key(), d.real, d.stand_in))
        .collect();
    assert_eq!(
        new,
        [
            "tool/sdk item.completed item.aggregated_output string -",
            "tool/sdk item.completed item.output - string",
            "tool/sdk item.started item.aggregated_output string -",
            "tool/sdk item.started item.output - string",
        ]
    );
}

// Gemini CLI: `gemini -p`, in stream-json and json.

#[test]
fn drift_of_gemini_cli_at_the_pinned_version_is_all_in_the_allow_list() {
    let Some(gemini) = real("gemini") else {
        return;
    };
    let kept = tempfile::tempdir().unwrap();
    let output = mock_std()
        .args(["drift", "--dialect", "gemini", "--real"])
        .arg(&gemini)
        .arg("--keep")
        .arg(kept.path())
        .output()
        .expect("runs drift");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(!stdout.contains("NEW"), "{stdout}");
    assert!(stderr.contains(", 0 not in the allow-list"), "{stderr}");
    assert!(stderr.contains("(0.61.0)"), "{stderr}");
    assert!(
        !stderr.contains("allows nothing"),
        "a stale allow-list entry: {stderr}"
    );
    // The 401 and a tool call's json document agree to the line: types, order,
    // fields, exit code (145), stderr.
    for case in ["http-401/stream", "http-401/json", "tool/json"] {
        assert!(
            stderr.contains(&format!("{case:<20} real: "))
                && stderr
                    .lines()
                    .any(|l| l.starts_with(case) && l.ends_with("; 0 differences")),
            "{case}: {stderr}"
        );
    }
    let cassette = kept.path().join("tool-stream.cassette");
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&cassette)
            .expect("the real run's cassette")
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["invocation"]["cli_version"], "0.61.0");
    assert_eq!(header["invocation"]["dialect"], "gemini");
}

#[test]
fn a_gemini_stand_in_that_changes_an_exit_code_makes_drift_fail() {
    let Some(gemini) = real("gemini") else {
        return;
    };
    // The stand-in's result goes, and it exits 3.
    let output = mock_std()
        .args(["drift", "--dialect", "gemini", "--scenario", "http-401", "--real"])
        .arg(&gemini)
        .env("MOCK_AGENT_FAULTS", "exit:code=3,at=result")
        .output()
        .expect("runs drift");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("http-401/stream") && l.contains("(end)"))
        .unwrap_or_else(|| panic!("an ending row: {stdout}"));
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        words,
        [
            "http-401/stream",
            "(end)",
            "exit",
            "exit",
            "145",
            "exit",
            "3",
            "NEW"
        ]
    );
}

#[test]
fn a_field_renamed_in_the_gemini_stand_in_s_output_is_a_difference_no_entry_allows() {
    let rules = harness::dialects::GEMINI.drift_rules();
    let allow = allow_list_of("gemini");
    let home = tempfile::tempdir().unwrap();
    let output = mock_std()
        .args(["gemini", "--skip-trust", "-o", "stream-json", "-p", "hi"])
        .env("HOME", home.path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs the stand-in");
    let truth = Run::from_output(
        &output.stdout,
        &output.stderr,
        Some(Exit::from_status(output.status)),
    );
    assert!(compare("tool/stream", &truth, &truth.clone(), &rules).is_empty());
    let mut doctored = truth.clone();
    for line in &mut doctored.lines {
        if let Some(object) = line.as_object_mut() {
            if let Some(id) = object.remove("tool_id") {
                object.insert("call_id".to_owned(), id);
            }
        }
    }
    let found = compare("tool/stream", &truth, &doctored, &rules);
    let new: Vec<String> = found
        .iter()
        .filter(|d| allow.allowing(d).is_none())
        .map(|d| format!("{} {} {}", d.key(), d.real, d.stand_in))
        .collect();
    assert_eq!(
        new,
        [
            "tool/stream tool_result call_id - string",
            "tool/stream tool_result tool_id string -",
            "tool/stream tool_use call_id - string",
            "tool/stream tool_use tool_id string -",
        ]
    );
}
