//! The agent's `session/update`s and permission requests: `fields`, `update-kind`,
//! `tool-kind`, `tool-call-pairs`, `turn-order`, and Cursor's habits.

use serde_json::{Map, Value};

use super::*;
use crate::acp::wire::{methods, option_kinds, outcomes, tool_kinds, tool_statuses, updates};

impl<F: Findings> Checker<F> {
    /// `fields` of a permission request; its option ids.
    pub(super) fn permission_request(&mut self, line: u64, params: &Value) -> Vec<String> {
        let mut wrong = Vec::new();
        if !params.get("sessionId").is_some_and(Value::is_string) {
            wrong.push("no `sessionId`".to_owned());
        }
        match params["toolCall"].get("toolCallId").and_then(Value::as_str) {
            Some(id) if id.contains('\n') => self.habit(line, Habit::NewlineInId),
            Some(_) => {}
            None => wrong.push("no `toolCall.toolCallId`".to_owned()),
        }
        // A permission request may be the first mention of its tool call (Gemini CLI
        // announces a tool call that asks no other way): its updates follow it.
        if let (Some(session), Some(id)) = (
            params["sessionId"].as_str(),
            params["toolCall"]["toolCallId"].as_str(),
        ) {
            let key = (session.to_owned(), id.to_owned());
            if !self.tool_calls.map.contains_key(&key) {
                self.tool_calls.insert(key, line);
            }
        }
        let mut ids = Vec::new();
        match params.get("options").and_then(Value::as_array) {
            Some(options) if !options.is_empty() => {
                for option in options {
                    match option.get("optionId").and_then(Value::as_str) {
                        Some(id) => ids.push(id.to_owned()),
                        None => wrong.push(format!("an option with no `optionId`: {option}")),
                    }
                    let kind = option.get("kind").and_then(Value::as_str).unwrap_or_default();
                    if !option_kinds::ALL.contains(&kind) {
                        wrong.push(format!(
                            "an option of kind `{kind}` (ACP's are {})",
                            option_kinds::ALL.join(", ")
                        ));
                    }
                }
            }
            _ => wrong.push("no `options` to choose from".to_owned()),
        }
        if !wrong.is_empty() {
            self.found.add(Level::Error, line, AcpRule::Fields, || {
                format!(
                    "the `session/request_permission` request has {}",
                    wrong.join("; ")
                )
            });
        }
        ids
    }

    /// `fields` of the agent's requests of the client's files and terminals: an
    /// absolute `path` (and the `content` written), a `command`, the `terminalId`.
    pub(super) fn client_tool_fields(&mut self, line: u64, method: &str, params: &Value) {
        let string = |name: &str| params.get(name).and_then(Value::as_str);
        let missing = match method {
            methods::FS_READ_TEXT_FILE | methods::FS_WRITE_TEXT_FILE
                if !string("path").is_some_and(|p| p.starts_with('/')) =>
            {
                "an absolute `path`"
            }
            methods::FS_WRITE_TEXT_FILE if string("content").is_none() => "the `content` to write",
            methods::TERMINAL_CREATE if string("command").is_none() => "a `command`",
            methods::TERMINAL_CREATE => return,
            _ if method.starts_with(methods::TERMINAL_PREFIX) && string("terminalId").is_none() => {
                "the `terminalId` a `terminal/create` answer gave"
            }
            _ => return,
        };
        self.found.add(Level::Error, line, AcpRule::Fields, || {
            format!("the `{method}` request has no {missing}")
        });
    }

    /// `fields` (a warning): the client's answer to a permission request.
    pub(super) fn permission_answer(&mut self, line: u64, asked: &Asked, result: Option<&Value>) {
        let Some(result) = result else {
            return; // An error answer is the client's right.
        };
        let outcome = &result["outcome"];
        let problem = match outcome.get("outcome").and_then(Value::as_str) {
            Some(outcomes::CANCELLED) => None,
            Some(outcomes::SELECTED) => match outcome.get("optionId").and_then(Value::as_str) {
                Some(id) if asked.options.iter().any(|o| o == id) => None,
                Some(id) => Some(format!(
                    "selects `{id}`, which the request (line {}) did not offer",
                    asked.line
                )),
                None => Some("selects no `optionId`".to_owned()),
            },
            _ => Some(format!(
                "is `{result}`, not `{{\"outcome\":{{\"outcome\":\"selected\",\"optionId\":...}}}}` or `cancelled`"
            )),
        };
        if let Some(problem) = problem {
            self.found.add(Level::Warning, line, AcpRule::Fields, || {
                format!("the client's answer to `session/request_permission` {problem}")
            });
        }
    }

    /// A `session/update` of the agent's.
    pub(super) fn update(&mut self, line: u64, params: &Value) {
        let (Some(session), Some(update)) = (
            params.get("sessionId").and_then(Value::as_str),
            params.get("update").and_then(Value::as_object),
        ) else {
            self.found.add(Level::Error, line, AcpRule::Fields, || {
                "a `session/update` needs `params.sessionId` (a string) and `params.update` (an object)"
                    .into()
            });
            return;
        };
        self.session_named(line, params);
        let Some(kind) = update.get("sessionUpdate").and_then(Value::as_str) else {
            self.found.add(Level::Error, line, AcpRule::Fields, || {
                "a `session/update` whose update has no `sessionUpdate` kind".into()
            });
            return;
        };
        if !updates::ALL.contains(&kind) {
            self.found.add(Level::Warning, line, AcpRule::UpdateKind, || {
                format!("a `sessionUpdate` kind this version does not know: `{kind}`")
            });
            return;
        }
        if updates::TURN.contains(&kind) {
            self.turn_order(line, session, kind);
        }
        self.update_fields(line, kind, update);
        if is_tool_update(kind) {
            self.tool_call(line, session, kind, update);
        }
    }

    /// `turn-order`: no update of a turn after the prompt's response.
    pub(super) fn turn_order(&mut self, line: u64, session: &str, kind: &str) {
        let Some(turn) = self.turns.map.get_mut(session) else {
            return;
        };
        if turn.prompt.is_some() {
            return;
        }
        if let Some(ended) = turn.ended.take() {
            self.found.add(Level::Error, line, AcpRule::TurnOrder, || {
                format!("`{kind}` of session `{session}` after the `session/prompt` response (line {ended}) that ended its turn")
            });
        }
    }

    /// `fields` of an update of a known kind.
    pub(super) fn update_fields(&mut self, line: u64, kind: &str, update: &Map<String, Value>) {
        let string = |name: &str| update.get(name).is_some_and(Value::is_string);
        let missing: &[&str] = match kind {
            kind if updates::CHUNKS.contains(&kind) => {
                if update
                    .get("content")
                    .and_then(|c| c.get("type"))
                    .is_some_and(Value::is_string)
                {
                    &[]
                } else {
                    &["`content` (a content block with a `type`)"]
                }
            }
            updates::TOOL_CALL if !string("toolCallId") && !string("title") => &["`toolCallId`", "`title`"],
            updates::TOOL_CALL if !string("toolCallId") => &["`toolCallId`"],
            updates::TOOL_CALL if !string("title") => &["`title`"],
            updates::TOOL_CALL_UPDATE if !string("toolCallId") => &["`toolCallId`"],
            updates::PLAN if !update.get("entries").is_some_and(Value::is_array) => &["`entries` (a list)"],
            updates::AVAILABLE_COMMANDS_UPDATE
                if !update.get("availableCommands").is_some_and(Value::is_array) =>
            {
                &["`availableCommands` (a list)"]
            }
            updates::CURRENT_MODE_UPDATE if !string("currentModeId") => &["`currentModeId`"],
            updates::USAGE_UPDATE
                if !["used", "size"]
                    .iter()
                    .all(|n| update.get(*n).is_some_and(Value::is_u64)) =>
            {
                &["`used` and `size` (token counts)"]
            }
            _ => &[],
        };
        if !missing.is_empty() {
            self.found.add(Level::Error, line, AcpRule::Fields, || {
                format!("a `{kind}` update without {}", missing.join(" and "))
            });
        }
        if let Some(tool_kind) = update.get("kind").filter(|_| is_tool_update(kind)) {
            if !tool_kind.as_str().is_some_and(|k| tool_kinds::ALL.contains(&k)) {
                self.found.add(Level::Warning, line, AcpRule::ToolKind, || {
                    format!("a tool kind ACP does not define: {tool_kind} (clients read it as `other`)")
                });
            }
        }
        if let Some(status) = update.get("status").filter(|_| is_tool_update(kind)) {
            if !status.as_str().is_some_and(|s| tool_statuses::ALL.contains(&s)) {
                self.found.add(Level::Warning, line, AcpRule::Fields, || {
                    format!(
                        "a tool status ACP does not define: {status} (ACP's are {})",
                        tool_statuses::ALL.join(", ")
                    )
                });
            }
        }
    }

    /// `tool-call-pairs`: `tool_call` before its `tool_call_update`s; and Cursor's
    /// habits in tool calls.
    pub(super) fn tool_call(&mut self, line: u64, session: &str, kind: &str, update: &Map<String, Value>) {
        let Some(id) = update.get("toolCallId").and_then(Value::as_str) else {
            return;
        };
        if id.contains('\n') {
            self.habit(line, Habit::NewlineInId);
        }
        if update.contains_key("rawOutput") && !update.contains_key("content") {
            self.habit(line, Habit::RawOutput);
        }
        let key = (session.to_owned(), id.to_owned());
        let first = self.tool_calls.map.get(&key).copied();
        match (kind, first) {
            (updates::TOOL_CALL, None) => self.tool_calls.insert(key, line),
            (updates::TOOL_CALL, Some(first)) => self.found.add(Level::Warning, line, AcpRule::ToolCallPairs, || {
                format!("tool call {id:?} announced again (first on line {first}); clients read it as an update")
            }),
            (_, None) if !self.tool_calls.full => {
                self.found.add(Level::Error, line, AcpRule::ToolCallPairs, || {
                    format!("a `tool_call_update` of {id:?} before its `tool_call`")
                });
            }
            _ => {}
        }
    }

    /// `cursor-habit`: once per file.
    pub(super) fn habit(&mut self, line: u64, habit: Habit) {
        let seen = &mut self.habits[habit as usize];
        if !*seen {
            *seen = true;
            self.found.add(habit.level(), line, AcpRule::CursorHabit, || {
                habit.message().to_owned()
            });
        }
    }
}

/// Whether an update is about a tool call: `tool_call` or `tool_call_update`.
fn is_tool_update(kind: &str) -> bool {
    kind == updates::TOOL_CALL || kind == updates::TOOL_CALL_UPDATE
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::acp::rpc;
    use crate::acp::wire::{self, Capabilities};

    /// The rules broken, with their lines.
    #[derive(Default)]
    struct Found(Vec<(u64, AcpRule)>);

    impl Findings for Found {
        fn add(&mut self, level: Level, line: u64, rule: AcpRule, _: impl FnOnce() -> String) {
            if level == Level::Error {
                self.0.push((line, rule));
            }
        }
    }

    #[test]
    fn the_client_s_tools_and_usage_are_checked_for_their_fields() {
        let everything = Capabilities {
            read: true,
            write: true,
            terminal: true,
        };
        let init = json!({"protocolVersion": 1, "clientCapabilities": everything.to_value()});
        let lines = [
            (Side::Client, rpc::request(0, methods::INITIALIZE, &init)),
            (
                Side::Agent,
                rpc::request(
                    0,
                    methods::FS_READ_TEXT_FILE,
                    &wire::read_text_file("s", "/w/a.md"),
                ),
            ),
            (
                Side::Agent,
                rpc::request(1, methods::FS_READ_TEXT_FILE, &wire::read_text_file("s", "a.md")),
            ),
            (
                Side::Agent,
                rpc::request(
                    2,
                    methods::FS_WRITE_TEXT_FILE,
                    &json!({"sessionId": "s", "path": "/w/a.md"}),
                ),
            ),
            (
                Side::Agent,
                rpc::request(
                    3,
                    methods::TERMINAL_CREATE,
                    &wire::create_terminal("s", "ls", None),
                ),
            ),
            (
                Side::Agent,
                rpc::request(4, methods::TERMINAL_OUTPUT, &json!({"sessionId": "s"})),
            ),
            (
                Side::Agent,
                rpc::request(5, methods::TERMINAL_RELEASE, &wire::terminal("s", "t")),
            ),
            (
                Side::Client,
                rpc::request(6, methods::SESSION_LOAD, &json!({"sessionId": "s"})),
            ),
            (
                Side::Agent,
                rpc::notification(
                    methods::SESSION_UPDATE,
                    &json!({"sessionId": "s", "update": wire::usage_update(10, 100, 0.1)}),
                ),
            ),
            (
                Side::Agent,
                rpc::notification(
                    methods::SESSION_UPDATE,
                    &json!({"sessionId": "s", "update": {"sessionUpdate": updates::USAGE_UPDATE, "used": -1}}),
                ),
            ),
        ];
        let mut checker = Checker::new(Found::default());
        for (n, (side, line)) in lines.iter().enumerate() {
            checker.line(n as u64 + 1, *side, line);
        }
        let found = checker.finish(None).0;
        let fields: Vec<u64> = found
            .iter()
            .filter(|(_, rule)| *rule == AcpRule::Fields)
            .map(|(line, _)| *line)
            .collect();
        assert_eq!(fields, [3, 4, 6, 10], "{found:?}");
    }
}
