//! The one line that runs a case again outside the harness: the consumer's command,
//! in its directory, with the mock first on its `PATH` as `cursor-agent` and `agent`
//! and the case's settings in `MOCK_AGENT_*` variables (and in the settings file
//! beside the mock), runnable in a POSIX shell as it is printed.
//!
//! ```text
//! (d=/tmp/mock-agent-repro/default-eof && cd /home/me/bot && mkdir -p "$d" && ln -sf /usr/local/bin/mock-agent "$d"/cursor-agent && ln -sf /usr/local/bin/mock-agent "$d"/agent && printf '%s\n' MOCK_AGENT_FAULTS=eof:after=3 > "$d"/.mock-agent.env && PATH="$d:$PATH" MOCK_AGENT_FAULTS=eof:after=3 sh -c 'python3 bot.py')
//! ```
//!
//! It runs in a subshell (`( ... )`): the shell it is pasted in keeps its folder and
//! variables. The links are made in a directory of the case's own under the system's temporary
//! directory (`mock-agent-repro/CASE`, the case's name with `/` made `-`: see
//! [`dir_name`]), made again by each line, so that the line works once the case's own
//! directory is gone, and two cases' lines, run at once, do not change each other's
//! files. What it does not reproduce: the time limit (a hang hangs), and a race that
//! the harness's timing happened to hit.

use std::path::Path;

use super::{Case, Consumer, MockBinary};

/// `text` in single quotes for a POSIX shell (as it is when it needs none).
pub fn quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// How many characters of a case's name its repro directory keeps.
const NAME_CHARS: usize = 80;

/// The name of `case`'s directory under `mock-agent-repro`: its name, each character a
/// file name or a shell word would not hold as it is (`/`, a space, a quote) made
/// `-`; a name longer than 80 characters is cut, and a hash of the whole name told
/// after it (so that two long names that begin alike differ).
pub fn dir_name(case: &str) -> String {
    let mut name = String::with_capacity(case.len());
    for c in case.chars() {
        let c = if c.is_ascii_alphanumeric() || "-_.=:,+@%".contains(c) {
            c
        } else {
            '-'
        };
        if !(c == '-' && name.ends_with('-')) {
            name.push(c);
        }
    }
    let name = name.trim_matches(['-', '.']).to_owned();
    if name.is_empty() {
        return "case".to_owned();
    }
    if name.chars().count() <= NAME_CHARS {
        return name;
    }
    // FNV-1a: the same in every build, unlike the standard library's hasher.
    let hash = case.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let cut: String = name.chars().take(NAME_CHARS).collect();
    format!("{}-{:08x}", cut.trim_end_matches('-'), hash as u32)
}

/// The line that runs `case` again with `consumer` and `mock`, from `cwd` (the
/// consumer's own directory when it has one).
pub fn line(consumer: &Consumer, mock: &MockBinary, case: &Case, cwd: &Path) -> String {
    let bin = std::env::temp_dir()
        .join("mock-agent-repro")
        .join(dir_name(&case.name));
    let mock_path = std::path::absolute(mock.path()).unwrap_or_else(|_| mock.path().to_owned());
    let mock_text = quote(&mock_path.display().to_string());
    let program = super::program_of(case.dialect);
    let agent = bin.join(program).display().to_string();
    let command = consumer
        .command
        .replace("{mock}", &agent)
        .replace("{format}", case.format.as_str());
    let cwd = consumer.cwd.as_deref().unwrap_or(cwd);
    // The directory named once, as `$d`.
    let mut line = format!(
        "(d={} && cd {} && mkdir -p \"$d\" && ",
        quote(&bin.display().to_string()),
        quote(&cwd.display().to_string()),
    );
    // The mock under every name of the case's dialect, as in the case's directory.
    for name in case.dialect.programs() {
        line.push_str(&format!("ln -sf {mock_text} \"$d\"/{name} && "));
    }
    // The case's settings beside them too, for a consumer that passes its agent an
    // allow-listed environment (see `crate::journal::settings`); none left over from
    // an earlier run of the line.
    let settings_file = format!("\"$d\"/{}", crate::journal::settings::FILE_NAME);
    let settings = case.env();
    if settings.is_empty() {
        line.push_str(&format!("rm -f {settings_file} && "));
    } else {
        let lines: Vec<String> = settings
            .iter()
            .map(|(name, value)| quote(&format!("{name}={value}")))
            .collect();
        line.push_str(&format!(
            "printf '%s\\n' {} > {settings_file} && ",
            lines.join(" ")
        ));
    }
    // The consumer's own PATH wins, as in the harness.
    let own_path =
        consumer.env.iter().any(|(name, _)| name == "PATH") || consumer.mock_env.as_deref() == Some("PATH");
    let mut assignments = Vec::new();
    if !own_path {
        assignments.push("PATH=\"$d:$PATH\"".to_owned());
    }
    for (name, value) in case.env() {
        assignments.push(format!("{name}={}", quote(&value)));
    }
    if let Some(name) = &consumer.mock_env {
        assignments.push(format!("{name}=\"$d\"/{program}"));
    }
    for (name, value) in &consumer.env {
        assignments.push(format!("{name}={}", quote(value)));
    }
    for assignment in assignments {
        line.push_str(&assignment);
        line.push(' ');
    }
    line.push_str("sh -c ");
    line.push_str(&quote(&command));
    line.push(')');
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::OutputFormat;
    use crate::run::CaseSource;

    #[test]
    fn the_line_sets_the_case_s_variables_quoted() {
        let case = Case::new(
            CaseSource::Default,
            OutputFormat::Json,
            "eof:after=3",
            "default/eof".into(),
        )
        .expect("a case");
        let consumer = Consumer::new("my bot --format {format} --agent {mock}")
            .env("BOT_MODE", "it's")
            .mock_env("AGENT");
        let line = line(
            &consumer,
            &MockBinary::new("/opt/mock-agent"),
            &case,
            Path::new("/home/me"),
        );
        let bin = std::env::temp_dir()
            .join("mock-agent-repro/default-eof")
            .display()
            .to_string();
        assert_eq!(
            line,
            format!(
                "(d={bin} && cd /home/me && mkdir -p \"$d\" && ln -sf /opt/mock-agent \"$d\"/cursor-agent && ln -sf /opt/mock-agent \"$d\"/agent && \
                 printf '%s\\n' MOCK_AGENT_FAULTS=eof:after=3 > \"$d\"/.mock-agent.env && \
                 PATH=\"$d:$PATH\" MOCK_AGENT_FAULTS=eof:after=3 AGENT=\"$d\"/cursor-agent BOT_MODE='it'\\''s' \
                 sh -c 'my bot --format json --agent {bin}/cursor-agent')"
            )
        );
        assert_eq!(quote("a b"), "'a b'");
    }

    #[test]
    fn each_case_has_a_directory_of_its_own_named_by_it() {
        assert_eq!(dir_name("default/eof@mid-line"), "default-eof@mid-line");
        assert_eq!(
            dir_name("my cassette/stream-json/exit:code=2"),
            "my-cassette-stream-json-exit:code=2"
        );
        assert_eq!(dir_name("../x"), "x");
        assert_eq!(dir_name("/"), "case");
        let long = "a".repeat(100);
        let (one, other) = (dir_name(&format!("{long}/one")), dir_name(&format!("{long}/two")));
        assert_ne!(one, other, "long names that begin alike differ");
        assert!(one.starts_with(&"a".repeat(80)) && one.len() == 80 + 9, "{one}");
    }
}
