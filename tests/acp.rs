//! Server mode end to end: `cursor-agent acp` driven by a real ACP client (the
//! `agent-client-protocol` crate) through whole sessions on every kind of source. The
//! client's files and terminals are `acp_client_tools`; what a client library never
//! sends, hand-written JSON lines, is `acp_wire`.

use std::path::Path;
use std::sync::{Arc, Mutex};
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
pub(crate) const PATIENCE: Duration = Duration::from_secs(30);

// ---------------------------------------------------------------------------------
// A client written with the `agent-client-protocol` crate.
// ---------------------------------------------------------------------------------

/// What the client saw.
#[derive(Default)]
pub(crate) struct Seen {
    /// Every `session/update`, parsed by the library, in wire order.
    updates: Vec<SessionNotification>,
    /// Every notification's method, parsed or not (a `session/update` the library
    /// cannot parse would be dropped silently by the typed handler).
    notifications: Vec<String>,
    /// Every `session/request_permission`, each answered `allow-once`.
    permissions: Vec<RequestPermissionRequest>,
    /// The agent's stdout lines, as they came.
    pub(crate) stdout: Vec<String>,
    /// The agent's stderr lines.
    stderr: Vec<String>,
    /// The agent's requests of the client's files and terminals, in order: method
    /// and params.
    pub(crate) tools: Vec<(String, Value)>,
    /// The methods the client answers with an error.
    pub(crate) refuse: Vec<&'static str>,
}

impl Seen {
    /// Every `session/update` that came was parsed by the library (none dropped).
    #[track_caller]
    fn assert_every_update_parses(&self) {
        let raw_updates = self
            .notifications
            .iter()
            .filter(|m| *m == "session/update")
            .count();
        assert_eq!(raw_updates, self.updates.len(), "every update parses");
    }
}

/// What the client answers of its files and terminals.
pub(crate) const CLIENT_README: &str = "# From the client's editor\n\nUnsaved.\n";
pub(crate) const CLIENT_TERMINAL: &str = "term-e2e";
pub(crate) const CLIENT_OUTPUT: &str = "19 summary.txt\n";

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
pub(crate) struct Tap {
    pub(crate) seen: Arc<Mutex<Seen>>,
    /// How many `session/update`s have come, to wait for the next one.
    updated: tokio::sync::watch::Sender<usize>,
}

impl Tap {
    pub(crate) fn new() -> Self {
        Tap {
            seen: Arc::default(),
            updated: tokio::sync::watch::Sender::new(0),
        }
    }

    /// `program ARGS` as an ACP agent, with `env` over a blank `MOCK_AGENT_*`
    /// environment (an empty variable counts as unset), its lines tapped.
    pub(crate) fn agent(&self, program: &Path, args: &[&str], env: &[(&str, &str)]) -> AcpAgent {
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
    pub(crate) async fn run<R>(
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
    pub(crate) fn updates_from(&self, from: usize) -> Vec<SessionNotification> {
        let seen = self.seen.lock().expect("lock");
        seen.updates[from..]
            .iter()
            .filter(|n| !matches!(n.update, SessionUpdate::AvailableCommandsUpdate(_)))
            .cloned()
            .collect()
    }

    pub(crate) fn update_count(&self) -> usize {
        self.seen.lock().expect("lock").updates.len()
    }

    /// [`handshake_offering`] `offered`, a new session, and a turn prompted `text`,
    /// which must end the turn: the turn's updates.
    pub(crate) async fn turn_offering(
        &self,
        cx: &ConnectionTo<Agent>,
        offered: ClientCapabilities,
        text: &str,
    ) -> agent_client_protocol::Result<Vec<SessionNotification>> {
        handshake_offering(cx, offered).await?;
        let (session, _) = new_session(cx).await?;
        let from = self.update_count();
        assert_eq!(prompt(cx, &session, text).await?, StopReason::EndTurn);
        Ok(self.updates_from(from))
    }
}

/// `initialize` (protocol 1) and `authenticate`, checking what the agent offers.
async fn handshake(cx: &ConnectionTo<Agent>) -> agent_client_protocol::Result<()> {
    handshake_offering(cx, ClientCapabilities::new()).await
}

/// A client's capabilities: files (read and write) and terminals, or nothing.
pub(crate) fn offering(everything: bool) -> ClientCapabilities {
    ClientCapabilities::new()
        .fs(FileSystemCapabilities::new()
            .read_text_file(everything)
            .write_text_file(everything))
        .terminal(everything)
}

/// [`handshake`], the client offering `offered` in `initialize`.
pub(crate) async fn handshake_offering(
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
pub(crate) async fn new_session(
    cx: &ConnectionTo<Agent>,
) -> agent_client_protocol::Result<(SessionId, Value)> {
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

pub(crate) async fn prompt(
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
pub(crate) fn kinds(updates: &[SessionNotification]) -> Vec<String> {
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
pub(crate) fn assert_tool_calls_end(updates: &[SessionNotification]) -> Vec<String> {
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
    seen.assert_every_update_parses();
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
    crate::support::assert_said(&saved, 0);
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
    seen.assert_every_update_parses();
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
