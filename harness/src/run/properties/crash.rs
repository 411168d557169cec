//! `no-crash`'s reading of how a program ended: the uncaught exception it died of (a
//! Rust panic, a Python traceback, a Node.js fatal exception), told from a traceback it
//! logged and went on from.

use crate::run::{Outcome, PythonEnd, Status};

/// How much of the end of stderr tells an uncaught exception (a traceback's last
/// frames and its exception line are there).
const CRASH_TAIL: usize = 64 << 10;

/// The uncaught exception the consumer died of, if it died of one: judged by how it
/// ended, not by words anywhere in its output. A traceback that a program logs and
/// handles (it goes on, or exits 0), CPython's "Exception ignored in ..." note at
/// exit, or an agent's answer that quotes a traceback is no crash; a run that exits
/// non-zero with an uncaught exception's report as the last thing on stderr is:
///
/// - a Rust panic: exit 101, and `panicked at` on stderr;
/// - Python: a non-zero exit, and stderr ends with a traceback (the last
///   `Traceback (most recent call last):`, then its frames, then the exception line)
///   that Python did not log and go on from (not after `Exception ignored in`, `Task
///   exception was never retrieved` or `future: <Task ...>`);
/// - Node.js: a non-zero exit, a stack (`    at ...`) and the `Node.js v...` line last.
///
/// Death by a signal is judged apart (see [`Property::NoCrash`]).
///
/// A Python program that took the runner's note ([`Outcome::python`]) said itself
/// whether an exception reached its top: that is believed, and its stderr is not read
/// for a traceback.
pub(super) fn uncaught(outcome: &Outcome) -> Option<String> {
    let Status::Exited(code) = outcome.status else {
        return None;
    };
    if code == 0 {
        return None;
    }
    let python_said = outcome.python.is_some();
    let tail = &outcome.stderr[outcome.stderr.len().saturating_sub(CRASH_TAIL)..];
    let tail = String::from_utf8_lossy(tail);
    let mut lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
    if code == 101 && tail.contains("panicked at") && !matches!(outcome.python, Some(PythonEnd::Uncaught(_)))
    {
        return Some("a Rust panic (exit 101)".to_owned());
    }
    // `ValueError: ...`, `json.decoder.JSONDecodeError: ...`: a class name (CapWords,
    // as every exception class is), dotted by its module.
    let exception_line = |l: &str| {
        let name = l.split(':').next().unwrap_or_default();
        let class = name.rsplit('.').next().unwrap_or_default();
        !l.starts_with(' ')
            && class.starts_with(|c: char| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    };
    let chained = |l: &str| l.starts_with("During handling") || l.starts_with("The above exception");
    // What Python logs and goes on from: an exception ignored in a finalizer
    // (`Exception ignored in: <function ... __del__>`), a task's exception nobody
    // awaited, logged when the task is collected (`Task exception was never retrieved`,
    // then `future: <Task ...>`). Printed at exit, after a program's own `sys.exit(1)`.
    // What Python logs at exit comes after the program's own end: an uncaught
    // exception's traceback, then `Exception ignored in: <function
    // BaseSubprocessTransport.__del__ ...>` and its `RuntimeError: Event loop is
    // closed`. Those notes at the end of stderr are taken off, so that what came
    // before them is judged as the end.
    while let Some(header) = lines.iter().rposition(|l| logged_note(l)) {
        let start = if header > 0 && logged_note(lines[header - 1]) {
            header - 1
        } else {
            header
        };
        if note_end(&lines, header, exception_line, chained) != lines.len() {
            break;
        }
        lines.truncate(start);
    }
    if let Some(PythonEnd::Uncaught(class)) = &outcome.python {
        // The exception's own line, the last of its class before the notes (its
        // message tells what went wrong; a note at exit may share the class).
        let told = lines.iter().rev().find(|l| {
            l.strip_prefix(class.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
        });
        return Some(format!(
            "an uncaught Python exception ({})",
            told.map_or(class.clone(), |line| clip(line))
        ));
    }
    let last = lines.last().copied().unwrap_or_default();
    // A traceback right after such a note is the note's own.
    let logged = |start: usize| lines[..start].iter().rev().take(2).any(|l| logged_note(l));
    // The report Python prints at exit: its header, the frames (indented), the
    // exception line, then the rest of the message, whatever it is (`RuntimeError:
    // line one`, then `line two`), or the notes added to it. An exception group's
    // report is drawn in `|` and `+` below its header, indented.
    let header = |l: &str| {
        l.starts_with("Traceback (most recent call last)")
            || l.starts_with("  + Exception Group Traceback (most recent call last)")
    };
    if let Some(start) = lines.iter().rposition(|l| header(l)).filter(|_| !python_said) {
        let group = lines[start].starts_with(' ');
        let told = |l: &str| exception_line(l.trim_start_matches([' ', '|', '+']).trim_start());
        // The frames, then the exception line (in a group: anywhere in its drawing).
        let body = &lines[start + 1..];
        let said = if group {
            body.iter().position(|l| l.starts_with("  |") && told(l))
        } else {
            body.iter()
                .position(|l| !l.starts_with(' ') && !chained(l))
                .filter(|&i| exception_line(body[i]))
        };
        if let Some(said) = said {
            // What follows the exception line is its message going on, unless the
            // program went on in its own voice: then the traceback was one it logged.
            if !logged(start) && !body[said + 1..].iter().any(|l| own_voice(l)) {
                let line = body[said].trim_start_matches([' ', '|', '+']).trim_start();
                return Some(format!("an uncaught Python exception ({})", clip(line)));
            }
        }
    }
    // Node.js ends a fatal exception's report with its version; before it, the stack
    // (`    at ...`), or, for a thrown value that is no Error, the caret under the
    // source line and the `--trace-uncaught` hint.
    if last.starts_with("Node.js v")
        && last[9..].starts_with(|c: char| c.is_ascii_digit())
        && lines
            .iter()
            .any(|l| l.starts_with("    at ") || l.trim() == "^" || l.contains("node --trace-uncaught"))
    {
        return Some("an uncaught Node.js exception".to_owned());
    }
    None
}

/// An exception's line as a verdict quotes it: its first 200 characters.
fn clip(line: &str) -> String {
    const MOST: usize = 200;
    match line.char_indices().nth(MOST) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line.to_owned(),
    }
}

/// A line a program writes in its own voice, after a traceback it logged and went on
/// from: a logging record (`ERROR bot: ...`, `WARNING:root:...`, a record that starts
/// with its date) or a report in the form `name: ...` with a lower-case name
/// (`bot: reported the failure`, `error: the agent failed`). An exception's message
/// going on over more lines is anything else (`line two`, `Error output: ...`).
fn own_voice(line: &str) -> bool {
    const LEVELS: [&str; 6] = ["DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL"];
    let word = line.split([' ', ':']).next().unwrap_or_default();
    let dated = line.len() >= 10
        && line.as_bytes()[..10].iter().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    let named = line.split_once(": ").is_some_and(|(name, _)| {
        name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_-.".contains(c))
    });
    LEVELS.contains(&word) || dated || named
}

/// The first line of a note Python logs and goes on from: an exception ignored in a
/// finalizer, a task's exception nobody awaited (its header and `future:` line).
fn logged_note(line: &str) -> bool {
    line.starts_with("Exception ignored in")
        || line.starts_with("Task exception was never retrieved")
        || line.starts_with("future: <Task")
}

/// Where the note whose header is `lines[header]` ends (the index after its last
/// line): its `future:` line, then a traceback (frames, chained ones, the exception
/// line) or an exception line alone.
fn note_end(
    lines: &[&str],
    header: usize,
    exception_line: impl Fn(&str) -> bool,
    chained: impl Fn(&str) -> bool,
) -> usize {
    let n = lines.len();
    let mut i = header + 1;
    while i < n && logged_note(lines[i]) {
        i += 1;
    }
    while i < n && lines[i].starts_with("Traceback (most recent call last)") {
        i += 1;
        while i < n && lines[i].starts_with(' ') {
            i += 1;
        }
        if i < n && exception_line(lines[i]) {
            i += 1;
        }
        if i < n && chained(lines[i]) {
            i += 1;
        } else {
            return i;
        }
    }
    if i < n && exception_line(lines[i]) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use crate::run::dialect::failed_outcome as outcome;
    use crate::run::{Outcome, PythonEnd, Status};

    /// The reading, said as a `&str` for the assertions.
    fn uncaught(outcome: &Outcome) -> Option<&'static str> {
        super::uncaught(outcome).map(|what| &*Box::leak(what.into_boxed_str()))
    }

    /// A Python program's own note is believed over its stderr, both ways.
    #[test]
    fn a_python_program_s_note_decides() {
        let mut handled = ended(1, TRACEBACK);
        handled.python = Some(PythonEnd::Returned);
        assert_eq!(uncaught(&handled), None);
        let mut died = ended(1, "Agent failed\n");
        died.python = Some(PythonEnd::Uncaught("KeyError".into()));
        assert_eq!(uncaught(&died), Some("an uncaught Python exception (KeyError)"));
        died.status = Status::Exited(0);
        assert_eq!(uncaught(&died), None);
        // A Node.js program run by a Python one is still read from its stderr.
        let node = "file:///app/bot.mjs:3\n    at main (file:///app/bot.mjs:3:9)\n\nNode.js v22.1.0\n";
        let mut both = ended(1, node);
        both.python = Some(PythonEnd::Returned);
        assert_eq!(uncaught(&both), Some("an uncaught Node.js exception"));
    }

    fn ended(code: i32, stderr: &str) -> Outcome {
        let mut outcome = outcome("", stderr);
        outcome.status = Status::Exited(code);
        outcome
    }

    /// What [`TRACEBACK`] is told as.
    const DECODE: Option<&str> =
        Some("an uncaught Python exception (json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0))");

    const TRACEBACK: &str = "Traceback (most recent call last):\n  File \"bot.py\", line 3, in <module>\n    main()\n  File \"bot.py\", line 2, in main\n    json.loads(line)\njson.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n";

    #[test]
    fn an_uncaught_exception_is_told_by_how_the_program_ended() {
        assert_eq!(uncaught(&ended(1, TRACEBACK)), DECODE);
        let chained = format!(
            "{TRACEBACK}\nDuring handling of the above exception, another exception occurred:\n\n{TRACEBACK}"
        );
        assert_eq!(uncaught(&ended(1, &chained)), DECODE);
        assert_eq!(
            uncaught(&ended(101, "thread 'main' panicked at src/main.rs:3:5:\nboom\n")),
            Some("a Rust panic (exit 101)")
        );
        let node = "/bot.js:4\n    throw new Error('bad line');\n    ^\n\nError: bad line\n    at Object.<anonymous> (/bot.js:4:11)\n    at Module._compile (node:internal/modules/cjs/loader:1364:14)\n\nNode.js v20.20.2\n";
        assert_eq!(uncaught(&ended(1, node)), Some("an uncaught Node.js exception"));
    }

    #[test]
    fn a_handled_or_quoted_traceback_is_no_crash() {
        // Logged and handled: the program goes on and says more, or exits 0.
        let logged =
            format!("ERROR bot: the agent failed\n{TRACEBACK}bot: reported the failure to the user\n");
        assert_eq!(uncaught(&ended(1, &logged)), None);
        assert_eq!(uncaught(&ended(0, TRACEBACK)), None);
        // CPython's note at exit about a finalizer, exit 0.
        let note = "Exception ignored in: <function Client.__del__ at 0x7f>\nTraceback (most recent call last):\n  File \"c.py\", line 9, in __del__\nRuntimeError: Event loop is closed\n";
        assert_eq!(uncaught(&ended(0, note)), None);
        // The same note, and asyncio's of a task nobody awaited, after the program's
        // own `sys.exit(1)` (an SDK's failed control answer when the agent ended).
        let exited = format!("error: the agent failed: exit 1\n{note}");
        assert_eq!(uncaught(&ended(1, &exited)), None);
        let task = "error: the agent failed\nTask exception was never retrieved\nfuture: <Task finished name='Task-5' coro=<Query._handle_control_request() done> exception=CLIConnectionError('ProcessTransport is not ready for writing')>\nTraceback (most recent call last):\n  File \"query.py\", line 9, in _handle_control_request\nclaude_agent_sdk._errors.CLIConnectionError: ProcessTransport is not ready for writing\n";
        assert_eq!(uncaught(&ended(1, task)), None);
        // But a crash after such a note is a crash.
        let crash_after = format!("{task}{TRACEBACK}");
        assert_eq!(uncaught(&ended(1, &crash_after)), DECODE);
        // A program's uncaught exception, then what CPython logs at exit about the
        // asyncio subprocess transports it left (a real transcript's shape, shortened):
        // the earlier traceback is the crash.
        let transport = "Exception ignored in: <function BaseSubprocessTransport.__del__ at 0x7f2c1a0e4a40>\nTraceback (most recent call last):\n  File \"/usr/lib/python3.11/asyncio/base_subprocess.py\", line 126, in __del__\n    self.close()\n  File \"/usr/lib/python3.11/asyncio/base_events.py\", line 519, in _check_closed\n    raise RuntimeError('Event loop is closed')\nRuntimeError: Event loop is closed\n";
        let pipe = "Exception ignored in: <function _SelectorTransport.__del__ at 0x7f2c1a0f1800>\nTraceback (most recent call last):\n  File \"/usr/lib/python3.11/asyncio/selector_events.py\", line 864, in __del__\nRuntimeError: Event loop is closed\n";
        let died = format!("{TRACEBACK}{transport}{pipe}");
        assert_eq!(uncaught(&ended(1, &died)), DECODE);
        // The runner's note names the class, which a note at exit shares: the
        // exception's own line is quoted, not the note's.
        let auth = "Traceback (most recent call last):\n  File \"quick.py\", line 9, in <module>\nRuntimeError: session/new: Authentication required code=-32000\n";
        let mut noted = ended(1, &format!("{auth}{transport}{pipe}"));
        noted.python = Some(PythonEnd::Uncaught("RuntimeError".into()));
        assert_eq!(
            uncaught(&noted),
            Some("an uncaught Python exception (RuntimeError: session/new: Authentication required code=-32000)")
        );
        // The same notes after a program that succeeded, or that reported the failure
        // and exited 1 itself, are no crash.
        assert_eq!(uncaught(&ended(0, &died)), None);
        let reported = format!("consumer: agent failed: turn.failed\n{transport}{pipe}");
        assert_eq!(uncaught(&ended(1, &reported)), None);
        let handled = format!("{TRACEBACK}consumer: agent failed\n{transport}");
        assert_eq!(uncaught(&ended(1, &handled)), None);
        // A note without a traceback (the object's repr, then the exception alone).
        let bare =
            format!("{TRACEBACK}Exception ignored in: <socket.socket fd=3>\nResourceWarning: unclosed\n");
        assert_eq!(uncaught(&ended(1, &bare)), DECODE);
        // The agent's answer quoting a traceback, on stdout.
        let mut quoted = ended(1, "");
        quoted.stdout = TRACEBACK.as_bytes().to_vec();
        assert_eq!(uncaught(&quoted), None);
        // Words alone, without the ending of a crash.
        assert_eq!(uncaught(&ended(1, "panicked at the disco\n")), None);
        assert_eq!(
            uncaught(&ended(2, "Uncaught error in the agent's output: skipped\n")),
            None
        );
    }

    #[test]
    fn an_exception_whose_message_spans_lines_is_a_crash() {
        let python = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nRuntimeError: line one\nline two\n";
        assert_eq!(
            uncaught(&ended(1, python)),
            Some("an uncaught Python exception (RuntimeError: line one)")
        );
        // An SDK's error that carries the agent's stderr, and notes added to it.
        let sdk = format!("{TRACEBACK}Error output: the agent said\n  more of it\n");
        assert_eq!(uncaught(&ended(1, &sdk)), DECODE);
        // An exception group (asyncio's TaskGroup, anyio's), as Python 3.11 draws it.
        let group = "  + Exception Group Traceback (most recent call last):\n  |   File \"<string>\", line 6, in <module>\n  |     return runner.run(main)\n  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n  +-+---------------- 1 ----------------\n    | Traceback (most recent call last):\n    |   File \"<string>\", line 3, in f\n    | ValueError: x\ny\n    +------------------------------------\n";
        assert_eq!(
            uncaught(&ended(1, group)),
            Some("an uncaught Python exception (ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception))")
        );
        assert_eq!(uncaught(&ended(0, group)), None);
        // Node.js: an Error whose message spans lines, a thrown string (no stack).
        let node = "[eval]:1\nthrow new Error(\"line one\\nline two\")\n^\n\nError: line one\nline two\n    at [eval]:1:7\n\nNode.js v20.20.2\n";
        assert_eq!(uncaught(&ended(1, node)), Some("an uncaught Node.js exception"));
        let thrown = "[eval]:1\nthrow \"a\\nb\"\n^\na\nb\n(Use `node --trace-uncaught ...` to show where the exception was thrown)\n\nNode.js v20.20.2\n";
        assert_eq!(uncaught(&ended(1, thrown)), Some("an uncaught Node.js exception"));
        // The program went on in its own voice after the traceback it logged.
        for own in [
            "bot: gave up\n",
            "ERROR root: gave up\n",
            "WARNING:root:gave up\n",
            "2026-11-27 22:00:01,003 bot gave up\n",
        ] {
            let went_on = format!("{python}{own}");
            assert_eq!(uncaught(&ended(1, &went_on)), None, "{own}");
        }
        assert_eq!(uncaught(&ended(1, "Node.js v20 is required\n")), None);
    }
}
