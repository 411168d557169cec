//! The sessions a run keeps, so that `--resume latest|N|UUID` finds them in a later
//! process: one empty file a session, named by its id, under
//! `$GEMINI_CLI_HOME/.gemini/mock-agent/sessions` (else `$HOME`'s), ordered by when
//! it was last written (the stand-in's own layout; the real CLI keeps its chats under
//! `~/.gemini/tmp/<project>/chats`).

use std::path::{Path, PathBuf};

use harness::dialects::gemini::wire::env::CLI_HOME;

/// Where the user's `.gemini` folder is: `$GEMINI_CLI_HOME/.gemini`, else
/// `$HOME/.gemini`.
pub fn gemini_dir() -> Option<PathBuf> {
    std::env::var_os(CLI_HOME)
        .or_else(|| std::env::var_os("HOME"))
        .map(|home| PathBuf::from(home).join(".gemini"))
}

/// The sessions of one home.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store of the environment's home (`None` without one).
    pub fn of_env() -> Option<Store> {
        gemini_dir().map(|dir| Store {
            dir: dir.join("mock-agent").join("sessions"),
        })
    }

    /// Where it looks (the error of an unknown session names it).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Keeps session `id` as the latest.
    pub fn save(&self, id: &str) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.dir.join(id);
        let _ = std::fs::remove_file(&path);
        std::fs::write(path, b"")
    }

    /// The sessions, oldest first.
    fn listed(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut found: Vec<(std::time::SystemTime, String)> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let time = e.metadata().and_then(|m| m.modified()).ok()?;
                Some((time, e.file_name().to_str()?.to_owned()))
            })
            .collect();
        found.sort();
        found.into_iter().map(|(_, id)| id).collect()
    }

    /// The session `-r WHICH` names: `latest`, a 1-based index, or an id.
    pub fn find(&self, which: &str) -> Option<String> {
        let listed = self.listed();
        if which == harness::dialects::gemini::wire::argv::LATEST {
            return listed.last().cloned();
        }
        if let Ok(n) = which.parse::<usize>() {
            return n.checked_sub(1).and_then(|i| listed.get(i)).cloned();
        }
        listed.into_iter().find(|id| id == which)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_found_by_latest_index_and_id() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store {
            dir: dir.path().join("s"),
        };
        assert_eq!(store.find("latest"), None);
        store.save("a").expect("saves");
        std::thread::sleep(std::time::Duration::from_millis(20));
        store.save("b").expect("saves");
        assert_eq!(store.find("latest").as_deref(), Some("b"));
        assert_eq!(store.find("1").as_deref(), Some("a"));
        assert_eq!(store.find("a").as_deref(), Some("a"));
        assert_eq!(store.find("c"), None);
    }
}
