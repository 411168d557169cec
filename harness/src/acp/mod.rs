//! Server mode: an agent of the Agent Client Protocol (JSON-RPC 2.0 in both
//! directions, one message per line), as a conversation the mock plays. One
//! machinery for every agent that speaks ACP (`cursor-agent acp`, `gemini --acp`):
//! what one agent does that another does not is its [`profile::Profile`], kept in
//! that agent's folder under [`crate::dialects`] (the registry lists them).
//!
//! Print mode is a one-way plan; server mode answers what the client sends. A
//! [`Conversation`] turns each request of the client's into the [`Step`]s of the
//! agent's answer: messages to send (at their recorded times), stderr lines, places
//! where the agent waits for the client (an answer to its permission request, a
//! cancel), and the end of the process. Two conversations exist:
//!
//! - [`script::Script`]: a recording of a real `acp` process, replayed as a script:
//!   the agent's messages in order with their times, waiting where the recording
//!   waited for the client, with the client's live request ids put into the agent's
//!   responses; every other byte as recorded. A cassette is not held in memory: its
//!   messages are read from the file as they are played ([`Steps`]);
//! - [`tell::Teller`]: any other session (the built-in default, a print-mode
//!   cassette, a capture, a generated one), as a [`tell::Story`] in no dialect's
//!   words (the profile says how a source becomes one: [`Profile::story`]), told
//!   through ACP: what the agent says as
//!   [`AGENT_MESSAGE_CHUNK`](wire::updates::AGENT_MESSAGE_CHUNK)s, what it thinks as
//!   [`AGENT_THOUGHT_CHUNK`](wire::updates::AGENT_THOUGHT_CHUNK)s, tool calls as
//!   [`TOOL_CALL`](wire::updates::TOOL_CALL) and
//!   [`TOOL_CALL_UPDATE`](wire::updates::TOOL_CALL_UPDATE) in the profile's shape, a
//!   failed run as a JSON-RPC error.
//!
//! A [`generate`]d conversation (feature `generate`) is a recording nobody made: it
//! plays as a script too.
//!
//! The process (`mock-agent`'s server loop) performs the steps, reads the client,
//! handles cancels and faults, and journals everything.
//!
//! # The folder, lowest first
//!
//! - [`wire`]: every name ACP puts on the wire, said once, checked against the
//!   official schema crate; [`rpc`]: the JSON-RPC framing (a line's kind, its id,
//!   the error codes, the lines the mock writes);
//! - [`conversation`](mod@conversation): steps, waits, replies, the [`Conversation`] trait, a
//!   conversation's [`summary`];
//! - [`tell`] and [`faults`]: stories told through ACP, and what goes
//!   wrong; [`check`]: the protocol's rules (lint); [`expect`]: what a correct client
//!   concludes;
//! - [`script`]: how a recording becomes a script; `generate` (feature `generate`): the generator's
//!   strategies;
//! - [`profile`]: what differs between agents; [`dialect`]: the registration of a
//!   profile as a dialect;
//! - this module: the conversation a [`Source`] plays ([`conversation_of`]).

pub mod check;
pub mod conversation;
pub mod dialect;
pub mod expect;
pub mod faults;
#[cfg(feature = "generate")]
pub mod generate;
pub mod profile;
pub mod rpc;
pub mod script;
pub mod tell;
pub mod wire;

pub use conversation::{summary, Conversation, Reply, Step, Steps, Wait, CANCEL_WAIT};
pub use wire::methods;

use crate::error::CassetteError;
use crate::source::Source;
use profile::Profile;

/// The conversation a source plays in server mode, and whether it is a recording of
/// one (a cassette whose header says `"acp":true`, or a generated conversation). Any
/// other source is told through ACP ([`tell`]), as the story the profile makes of it:
/// the default session asks permission for its write, others for each shell command.
pub fn conversation_of(
    source: &Source,
    profile: &'static Profile,
) -> Result<(Box<dyn Conversation + Send>, bool), CassetteError> {
    // A generated source is the conversation generated from its seed, played as the
    // recording it is.
    #[cfg(feature = "generate")]
    if let Source::Generated { seed, .. } = source {
        let config = generate::ConversationConfig::of(profile);
        return Ok((Box::new(generate::from_seed(*seed, &config).script()?), true));
    }
    // A cassette file is indexed and read again as it plays; one read once (a pipe)
    // is held.
    if let Source::Cassette(path) = source {
        if let Some(script) = script::Script::open(path, profile)? {
            return Ok((Box::new(script), true));
        }
    }
    let recording = source.open("")?;
    if recording.header.as_ref().is_some_and(|h| h.invocation.acp) {
        return Ok((Box::new(script::Script::new(recording.frames, profile)?), true));
    }
    let ask = match source {
        Source::Default => tell::Ask::FirstChange,
        _ => tell::Ask::Shell,
    };
    let teller = tell::Teller::new((profile.story)(recording)?, ask, profile);
    let teller = match source {
        Source::Default => teller.checking_its_work(),
        _ => teller,
    };
    Ok((Box::new(teller), false))
}
