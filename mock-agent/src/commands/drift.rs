//! `mock-agent drift`: the stand-in checked against the real CLI.
//!
//! Each scenario of the dialect's drift table runs under each of its invocations
//! (a *case*, `SCENARIO/INVOCATION`): the real CLI through `mock-agent record` against
//! the scripted model API, the stand-in on its equivalent; [`harness::drift::compare`]
//! tells the differences. They are printed as one table (`CASE TYPE FIELD real
//! stand-in`), each marked with the allow-list entry that explains it or `NEW`; the
//! command exits 1 when one is `NEW`. `--update` re-records the curated cassette from
//! the real CLI and says which version it was recorded from.

use std::path::{Path, PathBuf};

use harness::drift::{compare, AllowList, Difference, Table};
use harness::exit_codes;
use harness::frames::Exit;
use harness::run::Dialect;

use crate::drift::{run_real, run_stand_in, version, Drift};

use super::Error;

/// The exit code when a difference is in no allow-list entry.
pub const DRIFTED: i32 = 1;

/// `mock-agent drift`'s arguments.
#[derive(Debug, clap::Args)]
pub struct DriftArgs {
    /// The dialect whose stand-in is checked (`claude`; `mock-agent dialects` lists them).
    #[arg(long, value_name = "NAME", value_parser = super::cases::parse_dialect)]
    dialect: &'static dyn Dialect,
    /// The real CLI's executable (scripts/real-clis.sh installs the pinned one).
    #[arg(long, value_name = "PATH")]
    real: PathBuf,
    /// Run only this scenario (repeatable); all of them by default.
    #[arg(long = "scenario", value_name = "NAME")]
    scenarios: Vec<String>,
    /// Re-record the dialect's curated cassette from the real CLI (its home redacted).
    #[arg(long)]
    update: bool,
    /// The allow-list (`CASE TYPE FIELD # why`, one a line) instead of the committed
    /// one (`tests/drift/DIALECT.allow`).
    #[arg(long, value_name = "FILE")]
    allow: Option<PathBuf>,
    /// Keep the real CLI's cassettes, one a case, in this folder.
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
}

/// Runs the drift check; see the module's documentation.
pub fn drift(args: &DriftArgs) -> Result<Exit, Error> {
    let (word, table) = crate::dialects::ALL
        .iter()
        .flat_map(|cli| cli.drift().iter().map(|drift| (cli.word(), *drift)))
        .find(|(_, drift)| drift.dialect() == args.dialect)
        .ok_or_else(|| {
            let known: Vec<&str> = crate::dialects::ALL
                .iter()
                .flat_map(|cli| cli.drift())
                .map(|drift| drift.dialect().name())
                .collect();
            Error::Usage(format!(
                "`{}` has no drift scenarios (its real CLI does not run offline here); drift knows: {}",
                args.dialect.name(),
                known.join(", ")
            ))
        })?;
    // Absolute: the runs are made in scratch folders.
    let real = std::fs::canonicalize(&args.real).map_err(|source| Error::CannotRead {
        path: args.real.clone(),
        what: "real CLI (give its executable; scripts/real-clis.sh installs the pinned one)",
        source,
    })?;
    let allow = allow_list(args, table)?;
    let scenarios: Vec<_> = table
        .scenarios()
        .iter()
        .filter(|s| args.scenarios.is_empty() || args.scenarios.iter().any(|n| n == s.name))
        .collect();
    if let Some(unknown) = args
        .scenarios
        .iter()
        .find(|n| !table.scenarios().iter().any(|s| s.name == n.as_str()))
    {
        let names: Vec<&str> = table.scenarios().iter().map(|s| s.name).collect();
        return Err(Error::Usage(format!(
            "`{unknown}` is not a scenario of {}; use one of {}",
            args.dialect.name(),
            names.join(", ")
        )));
    }
    let cli_version = version(&real)?;
    eprintln!(
        "drift: {} at {} ({cli_version}) against the stand-in, {} scenarios",
        args.dialect.title(),
        args.real.display(),
        scenarios.len()
    );
    let scratch = tempfile::tempdir().map_err(|source| Error::CannotWrite {
        path: std::env::temp_dir(),
        what: "scratch folder",
        source,
    })?;
    let folder = args.keep.as_deref().unwrap_or(scratch.path());
    std::fs::create_dir_all(folder).map_err(|source| Error::CannotWrite {
        path: folder.to_owned(),
        what: "folder of cassettes",
        source,
    })?;
    let more_faults = std::env::var("MOCK_AGENT_FAULTS").ok();
    let curated = table.curated();
    let rules = args.dialect.drift_rules();
    let mut differences: Vec<Difference> = Vec::new();
    let mut updated = None;
    for scenario in &scenarios {
        for invocation in table.invocations() {
            let case = format!("{}/{}", scenario.name, invocation.name);
            let is_curated =
                args.update && scenario.name == curated.scenario && invocation.name == curated.invocation;
            let cassette = if is_curated {
                std::path::absolute(curated.path).map_err(|source| Error::CannotWrite {
                    path: PathBuf::from(curated.path),
                    what: "curated cassette",
                    source,
                })?
            } else {
                folder.join(format!("{}-{}.cassette", scenario.name, invocation.name))
            };
            let real = run_real(table, &real, scenario, &invocation, &cassette, is_curated)?;
            let stand_in = run_stand_in(word, scenario, &invocation, more_faults.as_deref())?;
            let found = compare(&case, &real, &stand_in, &rules);
            eprintln!(
                "{case:<20} real: {} lines, {}; stand-in: {} lines, {}; {} differences",
                real.lines.len(),
                ending(&real),
                stand_in.lines.len(),
                ending(&stand_in),
                found.len()
            );
            if is_curated {
                updated = Some(cassette);
            }
            differences.extend(found);
        }
    }
    let rows: Vec<_> = differences
        .iter()
        .map(|d| (d.clone(), allow.allowing(d)))
        .collect();
    let new = rows.iter().filter(|(_, a)| a.is_none()).count();
    if !rows.is_empty() {
        crate::process::print(&Table { rows: &rows }.to_string()).map_err(Error::Stdout)?;
    }
    if args.scenarios.is_empty() {
        for entry in &allow.entries {
            if !differences.iter().any(|d| entry.covers(d)) {
                eprintln!(
                    "note: allow-list line {} allows nothing that differs now: {}",
                    entry.line,
                    entry.key.join(" ")
                );
            }
        }
    }
    if let Some(path) = updated {
        report_update(&path, &cli_version)?;
    } else if args.update {
        eprintln!(
            "note: the curated cassette ({}) comes from the case {}/{}, not run here",
            curated.path, curated.scenario, curated.invocation
        );
    }
    eprintln!(
        "{} differences: {} allowed, {new} not in the allow-list",
        rows.len(),
        rows.len() - new
    );
    if new > 0 {
        eprintln!(
            "help: fix the stand-in, or add each NEW key to the allow-list with why (`CASE TYPE FIELD # why`)"
        );
        return Ok(Exit::Code(DRIFTED));
    }
    Ok(Exit::Code(exit_codes::OK))
}

/// How a run ended, in a few words.
fn ending(run: &harness::drift::Run) -> String {
    match run.ending.exit {
        Some(Exit::Code(code)) => format!("exit {code}"),
        Some(Exit::Signal(signal)) => format!("signal {}", signal.name()),
        None => "timed out".to_owned(),
    }
}

/// The allow-list: `--allow FILE`, else the committed one (none there: an empty one).
fn allow_list(args: &DriftArgs, table: &dyn Drift) -> Result<AllowList, Error> {
    let (path, given) = match &args.allow {
        Some(path) => (path.clone(), true),
        None => (PathBuf::from(table.allow_list()), false),
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(AllowList::parse(&text, &path)?),
        Err(e) if !given && e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "note: no allow-list at {} (run from the project's root, or give --allow FILE): every difference counts",
                path.display()
            );
            Ok(AllowList::default())
        }
        Err(source) => Err(Error::CannotRead {
            path,
            what: "allow-list",
            source,
        }),
    }
}

/// Says which version the curated cassette was recorded from, and lints it.
fn report_update(path: &Path, cli_version: &str) -> Result<(), Error> {
    let report = harness::dialects::check_file(path)?;
    let findings = report.findings.len();
    eprintln!(
        "recorded {} from the real CLI {cli_version} (its header's cli_version); lint: {}",
        path.display(),
        if findings == 0 {
            "clean".to_owned()
        } else {
            format!("{findings} findings (mock-agent lint {})", path.display())
        }
    );
    Ok(())
}
