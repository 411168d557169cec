//! What tells the session: the [`Player`] of a built-in or generated session, or the
//! [`Script`] of a recording (`MOCK_AGENT_CASSETTE`, a Claude Code cassette), which
//! replays the recorded lines as the live client goes (see
//! [`harness::dialects::claude::cassette`]).
//!
//! A [`Teller`] is a player (its options, its hooks: the process reads and changes
//! them either way) whose turns come from the script when there is one.

use std::ops::{Deref, DerefMut};
use std::time::Duration;

use serde_json::Value;

use harness::dialects::claude::cassette::Script;
use harness::dialects::claude::{Next, Player};

/// The player, or the script of a recording.
#[derive(Debug)]
pub(super) struct Teller {
    player: Player,
    script: Option<Script>,
}

impl Deref for Teller {
    type Target = Player;

    fn deref(&self) -> &Player {
        &self.player
    }
}

impl DerefMut for Teller {
    fn deref_mut(&mut self) -> &mut Player {
        &mut self.player
    }
}

impl Teller {
    /// Tells `player`'s session, or `script` when there is one.
    /// A script follows the client as the player's options say (see [`Script::follow`]).
    pub(super) fn new(player: Player, mut script: Option<Script>) -> Self {
        if let Some(script) = &mut script {
            script.follow(player.options.prompt_tool, player.options.states);
            script.stream_events(player.options.partial);
        }
        Teller { player, script }
    }

    /// Begins the next turn.
    pub(super) fn begin(&mut self, prompt: &str) {
        match &mut self.script {
            Some(script) => script.begin(),
            None => self.player.begin(prompt),
        }
    }

    /// Whether a turn is under way.
    pub(super) fn in_turn(&self) -> bool {
        match &self.script {
            Some(script) => script.in_turn(),
            None => self.player.in_turn(),
        }
    }

    /// What to do next.
    pub(super) fn step(&mut self) -> Next {
        match &mut self.script {
            Some(script) => script.step(),
            None => self.player.step(),
        }
    }

    /// The turn's next lines that its steps would send as they are, appended to `out`
    /// as a recording's script gives them ([`Script::stream_run`]); how many (none
    /// from the player).
    pub(super) fn stream_run(&mut self, out: &mut Vec<u8>, limit: usize) -> u64 {
        self.script.as_mut().map_or(0, |script| {
            // Room for a run and the line that ends it: `out` is not grown line by line.
            out.reserve(limit.saturating_add(64 << 10));
            script.stream_run(out, limit)
        })
    }

    /// The id of the request waited for.
    pub(super) fn waiting_for(&self) -> Option<&str> {
        match &self.script {
            Some(script) => script.waiting_for(),
            None => self.player.waiting_for(),
        }
    }

    /// The client answered the request waited for.
    pub(super) fn answer(&mut self, answer: Result<Value, String>) {
        match &mut self.script {
            Some(script) => script.answer(answer),
            None => self.player.answer(answer),
        }
    }

    /// The client interrupted the turn: the lines that say so (the script's follow
    /// in its turn).
    pub(super) fn interrupt(&mut self) -> Vec<Vec<u8>> {
        match &mut self.script {
            Some(script) => script.interrupt(),
            None => self.player.interrupt(),
        }
    }

    /// The client interrupted the turn while a line of it was held back (a stall):
    /// the lines that say so. The player ends the turn there, as [`Self::interrupt`]
    /// does a turn with lines still to tell; a recording follows its own client, as
    /// it does any interrupt.
    pub(super) fn interrupt_held(&mut self) -> Vec<Vec<u8>> {
        match &mut self.script {
            Some(script) => script.interrupt(),
            None => self.player.interrupt_held(),
        }
    }

    /// Whether an interrupt while a line was held back ended the turn there (the
    /// held line is not told): the player's turns, not a recording's.
    pub(super) fn ends_interrupted(&self) -> bool {
        self.script.is_none()
    }

    /// Whether the last result was an error.
    pub(super) fn last_is_error(&self) -> bool {
        match &self.script {
            Some(script) => script.last_is_error(),
            None => self.player.last_is_error(),
        }
    }

    /// When the line told last was recorded (the player's are all at zero: the clock
    /// times them).
    pub(super) fn at(&self) -> Duration {
        self.script.as_ref().map_or(Duration::ZERO, Script::at)
    }

    /// What the turn is timed from, on the recording's clock.
    pub(super) fn base(&self) -> Duration {
        self.script.as_ref().map_or(Duration::ZERO, Script::base)
    }

    /// The recorded answer to the client's control request (its id made `id`), and
    /// when the recorded request came; `None` without a recording, or when it has
    /// none left of `subtype`.
    pub(super) fn recorded_answer(&mut self, id: &Value, subtype: &str) -> Option<(Vec<Vec<u8>>, Duration)> {
        self.script.as_mut()?.request(id, subtype)
    }

    /// Why the recording could not be read on (the turn ended there), once.
    pub(super) fn take_error(&mut self) -> Option<harness::error::CassetteError> {
        self.script.as_mut()?.take_error()
    }

    /// Where the client did what the recording's did not.
    pub(super) fn divergences(&mut self) -> Vec<String> {
        self.script
            .as_mut()
            .map(Script::take_divergences)
            .unwrap_or_default()
    }
}
