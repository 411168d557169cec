//! Server mode's registration: `cursor-agent acp` is the ACP machinery's dialect
//! ([`AcpDialect`]) of Cursor's profile.

use crate::acp::dialect::AcpDialect;
use crate::error::CassetteError;
use crate::run::{Case, CaseSource, Matrix};

pub use crate::acp::dialect::{acp_faults, settled};

/// Cursor's server mode: `cursor-agent acp`.
pub static DIALECT: AcpDialect = AcpDialect::new(&super::PROFILE);

impl Case {
    /// A case of server mode: its expectation is what a correct ACP client concludes
    /// from the source's conversation with the faults (see [`super::expect`]). A
    /// generated source is the conversation generated from its seed
    /// ([`super::generate::from_seed`], default knobs), not a print-mode session
    /// told through ACP.
    pub fn acp(source: CaseSource, faults: &str, name: String) -> Result<Case, CassetteError> {
        crate::acp::dialect::case(&super::PROFILE, source, faults, name)
    }
}

impl Matrix {
    /// Server mode's matrix over these cassettes (ACP recordings, and print-mode
    /// sessions served over ACP) and the default session, with [`acp_faults`].
    pub fn acp(cassettes: Vec<std::path::PathBuf>) -> Self {
        Matrix::of(crate::dialects::CURSOR_ACP, cassettes)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::run::fuzz::FuzzFailure;

    #[test]
    fn the_replay_command_names_the_cassette_and_the_faults_quoted() {
        let prompt = super::super::wire::methods::SESSION_PROMPT;
        let failure = FuzzFailure {
            cassette: PathBuf::from("fuzz-failures/fuzz-acp-3.cassette"),
            dialect: crate::dialects::CURSOR_ACP,
            faults: format!("error:method={prompt};stderr:text=\"it's\""),
            broken: Vec::new(),
            lines: 7,
            shrink_stopped: false,
        };
        assert_eq!(
            failure.replay_command("python3 my bot.py"),
            format!(
                "mock-agent test --acp --no-default --cassettes fuzz-failures/fuzz-acp-3.cassette \
                 --fault 'error:method={prompt};stderr:text=\"it'\\''s\"' --consumer 'python3 my bot.py'"
            )
        );
        let clean = FuzzFailure {
            dialect: crate::dialects::CURSOR_PRINT,
            faults: String::new(),
            ..failure
        };
        assert_eq!(
            clean.replay_command("./bot"),
            "mock-agent test --no-default --cassettes fuzz-failures/fuzz-acp-3.cassette --filter clean --consumer ./bot"
        );
    }
}
