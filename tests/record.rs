//! `mock-agent record`: a transparent proxy that writes what passed as a cassette,
//! secrets kept out. The real CLI is not on this machine: these tests record the mock
//! itself and small scripts.

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

use proptest::prelude::*;

use crate::roundtrip::cases;
use crate::support::{bin, mock};

#[test]
fn recording_the_mock_replays_what_it_printed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("mock.cassette");
    let live = mock()
        .args(["record", "--cli-version", "--out"])
        .arg(&cassette)
        .arg("--")
        .arg(bin())
        .args([
            "-p",
            "--output-format",
            "stream-json",
            "Read README.md and create a summary",
        ])
        .output()
        .expect("runs");
    assert!(live.status.success());
    let seed =
        std::fs::read_to_string(crate::support::root().join("cassettes/seed-example.ndjson")).expect("seed");
    assert_eq!(
        String::from_utf8_lossy(&live.stdout),
        seed,
        "the caller gets the output unchanged"
    );
    let replayed = mock().arg("replay").arg(&cassette).output().expect("runs");
    assert_eq!(replayed.stdout, live.stdout);
    let header = std::fs::read_to_string(&cassette).expect("cassette");
    let header = header.lines().next().unwrap_or_default();
    assert!(
        header.contains(r#""prompt":"Read README.md and create a summary""#),
        "{header}"
    );
    assert!(
        header.contains(r#""cli_version":"2026.10.01-e373342""#),
        "{header}"
    );
    assert!(header.contains(r#""output_format":"stream-json""#), "{header}");
}

#[test]
fn secrets_never_reach_the_cassette() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("secret.cassette");
    let script = r#"echo "{\"type\":\"system\",\"key\":\"$CURSOR_API_KEY\",\"h\":\"$2\"}"; echo "token $CURSOR_AUTH_TOKEN $MY_SECRET" >&2; echo "also $1""#;
    let output = mock()
        .env("CURSOR_API_KEY", "sk-live-0123456789")
        .env("CURSOR_AUTH_TOKEN", "tok-abcdefgh")
        .env("MY_SECRET", "hunter2-hunter2")
        .args([
            "record",
            "--redact-env",
            "MY_SECRET",
            "--redact",
            "extra-secret",
            "--out",
        ])
        .arg(&cassette)
        .args([
            "--",
            "sh",
            "-c",
            script,
            "sh",
            "--api-key=argv-key-999",
            "Bearer extra-secret",
        ])
        .output()
        .expect("runs");
    crate::support::assert_said(&output, 0);
    // The caller saw everything; the cassette holds none of it.
    assert!(String::from_utf8_lossy(&output.stdout).contains("sk-live-0123456789"));
    let text = std::fs::read_to_string(&cassette).expect("cassette");
    for secret in [
        "sk-live-0123456789",
        "tok-abcdefgh",
        "hunter2-hunter2",
        "argv-key-999",
        "extra-secret",
    ] {
        assert!(!text.contains(secret), "{secret} leaked:\n{text}");
    }
    assert!(text.contains("[REDACTED]"));
}

/// Secrets spelled with JSON escapes are found decoded, replaced, and the line stays
/// JSON; the recording succeeds.
#[test]
fn escaped_secrets_never_reach_the_cassette() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lines = concat!(
        r#"{"k":"sk-test-SECRET\u0031\u00323"}"#,
        "\n",
        r#"{"k":"\u0073\u006b-test-SECRET123"}"#,
        "\n",
        r#"{"k":"sk-test\u002dSECRET123"}"#,
        "\n",
    );
    let file = dir.path().join("lines.ndjson");
    std::fs::write(&file, lines).expect("writes");
    let cassette = dir.path().join("escaped.cassette");
    let output = mock()
        .env("CURSOR_API_KEY", "sk-test-SECRET123")
        .args(["record", "--out"])
        .arg(&cassette)
        .arg("--")
        .arg("cat")
        .arg(&file)
        .output()
        .expect("runs");
    crate::support::assert_said(&output, 0);
    assert_eq!(
        output.stdout,
        lines.as_bytes(),
        "the caller gets the bytes as they are"
    );
    let text = std::fs::read_to_string(&cassette).expect("written");
    assert_no_secret(&text, "sk-test-SECRET123");
    assert_eq!(text.matches(r#"{"k":"[REDACTED]"}"#).count(), 3, "{text}");
}

/// Neither the text nor any string of its JSON lines, decoded, holds the secret.
#[track_caller]
fn assert_no_secret(cassette: &str, secret: &str) {
    fn strings(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
            serde_json::Value::Object(o) => o.iter().for_each(|(k, v)| {
                out.push(k.clone());
                strings(v, out);
            }),
            _ => {}
        }
    }
    assert!(!cassette.contains(secret), "{secret} as it is:\n{cassette}");
    for line in cassette.lines() {
        let value: serde_json::Value = serde_json::from_str(line).expect("a cassette line is JSON");
        let mut found = Vec::new();
        strings(&value, &mut found);
        for text in found {
            assert!(!text.contains(secret), "{secret} decoded in {line}");
        }
    }
}

/// Escapes `text` for the inside of a JSON string, each character as serde_json
/// spells it or as `\uXXXX` (upper or lower case hex), by `how`.
fn spelled(text: &str, how: &[u8]) -> String {
    text.chars()
        .zip(how.iter().cycle())
        .map(|(c, how)| match how % 3 {
            0 => {
                let quoted = serde_json::to_string(&c.to_string()).unwrap_or_default();
                quoted[1..quoted.len() - 1].to_owned()
            }
            1 => {
                let mut units = [0u16; 2];
                c.encode_utf16(&mut units)
                    .iter()
                    .map(|u| format!("\\u{u:04x}"))
                    .collect()
            }
            _ => {
                let mut units = [0u16; 2];
                c.encode_utf16(&mut units)
                    .iter()
                    .map(|u| format!("\\u{u:04X}"))
                    .collect()
            }
        })
        .collect()
}

/// A recording of several megabytes (many of the writer's buffers, written by its
/// thread): every kind of line, on both streams, with secrets deep inside, some
/// spelled with escapes. The caller gets every byte, the cassette holds no secret,
/// and it replays the same bytes.
#[test]
fn a_large_recording_replays_exactly_with_no_secret() {
    let dir = tempfile::tempdir().expect("temp dir");
    let secret = "sk-large-SECRET42";
    let mut rng = fastrand::Rng::with_seed(7);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    while out.len() < 6 << 20 {
        let n = rng.u32(..);
        let line: Vec<u8> = match rng.u8(..12) {
            0 => format!(r#"{{"type":"x","key":"{secret}","n":{n}}}"#).into_bytes(),
            1 => format!(r#"{{"type":"x","key":"{}","n":{n}}}"#, spelled(secret, &n.to_le_bytes())).into_bytes(),
            2 => format!("not JSON {n} {{").into_bytes(),
            3 => vec![0xff, b'{', (n % 256) as u8, b'}'],
            4 => format!(r#"{{"text":"a\nb \u00e9 \"q\" {n}"}}"#).into_bytes(),
            5 => format!(r#"{{"bad":{n},}}"#).into_bytes(),
            _ => format!(
                r#"{{"type":"assistant","message":{{"content":[{{"type":"text","text":"line {n} é"}}]}},"timestamp_ms":{n}}}"#
            )
            .into_bytes(),
        };
        let to = if n.is_multiple_of(5) { &mut err } else { &mut out };
        to.extend_from_slice(&line);
        to.push(b'\n');
    }
    out.extend_from_slice(b"{\"last\":\"no newline\"}");
    let (out_file, err_file) = (dir.path().join("out"), dir.path().join("err"));
    std::fs::write(&out_file, &out).expect("writes");
    std::fs::write(&err_file, &err).expect("writes");
    let cassette = dir.path().join("large.cassette");
    let live = mock()
        .env("CURSOR_API_KEY", secret)
        .args(["record", "--out"])
        .arg(&cassette)
        .args(["--", "sh", "-c", r#"cat "$0"; cat "$1" >&2"#])
        .args([&out_file, &err_file])
        .output()
        .expect("runs");
    assert!(live.status.success());
    assert!(live.stdout == out, "the caller gets every byte of stdout");
    assert!(live.stderr == err, "the caller gets every byte of stderr");
    let text = std::fs::read_to_string(&cassette).expect("written");
    assert_no_secret(&text, secret);
    assert!(
        text.contains(r#""out":{"type":"assistant","#),
        "JSON lines are embedded"
    );
    let replayed = mock().arg("replay").arg(&cassette).output().expect("runs");
    // Lines without a secret come back byte for byte, in order; those with one, with
    // the marker in its place.
    let split = |bytes: &[u8]| -> (Vec<Vec<u8>>, usize) {
        let (mut plain, mut keyed) = (Vec::new(), 0);
        for line in bytes.split(|&b| b == b'\n') {
            if line.windows(7).any(|w| w == br#""key":""#) {
                keyed += 1;
            } else {
                plain.push(line.to_vec());
            }
        }
        (plain, keyed)
    };
    for (live, replayed) in [(&out, &replayed.stdout), (&err, &replayed.stderr)] {
        let (plain, keyed) = split(live);
        let (plain_again, keyed_again) = split(replayed);
        assert!(plain == plain_again, "lines without a secret replay exactly");
        assert_eq!(keyed, keyed_again);
        let markers = String::from_utf8_lossy(replayed)
            .matches(r#""key":"[REDACTED]""#)
            .count();
        assert_eq!(markers, keyed, "each secret is replaced");
    }
    assert!(replayed.stdout.ends_with(b"{\"last\":\"no newline\"}"));
}

/// Output to a file rather than a pipe (passed on by reading and writing, not by
/// `tee(2)`): the same bytes, and the same cassette.
#[test]
fn output_to_files_is_passed_on_as_to_pipes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = r#"printf '{"a":1}\nplain\n'; printf 'oops\n' >&2; printf '{"b":2}'"#;
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let cassette = dir.path().join("files.cassette");
    let status = Command::new(bin())
        .args(["record", "--out"])
        .arg(&cassette)
        .args(["--", "sh", "-c", script])
        .stdout(std::fs::File::create(&out).expect("creates"))
        .stderr(std::fs::File::create(&err).expect("creates"))
        .status()
        .expect("runs");
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(&out).expect("reads"),
        "{\"a\":1}\nplain\n{\"b\":2}"
    );
    assert_eq!(std::fs::read_to_string(&err).expect("reads"), "oops\n");
    let replayed = mock().arg("replay").arg(&cassette).output().expect("runs");
    assert_eq!(replayed.stdout, b"{\"a\":1}\nplain\n{\"b\":2}");
    assert_eq!(replayed.stderr, b"oops\n");
}

/// A caller that stops reading and closes its end gets no more; the recording goes
/// on to the command's end, every line in the cassette.
#[test]
fn a_caller_that_goes_away_leaves_the_recording_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    let go = dir.path().join("go");
    // The rest is printed once the caller is gone: `go` appears after it closed.
    let script = r#"echo first; while [ ! -e "$0" ]; do sleep 0.01; done; i=0; while [ $i -lt 3000 ]; do echo "{\"n\":$i}"; i=$((i+1)); done"#;
    let cassette = dir.path().join("gone.cassette");
    let mut child = Command::new(bin())
        .args(["record", "--out"])
        .arg(&cassette)
        .args(["--", "sh", "-c", script])
        .arg(&go)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("reads");
    assert_eq!(line, "first\n");
    drop(stdout);
    std::fs::write(&go, "").expect("writes");
    assert!(
        child.wait().expect("waits").success(),
        "the proxy ends as the command did"
    );
    let replayed = mock().arg("replay").arg(&cassette).output().expect("runs");
    let expected: String = std::iter::once("first\n".to_owned())
        .chain((0..3000).map(|i| format!("{{\"n\":{i}}}\n")))
        .collect();
    assert!(replayed.stdout == expected.as_bytes(), "every line is recorded");
}

/// A stream with no newline for longer than a cassette's line (110 MB of NULs), or
/// a line that its frame would make longer (20 MB of NULs, each written `\u0000`):
/// every byte still reaches the caller; the recorder writes nothing and says why.
#[test]
fn a_line_longer_than_a_cassette_holds_is_passed_on_and_not_recorded() {
    let dir = tempfile::tempdir().expect("temp dir");
    for bytes in [110_000_000u64, 20_000_000] {
        let cassette = dir.path().join("endless.cassette");
        let mut child = Command::new(bin())
            .args(["record", "--out"])
            .arg(&cassette)
            .args(["--", "head", "-c", &bytes.to_string(), "/dev/zero"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawns");
        let mut stdout = child.stdout.take().expect("stdout");
        let passed = std::io::copy(&mut stdout, &mut std::io::sink()).expect("reads");
        let output = child.wait_with_output().expect("waits");
        assert_eq!(passed, bytes, "every byte reaches the caller");
        assert_eq!(output.status.code(), Some(73), "{output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let expected = format!(
            "mock-agent: {}: cannot write the cassette: a line of the stdout takes more than 96 MiB in it",
            cassette.display()
        );
        assert!(stderr.starts_with(&expected), "{stderr}");
        assert!(!cassette.exists(), "nothing is left under the cassette's name");
    }
}

#[test]
fn a_cassette_that_cannot_be_written_is_known_before_the_command_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = mock()
        .args(["record", "--out"])
        .arg(dir.path().join("missing/x.cassette"))
        .args(["--", "sh", "-c", "echo ran"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(73), "{output:?}");
    assert!(output.stdout.is_empty(), "the command did not run");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("mock-agent: ")
            && stderr.contains("missing/x.cassette: cannot write the cassette"),
        "{stderr}"
    );
}

#[test]
fn stdin_is_passed_on_and_kept_when_it_is_the_prompt() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("stdin.cassette");
    let output = mock()
        .args(["record", "--out"])
        .arg(&cassette)
        .arg("--")
        .arg(bin())
        .args(["-p", "--output-format", "json"])
        .write_stdin("a prompt on stdin\n")
        .output()
        .expect("runs");
    assert!(output.status.success());
    let header = std::fs::read_to_string(&cassette).expect("cassette");
    assert!(
        header
            .lines()
            .next()
            .unwrap_or_default()
            .contains(r#""stdin":"a prompt on stdin\n""#),
        "{header}"
    );
    mock().args(["record", "--out", "x.cassette"]).assert().code(64);
}

/// Writes, each to stderr (`true`) or stdout; and the exit code (`Ok`) or signal.
type Run = (Vec<(bool, Vec<u8>)>, Result<u8, u8>);

/// Chunks on stdout and stderr, and an ending, as a shell script that writes them.
fn chunks() -> impl Strategy<Value = Run> {
    (
        prop::collection::vec((any::<bool>(), prop::collection::vec(any::<u8>(), 0..60)), 0..8),
        prop_oneof![
            (0u8..=255).prop_map(Ok),
            prop::sample::select(vec![15u8, 9, 6, 1, 5, 10, 12, 14, 24, 31, 34, 64]).prop_map(Err)
        ],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(24)))]

    /// Any bytes on stdout and stderr (partial lines, no final newline, not UTF-8,
    /// interleaved), then any exit code or signal: recorded, replayed, the same bytes
    /// in the same order on each stream, and the same ending.
    #[test]
    fn record_then_replay_is_exact((writes, end) in chunks()) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut script = String::new();
        let (mut out, mut err): (Vec<u8>, Vec<u8>) = (Vec::new(), Vec::new());
        for (i, (to_err, bytes)) in writes.iter().enumerate() {
            let file = dir.path().join(format!("chunk{i}"));
            std::fs::write(&file, bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
            script.push_str(&format!("cat '{}'{}\n", file.display(), if *to_err { " >&2" } else { "" }));
            if *to_err { err.extend(bytes) } else { out.extend(bytes) }
        }
        match end {
            Ok(code) => script.push_str(&format!("exit {code}\n")),
            Err(signal) => script.push_str(&format!("kill -{signal} $$\n")),
        }
        let cassette = dir.path().join("x.cassette");
        let live = mock()
            .args(["record", "--out"])
            .arg(&cassette)
            .args(["--", "sh", "-c", &script])
            .output()
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&live.stdout, &out);
        prop_assert_eq!(&live.stderr, &err);
        let replayed = mock().arg("replay").arg(&cassette).output().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&replayed.stdout, &out);
        prop_assert_eq!(&replayed.stderr, &err);
        match end {
            Ok(code) => {
                prop_assert_eq!(live.status.code(), Some(i32::from(code)));
                prop_assert_eq!(replayed.status.code(), Some(i32::from(code)));
            }
            Err(signal) => {
                prop_assert_eq!(live.status.signal(), Some(i32::from(signal)));
                prop_assert_eq!(replayed.status.signal(), Some(i32::from(signal)));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(16)))]

    /// A secret escaped at random places, on stdout and stderr, inside a JSON line:
    /// the recording succeeds and no byte or decoded string of the cassette holds it.
    #[test]
    fn randomly_escaped_secrets_never_reach_the_cassette(
        secret in "sk-[a-zA-Z0-9/é-]{8,20}",
        how in prop::collection::vec(any::<u8>(), 1..40),
        around in "[a-z \u{e9}]{0,8}",
        to_err in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let line = format!(r#"{{"type":"x","text":"{around}{}{around}"}}"#, spelled(&secret, &how));
        let file = dir.path().join("line");
        std::fs::write(&file, format!("{line}\n")).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let cassette = dir.path().join("x.cassette");
        let script = format!("cat '{}'{}", file.display(), if to_err { " >&2" } else { "" });
        let output = mock()
            .env("CURSOR_API_KEY", &secret)
            .args(["record", "--out"])
            .arg(&cassette)
            .args(["--", "sh", "-c", &script])
            .output()
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let text = std::fs::read_to_string(&cassette).map_err(|e| TestCaseError::fail(e.to_string()))?;
        assert_no_secret(&text, &secret);
        prop_assert!(text.contains("[REDACTED]"), "{}", text);
    }
}

mod shim {
    //! The shim's record modes, with the mock itself as the "real" CLI.

    use std::path::Path;

    use crate::support::{bin, install_as_cursor_agent};

    fn agent(dir: &Path, library: &Path, mode: &str, journal: &Path, args: &[&str]) -> std::process::Output {
        std::process::Command::new(dir.join("cursor-agent"))
            .env("MOCK_AGENT_RECORD", mode)
            .env("MOCK_AGENT_LIBRARY", library)
            .env("MOCK_AGENT_REAL", bin())
            .env("MOCK_AGENT_JOURNAL", journal)
            .args(args)
            .output()
            .expect("runs")
    }

    fn cassettes(library: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(library)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn record_modes_replay_what_matches_and_record_what_does_not() {
        let bin_dir = install_as_cursor_agent();
        let work = tempfile::tempdir().expect("temp dir");
        let library = work.path().join("library");
        let journal = work.path().join("journal.jsonl");
        let turn = ["-p", "--resume", "chat-1", "next step"];
        // The turn (or `args`) in record mode `mode`.
        let run = |mode: &str, args: &[&str]| agent(bin_dir.path(), &library, mode, &journal, args);
        // A run that found no cassette to play: exit 66; what it said.
        let missed = |out: std::process::Output| {
            assert_eq!(out.status.code(), Some(66));
            String::from_utf8_lossy(&out.stderr).into_owned()
        };

        // none: a miss is an error that names what differs.
        assert!(missed(run("none", &turn)).starts_with("mock-agent: no cassette in "));

        // once: records the first time, replays after.
        let first = run("once", &turn);
        assert!(first.status.success());
        assert_eq!(cassettes(&library).len(), 1);
        let _ = std::fs::remove_file(&journal);
        let again = run("none", &turn);
        assert_eq!(again.stdout, first.stdout);
        assert_eq!(cassettes(&library).len(), 1);

        // Repeated identical turns replay in recorded order; used up, an error, unless
        // new_episodes records the next one.
        assert!(missed(run("none", &turn)).contains("were all played"));
        let episode = run("new_episodes", &turn);
        assert!(episode.status.success());
        assert_eq!(cassettes(&library).len(), 2);
        let _ = std::fs::remove_file(&journal);
        for _ in 0..2 {
            assert!(run("none", &turn).status.success());
        }
        let entries = harness::journal::read(&journal).expect("journal");
        let sources: Vec<String> = entries.iter().filter_map(|e| e.source.clone()).collect();
        assert_eq!(sources.len(), 2);
        assert_ne!(sources[0], sources[1], "in recorded order, each once");

        // Matching is on the prompt: another prompt is a miss that names it.
        let other = run("none", &["-p", "--resume", "chat-1", "other"]);
        let stderr = String::from_utf8_lossy(&other.stderr);
        assert!(
            stderr.contains(r#"prompt (recorded "next step", given "other")"#),
            "{stderr}"
        );

        // all: always records; passthrough: records nothing.
        assert!(run("all", &turn).status.success());
        assert_eq!(cassettes(&library).len(), 3);
        let through = run("passthrough", &turn);
        assert!(through.status.success());
        assert_eq!(cassettes(&library).len(), 3);
    }
}

#[test]
fn unused_cassettes_are_listed_and_old_or_secret_ones_linted() {
    let bin_dir = crate::support::install_as_cursor_agent();
    let work = tempfile::tempdir().expect("temp dir");
    let library = work.path().join("library");
    let journal = work.path().join("journal.jsonl");
    for prompt in ["one", "two"] {
        let status = Command::new(bin_dir.path().join("cursor-agent"))
            .env("MOCK_AGENT_RECORD", "once")
            .env("MOCK_AGENT_LIBRARY", &library)
            .env("MOCK_AGENT_REAL", bin())
            .args(["-p", prompt])
            .output()
            .expect("runs")
            .status;
        assert!(status.success());
    }
    Command::new(bin_dir.path().join("cursor-agent"))
        .env("MOCK_AGENT_RECORD", "none")
        .env("MOCK_AGENT_LIBRARY", &library)
        .env("MOCK_AGENT_JOURNAL", &journal)
        .args(["-p", "one"])
        .output()
        .expect("runs");
    let unused = mock()
        .args(["unused", "--library"])
        .arg(&library)
        .arg("--journal")
        .arg(&journal)
        .output()
        .expect("runs");
    let listed = String::from_utf8_lossy(&unused.stdout);
    assert_eq!(listed.lines().count(), 1, "{listed}");
    assert!(listed.contains("/two-"), "{listed}");

    // A cassette from an older CLI, with a key in its output.
    let old = work.path().join("old.cassette");
    std::fs::write(
        &old,
        concat!(
            r#"{"mock_agent_cassette":1,"invocation":{"cli_version":"2026.01.15-abc1234"}}"#,
            "\n",
            r#"{"t":0,"err":"using key sk-live-0123456789abcdef"}"#,
            "\n",
            r#"{"t":1,"exit":1}"#,
            "\n"
        ),
    )
    .expect("writes");
    let lint = mock()
        .args(["lint", "--max-age", "2026.10.01"])
        .arg(&old)
        .output()
        .expect("runs");
    let report = String::from_utf8_lossy(&lint.stdout);
    assert!(
        report.contains("older than 2026.10.01: record it again [cli-version]"),
        "{report}"
    );
    assert!(report.contains("looks like a secret (`sk-live-…`)"), "{report}");
}
