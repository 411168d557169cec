//! A cheap look at one stdout line: its type and the few fields rendering needs.
//!
//! Every field is borrowed raw JSON, so a line of any shape (an unknown event, a known
//! one with a field of an unexpected type) peeks without error as long as it is a JSON
//! object; the typed accessors answer `None` where a field is not what they expect.

use std::borrow::Cow;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

/// Declares a struct of borrowed, unparsed JSON fields: each an
/// `Option<&RawValue>`, `None` where the object lacks it. A line of any shape reads into
/// it without error as long as it is a JSON object; what each field holds is checked
/// where it is used. Field attributes (`#[serde(rename = "in")]`) pass through.
macro_rules! raw_fields {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($(#[$field_meta:meta])* $field:ident),* $(,)? }) => {
        #[derive(Debug, Default, serde::Deserialize)]
        $(#[$meta])*
        $vis struct $name<'a> {
            $($(#[$field_meta])* #[serde(borrow, default)] $field: Option<&'a serde_json::value::RawValue>,)*
        }
    };
}
pub(crate) use raw_fields;

raw_fields! {
    /// The fields of an event line that rendering looks at, unparsed.
    pub(crate) struct Peek { r#type, subtype, session_id, timestamp_ms, model_call_id, message, tool_call, result, is_error }
}

fn string<'a>(raw: Option<&'a RawValue>) -> Option<Cow<'a, str>> {
    raw.and_then(|r| serde_json::from_str::<Cow<'a, str>>(r.get()).ok())
}

impl<'a> Peek<'a> {
    /// Parses a line; `None` when it is not a JSON object.
    pub(crate) fn parse(line: &'a [u8]) -> Option<Self> {
        // A struct also deserializes from a JSON array: only objects are events.
        let first = line.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            return None;
        }
        serde_json::from_slice(line).ok()
    }

    /// Whether `type` is this string.
    pub(crate) fn is_type(&self, name: &str) -> bool {
        self.r#type
            .is_some_and(|raw| raw.get().strip_prefix('"').and_then(|s| s.strip_suffix('"')) == Some(name))
    }

    /// Whether `subtype` is this string.
    pub(crate) fn is_subtype(&self, name: &str) -> bool {
        self.subtype
            .is_some_and(|raw| raw.get().strip_prefix('"').and_then(|s| s.strip_suffix('"')) == Some(name))
    }

    pub(crate) fn session_id(&self) -> Option<Cow<'a, str>> {
        string(self.session_id)
    }

    /// Where the top-level `session_id` value (a JSON string) lies in `line`, the line
    /// this peek was parsed from.
    pub(crate) fn session_id_span(&self, line: &[u8]) -> Option<std::ops::Range<usize>> {
        let raw = self.session_id?.get();
        if !raw.starts_with('"') {
            return None;
        }
        let start = (raw.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
        let end = start + raw.len();
        (end <= line.len()).then_some(start..end)
    }

    pub(crate) fn timestamp_ms(&self) -> Option<u64> {
        self.timestamp_ms.and_then(|r| r.get().parse().ok())
    }

    /// Whether the line has the shape of a streamed delta (`timestamp_ms` and no
    /// `model_call_id`), which never repeats a whole segment.
    pub(crate) fn is_delta_shaped(&self) -> bool {
        self.timestamp_ms.is_some() && self.model_call_id.is_none()
    }

    /// `result.is_error`, `false` when absent.
    pub(crate) fn is_error(&self) -> bool {
        self.is_error.is_some_and(|r| r.get() == "true")
    }

    /// The `result` text of a `result` event.
    pub(crate) fn result_text(&self) -> Option<Cow<'a, str>> {
        string(self.result)
    }

    /// The concatenated `message.content[].text` of a message event.
    pub(crate) fn message_text(&self) -> Option<String> {
        #[derive(Deserialize)]
        struct Message<'b> {
            #[serde(borrow)]
            content: Vec<Block<'b>>,
        }
        #[derive(Deserialize)]
        struct Block<'b> {
            #[serde(borrow, default)]
            text: Option<Cow<'b, str>>,
        }
        let message: Message<'_> = serde_json::from_str(self.message?.get()).ok()?;
        Some(message.content.iter().filter_map(|b| b.text.as_deref()).collect())
    }

    /// The first key of `tool_call` that `is_tool_key` takes (print mode's tool keys:
    /// `readToolCall`, ..., `function`, or a new one).
    pub(crate) fn tool_key(&self, is_tool_key: impl Fn(&str) -> bool) -> Option<String> {
        struct FirstToolKey<P>(P);
        impl<'de, P: Fn(&str) -> bool> Visitor<'de> for FirstToolKey<P> {
            type Value = Option<String>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut found = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    map.next_value::<IgnoredAny>()?;
                    if found.is_none() && (self.0)(&key) {
                        found = Some(key.into_owned());
                    }
                }
                Ok(found)
            }
        }
        let raw = self.tool_call?;
        let mut de = serde_json::Deserializer::from_str(raw.get());
        de.deserialize_map(FirstToolKey(is_tool_key)).ok().flatten()
    }
}

/// The `type` of a line that names it first (`{"type":"NAME"`, no escapes), without
/// parsing the line; `None` for any other shape. A line with a second `type` key is
/// no event at all (the parser rejects duplicate keys), so the first one decides.
pub(crate) fn sniff_type(line: &[u8]) -> Option<&[u8]> {
    let rest = line.strip_prefix(b"{\"type\":\"")?;
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    (rest[end] == b'"').then(|| &rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{ASSISTANT, RESULT};

    #[test]
    fn peeks_fields_of_any_shape() {
        let line = format!(
            r#"{{"type":"{ASSISTANT}","message":{{"role":"{ASSISTANT}","content":[{{"type":"text","text":"a\"b"}},{{"type":"image"}},{{"type":"text","text":"c"}}]}},"session_id":"s1","timestamp_ms":17}}"#,
        );
        let peek = Peek::parse(line.as_bytes()).expect("object");
        assert!(peek.is_type(ASSISTANT));
        assert_eq!(peek.message_text().as_deref(), Some("a\"bc"));
        assert_eq!(peek.session_id().as_deref(), Some("s1"));
        assert_eq!(peek.timestamp_ms(), Some(17));

        // `result` is a field here, named as the event type is.
        let odd = format!(r#"{{"type":7,"{RESULT}":{{"x":1}},"message":"m"}}"#);
        let peek = Peek::parse(odd.as_bytes()).expect("object");
        assert!(!peek.is_type(RESULT));
        assert_eq!(peek.result_text(), None);
        assert_eq!(peek.tool_key(|_| true), None);
        assert_eq!(peek.message_text(), None);

        assert!(Peek::parse(b"[debug] hi").is_none());
        assert!(Peek::parse(b"[1,2]").is_none());
    }
}
