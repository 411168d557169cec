//! The answers every mock agent gives, whatever its source, and the shapes of the
//! results and updates the real agent sends outside a turn.

use std::time::Duration;

use serde_json::{json, Value};

use crate::acp::conversation::{Reply, Step, Steps};
use crate::acp::profile::{Commands, Profile};
use crate::acp::rpc::{self, Message};
use crate::acp::wire::{methods, stop_reasons};

/// The config options `session/new` offers, by id.
const MODE_OPTION: &str = "mode";
const MODEL_OPTION: &str = "model";

/// The answers every mock agent gives, whatever its source: `initialize`,
/// `authenticate`, the mode, model and config option setters (an error, in the
/// profile's shape, for a mode, model, option or value that does not exist, as the real
/// agent answers); the profile's error for a method it does not know.
pub fn handshake(request: &Message<'_>, profile: &Profile) -> Reply {
    let id = request.id_text();
    if let Some(invalid) = invalid_setting(request, profile) {
        return Reply::send((profile.habits.errors.invalid_setting)(id, &invalid));
    }
    let result = match request.method() {
        methods::INITIALIZE => (profile.initialize)(),
        methods::AUTHENTICATE | methods::SESSION_SET_MODE | methods::SESSION_SET_MODEL => json!({}),
        methods::SESSION_SET_CONFIG_OPTION if profile.habits.config_options => {
            let params = request.params_value();
            let value = params["value"].as_str().unwrap_or_default();
            let mode = profile.habits.modes.first().copied().unwrap_or_default();
            match params["configId"].as_str() {
                Some(MODE_OPTION) => {
                    json!({"configOptions": config_options(profile.habits.modes, value, crate::models::DEFAULT)})
                }
                _ => json!({"configOptions": config_options(profile.habits.modes, mode, value)}),
            }
        }
        methods::SESSION_NEW => {
            let session = uuid::Uuid::new_v4().to_string();
            return Reply {
                steps: Steps::from(session_new_steps(id, &session, profile)),
                divergence: None,
                recorded_session: None,
            };
        }
        methods::SESSION_PROMPT => (profile.habits.prompt_result)(stop_reasons::END_TURN, 1),
        methods::SESSION_LOAD => json!({}),
        other => return Reply::send((profile.habits.errors.method_not_found)(id, other)),
    };
    Reply::send(rpc::response(id, &result))
}

/// The answer to `session/new` request `id`: the result, and the commands when the
/// profile sends them then.
pub(super) fn session_new_steps(id: &str, session: &str, profile: &Profile) -> Vec<Step> {
    let mut steps = vec![Step::Send {
        at: Duration::ZERO,
        line: rpc::response(id, &(profile.session_new)(session)),
    }];
    if let (Commands::AfterNew, commands) = profile.commands {
        steps.push(Step::Send {
            at: Duration::ZERO,
            line: update_line(session, &commands()),
        });
    }
    steps
}

/// What is wrong with a setter's params, if anything: a mode, model, config option
/// or value that `session/new` does not offer.
fn invalid_setting(request: &Message<'_>, profile: &Profile) -> Option<String> {
    let params = request.params_value();
    let text = |name: &str| params[name].as_str().unwrap_or_default().to_owned();
    let model = profile.habits.known_model;
    match request.method() {
        methods::SESSION_SET_MODE => {
            let mode = text("modeId");
            (!profile.habits.modes.contains(&mode.as_str())).then(|| format!("Mode {mode:?} not found"))
        }
        methods::SESSION_SET_MODEL => {
            let id = text("modelId");
            (!model(&id)).then(|| format!("Model {id:?} not found"))
        }
        methods::SESSION_SET_CONFIG_OPTION if profile.habits.config_options => {
            let (option, value) = (text("configId"), text("value"));
            let known = match option.as_str() {
                MODE_OPTION => profile.habits.modes.contains(&value.as_str()),
                MODEL_OPTION => model(&value),
                _ => return Some(format!("Config option {option:?} not found")),
            };
            (!known).then(|| format!("Value {value:?} not found for config option {option:?}"))
        }
        _ => None,
    }
}

/// The models block of `session/new`: every model, `name` beside `modelId`.
pub fn models() -> Value {
    let models: Vec<Value> = crate::models::MODELS
        .iter()
        .map(|(id, name)| json!({"modelId": id, "name": name}))
        .collect();
    json!({"currentModelId": crate::models::DEFAULT, "availableModels": models})
}

/// The `configOptions` of a session: its mode (one of `modes`) and its model.
pub fn config_options(modes: &[&str], mode: &str, model: &str) -> Value {
    let models: Vec<Value> = crate::models::MODELS
        .iter()
        .map(|(id, name)| json!({"value": id, "name": name}))
        .collect();
    let modes: Vec<Value> = modes
        .iter()
        .map(|m| json!({"value": m, "name": m[..1].to_uppercase() + &m[1..]}))
        .collect();
    json!([
        {"id": MODE_OPTION, "name": "Mode", "category": "mode", "type": "select", "currentValue": mode, "options": modes},
        {"id": MODEL_OPTION, "name": "Model", "category": "model", "type": "select", "currentValue": model, "options": models}
    ])
}

/// A `session/update` notification of `session`.
pub fn update_line(session: &str, update: &Value) -> Vec<u8> {
    rpc::notification(
        methods::SESSION_UPDATE,
        &json!({"sessionId": session, "update": update}),
    )
}

/// The params of a `session/request_permission` for this tool call, with the
/// profile's options.
pub fn permission_params(session: &str, tool_call: &Value, profile: &Profile) -> Value {
    json!({
        "sessionId": session,
        "toolCall": tool_call,
        "options": (profile.permission_options)()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::rpc::codes;
    use crate::acp::wire::modes;

    fn answer(method: &str, params: Value) -> Value {
        let line = rpc::request(4, method, &params);
        let steps: Vec<Step> = handshake(
            &Message::parse(&line).expect("parses"),
            &crate::acp::profile::testing::PROFILE,
        )
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
