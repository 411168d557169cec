//! What recording an ACP agent keeps of its client: the credentials of
//! `authenticate` kept out, for every agent served by this machinery.

use harness::acp::{rpc::Message, wire::methods};

/// A client's line that may carry credentials, made safe to keep: `Some` replaces it.
///
/// An `authenticate` request keeps its shape with every string of its `params` (an
/// object, an array or a string) replaced by the marker, but a `methodId` said once.
/// A line that could be one but cannot be read for sure (not UTF-8, not JSON, nested
/// deeper than the parser goes, a key said twice) is replaced whole by the marker:
/// what is not understood is not kept. A line that does not spell `authenticate`
/// (not even with JSON escapes) is kept as it is.
pub fn credentials_out(line: &[u8], marker: &str) -> Option<Vec<u8>> {
    if memchr::memmem::find(line, methods::AUTHENTICATE.as_bytes()).is_none()
        && memchr::memmem::find(line, b"\\u").is_none()
    {
        return None;
    }
    let whole = || Some(marker.as_bytes().to_vec());
    // A key said twice is read one way here and maybe another by the agent.
    if Message::parse(line).is_none() {
        return whole();
    }
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(line) else {
        return whole();
    };
    if value.get("method").and_then(serde_json::Value::as_str) != Some(methods::AUTHENTICATE) {
        return None;
    }
    fn blank(value: &mut serde_json::Value, marker: &str) {
        match value {
            serde_json::Value::String(s) => *s = marker.to_owned(),
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| blank(v, marker)),
            serde_json::Value::Object(fields) => fields.values_mut().for_each(|v| blank(v, marker)),
            _ => {}
        }
    }
    let said_once = memchr::memmem::find_iter(line, b"methodId").count() == 1;
    match value.get_mut("params") {
        Some(serde_json::Value::Object(fields)) => {
            for (key, field) in fields.iter_mut() {
                if key != "methodId" || !said_once {
                    blank(field, marker);
                }
            }
        }
        Some(params) => blank(params, marker),
        None => {}
    }
    serde_json::to_vec(&value).ok().or_else(whole)
}
