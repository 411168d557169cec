//! `json-rpc`: a line read as one JSON-RPC 2.0 message, or why it is not one.

use serde_json::Value;

use crate::acp::rpc::members;

use super::{AcpRule, Checker, Findings, Level, Parsed, Side};

impl<F: Findings> Checker<F> {
    /// `json-rpc`: reads a line as one JSON-RPC 2.0 message, or says why it is not.
    pub(super) fn parse(&mut self, line: u64, side: Side, bytes: &[u8]) -> Option<Parsed> {
        let value: Value = match serde_json::from_slice(bytes) {
            Ok(value) => value,
            Err(_) => {
                self.malformed(line, side, || {
                    let shown: String = String::from_utf8_lossy(bytes).chars().take(60).collect();
                    format!("a line that is not JSON: `{shown}`")
                });
                return None;
            }
        };
        let Value::Object(mut map) = value else {
            self.malformed(line, side, || "a JSON value that is not an object".into());
            return None;
        };
        match map.get(members::JSONRPC) {
            Some(Value::String(version)) if version == "2.0" => {}
            Some(other) => {
                let other = other.to_string();
                self.malformed(line, side, || format!("`jsonrpc` is `{other}`, not \"2.0\""));
            }
            None => self.malformed(line, side, || "a message with no `\"jsonrpc\":\"2.0\"`".into()),
        }
        let params = map.remove(members::PARAMS).unwrap_or(Value::Null);
        if !matches!(params, Value::Null | Value::Object(_) | Value::Array(_)) {
            self.malformed(line, side, || "`params` is neither an object nor a list".into());
            return None;
        }
        let id = match map.remove(members::ID) {
            None => None,
            Some(id @ (Value::Null | Value::String(_) | Value::Number(_))) => Some(id),
            Some(other) => {
                self.malformed(line, side, || {
                    format!("the id `{other}` is neither a string nor a number")
                });
                return None;
            }
        };
        let result = map.remove(members::RESULT);
        let error = map.remove(members::ERROR);
        match map.remove(members::METHOD) {
            Some(Value::String(method)) => {
                if result.is_some() || error.is_some() {
                    self.malformed(line, side, || {
                        format!("`{method}` has a `method` and a `result` or `error`: a message is a request or a response, not both")
                    });
                    return None;
                }
                match id {
                    None => Some(Parsed::Notification { method, params }),
                    Some(Value::Null) => {
                        self.malformed(line, side, || {
                            format!("a `{method}` request with `\"id\":null`: leave the id out of a notification, or give a request a string or number")
                        });
                        None
                    }
                    Some(id) => Some(Parsed::Request {
                        id: id.to_string(),
                        method,
                        params,
                    }),
                }
            }
            Some(other) => {
                self.malformed(line, side, || format!("the method `{other}` is not a string"));
                None
            }
            None => {
                let Some(id) = id else {
                    self.malformed(line, side, || {
                        "a message with neither a `method` nor an `id`".into()
                    });
                    return None;
                };
                let result = match (result, error) {
                    (Some(result), None) => Ok(result),
                    (None, Some(error)) => {
                        if !error_shape(&error) {
                            self.malformed(line, side, || {
                                format!("the error `{error}` lacks an integer `code` or a string `message`")
                            });
                        }
                        Err(error)
                    }
                    (Some(_), Some(_)) => {
                        self.malformed(line, side, || "a response with both `result` and `error`".into());
                        return None;
                    }
                    (None, None) => {
                        self.malformed(line, side, || {
                            "a message with an `id` but no `method`, `result` or `error`".into()
                        });
                        return None;
                    }
                };
                if id.is_null() && result.is_ok() {
                    self.malformed(line, side, || {
                        "a result for `\"id\":null`: only an error (to a line that could not be read) has no id".into()
                    });
                    return None;
                }
                Some(Parsed::Response {
                    id: (!id.is_null()).then(|| id.to_string()),
                    result,
                })
            }
        }
    }

    pub(super) fn malformed(&mut self, line: u64, side: Side, message: impl FnOnce() -> String) {
        let severity = match side {
            Side::Agent => Level::Error,
            // The agent ignores a line it cannot read.
            Side::Client => Level::Warning,
        };
        self.found.add(severity, line, AcpRule::JsonRpc, || {
            format!("the {}'s line: {}", side.name(), message())
        });
    }
}

/// Whether a JSON-RPC error has an integer `code` and a string `message`.
fn error_shape(error: &Value) -> bool {
    error.get("code").is_some_and(|c| c.is_i64()) && error.get("message").is_some_and(Value::is_string)
}
