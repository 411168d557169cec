//! The one line that runs a case again outside the harness: the consumer's command,
//! in its directory, with the mock first on its `PATH` as `cursor-agent` and `agent`
//! and the case's settings in `MOCK_AGENT_*` variables, runnable in a POSIX shell.
//!
//! ```text
//! cd /home/me/bot && mkdir -p /tmp/mock-agent-repro && ln -sf /usr/local/bin/mock-agent /tmp/mock-agent-repro/cursor-agent && ln -sf /usr/local/bin/mock-agent /tmp/mock-agent-repro/agent && PATH="/tmp/mock-agent-repro:$PATH" MOCK_AGENT_FAULTS='eof:after=3' sh -c 'python3 bot.py'
//! ```
//!
//! The links are made in a directory of their own under the system's temporary
//! directory (`mock-agent-repro`), made again by each line, so that the line works
//! once the case's own directory is gone. What it does not reproduce: the time limit
//! (a hang hangs), and a race that the harness's timing happened to hit.

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

/// The line that runs `case` again with `consumer` and `mock`, from `cwd` (the
/// consumer's own directory when it has one).
pub fn line(consumer: &Consumer, mock: &MockBinary, case: &Case, cwd: &Path) -> String {
    let bin = std::env::temp_dir().join("mock-agent-repro");
    let bin_text = bin.display().to_string();
    let mock_path = std::path::absolute(mock.path()).unwrap_or_else(|_| mock.path().to_owned());
    let mock_text = quote(&mock_path.display().to_string());
    let program = super::program_of(case.dialect);
    let agent = bin.join(program).display().to_string();
    let command = consumer
        .command
        .replace("{mock}", &agent)
        .replace("{format}", case.format.as_str());
    let cwd = consumer.cwd.as_deref().unwrap_or(cwd);
    let mut line = format!(
        "cd {} && mkdir -p {b} && ",
        quote(&cwd.display().to_string()),
        b = quote(&bin_text),
    );
    // The mock under every name of the case's dialect, as in the case's directory.
    for name in case.dialect.programs() {
        line.push_str(&format!("ln -sf {mock_text} {}/{name} && ", quote(&bin_text)));
    }
    // The case's settings beside them too, for a consumer that passes its agent an
    // allow-listed environment (see `crate::journal::settings`); none left over from
    // another case.
    let settings_file = quote(
        &bin.join(crate::journal::settings::FILE_NAME)
            .display()
            .to_string(),
    );
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
        assignments.push(format!("PATH={}:\"$PATH\"", quote(&bin_text)));
    }
    for (name, value) in case.env() {
        assignments.push(format!("{name}={}", quote(&value)));
    }
    if let Some(name) = &consumer.mock_env {
        assignments.push(format!("{name}={}", quote(&agent)));
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
            .join("mock-agent-repro")
            .display()
            .to_string();
        assert_eq!(
            line,
            format!(
                "cd /home/me && mkdir -p {bin} && ln -sf /opt/mock-agent {bin}/cursor-agent && ln -sf /opt/mock-agent {bin}/agent && \
                 PATH={bin}:\"$PATH\" MOCK_AGENT_FAULTS=eof:after=3 AGENT={bin}/cursor-agent BOT_MODE='it'\\''s' \
                 sh -c 'my bot --format json --agent {bin}/cursor-agent'"
            )
        );
        assert_eq!(quote("a b"), "'a b'");
    }
}
