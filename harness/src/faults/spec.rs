//! The fault grammar: `name[:key=value[,key=value...]]`, several joined by `;`.
//!
//! A value may be double-quoted to hold `,` or `;` (`text="a, b"`), with `\"`, `\\`
//! and `\n` escapes inside the quotes.

use super::catalogue::{self, Described, Key, Site};
use crate::error::{Diagnostic, Origin};

/// One `name:key=value,...` item with the column where each part starts.
pub(crate) struct Item {
    pub(crate) name: String,
    pub(crate) column: usize,
    pairs: Vec<Pair>,
}

struct Pair {
    key: String,
    value: String,
    column: usize,
}

/// The largest `bytes=` a fault takes: 64 MiB, already far past every line cap.
pub const MAX_BYTES: usize = 64 << 20;

/// Keys that may stand without `=VALUE`.
const FLAGS: &[&str] = &["random"];

/// Faults from the environment of the program under test.
pub const FROM_ENV: Origin<'static> = Origin {
    name: "MOCK_AGENT_FAULTS",
    help: "`mock-agent faults` lists every fault with an example",
};

/// Faults from `--fault` on the mock's own command line.
pub const FROM_FLAG: Origin<'static> = Origin {
    name: "--fault",
    help: "`mock-agent faults` lists every fault with an example",
};

/// A dialect's typed faults: what the one parser makes of a spec for that dialect.
pub(crate) trait Typed: Sized {
    /// The dialect's section of the catalogue.
    const CATALOGUE: &'static [Described];
    /// How the dialect words placements.
    const WORDS: Words;
    /// The dialect as [`unknown`](Typed::unknown) names it (`Codex's dialect`).
    const OF: &'static str;
    /// The faults of one item, whose entry is `entry`: its keys are read from `args`.
    const BUILD: Build<Self>;

    /// What is said of a name that is no fault of the dialect: "`NAME` is not a fault
    /// of [`OF`](Typed::OF); they are ..." and the section's names.
    fn unknown(name: &str) -> String {
        super::lines::not_a_fault(name, Self::OF, Self::CATALOGUE)
    }
}

/// How a dialect makes its faults of one item, whose entry is the first argument: its
/// keys are read from the second.
pub(crate) type Build<F> = fn(&Described, &mut Args<'_>) -> Result<Vec<F>, Diagnostic>;

/// Parses a `;`-separated list of faults for the dialect of `F`: each item is looked
/// up in the catalogue, its keys read as the entry says, a key it does not take is an
/// error.
pub(crate) fn parse_as<F: Typed>(spec: &str, origin: Origin<'_>) -> Result<Vec<F>, Diagnostic> {
    let mut faults = Vec::new();
    for item in split_items(spec, origin)? {
        let mut args = Args::new(&item, spec, origin);
        let Some(entry) = catalogue::entry(F::CATALOGUE, &item.name) else {
            return Err(args.err(item.column, F::unknown(&item.name)));
        };
        faults.extend((F::BUILD)(entry, &mut args)?);
        args.finish(entry)?;
    }
    Ok(faults)
}

/// Declares a dialect's parser of its faults, `pub fn parse(spec, origin)`: the one
/// parser ([`parse_as`]) for its typed faults (`$fault`, [`Typed`]), documented as
/// parsing `$whose` faults. With `listed`, also `FROM_ENV`: its faults given in
/// `MOCK_AGENT_FAULTS`, whose help says where `mock-agent faults` lists them
/// ("`mock-agent faults` lists every fault (`$listed`) with an example").
macro_rules! parser {
    ($fault:ty, $whose:literal) => {
        #[doc = concat!("Parses a `;`-separated list of ", $whose, " faults.")]
        pub fn parse(
            spec: &str,
            origin: $crate::error::Origin<'_>,
        ) -> Result<Vec<$fault>, $crate::error::Diagnostic> {
            $crate::faults::spec::parse_as(spec, origin)
        }
    };
    ($fault:ty, $whose:literal, listed: $listed:literal) => {
        #[doc = concat!($whose, " faults given in `MOCK_AGENT_FAULTS`.")]
        pub const FROM_ENV: $crate::error::Origin<'static> = $crate::faults::lines::from_env(concat!(
            "`mock-agent faults` lists every fault (",
            $listed,
            ") with an example"
        ));

        $crate::faults::spec::parser!($fault, $whose);
    };
}
pub(crate) use parser;

/// Declares a dialect's typed faults, `$fault`, in one place: what [`Typed`] asks (the
/// dialect as an unknown name's error calls it, `$of`; its section of the catalogue;
/// how it makes the faults of one item; how it words the placement keys) and its
/// parser ([`parser!`], documented as parsing `$whose` faults, with `FROM_ENV` where
/// `listed` says where `mock-agent faults` lists them).
macro_rules! typed {
    ($fault:ty: $of:literal, $catalogue:expr, $build:expr, $words:expr;
     parser $whose:literal $(, listed $listed:literal)?) => {
        impl $crate::faults::spec::Typed for $fault {
            const CATALOGUE: &'static [$crate::faults::Described] = $catalogue;
            const WORDS: $crate::faults::spec::Words = $words;
            const OF: &'static str = $of;
            const BUILD: $crate::faults::spec::Build<Self> = $build;
        }

        $crate::faults::spec::parser!($fault, $whose $(, listed: $listed)?);
    };
}
pub(crate) use typed;

/// How a dialect words the placement keys, in its errors: what `after=N` counts, and
/// what `byte=K` cuts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Words {
    /// What `after=N` counts (`a number of stdout lines`).
    pub(crate) after: &'static str,
    /// What `byte=K` is (`a byte offset inside the line`).
    pub(crate) byte: &'static str,
    /// When more than one placement is given.
    pub(crate) one_of: &'static str,
    /// When `at=` is empty; `None`: an empty `at=` is taken as it is.
    pub(crate) empty_at: Option<&'static str>,
    /// When `method=M` places a fault that takes no method, in a dialect that has
    /// methods; `None`: the dialect has none (the key is then unknown).
    pub(crate) no_method: Option<&'static str>,
}

/// Where a fault is placed, as written: `after=N`, `at=WORD`, `method=M`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Written {
    After(u64),
    At(String),
    Method(String),
}

impl Written {
    /// The entry's default placement, as written.
    pub(crate) fn of(site: Site) -> Option<Written> {
        match site {
            Site::After(n) => Some(Written::After(n)),
            Site::At(at) => Some(Written::At(at.to_owned())),
            Site::Method(m) => Some(Written::Method(m.to_owned())),
            Site::End | Site::Every => None,
        }
    }
}

/// Where a fault acts in a dialect whose faults are placed at the lines the agent
/// writes (Claude Code's, Codex's): before the first line of a kind, or after a
/// number of lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinePlace {
    /// Before the first line of this kind (a `type`, a subtype, a request's).
    At(String),
    /// After this many lines (0: before the first).
    After(u64),
}

impl std::fmt::Display for LinePlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinePlace::At(at) => write!(f, "at={at}"),
            LinePlace::After(n) => write!(f, "after={n}"),
        }
    }
}

/// Splits the spec into items, honouring quotes. Columns are 1-based bytes.
pub(crate) fn split_items(spec: &str, origin: Origin<'_>) -> Result<Vec<Item>, Diagnostic> {
    let mut items = Vec::new();
    let bytes = spec.as_bytes();
    let mut i = 0;
    while i <= bytes.len() {
        // One item: name, then optional `:pairs`, up to `;` or the end.
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b';') {
            i += 1;
        }
        if i >= bytes.len() {
            break;
        }
        let start = i;
        while i < bytes.len() && !matches!(bytes[i], b':' | b';') {
            i += 1;
        }
        let name = spec[start..i].trim().to_owned();
        let mut item = Item {
            name,
            column: start + 1,
            pairs: Vec::new(),
        };
        if i < bytes.len() && bytes[i] == b':' {
            i += 1;
            loop {
                let key_start = i;
                while i < bytes.len() && !matches!(bytes[i], b'=' | b',' | b';') {
                    i += 1;
                }
                let key = spec[key_start..i].trim().to_owned();
                if key.is_empty() {
                    return Err(origin.error(
                        spec,
                        key_start + 1,
                        "a key is missing here: write `key=value`, or end the fault without `:` or `,`",
                    ));
                }
                if item.pairs.iter().any(|p| p.key == key) {
                    return Err(origin.error(spec, key_start + 1, format!("`{key}` is given twice")));
                }
                if i >= bytes.len() || bytes[i] != b'=' {
                    if !FLAGS.contains(&key.as_str()) {
                        return Err(origin.error(
                            spec,
                            key_start + 1,
                            format!("`{key}` needs a value: write `{key}=VALUE`"),
                        ));
                    }
                    item.pairs.push(Pair {
                        key,
                        value: String::new(),
                        column: key_start + 1,
                    });
                    if i < bytes.len() && bytes[i] == b',' {
                        i += 1;
                        continue;
                    }
                    break;
                }
                i += 1;
                let (value, next) = read_value(spec, i).map_err(|(col, msg)| origin.error(spec, col, msg))?;
                item.pairs.push(Pair {
                    key,
                    value,
                    column: key_start + 1,
                });
                i = next;
                if i < bytes.len() && bytes[i] == b',' {
                    i += 1;
                    continue;
                }
                break;
            }
        }
        if item.name.is_empty() {
            return Err(origin.error(spec, start + 1, "a fault name is missing here"));
        }
        items.push(item);
        if i < bytes.len() && bytes[i] != b';' {
            return Err(origin.error(
                spec,
                i + 1,
                format!(
                    "unexpected `{}`: after a value comes `,` and another key, or `;` and another fault",
                    spec[i..].chars().next().unwrap_or(' ')
                ),
            ));
        }
        i += 1;
    }
    Ok(items)
}

/// Reads a value from `start`: up to `,` or `;`, or a quoted string.
fn read_value(spec: &str, start: usize) -> Result<(String, usize), (usize, String)> {
    let bytes = spec.as_bytes();
    if bytes.get(start) != Some(&b'"') {
        let mut end = start;
        while end < bytes.len() && !matches!(bytes[end], b',' | b';') {
            end += 1;
        }
        return Ok((spec[start..end].trim().to_owned(), end));
    }
    let mut value = String::new();
    let mut chars = spec[start + 1..].char_indices();
    while let Some((offset, c)) = chars.next() {
        match c {
            '"' => return Ok((value, start + 1 + offset + 1)),
            '\\' => match chars.next() {
                Some((_, 'n')) => value.push('\n'),
                Some((_, 't')) => value.push('\t'),
                Some((_, other)) => value.push(other),
                None => break,
            },
            c => value.push(c),
        }
    }
    Err((start + 1, "this quoted value has no closing `\"`".into()))
}

/// The keys of one item, read one at a time; [`Args::finish`] fails on a key no one
/// read.
pub(crate) struct Args<'a> {
    item: &'a Item,
    spec: &'a str,
    origin: Origin<'a>,
    used: Vec<bool>,
}

impl<'a> Args<'a> {
    pub(crate) fn new(item: &'a Item, spec: &'a str, origin: Origin<'a>) -> Self {
        Args {
            used: vec![false; item.pairs.len()],
            item,
            spec,
            origin,
        }
    }

    /// The fault's name, as written.
    pub(crate) fn name(&self) -> &'a str {
        &self.item.name
    }

    /// The column where the item starts.
    pub(crate) fn column(&self) -> usize {
        self.item.column
    }

    pub(crate) fn err(&self, column: usize, message: String) -> Diagnostic {
        self.origin.error(self.spec, column, message)
    }

    pub(crate) fn get(&mut self, key: &str) -> Option<(&'a str, usize)> {
        let index = self.item.pairs.iter().position(|p| p.key == key)?;
        self.used[index] = true;
        let pair = &self.item.pairs[index];
        Some((pair.value.as_str(), pair.column))
    }

    pub(crate) fn text(&mut self, key: &str) -> Option<String> {
        self.get(key).map(|(v, _)| v.to_owned())
    }

    pub(crate) fn number<T: std::str::FromStr>(
        &mut self,
        key: &str,
        what: &str,
    ) -> Result<Option<T>, Diagnostic> {
        match self.get(key) {
            None => Ok(None),
            Some((value, column)) => value
                .parse()
                .map(Some)
                .map_err(|_| self.err(column, format!("`{key}={value}`: {key} is {what}"))),
        }
    }

    /// Where the entry's fault acts among the lines: as written, else its default,
    /// else before the first line.
    pub(crate) fn line_place(&mut self, entry: &Described, words: &Words) -> Result<LinePlace, Diagnostic> {
        let written = self.site(entry, words)?;
        Ok(match written.or_else(|| entry.default.and_then(Written::of)) {
            Some(Written::At(at)) => LinePlace::At(at),
            Some(Written::After(n)) => LinePlace::After(n),
            Some(Written::Method(_)) | None => LinePlace::After(0),
        })
    }

    /// `code=C`: an exit code, 0 to 255, if given.
    pub(crate) fn exit_code(&mut self) -> Result<Option<i32>, Diagnostic> {
        let column = self.get("code").map_or(self.item.column, |(_, c)| c);
        match self.number::<i32>("code", "an exit code, 0 to 255")? {
            Some(code) if !(0..=255).contains(&code) => {
                Err(self.err(column, format!("`code={code}`: an exit code is 0 to 255")))
            }
            code => Ok(code),
        }
    }

    /// The signal named by `key` (`name=KILL`, `signal=TERM`), if given.
    pub(crate) fn signal(&mut self, key: &str) -> Result<Option<crate::frames::Signal>, Diagnostic> {
        match self.get(key) {
            None => Ok(None),
            Some((name, column)) => crate::frames::Signal::parse(name)
                .map(Some)
                .ok_or_else(|| self.err(column, format!("`{name}` is not a signal"))),
        }
    }

    /// `ms=N`: a duration, if given.
    pub(crate) fn millis(&mut self) -> Result<Option<std::time::Duration>, Diagnostic> {
        Ok(self
            .number::<u64>("ms", "milliseconds")?
            .map(std::time::Duration::from_millis))
    }

    /// A number of bytes, at most [`MAX_BYTES`].
    pub(crate) fn size(&mut self, key: &str) -> Result<Option<usize>, Diagnostic> {
        let Some(n) = self.number::<usize>(key, "a number of bytes")? else {
            return Ok(None);
        };
        if n > MAX_BYTES {
            let column = self.get(key).map_or(self.item.column, |(_, c)| c);
            return Err(self.err(column, format!("`{key}={n}`: at most {MAX_BYTES} bytes (64 MiB)")));
        }
        Ok(Some(n))
    }

    pub(crate) fn required<T: std::str::FromStr>(&mut self, key: &str, what: &str) -> Result<T, Diagnostic> {
        self.number(key, what)?.ok_or_else(|| {
            self.err(
                self.item.column,
                format!("`{}` needs `{key}=...` ({what})", self.item.name),
            )
        })
    }

    /// The placement of a fault of `entry`, in the one vocabulary: `method=M` (where
    /// the entry takes [`Key::Method`]), `at=WORD`, `after=N`, at most one; `None`
    /// when none is given. `byte=K` is read by [`Args::byte`].
    pub(crate) fn site(&mut self, entry: &Described, words: &Words) -> Result<Option<Written>, Diagnostic> {
        let method = match (entry.takes(Key::Method), words.no_method) {
            (true, _) => self.get("method"),
            (false, Some(message)) => match self.get("method") {
                Some((_, column)) => return Err(self.err(column, message.into())),
                None => None,
            },
            (false, None) => None,
        };
        let at = self.get("at");
        let after = self.number::<u64>("after", words.after)?;
        if [method.is_some(), at.is_some(), after.is_some()]
            .iter()
            .filter(|given| **given)
            .count()
            > 1
        {
            let column = method.or(at).map_or(1, |(_, c)| c);
            return Err(self.err(column, words.one_of.into()));
        }
        Ok(match (method, at, after) {
            (Some((m, _)), _, _) => Some(Written::Method(m.to_owned())),
            (_, Some((at, column)), _) => match (at, words.empty_at) {
                ("", Some(message)) => return Err(self.err(column, message.into())),
                (at, _) => Some(Written::At(at.to_owned())),
            },
            (_, _, Some(n)) => Some(Written::After(n)),
            _ => None,
        })
    }

    /// `byte=K`, where the entry takes it.
    pub(crate) fn byte(&mut self, entry: &Described, words: &Words) -> Result<Option<usize>, Diagnostic> {
        if !entry.takes(Key::Byte) {
            return Ok(None);
        }
        self.number::<usize>("byte", words.byte)
    }

    /// Fails on a key the fault does not take, as its entry describes it.
    pub(crate) fn finish(self, entry: &Described) -> Result<(), Diagnostic> {
        match self.used.iter().position(|u| !u) {
            None => Ok(()),
            Some(i) => {
                let pair = &self.item.pairs[i];
                let takes = match entry.usage {
                    "" => " (it takes no keys)".to_owned(),
                    usage => format!(" (it takes: {usage})"),
                };
                Err(self.err(
                    pair.column,
                    format!("`{}` does not take `{}`{takes}", self.item.name, pair.key),
                ))
            }
        }
    }
}
