//! Agents for the machinery's unit tests, no vendor's names: the spec's shapes, and
//! every habit a client can meet (commands after `session/new`, config options, a
//! terminal, reads through the client, `rawInput` and `rawOutput`); [`DESCRIBING`]
//! describes its tool calls instead and uses no client tool but writes.

use serde_json::{json, Value};

use super::*;
use crate::acp::dialect::AcpDialect;
use crate::acp::tell::{config_options, models};
use crate::acp::wire::{content_types, modes, option_kinds, updates};

/// The test agent: its own names and answers, commands after `session/new`, and every
/// choice the spec offers ([`Habits::SPEC`]): the machinery's tests name no dialect.
const BASE: Profile = Profile {
    name: "test-acp",
    title: "a test agent (`test-agent acp`)",
    programs: &["test-agent"],
    launch: "test-agent acp",
    argv: &["acp"],
    test_flags: "--dialect test-acp",
    fuzz_stem: "fuzz-test-acp",
    dialect: || &DIALECT,
    claims: |_| true,
    initialize,
    auth_method: "test_login",
    session_new,
    commands: (Commands::AfterNew, commands),
    permission_options,
    habits: Habits::SPEC,
    story: crate::dialects::print_mode_story,
};

/// The test agent.
pub(crate) static PROFILE: Profile = BASE;

/// The test agent that describes its tool calls (no `rawInput`/`rawOutput`).
pub(crate) static DESCRIBING: Profile = Profile {
    name: "test-acp-describing",
    habits: Habits {
        tools: ToolShape::Described,
        terminal: false,
        fs_reads: false,
        ..Habits::SPEC
    },
    ..BASE
};

static DIALECT: AcpDialect = AcpDialect::new(&PROFILE);

fn initialize() -> Value {
    json!({
        "protocolVersion": 1,
        "agentCapabilities": {
            "loadSession": true,
            "promptCapabilities": {(content_types::IMAGE): true, (content_types::AUDIO): false, "embeddedContext": false}
        },
        "authMethods": [{"id": "test_login", "name": "Test login", "description": "Log in to the test agent"}]
    })
}

fn session_new(session: &str) -> Value {
    json!({
        "sessionId": session,
        "modes": {"currentModeId": modes::AGENT, "availableModes": [
            {"id": modes::AGENT, "name": "Agent"}, {"id": modes::PLAN, "name": "Plan"}, {"id": modes::ASK, "name": "Ask"}
        ]},
        "models": models(),
        "configOptions": config_options(modes::ALL, modes::AGENT, crate::models::DEFAULT)
    })
}

fn commands() -> Value {
    json!({"sessionUpdate": updates::AVAILABLE_COMMANDS_UPDATE, "availableCommands": [
        {"name": "help", "description": "Show help"}
    ]})
}

fn permission_options() -> Value {
    json!([
        {"optionId": "yes", "name": "Yes", "kind": option_kinds::ALLOW_ONCE},
        {"optionId": "always", "name": "Always", "kind": option_kinds::ALLOW_ALWAYS},
        {"optionId": "no", "name": "No", "kind": option_kinds::REJECT_ONCE},
        {"optionId": "never", "name": "Never", "kind": option_kinds::REJECT_ALWAYS}
    ])
}
