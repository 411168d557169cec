//! The pure core of the Codex dialect against the lines `REAL-CODEX.md` records from
//! codex-cli 0.163.0: field by field, in the order of their keys.

use serde_json::{json, Value};

use super::args::{self, Command as Cli, ExecArgs};
use super::exec::{self, Outcome, Run, Thread};
use super::session::{default_session, Command, End, Failure, Item, Session, Turn, Usage};

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

fn exec_args(words: &[&str]) -> ExecArgs {
    match args::parse(&argv(words)) {
        Ok(Cli::Exec(args)) => *args,
        other => panic!("not an exec command line: {other:?}"),
    }
}

const THREAD: &str = "01a21d00-ede8-7e30-9c0b-291a62274862";

fn thread() -> Thread {
    Thread {
        id: THREAD.into(),
        prior: Usage::default(),
        turns: 0,
    }
}

fn play(session: &Session, args: &ExecArgs, thread: Thread, schema: Option<&Value>) -> Outcome {
    exec::play(&Run {
        session,
        args,
        thread,
        prompt: "Say hello",
        cwd: "/home/user/project",
        schema,
    })
}

fn observed_usage() -> Usage {
    Usage {
        input_tokens: 30,
        cached_input_tokens: 4,
        cache_write_input_tokens: 0,
        output_tokens: 12,
        reasoning_output_tokens: 2,
    }
}

/// The run `REAL-CODEX.md` shows ("A run with one shell command"), as a session.
fn echo_session() -> Session {
    Session {
        turns: vec![Turn {
            items: vec![
                Item::Command(Command {
                    command: "echo hello".into(),
                    output: "hello\n".into(),
                    exit_code: 0,
                    asks: false,
                }),
                Item::AgentMessage("All done.".into()),
            ],
            end: End::Completed,
            usage: observed_usage(),
        }],
    }
}

fn failing(failure: Failure) -> Session {
    Session {
        turns: vec![Turn {
            items: Vec::new(),
            end: End::Failed(failure),
            usage: Usage::default(),
        }],
    }
}

#[test]
fn the_observed_run_byte_for_byte() {
    let args = exec_args(&["exec", "--experimental-json", "-m", "gpt-5.5"]);
    let out = play(&echo_session(), &args, thread(), None);
    let expected = [
        r#"{"type":"thread.started","thread_id":"01a21d00-ede8-7e30-9c0b-291a62274862"}"#,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'echo hello'","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'echo hello'","aggregated_output":"hello\n","exit_code":0,"status":"completed"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"All done."}}"#,
        r#"{"type":"turn.completed","usage":{"input_tokens":30,"cached_input_tokens":4,"cache_write_input_tokens":0,"output_tokens":12,"reasoning_output_tokens":2}}"#,
    ];
    assert_eq!(out.stdout, expected);
    assert_eq!(out.exit_code, 0);
    assert_eq!(out.last_message.as_deref(), Some("All done."));
    assert_eq!(out.usage, observed_usage());
}

#[test]
fn the_default_session_in_the_observed_shapes() {
    let args = exec_args(&["exec", "--json", "--skip-git-repo-check"]);
    let out = play(&default_session("/home/user/project"), &args, thread(), None);
    let lines: Vec<Value> = out
        .stdout
        .iter()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    let kinds: Vec<&str> = lines
        .iter()
        .map(|l| l["type"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        kinds,
        [
            "thread.started",
            "turn.started",
            "item.completed",
            "item.completed",
            "item.started",
            "item.completed",
            "item.started",
            "item.completed",
            "item.completed",
            "turn.completed"
        ]
    );
    assert_eq!(keys(&lines[0]), ["type", "thread_id"]);
    assert_eq!(keys(&lines[1]), ["type"]);
    assert_eq!(
        lines[2]["item"],
        json!({"id": "item_0", "type": "reasoning", "text": "**Planning the change**"})
    );
    assert_eq!(keys(&lines[2]["item"]), ["id", "type", "text"]);
    assert_eq!(keys(&lines[3]["item"]), ["id", "type", "text"]);
    assert_eq!(
        keys(&lines[4]["item"]),
        [
            "id",
            "type",
            "command",
            "aggregated_output",
            "exit_code",
            "status"
        ]
    );
    assert_eq!(lines[4]["item"]["exit_code"], Value::Null);
    assert_eq!(lines[5]["item"]["status"], "completed");
    assert_eq!(lines[4]["item"]["id"], lines[5]["item"]["id"]);
    assert_eq!(
        out.stdout[6],
        r#"{"type":"item.started","item":{"id":"item_3","type":"file_change","changes":[{"path":"/home/user/project/notes.md","kind":"add"}],"status":"in_progress"}}"#
    );
    assert_eq!(lines[7]["item"]["status"], "completed");
    assert_eq!(lines[8]["item"]["id"], "item_4");
    assert_eq!(keys(&lines[9]), ["type", "usage"]);
    assert_eq!(
        keys(&lines[9]["usage"]),
        [
            "input_tokens",
            "cached_input_tokens",
            "cache_write_input_tokens",
            "output_tokens",
            "reasoning_output_tokens"
        ]
    );
    assert_eq!(
        out.last_message.as_deref(),
        Some("Created made.txt and notes.md.")
    );
    assert!(out.stderr.is_empty(), "{:?}", out.stderr);
}

#[test]
fn resume_adds_the_turn_to_the_threads_usage() {
    let args = exec_args(&["exec", "--experimental-json", "resume", THREAD]);
    assert_eq!(args.resume.as_ref().and_then(|r| r.id.as_deref()), Some(THREAD));
    let first = Usage {
        input_tokens: 10,
        cached_input_tokens: 2,
        cache_write_input_tokens: 0,
        output_tokens: 5,
        reasoning_output_tokens: 1,
    };
    let mut session = echo_session();
    session.turns[0].usage = first;
    let resumed = Thread {
        prior: first,
        turns: 1,
        ..thread()
    };
    let out = play(&session, &args, resumed, None);
    assert_eq!(
        out.stdout[0],
        format!(r#"{{"type":"thread.started","thread_id":"{THREAD}"}}"#)
    );
    assert_eq!(
        out.stdout.last().map(String::as_str),
        Some(
            r#"{"type":"turn.completed","usage":{"input_tokens":20,"cached_input_tokens":4,"cache_write_input_tokens":0,"output_tokens":10,"reasoning_output_tokens":2}}"#
        )
    );
    let unknown = exec::unknown_thread("00000000-0000-7000-8000-000000000000");
    assert_eq!(unknown.exit_code, 1);
    assert_eq!(
        unknown.stderr,
        ["Error: thread/resume: thread/resume failed: no rollout found for thread id 00000000-0000-7000-8000-000000000000 (code -32600)"]
    );
}

#[test]
fn failures_end_as_the_cli_ends_them() {
    let args = exec_args(&["exec", "--json"]);
    let tail = |out: &Outcome, n: usize| out.stdout[out.stdout.len() - n..].to_vec();

    let bad = play(
        &failing(Failure::BadRequest {
            body: "mock error 400".into(),
        }),
        &args,
        thread(),
        None,
    );
    assert_eq!(
        bad.stdout[1..],
        [
            r#"{"type":"turn.started"}"#,
            r#"{"type":"error","message":"mock error 400"}"#,
            r#"{"type":"turn.failed","error":{"message":"mock error 400"}}"#
        ]
    );
    assert_eq!((bad.exit_code, bad.last_message.clone()), (1, None));

    let limited = play(&failing(Failure::RateLimited), &args, thread(), None);
    assert_eq!(limited.stdout.len(), 2 + 5 + 2);
    assert_eq!(
        limited.stdout[2],
        r#"{"type":"error","message":"Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests)"}"#
    );
    assert_eq!(
        tail(&limited, 1),
        [
            r#"{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}"#
        ]
    );

    let unauthorized = play(&failing(Failure::Unauthorized), &args, thread(), None);
    let last: Value =
        serde_json::from_str(&unauthorized.stdout[unauthorized.stdout.len() - 1]).expect("JSON");
    let message = last["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("unexpected status 401 Unauthorized: "),
        "{message}"
    );
    assert!(unauthorized.stdout[6].contains("Reconnecting... 5/5 (unexpected status 401"));

    let model = exec_args(&["exec", "--json", "-m", "gpt-nope"]);
    let unknown = play(&failing(Failure::UnknownModel), &model, thread(), None);
    assert_eq!(
        unknown.stdout[1],
        r#"{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `gpt-nope` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}"#
    );
    assert_eq!(unknown.stdout[2], r#"{"type":"turn.started"}"#);
    assert!(unknown.stdout[3].contains("model_not_found"));

    let cut = play(
        &failing(Failure::StreamCut {
            partial: "Hel".into(),
        }),
        &args,
        thread(),
        None,
    );
    let kinds: Vec<String> = cut.stdout[2..]
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .map(|v| {
            format!(
                "{} {}",
                v["type"].as_str().unwrap_or_default(),
                v["item"]["id"].as_str().unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "item.completed item_0",
            "error ",
            "item.completed item_1",
            "error ",
            "item.completed item_2",
            "error ",
            "item.completed item_3",
            "error ",
            "item.completed item_4",
            "error ",
            "item.completed item_5",
            "error ",
            "turn.failed "
        ]
    );
    assert_eq!(
        cut.stdout[3],
        r#"{"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion: stream closed before response.completed)"}"#
    );
    assert_eq!(cut.exit_code, 1);
}

#[test]
fn quirks_a_web_search_with_two_ids_and_warnings_before_the_turn() {
    let session = Session {
        turns: vec![Turn {
            items: vec![
                Item::Warning("Code Mode is unavailable because code-mode host is disabled.".into()),
                Item::WebSearch {
                    id: "ws_1".into(),
                    query: "rust".into(),
                },
                Item::AgentMessage("Found it.".into()),
            ],
            end: End::Completed,
            usage: Usage::default(),
        }],
    };
    let out = play(&session, &exec_args(&["exec", "--json"]), thread(), None);
    assert_eq!(
        out.stdout[1],
        r#"{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Code Mode is unavailable because code-mode host is disabled."}}"#
    );
    assert_eq!(out.stdout[2], r#"{"type":"turn.started"}"#);
    assert_eq!(
        out.stdout[4],
        r#"{"type":"item.completed","item":{"id":"item_1","type":"web_search","id":"ws_1","query":"rust","action":{"type":"search","query":"rust"}}}"#
    );
    // A last-wins parser keeps the search's own id.
    let parsed: Value = serde_json::from_str(&out.stdout[4]).expect("JSON");
    assert_eq!(parsed["item"]["id"], "ws_1");
}

#[test]
fn output_schema_and_the_last_message() {
    let schema = json!({"type": "object", "properties": {"summary": {"type": "string"},
        "status": {"type": "string", "enum": ["ok", "action_required"]}}, "required": ["summary", "status"],
        "additionalProperties": false});
    let args = exec_args(&[
        "exec",
        "--json",
        "--output-schema",
        "/tmp/s.json",
        "-o",
        "/tmp/last.txt",
    ]);
    assert_eq!(args.output_last_message.as_deref(), Some("/tmp/last.txt"));
    let out = play(&default_session("/w"), &args, thread(), Some(&schema));
    let answer = r#"{"summary":"example","status":"ok"}"#;
    assert_eq!(out.last_message.as_deref(), Some(answer));
    let messages: Vec<&String> = out
        .stdout
        .iter()
        .filter(|l| l.contains("agent_message"))
        .collect();
    assert_eq!(messages.len(), 1, "a strict schema leaves one answer");
    assert!(messages[0].contains(r#""text":"{\"summary\":\"example\",\"status\":\"ok\"}""#));

    let not_json = exec::read_schema("/tmp/s.json", Ok("{nope}".into())).expect_err("not JSON");
    assert_eq!(
        not_json.stderr,
        ["Output schema file /tmp/s.json is not valid JSON: key must be a string at line 1 column 2"]
    );
    let missing = exec::read_schema("/x.json", Err("No such file or directory (os error 2)".into()))
        .expect_err("missing");
    assert_eq!(
        (missing.stderr[0].as_str(), missing.exit_code),
        (
            "Failed to read output schema file /x.json: No such file or directory (os error 2)",
            1
        )
    );
}

#[test]
fn prompts_from_argv_and_stdin() {
    let sdk = exec_args(&["exec", "--experimental-json"]);
    assert_eq!(
        exec::read_prompt(&sdk, Some("Say hello")),
        Ok(("Say hello".into(), vec!["Reading prompt from stdin...".into()]))
    );
    let empty = exec::read_prompt(&sdk, Some("  \n")).expect_err("empty stdin");
    assert_eq!(
        (empty.stderr, empty.exit_code),
        (
            vec![
                "Reading prompt from stdin...".to_owned(),
                "No prompt provided via stdin.".to_owned()
            ],
            1
        )
    );
    let dash = exec_args(&["exec", "--json", "-"]);
    assert!(dash.prompt_from_stdin());
    let both = exec_args(&["exec", "fix it"]);
    let (prompt, said) = exec::read_prompt(&both, Some("log line")).expect("prompt");
    assert_eq!(prompt, "fix it\n\n<stdin>\nlog line\n</stdin>");
    assert_eq!(said, ["Reading additional input from stdin..."]);
    assert_eq!(exec::read_prompt(&both, None), Ok(("fix it".into(), Vec::new())));
}

#[test]
fn text_mode_prints_the_answer_and_a_banner() {
    let args = exec_args(&["exec", "--skip-git-repo-check", "echo"]);
    let out = play(&echo_session(), &args, thread(), None);
    assert_eq!(out.stdout, ["All done."]);
    let err = out.stderr.join("\n");
    assert!(
        err.starts_with("OpenAI Codex v0.163.0\n--------\nworkdir: /home/user/project\nmodel: gpt-5.5\n"),
        "{err}"
    );
    assert!(err.contains("approval: never\n"));
    assert!(err.contains(&format!("session id: {THREAD}\n--------\nuser\nSay hello\n")));
    assert!(
        err.contains("exec\n/bin/bash -lc 'echo hello' in /home/user/project\n succeeded in 0ms:\nhello\n")
    );
    assert!(err.ends_with("codex\nAll done.\ntokens used\n38"), "{err}");
    let failed = play(&failing(Failure::Quota), &args, thread(), None);
    assert!(failed.stdout.is_empty());
    assert_eq!(failed.exit_code, 1);
    assert_eq!(
        failed.stderr.last().map(String::as_str),
        Some("ERROR: Quota exceeded. Check your plan and billing details.")
    );
}

#[test]
fn a_read_only_sandbox_rejects_the_patch_without_an_item() {
    let args = exec_args(&["exec", "--json", "--sandbox", "read-only"]);
    let out = play(&default_session("/w"), &args, thread(), None);
    assert!(!out.stdout.iter().any(|l| l.contains("file_change")));
    assert_eq!(
        out.stdout.last().map(|l| l.contains("turn.completed")),
        Some(true)
    );
    assert_eq!(
        out.stderr,
        ["ERROR codex_core::tools::router: error=patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings"]
    );
}

/// `reconnect-then-ok`, as 0.163.0 wrote it with the API answering 429 once and then
/// a text (observed): the retry's `error` line right after `turn.started`, no item id
/// taken, then the turn as without and exit 0.
#[test]
fn a_retry_then_the_answer_as_observed() {
    use super::faults::{parse, Injector, FROM_ENV};
    let mut session = Session {
        turns: vec![Turn {
            items: vec![Item::AgentMessage("Hello.".into())],
            end: End::Completed,
            usage: Usage {
                input_tokens: 10,
                output_tokens: 5,
                ..Usage::default()
            },
        }],
    };
    Injector::new(parse("reconnect-then-ok", FROM_ENV).expect("a preset")).prepare(&mut session);
    let args = exec_args(&["exec", "--json", "-m", "gpt-5.5"]);
    let out = play(&session, &args, thread(), None);
    let expected = [
        r#"{"type":"thread.started","thread_id":"01a21d00-ede8-7e30-9c0b-291a62274862"}"#,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"error","message":"Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests)"}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"Hello."}}"#,
        r#"{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":5,"reasoning_output_tokens":0}}"#,
    ];
    assert_eq!(out.stdout, expected);
    assert_eq!(out.exit_code, 0);
    assert_eq!(out.last_message.as_deref(), Some("Hello."));
}
