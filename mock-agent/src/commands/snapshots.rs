//! `mock-agent snapshots review|accept|reject DIR`: the snapshots `mock-agent test`
//! left for review (`*.snap.new`), settled without Rust, cargo or cargo-insta. The
//! files are insta's, so `cargo insta review` settles them as well where there is a
//! Cargo project.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use clap::Subcommand;
use harness::exit_codes;
use harness::frames::Exit;
use harness::run::snapshot::{pending, Pending};

use super::Error;

/// What to do with the snapshots waiting for review.
#[derive(Subcommand)]
pub(super) enum SnapshotsCommand {
    /// Show each new or changed snapshot as a diff, and ask what to do with it: `a`
    /// accept, `r` reject, `s` skip (answers read a line each from stdin; its end skips
    /// the rest).
    Review {
        /// The snapshots' folder (`mock-agent test --snapshots DIR`).
        dir: PathBuf,
    },
    /// Accept every snapshot waiting for review (`CASE.snap.new` becomes `CASE.snap`).
    Accept {
        /// The snapshots' folder.
        dir: PathBuf,
    },
    /// Reject every snapshot waiting for review (the `.snap.new` files are removed).
    Reject {
        /// The snapshots' folder.
        dir: PathBuf,
    },
}

fn cannot_list(dir: &Path, source: std::io::Error) -> Error {
    Error::CannotList {
        path: dir.to_owned(),
        what: "snapshots",
        source,
    }
}

fn cannot_write(path: &Path, source: std::io::Error) -> Error {
    Error::CannotWrite {
        path: path.to_owned(),
        what: "snapshot",
        source,
    }
}

/// Runs `snapshots review|accept|reject`.
pub(super) fn snapshots(command: SnapshotsCommand) -> Result<Exit, Error> {
    let (dir, settle): (PathBuf, Option<bool>) = match command {
        SnapshotsCommand::Review { dir } => (dir, None),
        SnapshotsCommand::Accept { dir } => (dir, Some(true)),
        SnapshotsCommand::Reject { dir } => (dir, Some(false)),
    };
    let waiting = pending(&dir).map_err(|e| cannot_list(&dir, e))?;
    if waiting.is_empty() {
        println!("no snapshot to review in {}", dir.display());
        return Ok(Exit::Code(exit_codes::OK));
    }
    let (mut accepted, mut rejected, mut skipped) = (0, 0, 0);
    let stdin = std::io::stdin();
    let mut answers = stdin.lock();
    for snapshot in &waiting {
        let accept = match settle {
            Some(accept) => Some(accept),
            None => ask(snapshot, &mut answers).map_err(Error::Stdout)?,
        };
        match accept {
            Some(true) => {
                snapshot.accept().map_err(|e| cannot_write(&snapshot.path, e))?;
                accepted += 1;
            }
            Some(false) => {
                snapshot.reject().map_err(|e| cannot_write(&snapshot.path, e))?;
                rejected += 1;
            }
            None => skipped += 1,
        }
    }
    println!("{accepted} accepted, {rejected} rejected, {skipped} skipped");
    Ok(Exit::Code(exit_codes::OK))
}

/// Shows one snapshot's diff and reads what to do: accept (`Some(true)`), reject
/// (`Some(false)`) or skip (`None`, also at the end of the answers).
fn ask(snapshot: &Pending, answers: &mut impl BufRead) -> std::io::Result<Option<bool>> {
    let mut out = std::io::stdout().lock();
    let state = if snapshot.old.is_some() { "changed" } else { "new" };
    writeln!(out, "{} ({state}): {}", snapshot.case, snapshot.path.display())?;
    let old = snapshot.old.as_deref().unwrap_or("");
    let diff = similar::TextDiff::from_lines(old, &snapshot.new);
    for change in diff.iter_all_changes() {
        let sign = match change.tag() {
            similar::ChangeTag::Delete => "-",
            similar::ChangeTag::Insert => "+",
            similar::ChangeTag::Equal => " ",
        };
        let line = change.value();
        write!(out, "{sign}{line}")?;
        if !line.ends_with('\n') {
            writeln!(out)?;
        }
    }
    loop {
        write!(out, "accept (a), reject (r), skip (s)? ")?;
        out.flush()?;
        let mut answer = String::new();
        if answers.read_line(&mut answer)? == 0 {
            writeln!(out)?;
            return Ok(None);
        }
        match answer.trim() {
            "a" | "accept" => return Ok(Some(true)),
            "r" | "reject" => return Ok(Some(false)),
            "s" | "skip" => return Ok(None),
            _ => {}
        }
    }
}
