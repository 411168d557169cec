//! Cursor's profile: what `cursor-agent acp` does that another ACP agent does not
//! (`shared/REAL-ACP.md`).

use serde_json::{json, Value};

use crate::acp::profile::{Commands, Habits, Profile};
use crate::acp::tell::{config_options, models};
use crate::acp::wire::{content_types, modes, option_kinds, updates};
use crate::cassette::Invocation;

/// `cursor-agent acp`.
pub static PROFILE: Profile = Profile {
    name: "cursor-acp",
    title: "server mode (`cursor-agent acp`)",
    programs: &["cursor-agent", "agent"],
    launch: "cursor-agent acp",
    argv: &["acp"],
    test_flags: "--acp",
    fuzz_stem: "fuzz-acp",
    dialect: || crate::dialects::CURSOR_ACP,
    claims,
    initialize,
    auth_method: "cursor_login",
    session_new,
    commands: (Commands::AfterNew, available_commands),
    permission_options,
    habits: Habits::SPEC,
    story: crate::dialects::print_mode_story,
};

/// A recording of server mode is Cursor's unless it was launched with a flag
/// (`--acp`): Cursor's server mode is a subcommand, `acp`.
fn claims(invocation: &Invocation) -> bool {
    !invocation
        .argv
        .iter()
        .any(|a| a.starts_with("--") && a.ends_with("acp"))
}

/// The result of `initialize`, as the real agent answers (protocol version 1 to any
/// version asked).
fn initialize() -> Value {
    json!({
        "protocolVersion": 1,
        "agentCapabilities": {
            "loadSession": true,
            "promptCapabilities": {(content_types::IMAGE): true, (content_types::AUDIO): false, "embeddedContext": false},
            "mcpCapabilities": {"http": true, "sse": true}
        },
        "authMethods": [{"id": "cursor_login", "name": "Cursor Login", "description": "Log in with your Cursor account"}]
    })
}

/// The result of `session/new`: the id, the modes, the models block clients read, and
/// the config options.
fn session_new(session: &str) -> Value {
    json!({
        "sessionId": session,
        "modes": {"currentModeId": modes::AGENT, "availableModes": [
            {"id": modes::AGENT, "name": "Agent", "description": "Full agent capabilities"},
            {"id": modes::PLAN, "name": "Plan", "description": "Plan before acting"},
            {"id": modes::ASK, "name": "Ask", "description": "Answer questions, change nothing"}
        ]},
        "models": models(),
        "configOptions": config_options(modes::ALL, modes::AGENT, crate::models::DEFAULT)
    })
}

/// The `available_commands_update` the agent sends after `session/new` answers.
fn available_commands() -> Value {
    json!({"sessionUpdate": updates::AVAILABLE_COMMANDS_UPDATE, "availableCommands": [
        {"name": modes::PLAN, "description": "Switch to plan mode"},
        {"name": "model", "description": "Change the model", "input": {"hint": "model id"}}
    ]})
}

/// Allow once, allow always, reject once, reject always.
fn permission_options() -> Value {
    json!([
        {"optionId": "allow-once", "name": "Allow once", "kind": option_kinds::ALLOW_ONCE},
        {"optionId": "allow-always", "name": "Allow always", "kind": option_kinds::ALLOW_ALWAYS},
        {"optionId": "reject-once", "name": "Reject", "kind": option_kinds::REJECT_ONCE},
        {"optionId": "reject-always", "name": "Reject always", "kind": option_kinds::REJECT_ALWAYS}
    ])
}
