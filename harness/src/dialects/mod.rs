//! Dialects: each agent CLI's protocol in one folder.
//!
//! A dialect holds its typed wire model (every name of the protocol said once), its
//! rules (lint) and what a correct consumer must do, its generator strategies, and how
//! a recording becomes a script. Everything above this module (frames and cassettes,
//! the fault catalogue, the clock, the script executor, the runner) is written once and
//! takes a [`Dialect`]. Adding one is a folder here and a variant of [`Dialect`]: every
//! `match` over it then tells the compiler where the new dialect must be handled.

pub mod claude;
pub mod codex;
pub mod cursor_acp;
pub mod cursor_print;

/// An agent CLI's protocol (the default: Cursor's print mode, the first one).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    /// Cursor's print mode: `cursor-agent -p`, one stream of events on stdout
    /// (`stream-json`, `json` or `text`), nothing read from the consumer.
    #[default]
    CursorPrint,
    /// Cursor's server mode: `cursor-agent acp`, the Agent Client Protocol (JSON-RPC
    /// 2.0 both ways, one message a line).
    CursorAcp,
    /// Claude Code: `claude` as the Claude Agent SDKs run it, stream-json on stdout
    /// and stdin with a control protocol both ways (and `claude -p`).
    Claude,
}

impl Dialect {
    /// Every dialect, in the order `mock-agent faults` lists them.
    pub const ALL: &'static [Dialect] = &[Dialect::CursorPrint, Dialect::CursorAcp, Dialect::Claude];

    /// The dialect's name, as the command line and the fault catalogue spell it.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::CursorPrint => "cursor-print",
            Dialect::CursorAcp => "cursor-acp",
            Dialect::Claude => "claude",
        }
    }

    /// Whether the agent reads the consumer's messages (a conversation) or only writes
    /// (a one-way plan: a script with no waits).
    pub fn is_conversation(self) -> bool {
        match self {
            Dialect::CursorPrint => false,
            Dialect::CursorAcp | Dialect::Claude => true,
        }
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
