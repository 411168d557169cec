//! Codex's threads kept between processes, as the real CLI keeps its rollouts under
//! `CODEX_HOME` (default `~/.codex`): `exec resume ID` goes on with a thread a run
//! before started, its usage cumulative across processes.
//!
//! One file a thread, `$CODEX_HOME/sessions/rollout-<id>.jsonl`, holding the mock's
//! own record of it (one JSON line: the id, how many turns it had, its running usage);
//! it is rewritten after each turn. An id that is not a UUID's characters (hex digits
//! and dashes) is never looked up on disk: it is a thread no rollout has.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use harness::dialects::codex::exec::{usage_json, Thread};
use harness::dialects::codex::session::Usage;
use harness::dialects::codex::wire::usage;

/// The folder of the rollouts, under `CODEX_HOME`.
const SESSIONS: &str = "sessions";

/// Where threads are kept.
#[derive(Debug, Clone)]
pub struct Store {
    folder: PathBuf,
}

impl Store {
    /// The store of `CODEX_HOME`, else `$HOME/.codex`; `None` when neither is set.
    pub fn of_env() -> Option<Store> {
        let home = std::env::var_os("CODEX_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".codex")))?;
        Some(Store {
            folder: home.join(SESSIONS),
        })
    }

    /// `CODEX_HOME`: the folder the sessions' folder is in.
    pub fn home(&self) -> &Path {
        self.folder.parent().unwrap_or(&self.folder)
    }

    /// Every thread kept: its id, running usage and turns (what `thread/resume`
    /// finds).
    pub fn all(&self) -> Vec<(String, Usage, usize)> {
        let Ok(entries) = std::fs::read_dir(&self.folder) else {
            return Vec::new();
        };
        entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("rollout-"))
            .filter_map(|e| read(&e.path()))
            .map(|t| (t.id, t.prior, t.turns))
            .collect()
    }

    fn path(&self, id: &str) -> Option<PathBuf> {
        let uuid_like = !id.is_empty() && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
        uuid_like.then(|| self.folder.join(format!("rollout-{id}.jsonl")))
    }

    /// The thread `id`, when a run kept it.
    pub fn load(&self, id: &str) -> Option<Thread> {
        read(&self.path(id)?)
    }

    /// The thread last kept (`exec resume --last`).
    pub fn last(&self) -> Option<Thread> {
        let newest = std::fs::read_dir(&self.folder)
            .ok()?
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("rollout-"))
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .max()?;
        read(&newest.1)
    }

    /// Keeps `thread` (after its turn), written whole to a file beside and renamed.
    pub fn save(&self, thread: &Thread) -> std::io::Result<()> {
        let Some(path) = self.path(&thread.id) else {
            return Ok(());
        };
        std::fs::create_dir_all(&self.folder)?;
        let line = json!({"thread_id": thread.id, "turns": thread.turns, "usage": usage_json(&thread.prior)});
        let temporary = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&temporary, format!("{line}\n"))?;
        std::fs::rename(&temporary, &path)
    }
}

/// A kept thread, read; `None` when it cannot be.
fn read(path: &Path) -> Option<Thread> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: Value = serde_json::from_str(text.lines().next()?).ok()?;
    let key = |k: &str| value["usage"].get(k).and_then(Value::as_u64).unwrap_or_default();
    Some(Thread {
        id: value.get("thread_id")?.as_str()?.to_owned(),
        prior: Usage {
            input_tokens: key(usage::INPUT_TOKENS),
            cached_input_tokens: key(usage::CACHED_INPUT_TOKENS),
            cache_write_input_tokens: key(usage::CACHE_WRITE_INPUT_TOKENS),
            output_tokens: key(usage::OUTPUT_TOKENS),
            reasoning_output_tokens: key(usage::REASONING_OUTPUT_TOKENS),
        },
        turns: usize::try_from(value.get("turns")?.as_u64()?).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_kept_reads_back_and_odd_ids_are_unknown() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store {
            folder: dir.path().join(SESSIONS),
        };
        let mut thread = Thread::new(3, 1);
        thread.turns = 2;
        thread.prior.input_tokens = 60;
        thread.prior.output_tokens = 24;
        store.save(&thread).expect("saves");
        assert_eq!(store.load(&thread.id), Some(thread.clone()));
        assert_eq!(store.last(), Some(thread));
        assert_eq!(store.load("../../etc/passwd"), None);
        assert_eq!(store.load("0000"), None);
    }
}
