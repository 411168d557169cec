//! What the real CLI does for four settings the SDKs and their hosts give it, beyond
//! the flags [`super::args`] reads into the session's options:
//!
//! - `--replay-user-messages` (with stream-json both ways): each user message read
//!   from stdin is echoed on stdout as it was read, with the session's id, its `uuid`
//!   (the client's, else a new one) and `"isReplay":true` (the SDKs'
//!   `SDKUserMessageReplay`; from the SDKs' types, not observed) ([`Echo`]);
//! - `CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS` (a host that is not an SDK, such as an
//!   editor's ACP adapter) as well as the SDKs' `CLAUDE_CODE_SDK_READS_SESSION_STATE`
//!   turn the `session_state_changed` lines on ([`states`]);
//! - `--dangerously-skip-permissions` (or `--permission-mode bypassPermissions`) as
//!   root outside a sandbox (`IS_SANDBOX=1`, `CLAUDE_CODE_BUBBLEWRAP`) is refused, as 2.1.331 refuses it
//!   (observed): one line on stderr, exit 1 ([`bypass_refused`]);
//! - `--resume ID` of a session the stand-in does not know ends as the real CLI ends
//!   it (observed): only a result, `error_during_execution` with `num_turns:0` and
//!   `No conversation found with session ID: ID`, the same text on stderr, exit 1;
//!   `initialize` is never answered ([`no_conversation`]). The stand-in knows the
//!   session its seed makes (the same id on every run with the same
//!   `MOCK_AGENT_SEED`, so a program can resume the session of its last run) and the
//!   one a cassette recorded.

use serde_json::{json, Value};

use harness::dialects::claude::wire::env::{BUBBLEWRAP, IS_SANDBOX};

use harness::dialects::claude::wire::{results, types};

use harness::dialects::claude::wire::env::{EMIT_SESSION_STATE_EVENTS, READS_SESSION_STATE};

/// Whether the real CLI refuses these arguments here: root (or sudo) asking to skip
/// permissions outside a sandbox it was told of (`IS_SANDBOX` is not `1`, and
/// `CLAUDE_CODE_BUBBLEWRAP` unset or empty: 2.1.331 reads `process.getuid() === 0`,
/// `IS_SANDBOX === "1"` and the second as JavaScript's truth); it then says
/// [`harness::dialects::claude::wire::ROOT_BYPASS`] on stderr and exits 1, before
/// anything else.
pub(super) fn bypass_refused(args: &super::args::Args) -> bool {
    args.permission_mode.as_deref() == Some("bypassPermissions")
        && nix::unistd::getuid().is_root()
        && std::env::var_os(IS_SANDBOX).is_none_or(|v| v != "1")
        && std::env::var_os(BUBBLEWRAP).is_none_or(|v| v.is_empty())
}

/// The variables that change what the CLI writes (a recording keeps their values).
pub(super) const OUTPUT_ENV: &[&str] = &[READS_SESSION_STATE, EMIT_SESSION_STATE_EVENTS];

/// Whether the CLI writes `session_state_changed` lines: with stream-json input, when
/// the SDKs' variable is set, or the other hosts' is true (`1`, `true`, ...).
pub(super) fn states(stream_input: bool) -> bool {
    let emit = std::env::var(EMIT_SESSION_STATE_EVENTS).is_ok_and(|v| truthy(&v));
    stream_input && (std::env::var_os(READS_SESSION_STATE).is_some() || emit)
}

/// How the real CLI reads a boolean variable: anything but empty, `0`, `false`, `no`
/// and `off` (any case) is true.
fn truthy(value: &str) -> bool {
    let value = value.trim().to_ascii_lowercase();
    !matches!(value.as_str(), "" | "0" | "false" | "no" | "off")
}

/// The echoes of `--replay-user-messages`: their uuids come from the run's seed, the
/// same on every run.
#[derive(Debug)]
pub(super) struct Echo {
    rng: fastrand::Rng,
}

impl Echo {
    /// The echoes of a run with this seed.
    pub(super) fn new(seed: u64) -> Self {
        Echo {
            rng: fastrand::Rng::with_seed(seed ^ 0xec40_0ec4),
        }
    }

    /// The echo of the client's user message `line` in session `session_id`; `None`
    /// when the line is not a JSON object.
    pub(super) fn of(&mut self, line: &[u8], session_id: &str) -> Option<Vec<u8>> {
        let sent: Value = serde_json::from_slice(line).ok()?;
        let sent = sent.as_object()?;
        let uuid = match sent.get("uuid").and_then(Value::as_str) {
            Some(uuid) => uuid.to_owned(),
            None => uuid::Builder::from_random_bytes(self.rng.u128(..).to_le_bytes())
                .into_uuid()
                .to_string(),
        };
        let echo = json!({
            "type": types::USER,
            "message": sent.get("message").cloned().unwrap_or(Value::Null),
            "parent_tool_use_id": sent.get("parent_tool_use_id").cloned().unwrap_or(Value::Null),
            "session_id": session_id,
            "uuid": uuid,
            "isReplay": true,
        });
        serde_json::to_vec(&echo).ok()
    }
}

/// The text of a `--resume` of an unknown session.
pub(super) fn no_conversation_text(id: &str) -> String {
    format!("No conversation found with session ID: {id}")
}

/// The result of a `--resume` of an unknown session `id`, in a new session
/// `session_id` of `model`.
pub(super) fn no_conversation(id: &str, session_id: &str, model: &str, uuid: &str) -> Vec<u8> {
    let line = json!({
        "type": types::RESULT,
        "subtype": results::ERROR_DURING_EXECUTION,
        "is_error": true,
        "duration_ms": 0,
        "duration_api_ms": 0,
        "num_turns": 0,
        "errors": [no_conversation_text(id)],
        "stop_reason": null,
        "session_id": session_id,
        "total_cost_usd": 0,
        "usage": {"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
            "output_tokens": 0, "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard"},
        "modelUsage": {model: {}},
        "permission_denials": [],
        "uuid": uuid,
    });
    serde_json::to_vec(&line).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_as_the_cli_reads_them() {
        for value in ["1", "true", "TRUE", "yes", "on"] {
            assert!(truthy(value), "{value}");
        }
        for value in ["", "0", "false", "False", "no", "off"] {
            assert!(!truthy(value), "{value}");
        }
    }

    #[test]
    fn an_echo_keeps_the_message_and_the_clients_uuid() {
        let mut echo = Echo::new(1);
        let sent = br#"{"session_id":"","message":{"role":"u","content":"hi"},"parent_tool_use_id":null,"uuid":"u-1"}"#;
        let line: Value = serde_json::from_slice(&echo.of(sent, "s").expect("an echo")).expect("JSON");
        assert_eq!(
            line,
            json!({"type": types::USER, "message": {"role": "u", "content": "hi"}, "parent_tool_use_id": null,
                "session_id": "s", "uuid": "u-1", "isReplay": true})
        );
        let made = |seed| {
            let line = Echo::new(seed).of(br#"{"message":{}}"#, "s").expect("an echo");
            serde_json::from_slice::<Value>(&line).expect("JSON")["uuid"].clone()
        };
        assert_eq!(made(3), made(3), "the same on every run");
        assert!(uuid::Uuid::parse_str(made(3).as_str().expect("a string")).is_ok());
    }
}
