//! `mock-agent model-api`: the scripted model APIs through the binary (their SSE
//! shapes, error bodies, cut and stalled streams, bad scenario files), then the real
//! CLIs (Claude Code, Codex, Gemini CLI, installed at pinned versions by
//! scripts/real-clis.sh) run headless against them, offline: each shows its init, the
//! text, a tool call that really runs and whose result goes back to the API, its final
//! result, and each HTTP error ends as shared/REAL-*.md says.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use mock_agent::model_api::{Api, RequestRecord, Scenario, Server};
use serde_json::{json, Value};

use crate::support::{mock_std, root};

/// `mock-agent model-api ARGS`, running, with the base URL it printed.
struct Served {
    child: Child,
    url: String,
}

impl Served {
    fn start(args: &[&str]) -> Served {
        let mut child = mock_std()
            .arg("model-api")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawns mock-agent model-api");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().expect("stdout"))
            .read_line(&mut line)
            .expect("reads the base URL");
        assert!(line.starts_with("http://127.0.0.1:"), "first line: {line:?}");
        Served {
            child,
            url: line.trim_end().to_owned(),
        }
    }

    /// Closes stdin (which ends the server) and returns how it ended and its stderr.
    fn stop(mut self) -> (std::process::ExitStatus, String) {
        drop(self.child.stdin.take());
        let status = self.child.wait().expect("waits");
        let mut stderr = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            err.read_to_string(&mut stderr).expect("reads stderr");
        }
        (status, stderr)
    }
}

/// An HTTP answer: status, headers (lowercase names), body.
struct Answer {
    status: u16,
    headers: String,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// The SSE events: (event name, data as JSON).
    fn events(&self) -> Vec<(Option<String>, Value)> {
        self.body
            .split("\n\n")
            .filter(|e| !e.trim().is_empty())
            .map(|event| {
                let mut name = None;
                let mut data = String::new();
                for line in event.lines() {
                    if let Some(n) = line.strip_prefix("event: ") {
                        name = Some(n.to_owned());
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        data.push_str(d);
                    }
                }
                (name, serde_json::from_str(&data).unwrap_or(Value::Null))
            })
            .collect()
    }
}

/// `METHOD base+path` with a JSON body, over HTTP/1.0 (the body ends with the
/// connection), read until the end or until `patience` passes without a byte.
fn request(base: &str, method: &str, path: &str, body: &Value, patience: Duration) -> (Answer, bool) {
    let host = base
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("host");
    let prefix = base.trim_start_matches("http://").trim_start_matches(host);
    let mut stream = TcpStream::connect(host).expect("connects");
    stream.set_read_timeout(Some(patience)).expect("timeout");
    let body = body.to_string();
    write!(
        stream,
        "{method} {prefix}{path} HTTP/1.0\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("writes");
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let ended = loop {
        match stream.read(&mut buf) {
            Ok(0) => break true,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                break false
            }
            // A dropped connection.
            Err(_) => break true,
        }
    };
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let answer = Answer {
        status,
        headers: head.to_lowercase(),
        body: body.to_owned(),
    };
    (answer, ended)
}

fn post(base: &str, path: &str, body: &Value) -> Answer {
    request(base, "POST", path, body, Duration::from_secs(10)).0
}

fn names(events: &[(Option<String>, Value)]) -> Vec<String> {
    events.iter().filter_map(|(n, _)| n.clone()).collect()
}

fn scenario_file(dir: &Path, scenario: &Value) -> PathBuf {
    let path = dir.join("scenario.json");
    std::fs::write(&path, serde_json::to_string_pretty(scenario).expect("json")).expect("writes");
    path
}

const ANTHROPIC_TOOLS: &str = r#"{"model":"claude-test","stream":true,"tools":[{"name":"Bash"},{"name":"Write"}],"messages":[{"role":"user","content":"hi"}]}"#;

#[test]
fn the_binary_serves_the_messages_api_and_logs_the_tool_result_sent_back() {
    let served = Served::start(&["--api", "anthropic"]);
    let first = post(
        &served.url,
        "/v1/messages?beta=true",
        &serde_json::from_str(ANTHROPIC_TOOLS).unwrap(),
    );
    assert_eq!(first.status, 200);
    assert!(
        first.headers.contains("content-type: text/event-stream"),
        "{}",
        first.headers
    );
    let events = first.events();
    assert_eq!(
        names(&events),
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    for (name, data) in &events {
        assert_eq!(Some(data["type"].as_str().unwrap_or_default()), name.as_deref());
    }
    assert_eq!(events[0].1["message"]["model"], "claude-test");
    assert_eq!(events[5].1["content_block"]["name"], "Bash");
    let input: Value = serde_json::from_str(events[6].1["delta"]["partial_json"].as_str().unwrap()).unwrap();
    assert_eq!(input["command"], "echo hello");
    assert_eq!(events[8].1["delta"]["stop_reason"], "tool_use");

    // The tool's result comes back; the answer is not streamed this time.
    let second = post(
        &served.url,
        "/v1/messages",
        &json!({"model": "claude-test", "tools": [{"name": "Bash"}], "messages": [
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_mock0001", "content": "hello\n"}]}]}),
    );
    let message = second.json();
    assert_eq!(message["content"][0]["text"], "The command printed hello.");
    assert_eq!(message["stop_reason"], "end_turn");
    let missing = post(&served.url, "/v1/nope", &json!({}));
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["error"]["type"], "not_found_error");

    let (status, stderr) = served.stop();
    assert!(status.success(), "closing stdin ends the server: {status}");
    let log: Vec<Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(log.len(), 3, "{stderr}");
    assert_eq!(log[0]["step"], 0);
    assert_eq!(
        log[1]["tool_results"],
        json!([{"id": "toolu_mock0001", "content": "hello\n", "is_error": false}])
    );
    assert_eq!(
        (log[2]["status"].as_u64(), &log[2]["step"]),
        (Some(404), &Value::Null)
    );
}

#[test]
fn the_responses_api_streams_items_and_uses_the_shell_tool_offered() {
    let served = Served::start(&["--api", "openai"]);
    assert!(served.url.ends_with("/v1"), "{}", served.url);
    let ask = json!({"model": "gpt-test", "stream": true, "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
        "tools": [{"type": "function", "name": "exec_command"}, {"type": "custom", "name": "apply_patch"}]});
    let events = post(&served.url, "/responses", &ask).events();
    let names = names(&events);
    assert_eq!(names.first().map(String::as_str), Some("response.created"));
    assert_eq!(names.last().map(String::as_str), Some("response.completed"));
    assert!(
        names.contains(&"response.output_text.delta".to_owned()),
        "{names:?}"
    );
    let sequence: Vec<u64> = events
        .iter()
        .filter_map(|(_, d)| d["sequence_number"].as_u64())
        .collect();
    assert_eq!(sequence, (0..events.len() as u64).collect::<Vec<_>>());
    let output = &events.last().unwrap().1["response"]["output"];
    assert_eq!(output[1]["type"], "function_call");
    assert_eq!(output[1]["name"], "exec_command");
    assert_eq!(output[1]["arguments"], r#"{"cmd":"echo hello"}"#);
    assert_eq!(events.last().unwrap().1["response"]["usage"]["total_tokens"], 15);
    let (status, stderr) = served.stop();
    assert!(status.success());
    assert!(
        stderr.contains(r#""tools":["exec_command","apply_patch"]"#),
        "{stderr}"
    );
}

#[test]
fn the_gemini_api_streams_data_lines_and_answers_generate_content() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = json!({"steps": [{"thinking": "Hmm.", "text": ["a", "b"], "tool": {"write": {"path": "x.txt", "content": "x\n"}}}]});
    let served = Served::start(&[
        "--api",
        "google",
        "--scenario",
        scenario_file(dir.path(), &scenario).to_str().unwrap(),
    ]);
    let ask = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": [{"functionDeclarations": [{"name": "write_file"}]}]});
    let stream = post(
        &served.url,
        "/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
        &ask,
    );
    let events = stream.events();
    assert!(events.iter().all(|(name, _)| name.is_none()), "no event names");
    let parts: Vec<&Value> = events
        .iter()
        .map(|(_, d)| &d["candidates"][0]["content"]["parts"][0])
        .collect();
    assert_eq!(parts[0], &json!({"text": "Hmm.", "thought": true}));
    assert_eq!(
        parts[3]["functionCall"],
        json!({"name": "write_file", "args": {"file_path": "x.txt", "content": "x\n"}})
    );
    let last = &events.last().unwrap().1;
    assert_eq!(last["candidates"][0]["finishReason"], "STOP");
    assert_eq!(last["usageMetadata"]["totalTokenCount"], 15);
    assert_eq!(last["modelVersion"], "gemini-test");
    // A side request (no tools) is answered without using a step.
    let side = post(
        &served.url,
        "/v1beta/models/gemini-lite:generateContent",
        &json!({"contents": []}),
    )
    .json();
    assert_eq!(side["candidates"][0]["content"]["parts"][0]["text"], "OK");
    let (_, stderr) = served.stop();
    assert!(
        stderr.lines().nth(1).unwrap().contains(r#""step":null"#),
        "{stderr}"
    );
}

#[test]
fn each_http_error_has_its_apis_body_and_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let statuses = [400, 401, 404, 429, 500];
    let steps: Vec<Value> = statuses
        .iter()
        .map(|s| json!({"error": {"status": s, "retry_after": 0}}))
        .collect();
    let path = scenario_file(dir.path(), &json!({"steps": steps, "every_request": true}));
    for (api, route) in [
        ("anthropic", "/v1/messages"),
        ("openai", "/responses"),
        ("google", "/v1beta/models/m:generateContent"),
    ] {
        let served = Served::start(&["--api", api, "--scenario", path.to_str().unwrap()]);
        for status in statuses {
            let answer = post(&served.url, route, &json!({"stream": true}));
            assert_eq!(answer.status, status, "{api}");
            assert!(answer.headers.contains("retry-after: 0"), "{api} {status}");
            let body = answer.json();
            match api {
                "anthropic" => {
                    assert_eq!(body["type"], "error");
                    let kind = body["error"]["type"].as_str().unwrap();
                    let expected = [
                        "invalid_request_error",
                        "authentication_error",
                        "not_found_error",
                        "rate_limit_error",
                        "api_error",
                    ];
                    assert!(expected.contains(&kind), "{body}");
                }
                "openai" => assert!(
                    body["error"]["message"].is_string() && body["error"].get("code").is_some(),
                    "{body}"
                ),
                _ => assert_eq!(body["error"]["code"], status, "{body}"),
            }
        }
        served.stop();
    }
}

#[test]
fn a_stream_cut_short_ends_without_its_closing_events_and_a_stall_stays_open() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = json!({"steps": [{"text": "half", "end": "cut"}, {"text": "stuck", "end": "stall"}], "every_request": true});
    let served = Served::start(&[
        "--api",
        "anthropic",
        "--scenario",
        scenario_file(dir.path(), &scenario).to_str().unwrap(),
    ]);
    let ask = json!({"stream": true, "messages": []});
    let (cut, ended) = request(&served.url, "POST", "/v1/messages", &ask, Duration::from_secs(10));
    assert!(ended);
    let names = names(&cut.events());
    assert_eq!(
        names.last().map(String::as_str),
        Some("content_block_stop"),
        "{names:?}"
    );
    let (stalled, ended) = request(
        &served.url,
        "POST",
        "/v1/messages",
        &ask,
        Duration::from_millis(500),
    );
    assert!(!ended, "a stalled stream stays open");
    assert!(stalled.body.contains("stuck"));
    let (status, _) = served.stop();
    assert!(status.success(), "a stalled stream does not keep the server up");
}

#[test]
fn a_bad_scenario_is_the_mocks_own_error_with_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(&path, "{\"steps\": [\n  {\"txt\": \"hi\"}\n]}\n").unwrap();
    let output = mock_std()
        .args(["model-api", "--api", "google", "--scenario"])
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(65), "{stderr}");
    assert!(output.stdout.is_empty());
    let expected = format!(
        "mock-agent: {}:2:8: invalid data: unknown field `txt`",
        path.display()
    );
    assert!(stderr.starts_with(&expected), "{stderr}");
    let missing = mock_std()
        .args([
            "model-api",
            "--api",
            "openai",
            "--scenario",
            "/nonexistent/s.json",
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(66));
    assert!(String::from_utf8_lossy(&missing.stderr)
        .starts_with("mock-agent: /nonexistent/s.json: cannot read the scenario"));
}

// The real CLIs.

/// The executable of a real CLI, installed once by scripts/real-clis.sh; `None` (with
/// the reason printed) only when a package registry cannot be reached.
pub(crate) fn real(cli: &'static str) -> Option<PathBuf> {
    static CLIS: [OnceLock<Option<PathBuf>>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let slot = ["claude", "codex", "gemini"]
        .iter()
        .position(|c| *c == cli)
        .expect("a known CLI");
    CLIS[slot]
        .get_or_init(|| {
            let made = Command::new(root().join("scripts/real-clis.sh"))
                .arg(cli)
                .output()
                .expect("runs scripts/real-clis.sh");
            let stderr = String::from_utf8_lossy(&made.stderr);
            if made.status.code() == Some(75) {
                eprintln!(
                    "skipped: the real {cli} cannot be installed, no package registry reachable:\n{stderr}"
                );
                return None;
            }
            assert!(
                made.status.success(),
                "scripts/real-clis.sh {cli} failed ({}):\n{stderr}",
                made.status
            );
            Some(PathBuf::from(String::from_utf8_lossy(&made.stdout).trim()))
        })
        .clone()
}

/// A real CLI's run: its output, and the requests the server got.
struct Run {
    output: Output,
    requests: Vec<RequestRecord>,
    dir: tempfile::TempDir,
}

impl Run {
    /// The stdout lines, as JSON.
    fn lines(&self) -> Vec<Value> {
        String::from_utf8_lossy(&self.output.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }

    fn types(&self) -> Vec<String> {
        self.lines()
            .iter()
            .map(|l| l["type"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    fn agent_requests(&self) -> Vec<&RequestRecord> {
        self.requests.iter().filter(|r| r.step.is_some()).collect()
    }

    fn describe(&self) -> String {
        format!(
            "{}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.output.status,
            String::from_utf8_lossy(&self.output.stdout),
            String::from_utf8_lossy(&self.output.stderr)
        )
    }
}

/// Runs `cmd` (its environment already cleared and set) in a fresh working folder with
/// `stdin`, killing its process group after two minutes.
fn run_cli(mut cmd: Command, dir: tempfile::TempDir, stdin: &str, server: &Server) -> Run {
    use std::os::unix::process::CommandExt;
    cmd.current_dir(dir.path())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd.spawn().expect("spawns the real CLI");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("writes stdin");
    let pid = child.id() as i32;
    let watchdog = std::thread::spawn(move || {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(120) {
            std::thread::sleep(Duration::from_millis(100));
            if nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_err() {
                return false;
            }
        }
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
        true
    });
    let output = child.wait_with_output().expect("waits");
    // The CLI's leftover children (Gemini CLI relaunches itself) go with its group.
    let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
    let timed_out = watchdog.join().unwrap_or(false);
    let run = Run {
        output,
        requests: server.requests(),
        dir,
    };
    assert!(!timed_out, "the CLI ran for two minutes: {}", run.describe());
    run
}

fn scenario(value: Value) -> Scenario {
    Scenario::parse(&value.to_string(), Path::new("test.json")).expect("a scenario")
}

/// Claude Code (`claude -p --output-format stream-json --verbose PROMPT ARGS`) against
/// a Messages API scripted by `scenario`.
fn claude(scenario: Scenario, args: &[&str]) -> Option<Run> {
    let exe = real("claude")?;
    let server = Server::start(Api::Anthropic, scenario).expect("serves");
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join(".home");
    std::fs::create_dir(&home).unwrap();
    let mut cmd = Command::new(exe);
    cmd.env_clear()
        .env("HOME", &home)
        .env("ANTHROPIC_BASE_URL", server.base_url())
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .args(["-p", "--output-format", "stream-json", "--verbose"])
        .args(args)
        .arg("Do what the script says.");
    Some(run_cli(cmd, dir, "", &server))
}

#[test]
fn claude_code_runs_a_bash_call_and_sends_its_result_back() {
    let Some(run) = claude(Scenario::builtin(), &[]) else {
        return;
    };
    assert_eq!(run.code(), Some(0), "{}", run.describe());
    assert_eq!(
        run.types(),
        ["system", "assistant", "assistant", "user", "assistant", "result"],
        "{}",
        run.describe()
    );
    let lines = run.lines();
    assert_eq!(lines[0]["subtype"], "init");
    assert_eq!(lines[0]["claude_code_version"], "2.1.331");
    assert_eq!(lines[1]["message"]["content"][0]["text"], "I'll run a command.");
    assert_eq!(lines[2]["message"]["content"][0]["name"], "Bash");
    assert_eq!(lines[3]["message"]["content"][0]["content"], "hello");
    assert_eq!(lines[5]["result"], "The command printed hello.");
    assert_eq!(
        (&lines[5]["is_error"], &lines[5]["num_turns"]),
        (&json!(false), &json!(2))
    );
    let asked = run.agent_requests();
    assert_eq!(asked.len(), 2, "{:?}", run.requests);
    assert!(asked[0].tools.contains(&"Bash".to_owned()));
    assert_eq!(asked[1].tool_results[0].content, "hello");
}

#[test]
fn claude_code_thinks_then_writes_a_file() {
    let steps = json!({"steps": [
        {"thinking": "A file is wanted.", "text": "Writing it.", "tool": {"write": {"path": "hello.txt", "content": "hello\n"}}},
        {"text": "Wrote hello.txt."}]});
    let Some(run) = claude(scenario(steps), &["--permission-mode", "acceptEdits"]) else {
        return;
    };
    assert_eq!(run.code(), Some(0), "{}", run.describe());
    let blocks: Vec<Value> = run
        .lines()
        .iter()
        .filter(|l| l["type"] == "assistant")
        .map(|l| l["message"]["content"][0].clone())
        .collect();
    assert_eq!(blocks[0]["thinking"], "A file is wanted.");
    assert_eq!(blocks[2]["name"], "Write");
    assert_eq!(
        std::fs::read_to_string(run.dir.path().join("hello.txt")).unwrap(),
        "hello\n"
    );
    let results = &run.agent_requests()[1].tool_results;
    assert!(
        results[0].content.starts_with("File created successfully"),
        "{results:?}"
    );
}

#[test]
fn claude_code_ends_each_api_error_with_an_error_result_and_exit_1() {
    for (status, error, text) in [
        (
            401,
            "authentication_failed",
            "Invalid API key · Fix external API key",
        ),
        (429, "rate_limit", "API Error: Request rejected (429)"),
        (500, "server_error", "API Error: 500 Internal server error"),
    ] {
        let steps = json!({"steps": [{"error": {"status": status, "retry_after": 0}}]});
        let Some(run) = claude(scenario(steps), &[]) else {
            return;
        };
        assert_eq!(run.code(), Some(1), "{status}: {}", run.describe());
        assert_eq!(run.types(), ["system", "assistant", "result"], "{status}");
        let lines = run.lines();
        assert_eq!(lines[1]["error"], error);
        assert_eq!(lines[1]["message"]["model"], "<synthetic>");
        assert_eq!(
            lines[2]["subtype"], "success",
            "an API error is a `success` result with is_error"
        );
        assert_eq!(
            (&lines[2]["is_error"], &lines[2]["api_error_status"]),
            (&json!(true), &json!(status))
        );
        assert!(
            lines[2]["result"].as_str().unwrap().starts_with(text),
            "{status}: {}",
            lines[2]["result"]
        );
        assert!(run.output.stderr.is_empty(), "{}", run.describe());
    }
}

/// Codex (`codex exec --json` with a custom model provider, the prompt on stdin)
/// against a Responses API scripted by `scenario`.
fn codex(scenario: Scenario, args: &[&str]) -> Option<Run> {
    let exe = real("codex")?;
    let server = Server::start(Api::Openai, scenario).expect("serves");
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join(".home");
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    let provider = format!(
        "model_providers.mock={{name=\"mock\",base_url=\"{}\",env_key=\"CODEX_API_KEY\",wire_api=\"responses\"}}",
        server.base_url()
    );
    let mut cmd = Command::new(exe);
    cmd.env_clear()
        .env("HOME", &home)
        .env("CODEX_HOME", home.join(".codex"))
        .env("CODEX_API_KEY", "sk-test")
        .args([
            "exec",
            "--json",
            "--skip-git-repo-check",
            "-m",
            "gpt-5.5",
            "-c",
            "analytics.enabled=false",
            "-c",
            "model_provider=mock",
            "-c",
            &provider,
        ])
        .args(args);
    Some(run_cli(cmd, dir, "Do what the script says.", &server))
}

#[test]
fn codex_runs_exec_command_and_sends_its_output_back() {
    let Some(run) = codex(Scenario::builtin(), &[]) else {
        return;
    };
    assert_eq!(run.code(), Some(0), "{}", run.describe());
    assert_eq!(
        run.types(),
        [
            "thread.started",
            "turn.started",
            "item.completed",
            "item.started",
            "item.completed",
            "item.completed",
            "turn.completed"
        ],
        "{}",
        run.describe()
    );
    let lines = run.lines();
    assert_eq!(
        lines[2]["item"],
        json!({"id": "item_0", "type": "agent_message", "text": "I'll run a command."})
    );
    assert_eq!(lines[4]["item"]["type"], "command_execution");
    assert_eq!(lines[4]["item"]["command"], "/bin/bash -lc 'echo hello'");
    assert_eq!(
        (
            &lines[4]["item"]["aggregated_output"],
            &lines[4]["item"]["exit_code"]
        ),
        (&json!("hello\n"), &json!(0))
    );
    assert_eq!(lines[5]["item"]["text"], "The command printed hello.");
    assert_eq!(
        lines[6]["usage"]["input_tokens"], 20,
        "usage is the thread's running total"
    );
    let asked = run.agent_requests();
    assert_eq!(asked.len(), 2);
    assert!(
        asked[1].tool_results[0].content.contains("hello\n"),
        "{:?}",
        asked[1].tool_results
    );
    assert!(String::from_utf8_lossy(&run.output.stderr).contains("Reading prompt from stdin..."));
}

#[test]
fn codex_applies_a_patch_to_write_a_file() {
    let steps = json!({"steps": [
        {"thinking": "**Writing** the file", "tool": {"write": {"path": "hello.txt", "content": "hello\n"}}},
        {"text": "Wrote hello.txt."}]});
    let Some(run) = codex(scenario(steps), &["--sandbox", "workspace-write"]) else {
        return;
    };
    assert_eq!(run.code(), Some(0), "{}", run.describe());
    let items: Vec<Value> = run
        .lines()
        .iter()
        .filter(|l| l["type"] == "item.completed")
        .map(|l| l["item"].clone())
        .collect();
    assert_eq!(items[0]["type"], "reasoning");
    assert_eq!(items[0]["text"], "**Writing** the file");
    assert_eq!(items[1]["type"], "file_change");
    assert_eq!(items[1]["changes"][0]["kind"], "add");
    assert_eq!(
        std::fs::read_to_string(run.dir.path().join("hello.txt")).unwrap(),
        "hello\n"
    );
}

#[test]
fn codex_fails_the_turn_on_http_errors_retrying_only_what_it_retries() {
    // 400: no retry; 429 with `retry-after: 0`: five reconnects, at once.
    for (status, requests, reconnects) in [(400, 1, 0), (429, 6, 5)] {
        let steps = json!({"steps": [{"error": {"status": status, "retry_after": 0}}]});
        let Some(run) = codex(scenario(steps), &[]) else {
            return;
        };
        assert_eq!(run.code(), Some(1), "{status}: {}", run.describe());
        let lines = run.lines();
        let types = run.types();
        assert_eq!(types[..2], ["thread.started", "turn.started"]);
        assert_eq!(types[types.len() - 2..], ["error", "turn.failed"], "{status}");
        let reconnecting = lines
            .iter()
            .filter(|l| {
                l["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("Reconnecting..."))
            })
            .count();
        assert_eq!(reconnecting, reconnects, "{status}");
        assert_eq!(
            lines[lines.len() - 2]["message"],
            lines[lines.len() - 1]["error"]["message"]
        );
        assert_eq!(run.agent_requests().len(), requests, "{status}");
    }
}

/// Gemini CLI (`gemini -m gemini-2.5-flash -o stream-json -p PROMPT ARGS`) against a
/// Gemini API scripted by `scenario`.
fn gemini(scenario: Scenario, args: &[&str]) -> Option<Run> {
    let exe = real("gemini")?;
    let server = Server::start(Api::Google, scenario).expect("serves");
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join(".home");
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    let settings = json!({"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false}});
    std::fs::write(home.join(".gemini/settings.json"), settings.to_string()).unwrap();
    let mut cmd = Command::new(exe);
    cmd.env_clear()
        .env("HOME", &home)
        .env("GEMINI_API_KEY", "k")
        .env("GOOGLE_GEMINI_BASE_URL", server.base_url())
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
        .args(["-m", "gemini-2.5-flash", "-o", "stream-json"])
        .args(args)
        .args(["-p", "Do what the script says."]);
    Some(run_cli(cmd, dir, "", &server))
}

#[test]
fn gemini_cli_runs_a_shell_command_and_sends_its_output_back() {
    let Some(run) = gemini(Scenario::builtin(), &["--yolo"]) else {
        return;
    };
    assert_eq!(run.code(), Some(0), "{}", run.describe());
    assert_eq!(
        run.types(),
        [
            "init",
            "message",
            "message",
            "tool_use",
            "tool_result",
            "message",
            "result"
        ],
        "{}",
        run.describe()
    );
    let lines = run.lines();
    assert_eq!(lines[0]["model"], "gemini-2.5-flash");
    assert_eq!(
        (&lines[2]["content"], &lines[2]["delta"]),
        (&json!("I'll run a command."), &json!(true))
    );
    assert_eq!(lines[3]["tool_name"], "run_shell_command");
    assert_eq!(lines[3]["parameters"], json!({"command": "echo hello"}));
    assert_eq!(
        (&lines[4]["status"], &lines[4]["output"]),
        (&json!("success"), &json!("hello"))
    );
    assert_eq!(lines[5]["content"], "The command printed hello.");
    assert_eq!(
        (&lines[6]["status"], &lines[6]["stats"]["tool_calls"]),
        (&json!("success"), &json!(1))
    );
    let asked = run.agent_requests();
    assert_eq!(asked.len(), 2);
    assert!(
        asked[1].tool_results[0].content.contains("hello"),
        "{:?}",
        asked[1].tool_results
    );
}

#[test]
fn gemini_cli_exits_with_the_http_status_of_an_api_error() {
    for (status, code) in [(400, 144), (401, 145)] {
        let steps = json!({"steps": [{"error": {"status": status}}]});
        let Some(run) = gemini(scenario(steps), &[]) else {
            return;
        };
        assert_eq!(run.code(), Some(code), "{status}: {}", run.describe());
        assert_eq!(run.types(), ["init", "message", "result"]);
        let result = &run.lines()[2];
        assert_eq!(result["status"], "error");
        let message = result["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("[API Error: {\"error\":{\"code\":") && message.contains(&status.to_string()),
            "{message}"
        );
        assert_eq!(result["stats"]["total_tokens"], 0);
    }
}
