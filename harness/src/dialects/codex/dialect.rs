//! Codex's registration (`codex exec --json`, as the TypeScript SDK runs it): how the
//! machinery plays, judges, fuzzes and checks a run of it (see
//! [`crate::run::Dialect`]).

use super::check::CodexChecker;
use super::expect::{conclude, judged};
use super::faults::{parse, written, CodexFault, Out, FROM_ENV};
use super::recording::Recording;
use super::wire::{events, items, DIALECT};
use crate::check::Lint;
use crate::error::CassetteError;
use crate::faults::catalogue::presets;
use crate::format::OutputFormat;
use crate::run::dialect::{About, CaseResult};
use crate::run::lines;
use crate::run::{Case, CaseSource, Dialect, Matrix};

/// OpenAI's Codex: `codex exec --json`, as the TypeScript SDK runs it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Codex;

/// Codex's names and what it takes.
static ABOUT: About = About::typed::<CodexFault>(
    (
        DIALECT,
        "codex (OpenAI Codex, `codex exec --json` / `mock-agent codex`)",
        &["codex"],
    ),
    codex_faults,
)
.consumer("Codex program")
// `codex exec` reads its prompt and writes: one way.
.one_way()
.unknown(
    "an event or an item of an unknown type",
    &[super::wire::undocumented::EVENT, super::wire::undocumented::ITEM],
)
.owns(super::wire::events::OWN_OBJECTS);

/// The environment of a case of Codex's (`exec` or `app-server`) in `dir`: each case
/// keeps its threads in a `CODEX_HOME` of its own, the case's folder, which exists
/// (the real CLI refuses a `CODEX_HOME` that does not: `Error: CODEX_HOME points to
/// "..", but that path does not exist`, observed).
pub fn codex_home(dir: &std::path::Path) -> Vec<(String, String)> {
    vec![("CODEX_HOME".to_owned(), dir.display().to_string())]
}

/// What the mock writes for a case of `source` with `faults` (see
/// [`super::faults::written`] and [`Recording::written`]).
pub fn written_by(source: &CaseSource, faults: &[CodexFault]) -> Result<Vec<Out>, CassetteError> {
    Ok(match source {
        CaseSource::Cassette(path) => Recording::open(path)?.written(faults),
        #[cfg(feature = "generate")]
        CaseSource::Generated(seed) => written(&super::generate::from_seed(*seed), faults, *seed),
        _ => written(&super::default_session("/work"), faults, 0),
    })
}

impl Case {
    /// A case of Codex's dialect (`codex exec --json`): its expectation is what a
    /// careful SDK program concludes from what the mock writes for the source with the
    /// faults (see [`super::expect`]).
    pub fn codex(source: CaseSource, faults: &str, name: String) -> Result<Case, CassetteError> {
        let parsed = parse(faults, FROM_ENV).map_err(CassetteError::from)?;
        let concluded = conclude(&written_by(&source, &parsed)?);
        Ok(crate::run::lines::case(
            super::super::CODEX,
            name,
            (source, OutputFormat::StreamJson),
            (faults, &parsed),
            concluded,
        ))
    }
}

impl Matrix {
    /// Codex's matrix (`codex exec --json`) over the default session (and generated
    /// sessions), with [`codex_faults`].
    pub fn codex(cassettes: Vec<std::path::PathBuf>) -> Self {
        Matrix::of(super::super::CODEX, cassettes)
    }
}

/// Codex's standard faults: the ways the real CLI fails (every preset of its section),
/// where a run can stop (an exit, a signal, a cut line, a stall) at the places an SDK
/// program is in the middle of something (a command running, a message, the turn's
/// end), what the SDKs cannot read (a line that is not JSON, a huge one), and what they
/// must let pass (an unknown event or item type, a stderr line).
pub fn codex_faults() -> Vec<(String, String)> {
    let (completed, started) = (events::TURN_COMPLETED, events::ITEM_STARTED);
    let (command, message, change) = (items::COMMAND_EXECUTION, items::AGENT_MESSAGE, items::FILE_CHANGE);
    let placed: Vec<(&str, String)> = vec![
        ("exit-1@command", format!("exit:code=1,at={command}")),
        ("exit-1@turn-completed", format!("exit:code=1,at={completed}")),
        ("signal-term@command", format!("signal:name=TERM,at={command}")),
        (
            "signal-kill@agent-message",
            format!("signal:name=KILL,at={message}"),
        ),
        ("eof@turn-completed", format!("eof:at={completed},byte=40")),
        ("eof@item-started", format!("eof:at={started},byte=30")),
        ("stall@turn-completed", format!("stall:at={completed}")),
        ("stall-2s@file-change", format!("stall:ms=2000,at={change}")),
        ("unknown-event", "unknown:after=2".into()),
        ("unknown-item", format!("unknown:kind=item,at={completed}")),
    ];
    let stderr = lines::stderr_faults("WARN codex_core: slow network");
    lines::matrix(
        &presets(super::faults::CATALOGUE),
        [placed, lines::unreadable(message), stderr].concat(),
    )
}

impl Dialect for Codex {
    fn about(&self) -> &About {
        &ABOUT
    }

    fn case_env(&self, dir: &std::path::Path) -> Vec<(String, String)> {
        codex_home(dir)
    }

    /// `codex exec` stopped before the case: at a `-C` folder that is not there where
    /// the test runs the program, or at its Git-repository check (the program passes no
    /// `--skip-git-repo-check` and runs it where the user ran the test, which is in no
    /// Git repository). The case tested nothing of the program.
    fn refused(&self, case: &Case, outcome: &crate::run::Outcome) -> Option<crate::run::NotRun> {
        let _ = case;
        if let Some(workdir) = outcome
            .journal
            .iter()
            .find_map(super::exec::stopped_at_missing_workdir)
        {
            return Some(crate::run::NotRun {
                reason: format!(
                    "the agent stopped before the case began: the folder the program gives `codex exec -C` \
                     ({}) is not there where the test runs it",
                    workdir.display()
                ),
                hint: "run `mock-agent test` where that folder exists (the program runs where the test is \
                       run), or make the program give `-C` a folder that exists"
                    .to_owned(),
            });
        }
        let workdir = outcome
            .journal
            .iter()
            .find_map(super::exec::stopped_at_git_check)?;
        Some(crate::run::NotRun {
            reason: format!(
                "the agent stopped at codex exec's Git-repository check before the case began: the \
                 program passes no `--skip-git-repo-check`, and the folder it runs `codex exec` in ({}) \
                 is in no Git repository",
                workdir.display()
            ),
            hint: "run `mock-agent test` in the Git repository the program works in (the program runs \
                   where the test is run); or make the program pass \
                   `--skip-git-repo-check` (the TypeScript SDK: `skipGitRepoCheck: true`), as a program \
                   that runs Codex outside a repository must"
                .to_owned(),
        })
    }

    fn case(&self, source: CaseSource, format: OutputFormat, faults: &str, name: String) -> CaseResult {
        let _ = format;
        Case::codex(source, faults, name)
    }

    /// A run given `--output-schema` answers with a message that follows the schema,
    /// not the session's: a correct consumer reports that one (the journal says it).
    fn lived(&self, case: &Case, outcome: &crate::run::Outcome) -> Case {
        let mut lived = case.clone();
        let told = outcome
            .journal
            .iter()
            .rev()
            .find_map(|entry| entry.answer.as_ref());
        if let (Some(told), crate::expect::Expectation::Success { answer }) = (told, &mut lived.expect) {
            answer.clone_from(told);
            lived.segments = vec![told.clone()];
        }
        lived
    }

    fn judged(&self, case: &Case) -> bool {
        parse(&case.faults, FROM_ENV).map_or(true, |faults| judged(&faults))
    }

    fn writes_unknown(&self, case: &Case) -> bool {
        parse(&case.faults, FROM_ENV).is_ok_and(|faults| crate::faults::lines::writes_unknown(&faults))
    }

    /// Lines are told apart by `type`; the enums a consumer branches on (an item's
    /// type and status) are compared by value.
    fn drift_rules(&self) -> crate::drift::Rules {
        crate::drift::Rules {
            values: &["item.type", "item.status", "item.changes[].kind"],
            ..crate::drift::Rules::DEFAULT
        }
    }

    fn checker(&self) -> Box<dyn Lint> {
        Box::<crate::check::lines::Stdout<CodexChecker>>::default()
    }

    crate::run::dialect::generated_by!(Codex);
}
