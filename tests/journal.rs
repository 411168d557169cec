//! `MOCK_AGENT_JOURNAL`: one JSON line per invocation, so a test can check how its
//! program called the agent.

use harness::journal::{self, ExitRecord};
use harness::OutputFormat;

use crate::support::mock;

#[test]
fn each_invocation_appends_what_it_was_asked_and_how_it_ended() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("journal.jsonl");
    mock()
        .env("MOCK_AGENT_JOURNAL", &path)
        .args(["-p", "--model", "gpt-5", "fix it"])
        .assert()
        .success();
    mock()
        .env("MOCK_AGENT_JOURNAL", &path)
        .args(["-p", "--output-format", "json"])
        .write_stdin("from stdin\n")
        .assert()
        .success();
    mock()
        .env("MOCK_AGENT_JOURNAL", &path)
        .args(["-p", "--bogus"])
        .assert()
        .code(1);
    mock()
        .env("MOCK_AGENT_JOURNAL", &path)
        .env("MOCK_AGENT_CASSETTE", "cassettes/invalid/no-end.cassette")
        .args(["-p", "--stream-partial-output", "x"])
        .assert()
        .code(65);

    let entries = journal::read(&path).expect("journal");
    assert_eq!(entries.len(), 4);
    let [argv, stdin, bad_flag, bad_cassette] = &entries[..] else {
        panic!("four entries: {entries:?}")
    };
    assert_eq!(argv.argv, ["-p", "--model", "gpt-5", "fix it"]);
    assert_eq!(argv.prompt.as_deref(), Some("fix it"));
    assert_eq!(argv.stdin, None);
    assert_eq!(argv.output_format, Some(OutputFormat::StreamJson));
    assert_eq!(argv.source.as_deref(), Some("default"));
    assert_eq!(argv.exit, ExitRecord::Code(0));
    assert!(argv.started_at_ms <= argv.ended_at_ms);
    assert!(argv.cwd.as_deref().is_some_and(|cwd| !cwd.is_empty()));

    assert_eq!(stdin.prompt.as_deref(), Some("from stdin"));
    assert_eq!(stdin.stdin.as_deref(), Some("from stdin\n"));
    assert_eq!(stdin.output_format, Some(OutputFormat::Json));

    assert_eq!(bad_flag.exit, ExitRecord::Code(1));
    assert_eq!(bad_flag.prompt, None);

    assert_eq!(bad_cassette.exit, ExitRecord::Code(65));
    assert!(bad_cassette.stream_partial_output);
    assert_eq!(
        bad_cassette.source.as_deref(),
        Some("cassettes/invalid/no-end.cassette")
    );
    assert!(bad_cassette
        .error
        .as_deref()
        .is_some_and(|e| e.contains("no-end.cassette:")));
    assert!(entries.windows(2).all(|w| w[0].pid != w[1].pid));
}

#[test]
fn concurrent_invocations_write_whole_lines() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("journal.jsonl");
    let children: Vec<_> = (0..8)
        .map(|i| {
            std::process::Command::new(crate::support::bin())
                .env("MOCK_AGENT_JOURNAL", &path)
                .args(["-p", &format!("prompt {i}")])
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("spawns")
        })
        .collect();
    for mut child in children {
        assert!(child.wait().expect("waits").success());
    }
    let mut prompts: Vec<String> = journal::read(&path)
        .expect("every line parses")
        .into_iter()
        .filter_map(|e| e.prompt)
        .collect();
    prompts.sort();
    assert_eq!(prompts, (0..8).map(|i| format!("prompt {i}")).collect::<Vec<_>>());
}

#[test]
fn an_unwritable_journal_is_the_mock_s_own_error() {
    mock()
        .env("MOCK_AGENT_JOURNAL", "/nonexistent-dir/journal.jsonl")
        .args(["-p", "hi"])
        .assert()
        .code(73)
        .stderr(predicates::str::contains(
            "mock-agent: cannot append to the journal /nonexistent-dir/journal.jsonl",
        ));
}

/// `mock-agent acp` on the default conversation, its journal at `journal` (none:
/// not journaled): `initialize`, `session/new`, then `mib` MiB of notifications of a
/// method nobody knows (each journaled), then the end of stdin. The mock's peak RSS
/// in KiB, read by a parent of its own (`getrusage(RUSAGE_CHILDREN)`), which sees only
/// the mock.
fn acp_peak_rss_kib(journal: Option<&std::path::Path>, mib: usize) -> u64 {
    let measure = format!(
        "import os, resource, subprocess\n\
         env = dict(os.environ)\n\
         journal = {journal:?}\n\
         if journal: env['MOCK_AGENT_JOURNAL'] = journal\n\
         mock = subprocess.Popen([{bin:?}, 'acp'], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)\n\
         mock.stdin.write(b'{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":1}}}}\\n')\n\
         mock.stdin.write(b'{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/new\",\"params\":{{\"cwd\":\"/\",\"mcpServers\":[]}}}}\\n')\n\
         line = b'{{\"jsonrpc\":\"2.0\",\"method\":\"x/noise\",\"params\":{{\"pad\":\"' + b'x' * (64 << 10) + b'\"}}}}\\n'\n\
         for _ in range({lines}): mock.stdin.write(line)\n\
         mock.stdin.close()\n\
         assert mock.wait() == 0\n\
         print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n",
        journal = journal.map(|j| j.display().to_string()).unwrap_or_default(),
        bin = crate::support::bin().display().to_string(),
        lines = mib * 16,
    );
    let mut cmd = std::process::Command::new("python3");
    harness::run::child::without_mock_env(&mut cmd);
    let output = cmd.args(["-c", &measure]).output().expect("runs python3");
    crate::support::assert_said(&output, 0);
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("a number of KiB")
}

#[test]
fn a_journaled_conversation_costs_the_server_no_more_memory_than_an_unjournaled_one() {
    // 48 MiB of client messages, journaled: held in memory they cost about 2.4 times
    // their size (the lines, then the entry serialized); kept on disk as they pass,
    // about nothing.
    const MIB: usize = 48;
    const BAR_KIB: u64 = 16 << 10;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("journal.jsonl");
    let without = acp_peak_rss_kib(None, MIB);
    let with = acp_peak_rss_kib(Some(&path), MIB);
    assert!(
        with < without + BAR_KIB,
        "peak RSS {with} KiB journaled, {without} KiB not, for {MIB} MiB of messages"
    );
    // The journal has them all, as the entry it always had.
    let entries = journal::read(&path).expect("journal");
    let [entry] = &entries[..] else {
        panic!("one entry: {}", entries.len())
    };
    let acp = entry.acp.as_ref().expect("the conversation");
    let noise: Vec<usize> = acp
        .messages
        .iter()
        .filter(|m| m.dir == journal::IN && m.line.contains("x/noise"))
        .map(|m| m.line.len())
        .collect();
    let line = r#"{"jsonrpc":"2.0","method":"x/noise","params":{"pad":""}}"#.len() + (64 << 10);
    assert_eq!(noise, vec![line; MIB * 16]);
}

#[test]
fn concurrent_servers_write_whole_entries_however_long() {
    // Each entry is written in several writes (more than the megabyte of one): the
    // lock keeps them whole.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("journal.jsonl");
    let pad = "y".repeat(256 << 10);
    let children: Vec<_> = (0..4)
        .map(|_| {
            let mut child = crate::support::acp_server(&[("MOCK_AGENT_JOURNAL", path.as_os_str())]);
            let mut stdin = child.stdin.take().expect("stdin");
            let pad = pad.clone();
            let writer = std::thread::spawn(move || {
                use std::io::Write;
                for _ in 0..12 {
                    let line =
                        format!(r#"{{"jsonrpc":"2.0","method":"x/noise","params":{{"pad":"{pad}"}}}}"#);
                    writeln!(stdin, "{line}").expect("writes");
                }
            });
            let stdout = child.stdout.take().expect("stdout");
            let reader = std::thread::spawn(move || std::io::read_to_string(stdout));
            (child, writer, reader)
        })
        .collect();
    for (mut child, writer, reader) in children {
        writer.join().expect("writes");
        assert!(child.wait().expect("waits").success());
        let _ = reader.join();
    }
    let entries = journal::read(&path).expect("every line parses");
    assert_eq!(entries.len(), 4);
    for entry in entries {
        assert_eq!(entry.acp.expect("a conversation").messages.len(), 12);
    }
}
