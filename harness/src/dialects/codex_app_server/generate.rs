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
use crate::faults::strategy::Drawn;

/// Where a generated fault acts: after a number of lines, or at a method or item type.
fn place() -> impl Strategy<Value = String> {
    let at = [
        notifications::TURN_STARTED,
        notifications::TURN_COMPLETED,
        notifications::ITEM_STARTED,
        notifications::ITEM_COMPLETED,
        items::AGENT_MESSAGE,
        items::COMMAND_EXECUTION,
        items::FILE_CHANGE,
    ];
    prop_oneof![
        (0u64..30).prop_map(|n| format!("after={n}")),
        prop::sample::select(at.to_vec()).prop_map(|t| format!("at={t}")),
    ]
}

/// One fault of the `codex-app-server` section, drawn as its text in the grammar and
/// typed as the parser makes it.
pub fn fault() -> impl Strategy<Value = Drawn<CodexFault>> {
    prop_oneof![
        place().prop_map(|p| format!("exit:code=1,{p}")),
        place().prop_map(|p| format!("signal:name=KILL,{p}")),
        (place(), 0usize..80).prop_map(|(p, byte)| format!("eof:{p},byte={byte}")),
        place().prop_map(|p| format!("stall:ms=1500,{p}")),
        place().prop_map(|p| format!("unknown:{p}")),
        place().prop_map(|p| format!("unknown:kind=item,{p}")),
        place().prop_map(|p| format!("stderr:text=\"WARN codex_core: slow network\",{p}")),
        Just("approval".to_owned()),
        Just("unauthorized".to_owned()),
        Just("rate-limited".to_owned()),
        Just("turn-failed".to_owned()),
        Just("stream-cut".to_owned()),
    ]
    .prop_map(|spec| {
        // Every text above is in the grammar (`every_drawn_fault_parses` checks it).
        let faults = parse_app_server(&spec, APP_SERVER_FROM_ENV).unwrap_or_default();
        Drawn::many(spec, faults)
    })
}

/// A generated session with its faults: what `mock-agent fuzz --dialect
/// codex-app-server` plays, and shrinks.
#[derive(Debug, Clone, PartialEq)]
pub struct Faulted {
    /// The session.
    pub session: Session,
    /// Its faults, as drawn.
    pub faults: Vec<Drawn<CodexFault>>,
}

impl crate::run::fuzz::LiveCase for Faulted {
    fn write_cassette(&self, path: &std::path::Path) -> Result<std::path::PathBuf, WriteError> {
        write_cassette(&self.session, 0, path)
    }

    fn spec(&self) -> String {
        self.faults
            .iter()
            .map(|d| d.spec.as_str())
            .collect::<Vec<_>>()
            .join(";")
    }

    fn lines(&self) -> usize {
        super::expect::conversation(&self.session, &[], 0).0.len()
    }
}

/// Generated sessions with up to `most` faults.
pub fn faulted(most: usize) -> impl Strategy<Value = Faulted> {
    (session(), prop::collection::vec(fault(), 0..=most))
        .prop_map(|(session, faults)| Faulted { session, faults })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Lint;
    use crate::dialects::codex::faults::Out;
    use crate::dialects::codex_app_server::check::AppServerChecker;

    proptest! {
        #[test]
        fn every_drawn_fault_parses(drawn in fault()) {
            prop_assert_eq!(parse_app_server(&drawn.spec, APP_SERVER_FROM_ENV).expect("parses").len(), drawn.faults.len());
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
