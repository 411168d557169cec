//! Generated conversations of `codex app-server` (proptest): Codex's generated
//! sessions (the same strategy as `codex exec`'s) told to a careful client, with
//! faults of the catalogue's `codex-app-server` section placed at the server's lines.

use proptest::prelude::*;

use super::recording::write_cassette;
use crate::dialects::codex::dialect::Codex;
use crate::dialects::codex::faults::{parse_app_server, CodexFault, APP_SERVER_FROM_ENV};
use crate::dialects::codex::session::Session;
use crate::dialects::codex::wire::rpc::{items, notifications};
use crate::run::generator::{Draws, Generator, WriteCassette};
use crate::run::Generated;

/// The dialect a generated case is played as: `codex app-server` (Codex's sessions and
/// faults, told to a client).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppServer;

impl Generator for AppServer {
    type Session = Session;
    type Fault = CodexFault;
    /// Codex's sessions: one seed is one session in both of its dialects.
    const SALT: &'static [u8] = b"codex";
    const PLAYED: (&'static str, &'static str, &'static str) = ("messages", "serve", "codex app-server");
    const DEFAULT_SESSION: fn() -> Session = || crate::dialects::codex::session::default_session("/work");
    const WRITE_CASSETTE: WriteCassette<Session> = write_cassette;
    const FAULTS: Draws<CodexFault> = Draws {
        after: 30,
        at: &[
            notifications::TURN_STARTED,
            notifications::TURN_COMPLETED,
            notifications::ITEM_STARTED,
            notifications::ITEM_COMPLETED,
            items::AGENT_MESSAGE,
            items::COMMAND_EXECUTION,
            items::FILE_CHANGE,
        ],
        own: &[
            "unknown:kind=item,{place}",
            "stderr:text=\"WARN codex_core: slow network\",{place}",
        ],
        presets: || super::dialect::PRESETS.map(String::from).to_vec(),
        parse: |spec| parse_app_server(spec, APP_SERVER_FROM_ENV),
    };

    /// Codex's sessions.
    fn sessions() -> impl Strategy<Value = Session> {
        Codex::sessions()
    }

    /// How many lines the server writes in the conversation of the session's first turn.
    fn lines(session: &Session, seed: u64) -> usize {
        let (outs, _) = super::expect::conversation(session, &[], seed);
        outs.len()
    }

    /// How many lines the conversation has, both ways.
    fn size(session: &Session, seed: u64) -> usize {
        let (outs, sent) = super::expect::conversation(session, &[], seed);
        outs.len() + sent.len()
    }

    /// The conversation a careful client has with the server, one line a line: `->`
    /// the client's, `<-` the server's.
    fn told(session: &Session, seed: u64) -> Generated {
        let (outs, sent) = super::expect::conversation(session, &[], seed);
        let mut told = String::new();
        let mut sent = sent.into_iter().peekable();
        for (n, out) in outs.iter().enumerate() {
            while let Some((_, line)) = sent.next_if(|(before, _)| *before <= n) {
                told.push_str(&format!("-> {}\n", String::from_utf8_lossy(&line)));
            }
            if let crate::dialects::codex::faults::Out::Line(line) = out {
                told.push_str(&format!("<- {}\n", String::from_utf8_lossy(line)));
            }
        }
        Generated::Told(told)
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::AppServerChecker;
    use super::*;
    use crate::check::Lint;
    use crate::dialects::codex::faults::Out;

    #[test]
    fn a_seed_is_one_session_that_reads_back_and_every_drawn_fault_parses() {
        let final_message = |session: &Session| session.turns[0].final_message().map(str::to_owned);
        crate::run::generator::assert_generator::<AppServer, _, _>(
            |spec| parse_app_server(spec, APP_SERVER_FROM_ENV),
            |path| {
                final_message(
                    &super::super::recording::open_session(path).expect("a cassette of `codex app-server`"),
                )
            },
            final_message,
        );
    }

    proptest! {
        #[test]
        fn every_generated_conversation_is_lint_clean(session in Codex::sessions()) {
            let (outs, sent) = super::super::expect::conversation(&session, &[], 1);
            let mut checker: Box<dyn Lint> = Box::<AppServerChecker>::default();
            let mut sent = sent.into_iter().peekable();
            let mut n = 0;
            for (at, out) in outs.into_iter().enumerate() {
                while let Some((_, line)) = sent.next_if(|(before, _)| *before <= at) {
                    n += 1;
                    checker.line(n, crate::frames::Stream::Stdin, &line);
                }
                if let Out::Line(line) = out {
                    n += 1;
                    checker.line(n, crate::frames::Stream::Stdout, &line);
                }
            }
            let report = checker.finish(None);
            prop_assert!(report.passes(), "{:?}", report);
        }
    }
}
