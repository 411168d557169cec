//! What recording `cursor-agent` takes of it: the header of a run (its prompt,
//! output format, server mode), and an ACP client's credentials kept out.

use harness::cassette::{Header, Invocation};
use harness::dialects::cursor_acp::wire::methods;

use super::args;
use crate::record::Recorded;

/// Recording `cursor-agent`, in print mode or server mode.
#[derive(Debug, Clone, Copy, Default)]
pub struct Recording;

impl Recorded for Recording {
    fn converses(&self, program: &str, argv: &[String]) -> bool {
        let _ = program;
        is_acp(argv)
    }

    fn prompt_in_argv(&self, argv: &[String]) -> bool {
        args::parse(argv)
            .ok()
            .as_ref()
            .and_then(args::AgentArgs::prompt)
            .is_some()
    }

    fn invocation(
        &self,
        argv: &[String],
        stdin: Option<&[u8]>,
        redact: &dyn Fn(&[u8]) -> Vec<u8>,
    ) -> Invocation {
        let text = |s: &str| String::from_utf8_lossy(&redact(s.as_bytes())).into_owned();
        let parsed = args::parse(argv).ok();
        let mut extra = harness::cassette::Extra::new();
        if let Some(stdin) = stdin.filter(|s| !s.is_empty()) {
            extra.insert(
                "stdin".into(),
                serde_json::Value::String(String::from_utf8_lossy(&redact(stdin)).into_owned()),
            );
        }
        Invocation {
            argv: argv.iter().map(|a| text(a)).collect(),
            prompt: parsed
                .as_ref()
                .and_then(args::AgentArgs::prompt)
                .map(|p| text(&p)),
            output_format: parsed.as_ref().map(|a| a.output_format),
            stream_partial_output: parsed.as_ref().is_some_and(|a| a.stream_partial_output),
            acp: is_acp(argv),
            extra,
            ..Invocation::default()
        }
    }

    fn header(&self, invocation: Invocation) -> Header {
        if invocation.acp {
            Header::acp(invocation)
        } else {
            Header::new(invocation)
        }
    }

    fn credentials_out(&self, line: &[u8], marker: &str) -> Option<Vec<u8>> {
        credentials_out(line, marker)
    }
}

/// Whether these arguments run the CLI in server mode (`acp`).
pub fn is_acp(argv: &[String]) -> bool {
    args::parse(argv).is_ok_and(|a| a.command == Some(args::Command::Acp))
}

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
    if harness::dialects::cursor_acp::rpc::Message::parse(line).is_none() {
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
