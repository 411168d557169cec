//! Gemini CLI's profile: what `gemini --acp` 0.61.0 does that another ACP agent does
//! not. The shapes are the real CLI's (`shared/REAL-GEMINI.md`; `packages/cli/src/acp/`
//! as bundled in 0.61.0); which are observed and which read is said in
//! `docs/gemini-acp.md`.

use serde_json::{json, Value};

use crate::acp::profile::{Commands, Errors, Habits, LoadAnswer, Profile, ToolShape};
use crate::acp::rpc::{self, codes};
use crate::acp::wire::{self, content_types, option_kinds, updates};
use crate::cassette::Invocation;

/// `gemini --acp`'s modes (the ACP session modes it lists).
pub mod modes {
    use crate::acp::wire::modes::PLAN;

    /// It asks before edits and commands.
    pub const DEFAULT: &str = "default";
    /// It edits without asking.
    pub const AUTO_EDIT: &str = "autoEdit";
    /// It asks nothing.
    pub const YOLO: &str = "yolo";
    /// Every mode, in the order `session/new` lists them.
    pub const ALL: &[&str] = &[DEFAULT, AUTO_EDIT, YOLO, PLAN];
}

/// The flags that make `gemini` an ACP agent.
pub(super) const FLAGS: &[&str] = &["--acp", "--experimental-acp"];

/// The version `initialize` reports.
const VERSION: &str = "0.61.0";

/// The model `session/new` says is current: Gemini CLI's alias that lets it choose.
const AUTO: &str = "auto";

/// `gemini --acp`.
pub static PROFILE: Profile = Profile {
    name: "gemini-acp",
    title: "Gemini CLI's ACP mode (`gemini --acp`)",
    programs: &["gemini"],
    launch: "gemini --acp",
    argv: &["--acp"],
    test_flags: "--dialect gemini-acp",
    fuzz_stem: "fuzz-gemini-acp",
    dialect: || crate::dialects::GEMINI_ACP,
    claims,
    initialize,
    auth_method: "gemini-api-key",
    session_new,
    // Sent by a `setTimeout(0)` after `session/new` answers: right after the answer
    // (recorded), or after the first prompt of a client that sends it at once.
    commands: (Commands::AfterNew, available_commands),
    permission_options,
    habits: Habits {
        modes: modes::ALL,
        // `session/set_model` sets whatever it is given.
        known_model: |_| true,
        config_options: false,
        prompt_result,
        usage_updates: false,
        load: LoadAnswer::AfterFirst,
        terminal: false,
        fs_reads: false,
        tools: ToolShape::Described,
        errors: Errors {
            method_not_found,
            unknown_session,
            invalid_setting,
            auth_required,
        },
    },
    // Sessions with no recording of `gemini --acp` are print-mode sessions (the
    // built-in default is one), as for every ACP agent of the registry.
    story: crate::dialects::print_mode_story,
};

/// A recording of `gemini --acp` (or `--experimental-acp`).
fn claims(invocation: &Invocation) -> bool {
    invocation.argv.iter().any(|a| FLAGS.contains(&a.as_str()))
}

/// The result of `initialize`: four auth methods, `agentInfo`, every prompt
/// capability.
fn initialize() -> Value {
    json!({
        "protocolVersion": 1,
        "authMethods": [
            {"id": "oauth-personal", "name": "Log in with Google", "description": "Log in with your Google account"},
            {"id": "gemini-api-key", "name": "Gemini API key", "description": "Use an API key with Gemini Developer API",
             "_meta": {"api-key": {"provider": "google"}}},
            {"id": "vertex-ai", "name": "Vertex AI", "description": "Use an API key with Vertex AI GenAI API"},
            {"id": "gateway", "name": "AI API Gateway", "description": "Use a custom AI API Gateway",
             "_meta": {"gateway": {"protocol": "google", "restartRequired": "false"}}}
        ],
        "agentInfo": {"name": "gemini-cli", "title": "Gemini CLI", "version": VERSION},
        "agentCapabilities": {
            "loadSession": true,
            "promptCapabilities": {(content_types::IMAGE): true, (content_types::AUDIO): true, "embeddedContext": true},
            "mcpCapabilities": {"http": true, "sse": true}
        }
    })
}

/// The result of `session/new`: the id, the approval modes, the models; no
/// `configOptions`.
fn session_new(session: &str) -> Value {
    json!({
        "sessionId": session,
        "modes": {
            "availableModes": [
                {"id": modes::DEFAULT, "name": "Default", "description": "Prompts for approval"},
                {"id": modes::AUTO_EDIT, "name": "Auto Edit", "description": "Auto-approves edit tools"},
                {"id": modes::YOLO, "name": "YOLO", "description": "Auto-approves all tools"},
                {"id": wire::modes::PLAN, "name": "Plan", "description": "Read-only mode"}
            ],
            "currentModeId": modes::DEFAULT
        },
        "models": {
            "availableModels": [
                {"modelId": AUTO, "name": "Auto",
                 "description": "Let Gemini CLI decide the best model for the task: gemini-2.5-pro, gemini-2.5-flash"},
                {"modelId": "gemini-2.5-pro", "name": "gemini-2.5-pro"},
                {"modelId": "gemini-2.5-flash", "name": "gemini-2.5-flash"},
                {"modelId": "gemini-2.5-flash-lite", "name": "gemini-2.5-flash-lite"}
            ],
            "currentModelId": AUTO
        }
    })
}

/// The slash commands, as 0.61.0 lists them (recorded: `cassettes/gemini-acp/`).
fn available_commands() -> Value {
    let command = |name: &str, description: &str| json!({"name": name, "description": description});
    json!({"sessionUpdate": updates::AVAILABLE_COMMANDS_UPDATE, "availableCommands": [
        command("memory", "Manage memory."),
        command("memory show", "Shows the current memory contents."),
        command("memory refresh", "Refreshes the memory from the source."),
        command("memory list", "Lists the paths of the GEMINI.md files in use."),
        command("memory inbox", "Lists memory items extracted from past sessions that are pending review."),
        command("extensions", "Manage extensions."),
        command("extensions list", "Lists all installed extensions."),
        command("extensions explore", "Explore available extensions."),
        command("extensions enable", "Enable an extension."),
        command("extensions disable", "Disable an extension."),
        command("extensions install", "Install an extension from a git repo or local path."),
        command("extensions link", "Link an extension from a local path."),
        command("extensions uninstall", "Uninstall an extension."),
        command("extensions restart", "Restart an extension."),
        command("extensions update", "Update an extension."),
        command("init", "Analyzes the project and creates a tailored GEMINI.md file"),
        command("restore", "Restore to a previous checkpoint, or list available checkpoints to restore. This will reset the conversation and file history to the state it was in when the checkpoint was created"),
        command("restore list", "Lists all available checkpoints."),
        command("about", "Show version and environment info"),
        command("help", "Show available commands")
    ]})
}

/// The options of an edit's or a command's confirmation: allow for the session,
/// allow, reject.
fn permission_options() -> Value {
    json!([
        {"optionId": "proceed_always", "name": "Allow for this session", "kind": option_kinds::ALLOW_ALWAYS},
        {"optionId": "proceed_once", "name": "Allow", "kind": option_kinds::ALLOW_ONCE},
        {"optionId": "cancel", "name": "Reject", "kind": option_kinds::REJECT_ONCE}
    ])
}

/// The stop reason, and what the turn used in `_meta.quota` (`turns` scales the
/// made-up counts).
fn prompt_result(reason: &str, turns: u64) -> Value {
    let (input, output) = (24 * turns.max(1), 16 * turns.max(1));
    let counts = json!({"input_tokens": input, "output_tokens": output});
    let mut result = wire::stop(reason);
    result["_meta"] = json!({"quota": {
        "token_count": counts,
        "model_usage": [{"model": "gemini-2.5-flash", "token_count": counts}]
    }});
    result
}

/// `-32601` with the method in the message and in `data.method`.
fn method_not_found(id: &str, method: &str) -> Vec<u8> {
    rpc::error(
        id,
        codes::METHOD_NOT_FOUND,
        &format!("\"Method not found\": {method}"),
        Some(&json!({"method": method})),
    )
}

/// `session/load` of an id it has no history of: `-32603` with `data.details`;
/// another session method: `-32602` `Session not found: ID`.
fn unknown_session(id: &str, session: &str, method: &str) -> Vec<u8> {
    if method == wire::methods::SESSION_LOAD {
        let details = format!(
            "Invalid session identifier \"{session}\". Use --list-sessions to see available sessions."
        );
        return internal_error(id, &details);
    }
    rpc::error(
        id,
        codes::INVALID_PARAMS,
        &format!("Session not found: {session}"),
        None,
    )
}

/// A mode it does not have: `-32603` `Internal error`, `data.details` saying which.
fn invalid_setting(id: &str, what: &str) -> Vec<u8> {
    let details = match what
        .strip_prefix("Mode ")
        .and_then(|m| m.strip_suffix(" not found"))
    {
        Some(mode) => format!("Invalid or unavailable mode: {}", mode.trim_matches('"')),
        None => what.to_owned(),
    };
    internal_error(id, &details)
}

/// `-32603` `Internal error` with `data.details`, as its errors are shaped.
fn internal_error(id: &str, details: &str) -> Vec<u8> {
    rpc::error(
        id,
        codes::INTERNAL_ERROR,
        "Internal error",
        Some(&json!({"details": details})),
    )
}

/// A session method with no key: `-32000`.
fn auth_required(id: &str) -> Vec<u8> {
    rpc::error(
        id,
        codes::AUTH_REQUIRED,
        "Gemini API key is missing or not configured.",
        None,
    )
}

#[cfg(test)]
mod tests {
    use agent_client_protocol_schema::v1 as schema;
    use serde::de::DeserializeOwned;

    use super::*;

    fn reads<T: DeserializeOwned>(value: Value) {
        if let Err(e) = serde_json::from_value::<T>(value.clone()) {
            panic!("{}: {e}: {value}", std::any::type_name::<T>());
        }
    }

    /// Every shape of the profile is one the official ACP schema reads.
    #[test]
    fn gemini_s_shapes_conform_to_the_acp_schema() {
        reads::<schema::InitializeResponse>(initialize());
        reads::<schema::NewSessionResponse>(session_new("s1"));
        reads::<schema::SessionUpdate>(available_commands());
        reads::<schema::PromptResponse>(prompt_result(wire::stop_reasons::END_TURN, 2));
        reads::<schema::RequestPermissionRequest>(json!({
            "sessionId": "s1",
            "toolCall": {"toolCallId": "write_file__write_file_1_0", "title": "Writing to out.txt", "kind": "edit", "status": "pending"},
            "options": permission_options()
        }));
        for line in [
            method_not_found("1", "bogus/method"),
            unknown_session("2", "nobody", wire::methods::SESSION_LOAD),
            unknown_session("3", "nobody", wire::methods::SESSION_PROMPT),
            invalid_setting("4", "Mode \"bogus\" not found"),
            auth_required("5"),
        ] {
            let value: Value = serde_json::from_slice(&line).expect("json");
            reads::<schema::Error>(value["error"].clone());
        }
        // The "always" option Gemini lists first, the kinds its ids go by.
        assert_eq!(
            PROFILE.option_id(option_kinds::ALLOW_ONCE).as_deref(),
            Some("proceed_once")
        );
        assert_eq!(
            PROFILE.option_id(option_kinds::REJECT_ONCE).as_deref(),
            Some("cancel")
        );
        assert_eq!(PROFILE.option_id(option_kinds::REJECT_ALWAYS), None);
    }

    #[test]
    fn a_recording_is_gemini_s_when_launched_with_its_flag() {
        let invocation = |argv: &[&str]| Invocation {
            argv: argv.iter().map(|a| (*a).to_owned()).collect(),
            acp: true,
            ..Invocation::default()
        };
        assert!(claims(&invocation(&["--acp", "-m", "gemini-2.5-flash"])));
        assert!(claims(&invocation(&["--experimental-acp"])));
        assert!(!claims(&invocation(&["acp"])));
        let invalid = invalid_setting("4", "Mode \"bogus\" not found");
        let value: Value = serde_json::from_slice(&invalid).expect("json");
        assert_eq!(
            value["error"]["data"]["details"],
            "Invalid or unavailable mode: bogus"
        );
    }
}
