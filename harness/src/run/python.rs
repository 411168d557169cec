//! How a Python consumer ended, told by Python itself: the runner puts a
//! `sitecustomize` first on the consumer's `PYTHONPATH` that notes, for each Python
//! program of the case, its start and, at its exit, whether an exception reached the
//! top (`sys.last_type`, which Python sets when it reports an uncaught exception,
//! whatever `sys.excepthook` the program installed; a traceback the program printed
//! itself, or `sys.exit`, sets nothing). `no-crash` then needs no guess from stderr
//! for Python programs: a program that logs a traceback, says why in its own words
//! and exits 1 did not crash, and one that died of an exception with its own
//! `excepthook` did.
//!
//! The note changes nothing else of the program: it writes one line at its start and
//! maybe one at its exit to a file of the case, and then runs the `sitecustomize` it
//! shadows, if there is one. A program run with `-I`, `-E` or `-S` reads no
//! `PYTHONPATH` or no `sitecustomize`: then stderr is read as before.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The environment variable that names the file the notes go to.
pub(super) const ENDS: &str = "MOCK_AGENT_PYTHON_ENDS";

/// The folder of the case's directory that holds the `sitecustomize`.
pub(super) const FOLDER: &str = "python";

/// The note's file name.
const MODULE: &str = "sitecustomize.py";

/// The `sitecustomize` the runner installs (Python 3.8 and later).
const SITECUSTOMIZE: &str = r#"# Written by mock-agent's runner: notes how each Python program of a case ends
# (an exception that reached the top, or not), for the `no-crash` property.
# It changes nothing else, then runs the sitecustomize it shadows.


def _mock_agent_note():
    import os
    import sys

    path = os.environ.get("MOCK_AGENT_PYTHON_ENDS")
    if not path:
        return

    def write(line):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, (line + "\n").encode("utf-8", "replace"))
            finally:
                os.close(fd)
        except OSError:
            pass

    ancestors = []
    pid = os.getppid()
    for _ in range(64):
        if pid <= 1:
            break
        ancestors.append(str(pid))
        try:
            with open("/proc/%d/stat" % pid) as stat:
                text = stat.read()
            pid = int(text[text.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            break
    me = os.getpid()
    write("start %d %s" % (me, ",".join(ancestors)))

    def at_exit():
        if os.getpid() != me:
            return
        kind = getattr(sys, "last_type", None)
        if kind is not None:
            module = getattr(kind, "__module__", "")
            name = getattr(kind, "__qualname__", "exception")
            write("uncaught %d %s" % (me, name if module == "builtins" else module + "." + name))

    import atexit

    atexit.register(at_exit)


def _mock_agent_chain():
    import importlib.util
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    for folder in sys.path:
        if os.path.abspath(folder or ".") == here:
            continue
        shadowed = os.path.join(folder or ".", "sitecustomize.py")
        if os.path.isfile(shadowed):
            spec = importlib.util.spec_from_file_location("_mock_agent_shadowed_sitecustomize", shadowed)
            if spec is not None and spec.loader is not None:
                spec.loader.exec_module(importlib.util.module_from_spec(spec))
            return


try:
    _mock_agent_note()
except Exception:
    pass
_mock_agent_chain()
"#;

/// Writes the `sitecustomize` in `dir` and returns its folder, for `PYTHONPATH`.
pub(super) fn install(dir: &Path) -> std::io::Result<PathBuf> {
    let folder = dir.join(FOLDER);
    std::fs::create_dir(&folder)?;
    std::fs::write(folder.join(MODULE), SITECUSTOMIZE)?;
    Ok(folder)
}

/// Whether the folder [`install`] made in `dir` holds the note and nothing of a case
/// but Python's bytecode of it.
pub(super) fn untouched(dir: &Path) -> bool {
    let folder = dir.join(FOLDER);
    std::fs::read(folder.join(MODULE)).is_ok_and(|text| text == SITECUSTOMIZE.as_bytes())
        && std::fs::read_dir(&folder).is_ok_and(|entries| {
            entries.filter_map(Result::ok).all(|entry| {
                let name = entry.file_name();
                name == MODULE || name == "__pycache__"
            })
        })
}

/// Has the consumer's Python programs note how they end, in `workdir`: the note's
/// folder first on `PYTHONPATH`, before the path the consumer would have (its own
/// setting in `env`, else the harness's).
pub(super) fn take_note(cmd: &mut std::process::Command, env: &[(String, String)], workdir: &super::Workdir) {
    let theirs = env
        .iter()
        .rev()
        .find(|(name, _)| name == "PYTHONPATH")
        .map(|(_, value)| std::ffi::OsString::from(value))
        .or_else(|| std::env::var_os("PYTHONPATH"));
    cmd.env("PYTHONPATH", path_with(&workdir.python, theirs.as_deref()));
    cmd.env(ENDS, &workdir.python_ends);
}

/// `PYTHONPATH` with `folder` first, before the one the consumer would have.
pub(super) fn path_with(folder: &Path, theirs: Option<&std::ffi::OsStr>) -> std::ffi::OsString {
    let mut path = folder.as_os_str().to_owned();
    if let Some(theirs) = theirs.filter(|t| !t.is_empty()) {
        path.push(":");
        path.push(theirs);
    }
    path
}

/// How the consumer's outermost Python programs ended, as their notes say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PythonEnd {
    /// They ended without an exception reaching the top.
    Returned,
    /// An exception reached the top of one: its class (`ValueError`,
    /// `json.decoder.JSONDecodeError`).
    Uncaught(String),
}

/// Reads the notes: `None` when no Python program took the note (none ran, or ran
/// isolated). Only the outermost programs count (none of whose ancestors is a noted
/// program): a helper a program runs, and that dies of an exception the program
/// copes with, is not the program's crash.
pub(super) fn read(notes: &[u8]) -> Option<PythonEnd> {
    let text = String::from_utf8_lossy(notes);
    let died = outermost_ends(&text, "uncaught")?;
    Some(match died.first() {
        Some(class) => PythonEnd::Uncaught((*class).to_owned()),
        None => PythonEnd::Returned,
    })
}

/// What the outermost noted programs (none of whose ancestors is a noted program) said
/// of their end in lines `WORD PID WHAT`, sorted; `None` when no program took the note.
/// Each program notes its start as `start PID ANCESTORS` (its parent's pid, its
/// parent's, ..., comma-separated).
pub(super) fn outermost_ends<'a>(text: &'a str, word: &str) -> Option<Vec<&'a str>> {
    let mut starts: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut ends: HashMap<&str, &str> = HashMap::new();
    for line in text.lines() {
        let mut words = line.splitn(3, ' ');
        match (words.next(), words.next(), words.next()) {
            (Some("start"), Some(pid), ancestors) => {
                let ancestors = ancestors.unwrap_or_default();
                starts.insert(pid, ancestors.split(',').filter(|a| !a.is_empty()).collect());
            }
            (Some(said), Some(pid), Some(what)) if said == word => {
                ends.insert(pid, what);
            }
            _ => {}
        }
    }
    let outermost: Vec<&str> = starts
        .iter()
        .filter(|(_, ancestors)| !ancestors.iter().any(|a| starts.contains_key(a)))
        .map(|(pid, _)| *pid)
        .collect();
    if outermost.is_empty() {
        return None;
    }
    let mut said: Vec<&str> = outermost
        .iter()
        .filter_map(|pid| ends.get(pid).copied())
        .collect();
    said.sort_unstable();
    Some(said)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outermost_program_s_end_is_read_and_a_helper_s_is_not() {
        assert_eq!(read(b""), None);
        assert_eq!(read(b"start 10 9,1\n"), Some(PythonEnd::Returned));
        assert_eq!(
            read(b"start 10 9\nuncaught 10 ValueError\n"),
            Some(PythonEnd::Uncaught("ValueError".into()))
        );
        // A helper of 10 (through a shell, 11) died; 10 coped.
        assert_eq!(
            read(b"start 10 9\nstart 12 11,10,9\nuncaught 12 KeyError\n"),
            Some(PythonEnd::Returned)
        );
        // A torn last line is passed over.
        assert_eq!(read(b"start 10 9\nuncau"), Some(PythonEnd::Returned));
    }

    /// The note as Python takes it: a program that prints a traceback it caught, says
    /// why and exits 1 returned; one that dies of an exception with its own
    /// `excepthook`, in `asyncio.run`, did not; a helper it runs is not it.
    #[test]
    fn python_notes_how_its_programs_end() {
        if std::process::Command::new("python3")
            .arg("-c")
            .arg("")
            .status()
            .is_err()
        {
            eprintln!("no python3 here: the note's Python is not tried");
            return;
        }
        let dir = tempfile::tempdir().expect("a temporary folder");
        let folder = install(dir.path()).expect("installs the note");
        let run = |program: &str| {
            let notes = dir.path().join("notes");
            let _ = std::fs::remove_file(&notes);
            let status = std::process::Command::new("python3")
                .arg("-c")
                .arg(program)
                .env("PYTHONPATH", path_with(&folder, None))
                .env(ENDS, &notes)
                .stderr(std::process::Stdio::null())
                .status()
                .expect("runs python3");
            (status.code(), read(&std::fs::read(&notes).unwrap_or_default()))
        };
        let handled = "import sys, traceback\ntry:\n    1/0\nexcept Exception:\n    traceback.print_exc()\n    print('Agent failed', file=sys.stderr)\n    sys.exit(1)\n";
        assert_eq!(run(handled), (Some(1), Some(PythonEnd::Returned)));
        let hooked = "import asyncio, sys\nsys.excepthook = lambda *a: None\nasync def main():\n    raise KeyError('x')\nasyncio.run(main())\n";
        assert_eq!(
            run(hooked),
            (Some(1), Some(PythonEnd::Uncaught("KeyError".into())))
        );
        let decoded = "import json\njson.loads('{')\n";
        assert_eq!(
            run(decoded),
            (
                Some(1),
                Some(PythonEnd::Uncaught("json.decoder.JSONDecodeError".into()))
            )
        );
        let helper = "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'raise SystemError'])\nsys.exit(3)\n";
        assert_eq!(run(helper), (Some(3), Some(PythonEnd::Returned)));
        assert!(untouched(dir.path()), "Python left only bytecode beside the note");
    }

    /// Through the runner: a Python consumer that prints a traceback it caught, says
    /// why and exits 1 keeps `no-crash`; one that dies of an exception it printed
    /// nothing for (its own `excepthook`) breaks it, the class named.
    #[test]
    fn the_runner_s_python_consumers_are_judged_by_their_note() {
        use crate::run::{Case, CaseSource, Consumer, MockBinary, Property, Runner};
        if std::process::Command::new("python3")
            .arg("-c")
            .arg("")
            .status()
            .is_err()
        {
            eprintln!("no python3 here: the runner's note is not tried");
            return;
        }
        let case = Case::new(
            CaseSource::Default,
            crate::format::OutputFormat::StreamJson,
            "",
            "case".to_owned(),
        )
        .expect("a case");
        let judge = |program: &str| {
            // It ran the agent once, as the journal says.
            let entry = crate::run::tests::ENTRY;
            let consumer = Consumer::new(format!(
                "echo '{entry}' >> \"$MOCK_AGENT_JOURNAL\"; python3 -c \"{program}\""
            ));
            let mock = MockBinary::new("/bin/true");
            let result = Runner::new(&consumer, &mock)
                .run_all(std::slice::from_ref(&case), |_| {})
                .expect("runs");
            let result = result.into_iter().next().expect("a result");
            let verdict = result
                .verdicts
                .iter()
                .find(|v| v.name == Property::NoCrash.name())
                .cloned()
                .expect("no-crash judged");
            (result.outcome.python, verdict.held, verdict.detail)
        };
        let handled = "import sys, traceback\ntry:\n    1/0\nexcept Exception:\n    traceback.print_exc()\n    print('Agent failed', file=sys.stderr)\n    sys.exit(1)\n";
        let (python, held, detail) = judge(handled);
        assert_eq!(python, Some(PythonEnd::Returned));
        assert!(held, "{detail}");
        let died = "import sys\nsys.excepthook = lambda *a: None\nraise LookupError('no agent')\n";
        let (python, held, detail) = judge(died);
        assert_eq!(python, Some(PythonEnd::Uncaught("LookupError".into())));
        assert!(!held);
        assert!(
            detail.contains("uncaught Python exception (LookupError)"),
            "{detail}"
        );
    }
}
