//! JSON-RPC lines looked at without being parsed: what a server-mode player needs to
//! know of each recorded line to write it as it stands (whether it answers or asks the
//! client) costs a scan of its bytes, not a JSON value.

use memchr::memmem::{Finder, FinderRev};

/// The error codes JSON-RPC 2.0 defines (each protocol on it adds its own).
pub mod codes {
    /// The line is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Bad parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The server failed.
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// Looks at lines for the top-level members of JSON-RPC ([`has_top_level_key`]),
/// first at a glance: an object whose bytes hold neither the key in quotes nor a
/// `\u` escape (the only one that spells a letter) has no such member anywhere. Its
/// searchers are made once: keep one for many lines.
#[derive(Debug, Clone)]
pub struct Glance {
    id: Finder<'static>,
    method: Finder<'static>,
    escape: Finder<'static>,
    /// The last `"id"` of a line ([`Glance::has_id_to_last`]).
    last_id: FinderRev<'static>,
}

impl Default for Glance {
    fn default() -> Self {
        Glance {
            id: Finder::new(br#""id""#),
            method: Finder::new(br#""method""#),
            escape: Finder::new(br"\u"),
            last_id: FinderRev::new(br#""id""#),
        }
    }
}

impl Glance {
    /// [`has_top_level_key`] of `id`: whether a message answers or asks (a request or
    /// a response), not a notification.
    pub fn has_id(&self, line: &[u8]) -> Option<bool> {
        self.told(line, b"id", &self.id)
    }

    /// [`has_top_level_key`] of `method`: whether a message is a request or a
    /// notification, not a response.
    pub fn has_method(&self, line: &[u8]) -> Option<bool> {
        self.told(line, b"method", &self.method)
    }

    /// [`Glance::has_id`] with a shorter scan: a line with no `\u` escape spells a
    /// top-level `id` member `"id"`, so the scan ends past the line's last `"id"` (a
    /// notification's nested ids are its item's, near the start of a long line).
    /// The same answer for a line that parses; for one that does not, `Some(false)`
    /// may come where the whole scan says `None` (such a line has no member).
    pub fn has_id_to_last(&self, line: &[u8]) -> Option<bool> {
        if line.first() != Some(&b'{') || self.escape.find(line).is_some() {
            return self.has_id(line);
        }
        let Some(last) = self.last_id.rfind(line) else {
            return Some(false);
        };
        // The last `"` of `"id"` is no escaped one (a `d` comes before it): the
        // bytes up to it end inside a string only when it opens one.
        has_top_level_key(&line[..last + 4], b"id").or_else(|| has_top_level_key(line, b"id"))
    }

    fn told(&self, line: &[u8], key: &[u8], quoted: &Finder<'_>) -> Option<bool> {
        if line.first() == Some(&b'{') && quoted.find(line).is_none() && self.escape.find(line).is_none() {
            return Some(false);
        }
        has_top_level_key(line, key)
    }
}

/// Whether the JSON object on `line` has the member `key` at its top level (not one of
/// a nested object), told from its bytes: strings are skipped, nesting counted, and
/// nothing is built. `None` when the bytes cannot tell: the line is no object, it ends
/// inside a string, or a top-level key is spelt with an escape (`"\u0069d"`); parse
/// the line to know. `Some(false)` is sure for a line that parses: a JSON parser finds
/// no such member either (a line that does not parse has none).
pub fn has_top_level_key(line: &[u8], key: &[u8]) -> Option<bool> {
    top_level_key_count(line, key, 1).map(|n| n > 0)
}

/// How many members `key` the JSON object on `line` has at its top level, counted up
/// to `most` (the scan ends there): [`has_top_level_key`]'s scan, and its `None`. A
/// parser keeps the last of members of one name; more than one is no line of a
/// JSON-RPC writer's.
pub fn top_level_key_count(line: &[u8], key: &[u8], most: usize) -> Option<usize> {
    let start = line.iter().position(|b| !b.is_ascii_whitespace())?;
    if line[start] != b'{' {
        return None;
    }
    let (mut depth, mut at, mut expect_key, mut count) = (0usize, start, false, 0);
    while at < line.len() {
        match line[at] {
            b'"' => {
                let from = at + 1;
                let (mut to, mut escaped) = (from, false);
                let end = loop {
                    let next = to + memchr::memchr2(b'"', b'\\', line.get(to..)?)?;
                    if line[next] == b'"' {
                        break next;
                    }
                    escaped = true;
                    to = next + 2;
                };
                if depth == 1 && expect_key {
                    if escaped {
                        return None;
                    }
                    if &line[from..end] == key {
                        count += 1;
                        if count >= most {
                            return Some(count);
                        }
                    }
                }
                expect_key = false;
                at = end + 1;
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                expect_key = depth == 1 && line[at] == b'{';
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                expect_key = false;
            }
            b',' => expect_key = depth == 1,
            _ => {}
        }
        at += 1;
    }
    Some(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a parser says of the line, where it parses.
    fn parsed(line: &str, key: &str) -> Option<bool> {
        serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.as_object().map(|o| o.contains_key(key)))
    }

    #[test]
    fn a_method_is_told_at_a_glance_and_by_a_scan() {
        let response = br#"{"jsonrpc":"2.0","id":3,"r":{"method":"nested"}}"#;
        assert_eq!(
            Glance::default().has_method(br#"{"jsonrpc":"2.0","id":3,"r":{}}"#),
            Some(false)
        );
        assert_eq!(Glance::default().has_method(response), Some(false));
        assert_eq!(
            Glance::default().has_method(br#"{"jsonrpc":"2.0","method":"m"}"#),
            Some(true)
        );
        assert_eq!(
            Glance::default().has_method(br#"{"jsonrpc":"2.0","\u006dethod":"m"}"#),
            None
        );
        assert_eq!(Glance::default().has_method(b"not json"), None);
        let escaped = br#"{"jsonrpc":"2.0","method":"m","params":{"title":"a \"quoted\" \r"}}"#;
        assert_eq!(Glance::default().has_id(escaped), Some(false));
        assert_eq!(Glance::default().has_id(br#"{"m":"\u0041","\u0069d":1}"#), None);
    }

    #[test]
    fn a_top_level_member_is_told_from_a_nested_one() {
        let cases = [
            (
                r#"{"method":"x/started","params":{"item":{"id":"rs_2"}},"emittedAtMs":1}"#,
                Some(false),
            ),
            (r#"{"id":1,"r":{}}"#, Some(true)),
            (
                r#"{"method":"x/requestApproval","params":{"a":[{"id":3}]},"id":0}"#,
                Some(true),
            ),
            (
                r#"{"method":"m","params":{"text":"\"id\":1, {\"id\"","list":["id",{"id":2}]}}"#,
                Some(false),
            ),
            (r#" { "id" : 5 }"#, Some(true)),
            (r#"{"a":"id","b":{"c":"}"},"d":["]"]}"#, Some(false)),
            (r#"{"\u0069d":1}"#, None),
            (r#"{"method":"m","params":"\\"}"#, Some(false)),
            (r#"{"idx":1,"i":2}"#, Some(false)),
            (r#"[{"id":1}]"#, None),
            (r#"{"method":"unterminated"#, None),
            (r#"{"jsonrpc":"2.0","id":3,"r":{"s":"e"}}"#, Some(true)),
        ];
        for (line, told) in cases {
            assert_eq!(has_top_level_key(line.as_bytes(), b"id"), told, "{line}");
            if let Some(told) = told {
                assert_eq!(Glance::default().has_id(line.as_bytes()), Some(told), "{line}");
                assert_eq!(parsed(line, "id"), Some(told), "the parser disagrees: {line}");
            }
        }
    }

    #[test]
    fn top_level_members_are_counted() {
        let cases = [
            (r#"{"id":1,"r":{"id":2}}"#, Some(1)),
            (r#"{"id":1,"r":{},"id":2}"#, Some(2)),
            (r#"{"r":{"id":2},"x":["id"]}"#, Some(0)),
            (r#"{"id":1,"\u0069d":2}"#, None),
        ];
        for (line, count) in cases {
            assert_eq!(top_level_key_count(line.as_bytes(), b"id", 5), count, "{line}");
        }
        assert_eq!(
            top_level_key_count(br#"{"id":1,"id":2,"id":3}"#, b"id", 2),
            Some(2)
        );
    }

    #[test]
    fn a_scan_to_the_last_id_tells_what_the_whole_scan_tells() {
        let glance = Glance::default();
        let lines = [
            r#"{"method":"x/started","params":{"item":{"type":"agentMessage","id":"msg_1","text":"long"},"threadId":"t"},"emittedAtMs":1}"#,
            r#"{"method":"m","params":{"item":{"id":"i"}},"id":4}"#,
            r#"{"method":"m","params":{"item":{"id":"i"}},"x":"id","id":4}"#,
            r#"{"id":0,"r":{"thread":{"id":"t"}}}"#,
            r#"{"method":"m","params":{"s":"\"id\"","t":"a \"id"},"emittedAtMs":1}"#,
            r#"{"method":"m","params":{"s":"\"id","id":1},"e":2}"#,
            r#"{"a":["id",{"id":1}],"b":{"c":"id"}}"#,
            r#"{"a":"x","id":{"id":{"id":1}}}"#,
            r#"{"method":"m","params":{"k":"v"},"emittedAtMs":1}"#,
            r#"{"\u0069d":1,"p":{"id":2}}"#,
            r#"{"p":{"id":2},"q":"\u0041"}"#,
            r#" {"id":1}"#,
        ];
        for line in lines {
            // Each line, and each of its cuts: a line that does not parse too.
            for end in 0..=line.len() {
                let cut = &line.as_bytes()[..end];
                let (whole, to_last) = (glance.has_id(cut), glance.has_id_to_last(cut));
                let parsed = std::str::from_utf8(cut).ok().and_then(|cut| parsed(cut, "id"));
                if let Some(parsed) = parsed {
                    // Both `None` for an escaped key; else both what the parser says.
                    assert_eq!(to_last, whole, "{cut:?}");
                    assert!(whole.is_none_or(|whole| whole == parsed), "{cut:?}");
                } else if whole.is_some() {
                    // A line that does not parse: either says it has no member, or both agree.
                    assert!(
                        to_last == whole || to_last == Some(false),
                        "{cut:?}: {to_last:?} {whole:?}"
                    );
                }
            }
        }
    }
}
