//! Session ids in a recording replayed to a live client: the recorded ids become the
//! live ones, as request ids do.
//!
//! - A request that names a session (`session/prompt`, `session/load`, ...) is played
//!   from the recorded exchange; the agent's messages of that exchange name the live
//!   session instead of the recorded one, so that a client that routes updates by
//!   `sessionId` gets them (the divergence is still journaled).
//! - A `session/new` the recording lacks is answered by the mock with a session of its
//!   own: its id is drawn from the seed (`MOCK_AGENT_SEED`), not at random, so that a
//!   rerun names the same session, and so do the divergences that name it.

use std::collections::HashMap;

/// The member that names a session, as agents write it.
const SESSION_ID: &[u8] = br#""sessionId":""#;

/// How the session ids of the messages of one reply are named.
#[derive(Debug, Default)]
pub(super) enum Naming {
    /// As recorded.
    #[default]
    Recorded,
    /// The recorded session (the one the recorded request named) is this live one.
    Live {
        /// The recorded id.
        recorded: String,
        /// The live id.
        live: String,
    },
    /// The mock's own new session: its id drawn from the seed.
    Mint,
}

/// The sessions of a replayed recording.
#[derive(Debug)]
pub(super) struct Sessions {
    seed: u64,
    /// Sessions the mock made, so far.
    minted: u64,
    /// How the reply playing now names its sessions.
    naming: Naming,
    /// Ids replaced in the reply playing now, and by what.
    replaced: HashMap<String, String>,
}

impl Sessions {
    pub(super) fn new(seed: u64) -> Self {
        Sessions {
            seed,
            minted: 0,
            naming: Naming::Recorded,
            replaced: HashMap::new(),
        }
    }

    /// How a reply of the recording names its sessions: the live one (`live`, the one
    /// the request names) for the recorded one when the recorded request named another
    /// (`recorded`, [`Reply::recorded_session`](harness::acp::conversation::Reply)),
    /// the mock's own when it answers a `session/new` the recording lacks (`minted`).
    pub(super) fn naming(recorded: Option<String>, live: Option<String>, minted: bool) -> Naming {
        if minted {
            return Naming::Mint;
        }
        match (recorded, live) {
            (Some(recorded), Some(live)) => Naming::Live { recorded, live },
            _ => Naming::Recorded,
        }
    }

    /// A reply starts, naming its sessions so.
    pub(super) fn reply(&mut self, naming: Naming) {
        self.naming = naming;
        self.replaced.clear();
    }

    /// Whether the reply playing now names its sessions as recorded: its messages are
    /// sent as they stand.
    pub(super) fn as_recorded(&self) -> bool {
        matches!(self.naming, Naming::Recorded)
    }

    /// `line`, an agent message of the reply playing now, with its session named as
    /// the reply names it.
    pub(super) fn name(&mut self, line: Vec<u8>) -> Vec<u8> {
        if matches!(self.naming, Naming::Recorded) {
            return line;
        }
        let Some(start) = memchr::memmem::find(&line, SESSION_ID).map(|i| i + SESSION_ID.len()) else {
            return line;
        };
        let Some(len) = memchr::memchr(b'"', &line[start..]) else {
            return line;
        };
        let Ok(named) = std::str::from_utf8(&line[start..start + len]) else {
            return line;
        };
        let live = match &self.naming {
            Naming::Recorded => return line,
            Naming::Live { recorded, live } if recorded == named => live.clone(),
            Naming::Live { .. } => return line,
            Naming::Mint => match self.replaced.get(named) {
                Some(live) => live.clone(),
                None => {
                    let live = self.mint();
                    self.replaced.insert(named.to_owned(), live.clone());
                    live
                }
            },
        };
        [&line[..start], live.as_bytes(), &line[start + len..]].concat()
    }

    /// The id of the mock's next own session: a UUID v4 drawn from the seed.
    fn mint(&mut self) -> String {
        self.minted += 1;
        let mut rng = fastrand::Rng::with_seed(self.seed ^ self.minted.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut bytes = [0u8; 16];
        rng.fill(&mut bytes);
        uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use harness::acp::{methods, rpc};

    use super::*;

    fn update(session: &str) -> Vec<u8> {
        rpc::notification(
            methods::SESSION_UPDATE,
            &json!({"sessionId": session, "update": {}}),
        )
    }

    #[test]
    fn a_reply_names_the_live_session_and_the_mock_s_own_are_drawn_from_the_seed() {
        let mut sessions = Sessions::new(7);
        let naming = Sessions::naming(Some("rec".to_owned()), Some("live".to_owned()), false);
        sessions.reply(naming);
        assert_eq!(sessions.name(update("rec")), update("live"));
        assert_eq!(
            sessions.name(update("elsewhere")),
            update("elsewhere"),
            "only the recorded one"
        );
        assert!(matches!(Sessions::naming(None, None, false), Naming::Recorded));
        assert!(matches!(Sessions::naming(None, None, true), Naming::Mint));
        sessions.reply(Naming::Mint);
        let first = sessions.name(rpc::response("1", &json!({"sessionId": "random-1"})));
        let again = sessions.name(update("random-1"));
        let mut rerun = Sessions::new(7);
        rerun.reply(Naming::Mint);
        let same = rerun.name(rpc::response("1", &json!({"sessionId": "random-2"})));
        assert_eq!(first, same, "the same seed names the same session");
        let first = String::from_utf8(first).expect("UTF-8");
        let at = first.find("sessionId").expect("named") + r#"sessionId":""#.len();
        let minted = &first[at..at + 36];
        assert!(uuid::Uuid::parse_str(minted).is_ok(), "{minted}");
        assert_eq!(again, update(minted));
        sessions.reply(Naming::Recorded);
        assert_eq!(sessions.name(update("rec")), update("rec"));
    }
}
