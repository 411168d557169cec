//! Every curated cassette rendered in each output format, side by side: one
//! snapshot per cassette and format, reviewed once and kept.

use std::path::Path;

use crate::support::{mock, root, transcript};

/// The renderings snapshotted for each cassette: a name and the extra arguments.
const RENDERINGS: &[(&str, &[&str])] = &[
    ("stream-json", &["--output-format", "stream-json"]),
    (
        "stream-json-partial",
        &["--output-format", "stream-json", "--stream-partial-output"],
    ),
    ("json", &["--output-format", "json"]),
    ("text", &["--output-format", "text"]),
];

fn render(path: &Path, args: &[&str]) -> String {
    let relative = path.strip_prefix(root()).unwrap_or(path);
    let output = mock()
        .env("MOCK_AGENT_CASSETTE", relative)
        .arg("-p")
        .args(args)
        .arg("replay this")
        .output()
        .expect("runs");
    transcript(&output)
}

#[test]
fn each_cassette_in_each_format() {
    insta::glob!("../cassettes", "*.{cassette,ndjson}", |path| {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("snapshots/formats");
        settings.set_prepend_module_to_snapshot(false);
        // Deltas made from a recording without timestamps carry the run's clock.
        let recorded = std::fs::read_to_string(path).unwrap_or_default();
        if !recorded.contains("timestamp_ms") {
            settings.add_filter(r#""timestamp_ms":\d+"#, r#""timestamp_ms":"[now]""#);
        }
        settings.bind(|| {
            for (name, args) in RENDERINGS {
                insta::assert_snapshot!(*name, render(path, args));
            }
        });
    });
}

#[test]
fn json_and_text_agree_with_the_stream() {
    for path in crate::support::curated() {
        let stream = mock().args(["replay"]).arg(&path).output().expect("runs");
        let json = mock()
            .args(["replay", "--output-format", "json"])
            .arg(&path)
            .output()
            .expect("runs");
        let text = mock()
            .args(["replay", "--output-format", "text"])
            .arg(&path)
            .output()
            .expect("runs");
        assert_eq!(stream.status.code(), json.status.code(), "{path:?}");
        assert_eq!(stream.status.code(), text.status.code(), "{path:?}");
        assert_eq!(stream.stderr, json.stderr, "{path:?}");
        let stdout = String::from_utf8_lossy(&stream.stdout);
        let result = stdout
            .lines()
            .rfind(|l| l.contains(r#""type":"result""#))
            .filter(|_| stream.status.success());
        match result {
            Some(line) => {
                assert_eq!(
                    String::from_utf8_lossy(&json.stdout),
                    format!("{line}\n"),
                    "{path:?}"
                );
                let event: serde_json::Value = serde_json::from_str(line).expect("json");
                let answer = event["result"].as_str().unwrap_or_default();
                assert!(
                    String::from_utf8_lossy(&text.stdout).ends_with(&format!("{answer}\n")),
                    "{path:?}"
                );
            }
            None => assert!(json.stdout.is_empty(), "{path:?}: a failed run prints no JSON"),
        }
    }
}
