//! Server mode end to end: `cursor-agent acp` driven by a real ACP client (the
//! `agent-client-protocol` crate) through whole sessions on every kind of source, and
//! by hand-written JSON lines for what a client library never sends.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AuthenticateRequest, CancelNotification, ClientCapabilities, ContentBlock, CreateTerminalRequest,
    CreateTerminalResponse, FileSystemCapabilities, Implementation, InitializeRequest, LoadSessionRequest,
    NewSessionResponse, PermissionOptionKind, PromptRequest, ReadTextFileRequest, ReadTextFileResponse,
    ReleaseTerminalRequest, ReleaseTerminalResponse, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome, SessionId, SessionNotification, SessionUpdate,
    StopReason, TerminalExitStatus, TerminalOutputRequest, TerminalOutputResponse, ToolCallStatus,
    WaitForTerminalExitRequest, WaitForTerminalExitResponse, WriteTextFileRequest, WriteTextFileResponse,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{
    on_receive_notification, on_receive_request, AcpAgent, AcpAgentConfig, Agent, Client, Handled,
    LineDirection, UntypedMessage,
};
use serde_json::{json, Value};

use crate::support::{bin, install_as_cursor_agent, mock, root};

/// How long a test waits for the mock before it fails (a hang is a failure, not a
/// measure: nothing here asserts on time).
const PATIENCE: Duration = Duration::from_secs(30);

// ---------------------------------------------------------------------------------
// A client written with the `agent-client-protocol` crate.
// ---------------------------------------------------------------------------------

/// What the client saw.
#[derive(Default)]
struct Seen {
    /// Every `session/update`, parsed by the library, in wire order.
    updates: Vec<SessionNotification>,
    /// Every notification's method, parsed or not (a `session/update` the library
    /// cannot parse would be dropped silently by the typed handler).
    notifications: Vec<String>,
    /// Every `session/request_permission`, each answered `allow-once`.
    permissions: Vec<RequestPermissionRequest>,
    /// The agent's stdout lines, as they came.
    stdout: Vec<String>,
    /// The agent's stderr lines.
    stderr: Vec<String>,
    /// The agent's requests of the client's files and terminals, in order: method
    /// and params.
    tools: Vec<(String, Value)>,
    /// The methods the client answers with an error.
    refuse: Vec<&'static str>,
}

/// What the client answers of its files and terminals.
const CLIENT_README: &str = "# From the client's editor\n\nUnsaved.\n";
const CLIENT_TERMINAL: &str = "term-e2e";
const CLIENT_OUTPUT: &str = "19 summary.txt\n";

/// Adds to a client builder the handler of one of the agent's file or terminal
/// requests: noted, then answered `$answer`, or with an error if the method is
/// refused.
macro_rules! answer_tool {
    ($builder:expr, $seen:expr, $method:expr, |$r:ident: $request:ty| $answer:expr) => {{
        let seen = $seen.clone();
        $builder.on_receive_request(
            async move |$r: $request, responder, _cx| {
                let method: &'static str = $method;
                let refused = {
                    let mut seen = seen.lock().expect("lock");
                    let params = serde_json::to_value(&$r).expect("serializes");
                    seen.tools.push((method.to_owned(), params));
                    seen.refuse.contains(&method)
                };
                if refused {
                    responder.respond_with_internal_error(format!("the client refuses {method}"))
                } else {
                    responder.respond($answer)
                }
            },
            on_receive_request!(),
        )
    }};
}

/// The client's view of one agent process, shared with its handlers.
struct Tap {
    seen: Arc<Mutex<Seen>>,
    /// How many `session/update`s have come, to wait for the next one.
    updated: tokio::sync::watch::Sender<usize>,
}

impl Tap {
    fn new() -> Self {
        Tap {
            seen: Arc::default(),
            updated: tokio::sync::watch::Sender::new(0),
        }
    }

    /// `program ARGS` as an ACP agent, with `env` over a blank `MOCK_AGENT_*`
    /// environment (an empty variable counts as unset), its lines tapped.
    fn agent(&self, program: &Path, args: &[&str], env: &[(&str, &str)]) -> AcpAgent {
        let blank = std::env::vars()
            .filter(|(name, _)| name.starts_with("MOCK_AGENT_"))
            .map(|(name, _)| (name, String::new()));
        let config = AcpAgentConfig::new(program)
            .args(args.iter().copied())
            .envs(blank)
            .envs(env.iter().copied());
        let seen = self.seen.clone();
        AcpAgent::new(config).with_debug(move |line, direction| {
            let mut seen = seen.lock().expect("lock");
            match direction {
                LineDirection::Stdout => seen.stdout.push(line.to_owned()),
                LineDirection::Stderr => seen.stderr.push(line.to_owned()),
                LineDirection::Stdin => {}
            }
        })
    }

    /// Runs `main` as the client of `agent`, answering every permission request
    /// `allow-once`; fails if the agent takes longer than [`PATIENCE`].
    async fn run<R>(
        &self,
        agent: AcpAgent,
        main: impl AsyncFnOnce(ConnectionTo<Agent>) -> agent_client_protocol::Result<R>,
    ) -> agent_client_protocol::Result<R> {
        let (all, seen, asked) = (self.seen.clone(), self.seen.clone(), self.seen.clone());
        let updated = self.updated.clone();
        let client = Client
            .v1()
            .name("mock-agent-e2e")
            .on_receive_notification(
                async move |n: UntypedMessage, cx| {
                    all.lock().expect("lock").notifications.push(n.method.clone());
                    Ok(Handled::No {
                        message: (n, cx),
                        retry: false,
                    })
                },
                on_receive_notification!(),
            )
            .on_receive_notification(
                async move |n: SessionNotification, _cx| {
                    seen.lock().expect("lock").updates.push(n);
                    updated.send_modify(|count| *count += 1);
                    Ok(())
                },
                on_receive_notification!(),
            )
            .on_receive_request(
                async move |request: RequestPermissionRequest, responder, _cx| {
                    let outcome = match request
                        .options
                        .iter()
                        .find(|o| o.kind == PermissionOptionKind::AllowOnce)
                    {
                        Some(option) => RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(
                            option.option_id.clone(),
                        )),
                        None => RequestPermissionOutcome::Cancelled,
                    };
                    asked.lock().expect("lock").permissions.push(request);
                    responder.respond(RequestPermissionResponse::new(outcome))
                },
                on_receive_request!(),
            );
        let tools = &self.seen;
        let client = answer_tool!(client, tools, "fs/read_text_file", |r: ReadTextFileRequest| {
            ReadTextFileResponse::new(CLIENT_README)
        });
        let client = answer_tool!(client, tools, "fs/write_text_file", |r: WriteTextFileRequest| {
            WriteTextFileResponse::new()
        });
        let client = answer_tool!(client, tools, "terminal/create", |r: CreateTerminalRequest| {
            CreateTerminalResponse::new(CLIENT_TERMINAL)
        });
        let client = answer_tool!(
            client,
            tools,
            "terminal/wait_for_exit",
            |r: WaitForTerminalExitRequest| {
                WaitForTerminalExitResponse::new(TerminalExitStatus::new().exit_code(0))
            }
        );
        let client = answer_tool!(client, tools, "terminal/output", |r: TerminalOutputRequest| {
            TerminalOutputResponse::new(CLIENT_OUTPUT, false)
        });
        let client = answer_tool!(client, tools, "terminal/release", |r: ReleaseTerminalRequest| {
            ReleaseTerminalResponse::new()
        });
        let client = client.connect_with(agent, main);
        tokio::time::timeout(PATIENCE, client)
            .await
            .expect("the session ended in time")
    }

    /// The updates seen since the `from`-th, but `available_commands_update` (it
    /// follows session/new's result, so it may come before a turn or during it).
    fn updates_from(&self, from: usize) -> Vec<SessionNotification> {
        let seen = self.seen.lock().expect("lock");
        seen.updates[from..]
            .iter()
            .filter(|n| !matches!(n.update, SessionUpdate::AvailableCommandsUpdate(_)))
            .cloned()
            .collect()
    }

    fn update_count(&self) -> usize {
        self.seen.lock().expect("lock").updates.len()
    }
}

/// `initialize` (protocol 1) and `authenticate`, checking what the agent offers.
async fn handshake(cx: &ConnectionTo<Agent>) -> agent_client_protocol::Result<()> {
    handshake_offering(cx, ClientCapabilities::new()).await
}

/// A client's capabilities: files (read and write) and terminals, or nothing.
fn offering(everything: bool) -> ClientCapabilities {
    ClientCapabilities::new()
        .fs(FileSystemCapabilities::new()
            .read_text_file(everything)
            .write_text_file(everything))
        .terminal(everything)
}

/// [`handshake`], the client offering `offered` in `initialize`.
async fn handshake_offering(
    cx: &ConnectionTo<Agent>,
    offered: ClientCapabilities,
) -> agent_client_protocol::Result<()> {
    let init = cx
        .send_request(
            InitializeRequest::new(ProtocolVersion::V1)
                .client_capabilities(offered)
                .client_info(Implementation::new("mock-agent-e2e", "0.1.0")),
        )
        .block_task()
        .await?;
    assert_eq!(init.protocol_version, ProtocolVersion::V1);
    assert!(init.agent_capabilities.load_session, "loadSession");
    let methods: Vec<&str> = init.auth_methods.iter().map(|m| &*m.id().0).collect();
    assert_eq!(methods, ["cursor_login"]);
    cx.send_request(AuthenticateRequest::new("cursor_login"))
        .block_task()
        .await?;
    Ok(())
}

/// `session/new`, read raw (the typed response has no `models` block) and typed.
async fn new_session(cx: &ConnectionTo<Agent>) -> agent_client_protocol::Result<(SessionId, Value)> {
    let raw = cx
        .send_request(UntypedMessage::new(
            "session/new",
            json!({"cwd": root().canonicalize().expect("root"), "mcpServers": []}),
        )?)
        .block_task()
        .await?;
    let typed: NewSessionResponse = serde_json::from_value(raw.clone()).expect("a NewSessionResponse");
    Ok((typed.session_id, raw))
}

async fn prompt(
    cx: &ConnectionTo<Agent>,
    session: &SessionId,
    text: &str,
) -> agent_client_protocol::Result<StopReason> {
    let response = cx
        .send_request(PromptRequest::new(session.clone(), vec![text.into()]))
        .block_task()
        .await?;
    Ok(response.stop_reason)
}

/// The `sessionUpdate` tag of each update.
fn kinds(updates: &[SessionNotification]) -> Vec<String> {
    updates
        .iter()
        .map(|n| {
            let update = serde_json::to_value(&n.update).expect("serializes");
            update["sessionUpdate"].as_str().unwrap_or("?").to_owned()
        })
        .collect()
}

/// The text of the agent's message chunks, concatenated.
fn message_text(updates: &[SessionNotification]) -> String {
    updates
        .iter()
        .filter_map(|n| match &n.update {
            SessionUpdate::AgentMessageChunk(chunk) => match &chunk.content {
                ContentBlock::Text(text) => Some(text.text.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Each `tool_call` is followed by a `tool_call_update` of the same id that ends it
/// (`completed` or `failed`); returns the ids in order.
fn assert_tool_calls_end(updates: &[SessionNotification]) -> Vec<String> {
    let mut ids = Vec::new();
    for (i, n) in updates.iter().enumerate() {
        let SessionUpdate::ToolCall(call) = &n.update else {
            continue;
        };
        let ended = updates[i + 1..].iter().any(|later| match &later.update {
            SessionUpdate::ToolCallUpdate(update) => {
                update.tool_call_id == call.tool_call_id
                    && matches!(
                        update.fields.status,
                        Some(ToolCallStatus::Completed | ToolCallStatus::Failed)
                    )
            }
            _ => false,
        });
        assert!(
            ended,
            "tool call {:?} has no ending update after it",
            call.tool_call_id
        );
        ids.push(call.tool_call_id.0.to_string());
    }
    ids
}

/// What print mode says of the same source: `result` of `--output-format json`, or
/// `None` when the run fails.
fn print_mode_result(env: &[(&str, &str)]) -> Option<String> {
    let output = mock()
        .args(["-p", "--output-format", "json", "hi"])
        .envs(env.iter().copied())
        .output()
        .expect("runs");
    if !output.status.success() {
        return None;
    }
    let result: Value = serde_json::from_slice(&output.stdout).expect("one JSON result");
    Some(result["result"].as_str().expect("a result text").to_owned())
}

#[tokio::test]
async fn a_client_library_plays_a_whole_session_on_the_default_source() {
    let answer = print_mode_result(&[]).expect("the default session succeeds");
    let dir = install_as_cursor_agent();
    let tap = Tap::new();
    // Slow enough that the second turn is still playing when the cancel comes.
    let agent = tap.agent(
        &dir.path().join("cursor-agent"),
        &["acp"],
        &[("MOCK_AGENT_TIMING", "fixed=50")],
    );
    let mut updated = tap.updated.subscribe();
    tap.run(agent, async |cx| {
        handshake(&cx).await?;
        let (session, raw) = new_session(&cx).await?;
        let models = &raw["models"];
        assert_eq!(models["currentModelId"], "auto", "{raw}");
        let available = models["availableModels"].as_array().expect("availableModels");
        assert!(
            available
                .iter()
                .any(|m| m["modelId"] == "auto" && m["name"].is_string()),
            "{raw}"
        );
        assert_eq!(raw["modes"]["currentModeId"], "agent");

        // Turn 1: the write asks permission, answered allow-once.
        let from = tap.update_count();
        assert_eq!(prompt(&cx, &session, "hi").await?, StopReason::EndTurn);
        let turn = tap.updates_from(from);
        assert!(turn.iter().all(|n| n.session_id == session));
        assert_eq!(
            kinds(&turn),
            [
                "agent_message_chunk",
                "agent_message_chunk",
                "tool_call",
                "tool_call_update",
                "agent_message_chunk",
                "tool_call",
                "tool_call_update",
                "usage_update",
                "session_info_update"
            ]
        );
        assert_eq!(message_text(&turn), answer);
        let calls = assert_tool_calls_end(&turn);
        {
            let seen = tap.seen.lock().expect("lock");
            assert_eq!(seen.permissions.len(), 1);
            assert_eq!(&*seen.permissions[0].tool_call.tool_call_id.0, calls[1]);
        }

        // Turn 2: cancelled once its first update has come.
        let from = tap.update_count();
        updated.mark_unchanged();
        let pending = cx.send_request(PromptRequest::new(session.clone(), vec!["again".into()]));
        updated.changed().await.expect("an update");
        cx.send_notification(CancelNotification::new(session.clone()))?;
        assert_eq!(pending.block_task().await?.stop_reason, StopReason::Cancelled);
        let cancelled = tap.updates_from(from);
        assert!(
            cancelled.len() < turn.len(),
            "the cancelled turn stopped early: {:?}",
            kinds(&cancelled)
        );

        // session/load: the history, as updates, before the result.
        let from = tap.update_count();
        let stdout_from = tap.seen.lock().expect("lock").stdout.len();
        cx.send_request(LoadSessionRequest::new(session.clone(), root()))
            .block_task()
            .await?;
        let history = tap.updates_from(from);
        assert_eq!(kinds(&history[..1]), ["user_message_chunk"]);
        assert_eq!(message_text(&history), answer);
        let stdout = tap.seen.lock().expect("lock").stdout[stdout_from..].to_vec();
        assert_eq!(stdout.len(), history.len() + 1, "{stdout:#?}");
        assert!(stdout.last().is_some_and(|line| line.contains(r#""result":{}"#)));
        Ok(())
    })
    .await
    .expect("the session succeeds");
    let seen = tap.seen.lock().expect("lock");
    assert_eq!(seen.stderr, Vec::<String>::new());
    let commands = kinds(&seen.updates)
        .iter()
        .filter(|k| *k == "available_commands_update")
        .count();
    assert_eq!(commands, 1, "once, after session/new");
    let raw_updates = seen
        .notifications
        .iter()
        .filter(|m| *m == "session/update")
        .count();
    assert_eq!(raw_updates, seen.updates.len(), "every update parses");
}

#[tokio::test]
async fn a_shell_command_asks_permission_through_acp() {
    let cassette = root().join("cassettes/shell-command.cassette");
    let env = [("MOCK_AGENT_CASSETTE", cassette.to_str().expect("utf-8"))];
    let answer = print_mode_result(&env).expect("the cassette succeeds");
    let tap = Tap::new();
    let agent = tap.agent(&bin(), &["acp"], &env);
    tap.run(agent, async |cx| {
        handshake(&cx).await?;
        let (session, _) = new_session(&cx).await?;
        assert_eq!(
            &*session.0, "3f9a1c2e-5b7d-4e8f-a0b1-c2d3e4f5a6b7",
            "the recording's session"
        );
        let from = tap.update_count();
        assert_eq!(prompt(&cx, &session, "count").await?, StopReason::EndTurn);
        let turn = tap.updates_from(from);
        assert_eq!(message_text(&turn), answer);
        assert_eq!(
            kinds(&turn),
            [
                "agent_message_chunk",
                "tool_call",
                "tool_call_update",
                "agent_message_chunk",
                "usage_update",
                "session_info_update"
            ]
        );
        let calls = assert_tool_calls_end(&turn);
        let seen = tap.seen.lock().expect("lock");
        let [asked] = &seen.permissions[..] else {
            panic!("one permission request: {:?}", seen.permissions);
        };
        assert_eq!(&*asked.tool_call.tool_call_id.0, calls[0]);
        let tool_call = serde_json::to_value(&asked.tool_call).expect("serializes");
        assert_eq!(tool_call["kind"], "execute");
        assert_eq!(tool_call["title"], "`wc -l src/*.rs`");
        let update = serde_json::to_value(&turn[2].update).expect("serializes");
        assert_eq!(update["rawOutput"]["success"]["exitCode"], 0, "{update}");
        Ok(())
    })
    .await
    .expect("the session succeeds");
}

/// The update of tool call `id` that ends it (`completed` or `failed`), as JSON.
fn ending_of(turn: &[SessionNotification], id: &str) -> Value {
    turn.iter()
        .filter_map(|n| match &n.update {
            SessionUpdate::ToolCallUpdate(update) if &*update.tool_call_id.0 == id => {
                serde_json::to_value(update).ok()
            }
            _ => None,
        })
        .rfind(|u| u["status"] == "completed" || u["status"] == "failed")
        .unwrap_or_else(|| panic!("no ending of {id}"))
}

/// The methods of the agent's file and terminal requests the client saw.
fn tools_asked(tap: &Tap) -> Vec<String> {
    let seen = tap.seen.lock().expect("lock");
    seen.tools.iter().map(|(method, _)| method.clone()).collect()
}

/// The default conversation, a client written with the ACP crate offering its files
/// and a terminal: the agent reads README.md and writes summary.txt through the
/// client, then checks its work in the client's terminal; what it reports of each
/// tool is what the client answered.
#[tokio::test]
async fn a_client_that_offers_files_and_a_terminal_sees_the_agent_use_them() {
    let tap = Tap::new();
    let agent = tap.agent(&bin(), &["acp"], &[]);
    tap.run(agent, async |cx| {
        handshake_offering(&cx, offering(true)).await?;
        let (session, _) = new_session(&cx).await?;
        let from = tap.update_count();
        assert_eq!(prompt(&cx, &session, "hi").await?, StopReason::EndTurn);
        let turn = tap.updates_from(from);
        let calls = assert_tool_calls_end(&turn);
        assert_eq!(calls.len(), 3, "read, write, check: {:?}", kinds(&turn));
        let read = ending_of(&turn, &calls[0]);
        assert_eq!(read["rawOutput"]["success"]["content"], CLIENT_README, "{read}");
        let written = ending_of(&turn, &calls[1]);
        assert_eq!(written["content"][0]["type"], "diff", "{written}");
        let check = ending_of(&turn, &calls[2]);
        assert_eq!(check["status"], "completed");
        assert_eq!(check["rawOutput"]["stdout"], CLIENT_OUTPUT, "{check}");
        let shown = turn.iter().any(|n| {
            serde_json::to_value(&n.update).is_ok_and(|u| u["content"][0]["terminalId"] == CLIENT_TERMINAL)
        });
        assert!(shown, "the tool shows the client's terminal");
        Ok(())
    })
    .await
    .expect("the session succeeds");
    assert_eq!(
        tools_asked(&tap),
        [
            "fs/read_text_file",
            "fs/write_text_file",
            "terminal/create",
            "terminal/wait_for_exit",
            "terminal/output",
            "terminal/release"
        ]
    );
    let seen = tap.seen.lock().expect("lock");
    let root = root().canonicalize().expect("root");
    assert_eq!(
        seen.tools[0].1["path"],
        root.join("README.md").to_str().expect("utf-8"),
        "an absolute path in the session's folder"
    );
    assert!(seen.tools[1].1["content"]
        .as_str()
        .is_some_and(|c| c.starts_with("# README Summary")));
    assert_eq!(seen.tools[2].1["cwd"], root.to_str().expect("utf-8"));
    for (method, params) in &seen.tools[3..] {
        assert_eq!(params["terminalId"], CLIENT_TERMINAL, "{method}");
    }
}

/// The client refuses its file read and its terminal: the agent reports those tools
/// failed and goes on to the end of its turn, as the real agent does.
#[tokio::test]
async fn a_client_that_refuses_its_tools_sees_them_fail_and_the_turn_end() {
    let tap = Tap::new();
    tap.seen.lock().expect("lock").refuse = vec!["fs/read_text_file", "terminal/create"];
    let agent = tap.agent(&bin(), &["acp"], &[]);
    tap.run(agent, async |cx| {
        handshake_offering(&cx, offering(true)).await?;
        let (session, _) = new_session(&cx).await?;
        let from = tap.update_count();
        assert_eq!(prompt(&cx, &session, "hi").await?, StopReason::EndTurn);
        let turn = tap.updates_from(from);
        let calls = assert_tool_calls_end(&turn);
        let statuses: Vec<Value> = calls
            .iter()
            .map(|id| ending_of(&turn, id)["status"].clone())
            .collect();
        assert_eq!(statuses, ["failed", "completed", "failed"]);
        let read = ending_of(&turn, &calls[0]);
        assert!(read["rawOutput"]["error"].is_string(), "{read}");
        Ok(())
    })
    .await
    .expect("the session succeeds");
    assert_eq!(
        tools_asked(&tap),
        ["fs/read_text_file", "fs/write_text_file", "terminal/create"],
        "no terminal to wait for or release"
    );
}

/// A client that offers nothing is asked nothing of its files or terminals: the
/// agent does the work itself, as print mode tells it.
#[tokio::test]
async fn a_client_that_offers_nothing_is_asked_nothing_of_its_files_or_terminals() {
    let tap = Tap::new();
    let agent = tap.agent(&bin(), &["acp"], &[]);
    tap.run(agent, async |cx| {
        handshake_offering(&cx, offering(false)).await?;
        let (session, _) = new_session(&cx).await?;
        assert_eq!(prompt(&cx, &session, "hi").await?, StopReason::EndTurn);
        Ok(())
    })
    .await
    .expect("the session succeeds");
    assert_eq!(tools_asked(&tap), Vec::<String>::new());
    let seen = tap.seen.lock().expect("lock");
    assert!(
        !seen
            .stdout
            .iter()
            .any(|l| l.contains("\"fs/") || l.contains("\"terminal/")),
        "{:#?}",
        seen.stdout
    );
}

/// A client that never answers the agent's file read: the agent waits, as for a
/// permission, and a cancel ends the turn (withdrawing the request).
#[test]
fn a_file_read_never_answered_waits_and_a_cancel_ends_the_turn() {
    let mut wire = Wire::start(&[]);
    let offered = json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true}});
    wire.send(&request("0", "initialize", &offered));
    wire.until_response(&json!(0));
    wire.send(&new_session_line("1"));
    let session = wire.until_response(&json!(1))[0]["result"]["sessionId"].clone();
    let session = session.as_str().expect("a session id").to_owned();
    wire.send(&prompt_line(r#""p""#, &session, "hi"));
    let asked = wire.until_request("fs/read_text_file");
    let asked_id = asked.last().expect("asked")["id"].clone();
    wire.send(
        &json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}).to_string(),
    );
    let rest = wire.until_response(&json!("p"));
    let tags: Vec<String> = rest.iter().map(tag).collect();
    assert_eq!(tags, ["$/cancel_request", "response"], "{rest:#?}");
    assert_eq!(rest[0]["params"]["requestId"], asked_id);
    assert_eq!(rest[1]["result"]["stopReason"], "cancelled");
    let ended = wire.close();
    assert_eq!(ended.code, Some(0));
}

/// A client that answers the agent's file read late, after another request: the
/// request waits its turn, and the turn goes on with what the client read.
#[test]
fn a_file_read_answered_late_goes_on_with_what_the_client_read() {
    let mut wire = Wire::start(&[]);
    let offered = json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true}}});
    wire.send(&request("0", "initialize", &offered));
    wire.until_response(&json!(0));
    wire.send(&new_session_line("1"));
    let session = wire.until_response(&json!(1))[0]["result"]["sessionId"].clone();
    let session = session.as_str().expect("a session id").to_owned();
    wire.send(&prompt_line(r#""p""#, &session, "hi"));
    let asked = wire.until_request("fs/read_text_file");
    let asked_id = asked.last().expect("asked")["id"].clone();
    wire.send(&request(
        r#""m""#,
        "session/set_mode",
        &json!({"sessionId": session, "modeId": "ask"}),
    ));
    std::thread::sleep(Duration::from_millis(300));
    wire.send(&json!({"jsonrpc": "2.0", "id": asked_id, "result": {"content": "read late"}}).to_string());
    let mut rest = Vec::new();
    loop {
        let message = wire.json();
        if message["method"] == "session/request_permission" {
            wire.send(&allow_once(&message["id"]));
        }
        let done = message.get("method").is_none() && message["id"] == "m";
        rest.push(message);
        if done {
            break;
        }
    }
    let read = &rest[0]["params"]["update"];
    assert_eq!(read["status"], "completed", "{rest:#?}");
    assert_eq!(read["rawOutput"]["success"]["content"], "read late");
    let responses: Vec<&Value> = rest
        .iter()
        .filter(|m| m.get("method").is_none())
        .map(|m| &m["id"])
        .collect();
    assert_eq!(responses, [&json!("p"), &json!("m")], "the setter waits its turn");
    // The write and the terminal were not offered: not asked.
    assert!(!rest
        .iter()
        .any(|m| m["method"] == "fs/write_text_file" || m["method"] == "terminal/create"));
    assert_eq!(wire.close().code, Some(0));
}

/// Drives a generated conversation (`MOCK_AGENT_GENERATE=seed`): `initialize`
/// offering `offered`, `session/new`, one prompt, each agent request answered (the
/// client's terminal named `live-term`); the agent's messages of the turn.
fn generated_turn(seed: u64, offered: &Value) -> Vec<Value> {
    let seed = seed.to_string();
    let mut wire = Wire::start(&[("MOCK_AGENT_GENERATE", &seed)]);
    let init = json!({"protocolVersion": 1, "clientCapabilities": offered});
    wire.send(&request("0", "initialize", &init));
    wire.until_response(&json!(0));
    wire.send(&new_session_line("1"));
    let session = wire.until_response(&json!(1))[0]["result"]["sessionId"].clone();
    wire.send(&prompt_line(r#""p""#, session.as_str().expect("an id"), "hi"));
    let mut turn = Vec::new();
    loop {
        let message = wire.json();
        let done = message.get("method").is_none() && message["id"] == "p";
        if let (Some(method), Some(id)) = (message["method"].as_str(), message.get("id")) {
            let result = match method {
                "session/request_permission" => {
                    json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}})
                }
                "fs/read_text_file" => json!({"content": "live"}),
                "terminal/create" => json!({"terminalId": "live-term"}),
                "terminal/wait_for_exit" => json!({"exitCode": 0}),
                "terminal/output" => json!({"output": "", "truncated": false}),
                _ => json!({}),
            };
            wire.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string());
        }
        turn.push(message);
        if done {
            return turn;
        }
    }
}

/// A generated conversation whose client offered files and a terminal: a client
/// that offers them sees the agent's requests (naming the terminal it made); one
/// that offers nothing sees none, nor a terminal in a tool call.
#[test]
fn generated_conversations_ask_only_clients_that_offer_files_and_terminals() {
    use harness::dialects::cursor_acp::generate::{from_seed, ConversationConfig};
    let config = ConversationConfig::default();
    // A seed whose first turn runs a command in the client's terminal and reads a file.
    let seed = (0..500u64)
        .find(|seed| {
            let summary = from_seed(*seed, &config).summary();
            let first_turn = summary.split("result #").take(4).collect::<String>();
            summary.lines().nth(2).is_some()
                && first_turn.contains("request terminal/create")
                && first_turn.contains("request fs/read_text_file")
                && from_seed(*seed, &config)
                    .messages
                    .iter()
                    .any(|m| m.line.contains("\"terminalId\":\"term-0\"") && m.line.contains("\"result\""))
        })
        .expect("a seed with a terminal and a file read in its first turn");
    let everything = json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true});
    let turn = generated_turn(seed, &everything);
    let asked: Vec<&str> = turn
        .iter()
        .filter(|m| m.get("id").is_some())
        .filter_map(|m| m["method"].as_str())
        .collect();
    assert!(
        asked.contains(&"fs/read_text_file") && asked.contains(&"terminal/create"),
        "seed {seed}: {asked:?}"
    );
    for message in turn.iter().filter(|m| {
        m["method"]
            .as_str()
            .is_some_and(|m| m.starts_with("terminal/") && m != "terminal/create")
    }) {
        assert_eq!(
            message["params"]["terminalId"], "live-term",
            "the client's terminal: {message}"
        );
    }
    let nothing = json!({});
    let turn = generated_turn(seed, &nothing);
    let lines: Vec<String> = turn.iter().map(Value::to_string).collect();
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("\"fs/") || l.contains("\"terminal/") || l.contains("\"terminalId\"")),
        "seed {seed}: {lines:#?}"
    );
}

#[tokio::test]
async fn a_failed_run_answers_the_prompt_with_a_json_rpc_error() {
    let cassette = root().join("cassettes/connection-lost.cassette");
    let tap = Tap::new();
    let agent = tap.agent(
        &bin(),
        &["acp"],
        &[("MOCK_AGENT_CASSETTE", cassette.to_str().expect("utf-8"))],
    );
    tap.run(agent, async |cx| {
        handshake(&cx).await?;
        let (session, _) = new_session(&cx).await?;
        let error = prompt(&cx, &session, "hello")
            .await
            .expect_err("the prompt fails");
        assert_eq!(i32::from(error.code), -32603, "{error:?}");
        assert!(
            error.message.starts_with("RetriableError: [unavailable]"),
            "{error:?}"
        );
        Ok(())
    })
    .await
    .expect("the session goes on after the error");
    let seen = tap.seen.lock().expect("lock");
    assert!(
        seen.stderr.iter().any(|l| l.starts_with("RetriableError:")),
        "the recorded stderr line: {:?}",
        seen.stderr
    );
}

/// A print-mode run that was not logged in, told through ACP, answers as the real
/// agent does when not logged in: `initialize` works, session methods answer -32000.
#[test]
fn a_run_that_was_not_logged_in_answers_session_methods_authentication_required() {
    let cassette = root().join("cassettes/auth-required.cassette");
    let mut wire = Wire::start(&[("MOCK_AGENT_CASSETTE", cassette.to_str().expect("utf-8"))]);
    wire.send(&request("1", "initialize", &json!({"protocolVersion": 1})));
    assert_eq!(wire.json()["result"]["protocolVersion"], json!(1));
    wire.send(&new_session_line("2"));
    assert_eq!(
        wire.json(),
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "Authentication required"}})
    );
    wire.send(&prompt_line("3", "any", "hello"));
    assert_eq!(wire.json()["error"]["code"], json!(-32000));
    wire.send(&request(
        "4",
        "session/set_mode",
        &json!({"sessionId": "any", "modeId": "ask"}),
    ));
    assert_eq!(wire.json()["error"]["code"], json!(-32000));
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
    assert!(
        ended.stderr.starts_with("Authentication required. Please run"),
        "the recorded stderr line, once: {:?}",
        ended.stderr
    );
    assert_eq!(ended.stderr.lines().count(), 1, "{:?}", ended.stderr);
}

/// `session/load` of an id that is neither a session of this process nor the
/// recording's: -32602, as the real agent answers.
#[test]
fn loading_an_unknown_session_is_invalid_params() {
    let mut wire = Wire::start(&[]);
    wire.send(&request(
        "1",
        "session/load",
        &json!({"sessionId": "no-such-session", "cwd": "/tmp", "mcpServers": []}),
    ));
    assert_eq!(
        wire.json(),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Session no-such-session not found"}})
    );
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

#[tokio::test]
async fn a_generated_session_serves_acp_as_print_mode_tells_it() {
    // A generated print-mode session, saved as a cassette: in acp mode,
    // `MOCK_AGENT_GENERATE` serves a generated conversation instead.
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("generated-3.cassette");
    let saved = mock()
        .args(["generate", "--seed", "3", "--out"])
        .arg(&cassette)
        .output()
        .expect("runs");
    assert!(
        saved.status.success(),
        "{}",
        String::from_utf8_lossy(&saved.stderr)
    );
    let cassette = cassette.to_str().expect("utf-8").to_owned();
    let env = [("MOCK_AGENT_CASSETTE", cassette.as_str())];
    let answer = print_mode_result(&env);
    let tool_calls = {
        let output = mock()
            .args(["-p", "--output-format", "stream-json", "hi"])
            .envs(env)
            .output()
            .expect("runs");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter(|l| l.contains(r#""type":"tool_call","subtype":"started""#))
            .count()
    };
    let tap = Tap::new();
    let agent = tap.agent(&bin(), &["acp"], &env);
    tap.run(agent, async |cx| {
        handshake(&cx).await?;
        let (session, _) = new_session(&cx).await?;
        let from = tap.update_count();
        let ended = prompt(&cx, &session, "hi").await;
        let turn = tap.updates_from(from);
        match &answer {
            Some(answer) => {
                assert_eq!(ended.expect("the turn ends"), StopReason::EndTurn);
                assert_eq!(&message_text(&turn), answer);
            }
            None => assert!(ended.is_err(), "a failed run is an error: {ended:?}"),
        }
        assert_eq!(
            assert_tool_calls_end(&turn).len(),
            tool_calls,
            "{:?}",
            kinds(&turn)
        );
        let seen = tap.seen.lock().expect("lock");
        for asked in &seen.permissions {
            let tool_call = serde_json::to_value(&asked.tool_call).expect("serializes");
            assert_eq!(tool_call["kind"], "execute", "only shell commands ask");
        }
        Ok(())
    })
    .await
    .expect("the session succeeds");
    let seen = tap.seen.lock().expect("lock");
    let raw_updates = seen
        .notifications
        .iter()
        .filter(|m| *m == "session/update")
        .count();
    assert_eq!(raw_updates, seen.updates.len(), "every update parses");
}

#[tokio::test]
async fn agent_acp_serves_through_a_link_named_agent_with_global_flags() {
    let dir = install_as_cursor_agent();
    let tap = Tap::new();
    let agent = tap.agent(
        &dir.path().join("agent"),
        &["--api-key", "K", "--model", "gpt-5", "acp"],
        &[],
    );
    tap.run(agent, async |cx| {
        handshake(&cx).await?;
        let (session, _) = new_session(&cx).await?;
        assert_eq!(prompt(&cx, &session, "hi").await?, StopReason::EndTurn);
        Ok(())
    })
    .await
    .expect("the session succeeds");
}

// ---------------------------------------------------------------------------------
// Hand-written JSON: what a client library never sends.
// ---------------------------------------------------------------------------------

/// `mock-agent acp` (or `program ARGS`) driven line by line.
struct Wire {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: mpsc::Receiver<String>,
    stderr: mpsc::Receiver<Vec<u8>>,
}

/// How a [`Wire`] ended.
struct Ended {
    code: Option<i32>,
    /// The stdout lines not read before stdin was closed.
    rest: Vec<String>,
    stderr: String,
}

impl Wire {
    fn start(env: &[(&str, &str)]) -> Wire {
        Wire::spawn(&bin(), &["acp"], env)
    }

    fn spawn(program: &Path, args: &[&str], env: &[(&str, &str)]) -> Wire {
        let mut cmd = std::process::Command::new(program);
        harness::run::child::without_mock_env(&mut cmd);
        let mut child = cmd
            .args(args)
            .envs(env.iter().copied())
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawns");
        let stdout = child.stdout.take().expect("piped");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = harness::run::child::drain(child.stderr.take(), 1 << 20);
        Wire {
            stdin: child.stdin.take(),
            child,
            stdout: lines,
            stderr,
        }
    }

    /// Writes `line` and its newline.
    fn send(&mut self, line: &str) -> &mut Self {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .expect("the mock reads stdin");
        self
    }

    /// The next stdout line.
    #[track_caller]
    fn line(&mut self) -> String {
        match self.stdout.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(e) => panic!("no line from the mock: {e}"),
        }
    }

    /// The next stdout line, as JSON.
    #[track_caller]
    fn json(&mut self) -> Value {
        let line = self.line();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// Lines up to and including the response to request `id`.
    #[track_caller]
    fn until_response(&mut self, id: &Value) -> Vec<Value> {
        let mut lines = Vec::new();
        loop {
            let message = self.json();
            let done = message.get("method").is_none() && message["id"] == *id;
            lines.push(message);
            if done {
                return lines;
            }
        }
    }

    /// Lines up to and including the agent's request of `method`.
    #[track_caller]
    fn until_request(&mut self, method: &str) -> Vec<Value> {
        let mut lines = Vec::new();
        loop {
            let message = self.json();
            let done = message["method"] == method && message.get("id").is_some();
            lines.push(message);
            if done {
                return lines;
            }
        }
    }

    /// A new session (request id 1) and a prompt in it (id `"p"`), up to the agent's
    /// permission request: the session's id and the request's id.
    #[track_caller]
    fn prompt_until_asked(&mut self) -> (String, Value) {
        self.send(&new_session_line("1"));
        let session = self.until_response(&json!(1))[0]["result"]["sessionId"].clone();
        let session = session.as_str().expect("a session id").to_owned();
        self.send(&prompt_line(r#""p""#, &session, "hi"));
        let asked = self.until_request("session/request_permission");
        let asked_id = asked.last().expect("asked")["id"].clone();
        (session, asked_id)
    }

    /// Closes stdin and waits for the process to end.
    fn close(mut self) -> Ended {
        drop(self.stdin.take());
        let status = self.child.wait().expect("waits");
        let rest = self.stdout.iter().collect();
        let stderr = self.stderr.recv_timeout(PATIENCE).unwrap_or_default();
        Ended {
            code: status.code(),
            rest,
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }
}

impl Drop for Wire {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn request(id: &str, method: &str, params: &Value) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

fn new_session_line(id: &str) -> String {
    request(id, "session/new", &json!({"cwd": "/tmp", "mcpServers": []}))
}

fn prompt_line(id: &str, session: &str, text: &str) -> String {
    request(
        id,
        "session/prompt",
        &json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
    )
}

fn allow_once(id: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "selected", "optionId": "allow-once"}}})
        .to_string()
}

/// The `sessionUpdate` tag of an agent message, or its method, or `response`.
fn tag(message: &Value) -> String {
    match message["method"].as_str() {
        Some("session/update") => message["params"]["update"]["sessionUpdate"]
            .as_str()
            .unwrap_or("?")
            .to_owned(),
        Some(method) => method.to_owned(),
        None => "response".to_owned(),
    }
}

#[test]
fn lines_that_are_not_json_rpc_are_ignored_without_a_word() {
    let mut wire = Wire::start(&[]);
    for line in [
        "not json",
        "{",
        "[1,2]",
        r#""a string""#,
        "42",
        "{}",
        r#"{"jsonrpc":"2.0","id":5}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":{"line":"x"}}}"#,
        r#"{"jsonrpc":"2.0","method":"cursor/unknown_notification","params":{}}"#,
        "   ",
        "\u{0}\u{7f}",
    ] {
        wire.send(line);
    }
    wire.send(&request("1", "initialize", &json!({"protocolVersion": 1})));
    let first = wire.json();
    assert_eq!(
        (first["id"].clone(), first["result"]["protocolVersion"].clone()),
        (json!(1), json!(1))
    );
    let ended = wire.close();
    assert_eq!(ended.code, Some(0));
    assert_eq!(ended.rest, Vec::<String>::new(), "no reply to any other line");
    assert_eq!(ended.stderr, "");
}

#[test]
fn with_strict_json_rpc_a_line_that_is_no_message_is_answered_as_the_spec_says() {
    let mut wire = Wire::start(&[("MOCK_AGENT_JSONRPC", "strict")]);
    for (line, code) in [
        ("not json", -32700),
        ("{", -32700),
        ("[1,2]", -32600),
        ("42", -32600),
        ("{}", -32600),
        (r#"{"jsonrpc":"2.0","id":5}"#, -32600),
    ] {
        wire.send(line);
        let answer = wire.json();
        assert_eq!(
            (answer["id"].clone(), answer["error"]["code"].clone()),
            (Value::Null, json!(code)),
            "{line}: {answer}"
        );
    }
    // A notification the agent does not know, and an answer to nothing, are messages:
    // not answered.
    wire.send(r#"{"jsonrpc":"2.0","method":"cursor/unknown_notification","params":{}}"#);
    wire.send(&request("1", "initialize", &json!({"protocolVersion": 1})));
    assert_eq!(wire.json()["id"], json!(1));
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

#[test]
fn a_request_whose_id_is_null_is_a_request_and_is_answered() {
    let mut wire = Wire::start(&[]);
    wire.send(&request("null", "initialize", &json!({"protocolVersion": 1})));
    let answer = wire.json();
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(answer["result"]["protocolVersion"], json!(1), "{answer}");
    assert_eq!(wire.close().code, Some(0));
}

#[test]
fn a_json_rpc_mode_that_is_not_one_is_the_mock_s_own_error() {
    let output = crate::support::mock()
        .arg("acp")
        .env("MOCK_AGENT_JSONRPC", "lenient")
        .write_stdin("")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("mock-agent: MOCK_AGENT_JSONRPC") && stderr.contains("use `cursor` or `strict`"),
        "{stderr}"
    );
    assert_eq!(output.status.code(), Some(harness::exit_codes::USAGE));
}

#[test]
fn odd_ids_are_echoed_byte_for_byte() {
    let ids = [
        r#""x""#,
        r#""""#,
        r#""q\"uo\\te\n""#,
        r#""\u00e9""#,
        r#""é""#,
        "0",
        "-1",
        "-0",
        "18446744073709551615",
        "18446744073709551616",
        "123456789012345678901234567890123456789",
        "1.5",
        "1e3",
        "-2.5E-7",
        "1e400",
    ];
    let mut wire = Wire::start(&[]);
    wire.send(&new_session_line(r#""s""#));
    let session = wire.json()["result"]["sessionId"].clone();
    let session = session.as_str().expect("a session id").to_owned();
    let _commands = wire.json();
    for id in ids {
        let echoed = format!(r#"{{"jsonrpc":"2.0","id":{id},"#);
        // A handshake answer, an error, and the end of a turn.
        wire.send(&request(
            id,
            "session/set_mode",
            &json!({"sessionId": session, "modeId": "plan"}),
        ));
        assert!(wire.line().starts_with(&echoed), "set_mode {id}");
        wire.send(&request(id, "cursor/nope", &json!({})));
        assert!(wire.line().starts_with(&echoed), "error {id}");
        wire.send(&prompt_line(id, &session, "hi"));
        let permission = wire.until_request("session/request_permission");
        wire.send(&allow_once(&permission.last().expect("asked")["id"]));
        let last = loop {
            let line = wire.line();
            if !line.contains(r#""method":"#) {
                break line;
            }
        };
        assert!(last.starts_with(&echoed), "prompt {id}: {last}");
        assert!(last.ends_with(r#""result":{"stopReason":"end_turn"}}"#), "{last}");
    }
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

#[test]
fn an_unknown_method_is_method_not_found() {
    let mut wire = Wire::start(&[]);
    wire.send(&request("1", "cursor/ask_me_anything", &json!({"q": 1})));
    assert_eq!(
        wire.json(),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found", "data": "cursor/ask_me_anything"}})
    );
    let ended = wire.close();
    assert_eq!((ended.code, ended.stderr.as_str()), (Some(0), ""));
}

#[test]
fn requests_sent_before_a_late_permission_answer_wait_their_turn() {
    let mut wire = Wire::start(&[]);
    let (session, asked_id) = wire.prompt_until_asked();
    // Other requests first, then the answer.
    wire.send(&request(
        r#""m""#,
        "session/set_mode",
        &json!({"sessionId": session, "modeId": "ask"}),
    ));
    wire.send(&request(r#""i""#, "initialize", &json!({"protocolVersion": 1})));
    wire.send(&allow_once(&asked_id));
    let rest = wire.until_response(&json!("i"));
    let tags: Vec<String> = rest.iter().map(tag).collect();
    assert_eq!(
        tags,
        [
            "tool_call_update",
            "usage_update",
            "session_info_update",
            "response",
            "response",
            "response"
        ]
    );
    let ids: Vec<&Value> = rest[3..].iter().map(|m| &m["id"]).collect();
    assert_eq!(ids, [&json!("p"), &json!("m"), &json!("i")]);
    assert_eq!(rest[3]["result"], json!({"stopReason": "end_turn"}));
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

/// A recording of a real `acp` session (format 2) whose agent asks twice before
/// either answer comes, and whose client answered the second request first.
fn two_questions_cassette(dir: &Path) -> PathBuf {
    let ask = |id: u64, call: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "session/request_permission", "params": {
            "sessionId": "rec-1",
            "toolCall": {"toolCallId": call, "title": format!("`{call}`"), "kind": "execute", "status": "pending"},
            "options": [{"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
                        {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}]}})
    };
    let answer = |id: u64, option: &str| json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "selected", "optionId": option}}});
    let frames = [
        json!({"mock_agent_cassette": 2, "invocation": {"acp": true}}),
        json!({"t": 0, "in": {"jsonrpc": "2.0", "id": 7, "method": "session/prompt", "params": {"sessionId": "rec-1", "prompt": [{"type": "text", "text": "two"}]}}}),
        json!({"t": 1, "out": ask(0, "a")}),
        json!({"t": 1, "out": ask(1, "b")}),
        json!({"t": 2, "in": answer(1, "reject-once")}),
        json!({"t": 3, "in": answer(0, "allow-once")}),
        json!({"t": 4, "out": {"jsonrpc": "2.0", "id": 7, "result": {"stopReason": "end_turn"}}}),
        json!({"t": 5, "exit": 0}),
    ];
    let path = dir.join("two-questions.cassette");
    let text: String = frames.iter().map(|f| format!("{f}\n")).collect();
    std::fs::write(&path, text).expect("writes");
    path
}

#[test]
fn answers_are_matched_by_id_in_any_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = two_questions_cassette(dir.path());
    let journal = dir.path().join("journal.ndjson");
    let mut wire = Wire::start(&[
        ("MOCK_AGENT_CASSETTE", cassette.to_str().expect("utf-8")),
        ("MOCK_AGENT_JOURNAL", journal.to_str().expect("utf-8")),
    ]);
    wire.send(&prompt_line(r#""live-1""#, "rec-1", "two"));
    let (first, second) = (wire.json(), wire.json());
    assert_eq!((first["id"].clone(), second["id"].clone()), (json!(0), json!(1)));
    // The recorded client answered 1 then 0; this one answers 0 then 1.
    wire.send(&json!({"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "selected", "optionId": "allow-once"}}}).to_string());
    wire.send(&json!({"jsonrpc": "2.0", "id": 1, "result": {"outcome": {"outcome": "selected", "optionId": "reject-once"}}}).to_string());
    assert_eq!(
        wire.line(),
        r#"{"jsonrpc":"2.0","id":"live-1","result":{"stopReason":"end_turn"}}"#
    );
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
    let entries = harness::journal::read(&journal).expect("journal");
    let conversation = entries[0].acp.as_ref().expect("the conversation");
    let answered: Vec<(&str, &Value)> = conversation
        .answers
        .iter()
        .map(|a| (a.id.as_str(), &a.answer["outcome"]["optionId"]))
        .collect();
    assert_eq!(
        answered,
        [("1", &json!("reject-once")), ("0", &json!("allow-once"))]
    );
    assert_eq!(conversation.divergences, Vec::<String>::new());
}

#[test]
fn sessions_of_one_process_are_told_apart() {
    let mut wire = Wire::start(&[]);
    let mut sessions = Vec::new();
    for id in ["1", "2"] {
        wire.send(&new_session_line(id));
        let reply = wire.until_response(&json!(id.parse::<u64>().expect("a number")));
        sessions.push(
            reply[0]["result"]["sessionId"]
                .as_str()
                .expect("an id")
                .to_owned(),
        );
        let commands = wire.json();
        assert_eq!(
            (tag(&commands), &commands["params"]["sessionId"]),
            ("available_commands_update".to_owned(), &json!(sessions.last()))
        );
    }
    assert_ne!(sessions[0], sessions[1]);
    let (a, b) = (&sessions[0], &sessions[1]);
    // A turn in b, with a cancel of a while b waits for its permission answer: b
    // goes on.
    wire.send(&prompt_line("3", b, "in b"));
    let turn = wire.until_request("session/request_permission");
    assert!(
        turn.iter().all(|m| m["params"]["sessionId"] == json!(b)),
        "{turn:#?}"
    );
    wire.send(&json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": a}}).to_string());
    wire.send(&allow_once(&turn.last().expect("asked")["id"]));
    let rest = wire.until_response(&json!(3));
    assert_eq!(
        rest.last().expect("answered")["result"],
        json!({"stopReason": "end_turn"})
    );
    assert!(rest[..rest.len() - 1]
        .iter()
        .all(|m| m["params"]["sessionId"] == json!(b)));
    // Each session's history is its own.
    for (id, session) in [("4", a), ("5", b)] {
        wire.send(&request(
            id,
            "session/load",
            &json!({"sessionId": session, "cwd": "/tmp", "mcpServers": []}),
        ));
        let history = wire.until_response(&json!(id.parse::<u64>().expect("a number")));
        let updates = &history[..history.len() - 1];
        assert_eq!(tag(&updates[0]), "user_message_chunk");
        assert!(updates.iter().all(|m| m["params"]["sessionId"] == json!(session)));
    }
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

#[test]
fn a_cancel_while_the_agent_waits_for_an_answer_withdraws_its_request() {
    let mut wire = Wire::start(&[]);
    wire.send(&new_session_line("1"));
    let session = wire.until_response(&json!(1))[0]["result"]["sessionId"].clone();
    wire.send(&prompt_line("2", session.as_str().expect("an id"), "hi"));
    let asked = wire.until_request("session/request_permission");
    let asked_id = asked.last().expect("asked")["id"].clone();
    wire.send(
        &json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}).to_string(),
    );
    let rest = wire.until_response(&json!(2));
    assert_eq!(
        rest.iter().map(tag).collect::<Vec<_>>(),
        ["$/cancel_request", "response"],
        "{rest:#?}"
    );
    assert_eq!(rest[0]["params"], json!({"requestId": asked_id}));
    assert_eq!(rest[1]["result"], json!({"stopReason": "cancelled"}));
    // A late answer to the withdrawn request changes nothing.
    wire.send(&allow_once(&asked_id));
    wire.send(&request("3", "initialize", &json!({"protocolVersion": 1})));
    assert_eq!(wire.json()["id"], json!(3));
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

#[test]
fn the_end_of_stdin_ends_the_process_with_exit_0() {
    // Right away, after a handshake, and in a turn waiting for the client.
    let ended = Wire::start(&[]).close();
    assert_eq!(
        (ended.code, ended.rest.len(), ended.stderr.as_str()),
        (Some(0), 0, "")
    );
    let mut wire = Wire::start(&[]);
    wire.send(&request("1", "initialize", &json!({"protocolVersion": 1})));
    assert_eq!(wire.json()["id"], json!(1));
    let ended = wire.close();
    assert_eq!(
        (ended.code, ended.rest.len(), ended.stderr.as_str()),
        (Some(0), 0, "")
    );
    let mut wire = Wire::start(&[]);
    wire.send(&new_session_line("1"));
    let session = wire.until_response(&json!(1))[0]["result"]["sessionId"].clone();
    wire.send(&prompt_line("2", session.as_str().expect("an id"), "hi"));
    wire.until_request("session/request_permission");
    let ended = wire.close();
    assert_eq!(
        (ended.code, ended.rest.len(), ended.stderr.as_str()),
        (Some(0), 0, "")
    );
}

#[test]
fn the_journal_records_the_conversation() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("journal.ndjson");
    let mut wire = Wire::start(&[("MOCK_AGENT_JOURNAL", journal.to_str().expect("utf-8"))]);
    wire.send("not json");
    wire.send(&new_session_line("1"));
    let mut read = wire.until_response(&json!(1));
    let session = read[0]["result"]["sessionId"].as_str().expect("an id").to_owned();
    wire.send(&prompt_line("2", &session, "hi"));
    read.extend(wire.until_request("session/request_permission"));
    let asked_id = read.last().expect("asked")["id"].clone();
    wire.send(&allow_once(&asked_id));
    read.extend(wire.until_response(&json!(2)));
    let ended = wire.close();
    assert_eq!(ended.code, Some(0));

    let entries = harness::journal::read(&journal).expect("journal");
    let [entry] = &entries[..] else {
        panic!("one entry: {entries:#?}");
    };
    assert_eq!(
        (entry.argv.clone(), entry.source.as_deref()),
        (vec!["acp".to_owned()], Some("default"))
    );
    let conversation = entry.acp.as_ref().expect("the conversation");
    let lines = |dir: &str| -> Vec<&str> {
        conversation
            .messages
            .iter()
            .filter(|m| m.dir == dir)
            .map(|m| m.line.as_str())
            .collect()
    };
    let sent = [
        "not json".to_owned(),
        new_session_line("1"),
        prompt_line("2", &session, "hi"),
        allow_once(&asked_id),
    ];
    assert_eq!(lines("in"), sent);
    let outs: Vec<Value> = lines("out")
        .iter()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    assert_eq!(outs, read);
    assert!(conversation.messages.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    let [answer] = &conversation.answers[..] else {
        panic!("one answer: {:#?}", conversation.answers);
    };
    assert_eq!(
        (answer.id.as_str(), answer.method.as_str(), &answer.answer),
        (
            asked_id.to_string().as_str(),
            "session/request_permission",
            &json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}})
        )
    );
    assert_eq!(
        conversation.divergences,
        Vec::<String>::new(),
        "a told source never diverges"
    );
}

#[test]
fn a_cancel_that_comes_while_its_prompt_waits_its_turn_cancels_it() {
    // session/new's update comes 200 ms after its result: the prompt and its cancel
    // come in meanwhile, and wait for it.
    let mut wire = Wire::start(&[("MOCK_AGENT_TIMING", "fixed=200")]);
    wire.send(&new_session_line("1"));
    let session = wire.json()["result"]["sessionId"].clone();
    wire.send(&prompt_line("2", session.as_str().expect("an id"), "hi"));
    wire.send(
        &json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}).to_string(),
    );
    let rest = wire.until_response(&json!(2));
    assert_eq!(
        rest.iter().map(tag).collect::<Vec<_>>(),
        ["available_commands_update", "response"]
    );
    assert_eq!(rest[1]["result"], json!({"stopReason": "cancelled"}));
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0));
}

#[test]
fn a_permission_answered_with_a_null_result_ends_the_turn() {
    // `"result": null` is a response: the turn goes on and the prompt is answered,
    // where reading `null` as no result left the agent waiting for ever.
    let mut wire = Wire::start(&[]);
    let (_, asked_id) = wire.prompt_until_asked();
    wire.send(&json!({"jsonrpc": "2.0", "id": asked_id, "result": null}).to_string());
    let rest = wire.until_response(&json!("p"));
    let answered = rest.last().expect("the prompt's response");
    assert!(answered["result"]["stopReason"].is_string(), "{answered}");
    let ended = wire.close();
    assert_eq!((ended.code, ended.rest.len()), (Some(0), 0), "{}", ended.stderr);
}
