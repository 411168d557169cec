//! JSON-RPC 2.0 lines, as ACP sends them one per line: what a line is (a request, a
//! notification, a response), its id as its raw bytes (a number, a string, any size),
//! and the few messages the mock writes itself.
//!
//! Lines are looked at, not rebuilt: a recorded message is replayed byte for byte but
//! for its `id`, spliced in where the recording had its own.

use std::borrow::Cow;
use std::ops::Range;

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::Value;

/// The error codes of JSON-RPC (`INVALID_PARAMS` also for a session that does not
/// exist) and ACP.
pub mod codes {
    pub use crate::jsonrpc::codes::*;
    /// The request was cancelled (`$/cancel_request`).
    pub const REQUEST_CANCELLED: i64 = -32800;
    /// The client must authenticate first.
    pub const AUTH_REQUIRED: i64 = -32000;
    /// A resource does not exist.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
}

/// The members of a JSON-RPC message, as the checker reads them one by one.
pub mod members {
    /// The protocol's version, `2.0`.
    pub const JSONRPC: &str = "jsonrpc";
    /// A request's or response's id.
    pub const ID: &str = "id";
    /// A request's or notification's method.
    pub const METHOD: &str = "method";
    /// A request's or notification's params.
    pub const PARAMS: &str = "params";
    /// A successful response's result (`null` is one).
    pub const RESULT: &str = "result";
    /// A failed response's error.
    pub const ERROR: &str = "error";
}

/// What a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `method` and `id`: the sender waits for a response.
    Request,
    /// `method`, no `id`.
    Notification,
    /// `id` and `result` or `error`, no `method`.
    Response,
}

/// The parts of a JSON-RPC line the mock looks at, borrowed from the line.
#[derive(Debug, Clone)]
pub struct Message<'a> {
    /// What it is.
    pub kind: Kind,
    /// The id, as its JSON text (`7`, `"a-b"`); `None` for a notification.
    pub id: Option<&'a RawValue>,
    /// The method of a request or notification.
    pub method: Option<Cow<'a, str>>,
    /// The params, unparsed.
    pub params: Option<&'a RawValue>,
    /// The result of a response, unparsed (`null` is a result).
    pub result: Option<&'a RawValue>,
    /// The error of a response, unparsed.
    pub error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Fields<'a> {
    /// `null` is an id (a request may have it), not its absence.
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    /// `null` is a result (a client may answer so), not its absence.
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// A member that is there, whatever its value (`null` too): serde reads an `Option`'s
/// `null` as `None`, which would make a response of a `null` result no message.
fn present<'de: 'a, 'a, D: Deserializer<'de>>(value: D) -> Result<Option<&'a RawValue>, D::Error> {
    <&'a RawValue>::deserialize(value).map(Some)
}

impl<'a> Message<'a> {
    /// Reads a line; `None` when it is not a JSON object with a `method`, or an `id`
    /// and a `result` or `error`.
    pub fn parse(line: &'a [u8]) -> Option<Self> {
        let first = line.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            return None;
        }
        let fields: Fields<'a> = serde_json::from_slice(line).ok()?;
        // A method with `"id": null` is a request all the same (JSON-RPC 2.0: only a
        // message without an id is a notification); a response's `"id": null` is no
        // id (a parse error's response carries one).
        let kind = match (&fields.method, fields.id) {
            (Some(_), Some(_)) => Kind::Request,
            (Some(_), None) => Kind::Notification,
            (None, _) if fields.result.is_some() || fields.error.is_some() => Kind::Response,
            (None, _) => return None,
        };
        let id = match kind {
            Kind::Response => fields.id.filter(|id| id.get() != "null"),
            Kind::Request | Kind::Notification => fields.id,
        };
        Some(Message {
            kind,
            id,
            method: fields.method,
            params: fields.params,
            result: fields.result,
            error: fields.error,
        })
    }

    /// The method, or `""`.
    pub fn method(&self) -> &str {
        self.method.as_deref().unwrap_or_default()
    }

    /// The params as a value (`null` when absent or not JSON).
    pub fn params_value(&self) -> Value {
        self.params
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or(Value::Null)
    }

    /// A string field of the params (`sessionId`, say).
    pub fn param_str(&self, name: &str) -> Option<String> {
        self.params_value().get(name)?.as_str().map(str::to_owned)
    }

    /// The id's text, or `""`.
    pub fn id_text(&self) -> &str {
        self.id.map_or("", |id| id.get())
    }

    /// Where the id lies in `line`, the line this message was read from.
    pub fn id_span(&self, line: &[u8]) -> Option<Range<usize>> {
        let raw = self.id?.get();
        let start = (raw.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
        let end = start + raw.len();
        (end <= line.len()).then_some(start..end)
    }
}

/// Whether `line` is, at a glance, no response: it begins
/// `{"jsonrpc":"2.0","method":`, as agents write their notifications and requests, so
/// its top level has a `method`. `false` says nothing: parse the line to know.
pub fn surely_not_response(line: &[u8]) -> bool {
    line.starts_with(br#"{"jsonrpc":"2.0","method":"#)
}

/// `line` with its id replaced by `id` (JSON text), every other byte as it was; the
/// line itself when it has no id.
pub fn with_id(line: &[u8], id: &str) -> Vec<u8> {
    let span = Message::parse(line).and_then(|m| m.id_span(line));
    match span {
        Some(span) => [&line[..span.start], id.as_bytes(), &line[span.end..]].concat(),
        None => line.to_vec(),
    }
}

/// A response with this result, to the request whose id is `id` (JSON text).
pub fn response(id: &str, result: &Value) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#).into_bytes()
}

/// An error response.
pub fn error(id: &str, code: i64, message: &str, data: Option<&Value>) -> Vec<u8> {
    let mut error = serde_json::json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data.clone();
    }
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#).into_bytes()
}

/// The answer JSON-RPC 2.0 gives a line that is no message: `-32700` (parse error)
/// when it is not JSON, `-32600` (invalid request) when it is JSON but no request,
/// notification or response; with `"id": null`, as the id could not be read.
pub fn invalid(line: &[u8]) -> Vec<u8> {
    match serde_json::from_slice::<serde::de::IgnoredAny>(line) {
        Err(_) => error("null", codes::PARSE_ERROR, "Parse error", None),
        Ok(_) => error("null", codes::INVALID_REQUEST, "Invalid Request", None),
    }
}

/// A notification.
pub fn notification(method: &str, params: &Value) -> Vec<u8> {
    let method = Value::from(method);
    format!(r#"{{"jsonrpc":"2.0","method":{method},"params":{params}}}"#).into_bytes()
}

/// A request of the agent's, with its own numeric id.
pub fn request(id: u64, method: &str, params: &Value) -> Vec<u8> {
    request_with_id(&id.to_string(), method, params)
}

/// A request whose id is `id` (JSON text; `null` when empty).
pub fn request_with_id(id: &str, method: &str, params: &Value) -> Vec<u8> {
    let id = if id.is_empty() { "null" } else { id };
    let method = Value::from(method);
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":{method},"params":{params}}}"#).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::acp::wire::{self, methods};

    #[test]
    fn lines_are_told_apart_and_ids_kept_as_text() {
        let request = request(0, methods::SESSION_NEW, &serde_json::json!({"cwd": "/w"}));
        let request = with_id(&request, r#""a-1""#);
        let m = Message::parse(&request).expect("a request");
        assert_eq!(
            (m.kind, m.id_text(), m.method()),
            (Kind::Request, r#""a-1""#, methods::SESSION_NEW)
        );
        assert_eq!(m.param_str("cwd").as_deref(), Some("/w"));
        let cancel = notification(methods::SESSION_CANCEL, &serde_json::json!({"sessionId": "s"}));
        assert_eq!(Message::parse(&cancel).map(|m| m.kind), Some(Kind::Notification));
        let answer = response("0", &wire::cancelled());
        assert_eq!(Message::parse(&answer).map(|m| m.kind), Some(Kind::Response));
        assert!(Message::parse(b"not json").is_none());
        assert!(Message::parse(b"[1,2]").is_none());
        assert!(Message::parse(&error("null", codes::PARSE_ERROR, "", None)).is_some());
        assert!(surely_not_response(&cancel));
        assert!(!surely_not_response(&answer) && !surely_not_response(&request));
    }

    /// `"result": null` is a response (serde alone reads it as no result), its result
    /// the text `null`; a line with neither a result nor an error is none.
    #[test]
    fn a_null_result_is_a_result() {
        let answer = response("3", &Value::Null);
        let m = Message::parse(&answer).expect("a response");
        assert_eq!((m.kind, m.id_text()), (Kind::Response, "3"));
        assert_eq!(m.result.map(RawValue::get), Some("null"));
        assert!(m.error.is_none());
        let absent = br#"{"jsonrpc":"2.0","id":3}"#;
        assert!(Message::parse(absent).is_none());
        let failed = error("3", codes::INTERNAL_ERROR, "no", None);
        let m = Message::parse(&failed).expect("a response");
        assert!(m.result.is_none() && m.error.is_some());
    }

    #[test]
    fn an_id_is_replaced_byte_for_byte() {
        let line = br#"{"jsonrpc":"2.0","id":3, "result":{"id":3}}"#;
        assert_eq!(
            with_id(line, "18446744073709551616"),
            br#"{"jsonrpc":"2.0","id":18446744073709551616, "result":{"id":3}}"#
        );
        assert_eq!(
            with_id(line, r#""x""#),
            br#"{"jsonrpc":"2.0","id":"x", "result":{"id":3}}"#
        );
    }
}
