//! The answers every mock agent gives, whatever its source, and the shapes of the
//! results and updates the real agent sends outside a turn.

use std::time::Duration;

use serde_json::{json, Value};

use crate::dialects::cursor_acp::conversation::{Reply, Step, Steps};
use crate::dialects::cursor_acp::rpc::{self, codes, Message};
use crate::dialects::cursor_acp::wire::{
    self, content_types, methods, modes, option_kinds, stop_reasons, updates,
};

/// The config options `session/new` offers, by id.
const MODE_OPTION: &str = "mode";
const MODEL_OPTION: &str = "model";

/// The answers every mock agent gives, whatever its source: `initialize`,
/// `authenticate`, the mode, model and config option setters (`-32602` for a mode,
/// model, option or value that does not exist, as the real agent answers); `-32601`
/// for a method it does not know.
pub fn handshake(request: &Message<'_>) -> Reply {
    let id = request.id_text();
    if let Some(invalid) = invalid_setting(request) {
        return Reply::send(invalid_params(id, &invalid));
    }
    let result = match request.method() {
        methods::INITIALIZE => initialize_result(),
        methods::AUTHENTICATE | methods::SESSION_SET_MODE | methods::SESSION_SET_MODEL => json!({}),
        methods::SESSION_SET_CONFIG_OPTION => {
            let params = request.params_value();
            let value = params["value"].as_str().unwrap_or_default();
            match params["configId"].as_str() {
                Some(MODE_OPTION) => json!({"configOptions": config_options(value, crate::models::DEFAULT)}),
                _ => json!({"configOptions": config_options(modes::AGENT, value)}),
            }
        }
        methods::SESSION_NEW => {
            let session = uuid::Uuid::new_v4().to_string();
            return Reply {
                steps: Steps::from(vec![
                    Step::Send {
                        at: Duration::ZERO,
                        line: rpc::response(id, &session_new_result(&session)),
                    },
                    Step::Send {
                        at: Duration::ZERO,
                        line: update_line(&session, &available_commands()),
                    },
                ]),
                divergence: None,
                recorded_session: None,
            };
        }
        methods::SESSION_PROMPT => wire::stop(stop_reasons::END_TURN),
        methods::SESSION_LOAD => json!({}),
        other => {
            return Reply::send(rpc::error(
                id,
                codes::METHOD_NOT_FOUND,
                "Method not found",
                Some(&Value::from(other)),
            ))
        }
    };
    Reply::send(rpc::response(id, &result))
}

/// A `-32602` of this message.
pub(super) fn invalid_params(id: &str, message: &str) -> Vec<u8> {
    rpc::error(id, codes::INVALID_PARAMS, message, None)
}

/// What is wrong with a setter's params, if anything: a mode, model, config option
/// or value that `session/new` does not offer.
fn invalid_setting(request: &Message<'_>) -> Option<String> {
    let params = request.params_value();
    let text = |name: &str| params[name].as_str().unwrap_or_default().to_owned();
    let model = |id: &str| crate::models::MODELS.iter().any(|(m, _)| *m == id);
    match request.method() {
        methods::SESSION_SET_MODE => {
            let mode = text("modeId");
            (!modes::ALL.contains(&mode.as_str())).then(|| format!("Mode {mode:?} not found"))
        }
        methods::SESSION_SET_MODEL => {
            let id = text("modelId");
            (!model(&id)).then(|| format!("Model {id:?} not found"))
        }
        methods::SESSION_SET_CONFIG_OPTION => {
            let (option, value) = (text("configId"), text("value"));
            let known = match option.as_str() {
                MODE_OPTION => modes::ALL.contains(&value.as_str()),
                MODEL_OPTION => model(&value),
                _ => return Some(format!("Config option {option:?} not found")),
            };
            (!known).then(|| format!("Value {value:?} not found for config option {option:?}"))
        }
        _ => None,
    }
}

/// The result of `initialize`, as the real agent answers (protocol version 1 to any
/// version asked).
pub fn initialize_result() -> Value {
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
pub fn session_new_result(session: &str) -> Value {
    let models: Vec<Value> = crate::models::MODELS
        .iter()
        .map(|(id, name)| json!({"modelId": id, "name": name}))
        .collect();
    json!({
        "sessionId": session,
        "modes": {"currentModeId": modes::AGENT, "availableModes": available_modes()},
        "models": {"currentModelId": crate::models::DEFAULT, "availableModels": models},
        "configOptions": config_options(modes::AGENT, crate::models::DEFAULT)
    })
}

fn available_modes() -> Value {
    json!([
        {"id": modes::AGENT, "name": "Agent", "description": "Full agent capabilities"},
        {"id": modes::PLAN, "name": "Plan", "description": "Plan before acting"},
        {"id": modes::ASK, "name": "Ask", "description": "Answer questions, change nothing"}
    ])
}

fn config_options(mode: &str, model: &str) -> Value {
    let models: Vec<Value> = crate::models::MODELS
        .iter()
        .map(|(id, name)| json!({"value": id, "name": name}))
        .collect();
    let modes: Vec<Value> = modes::ALL
        .iter()
        .map(|m| json!({"value": m, "name": m[..1].to_uppercase() + &m[1..]}))
        .collect();
    json!([
        {"id": MODE_OPTION, "name": "Mode", "category": "mode", "type": "select", "currentValue": mode, "options": modes},
        {"id": MODEL_OPTION, "name": "Model", "category": "model", "type": "select", "currentValue": model, "options": models}
    ])
}

/// The `available_commands_update` the agent sends after `session/new` answers.
pub fn available_commands() -> Value {
    json!({"sessionUpdate": updates::AVAILABLE_COMMANDS_UPDATE, "availableCommands": [
        {"name": modes::PLAN, "description": "Switch to plan mode"},
        {"name": "model", "description": "Change the model", "input": {"hint": "model id"}}
    ]})
}

/// A `session/update` notification of `session`.
pub fn update_line(session: &str, update: &Value) -> Vec<u8> {
    rpc::notification(
        methods::SESSION_UPDATE,
        &json!({"sessionId": session, "update": update}),
    )
}

/// The params of a `session/request_permission` for this tool call: allow once,
/// allow always, reject once, reject always.
pub fn permission_params(session: &str, tool_call: &Value) -> Value {
    json!({
        "sessionId": session,
        "toolCall": tool_call,
        "options": [
            {"optionId": "allow-once", "name": "Allow once", "kind": option_kinds::ALLOW_ONCE},
            {"optionId": "allow-always", "name": "Allow always", "kind": option_kinds::ALLOW_ALWAYS},
            {"optionId": "reject-once", "name": "Reject", "kind": option_kinds::REJECT_ONCE},
            {"optionId": "reject-always", "name": "Reject always", "kind": option_kinds::REJECT_ALWAYS}
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(method: &str, params: Value) -> Value {
        let line = rpc::request(4, method, &params);
        let steps: Vec<Step> = handshake(&Message::parse(&line).expect("parses"))
            .steps
            .collect::<Result<_, _>>()
            .expect("at hand");
        match &steps[0] {
            Step::Send { line, .. } => serde_json::from_slice(line).expect("json"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn setters_to_what_does_not_exist_are_invalid_params() {
        let s = "s1";
        for (method, params) in [
            (
                methods::SESSION_SET_MODE,
                json!({"sessionId": s, "modeId": "yolo"}),
            ),
            (
                methods::SESSION_SET_MODEL,
                json!({"sessionId": s, "modelId": "gpt-0"}),
            ),
            (
                methods::SESSION_SET_CONFIG_OPTION,
                json!({"sessionId": s, "configId": "colour", "value": "red"}),
            ),
            (
                methods::SESSION_SET_CONFIG_OPTION,
                json!({"sessionId": s, "configId": MODE_OPTION, "value": "yolo"}),
            ),
            (
                methods::SESSION_SET_CONFIG_OPTION,
                json!({"sessionId": s, "configId": MODEL_OPTION, "value": modes::PLAN}),
            ),
        ] {
            let answer = answer(method, params);
            assert_eq!(
                answer["error"]["code"],
                codes::INVALID_PARAMS,
                "{method}: {answer}"
            );
        }
        let set = answer(
            methods::SESSION_SET_CONFIG_OPTION,
            json!({"sessionId": s, "configId": MODE_OPTION, "value": modes::PLAN}),
        );
        assert_eq!(
            set[rpc::members::RESULT]["configOptions"][0]["currentValue"],
            modes::PLAN
        );
        let set = answer(
            methods::SESSION_SET_MODE,
            json!({"sessionId": s, "modeId": modes::ASK}),
        );
        assert_eq!(set[rpc::members::RESULT], json!({}));
    }
}
