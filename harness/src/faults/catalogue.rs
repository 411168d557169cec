//! The one fault catalogue's vocabulary: an entry ([`Described`]), the keys that place
//! a fault ([`Key`]) and where it acts when not placed ([`Site`]).
//!
//! Each dialect has its section, a table of entries in its folder (what its
//! `Dialect::catalogue` gives); `mock-agent faults` lists every registered dialect's.
//! A name may stand in several sections: `eof` cuts a stdout line in print mode and an
//! agent message in server mode, with each dialect's default and words. A section's
//! entries, in its order, are what `mock-agent faults` lists and what its parser knows.

/// A key that places a fault: the one placement vocabulary of every dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Key {
    /// `after=N`: after the N-th line (print mode) or message (server mode) the agent
    /// writes; 0 is before the first.
    After,
    /// `at=WORD`: before the first line of that event type (print mode: `at=result`,
    /// `at=end`), or message of that update kind or request method (server mode:
    /// `at=tool_call`, `at=session/request_permission`; `at=asking`: while the agent
    /// waits for the client's answer).
    At,
    /// `byte=K`: after the first K bytes of that line or message.
    Byte,
    /// `method=M`: on the agent's answer to the client's request `M` (server mode).
    Method,
}

/// Where a fault acts when it is not placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Site {
    /// After the N-th line or message.
    After(u64),
    /// Before the first line or message of this kind.
    At(&'static str),
    /// On the answer to this request.
    Method(&'static str),
    /// At the end.
    End,
    /// On every line (`unknown-field` in print mode).
    Every,
}

/// One entry of the fault catalogue: what `mock-agent faults` prints, and what the
/// parser reads.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Described {
    /// The fault's name.
    pub name: &'static str,
    /// Its keys.
    pub usage: &'static str,
    /// What it does, in one line.
    pub meaning: &'static str,
    /// An example.
    pub example: &'static str,
    /// The keys that place it.
    pub places: &'static [Key],
    /// Where it acts when not placed (`None`: it is not placed, or must be).
    pub default: Option<Site>,
    /// Whether it is a preset: the real agent's failure, as faults.
    pub preset: bool,
    /// The scenario only a misbehaving agent makes with it (never the real CLI), which
    /// it gives only when asked for: `None` when it has none.
    pub misbehaving: Option<&'static str>,
}

impl Described {
    /// Whether the fault is placed with `key`.
    pub fn takes(&self, key: Key) -> bool {
        self.places.contains(&key)
    }

    /// The entry, placed with `places`, acting at `default` when not placed.
    pub const fn placed(self, places: &'static [Key], default: Option<Site>) -> Self {
        Described {
            places,
            default,
            ..self
        }
    }

    /// The entry, a preset.
    pub const fn preset(self) -> Self {
        Described { preset: true, ..self }
    }

    /// The entry, with the scenario only a misbehaving agent makes with it.
    pub const fn misbehaving(self, scenario: &'static str) -> Self {
        Described {
            misbehaving: Some(scenario),
            ..self
        }
    }
}

/// An entry that is not placed.
pub const fn e(
    name: &'static str,
    usage: &'static str,
    meaning: &'static str,
    example: &'static str,
) -> Described {
    Described {
        name,
        usage,
        meaning,
        example,
        places: &[],
        default: None,
        preset: false,
        misbehaving: None,
    }
}

/// `after=N|at=TYPE`.
pub const LINE: &[Key] = &[Key::After, Key::At];
/// `after=N|at=TYPE, byte=K`.
pub const CUT: &[Key] = &[Key::After, Key::At, Key::Byte];
/// A conversation's `at=KIND|after=N`.
pub const MESSAGE: &[Key] = &[Key::At, Key::After];
/// A conversation's `at=KIND|after=N, byte=K`.
pub const MESSAGE_CUT: &[Key] = &[Key::At, Key::After, Key::Byte];
/// A conversation's `method=M`.
pub const REQUEST: &[Key] = &[Key::Method];
/// A conversation's `method=M|at=KIND|after=N`.
pub const ANYWHERE: &[Key] = &[Key::Method, Key::At, Key::After];

/// The entry of `section` named `name`.
pub fn entry<'a>(section: &'a [Described], name: &str) -> Option<&'a Described> {
    section.iter().find(|e| e.name == name)
}

/// The names of a section's faults and presets, `, `-joined.
pub(crate) fn names(section: &[Described]) -> String {
    section.iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
}

/// The presets of `section` (the real agent's failures), in its order.
pub fn presets(section: &[Described]) -> Vec<&'static str> {
    section.iter().filter(|e| e.preset).map(|e| e.name).collect()
}
