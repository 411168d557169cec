//! Generated conversations of `codex app-server` (proptest): Codex's generated
//! sessions (the same strategy as `codex exec`'s) told to a careful client, with
//! faults of the catalogue's `codex-app-server` section placed at the server's lines.

use proptest::prelude::*;

use super::recording::write_cassette;
use crate::dialects::codex::faults::{parse_app_server, CodexFault, APP_SERVER_FROM_ENV};
use crate::dialects::codex::generate::session;
use crate::dialects::codex::session::Session;
use crate::dialects::codex::wire::rpc::{items, notifications};
use crate::error::WriteError;
use crate::faults::strategy::{self, Drawn};
use crate::run::fuzz::Plays;

/// Where a generated fault acts: after a number of lines, or at a method or item type.
fn place() -> impl Strategy<Value = String> + Clone {
    strategy::line_place(
        30,
        &[
            notifications::TURN_STARTED,
            notifications::TURN_COMPLETED,
            notifications::ITEM_STARTED,
            notifications::ITEM_COMPLETED,
            items::AGENT_MESSAGE,
            items::COMMAND_EXECUTION,
            items::FILE_CHANGE,
        ],
    )
}

/// One fault of the `codex-app-server` section, drawn as its text in the grammar and
/// typed as the parser makes it.
pub fn fault() -> impl Strategy<Value = Drawn<CodexFault>> {
    let own = [
        "unknown:kind=item,{place}",
        "stderr:text=\"WARN codex_core: slow network\",{place}",
    ];
    let presets = super::dialect::PRESETS;
    strategy::line_faults(place(), &own, presets, |spec| {
        parse_app_server(spec, APP_SERVER_FROM_ENV)
    })
}

/// The dialect a [`Faulted`] is played as: `codex app-server` (Codex's sessions and
/// faults, told to a client).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppServer;

/// A generated session with its faults: what `mock-agent fuzz --dialect
/// codex-app-server` plays, and shrinks.
pub type Faulted = strategy::Faulted<Session, CodexFault, AppServer>;

impl Plays<Session> for AppServer {
    /// The session's first turn as a cassette of `codex app-server`.
    fn write_cassette(session: &Session, path: &std::path::Path) -> Result<std::path::PathBuf, WriteError> {
        write_cassette(session, 0, path)
    }

    /// How many lines the server writes in the conversation of the session's first turn.
    fn lines(session: &Session) -> usize {
        let (outs, _) = super::expect::conversation(session, &[], 0);
        outs.len()
    }
}

/// Generated sessions with up to `most` faults.
pub fn faulted(most: usize) -> impl Strategy<Value = Faulted> {
    strategy::faulted(session(), fault(), most)
}

#[cfg(test)]
mod tests {
    use super::super::check::AppServerChecker;
    use super::*;
    use crate::check::Lint;
    use crate::dialects::codex::faults::Out;

    proptest! {
        #[test]
        fn every_drawn_fault_parses(drawn in fault()) {
            strategy::drawn_parses(&drawn, |spec| parse_app_server(spec, APP_SERVER_FROM_ENV))?;
        }

        #[test]
        fn every_generated_conversation_is_lint_clean(session in session()) {
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
